/*****************************************************************************\
 *  harness.h - the parts the differential harness is made of, shared by its
 *  programs: test/differential/fw_diff (Slurm's priority_multifactor.so and
 *  priority/fairway compared on the same scenarios), test/differential/fw_soak
 *  (priority/fairway alone, under load or for many periods) and bench/fw_bench
 *  (the two plugins timed side by side).
 *
 *  Each program plays slurmctld (test/slurmctld/fake_slurmctld.c, linked with
 *  -rdynamic so that the plugins bind to it) over the real libslurmfull, and
 *  is made of:
 *    scenario.c, sites.c  scenarios: association trees, weights and flags,
 *                         random (from a seed), published site trees, bench
 *    world.c              Slurm's state from a scenario: slurm.conf, the
 *                         assoc_mgr tree, partitions and QOS; state files
 *    jobs.c               the job list: pending jobs of random shape, started,
 *                         ended
 *    plugins.c            loading multifactor and priority/fairway; the
 *                         command line every program shares
 *    capture.c            what a plugin computed, copied out (what sshare and
 *                         sprio read), and the state reset for the next one
 *    compare.c            two captures compared field by field
 *    measure.c            the clock the plugins read, lock hold times,
 *                         medians, the heap in use
 *    soak_ops.c           slurmctld's threads around the plugin (fw_soak)
 *
 *  State shared between the parts is in three structures: fw_opts (what the
 *  command line asked for), fw_world (the Slurm state of the scenario being
 *  run; one scenario per process) and fw_locks (lock hold times); the soak's
 *  threads share soak_state.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#ifndef FW_HARNESS_H
#define FW_HARNESS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Slurm's headers through plugin/slurm_compat.h (the names every supported
 * release shares), and what the harness needs besides them. */
#include "fake_slurmctld.h"

#define MAX_PARTS 3 /* partitions of a scenario, at most */
#define MAX_QOS 3   /* QOS of every scenario */
/* A job's priorities: one per partition, or per (partition, QOS) pair */
#define MAX_PRIO (MAX_PARTS * MAX_QOS)
#define MAX_TRES 8	  /* TRES counts copied out of a plugin's results */
#define FW_NOW 1700000000 /* the time every scenario's period ends */

/* ---- random numbers: a small xorshift generator, one state per thread, so
 * that scenarios are reproducible from their seed on any machine ---- */
extern __thread uint64_t fw_rng;

static inline uint32_t fw_rand(void)
{
	fw_rng ^= fw_rng << 13;
	fw_rng ^= fw_rng >> 7;
	fw_rng ^= fw_rng << 17;
	return (uint32_t) (fw_rng >> 11);
}
static inline uint32_t fw_pick(uint32_t n)
{
	return n ? fw_rand() % n : 0;
}
static inline bool fw_chance(int percent)
{
	return (int) fw_pick(100) < percent;
}

/* ---- what the command line asked for (set before anything runs) ---- */
typedef struct {
	int verbose; /* -v: Slurm's info messages, a line a scenario */
	const char *plugin_path; /* priority_fairway.so (-p, FAIRWAY_PLUGIN) */
	/* --decay-thread: each plugin runs the period in its own thread, with
	 * the scenario's decay, reset period, limits and state file */
	bool thread_mode;
	/* --reconfig-switch: Fairway switched to the scenario's algorithm by
	 * a reconfigure after a calculation under the other one */
	bool switch_mode;
	/* bench, soak and cycles: fixed job shapes, exactly nrunning running
	 * jobs, FW_BENCH_PARTS partitions */
	bool bench;
	/* soak: more slurm.conf lines, accounting through slurmdbd (so that
	 * the plugin starts its thread), a decay half-life of 7 days */
	const char *conf_extra;
	/* slurmctld's reaction to a removed association (soak) */
	void (*remove_assoc_notify)(slurmdb_assoc_rec_t *);
} fw_opts_t;
extern fw_opts_t fw_opts;

/* ---- scenario.c, sites.c ---- */
typedef struct {
	uint32_t id, parent;
	char acct[32], user[32];
	uint32_t shares;   /* SLURMDB_FS_USE_PARENT for parent */
	long double usage; /* own usage; parents get the subtree's sum */
} sc_assoc_t;

