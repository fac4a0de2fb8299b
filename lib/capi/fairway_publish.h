/*
 * fairway_publish.h - Fairway's C API for what a period publishes: the
 * options of PriorityParameters that turn publishing on, and the metrics, snapshot,
 * history, job starts and shadow policy files written from a period's record.
 *
 * Plain C over fairway.h (its errors and types), with the same habits: every failure
 * is a fairway_error_t with details in fairway_last_error(), "Errors:" on each function,
 * and a _destroy beside each object this API allocates.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_PUBLISH_H
#define FAIRWAY_PUBLISH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Fairway's options in PriorityParameters ---- */

#define FAIRWAY_MAX_FAIRSHARE_TRES 8
#define FAIRWAY_MAX_WEIGH_THREADS 64

typedef struct fairway_options {
  char metrics_dir[4096];      /* fairway_metrics_dir; "": off */
  uint32_t history_days;       /* fairway_history_days; 0: off */
  uint32_t starvation_minutes; /* fairway_starvation_minutes; 0: off */
  double starvation_quantile;  /* fairway_starvation_quantile (default 0.75) */
  char shadow_file[4096];      /* fairway_shadow; "": off */
  uint32_t queue_jobs;         /* fairway_queue_jobs (default 10000) */
  int decay_exact;             /* fairway_decay=exact: 1; slurm (the default): 0 */
  uint32_t usage_basis;        /* fairway_usage: FAIRWAY_USAGE_* (default HISTORICAL) */
  uint32_t rerank_interval;    /* fairway_rerank_interval, seconds; 0: at periods only */
  /* fairway_fairshare_tres: the TRES whose usage judges the jobs that mostly ask for them,
   * in the order given (NUL-terminated names as written); count 0: off. */
  char fairshare_tres[FAIRWAY_MAX_FAIRSHARE_TRES][64];
  uint32_t fairshare_tres_count;
  uint32_t weigh_threads; /* fairway_weigh_threads, 1 to FAIRWAY_MAX_WEIGH_THREADS;
                           * 0: not given */
  int publish_users;      /* fairway_publish_users: 1; not given or =no: 0 */
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

/* ---- What a period publishes: metrics and the per-period snapshot ---- */

/* slurm.conf's PrivateData, of what the metrics publish. */
#define FAIRWAY_PRIVATE_DATA_USAGE 0x1u /* PrivateData=usage */
#define FAIRWAY_PRIVATE_DATA_USERS 0x2u /* PrivateData=users */

/*
 * Whether fairway.prom carries samples of users for o, as settled, under private_data
 * (FAIRWAY_PRIVATE_DATA_* bits): 1 or 0.  With metrics written, users left out, or
 * fairway_publish_users keeping them under PrivateData, say (may be NULL) is told one line
 * saying so; the plugin asks at start and at each reconfigure.  Errors: none (NULL o: 1,
 * nothing said).
 */
int fairway_private_data_tell(const fairway_options_t* o, uint32_t private_data,
                              fairway_message_fn say, void* arg);

/* One pending job in one of its partitions (the plugin notes one per partition). */
typedef struct fairway_pending_row {
  uint32_t partition;  /* index into fairway_publication_t.partitions */
  uint32_t qos;        /* index into .qos; UINT32_MAX: none */
  uint32_t priority;   /* the job's priority in that partition */
  int first;           /* the job's first row (counts it once for its QOS and association) */
  int64_t submit_time; /* Unix time */
  uint32_t assoc_id;   /* the job's association (0: none) */
  uint32_t job_id;
  int64_t eligible_time;   /* when it became eligible; 0: not yet */
  uint32_t job;            /* index into fairway_publication_t.jobs; UINT32_MAX: none */
  int waits_for_resources; /* its state reason is Resources (slurmctld's WAIT_RESOURCES) */
} fairway_pending_row_t;

/* What the per-period snapshot's queue holds of a pending job beyond its rows (noted
 * with them when fairway_publication_t.jobs is wanted). */
typedef struct fairway_pending_job {
  uint32_t array_job_id; /* 0: not an array task */
  uint32_t priority;     /* the job's priority (squeue's) */
  int64_t accrue_time;   /* 0: not accruing age */
  uint32_t min_cpus, max_cpus, min_nodes;
  uint32_t time_limit;     /* minutes; NO_VAL or INFINITE: none */
  int admin;               /* priority set by an administrator (no factors) */
  uint32_t fairshare_tres; /* fairway_fairshare_tres: 1 + the index in
                            * fairway_publication_t.fairshare_tres of the TRES that judged
                            * it; 0: billing */
  /* Its weighted factors as sprio shows them, by fairway_factor_t; site and nice NOT
   * biased.  The partition factor is each partition's (not read here), the TRES factors
   * are at tres_at. */
  double factors[FAIRWAY_FACTOR_COUNT];
  size_t tres_at; /* its weighted TRES factors: fairway_publication_t.tres_values
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
  int has_factors; /* its weighted factors (sprio's) below are known */
  /* By fairway_factor_t (TRES not read); site, what the priority added, and nice NOT
   * biased (prio_factors' are). */
  double factors[FAIRWAY_FACTOR_COUNT];
} fairway_started_job_t;

typedef struct fairway_publication {
  const char* directory;     /* where the metrics go (must exist); NULL: none */
  const char* history_dir;   /* where the history goes (created); NULL: none */
  uint32_t history_days;     /* how many days of history to keep (with history_dir) */
  const char* slurm_release; /* "24.11.5" */
  int lineage_order;         /* sshare's row order of Slurm 23.11 and later */
  fairway_algorithm_t algo;
  double dampening; /* FairShareDampeningFactor */
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
  const char* const* tres_names; /* weights->tres_count names */
  const double* tres_values;
  size_t tres_value_count;
  const char* shadow_file; /* fairway_shadow (with directory and jobs); NULL: none */
  int decay_exact;         /* fairway_decay=exact: usage decays by 2^(-t/half-life) */
  /* fairway_usage: FAIRWAY_USAGE_*.  Other than HISTORICAL, fair-share is computed from
   * what the running jobs hold (as fairway_fair_share_table_load), the assocs' usage_raw stays the
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
  /* What slurm.conf's PrivateData hides (FAIRWAY_PRIVATE_DATA_* bits, as the plugin
   * translates slurm_conf.private_data) and fairway_publish_users: where users or usage are
   * hidden, fairway.prom keeps the accounts' samples only unless publish_users is set
   * (doc/metrics.md).  The 0600 files keep everything. */
  uint32_t private_data;
  int publish_users;
} fairway_publication_t;

/* What publishing keeps from one period to the next: the jobs the last published period
 * weighed and when, the jobs started since, starvation episodes, the ties and the failure
 * last told. */
typedef struct fairway_publisher fairway_publisher_t;
/* Errors: FAIRWAY_EINVAL (NULL out), FAIRWAY_ENOMEM. */
fairway_error_t fairway_publisher_new(fairway_publisher_t** out);
/* Free *pub and set it to NULL; NULL is a no-op.  Errors: none. */
void fairway_publisher_destroy(fairway_publisher_t** pub);

/* ---- A period of the plugin: what it notes under slurmctld's locks, handed over after ---- */

/* What the settings ask of publishing this period. */
typedef struct fairway_publish_settings {
  const char* metrics_dir; /* fairway_metrics_dir; NULL: none */
  uint32_t history_days, starvation_minutes, queue_jobs;
  size_t queue_tres; /* TRES weights: the TRES factors noted per job; 0: none */
  /* fairway_fairshare_tres (as slurmctld tracks them) and whether fair-share is weighted
   * (a tally of the TRES that judged the jobs is kept only then). */
  const char* const* fairshare_tres;
  size_t fairshare_tres_count;
  int fair_share;
} fairway_publish_settings_t;

/*
 * What o, as settled, asks of publishing: in s the metrics directory (NULL for ""), the
 * history days, starvation minutes and queue jobs, and fairway_fairshare_tres named through
 * names (FAIRWAY_MAX_FAIRSHARE_TRES of them, the caller's, set to point into o); queue_tres
 * and fair_share are left as they are.  Errors: FAIRWAY_EINVAL (NULL o, names or s).
 */
fairway_error_t fairway_publish_settings_from_options(const fairway_options_t* o,
                                                      const char** names,
                                                      fairway_publish_settings_t* s);
/*
 * The fields of p that o, as settled, decides: directory (NULL for no metrics directory),
 * history_days, starvation_minutes and starvation_quantile, shadow_file (NULL for ""),
 * decay_exact and usage_basis.  Errors: FAIRWAY_EINVAL (NULL o or p).
 */
fairway_error_t fairway_publication_from_options(const fairway_options_t* o,
                                                 fairway_publication_t* p);

/* What the plugin notes this period (all 0: nothing; then no publisher is needed). */
typedef struct fairway_publish_plan {
  int rows;          /* a row per pending job and partition (files, history, starvation) */
  int tally;         /* the TRES that judged each pending job */
  int queue;         /* the queue's details (fairway_pending_job_t), up to queue_jobs jobs */
  int starts;        /* the jobs started since last_walk (fairway_publisher_note_start) */
  int64_t last_walk; /* when the last published period's walk began; 0: none */
  /* The rows name their jobs and whether each waits for resources (fairway_note_t's job_id
   * and resources), which the history, starvation and the queue read; without it both are
   * 0, and the job record's lines that hold them are not read under the lock. */
  int ids;
} fairway_publish_plan_t;

/* One pending job in one partition as noted under the job lock (40 bytes): the partition
 * by address (as fairway_publisher_add_partition was given it), the QOS and association by
 * id, times as unsigned 32-bit Unix times. */
typedef struct fairway_note {
  const void* part;
  uint32_t qos_id; /* 0: none */
  uint32_t priority;
  uint32_t submit;
  uint32_t eligible; /* accrue or begin time; 0: not eligible yet */
  uint32_t assoc_id;
  uint32_t job_id;
  uint32_t job; /* the lane's job detail; UINT32_MAX: none */
  uint8_t first;
  uint8_t resources; /* its state reason is Resources */
} fairway_note_t;

/* What one weighing thread noted; the lanes in order hold the jobs in job_list's order.
 * Whoever made the lane owns the arrays (cap: their allocated lengths): a publisher's own
 * lanes (fairway_publisher_lane) grow in fairway_lane_note. */
typedef struct fairway_lane {
  fairway_note_t* rows;
  size_t n, cap;
  uint64_t jobs;               /* pending jobs noted */
  fairway_pending_job_t* jobv; /* with the queue: a detail per job ... */
  size_t njobs, jobs_cap;
  double* tres; /* ... and its weighted TRES factors (queue_tres each) */
  size_t ntres, tres_cap;
  int over; /* more jobs than queue_jobs: details left off */
  /* The tally: pending jobs weighed, and per listed TRES those it judged, the first one's
   * factor and whether another's differed. */
  uint64_t tally_jobs;
  uint64_t tres_jobs[FAIRWAY_MAX_FAIRSHARE_TRES];
  double tres_factor[FAIRWAY_MAX_FAIRSHARE_TRES];
  int tres_differ[FAIRWAY_MAX_FAIRSHARE_TRES];
  /* What the lane notes (fairway_publisher_begin sets them in a publisher's own lanes): the
   * period's plan, with the queue's details of up to queue_jobs jobs, with queue_tres TRES
   * factors each. */
  fairway_publish_plan_t plan;
  uint32_t queue_jobs;
  size_t queue_tres;
} fairway_lane_t;

/* Whether `unused` TRES k (the k-th listed) is used by no association. */
typedef int (*fairway_unused_fn)(size_t k, void* arg);

/*
 * Start a period: what to note under s (pub NULL: a publisher that published nothing).
 * With pub, the jobs started noted before are dropped (only this period's walk counts).
 * Errors: FAIRWAY_EINVAL (NULL s or out).
 */
fairway_error_t fairway_publisher_begin(fairway_publisher_t* pub,
                                        const fairway_publish_settings_t* s,
                                        fairway_publish_plan_t* out);
/* Whether a job running since start_time started since the last published period: no
 * earlier than its walk (in that very second only if that period weighed it, else it was
 * running then and was noted before) and no later than now.  Errors: none. */
int fairway_publisher_started_since(const fairway_publisher_t* pub, uint32_t job_id,
                                    int64_t start_time, int64_t now);
/* Keep a copy of a job that started since the last published period.
 * Errors: FAIRWAY_EINVAL (NULL pub or job), FAIRWAY_ENOMEM. */
fairway_error_t fairway_publisher_note_start(fairway_publisher_t* pub,
                                             const fairway_started_job_t* job);
/*
 * fairway_fairshare_tres: from the lanes' tallies (lanes NULL: pub's own), a listed TRES that makes
 * every pending job or, with a job it judged, every association tie (`unused` is asked only then)
 * is told through say once when it starts, and once when it ends. Errors: FAIRWAY_EINVAL (NULL pub
 * or s), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_publisher_tell_ties(fairway_publisher_t* pub,
                                            const fairway_publish_settings_t* s,
                                            const fairway_lane_t* const* lanes, size_t lane_count,
                                            fairway_unused_fn unused, fairway_message_fn say,
                                            void* arg);
/* ---- The plugin's period, with the lanes and copies kept by the publisher ---- */

/* What pub notes this period (fairway_publisher_begin's plan; rows cleared by
 * fairway_publisher_finish); NULL: no pub.  Errors: none. */
const fairway_publish_plan_t* fairway_publisher_plan(const fairway_publisher_t* pub);

/* The k-th of pub's own lanes (k < FAIRWAY_MAX_WEIGH_THREADS), emptied by
 * fairway_publisher_begin; NULL: no pub or no such lane.  Errors: none. */
fairway_lane_t* fairway_publisher_lane(fairway_publisher_t* pub, size_t k);

/* A pending job as the plugin copied it from its record, for fairway_lane_note. */
typedef struct fairway_job_note {
  /* The job's row: part is the job's partition (used when nparts <= 0), priority, first and
   * job are set by the note. */
  fairway_note_t row;
  const void* const* parts; /* its nparts partitions (priority_array order) */
  int nparts;
  const uint32_t* prio; /* nqos priorities per partition, the highest counts; NULL: priority */
  int nqos;
  uint32_t priority;                   /* the priority it keeps */
  const fairway_pending_job_t* detail; /* with the lane's queue: its detail (tres_at set by
                                        * the note); NULL: none */
  const double* tres;                  /* its weighted TRES factors (the lane's queue_tres);
                                        * NULL: none */
} fairway_job_note_t;

/*
 * Note a pending job in l, one of a publisher's own lanes: with the lane's queue and a
 * detail, the detail (beyond queue_jobs jobs none is kept and l->over is set), then one row
 * per partition (with none, its own partition) at its best priority there.
 * Errors: FAIRWAY_EINVAL (NULL l or job), FAIRWAY_ENOMEM (the job not noted).
 */
fairway_error_t fairway_lane_note(fairway_lane_t* l, const fairway_job_note_t* job);
/* fairway_fairshare_tres: a pending job counted in l's tally, judged by the k-th listed
 * TRES at fair-share factor `factor` (k outside the list: billing).  Errors: none. */
void fairway_lane_tally(fairway_lane_t* l, int k, double factor);

/*
 * What the period's end copies into pub under slurmctld's and assoc_mgr's locks, one call
 * per record; pub keeps the copies (names may be NULL) until fairway_publisher_finish.  A
 * copy that fails (FAIRWAY_ENOMEM) makes that period's publishing fail, told as any failure.
 * Errors: FAIRWAY_EINVAL (NULL pub or record), FAIRWAY_ENOMEM.
 */
/* The partitions the rows name, copied under the job lock that noted them (those copied
 * before are dropped), of a cluster of cpus and nodes. */
fairway_error_t fairway_publisher_partitions_begin(fairway_publisher_t* pub, uint32_t cpus,
                                                   uint32_t nodes);
/* A partition at address `at`, as the rows name it (fairway_note_t.part). */
fairway_error_t fairway_publisher_add_partition(fairway_publisher_t* pub, const void* at,
                                                const char* name,
                                                const fairway_partition_info_t* info);
/* fairway_fairshare_tres: the listed TRES's names (count of them), before the associations;
 * with_usage: each association's usage of each follows it (fairway_publisher_add_assoc). */
fairway_error_t fairway_publisher_copy_fairshare_tres(fairway_publisher_t* pub,
                                                      const char* const* names, size_t count,
                                                      int with_usage);
/* An association in assoc_mgr's order; tres_usage: its usage of each listed TRES (as many
 * as fairway_publisher_copy_fairshare_tres named, read only with_usage). */
fairway_error_t fairway_publisher_add_assoc(fairway_publisher_t* pub, const fairway_assoc_t* a,
                                            const long double* tres_usage);
fairway_error_t fairway_publisher_add_qos(fairway_publisher_t* pub, uint32_t id, const char* name,
                                          const fairway_qos_info_t* info);
/* The names of the TRES the weights index (count of them). */
fairway_error_t fairway_publisher_copy_tres(fairway_publisher_t* pub, const char* const* names,
                                            size_t count);
/* Under a held basis, the jobs holding the k-th listed TRES (n of them). */
fairway_error_t fairway_publisher_copy_tres_running(fairway_publisher_t* pub, size_t k,
                                                    const fairway_running_job_t* jobs, size_t n);

/* The period's end as the plugin saw it. */
typedef struct fairway_period_end {
  int64_t walk;          /* when the period's walk began */
  const char* where;     /* the directory the failure lines name, and where history goes */
  struct timespec begin; /* when the period began (CLOCK_MONOTONIC) */
} fairway_period_end_t;

/*
 * The period's end, from pub's own lanes and copies: p holds the settings, and gets the
 * copies, the history directory (e->where/fairway_history with p->history_days), the
 * period's end and length (now); the copies are dropped after.  Whether the queue goes out
 * is decided (told through say once per episode of more jobs than queue_jobs),
 * fairway_publish runs, a failure is told through say_error when it starts or changes and
 * through say when it ends, and on success pub keeps the jobs weighed and the walk for the
 * next period's starts.  The started jobs noted are dropped.
 * Errors: FAIRWAY_EINVAL (NULL pub, s, e or p), FAIRWAY_ENOMEM (a copy failed, told), what
 *         fairway_publish returns (told).
 */
fairway_error_t fairway_publisher_finish(fairway_publisher_t* pub,
                                         const fairway_publish_settings_t* s,
                                         const fairway_period_end_t* e, fairway_publication_t* p,
                                         fairway_message_fn say, fairway_message_fn say_error,
                                         void* arg);

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
 * names (lib/queue/shadow_policy.h) and the movement is in the metrics and in
 * fairway_shadow.json (mode 0600); a shadow policy that cannot be read or weighed is told
 * through say once until it changes, and the other files are written still.
 * And, with history_dir, appends one record per association to the day's history file
 * there (lib/queue/history.h), removing the files older than history_days, and one line
 * per started job to the journal of job starts (lib/publish/job_starts_file.h: its place in the
 * last order pub kept, and the jobs it passed).  With
 * starvation_minutes, a user starved of service (lib/queue/starvation.h) is told through say
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

#endif /* FAIRWAY_PUBLISH_H */
