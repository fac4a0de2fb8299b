/*
 * fake_slurm_fixtures.c - the cluster a mocked-API test builds (fake_slurm.h's fixture
 * functions: jobs, associations, partitions, QOS and the settings of slurm.conf) and the
 * shim's entry points called as slurmctld calls them, each checked by the lock watcher
 * of fake_slurm.c (fake_slurm_watch.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slurm's headers through plugin/slurm_compat.h, and the names of the
 * functions mocked here that differ between releases. */
#include "fake_slurmctld.h"
#include "fake_slurm.h"
#include "fake_slurm_watch.h"

/* the shim's entry points; weak: those of some releases only */
extern int init(void);
extern int fini(void);
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr);
extern void priority_p_reconfig(bool assoc_clear);
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc);
extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
	__attribute__((weak)); /* before 25.11 */
extern fake_sprio_f priority_p_get_priority_factors_list;
extern void priority_p_thread_start(void)
	__attribute__((weak)); /* 23.11.6 on */
extern uint32_t priority_p_recover(uint32_t prio_boost)
	__attribute__((weak)); /* 23.02 on */
extern void priority_p_job_end(job_record_t *job_ptr);
extern int priority_fairway_recalc(time_t now);
extern int priority_fairway_cycle(time_t now);

/* ------------------------------------------------------------------------- */
/* Fixtures                                                                  */
/* ------------------------------------------------------------------------- */

#define MAX_PARTS 8
#define MAX_QOS 8
static part_record_t g_parts[MAX_PARTS];
static int g_nparts;
static slurmdb_qos_rec_t *g_qos[MAX_QOS];
static int g_nqos;

static void _free_assoc(void *x)
{
	slurmdb_assoc_rec_t *a = x;
	if (a->usage) {
		list_destroy(a->usage->children_list);
		slurmdb_destroy_assoc_usage(a->usage);
	}
	free(a->acct);
	free(a->user);
	free(a);
}

static void _free_qos(void *x)
{
	slurmdb_qos_rec_t *q = x;
	if (q->usage) {
		list_destroy(q->usage->acct_limit_list);
		list_destroy(q->usage->user_limit_list);
		free(q->usage->usage_tres_raw);
		free(q->usage->grp_used_tres_run_secs);
		free(q->usage);
	}
	free(q->name);
	free(q);
}

void fake_teardown(void)
{
	list_destroy(job_list);
	job_list = NULL;
	list_destroy(assoc_mgr_assoc_list);
	assoc_mgr_assoc_list = NULL;
	list_destroy(assoc_mgr_qos_list);
	assoc_mgr_qos_list = NULL;
	list_destroy(part_list);
	part_list = NULL;
	assoc_mgr_root_assoc = NULL;
	for (int i = 0; i < g_nparts; i++) {
		free(g_parts[i].name);
		free(g_parts[i].tres_cnt);
	}
	g_nparts = 0;
	g_nqos = 0;
	free(slurm_conf.state_save_location);
	slurm_conf.state_save_location = NULL;
	free(slurm_conf.priority_params);
	slurm_conf.priority_params = NULL;
	free(slurm_conf.priority_weight_tres);
	slurm_conf.priority_weight_tres = NULL;
	free(assoc_mgr_tres_name_array);
	assoc_mgr_tres_name_array = NULL;
}

void fake_reset(const fake_hooks_t *hooks)
{
	fake_teardown();
	fake_watch_reset(hooks);
	memset(&slurm_conf, 0, sizeof(slurm_conf));
	slurm_conf.priority_flags = PRIORITY_FLAGS_FAIR_TREE;
	slurm_conf.fs_dampening_factor = 1;
	slurm_conf.priority_calc_period = 300;
	slurm_conf.priority_max_age = 7 * 86400;
	slurm_conf.state_save_location = strdup("/nonexistent/fairway-test");
	cluster_cpus = NO_VAL;
	fake_ctld_set_node_count(4);
	/* Slurm's five fixed TRES, then a GPU (AccountingStorageTRES=gres/gpu). */
	slurmctld_tres_cnt = FAKE_TRES_GPU + 1;
	accounting_enforce = 0;
	assoc_mgr_tres_name_array = calloc(FAKE_TRES_GPU + 1, sizeof(char *));
	assoc_mgr_tres_name_array[TRES_ARRAY_CPU] = (char *) "cpu";
	assoc_mgr_tres_name_array[TRES_ARRAY_MEM] = (char *) "mem";
	assoc_mgr_tres_name_array[TRES_ARRAY_ENERGY] = (char *) "energy";
	assoc_mgr_tres_name_array[TRES_ARRAY_NODE] = (char *) "node";
	assoc_mgr_tres_name_array[TRES_ARRAY_BILLING] = (char *) "billing";
	assoc_mgr_tres_name_array[FAKE_TRES_GPU] = (char *) "gres/gpu";
	g_tres_count = FAKE_TRES_GPU + 1;
	job_list = list_create(fake_ctld_free_job);
	part_list = list_create(NULL);
	assoc_mgr_assoc_list = list_create(_free_assoc);
	assoc_mgr_qos_list = list_create(_free_qos);
	fake_watch_zero();
	fake_rebase();
}

