/*****************************************************************************\
 *  fairway_plugin.h - what the files of priority/fairway share: Slurm's internal
 *  headers, the settings object, the per-period state, and each file's entry
 *  points.  Private to plugin/; doc/architecture.md maps the files.
 *
 *  Locks, in the order they are taken (slurmctld's): fw_state_t.calc_lock (one
 *  period at a time), then slurmctld's job lock, then assoc_mgr's locks; the
 *  settings lock and the journal lock are leaves.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef FAIRWAY_PLUGIN_H
#define FAIRWAY_PLUGIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"

#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_rows.h"
#include "fairway_settings.h"
#include "fairway_usage_files.h"
#include "fairway_fair_share_table.h"
#include "fairway_period_clock.h"
#include "fairway_weigh_pool.h"

extern const char plugin_type[];

/* ---- settings.c: the Priority* settings, immutable once published ---- */
typedef struct {
	fairway_weights_t weights; /* weights.tres == tres */
	double *tres;		   /* xmalloc'ed, NULL without TRES weights */
	fairway_algorithm_t algo;
	/* What a job's fair-share factor reads (FAIRWAY_FS_READS_*). */
	uint32_t fs_reads;
	double damp;	      /* FairShareDampeningFactor, >= 1 */
	uint32_t slurm_flags; /* slurm_conf.priority_flags */
	bool fair_share;      /* false without slurmdbd: no fair-share */
	/* PriorityParameters' own options as settled (fairway_options_settle):
	 * fairway_fairshare_tres holds the listed TRES slurmctld tracks. */
	fairway_options_t opt;
	/* Their number and positions in the TRES arrays
	 * (lib/queue/fairshare_tres.h). */
	int fs_tres_n;
	int fs_tres_pos[FAIRWAY_MAX_FAIRSHARE_TRES];
	const char *fs_tres_name[FAIRWAY_MAX_FAIRSHARE_TRES]; /* in opt */
	/* What the options ask of publishing (publish.c), names in opt. */
	fairway_publish_settings_t publish;
	/* slurm.conf's PrivateData as FAIRWAY_PRIVATE_DATA_* bits: what
	 * fairway.prom may say of users is the library's to decide. */
	uint32_t private_data;
} fw_cfg_t;

/* The PriorityWeight* of factor FAIRWAY_FACTOR_<f>. */
#define FW_WEIGHT(cfg, f) ((cfg)->weights.weight[FAIRWAY_FACTOR_##f])

/* Fair-share compares what running jobs hold (fairway_usage=allocated or
 * committed), not historical usage. */
static inline bool fw_cfg_held(const fw_cfg_t *cfg)
{
	return cfg->opt.usage_basis != FAIRWAY_USAGE_HISTORICAL;
}

/* A part of fw_state_t: what the settings' lines last said, so that a
 * reconfigure logs only a change. */
typedef fairway_options_said_t fw_settings_log_t;

extern void fw_settings_read(fw_settings_log_t *log, bool fair_share);
/* The current settings (never NULL), held until fw_cfg_put. */
extern const fw_cfg_t *fw_cfg_get(void);
extern void fw_cfg_put(const fw_cfg_t *cfg);
/* Drop the current settings (fini). */
extern void fw_settings_clear(void);
extern fairway_algorithm_t fw_cfg_algo(void);
/* fairway_message_fn: the library's line logged as error() or info(), after
 * the plugin's type. */
extern void fw_say_error(const char *message, void *arg);
extern void fw_say_info(const char *message, void *arg);

/* Publishing's part of the state (publish*.c): the library's publisher, NULL
 * until a period publishes. */
typedef fairway_publisher_t fw_publish_t;

/* ---- the parts of fw_state_t: each module keeps its own, touched only
 * through that module's functions (which take a pointer to it); settings.c's
 * is above ---- */

/* assoc_sync.c: the core's fair-share table (the tree of the last calculation,
 * the id -> fs_factor lookups, the per-TRES trees; assoc write lock to change,
 * read lock to look up) and this period's associations as copied for it. */
typedef struct {
	/* NULL until the first calculation */
	fairway_fair_share_table_t *table;
	slurmdb_assoc_rec_t **ptrs; /* the associations, input order */
	fairway_assoc_t *in;	    /* their shape and usage */
	long double *tres_usage;    /* their usage of one listed TRES */
	size_t n, cap, tres_cap;
} fw_fs_table_t;

