/*
 * fairway.h - Fairway's C API: the priority core behind priority/fairway.
 *
 * This header is plain C and knows nothing of Slurm's headers.  The plugin shim
 * (plugin/) copies what it needs out of slurmctld into the plain structures below and
 * calls these functions; the tests call them directly.  The implementation (lib/capi/)
 * converts to the C++ core's own types (lib/core/, which never includes this header); no
 * exception ever crosses this API: every failure is reported as a fairway_error_t, with
 * details in fairway_last_error().  Functions that cannot fail say "Errors: none"; an
 * object this API allocates is freed by the _destroy function named beside it.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_H
#define FAIRWAY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Errors                                                                    */
/* ------------------------------------------------------------------------- */

typedef enum fairway_error {
  FAIRWAY_OK = 0,
  FAIRWAY_EINVAL,    /* a NULL pointer, an index out of range, a bad enum value */
  FAIRWAY_ENOMEM,    /* memory allocation failed */
  FAIRWAY_ETREE,     /* malformed association tree (unknown parent, cycle, ...) */
  FAIRWAY_EPARSE,    /* malformed input text (snapshot, setting, state file) */
  FAIRWAY_EIO,       /* a file could not be read or written */
  FAIRWAY_EINTERNAL, /* an unexpected failure inside the core (a bug: report it) */
} fairway_error_t;

/* A static, human-readable description of err ("unknown error" for bad values).
 * Errors: none. */
const char* fairway_strerror(fairway_error_t err);

/*
 * Details of the last error returned in the calling thread (e.g. which association
 * is malformed), or "" when the last call succeeded.  Valid until the next call of a
 * fairway_ function in the same thread.
 */
const char* fairway_last_error(void);

/* Fairway's version string, e.g. "0.1.0".  Errors: none. */
const char* fairway_version(void);

/* Slurm's special values, repeated here so the core needs no Slurm header. */
#define FAIRWAY_NO_VAL 0xfffffffeU
#define FAIRWAY_INFINITE 0xffffffffU
#define FAIRWAY_NICE_OFFSET 0x80000000U

/* ------------------------------------------------------------------------- */
/* Fair-share                                                                */
/* ------------------------------------------------------------------------- */

typedef enum fairway_algorithm {
  FAIRWAY_ALGO_FAIR_TREE = 0,   /* PriorityFlags default since Slurm 19.05 */
  FAIRWAY_ALGO_CLASSIC,         /* PriorityFlags=NO_FAIR_TREE */
  FAIRWAY_ALGO_DEPTH_OBLIVIOUS, /* PriorityFlags=DEPTH_OBLIVIOUS */
} fairway_algorithm_t;

/* One association, as the shim copies it out of assoc_mgr. */
typedef struct fairway_assoc {
  uint32_t id;
  uint32_t parent_id;    /* 0: the root association */
  const char* account;   /* copied by fairway_fair_share_new() */
  const char* user;      /* NULL or "": an account association */
  uint32_t shares_raw;   /* ignored when shares_parent is set */
  int shares_parent;     /* Fairshare=parent */
  long double usage_raw; /* total usage (an account's includes its subtree) */
} fairway_assoc_t;

/* Bits of fairway_assoc_result_t.set: which fields the algorithm computes for
 * that association (the others are left as Slurm's multifactor leaves them). */
#define FAIRWAY_SET_SHARES_NORM 0x01
#define FAIRWAY_SET_USAGE_NORM 0x02
#define FAIRWAY_SET_USAGE_EFCTV 0x04
#define FAIRWAY_SET_LEVEL_FS 0x08
#define FAIRWAY_SET_FS_FACTOR 0x10

typedef struct fairway_assoc_result {
  double shares_norm;
  long double usage_norm;
  long double usage_efctv;
  long double level_fs; /* Fair Tree only; may be +infinity */
  double fs_factor;
  unsigned set; /* FAIRWAY_SET_* */
} fairway_assoc_result_t;

/* A built association tree and its result buffers (opaque). */
typedef struct fairway_fair_share fairway_fair_share_t;

/*
 * Build a tree from count associations (any order).  Indexes in the other calls are
 * positions in this input array.
 * Errors: FAIRWAY_EINVAL (NULL out, or assocs NULL with count > 0),
 *         FAIRWAY_ETREE (unknown parent, cycle, no or two roots, duplicate id,
 *                        negative or NaN usage; fairway_last_error() names it),
 *         FAIRWAY_ENOMEM, FAIRWAY_EINTERNAL.
 */
fairway_error_t fairway_fair_share_new(const fairway_assoc_t* assocs, size_t count,
                                      fairway_fair_share_t** out);

/* Free *fs and set it to NULL; a NULL fs or *fs is a no-op.  Errors: none. */
void fairway_fair_share_destroy(fairway_fair_share_t** fs);

/* Number of associations in the tree.  Errors: none; 0 for NULL. */
size_t fairway_fair_share_count(const fairway_fair_share_t* fs);

