/*
 * fake_slurm.h - the Slurm world of the mocked-API tests (test/plugin/), seen through
 * plain C types.
 *
 * fake_slurm.c links with the plugin shim (the files of plugin/, compiled against
 * Slurm's real headers) in place of libslurmfull, and test/slurmctld/fake_slurmctld.c in
 * place of slurmctld: between them they define every Slurm function and global the shim
 * uses.  Fixture functions build jobs, associations,
 * partitions and QOS; wrappers call the shim's entry points; every lock, log line and
 * policy question goes to the hooks the test installs (GoogleMock in test_shim.h).
 *
 * The fake also watches the shim: it reports a violation (hooks.violation) when the shim
 * takes a slurmctld lock while holding an assoc_mgr lock (slurmctld's order is the
 * reverse), reads job_list or the association list without the matching lock, leaves a
 * lock held when an entry point returns, or changes a job's or an association's computed
 * fields while not holding the lock that protects them.
 */
#ifndef FAKE_SLURM_H
#define FAKE_SLURM_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { FAKE_NO_LOCK = 0, FAKE_READ_LOCK = 1, FAKE_WRITE_LOCK = 2 };

typedef struct fake_hooks {
	void *ctx;
	void (*ctld_lock)(void *ctx, int job, int node, int part);
	void (*ctld_unlock)(void *ctx, int job, int node, int part);
	void (*assoc_lock)(void *ctx, int assoc, int qos, int tres);
	void (*assoc_unlock)(void *ctx, int assoc, int qos, int tres);
	int (*with_slurmdbd)(void *ctx);
	int (*validate_operator)(void *ctx, unsigned uid);
	int (*is_coord)(void *ctx, unsigned uid, const char *account);
	void (*log)(void *ctx, int level, const char *msg); /* error = 1 ... */
	void (*violation)(void *ctx, const char *what);
} fake_hooks_t;

/* Install hooks (NULL members: defaults) and reset the world to an empty cluster. */
void fake_reset(const fake_hooks_t *hooks);
/* Free everything (jobs, associations, ...). */
void fake_teardown(void);

/* slurm.conf */
void fake_conf_weights(uint32_t age, uint32_t assoc, uint32_t fs, uint32_t js,
		       uint32_t part, uint32_t qos, uint32_t max_age_secs);
void fake_conf_classic(int classic); /* PriorityFlags=NO_FAIR_TREE */
void fake_conf_flag_calculate_running(int on);
void fake_conf_flag_incr_only(int on);
void fake_conf_private_jobs(int on);		    /* PrivateData=jobs */
void fake_conf_state_dir(const char *dir);	    /* StateSaveLocation */
void fake_conf_priority_params(const char *params); /* PriorityParameters */
void fake_conf_decay_half_life(uint32_t secs);
void fake_conf_debug_priority(int on);		      /* DebugFlags=Priority */
void fake_set_cluster(uint32_t cpus, uint32_t nodes); /* cluster_cpus, nodes */
void fake_set_enforce_limits(int on);		      /* accounting_enforce */

/* Associations: add all, then link.  shares 0x7fffffff is Fairshare=parent. */
void fake_add_assoc(uint32_t id, uint32_t parent_id, const char *acct,
		    const char *user, uint32_t shares, double usage_raw);
void fake_link_tree(void);
double fake_assoc_fs_factor(uint32_t id);
double fake_assoc_shares_norm(uint32_t id);
long double fake_assoc_level_fs(uint32_t id);
long double fake_assoc_usage_raw(uint32_t id);
long double fake_assoc_usage_efctv(uint32_t id);
void fake_assoc_poison(uint32_t id); /* fields to recognisable garbage */
void fake_assoc_set_usage(uint32_t id, double usage_raw);
/* A user association added after fake_link_tree(), linked like assoc_mgr would. */
void fake_add_user_linked(uint32_t id, uint32_t parent_id, const char *user,
			  uint32_t shares, double usage_raw);
void fake_make_cycle(uint32_t id, uint32_t new_parent_id);

/* Partitions and QOS. */
void fake_add_part(const char *name, uint32_t priority_job_factor, double norm);
void fake_add_qos(uint32_t id, const char *name, uint32_t priority,
		  double norm);

/* Jobs.  state: 0 pending, 1 running, 2 complete. */
void fake_add_job(uint32_t job_id, uint32_t assoc_id, const char *part,
		  const char *qos, int state, uint32_t cpus, uint32_t nodes,
		  uint32_t user_id);