void fake_conf_weights(uint32_t age, uint32_t assoc, uint32_t fs, uint32_t js,
		       uint32_t part, uint32_t qos, uint32_t max_age_secs)
{
	slurm_conf.priority_weight_age = age;
	slurm_conf.priority_weight_assoc = assoc;
	slurm_conf.priority_weight_fs = fs;
	slurm_conf.priority_weight_js = js;
	slurm_conf.priority_weight_part = part;
	slurm_conf.priority_weight_qos = qos;
	slurm_conf.priority_max_age = max_age_secs;
}

void fake_conf_classic(int classic)
{
	if (classic)
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_FAIR_TREE;
	else
		slurm_conf.priority_flags |= PRIORITY_FLAGS_FAIR_TREE;
}

void fake_conf_flag_calculate_running(int on)
{
	if (on)
		slurm_conf.priority_flags |= PRIORITY_FLAGS_CALCULATE_RUNNING;
	else
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_CALCULATE_RUNNING;
}

void fake_conf_flag_incr_only(int on)
{
	if (on)
		slurm_conf.priority_flags |= PRIORITY_FLAGS_INCR_ONLY;
	else
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_INCR_ONLY;
}

void fake_conf_private_jobs(int on)
{
	slurm_conf.private_data = on ? PRIVATE_DATA_JOBS : 0;
}

void fake_conf_state_dir(const char *dir)
{
	free(slurm_conf.state_save_location);
	slurm_conf.state_save_location = strdup(dir);
}

void fake_conf_priority_params(const char *params)
{
	free(slurm_conf.priority_params);
	slurm_conf.priority_params = params ? strdup(params) : NULL;
}

void fake_conf_decay_half_life(uint32_t secs)
{
	slurm_conf.priority_decay_hl = secs;
}

void fake_conf_debug_priority(int on)
{
	if (on)
		slurm_conf.debug_flags |= DEBUG_FLAG_PRIO;
	else
		slurm_conf.debug_flags &= ~DEBUG_FLAG_PRIO;
}

void fake_set_cluster(uint32_t cpus, uint32_t nodes)
{
	cluster_cpus = cpus;
	fake_ctld_set_node_count(nodes);
}

void fake_set_enforce_limits(int on)
{
	accounting_enforce = on ? ACCOUNTING_ENFORCE_LIMITS : 0;
}

static slurmdb_assoc_rec_t *_assoc(uint32_t id)
{
	for (int i = 0; i < assoc_mgr_assoc_list->n; i++) {
		slurmdb_assoc_rec_t *a = assoc_mgr_assoc_list->items[i];
		if (a->id == id)
			return a;
	}
	return NULL;
}

void fake_add_assoc(uint32_t id, uint32_t parent_id, const char *acct,
		    const char *user, uint32_t shares, double usage_raw)
{
	slurmdb_assoc_rec_t *a = calloc(1, sizeof(*a));
	a->id = id;
	a->parent_id = parent_id;
	a->acct = strdup(acct);
	a->user = user ? strdup(user) : NULL;
	a->shares_raw = shares;
	a->usage = calloc(1, sizeof(*a->usage));
	a->usage->tres_cnt = slurmctld_tres_cnt;
	a->usage->usage_tres_raw = calloc(slurmctld_tres_cnt,
					  sizeof(long double));
	a->usage->grp_used_tres_run_secs = calloc(slurmctld_tres_cnt,
						  sizeof(uint64_t));
	a->usage->usage_raw = usage_raw;
	a->usage->usage_norm = (long double) NO_VAL;
	a->usage->children_list = list_create(NULL);
	list_append(assoc_mgr_assoc_list, a);
	if (!parent_id)
		assoc_mgr_root_assoc = a;
	fake_rebase();
}