/*
 * A copy of fs (its tree and usage; nothing computed yet) in *out, for a second usage
 * compared on the same tree (fairway_fairshare_tres).
 * Errors: FAIRWAY_EINVAL (NULL fs or out), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_fair_share_copy(const fairway_fair_share_t* fs,
                                       fairway_fair_share_t** out);

/*
 * Replace the total raw usage of association `index` between two computations.
 * Errors: FAIRWAY_EINVAL (NULL fs, index out of range),
 *         FAIRWAY_ETREE (negative or NaN usage).
 */
fairway_error_t fairway_fair_share_set_usage(fairway_fair_share_t* fs, size_t index,
                                            long double usage_raw);

/* What fair-share compares with shares (PriorityParameters fairway_usage). */
#define FAIRWAY_USAGE_HISTORICAL 0u /* decayed usage charged over time (multifactor's) */
#define FAIRWAY_USAGE_ALLOCATED 1u  /* what running jobs are charged per second now */
#define FAIRWAY_USAGE_COMMITTED 2u  /* that, times the seconds left to each job's end */

/* A running job as fair-share sees it under FAIRWAY_USAGE_ALLOCATED or _COMMITTED. */
typedef struct fairway_running_job {
  uint32_t assoc_id;        /* the association its usage is charged to */
  double charge_rate;       /* billable TRES x QOS UsageFactor (usage per second) */
  double remaining_seconds; /* to its end time; 0 when past it */
} fairway_running_job_t;

/*
 * Replace every association's usage by what the running jobs of its subtree hold
 * under `basis` (lib/core/held_usage.h): the jobs' charge rates (ALLOCATED) or rates
 * times remaining seconds (COMMITTED), summed up the tree.  A job whose association is
 * not in the tree holds nothing and is counted in *unknown (unknown may be NULL).
 * Errors: FAIRWAY_EINVAL (NULL fs, jobs NULL with count > 0, basis not ALLOCATED or
 *         COMMITTED), FAIRWAY_ETREE (a total that is not a finite, non-negative number),
 *         FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_fair_share_hold(fairway_fair_share_t* fs, uint32_t basis,
                                       const fairway_running_job_t* jobs, size_t count,
                                       size_t* unknown);

/*
 * PriorityParameters fairway_fairshare_tres: which of the listed TRES a job is judged by
 * (lib/core/fairshare_tres.h), an index in [0, count), or -1 for billing.  asked[k] is
 * what the job asks for of the k-th listed TRES, available[k] what its partition has;
 * asked_cpus and available_cpus the same for CPUs.  Errors: none (NULL arrays: -1).
 */
int fairway_job_fairshare_tres(const uint64_t* asked, const uint64_t* available, size_t count,
                               uint64_t asked_cpus, uint64_t available_cpus);

/*
 * Compute normalized shares, usage and the fair-share factor of every association,
 * exactly as Slurm 22.05's priority/multifactor does for `algo`.  dampening is
 * FairShareDampeningFactor (classic only; >= 1).  Allocates only on the
 * first computation of a tree with an algorithm (its workspace); never after.
 * Errors: FAIRWAY_EINVAL (NULL fs, bad algo, dampening < 1), FAIRWAY_EINTERNAL.
 */
fairway_error_t fairway_fair_share_compute(fairway_fair_share_t* fs, fairway_algorithm_t algo,
                                          double dampening);

/*
 * The result for association `index` of the last fairway_fair_share_compute().
 * Errors: FAIRWAY_EINVAL (NULL argument, index out of range).
 */
fairway_error_t fairway_fair_share_result(const fairway_fair_share_t* fs, size_t index,
                                         fairway_assoc_result_t* out);

/*
 * Classic fair-share factor 2^(-(usage_efctv/shares_norm)/dampening), 0 when
 * shares_norm <= 0 or usage_efctv is FAIRWAY_NO_VAL (as priority_p_calc_fs_factor).
 * Errors: none.
 */
double fairway_classic_fs_factor(long double usage_efctv, long double shares_norm,
                                 double dampening);

/*
 * The on-demand values of one association, as multifactor's priority_p_set_assoc_usage
 * sets them: normalized usage (usage_raw / the root's, at most 1, 0 when the root has
 * none) and classic effective usage (usage_norm + (parent's usage_efctv - usage_norm) x
 * shares_raw / level_shares; the parent's when level_shares is 0).  Errors: none.
 */
long double fairway_usage_norm(long double usage_raw, long double root_usage_raw);
long double fairway_classic_usage_efctv(long double usage_norm, long double parent_usage_efctv,
                                        uint32_t shares_raw, uint32_t level_shares);

/*
 * Depth-oblivious effective usage of one association (multifactor's
 * _depth_oblivious_set_usage_efctv): usage_norm and shares_norm of the association,
 * usage_efctv and shares_norm of its fair-share parent, and the sum of usage_norm over
 * the parent's children (Fairshare=parent ones skipped).
 */
/* Errors: none. */
long double fairway_depth_oblivious_usage_efctv(long double usage_norm, double shares_norm,
                                                long double parent_usage_efctv,
                                                double parent_shares_norm,
                                                long double siblings_usage_norm);