/* held_usage.c: what running jobs hold (fairway_usage), noted by the
 * period's walk; calc_lock.  NULL until the first job is noted. */
typedef struct {
	fairway_held_jobs_t *jobs;
} fw_held_t;

/* weigh_pass.c: the weighing pool's threads, the collected jobs, and the
 * pass being weighed (calc_lock). */
typedef struct {
	fairway_weigh_pool_t *threads; /* NULL: weigh in one thread */
	job_record_t **jobs;	       /* collected, only grows */
	/* Classic and depth-oblivious: each collected job's factor as
	 * fw_job_fs_prepare noted it (NAN: none), as long as jobs. */
	double *known;
	size_t cap, known_cap;
	const fw_cfg_t *cfg;
	const fw_fs_table_t *fs; /* the fair-share table weighed from */
	bool fs_slots;		 /* the factors of the table */
	bool use_known;		 /* and those in known */
	fw_publish_t *pub;	 /* the calculation thread's publishing */
	time_t now;
} fw_pool_t;

/* sprio_factors.c: row blocks kept for the next lists (the arena has its own
 * lock: several sprio calls may build and free lists at once); NULL: none
 * kept. */
typedef struct {
	fairway_row_arena_t *arena;
} fw_sprio_kept_t;

/* ---- job_lock.c: slurmctld's job write lock, timed ---- */
/* How long a period has held the job write lock (calc_lock). */
typedef struct {
	struct timespec taken; /* when it was last taken */
	double seconds;	       /* held since fw_job_lock_timing_reset */
} fw_job_lock_t;
/* slurmctld's job write lock (with the node and partition read locks), its
 * hold added to l->seconds when released. */
extern void fw_job_write_lock(fw_job_lock_t *l);
extern void fw_job_write_unlock(fw_job_lock_t *l);
extern void fw_job_lock_timing_reset(fw_job_lock_t *l);


/* ---- the per-period state, one instance (priority_fairway.c) ---- */
typedef struct {
	/* calc_lock serializes periods (the thread, priority_fairway_cycle)
	 * and protects the fields below but charged_to (job write lock) and
	 * the two set from other threads (reconfig, decay_factor: atomic). */
	pthread_mutex_t calc_lock;
	/* The calculation thread (period.c), NULL until started. */
	fairway_period_clock_t *clock;
	bool thread_wanted; /* start at priority_p_thread_start (24.05+) */
	bool reconfig;	    /* re-read decay settings next period (atomic) */
	bool loaded;	    /* decay state read (first period) */
	/* The TRES run seconds running jobs used before the last period are
	 * still to be released: set by init, done by the first period unless a
	 * reconfigure's release (after slurmctld reserved them again) did it
	 * first.  calc_lock. */
	bool run_secs_pending;
	bool fair_share;  /* false without slurmdbd */
	bool site_factor; /* the site_factor plugin started */
	time_t last_ran;  /* end of the last completed period */
	fairway_reset_schedule_t reset;
	double decay_factor; /* per second (atomic: read by job end) */
	/* Running jobs are charged up to this time: set in the same job write
	 * lock as a period's charging pass, read by priority_p_job_end under
	 * the job write lock.  (multifactor reads its last_ran there, which
	 * its period sets only after releasing the lock: a job ending in
	 * between is charged that stretch twice; doc/differences.md.) */
	time_t charged_to;
	/* Restart safety (usage_journal.c): the journal, the period its lines
	 * belong to (set under the assoc write lock), and the jobs whose end
	 * was replayed from it at start, never charged again. */
	fairway_usage_journal_t *journal;
	/* The usage file's copy, emptied and filled again each period in the
	 * same memory (usage_journal.c). */
	struct fairway_usage_copy *usage_copy; /* fairway_usage_state.h */
	/* The job write lock's hold time in the period being run. */
	fw_job_lock_t job_lock;
	/* What publishing keeps between periods (publish.c). */
	fw_publish_t *publish;
	/* What each module keeps across periods, each part touched only through
	 * its module's functions.  init sets them up, fini frees each with
	 * its module's free function and zeroes the struct. */
	fw_settings_log_t settings_log; /* settings.c */
	fw_fs_table_t fs;		/* assoc_sync.c */
	fw_held_t held;			/* held_usage.c */
	fw_pool_t pool;			/* weigh_pass.c */
	fw_sprio_kept_t sprio_kept;	/* sprio_factors.c */
	bool decay_logged_exact;	/* decay_state.c: mode last logged */
} fw_state_t;