/* Parent pointers, children lists, the fair-share parent, level_shares and
 * classic normalized shares, as assoc_mgr would set them. */
void fake_link_tree(void)
{
	for (int i = 0; i < assoc_mgr_assoc_list->n; i++) {
		slurmdb_assoc_rec_t *a = assoc_mgr_assoc_list->items[i];
		slurmdb_assoc_rec_t *p = a->parent_id ? _assoc(a->parent_id) :
							NULL;
		a->usage->parent_assoc_ptr = p;
		a->usage->fs_assoc_ptr = p;
		while (a->usage->fs_assoc_ptr &&
		       (a->usage->fs_assoc_ptr->shares_raw ==
			SLURMDB_FS_USE_PARENT) &&
		       a->usage->fs_assoc_ptr->usage->parent_assoc_ptr)
			a->usage->fs_assoc_ptr =
				a->usage->fs_assoc_ptr->usage->parent_assoc_ptr;
		if (a->usage->fs_assoc_ptr)
			list_append(
				a->usage->fs_assoc_ptr->usage->children_list,
				a);
	}
	for (int i = 0; i < assoc_mgr_assoc_list->n; i++) {
		slurmdb_assoc_rec_t *a = assoc_mgr_assoc_list->items[i];
		slurmdb_assoc_rec_t *p = a->usage->fs_assoc_ptr;
		uint32_t level = 0;
		if (!p) {
			a->usage->shares_norm = 1.0;
			continue;
		}
		for (int k = 0; k < p->usage->children_list->n; k++) {
			slurmdb_assoc_rec_t *s =
				p->usage->children_list->items[k];
			if (s->shares_raw != SLURMDB_FS_USE_PARENT)
				level += s->shares_raw;
		}
		a->usage->level_shares = level;
		a->usage->shares_norm = level ? (double) a->shares_raw / level :
						0;
	}
	fake_rebase();
}

/* assoc_mgr's normalization of one association's shares, by the PriorityFlags
 * in slurm_conf: under Fair Tree its raw shares over its level's (those of the
 * association it shares with, for Fairshare=parent); otherwise the product of
 * that ratio at every level up to the root, or the fair-share parent's value
 * for Fairshare=parent. */
void assoc_mgr_normalize_assoc_shares(slurmdb_assoc_rec_t *assoc)
{
	slurmdb_assoc_rec_t *a = assoc;
	double norm = 1.0;

	if (slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE) {
		if ((a->shares_raw == SLURMDB_FS_USE_PARENT) &&
		    a->usage->fs_assoc_ptr)
			a = a->usage->fs_assoc_ptr;
		assoc->usage->shares_norm = a->usage->level_shares ?
			(double) a->shares_raw / a->usage->level_shares :
			0.0;
		return;
	}
	if ((a->shares_raw == SLURMDB_FS_USE_PARENT) &&
	    a->usage->fs_assoc_ptr) {
		assoc->usage->shares_norm =
			a->usage->fs_assoc_ptr->usage->shares_norm;
		return;
	}
	for (; a->usage->parent_assoc_ptr; a = a->usage->parent_assoc_ptr) {
		if (a->shares_raw == SLURMDB_FS_USE_PARENT)
			continue;
		norm = a->usage->level_shares ?
			norm * a->shares_raw / a->usage->level_shares :
			0.0;
	}
	assoc->usage->shares_norm = norm;
}

double fake_assoc_shares_norm(uint32_t id)
{
	return _assoc(id)->usage->shares_norm;
}
double fake_assoc_fs_factor(uint32_t id)
{
	return _assoc(id)->usage->fs_factor;
}
long double fake_assoc_level_fs(uint32_t id)
{
	return _assoc(id)->usage->level_fs;
}
long double fake_assoc_usage_raw(uint32_t id)
{
	return _assoc(id)->usage->usage_raw;
}
long double fake_assoc_usage_efctv(uint32_t id)
{
	return _assoc(id)->usage->usage_efctv;
}