/*
 * Which formula gives a job's fair-share factor and an association's effective usage on
 * demand, decided here rather than by the caller.  Only shares_norm, usage_norm, usage_efctv
 * and fs_factor of a fairway_assoc_result_t are read.
 *
 * fairway_job_fs_factor: as multifactor's _get_fairshare_priority() of Slurm release
 * slurm_release (SLURM_VERSION_NUMBER) for algo.  own is the job's association, shared the
 * one it shares with (its fair-share parent for Fairshare=parent, else own).  Fair Tree, and
 * classic and depth-oblivious from 25.11: own->fs_factor; before 25.11:
 * fairway_classic_fs_factor() of shared's usage_efctv and shares_norm.  When the effective
 * usage it reads is still NO_VAL, *compute_first (when not NULL) is 1 (own's) or 2
 * (shared's): the caller computes that one on demand and asks again; else it is 0.
 *
 * fairway_assoc_usage_efctv: as priority_p_set_assoc_usage sets it for algo once usage_norm
 * is set: self's usage_norm when fs_parent is NULL (the root, or a child of the root);
 * fs_parent's usage_efctv for Fairshare=parent (shares_raw 0x7FFFFFFF); else
 * fairway_depth_oblivious_usage_efctv(), with siblings_usage_norm(arg) called only then, or
 * fairway_classic_usage_efctv().
 * Errors: none (a NULL own, shared or self, or an unknown algo: 0).
 */
double fairway_job_fs_factor(fairway_algorithm_t algo, uint32_t slurm_release,
                             const fairway_assoc_result_t* own,
                             const fairway_assoc_result_t* shared, double dampening,
                             int* compute_first);
long double fairway_assoc_usage_efctv(fairway_algorithm_t algo, const fairway_assoc_result_t* self,
                                      uint32_t shares_raw, uint32_t level_shares,
                                      const fairway_assoc_result_t* fs_parent,
                                      long double (*siblings_usage_norm)(void* arg), void* arg);

/* ------------------------------------------------------------------------- */
/* Job factors and priority                                                  */
/* ------------------------------------------------------------------------- */

/* PriorityFlags, with Fairway's own bit values (the shim translates Slurm's). */
#define FAIRWAY_FLAG_ACCRUE_ALWAYS 0x0001
#define FAIRWAY_FLAG_SMALL_RELATIVE 0x0002 /* SMALL_RELATIVE_TO_TIME */
#define FAIRWAY_FLAG_CALCULATE_RUNNING 0x0004
#define FAIRWAY_FLAG_DEPTH_OBLIVIOUS 0x0008
#define FAIRWAY_FLAG_NO_FAIR_TREE 0x0010
#define FAIRWAY_FLAG_INCR_ONLY 0x0020
#define FAIRWAY_FLAG_MAX_TRES 0x0040
#define FAIRWAY_FLAG_NO_NORMAL_ASSOC 0x0080
#define FAIRWAY_FLAG_NO_NORMAL_PART 0x0100
#define FAIRWAY_FLAG_NO_NORMAL_QOS 0x0200
#define FAIRWAY_FLAG_NO_NORMAL_TRES 0x0400

/*
 * The fair-share algorithm PriorityFlags (FAIRWAY_FLAG_* bits) select: DEPTH_OBLIVIOUS,
 * else NO_FAIR_TREE (classic), else Fair Tree.  Errors: none.
 */
fairway_algorithm_t fairway_algorithm_from_flags(uint32_t flags);

/* The Priority* settings of slurm.conf that job priorities depend on. */
typedef struct fairway_weights {
  uint32_t age;       /* PriorityWeightAge */
  uint32_t assoc;     /* PriorityWeightAssoc */
  uint32_t fairshare; /* PriorityWeightFairshare */
  uint32_t job_size;  /* PriorityWeightJobSize */
  uint32_t partition; /* PriorityWeightPartition */
  uint32_t qos;       /* PriorityWeightQOS */
  uint32_t max_age;   /* PriorityMaxAge, seconds */
  uint32_t flags;     /* FAIRWAY_FLAG_* */
  int favor_small;    /* PriorityFavorSmall */
  const double* tres; /* PriorityWeightTRES per TRES index, or NULL */
  size_t tres_count;
  /* The Slurm release whose multifactor to match, as SLURM_VERSION_NUMBER (0: 22.05).
   * From 24.11 (FAIRWAY_SLURM_24_11) the job-size factor is 0 on a cluster without nodes
   * or CPUs, and its node term for PriorityFavorSmall is 0 when the job asks for all
   * nodes or more. */
  uint32_t slurm_release;
} fairway_weights_t;

/* Releases whose multifactor computes differently (fairway_weights_t.slurm_release). */
#define FAIRWAY_SLURM_22_05 0x160500u
#define FAIRWAY_SLURM_24_11 0x180b00u

/* The cluster size the job-size factor is relative to. */
typedef struct fairway_cluster {
  uint32_t cpus;  /* cluster_cpus */
  uint32_t nodes; /* node_record_count (22.05), active_node_record_count (24.11 on) */
} fairway_cluster_t;

