/*
 * fairway.h - Fairway's C API: the priority core behind priority/fairway.
 *
 * This header is plain C and knows nothing of Slurm's headers.  The plugin shim
 * (plugin/) copies what it needs out of slurmctld into the plain structures below and
 * calls these functions; the tests call them directly.  The implementation (lib/capi/)
 * converts to the C++ core's own types (lib/priority/ and the libraries beside it, which
 * never include this header); no
 * exception ever crosses this API: every failure is reported as a fairway_error_t, with
 * details in fairway_last_error().  Functions that cannot fail say "Errors: none"; an
 * object this API allocates is freed by the _destroy function named beside it.
 *
 * This header holds what a period's priorities depend on: errors, fair-share, job
 * factors and priorities, usage accrual and decay.  The fair-share table that computes every
 * association's values is in fairway_fair_share_table.h; the files of restart safety in
 * fairway_usage_files.h; PriorityParameters' options and publishing in fairway_publish.h.
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

/* ---- Errors ---- */

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

/*
 * The factors of a job's priority as sprio shows them, in the order multifactor adds them
 * (the core's fairway::Factor, checked at compile time): the index of every per-factor
 * array in the C API.  SITE and NICE are never weighted (the site factor is added to the
 * priority, nice subtracted).
 */
typedef enum fairway_factor {
  FAIRWAY_FACTOR_AGE = 0,
  FAIRWAY_FACTOR_ASSOC,
  FAIRWAY_FACTOR_FAIRSHARE,
  FAIRWAY_FACTOR_JOB_SIZE,
  FAIRWAY_FACTOR_PARTITION,
  FAIRWAY_FACTOR_QOS,
  FAIRWAY_FACTOR_TRES,
  FAIRWAY_FACTOR_SITE,
  FAIRWAY_FACTOR_NICE,
  FAIRWAY_FACTOR_COUNT
} fairway_factor_t;

/* ---- Fair-share ---- */

typedef enum fairway_algorithm {
  FAIRWAY_ALGO_FAIR_TREE = 0,   /* PriorityFlags default since Slurm 19.05 */
  FAIRWAY_ALGO_CLASSIC,         /* PriorityFlags=NO_FAIR_TREE */
  FAIRWAY_ALGO_DEPTH_OBLIVIOUS, /* PriorityFlags=DEPTH_OBLIVIOUS */
} fairway_algorithm_t;

/* One association, as the shim copies it out of assoc_mgr. */
typedef struct fairway_assoc {
  uint32_t id;
  uint32_t parent_id;    /* 0: the root association */
  const char* account;   /* copied by the calls that take it */
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
 * PriorityParameters fairway_fairshare_tres: which of the listed TRES a job is judged by
 * (lib/queue/fairshare_tres.h), an index in [0, count), or -1 for billing.  asked[k] is
 * what the job asks for of the k-th listed TRES, available[k] what its partition has;
 * asked_cpus and available_cpus the same for CPUs.  Errors: none (NULL arrays: -1).
 */
int fairway_job_fairshare_tres(const uint64_t* asked, const uint64_t* available, size_t count,
                               uint64_t asked_cpus, uint64_t available_cpus);

/*
 * Classic fair-share factor 2^(-(usage_efctv/shares_norm)/dampening), 0 when
 * shares_norm <= 0 or usage_efctv is FAIRWAY_NO_VAL (as priority_p_calc_fs_factor).
 * Errors: none.
 */
double fairway_classic_fs_factor(long double usage_efctv, long double shares_norm,
                                 double dampening);

/*
 * The on-demand normalized usage of one association, as multifactor's
 * priority_p_set_assoc_usage sets it: usage_raw / the root's, at most 1, 0 when the root has
 * none.  Errors: none.
 */
long double fairway_usage_norm(long double usage_raw, long double root_usage_raw);

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
 * depth-oblivious's (multifactor's _depth_oblivious_set_usage_efctv), with
 * siblings_usage_norm(arg), the sum of usage_norm over fs_parent's children, called only
 * then, or classic's (usage_norm + (fs_parent's usage_efctv - usage_norm) x shares_raw /
 * level_shares; fs_parent's when level_shares is 0).
 * Errors: none (a NULL own, shared or self, or an unknown algo: 0).
 */
double fairway_job_fs_factor(fairway_algorithm_t algo, uint32_t slurm_release,
                             const fairway_assoc_result_t* own,
                             const fairway_assoc_result_t* shared, double dampening,
                             int* compute_first);
/*
 * The values fairway_job_fs_factor reads for algo and slurm_release (FAIRWAY_FS_READS_*
 * bits), so that the caller copies only those: the others may be left 0.
 * Errors: none (an unknown algo: 0).
 */
#define FAIRWAY_FS_READS_OWN_FS_FACTOR 1u   /* own->fs_factor */
#define FAIRWAY_FS_READS_OWN_USAGE_EFCTV 2u /* own->usage_efctv */
#define FAIRWAY_FS_READS_SHARED 4u          /* shared->usage_efctv and shared->shares_norm */
uint32_t fairway_job_fs_reads(fairway_algorithm_t algo, uint32_t slurm_release);

long double fairway_assoc_usage_efctv(fairway_algorithm_t algo, const fairway_assoc_result_t* self,
                                      uint32_t shares_raw, uint32_t level_shares,
                                      const fairway_assoc_result_t* fs_parent,
                                      long double (*siblings_usage_norm)(void* arg), void* arg);

/* ---- Job factors and priority ---- */

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
  /* PriorityWeightAge, Assoc, Fairshare, JobSize, Partition and QOS by fairway_factor_t;
   * the TRES, SITE and NICE entries are not read (PriorityWeightTRES is per TRES, below). */
  uint32_t weight[FAIRWAY_FACTOR_COUNT];
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

/*
 * The weighted factors of a job by fairway_factor_t, as the core's FactorValues: TRES is the
 * weighted sum of the TRES factors; SITE is the site factor and NICE the job's nice, both
 * without FAIRWAY_NICE_OFFSET and never weighted (the site factor is added, nice subtracted).
 */
typedef struct fairway_job_factors {
  double factor[FAIRWAY_FACTOR_COUNT];
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

/* ---- Usage accrual and decay ---- */

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

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_H */