void fake_assoc_poison(uint32_t id)
{
	slurmdb_assoc_rec_t *a = _assoc(id);
	a->usage->fs_factor = 12345.0;
	a->usage->level_fs = 12345.0L;
	fake_rebase();
}

void fake_assoc_set_usage(uint32_t id, double usage_raw)
{
	_assoc(id)->usage->usage_raw = usage_raw;
	fake_rebase();
}

void fake_add_user_linked(uint32_t id, uint32_t parent_id, const char *user,
			  uint32_t shares, double usage_raw)
{
	slurmdb_assoc_rec_t *p = _assoc(parent_id), *a;
	fake_add_assoc(id, parent_id, p->acct, user, shares, usage_raw);
	a = _assoc(id);
	a->usage->parent_assoc_ptr = p;
	a->usage->fs_assoc_ptr = p;
	list_append(p->usage->children_list, a);
	fake_rebase();
}

void fake_make_cycle(uint32_t id, uint32_t new_parent_id)
{
	_assoc(id)->parent_id = new_parent_id;
	fake_rebase();
}

void fake_add_part(const char *name, uint32_t priority_job_factor, double norm)
{
	part_record_t *p = &g_parts[g_nparts++];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	p->priority_job_factor = priority_job_factor;
	p->norm_priority = norm;
	p->max_time = INFINITE;
	p->tres_cnt = calloc(slurmctld_tres_cnt, sizeof(uint64_t));
	list_append(part_list, p);
}

void fake_add_qos(uint32_t id, const char *name, uint32_t priority, double norm)
{
	slurmdb_qos_rec_t *q = calloc(1, sizeof(*q));
	q->id = id;
	q->name = strdup(name);
	q->priority = priority;
	q->usage_factor = 1.0;
	q->usage = calloc(1, sizeof(*q->usage));
	q->usage->norm_priority = norm;
	q->usage->usage_tres_raw = calloc(slurmctld_tres_cnt,
					  sizeof(long double));
	q->usage->grp_used_tres_run_secs = calloc(slurmctld_tres_cnt,
						  sizeof(uint64_t));
	list_append(assoc_mgr_qos_list, q);
	g_qos[g_nqos++] = q;
}

static job_record_t *_job(uint32_t job_id)
{
	for (int i = 0; i < job_list->n; i++) {
		job_record_t *j = job_list->items[i];
		if (j->job_id == job_id)
			return j;
	}
	fprintf(stderr, "fake: no job %u\n", job_id);
	abort();
}

void fake_add_job(uint32_t job_id, uint32_t assoc_id, const char *part,
		  const char *qos, int state, uint32_t cpus, uint32_t nodes,
		  uint32_t user_id)
{
	job_record_t *j = calloc(1, sizeof(*j));
	j->magic = JOB_MAGIC;
	fake_ctld_job_set_id(j, job_id);
	j->job_state = (state == 0) ? JOB_PENDING :
		(state == 1)	    ? JOB_RUNNING :
				      JOB_COMPLETE;
	j->assoc_id = assoc_id;
	j->assoc_ptr = _assoc(assoc_id);
	j->account = j->assoc_ptr ? strdup(j->assoc_ptr->acct) : NULL;
	j->user_id = user_id;
	j->part_ptr = part ? find_part_record((char *) part) : NULL;
	j->partition = part ? strdup(part) : NULL;
	for (int i = 0; qos && i < g_nqos; i++)
		if (!strcmp(g_qos[i]->name, qos))
			j->qos_ptr = g_qos[i];
	j->priority = 1;
	j->site_factor = NICE_OFFSET;
	j->time_limit = 60;
	j->details = calloc(1, sizeof(*j->details));
	j->details->min_cpus = cpus;
	j->details->max_cpus = NO_VAL;
	j->details->min_nodes = nodes;
	j->details->nice = NICE_OFFSET;
	j->details->submit_time = 1000;
	j->details->begin_time = 1000;
	j->details->accrue_time = 1000;
	j->tres_alloc_cnt = calloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_alloc_cnt[TRES_ARRAY_CPU] = cpus;
	j->tres_req_cnt = calloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_req_cnt[TRES_ARRAY_CPU] = cpus;
	if (state) {
		j->total_cpus = cpus;
		j->start_time = 1000;
		j->end_time_exp = 1000 + 3600;
	}
	list_append(job_list, j);
	fake_rebase();
}