/* What the job-factor computation reads from a job (copied by the shim). */
typedef struct fairway_job_input {
  int has_details;     /* 0: the job has no details: priority 0 */
  time_t accrue_time;  /* 0: not accruing age */
  uint32_t total_cpus; /* 0 until the job has run */
  uint32_t max_cpus;   /* FAIRWAY_NO_VAL when unset */
  uint32_t min_cpus;
  uint32_t min_nodes;
  uint32_t time_limit; /* minutes, FAIRWAY_NO_VAL when unset */
  int has_assoc;
  double fs_factor;           /* the association's fair-share factor */
  uint32_t assoc_priority;    /* assoc->priority */
  double assoc_priority_norm; /* assoc->usage->priority_norm */
  int has_part;
  uint32_t part_priority_job_factor;
  double part_norm_priority;
  uint32_t part_max_time; /* minutes */
  int has_qos;
  uint32_t qos_priority;
  double qos_norm_priority;
  uint32_t site_factor; /* biased by FAIRWAY_NICE_OFFSET */
  uint32_t nice;        /* biased by FAIRWAY_NICE_OFFSET */
  /* Read by fairway_job_weigh with TRES weights (each NULL or w->tres_count entries):
   * allocated TRES, requested TRES, and the TRES counts of the job's partition. */
  const uint64_t* tres_alloc;
  const uint64_t* tres_req;
  const uint64_t* part_tres;
} fairway_job_input_t;

/* Normalized (then, after fairway_job_priority, weighted) factors of a job. */
typedef struct fairway_job_factors {
  double age;
  double assoc;
  double fairshare;
  double job_size;
  double partition;
  double qos;
  uint32_t site; /* biased by FAIRWAY_NICE_OFFSET */
  uint32_t nice; /* biased by FAIRWAY_NICE_OFFSET */
} fairway_job_factors_t;

/* One partition of a job submitted to several (in PriorityTier order); from Slurm 24.11
 * one (partition, QOS) pair of a job submitted to several partitions or several QOS. */
typedef struct fairway_job_partition {
  uint32_t priority_job_factor; /* the partition's PriorityJobFactor */
  double norm_priority;         /* and its normalized value */
  const uint64_t* tres_cnt;     /* the partition's TRES counts, or NULL */
  /* The pair's QOS, one of the job's several (24.11 on).  has_qos 0, or a QOS with
   * priority 0, or PriorityWeightQOS 0: the job's own weighted QOS factor counts. */
  int has_qos;
  uint32_t qos_priority;
  double qos_norm_priority;
  uint32_t priority; /* in: the job's previous priority there (0: none); out: the new one */
  int clamped;       /* out: 1 when the sum exceeded 32 bits (clamped to 2^32-1) */
} fairway_job_partition_t;

/* What fairway_job_weigh computes for one job. */
typedef struct fairway_job_weighed {
  fairway_job_factors_t weighted; /* the weighted factors, as sprio shows them */
  uint32_t priority;              /* in [1, 2^32-1] */
  int clamped;                    /* 1 when the sum exceeded 32 bits */
} fairway_job_weighed_t;

/*
 * A job's priority at `now`, whole: its factors weighted (as multifactor stores them in
 * prio_factors), its priority, with TRES weights its weighted TRES factors in tres_out
 * (w->tres_count entries; NULL skips them and their part of the sum), and its priority in
 * each of nparts partitions (parts[i].priority is kept when PriorityFlags=INCR_ONLY and
 * the new value is not higher).  One call per job and period.
 * Errors: FAIRWAY_EINVAL (w, c, job or out NULL, parts NULL with nparts > 0).
 */
fairway_error_t fairway_job_weigh(const fairway_weights_t* w, const fairway_cluster_t* c,
                                  const fairway_job_input_t* job, time_t now, double* tres_out,
                                  fairway_job_partition_t* parts, size_t nparts,
                                  fairway_job_weighed_t* out);

/*
 * The normalized factors of a job at time `now`, as multifactor's
 * set_priority_factors() computes them.
 * Errors: FAIRWAY_EINVAL (NULL argument).
 */
fairway_error_t fairway_job_factors(const fairway_weights_t* w, const fairway_cluster_t* c,
                                    const fairway_job_input_t* job, time_t now,
                                    fairway_job_factors_t* out);

/*
 * Per-TRES factors of a job (requested, or allocated where known, divided by the
 * partition's TRES counts unless NO_NORMAL_TRES).  Arrays have w->tres_count
 * entries; part_tres may be NULL; out is zeroed first.
 * Errors: FAIRWAY_EINVAL.
 */
fairway_error_t fairway_tres_factors(const fairway_weights_t* w, const uint64_t* alloc,
                                     const uint64_t* req, const uint64_t* part_tres, double* out);

/* Multiply each TRES factor by its weight in place and return their sum.
 * Errors: none; without weights (w or w->tres NULL) or factors the sum is 0. */
double fairway_tres_weighted(const fairway_weights_t* w, double* factors);