/* Field names: priority, direct_set_prio, nice, site_factor (both unbiased),
 * start_time, end_time, total_cpus, time_limit, accrue_time, no_details,
 * no_assoc, no_part, no_qos, begin_time, nodes (nonzero: given a node),
 * waits_for_resources (its state reason: nonzero Resources, 0 Priority). */
void fake_job_set(uint32_t job_id, const char *field, long long value);
/* The TRES position of the cluster's GPUs (gres/gpu), after Slurm's fixed five. */
#define FAKE_TRES_GPU 5
/* What a job asks for and is given of TRES `pos`; what a partition has of it; an
 * association's decayed usage of it. */
void fake_job_set_tres(uint32_t job_id, int pos, uint64_t count);
void fake_part_set_tres(const char *name, int pos, uint64_t count);
/* A job submitted to several partitions ("p1,p2"; part_ptr the first). */
void fake_job_set_partitions(uint32_t job_id, const char *parts);
/* PriorityWeightTRES, e.g. "cpu=1000,gres/gpu=2000" (NULL: none). */
void fake_conf_tres_weights(const char *weights);
/* One more TRES tracked (AccountingStorageTRES grown): the partitions' counts
 * sized again as slurmctld does; jobs keep the arrays they have. */
void fake_tres_add(const char *name);
void fake_assoc_set_tres_usage(uint32_t id, int pos, double usage);
uint32_t fake_job_priority(uint32_t job_id);
int fake_job_has_factors(uint32_t job_id);
int fake_job_has_factors_locked(uint32_t job_id); /* under the job read lock */
double fake_job_factor(uint32_t job_id,
		       const char *name); /* fs, age, js, part, qos */

/* The shim's entry points, called as slurmctld calls them (the locks it holds
 * around them, from 23.11 around init and sprio's list). */
/* init; inside slurmctld (cluster_cpus set) also priority_p_thread_start
 * (23.11.6 on) and priority_p_recover (23.02 on), as slurmctld starts up. */
int fake_call_init(void);
int fake_call_fini(void);
uint32_t fake_call_set(uint32_t job_id); /* caller holds the job write lock */
void fake_call_reconfig(int assoc_clear);
void fake_call_job_end(uint32_t job_id); /* caller holds the job write lock */
void fake_call_set_assoc_usage(uint32_t id); /* 0: a NULL association */
/* NAN when the plugin has no priority_p_calc_fs_factor (25.11 on). */
double fake_call_calc_fs_factor(long double usage_efctv,
				long double shares_norm);
int fake_has_calc_fs_factor(void);
/* Whether classic and depth-oblivious fair-share store a job's factor in its
 * association's fs_factor (25.11 on). */
int fake_classic_stores_fs_factor(void);
/* Whether the calculation thread runs without fair-share, no slurmdbd (23.11.6 on). */
int fake_thread_without_fair_share(void);
/* sprio: job ids of the returned records (at most max), count, or -1 for a NULL
 * list.  Filters as sprio asks for them (NULL / 0 for none): in the RPC
 * (22.05), in the sprio command (23.11 on). */
int fake_call_factors_list(const uint32_t *job_ids, int njob_ids,
			   const uint32_t *uids, int nuids,
			   const char *partitions, unsigned uid, uint32_t *out,
			   int max);
/* Whether slurmctld hands the plugin the request of a sprio command older than
 * 23.02 (23.11), and fake_call_factors_list as such a command asks. */
int fake_sprio_old_client_supported(void);
int fake_call_factors_list_old_client(const uint32_t *job_ids, int njob_ids,
				      const uint32_t *uids, int nuids,
				      const char *partitions, unsigned uid,
				      uint32_t *out, int max);
/* The TRES factors and weights of job_id's first row in sprio's list of every
 * pending job (at most max of each): how many the row holds, -1 without a row. */
int fake_call_factors_tres(uint32_t job_id, double *out, double *weights,
			   int max);
int fake_call_recalc(time_t now);
int fake_call_cycle(time_t now);

/* Whether slurmctld holds its job read lock and assoc_mgr's QOS read lock
 * around sprio's call (23.11 on): then the plugin takes none itself. */
int fake_sprio_caller_locks(void);

/* Locks currently held by anyone (0 when everything was released). */
int fake_locks_held(void);
/* Number of times the shim locked job_list / assocs (for "no locks taken"). */
int fake_lock_calls(void);

#ifdef __cplusplus
}
#endif

#endif