/* ---- job_weigh.c: one job's priority ---- */
/* Compute a job's priority at `now`, store its weighted factors (sprio) and
 * per-partition priorities, return the priority.  Caller holds the job write
 * lock, and the assoc read lock if assoc_locked; fs: the fair-share table of
 * the last calculation (fairway_fairshare_tres' factors; with fs_slots, Fair
 * Tree's pass, the associations' fair-share factors too); known: with
 * fs_slots, the job's factor fw_job_fs_prepare noted (NULL: look it up). */
extern uint32_t fw_job_priority(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
				job_record_t *job_ptr, time_t now,
				bool assoc_locked, bool fs_slots,
				const double *known);
extern double fw_job_fs_prepare(const fw_cfg_t *cfg, fw_fs_table_t *fs,
				job_record_t *job_ptr);
extern bool fw_weighable(const fw_cfg_t *cfg, const job_record_t *job_ptr);
extern bool fw_weigh_job(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
			 job_record_t *job_ptr, time_t now, bool assoc_locked,
			 bool fs_slots, const double *known);

/* ---- assoc_sync.c: the association tree in, fair-share values out ---- */
/* An association's shape and raw usage as the core takes them (the fair-share
 * table, publishing's copy); assoc->usage is not NULL.  Assoc lock. */
static inline void fw_assoc_in(const slurmdb_assoc_rec_t *assoc,
			       fairway_assoc_t *in)
{
	bool sp = (assoc->shares_raw == SLURMDB_FS_USE_PARENT);

	in->id = assoc->id;
	in->parent_id = (assoc == assoc_mgr_root_assoc) ? 0 : assoc->parent_id;
	in->account = assoc->acct;
	in->user = assoc->user;
	in->shares_parent = sp;
	in->shares_raw = sp ? 0 : assoc->shares_raw;
	in->usage_raw = assoc->usage->usage_raw;
}
/* An association's decayed usage of the TRES at position pos, 0 without. */
static inline long double fw_assoc_tres_usage(const slurmdb_assoc_usage_t *u,
					      int pos)
{
	return (u->usage_tres_raw && (pos >= 0) && (pos < (int) u->tres_cnt)) ?
		u->usage_tres_raw[pos] :
		0.0L;
}
extern int fw_fair_share_locked(fw_fs_table_t *fs, fw_held_t *held,
				const fw_cfg_t *cfg, bool users_lazy);
/* An association's fs_factor after the last Fair Tree calculation, or NULL
 * (then read the association).  Caller holds the assoc read lock. */
static inline const double *fw_fs_table_factor(const fw_fs_table_t *fs,
					       uint32_t id)
{
	return fairway_fair_share_table_factor(fs->table, id);
}
/* fairway_fairshare_tres: the listed TRES that judges a job, its factor. */
extern int fw_job_tres_factor(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
			      const job_record_t *job_ptr, double *f);
extern void fw_assoc_sync_free(fw_fs_table_t *fs);
extern void fw_algorithm_switched(fw_fs_table_t *fs, fairway_algorithm_t algo);

/* ---- assoc_usage.c: one association's usage on demand ---- */
extern void fw_set_assoc_usage(slurmdb_assoc_rec_t *assoc,
			       fairway_fair_share_table_t *pass);
extern void fw_store_fs_factor(slurmdb_assoc_rec_t *assoc, double damp);
extern void fw_store_jobs_fs_factors(const fw_cfg_t *cfg);

/* ---- usage_charge.c: what running and ended jobs are charged ---- */
/* The assoc_mgr locks of a charging pass (inside the job write lock). */
extern assoc_mgr_lock_t fw_charge_locks;
extern bool fw_apply_new_usage(fw_state_t *st, job_record_t *job_ptr,
			       time_t start_period, time_t end_period,
			       bool at_end, bool assoc_locked);