/*
 * The TRES factors of one row of sprio for a job submitted to several partitions,
 * as multifactor builds it: `row` holds a copy of the job's weighted TRES factors;
 * each TRES the job uses and the partition counts (or every TRES, with
 * NO_NORMAL_TRES) is replaced by its factor in this partition, the others keep the
 * copied value, and then every entry is weighted (so a kept value is weighted twice,
 * which is what sprio shows under multifactor).  Returns the weighted sum.
 * Errors: none; a NULL w or row returns 0 and changes nothing.
 */
double fairway_sprio_row_tres(const fairway_weights_t* w, const uint64_t* alloc,
                              const uint64_t* req, const uint64_t* part_tres, double* row);

/*
 * Weight the factors in place (as multifactor stores them in prio_factors) and
 * return the job's priority: the weighted sum plus the site factor minus nice,
 * clamped to [1, 2^32-1].  *clamped (if not NULL) is set when the sum exceeded 32 bits.
 * tres_weighted is fairway_tres_weighted() of the job's TRES factors (or 0).  A part of
 * fairway_job_weigh, for tests and tools.
 * Errors: none; a NULL w or f returns 1, the lowest priority of a job that is not held.
 */
uint32_t fairway_job_priority(const fairway_weights_t* w, fairway_job_factors_t* f,
                              double tres_weighted, int* clamped);

/*
 * The priority of an already-weighted job in one of several partitions: as
 * fairway_job_priority() but with that partition's factor and TRES sum.
 * Errors: none; a NULL w or weighted returns 1.
 */
uint32_t fairway_job_priority_in_partition(const fairway_weights_t* w,
                                           const fairway_job_factors_t* weighted,
                                           uint32_t part_priority_job_factor,
                                           double part_norm_priority, double part_tres_weighted,
                                           int* clamped);

/* ------------------------------------------------------------------------- */
/* Usage accrual, decay and the decay state file                             */
/* ------------------------------------------------------------------------- */

/* Per-second decay factor for PriorityDecayHalfLife (seconds): 1 - 0.693/h as Slurm
 * approximates it; 1 (no decay) when half_life_seconds <= 0.  Errors: none. */
double fairway_decay_factor(double half_life_seconds);

/* decay_factor^seconds, at least DBL_MIN: what stored usage is multiplied by.
 * Errors: none. */
double fairway_period_decay(double decay_factor, double seconds);
/* fairway_decay=exact: the per-second factor 2^(-1/half_life) (1 for half_life <= 0). */
double fairway_exact_decay_factor(double half_life_seconds);

/* PriorityUsageResetPeriod, numbered as Slurm's PRIORITY_RESET_*. */
typedef enum fairway_reset_period {
  FAIRWAY_RESET_NONE = 0,
  FAIRWAY_RESET_NOW,
  FAIRWAY_RESET_DAILY,
  FAIRWAY_RESET_WEEKLY,
  FAIRWAY_RESET_MONTHLY,
  FAIRWAY_RESET_QUARTERLY,
  FAIRWAY_RESET_YEARLY,
} fairway_reset_period_t;

/* The next usage reset after last_reset (local time); 0 for NONE/NOW.  Errors: none. */
time_t fairway_next_reset(fairway_reset_period_t period, time_t last_reset, time_t now);

/* PriorityUsageResetPeriod across periods: when usage is forgotten. */
typedef struct fairway_reset_schedule {
  fairway_reset_period_t period;
  time_t last_reset; /* when usage was last reset (the decay state file keeps it) */
  time_t next_reset; /* 0: computed at the next period */
} fairway_reset_schedule_t;

/*
 * Whether the period ending at `now` resets all usage: NOW once (the period becomes
 * NONE), the others at each next reset after last_reset; moves the schedule on when it
 * does.  Set next_reset to 0 after changing period (a reconfigure).
 * Errors: none; a NULL s never resets.
 */
int fairway_reset_due(fairway_reset_schedule_t* s, time_t now);

typedef struct fairway_job_times {
  time_t start_time;
  time_t end_time;
  time_t end_time_exp;
  uint32_t time_limit; /* minutes */
  int finished;        /* finished, completing or resizing */
} fairway_job_times_t;

typedef struct fairway_job_charge {
  double run_delta;         /* seconds that count */
  double run_decay;         /* decayed seconds x UsageFactor (grp_used_wall) */
  double run_nodecay;       /* seconds x UsageFactor (QOS with NoDecay) */
  double real_decay;        /* billable TRES x decayed seconds x UsageFactor (usage_raw) */
  double real_nodecay;      /* billable TRES x seconds x UsageFactor */
  uint64_t tres_time_delta; /* seconds to release from grp_used_tres_run_secs */
} fairway_job_charge_t;

/*
 * What a job is charged between start_period and end_period (at_end: the job ended,
 * so its end time caps the stretch), as multifactor's _apply_new_usage computes it.
 * usage_factor < 0: no QOS UsageFactor.
 * Errors: FAIRWAY_EINVAL (NULL argument).
 */