typedef struct {
	char name[160];
	char flags[256]; /* PriorityFlags */
	uint32_t w_age, w_assoc, w_fs, w_js, w_part, w_qos;
	char w_tres[128]; /* PriorityWeightTRES */
	uint32_t max_age, damp;
	bool favor_small;
	int nassoc, cap;
	sc_assoc_t *a; /* parents before their children */
	int njobs;
	int nrunning; /* bench: running jobs among njobs */
	/* --decay-thread: what the calculation threads find */
	const char *decay_hl;	  /* PriorityDecayHalfLife */
	const char *reset_period; /* PriorityUsageResetPeriod */
	bool enforce_limits;	  /* AccountingStorageEnforce=limits */
	time_t since_last_ran;	  /* since the last period */
	time_t last_reset_ago;	  /* since the last reset, 0: never */
} scenario_t;

/* Empty a scenario, keeping its association array. */
extern void sc_clear(scenario_t *s);
extern void sc_add(scenario_t *s, uint32_t id, uint32_t parent,
		   const char *acct, const char *user, uint32_t shares,
		   long double usage);
/* A random scenario, drawn from fw_rng (seeded by the caller). */
extern void sc_random(scenario_t *s, uint32_t seed);
/* --decay-thread's parameters, drawn from fw_rng after the tree. */
extern void sc_thread_params(scenario_t *s);
/* Site `which` (0, 1, ...); 0 past the last. */
extern int sc_site(scenario_t *s, int which);
/* root -> accounts -> 100 users each, about `assocs` associations. */
extern void sc_bench(scenario_t *s, int assocs, int jobs, int running);

/* ---- world.c, jobs.c: the Slurm state of the scenario being run ---- */
typedef struct {
	const char *scenario; /* its name, in messages */
	char *state_dir;      /* StateSaveLocation, a fresh directory */
	char *conf_path;      /* slurm.conf in it */
	part_record_t parts[MAX_PARTS]; /* in part_list */
	int nparts;
	slurmdb_qos_rec_t *qos[MAX_QOS]; /* in assoc_mgr_qos_list */
	int gpu_pos;			 /* gres/gpu in every TRES array */
	/* run with priority_fairway_recalc (no running job), not _cycle */
	bool use_recalc;
	/* partitions changed (last_part_update) between the period and the
	 * submits: from 24.11 a job's priorities per (partition, QOS) pair
	 * are allocated afresh (zero) then */
	bool parts_changed;
} fw_world_t;
extern fw_world_t fw_world;

/* slurm.conf, assoc_mgr, partitions, QOS and jobs of a scenario (the random
 * generator reseeded from `seed` after the tree, when not 0); the hooks
 * that time the job write lock installed. */
extern void world_setup(scenario_t *s, uint32_t seed, time_t now,
			const char *log_name);
/* Remove slurm.conf, the plugins' files and the state directory. */
extern void world_remove_files(void);
/* The plugins' files in the state directory. */
extern void world_remove_state_files(void);
/* A new association record as slurmdbd sends one: cluster, id, account and
 * user (NULL or "": an account's). */
extern slurmdb_assoc_rec_t *world_assoc_rec(uint32_t id, const char *acct,
					    const char *user);
/* assoc_mgr_update_assocs with these records (ADD or REMOVE), as slurmdbd's
 * updates reach slurmctld; fatal on failure. */
extern void world_update_assocs(uint16_t type, list_t *records);
/* assoc_mgr's record of association `id`. */
extern slurmdb_assoc_rec_t *world_assoc(uint32_t id);
/* The plugins' state file: when the last period ran (set before every
 * running job started, both plugins charge each from its start), when usage
 * was last reset (0: never). */
extern void world_write_state_file(time_t last_ran, time_t last_reset);
/* Wait until a plugin's calculation thread has finished its period at
 * `when` (both plugins write the state file last); false after 30 s. */
extern bool world_wait_period(time_t when);
/* When the last period ran, from the state file (0: none readable). */
extern time_t world_last_period(void);
/* Every association's normalized shares as assoc_mgr sets them when it
 * loads them under slurm_conf's PriorityFlags. */