extern bool fw_charge_running_job(fw_state_t *st, const fw_cfg_t *cfg,
				  job_record_t *job_ptr, time_t now,
				  bool assoc_locked);
extern bool fw_classic_weighs(const fw_state_t *st, const fw_cfg_t *cfg,
			      const job_record_t *job_ptr);
extern void fw_init_grp_used_tres_run_secs(fw_state_t *st);

/* ---- usage_decay.c: stored usage decayed or reset ---- */
extern void fw_usage_decay(const fw_state_t *st, double real_decay);
extern void fw_usage_reset(const fw_state_t *st);

/* ---- decay_state.c: priority_last_decay_ran ---- */
/* Decay settings, the decay state and the restored usage, before the first
 * period.  Caller holds calc_lock (or is init, before the calculation thread
 * starts), and slurmctld's job write lock if job_locked. */
extern void fw_period_state_load(fw_state_t *st, time_t now, bool job_locked);
extern void fw_decay_settings_read(fw_state_t *st);
extern void fw_decay_state_write(const fw_state_t *st);

/* ---- usage_journal.c: restart safety ---- */
struct fairway_charge_basis; /* fairway_usage_state.h */
extern bool fw_ended_before_restart(const fw_state_t *st, uint32_t job_id);
extern void fw_journal_job_end(fw_state_t *st, job_record_t *job_ptr,
			       const fairway_job_charge_t *c,
			       const struct fairway_charge_basis *basis,
			       slurmdb_qos_rec_t *qos);
extern void fw_journal_open(fw_state_t *st, bool rotate);
extern void fw_journal_close(fw_state_t *st);
extern void fw_usage_save(fw_state_t *st, time_t now);
extern void fw_usage_restore(fw_state_t *st);

/* ---- weigh_pass.c: Fair Tree's weighing pass, in a pool of threads ---- */
/* Collects the weighable jobs of job_list (charging running ones first when
 * charge): pass fw_collect_job to list_for_each with a fw_collect_t. */
typedef struct {
	fw_state_t *st;
	const fw_cfg_t *cfg;
	time_t now;
	bool charge;
	size_t n;
	/* Between periods (fairway_rerank_interval): note what running jobs
	 * hold, charge nothing, note no start. */
	bool rerank;
	/* As multifactor's one pass that charges and weighs job after job
	 * (classic's period, init without slurmdbd, a recalculation): only
	 * the jobs that pass weighs, each one's on-demand fair-share computed
	 * as it is collected (fw_job_fs_prepare), then weighed
	 * (FW_WEIGH_IN_ORDER). */
	bool in_order;
} fw_collect_t;
extern int fw_collect_job(void *x, void *arg);
/* How the collected jobs were collected: for the tree computed after the walk
 * (Fair Tree; classic's on-demand fair-share then computed first, in job
 * order), or with in_order (computed as collected). */
typedef enum { FW_WEIGH_FROM_TABLE, FW_WEIGH_IN_ORDER } fw_weigh_how_t;
extern void fw_weigh_collected(fw_pool_t *pool, const fw_cfg_t *cfg,
			       fw_fs_table_t *fs, time_t now, size_t n,
			       fw_weigh_how_t how);
extern void fw_weigh_pass_configure(fw_pool_t *pool);
extern void fw_weigh_pass_free(fw_pool_t *pool);

/* ---- held_usage.c: running jobs' holdings (fairway_usage) ---- */
/* Forget the last walk's jobs; note one running job (job write lock, assoc
 * read or write lock, TRES read lock); the jobs noted since the reset.  All
 * under calc_lock. */
static inline void fw_held_reset(fw_held_t *held)
{
	fairway_held_jobs_reset(held->jobs);
}
extern void fw_held_note(fw_held_t *held, const fw_cfg_t *cfg,
			 job_record_t *job_ptr, time_t now);
static inline const fairway_running_job_t *fw_held_jobs(const fw_held_t *held,
							size_t *n)
{
	return fairway_held_jobs_list(held->jobs, n);
}
/* The same jobs holding what they were allocated of the cfg's k-th
 * fairway_fairshare_tres (times the QOS UsageFactor) in place of billing, in
 * one buffer that the next call overwrites (copy it to keep several). */