void fake_job_set(uint32_t job_id, const char *field, long long v)
{
	job_record_t *j = _job(job_id);
	if (!strcmp(field, "priority"))
		j->priority = v;
	else if (!strcmp(field, "direct_set_prio"))
		j->direct_set_prio = v;
	else if (!strcmp(field, "nice"))
		j->details->nice = NICE_OFFSET + v;
	else if (!strcmp(field, "site_factor"))
		j->site_factor = NICE_OFFSET + v;
	else if (!strcmp(field, "nodes")) /* nonzero: given node n1 */
		j->nodes = v ? (char *) "n1" : NULL;
	else if (!strcmp(field, "waits_for_resources"))
		j->state_reason = v ? WAIT_RESOURCES : WAIT_PRIORITY;
	else if (!strcmp(field, "start_time"))
		j->start_time = v;
	else if (!strcmp(field, "end_time"))
		j->end_time = v;
	else if (!strcmp(field, "end_time_exp"))
		j->end_time_exp = v;
	else if (!strcmp(field, "total_cpus"))
		j->total_cpus = v;
	else if (!strcmp(field, "time_limit"))
		j->time_limit = v;
	else if (!strcmp(field, "accrue_time"))
		j->details->accrue_time = v;
	else if (!strcmp(field, "begin_time"))
		j->details->begin_time = v;
	else if (!strcmp(field, "state"))
		j->job_state = (v == 0) ? JOB_PENDING :
			(v == 1)	? JOB_RUNNING :
					  JOB_COMPLETE;
	else if (!strcmp(field, "no_details")) {
		free(j->details);
		j->details = NULL;
	} else if (!strcmp(field, "no_assoc"))
		j->assoc_ptr = NULL;
	else if (!strcmp(field, "no_part"))
		j->part_ptr = NULL;
	else if (!strcmp(field, "no_qos"))
		j->qos_ptr = NULL;
	else {
		fprintf(stderr, "fake_job_set: unknown field %s\n", field);
		abort();
	}
	fake_rebase();
}

uint32_t fake_job_priority(uint32_t job_id)
{
	return _job(job_id)->priority;
}
int fake_job_has_factors(uint32_t job_id)
{
	return _job(job_id)->prio_factors != NULL;
}

/* The same under the job read lock (no hooks), for a test that asks while the
 * calculation thread may be weighing. */
int fake_job_has_factors_locked(uint32_t job_id)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	int has;

	fake_ctld_caller_locks(job_read, true);
	has = _job(job_id)->prio_factors != NULL;
	fake_ctld_caller_locks(job_read, false);
	return has;
}

double fake_job_factor(uint32_t job_id, const char *name)
{
	fw_prio_factors_t *f = _job(job_id)->prio_factors;
	if (!f)
		return NAN;
	if (!strcmp(name, "fs"))
		return f->priority_fs;
	if (!strcmp(name, "age"))
		return f->priority_age;
	if (!strcmp(name, "js"))
		return f->priority_js;
	if (!strcmp(name, "part"))
		return f->priority_part;
	if (!strcmp(name, "qos"))
		return f->priority_qos;
	return NAN;
}

/* ------------------------------------------------------------------------- */
/* Entry points, called as slurmctld calls them                              */
/* ------------------------------------------------------------------------- */

/*
 * As slurmctld starts the plugin: init, then (23.11.6 on)
 * priority_p_thread_start once the nodes are read, both holding the config
 * write lock from 23.11 on;
 * then (23.02 on) priority_p_recover once the jobs are loaded, no lock held.
 * Outside slurmctld (cluster_cpus NO_VAL: sshare) init alone, no lock.
 */
int fake_call_init(void)
{
	bool in_slurmctld = (cluster_cpus != NO_VAL);
	bool caller_locks = in_slurmctld && FW_INIT_CALLER_LOCKS;
	int rc;

	fake_rebase();
	if (caller_locks)
		fake_caller_job_lock(true);
	rc = init();
	if (in_slurmctld && priority_p_thread_start)
		priority_p_thread_start();
	if (caller_locks)
		fake_caller_job_lock(false);
	fake_after("after init");
	if ((rc == SLURM_SUCCESS) && in_slurmctld && priority_p_recover) {
		fake_rebase();
		(void) priority_p_recover(0);
		fake_after("after priority_p_recover");
	}
	return rc;
}