extern void world_normalize_all_shares(void);

/* A pending job of association `sa`, of random shape. */
extern job_record_t *job_make(uint32_t job_id, const sc_assoc_t *sa,
			      time_t now);
/* Start a pending job at `start`: it runs on min_cpus CPUs until its time
 * limit (100000 s without one). */
extern void job_start(job_record_t *j, time_t start);
/* The scenario's jobs in job_list. */
extern void jobs_setup(scenario_t *s, time_t now);
/* Forget every job's computed priority and factors; ended jobs get back
 * those an earlier period gave them, if any. */
extern void jobs_reset(void);
/* Jobs that carry prio_factors (a period weighed them). */
extern int jobs_weighed(void);
/* Jobs with several QOS (24.11 on). */
extern int jobs_multi_qos(void);

/* ---- plugins.c ---- */
/* priority/fairway's entry points, loaded with dlopen (slurmctld's loader
 * loads one priority plugin: multifactor). */
typedef struct {
	void *handle;
	int (*init)(void);
	int (*fini)(void);
	void (*reconfig)(bool);
	uint32_t (*set)(uint32_t, job_record_t *);
	void (*set_assoc_usage)(slurmdb_assoc_rec_t *);
	fake_sprio_f *factors;
	void (*thread_start)(void); /* 23.11.6 on, NULL before */
	int (*recalc)(time_t);
	int (*cycle)(time_t);
	void (*job_end)(job_record_t *);
} fw_plugin_t;

/* Slurm's plugin directory (configure's SLURM_LIBDIR). */
extern const char *plugin_slurm_dir(void);
/* Another build of priority_multifactor.so, searched before Slurm's own
 * (FW_DIFF_MF_DIR, make coverage-multifactor), or "". */
extern const char *plugin_mf_dir(void);
/* multifactor's exported period functions. */
typedef struct {
	void (*fair_tree_decay)(list_t *,
				time_t);	  /* Fair Tree's whole period */
	bool (*charge)(job_record_t *, time_t *); /* decay_apply_new_usage */
	int (*weigh)(job_record_t *, time_t *);	  /* ..._weighted_factors */
	void (*set_assoc_usage)(slurmdb_assoc_rec_t *);
} mf_plugin_t;

/* Found in the priority_multifactor.so priority_g_init loaded. */
extern void plugin_find_mf(mf_plugin_t *mf);
/* Its priority_p_thread_start (23.11.6 on: init no longer starts its decay
 * thread), as priority_g_thread_start calls it; nothing before. */
extern void plugin_mf_thread_start(void);
/* One period of multifactor's thread, synchronously, without the decay
 * (which only the thread does): Fair Tree's fair_tree_decay, or the classic
 * algorithm's accounts top-down, then every job charged and weighed. */
extern void plugin_mf_period(const mf_plugin_t *mf, time_t now);
/* dlopen fw_opts.plugin_path; fatal without every entry point. */
extern void plugin_load_fairway(fw_plugin_t *p);
/* Multifactor through Slurm's loader outside slurmctld (no thread: cluster
 * size unknown at init), then set up as slurmctld would (cluster_cpus,
 * reconfigure). */
extern void plugin_start_mf(void);
/* priority/fairway the same way. */
extern void plugin_start_fairway(fw_plugin_t *fw);
/* A plugin started as slurmctld starts it (cluster known, its thread
 * running): multifactor through Slurm's loader (fw NULL) or priority/fairway
 * (loaded with plugin_load_fairway); init, then priority_p_thread_start
 * (23.11.6 on), with slurmctld's locks held as it holds them. */
extern void plugin_start_in_slurmctld(fw_plugin_t *fw);

/* The command line of every program: -v (Slurm's info messages) and
 * -p PLUGIN.so (default: FAIRWAY_PLUGIN) into fw_opts; the program's own
 * options (`shortopts`, `longopts`) to `option`, false for a wrong one.
 * Exits 2 with "usage: PROGRAM `usage`" on a wrong option, and with a
 * message when no plugin was given. */
extern void harness_options(int argc, char **argv, const char *shortopts,
			    const struct option *longopts,
			    bool (*option)(int opt, char *arg),
			    const char *usage);