fairway_error_t fairway_job_charge(const fairway_job_times_t* job, time_t start_period,
                                   time_t end_period, int at_end, double decay_factor,
                                   double billable_tres, double usage_factor,
                                   fairway_job_charge_t* out);

/*
 * Read the decay state file (StateSaveLocation/priority_last_decay_ran, multifactor's
 * format).  *found is 0 when the file does not exist (times are then 0).
 * Errors: FAIRWAY_EINVAL (NULL argument), FAIRWAY_EIO (unreadable),
 *         FAIRWAY_EPARSE (corrupt: wrong size or implausible times; see
 *         fairway_last_error()).
 */
fairway_error_t fairway_decay_state_read(const char* path, time_t now, int* found, time_t* last_ran,
                                         time_t* last_reset);

/*
 * Write the decay state file atomically (PATH.new, fsync, PATH.old kept, rename), mode
 * 0600.  Errors: FAIRWAY_EINVAL, FAIRWAY_EIO (the step that failed is in
 * fairway_last_error(); the previous file is intact).
 */
fairway_error_t fairway_decay_state_write(const char* path, time_t last_ran, time_t last_reset);

/* ------------------------------------------------------------------------- */
/* Fairway's usage file and journal (restart safety after a killed slurmctld)  */
/* ------------------------------------------------------------------------- */

typedef struct fairway_usage_entry {
  uint32_t id; /* association or QOS id */
  long double usage_raw;
  double grp_used_wall;
} fairway_usage_entry_t;

/*
 * Write the usage file atomically (PATH.new, fsync, rename; mode 0600): the usage of every
 * association and QOS at the end of the period `period`.
 * Errors: FAIRWAY_EINVAL (NULL path, or NULL array with a count), FAIRWAY_EIO.
 */
fairway_error_t fairway_usage_write(const char* path, time_t period,
                                    const fairway_usage_entry_t* assocs, size_t nassocs,
                                    const fairway_usage_entry_t* qos, size_t nqos);

typedef struct fairway_usage_file fairway_usage_file_t;

/*
 * Read a usage file; *out is NULL when it does not exist.
 * Errors: FAIRWAY_EINVAL, FAIRWAY_EIO, FAIRWAY_EPARSE (names the line).
 */
fairway_error_t fairway_usage_read(const char* path, fairway_usage_file_t** out);
/* The period the file belongs to.  Errors: none; 0 for NULL. */
time_t fairway_usage_period(const fairway_usage_file_t* f);
/* Entries (qos != 0: QOS, else associations).  Errors: none; 0 entries for NULL, and a
 * NULL entry past the end. */
size_t fairway_usage_count(const fairway_usage_file_t* f, int qos);
const fairway_usage_entry_t* fairway_usage_entry(const fairway_usage_file_t* f, int qos,
                                                 size_t index);
/* Free *f and set it to NULL; NULL is a no-op.  Errors: none. */
void fairway_usage_destroy(fairway_usage_file_t** f);

/* What one job end charged, as a journal line. */
typedef struct fairway_journal_entry {
  time_t epoch; /* the period before the job ended */
  uint32_t job_id;
  uint32_t assoc_id; /* charged (real, run) up to the root */
  double real, run;
  uint32_t qos_id; /* 0: none */
  double qos_usage, qos_wall;
  uint32_t part_qos_id; /* 0: none */
  double part_qos_usage, part_qos_wall;
  /* Nonzero: a charge that did not end the job (Slurm 26.05 charges a pending
   * heterogeneous job component at submission), which may be charged again.  0: a job end
   * (what a zeroed entry says). */
  int not_ended;
} fairway_journal_entry_t;

/* The journal line of e (with its newline) in buf; its length.
 * Errors: none; 0 when e or buf is NULL or buf is too small. */
size_t fairway_journal_format(const fairway_journal_entry_t* e, char* buf, size_t len);

/*
 * Every complete entry of a journal file (a torn last line is skipped); free *entries
 * with fairway_journal_destroy(); NULL with *count 0 when the file does not exist.
 * Errors: FAIRWAY_EINVAL, FAIRWAY_EIO, FAIRWAY_EPARSE (names the line), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_journal_read(const char* path, fairway_journal_entry_t** entries,
                                     size_t* count);

/* Free what fairway_journal_read returned and set *entries to NULL.  Errors: none. */
void fairway_journal_destroy(fairway_journal_entry_t** entries);

/* ------------------------------------------------------------------------- */
/* Fairway's options in PriorityParameters                                   */
/* ------------------------------------------------------------------------- */

#define FAIRWAY_MAX_FAIRSHARE_TRES 8
#define FAIRWAY_MAX_WEIGH_THREADS 64