static inline const fairway_running_job_t *fw_held_tres_jobs(fw_held_t *held,
							     int k, size_t *n)
{
	return fairway_held_jobs_tres(held->jobs, k, n);
}
static inline void fw_held_free(fw_held_t *held)
{
	fairway_held_jobs_destroy(&held->jobs);
}

/* ---- period.c: one calculation period and the thread running them ---- */
extern int fw_period(fw_state_t *st, time_t now);
extern int fw_recalc(fw_state_t *st, time_t now);
extern void fw_charge_and_weigh_all(fw_state_t *st, const fw_cfg_t *cfg,
				    time_t now);
extern void fw_calc_thread_start(fw_state_t *st);
extern void fw_calc_thread_stop(fw_state_t *st);

/* ---- publish*.c: what a period publishes (fairway_metrics_dir,
 * fairway_history_days, fairway_starvation_minutes), one observer ---- */
/* A job the period weighed, as fw_job_priority hands it to publishing: its
 * nparts partitions in priority_array order (none: its only one) with their
 * priorities (prio: nqos entries per partition, the highest counts; NULL: the
 * job's), the priority it keeps, and (fairway_fairshare_tres) the listed TRES
 * that judged it and its factor there (-1: billing). */
typedef struct {
	const job_record_t *job;
	part_record_t *const *parts;
	int nparts;
	const uint32_t *prio;
	int nqos;
	uint32_t priority;
	int tres;
	double tres_factor;
} fw_weighed_t;
/* What publishing reads of the period at its end, after every lock. */
typedef struct {
	time_t now;
	struct timespec begin;	 /* CLOCK_MONOTONIC */
	double job_lock_seconds; /* the job write lock held */
	fw_held_t *held;	 /* what running jobs hold (fairway_usage) */
} fw_period_record_t;
/* Start a period: *pub allocated when cfg publishes, and from here on the
 * calculation thread notes what it weighs.  calc_lock. */
extern void fw_publish_begin(fw_publish_t **pub, const fw_cfg_t *cfg);
/* Note a job weighed, when the calling thread notes (else nothing).  Job
 * write lock. */
extern void fw_publish_note(const fw_weighed_t *w);
extern void fw_publish_note_started(const job_record_t *job_ptr, time_t now);
/* The calculation thread's publishing in this period, NULL: none; the pool's
 * thread k (1 .. FAIRWAY_MAX_WEIGH_THREADS - 1) notes into its lane of it, -1: off.
 * The lanes are read in order. */
extern fw_publish_t *fw_publish_current(void);
extern void fw_publish_lane(fw_publish_t *pub, int lane);
/* Whether the calling thread notes its pending jobs, whether with their ids,
 * and whether with the queue's details (what the weighing prefetches). */
extern bool fw_publish_noting(void);
extern bool fw_publish_noting_ids(void);
extern bool fw_publish_noting_queue(void);
/* What must be copied under the job write lock that noted the rows (the
 * partitions), before it is released; pub may be NULL. */
extern void fw_publish_copy_locked(fw_publish_t *pub);
/* End of the period: copy the associations and QOS under assoc_mgr's read
 * locks, then write the files outside every lock.  Logs a failure once per
 * episode; pub may be NULL. */
extern void fw_publish_end(fw_publish_t *pub, const fw_cfg_t *cfg,
			   const fw_period_record_t *rec);
extern void fw_publish_free(fw_publish_t **pub);

/* ---- sprio_factors.c: sprio's rows ---- */
/* What sprio asked for (22.05; later releases filter in sprio): jobs,
 * users (lists of uint32_t, NULL: all) and partitions (comma-separated names,
 * NULL: all). */
typedef struct {
	list_t *job_ids;
	list_t *user_ids;
	char *partitions;
} fw_sprio_filter_t;
/* sprio's rows of every job uid may see, NULL when there are none; filter may
 * be NULL.  Caller holds slurmctld's job read lock when FW_SPRIO_CALLER_LOCKS,
 * and the assoc_mgr QOS read lock. */
extern list_t *fw_factors_list(fw_sprio_kept_t *kept,
			       const fw_sprio_filter_t *filter, uid_t uid);
extern void fw_sprio_kept_init(fw_sprio_kept_t *kept);
extern void fw_sprio_rows_free(fw_sprio_kept_t *kept);

#endif /* FAIRWAY_PLUGIN_H */