extern void harness_usage(const char *argv0, const char *usage);

/* ---- capture.c: what a plugin computed ---- */
/* Usage, as assoc_mgr keeps it for an association and for a QOS. */
typedef struct {
	long double usage_raw;
	double grp_used_wall;
	long double tres_raw[MAX_TRES]; /* usage_tres_raw */
	uint64_t run_secs[MAX_TRES];	/* grp_used_tres_run_secs */
} usage_out_t;

typedef struct {
	double shares_norm, fs_factor;
	long double usage_norm, usage_efctv, level_fs;
	usage_out_t u;
} assoc_out_t;

typedef usage_out_t qos_out_t;

/* 24.11 on: the run seconds reserved for one account or one user under a
 * QOS (an entry of its acct_limit_list or user_limit_list). */
typedef struct {
	int qos;   /* fw_world.qos[] */
	bool user; /* user_limit_list: uid, else acct */
	char acct[32];
	uint32_t uid;
	uint64_t run_secs[MAX_TRES];
} used_out_t;

typedef struct {
	uint32_t priority;
	/* per partition (22.05) or per (partition, QOS) pair (24.11 on) */
	int nprio;
	uint32_t prio_array[MAX_PRIO];
	char prio_names[64]; /* their partitions (24.11 on) */
	bool has_factors;
	fw_prio_factors_t f;
	double tres[MAX_TRES];
} job_out_t;

/* One row of sprio: what priority_p_get_priority_factors_list returns. */
typedef struct {
	uint32_t job_id, user_id, direct_prio;
	char partition[16];
	char account[32], qos[16]; /* 24.11 on */
	bool has_factors;	   /* 24.11 on: none with direct_prio */
	fw_prio_factors_t f;
	double tres[MAX_TRES];
} sprio_row_t;

typedef struct {
	assoc_out_t *a;
	job_out_t *j;
	qos_out_t q[MAX_QOS];
	sprio_row_t *rows;
	int na, nj, nrows;
	used_out_t *used; /* sorted by QOS, list, account, user */
	int nused;
	uint32_t *set_prio; /* priority_p_set of each pending job */
	assoc_out_t *a_end; /* after priority_p_job_end (thread mode) */
	qos_out_t q_end[MAX_QOS];
	used_out_t *used_end;
	int nused_end;
} result_t;

/* Associations, QOS and jobs as they are now.  set_assoc_usage (may be
 * NULL) computes the users' effective usage a period left to sshare. */
extern void capture(result_t *r,
		    void (*set_assoc_usage)(slurmdb_assoc_rec_t *));
/* sprio's rows as root: every job, then filtered by job ids, by user and by
 * partitions (by the plugin on 22.05, as the sprio command does later), with
 * the locks slurmctld holds around the call. */
extern void capture_sprio(result_t *r, fake_sprio_f *factors);
/* priority_p_set of every pending job one second after the period, then in
 * --decay-thread scenarios priority_p_job_end of every running job and the
 * usage it charged; the jobs left as they were. */
extern void
capture_submit_and_end(result_t *r, uint32_t (*set)(uint32_t, job_record_t *),
		       void (*job_end)(job_record_t *),
		       void (*set_assoc_usage)(slurmdb_assoc_rec_t *),
		       time_t now);
extern void result_free(result_t *r);
/* Usage as before the first plugin ran: capture_initial() keeps it,
 * state_reset() restores it and forgets every computed value, so that the
 * second plugin starts from the first one's state. */
extern void capture_initial(void);
extern void capture_initial_free(void);
extern void state_reset(void);
/* Initial usage of the root association (what a period charged, -v). */
extern long double capture_initial_root_usage(void);
/* Rows of sprio where multifactor keeps a job's weighted TRES factor: a job
 * in several partitions, one of which lacks a TRES count its first has. */
extern int capture_tres_kept_rows(void);

/* ---- compare.c ---- */
/* Compare every field; print the first mismatches (MISMATCH lines).
 * Returns the mismatches of this process so far. */
extern int compare_results(const result_t *mf, const result_t *fw);