int fake_call_fini(void)
{
	int rc = fini();
	fake_after("after fini");
	if (fake_locks_held())
		fake_violation("locks still held after fini");
	return rc;
}

uint32_t fake_call_set(uint32_t job_id)
{
	uint32_t p;
	fake_rebase();
	fake_caller_job_lock(true);
	p = priority_p_set(0, _job(job_id));
	fake_caller_job_lock(false);
	fake_rebase(); /* the caller stores the result under its lock */
	if (fake_locks_held())
		fake_violation("locks still held after priority_p_set");
	return p;
}

void fake_call_reconfig(int assoc_clear)
{
	fake_rebase();
	priority_p_reconfig(assoc_clear);
	fake_after("after priority_p_reconfig");
	if (fake_locks_held())
		fake_violation("locks still held after priority_p_reconfig");
}

void fake_call_job_end(uint32_t job_id)
{
	fake_rebase();
	fake_caller_job_lock(true);
	priority_p_job_end(_job(job_id));
	fake_caller_job_lock(false);
	fake_rebase();
	if (fake_locks_held())
		fake_violation("locks still held after priority_p_job_end");
}

void fake_call_set_assoc_usage(uint32_t id)
{
	/* Callers (sshare's RPC, a job's fair-share) hold the assoc lock. */
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	if (!id) {
		priority_p_set_assoc_usage(NULL);
		return;
	}
	assoc_mgr_lock(&locks);
	priority_p_set_assoc_usage(_assoc(id));
	assoc_mgr_unlock(&locks);
}

double fake_call_calc_fs_factor(long double usage_efctv,
				long double shares_norm)
{
	if (!priority_p_calc_fs_factor)
		return NAN;
	return priority_p_calc_fs_factor(usage_efctv, shares_norm);
}

int fake_has_calc_fs_factor(void)
{
	return priority_p_calc_fs_factor != NULL;
}

int fake_classic_stores_fs_factor(void)
{
	return FW_CLASSIC_STORES_FS_FACTOR;
}

int fake_thread_without_fair_share(void)
{
	return FW_THREAD_WITHOUT_FAIR_SHARE;
}

int fake_sprio_caller_locks(void)
{
	return FW_SPRIO_CALLER_LOCKS;
}

/* Whether the next sprio calls come from a command older than 23.02. */
static bool g_sprio_old_client;

int fake_sprio_old_client_supported(void)
{
	return FAKE_CTLD_SPRIO_OLD_CLIENT;
}

/* sprio's list as slurmctld asks for it, with the locks it holds around it. */
static list_t *_sprio(fake_sprio_req_t *req, unsigned uid)
{
	list_t *ret;

	fake_rebase();
	/* From 23.11 slurmctld holds its job, node and partition read locks
	 * and assoc_mgr's QOS read lock around the call (and the packing of
	 * the rows, which point into its records). */
	if (FW_SPRIO_CALLER_LOCKS)
		fake_caller_readers(true);
	if (g_sprio_old_client)
		ret = fake_ctld_sprio_old_client(
			priority_p_get_priority_factors_list, req, uid);
	else
		ret = fake_ctld_sprio(priority_p_get_priority_factors_list, req,
				      uid);
	if (FW_SPRIO_CALLER_LOCKS)
		fake_caller_readers(false);
	fake_after("after priority_p_get_priority_factors_list");
	if (fake_locks_held())
		fake_violation(
			"locks still held after priority_p_get_priority_factors_list");
	return ret;
}

int fake_call_factors_list(const uint32_t *job_ids, int njob_ids,
			   const uint32_t *uids, int nuids,
			   const char *partitions, unsigned uid, uint32_t *out,
			   int max)
{
	fake_sprio_req_t req = { .partitions = partitions };
	list_t *ret;
	int n = 0;

	if (njob_ids) {
		req.job_ids = list_create(NULL);
		for (int i = 0; i < njob_ids; i++)
			list_append(req.job_ids, (void *) &job_ids[i]);
	}
	if (nuids) {
		req.user_ids = list_create(NULL);
		for (int i = 0; i < nuids; i++)
			list_append(req.user_ids, (void *) &uids[i]);
	}
	ret = _sprio(&req, uid);
	for (int i = 0; ret && i < ret->n && n < max; i++)
		out[n++] = FW_ROW_JOB_ID(
			(priority_factors_object_t *) ret->items[i]);
	list_destroy(req.job_ids);
	list_destroy(req.user_ids);
	if (!ret)
		return -1;
	list_destroy(ret);
	return n;
}