typedef struct fairway_options {
  char metrics_dir[4096]; /* fairway_metrics_dir; "": off */
  uint32_t history_days;  /* fairway_history_days; 0: off */
  uint32_t starvation_minutes; /* fairway_starvation_minutes; 0: off */
  double starvation_quantile;  /* fairway_starvation_quantile (default 0.75) */
  char shadow_file[4096];      /* fairway_shadow; "": off */
  uint32_t queue_jobs;         /* fairway_queue_jobs (default 100000) */
  int decay_exact;             /* fairway_decay=exact: 1; slurm (the default): 0 */
  uint32_t usage_basis;        /* fairway_usage: FAIRWAY_USAGE_* (default HISTORICAL) */
  uint32_t rerank_interval;    /* fairway_rerank_interval, seconds; 0: at periods only */
  /* fairway_fairshare_tres: the TRES whose usage judges the jobs that mostly ask for them,
   * in the order given (NUL-terminated names as written); count 0: off. */
  char fairshare_tres[FAIRWAY_MAX_FAIRSHARE_TRES][64];
  uint32_t fairshare_tres_count;
  uint32_t weigh_threads;      /* fairway_weigh_threads, 1 to FAIRWAY_MAX_WEIGH_THREADS;
                                * 0: not given */
} fairway_options_t;

/* Called once per unknown or malformed option with a line naming it. */
typedef void (*fairway_message_fn)(const char* message, void* arg);

/*
 * Parse slurm.conf's PriorityParameters (NULL: none) into *out.  Bad options are
 * reported through say (may be NULL) and ignored; the others apply.
 * Errors: FAIRWAY_EINVAL (NULL out), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_options_parse(const char* text, fairway_options_t* out,
                                      fairway_message_fn say, void* arg);

/* ------------------------------------------------------------------------- */
/* What a period publishes: metrics and the per-period snapshot              */
/* ------------------------------------------------------------------------- */

/* One pending job in one of its partitions (the plugin notes one per partition). */
typedef struct fairway_pending_row {
  uint32_t partition;     /* index into fairway_publication_t.partitions */
  uint32_t qos;           /* index into .qos; UINT32_MAX: none */
  uint32_t priority;      /* the job's priority in that partition */
  int first;              /* the job's first row (counts it once for its QOS and association) */
  int64_t submit_time;    /* Unix time */
  uint32_t assoc_id;      /* the job's association (0: none) */
  uint32_t job_id;
  int64_t eligible_time;  /* when it became eligible; 0: not yet */
  uint32_t job;           /* index into fairway_publication_t.jobs; UINT32_MAX: none */
  int waits_for_resources; /* its state reason is Resources (slurmctld's WAIT_RESOURCES) */
} fairway_pending_row_t;

/* What the per-period snapshot's queue holds of a pending job beyond its rows (noted
 * with them when fairway_publication_t.jobs is wanted). */
typedef struct fairway_pending_job {
  uint32_t array_job_id;  /* 0: not an array task */
  uint32_t priority;      /* the job's priority (squeue's) */
  int64_t accrue_time;    /* 0: not accruing age */
  uint32_t min_cpus, max_cpus, min_nodes;
  uint32_t time_limit;    /* minutes; NO_VAL or INFINITE: none */
  int admin;              /* priority set by an administrator (no factors) */
  uint32_t fairshare_tres; /* fairway_fairshare_tres: 1 + the index in
                            * fairway_publication_t.fairshare_tres of the TRES that judged
                            * it; 0: billing */
  /* Its weighted factors as sprio shows them (the partition factor is each partition's). */
  double age, assoc, fairshare, job_size, qos;
  uint32_t site, nice;    /* biased by FAIRWAY_NICE_OFFSET */
  size_t tres_at;         /* its weighted TRES factors: fairway_publication_t.tres_values
                           * [tres_at .. tres_at + tres_count); SIZE_MAX: none */
} fairway_pending_job_t;

/* A partition's settings that the queue's factors depend on. */
typedef struct fairway_partition_info {
  uint32_t priority_job_factor;
  double norm_priority;
  uint32_t priority_tier;
  uint32_t total_cpus, total_nodes;
} fairway_partition_info_t;

/* A QOS's settings that the queue's factors depend on. */
typedef struct fairway_qos_info {
  uint32_t priority;
  double usage_factor;
} fairway_qos_info_t;

/* A job that started since the last period, as the plugin copied it. */
typedef struct fairway_started_job {
  uint32_t job_id;
  const char* user;
  const char* account;
  const char* partition; /* where it runs */
  int64_t submit_time, start_time;
  uint32_t priority;
  int has_factors;       /* its weighted factors (sprio's) below are known */
  double age, assoc, fairshare, job_size, partition_factor, qos;
  double site;           /* what the priority added: NOT biased (prio_factors' is) */
  uint32_t nice;         /* biased by FAIRWAY_NICE_OFFSET */
} fairway_started_job_t;