/* ---- the soak (fw_soak.c; soak_ops.c: slurmctld's operations) ---- */
#define SOAK_WORKERS 4
#define SOAK_LAG 100	  /* submitted jobs waiting before one starts */
#define SOAK_MAX_ADDED 32 /* associations added and not yet removed */
#define SOAK_FIRST_ADDED_ID 1000000 /* ids of the associations it adds */

/* The operations the soak times, in the order of its report. */
enum {
	OP_Q_JOBS,
	OP_Q_USER,
	OP_Q_PART,
	OP_Q_ALL,
	OP_SUBMIT,
	OP_TURNOVER,
	OP_RECONFIG,
	OP_ASSOC_ADD,
	OP_ASSOC_DEL,
	OP_PURGE,
	OP_PERIOD,
	SOAK_OPS
};

typedef struct {
	sc_assoc_t sc;
	slurmdb_assoc_rec_t *rec;
} added_assoc_t;

/* Shared by the soak's threads; everything is under the job write lock
 * except what is marked atomic. */
typedef struct {
	fw_plugin_t fw;
	scenario_t *s;
	int *users, nusers; /* the scenario's user associations */
	job_record_t **running;
	size_t nrun, caprun;
	job_record_t **queue; /* ring of submitted pending jobs */
	size_t qhead, qlen, qcap;
	uint32_t next_job_id; /* atomic */
	added_assoc_t added[SOAK_MAX_ADDED];
	int nadded;
	uint32_t next_assoc_id; /* only the association thread */
	double deadline;	/* read-only while the threads run */
	int stop;		/* atomic */
	long cycle_errors;	/* atomic */
	long held_by_removal;	/* jobs that lost their association */
	bool no_reconfig, no_assoc,
		no_assoc_del; /* FW_SOAK_SKIP=reconfig,assoc,del */
	bool usage;	      /* FW_SOAK_USAGE: soak_usage.c counts */
} soak_state_t;
extern soak_state_t soak_state;

/* The scenario's running jobs started as slurmctld would have: within their
 * time limit, TRES reserved. */
extern void soak_start_running(time_t now);
/* One operation (OP_Q_* to OP_ASSOC_DEL) as slurmctld's threads do it;
 * *items: the rows a query returned. */
extern void soak_op(int op, time_t now, uint32_t *items);
/* slurmctld's purge of old jobs: finished records leave job_list. */
extern void soak_purge(void);
/* assoc_mgr's notification after it removed an association. */
extern void soak_remove_assoc_notify(slurmdb_assoc_rec_t *rec);

/* ---- soak_usage.c: no usage lost (decay off), under the job write lock ---- */
/* Every association's usage now; the plugin charges from `charged_from`
 * (the last period of the state file). */
extern void soak_usage_start(time_t charged_from);
/* A job ended (priority_p_job_end called): what it ran counted. */
extern void soak_usage_job_end(const job_record_t *j);
/* An association removed, its jobs told: its usage counted. */
extern void soak_usage_assoc_removed(const slurmdb_assoc_rec_t *rec);
/* The running jobs counted up to the last period (`charged_to`), then every
 * user association's usage and the root's compared with what the jobs ran;
 * prints the figures and any difference, false on one. */
extern bool soak_usage_check(time_t charged_to);

/* ---- measure.c ---- */
/* time() as both plugins read it: frozen at this second when not 0. */
extern time_t fw_frozen_now;
/* The job write lock's hold times, measured by lock_slurmctld and
 * unlock_slurmctld. */
typedef struct {
	double sum_ns;	 /* without rwlocks: one thread, summed */
	uint64_t max_ns; /* with rwlocks: the longest (atomic) */
} fw_locks_t;
extern fw_locks_t fw_locks;
/* Time the job write lock from now on (world_setup does). */
extern void measure_install_lock_hooks(void);
/* Real read/write locks (soak) or none. */
extern void measure_use_rwlocks(bool on);
extern double ns_between(struct timespec a, struct timespec b);
extern double now_ms(void); /* CLOCK_MONOTONIC */
extern int cmp_double(const void *a, const void *b);
extern double median(double *v, int n); /* sorts v */
/* Bytes allocated with malloc: in the arenas and in mmap'ed chunks. */
extern size_t heap_bytes(void);

#endif