int fake_call_factors_list_old_client(const uint32_t *job_ids, int njob_ids,
				      const uint32_t *uids, int nuids,
				      const char *partitions, unsigned uid,
				      uint32_t *out, int max)
{
	int n;

	g_sprio_old_client = true;
	n = fake_call_factors_list(job_ids, njob_ids, uids, nuids, partitions,
				   uid, out, max);
	g_sprio_old_client = false;
	return n;
}

int fake_call_factors_tres(uint32_t job_id, double *out, double *weights,
			   int max)
{
	fake_sprio_req_t req = { 0 };
	list_t *ret = _sprio(&req, 0);
	int n = -1;

	for (int i = 0; ret && i < ret->n; i++) {
		priority_factors_object_t *row = ret->items[i];
		const fw_prio_factors_t *f = FW_ROW_FACTORS(row);

		if (FW_ROW_JOB_ID(row) != job_id)
			continue;
		n = (f && f->priority_tres) ? (int) f->tres_cnt : 0;
		for (int k = 0; k < n && k < max; k++) {
			out[k] = f->priority_tres[k];
			weights[k] = f->tres_weights ? f->tres_weights[k] : 0;
		}
		break;
	}
	if (ret)
		list_destroy(ret);
	return n;
}

/* A period through one of the test hooks, called without any lock held. */
static int _call_period(int (*period)(time_t), time_t now, const char *name)
{
	char when[96];
	int rc;

	fake_rebase();
	rc = period(now);
	snprintf(when, sizeof(when), "after %s", name);
	fake_after(when);
	if (fake_locks_held())
		fake_violation("locks still held after %s", name);
	return rc;
}

int fake_call_recalc(time_t now)
{
	return _call_period(priority_fairway_recalc, now,
			    "priority_fairway_recalc");
}

int fake_call_cycle(time_t now)
{
	return _call_period(priority_fairway_cycle, now,
			    "priority_fairway_cycle");
}

void fake_job_set_tres(uint32_t job_id, int pos, uint64_t count)
{
	job_record_t *j = _job(job_id);

	j->tres_req_cnt[pos] = count;
	j->tres_alloc_cnt[pos] = count;
}

void fake_job_set_partitions(uint32_t job_id, const char *parts)
{
	job_record_t *j = _job(job_id);
	char *copy = strdup(parts), *tok, *save = NULL;

	FREE_NULL_LIST(j->part_ptr_list);
	j->part_ptr_list = list_create(NULL);
	j->part_ptr = NULL;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		part_record_t *p = find_part_record(tok);

		list_append(j->part_ptr_list, p);
		if (!j->part_ptr)
			j->part_ptr = p;
	}
	free(j->partition);
	j->partition = strdup(parts);
	free(copy);
}

void fake_conf_tres_weights(const char *weights)
{
	free(slurm_conf.priority_weight_tres);
	slurm_conf.priority_weight_tres = weights ? strdup(weights) : NULL;
}

void fake_tres_add(const char *name)
{
	int n = slurmctld_tres_cnt + 1;

	assoc_mgr_tres_name_array = realloc(assoc_mgr_tres_name_array,
					    n * sizeof(char *));
	assoc_mgr_tres_name_array[n - 1] = (char *) name;
	for (int i = 0; i < g_nparts; i++) {
		g_parts[i].tres_cnt = realloc(g_parts[i].tres_cnt,
					      n * sizeof(uint64_t));
		g_parts[i].tres_cnt[n - 1] = 0;
	}
	slurmctld_tres_cnt = n;
	g_tres_count = n;
}

void fake_part_set_tres(const char *name, int pos, uint64_t count)
{
	find_part_record((char *) name)->tres_cnt[pos] = count;
}

void fake_assoc_set_tres_usage(uint32_t id, int pos, double usage)
{
	_assoc(id)->usage->usage_tres_raw[pos] = usage;
}