typedef struct fairway_publication {
  const char* directory;     /* where the metrics go (must exist); NULL: none */
  const char* history_dir;   /* where the history goes (created); NULL: none */
  uint32_t history_days;     /* how many days of history to keep (with history_dir) */
  const char* slurm_release; /* "24.11.5" */
  int lineage_order;         /* sshare's row order of Slurm 23.11 and later */
  fairway_algorithm_t algo;
  double dampening;          /* FairShareDampeningFactor */
  /* The associations as assoc_mgr lists them (that order decides Fair Tree's ties). */
  const fairway_assoc_t* assocs;
  size_t assoc_count;
  const char* const* partitions;
  size_t partition_count;
  const char* const* qos;
  size_t qos_count;
  const fairway_pending_row_t* rows;
  size_t row_count;
  int64_t period_end;      /* Unix time */
  double period_seconds;   /* wall time of the period */
  double job_lock_seconds; /* slurmctld's job write lock held by the period */
  uint64_t jobs_weighed;
  const fairway_started_job_t* started; /* jobs started since the last period */
  size_t started_count;
  uint32_t starvation_minutes; /* fairway_starvation_minutes; 0: no alerts */
  double starvation_quantile;  /* fairway_starvation_quantile, in (0, 1] */
  /* The queue, for a version 2 per-period snapshot and the shadow policy (jobs NULL:
   * a version 1 snapshot, no shadow).  partition_info and qos_info are parallel to
   * partitions and qos; tres_names name the TRES indexes of the weights. */
  const fairway_pending_job_t* jobs;
  size_t job_count;
  const fairway_partition_info_t* partition_info;
  const fairway_qos_info_t* qos_info;
  const fairway_weights_t* weights;
  uint32_t decay_half_life, calc_period; /* seconds */
  uint32_t cluster_cpus, cluster_nodes;
  const char* const* tres_names;         /* weights->tres_count names */
  const double* tres_values;
  size_t tres_value_count;
  const char* shadow_file;  /* fairway_shadow (with directory and jobs); NULL: none */
  int decay_exact;          /* fairway_decay=exact: usage decays by 2^(-t/half-life) */
  /* fairway_usage: FAIRWAY_USAGE_*.  Other than HISTORICAL, fair-share is computed from
   * what the running jobs hold (fairway_fair_share_hold), the assocs' usage_raw stays the
   * historical usage (sshare's RawUsage), and the snapshot keeps both. */
  uint32_t usage_basis;
  const fairway_running_job_t* running;
  size_t running_count;
  /* fairway_fairshare_tres: the listed TRES the cluster tracks (as assoc_mgr spells them)
   * and, for the k-th, each association's usage of it: under HISTORICAL
   * fairshare_tres_usage[k * assoc_count + i] (usage_tres_raw, a subtree's total as
   * usage_raw is), otherwise what the running jobs hold of it (fairshare_tres_running[k],
   * fairshare_tres_running_count[k] jobs, charge_rate the TRES count x UsageFactor).
   * Count 0: off. */
  const char* const* fairshare_tres;
  size_t fairshare_tres_count;
  const long double* fairshare_tres_usage;
  const fairway_running_job_t* const* fairshare_tres_running;
  const size_t* fairshare_tres_running_count;
} fairway_publication_t;

/* What publishing keeps from one period to the next (starvation episodes). */
typedef struct fairway_publisher fairway_publisher_t;
/* Errors: FAIRWAY_EINVAL (NULL out), FAIRWAY_ENOMEM. */
fairway_error_t fairway_publisher_new(fairway_publisher_t** out);
/* Free *pub and set it to NULL; NULL is a no-op.  Errors: none. */
void fairway_publisher_destroy(fairway_publisher_t** pub);

/*
 * Compute the fair-share values of the associations (as the period does, outside
 * slurmctld's locks) and replace two files in p->directory, each whole or not at all
 * (NAME.new renamed over NAME; not flushed to disk: the next period writes them again):
 *   fairway.prom  the Prometheus text exposition for node_exporter's textfile collector
 *                 (doc/metrics.md), mode 0644;
 *   fairway.json  the association tree as a snapshot file that `fairway shares` reads,
 *                 mode 0600;
 * With jobs, fairway.json is a version 2 snapshot (the queue: `fairway explain`, `whatif`
 * read it); with shadow_file too, the queue is weighed again under the settings that file
 * names (lib/core/shadow_policy.h) and the movement is in the metrics and in
 * fairway_shadow.json (mode 0600); a shadow policy that cannot be read or weighed is told
 * through say once until it changes, and the other files are written still.
 * And, with history_dir, appends one record per association to the day's history file
 * there (lib/core/history.h), removing the files older than history_days, and one line
 * per started job to the journal of job starts (lib/io/job_starts_file.h: its place in the
 * last order pub kept, and the jobs it passed).  With
 * starvation_minutes, a user starved of service (lib/core/starvation.h) is told through say
 * (may be NULL) once when its episode starts and once when it ends (pub keeps the episodes;
 * NULL: none are kept), and the metrics mark it.
 * Errors: FAIRWAY_EINVAL (NULL p, NULL array with a count, bad algo),
 *         FAIRWAY_ETREE (the associations do not form a tree), FAIRWAY_EIO (a file could
 *         not be written: fairway_last_error() names it and the reason; the files of the
 *         last period stay), FAIRWAY_ENOMEM, FAIRWAY_EINTERNAL.
 */
fairway_error_t fairway_publish(fairway_publisher_t* pub, const fairway_publication_t* p,
                                fairway_message_fn say, void* arg);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_H */
