/*****************************************************************************\
 *  fake_slurmctld.c - slurmctld's own globals and functions for the test
 *  programs that run a priority plugin outside slurmctld (see
 *  fake_slurmctld.h).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "fake_slurmctld.h"

/*
 * The globals slurmctld defines and priority plugins read.  A priority plugin
 * defines fallbacks of most of them for the client commands that load it
 * (plugin/priority_fairway.c does, as multifactor does); the shim test links
 * that file into the same program, so these definitions are weak and give way
 * there.  In the harness they are the program's, which the plugins it loads
 * bind to.
 */
__attribute__((weak)) void *acct_db_conn = NULL;
__attribute__((weak)) uint32_t cluster_cpus = NO_VAL; /* NO_VAL: no nodes yet */
__attribute__((weak)) list_t *job_list = NULL;
__attribute__((weak)) time_t last_job_update = 0;
__attribute__((weak)) time_t last_part_update = 0;
__attribute__((weak)) int slurmctld_tres_cnt = 0;
__attribute__((weak)) uint16_t accounting_enforce = 0;
/* part_record_t *, owned by the program that fills it */
__attribute__((weak)) list_t *part_list = NULL;
/* assoc_mgr_init's running_cache (slurmctld's controller.c) */
uint16_t running_cache = RUNNING_CACHE_STATE_NOTRUNNING;

static fake_ctld_hooks_t g_hooks;
static bool g_rwlocks;
static pthread_rwlock_t g_locks[5] = { PTHREAD_RWLOCK_INITIALIZER,
				       PTHREAD_RWLOCK_INITIALIZER,
				       PTHREAD_RWLOCK_INITIALIZER,
				       PTHREAD_RWLOCK_INITIALIZER,
				       PTHREAD_RWLOCK_INITIALIZER };

void fake_ctld_set_hooks(const fake_ctld_hooks_t *hooks)
{
	memset(&g_hooks, 0, sizeof(g_hooks));
	if (hooks)
		g_hooks = *hooks;
}

void fake_ctld_use_rwlocks(bool on)
{
	g_rwlocks = on;
}

/* The rwlocks of `locks`, taken in slurmctld's order (config, job, node,
 * partition, federation) or released in reverse; nothing without rwlocks. */
static void _rwlocks(slurmctld_lock_t locks, bool take)
{
	lock_level_t level[5] = { locks.conf, locks.job, locks.node, locks.part,
				  locks.fed };

	for (int k = 0; g_rwlocks && (k < 5); k++) {
		int i = take ? k : 4 - k;

		if (level[i] == NO_LOCK)
			continue;
		if (!take)
			pthread_rwlock_unlock(&g_locks[i]);
		else if (level[i] == READ_LOCK)
			pthread_rwlock_rdlock(&g_locks[i]);
		else
			pthread_rwlock_wrlock(&g_locks[i]);
	}
}

void lock_slurmctld(slurmctld_lock_t locks)
{
	_rwlocks(locks, true);
	if (g_hooks.locked)
		g_hooks.locked(g_hooks.ctx, locks);
}

void fake_ctld_caller_locks(slurmctld_lock_t locks, bool take)
{
	_rwlocks(locks, take);
}

void unlock_slurmctld(slurmctld_lock_t locks)
{
	if (g_hooks.unlocking)
		g_hooks.unlocking(g_hooks.ctx, locks);
	_rwlocks(locks, false);
}

#if !FW_SLURM_AT_LEAST(24, 11)
/* The state files are written by one thread at a time in these programs.
 * (From 24.11 libslurmfull has them.) */
void lock_state_files(void) {}
void unlock_state_files(void) {}
#endif

bool validate_operator(uid_t uid)
{
	if (g_hooks.is_operator)
		return g_hooks.is_operator(g_hooks.ctx, uid);
	return uid == 0;
}

static int _part_named(void *part, void *name)
{
	return !xstrcmp(((part_record_t *) part)->name, name);
}

part_record_t *find_part_record(char *name)
{
	if (!part_list || !name)
		return NULL;
	return list_find_first(part_list, _part_named, name);
}

/* Billing is the job's CPU count: no TRESBillingWeights in these programs. */
double calc_job_billable_tres(job_record_t *job_ptr, time_t start_time,
			      bool assoc_mgr_locked)
{
	if (g_hooks.billable_tres)
		g_hooks.billable_tres(g_hooks.ctx, job_ptr, assoc_mgr_locked);
	return job_ptr->total_cpus;
}

#if FW_SLURM_AT_LEAST(24, 11)
/* ---- what slurmctld gives a priority plugin from 24.11 on ---- */

/* The partitions' names, "p1,p2" (partition_mgr.c). */
char *part_list_to_xstr(list_t *list)
{
	char *names = NULL, *more;
	part_record_t *part;
	list_itr_t *it = list_iterator_create(list);

	while ((part = list_next(it))) {
		more = names ? xstrdup_printf("%s,%s", names, part->name) :
			       xstrdup(part->name);
		xfree(names);
		names = more;
	}
	list_iterator_destroy(it);
	return names;
}

/* slurmdb_destroy_used_limits, for what the two functions below create. */
static void _free_used_limits(void *x)
{
	slurmdb_used_limits_t *u = x;

	xfree(u->acct);
	xfree(u->tres);
	xfree(u->tres_run_secs);
	xfree(u);
}

static int _used_limits_acct(void *x, void *key)
{
	return !xstrcmp(((slurmdb_used_limits_t *) x)->acct, key);
}

static int _used_limits_uid(void *x, void *key)
{
	return ((slurmdb_used_limits_t *) x)->uid == *(uint32_t *) key;
}

/* An entry of a QOS's per-account or per-user usage, created with its list
 * when missing, as acct_policy.c does. */
static slurmdb_used_limits_t *_used_limits(list_t **l, ListFindF find,
					   void *key, char *acct, uint32_t uid)
{
	slurmdb_used_limits_t *u;

	if (!*l)
		*l = list_create(_free_used_limits);
	if (!(u = list_find_first(*l, find, key))) {
		u = xmalloc(sizeof(*u));
		u->acct = xstrdup(acct);
		u->uid = uid;
		u->tres = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
		u->tres_run_secs = xcalloc(slurmctld_tres_cnt,
					   sizeof(uint64_t));
		list_append(*l, u);
	}
	return u;
}

slurmdb_used_limits_t *
acct_policy_get_acct_used_limits(list_t **acct_limit_list, char *acct)
{
	return _used_limits(acct_limit_list, _used_limits_acct, acct, acct, 0);
}

slurmdb_used_limits_t *
acct_policy_get_user_used_limits(list_t **user_limit_list, uint32_t user_id)
{
	return _used_limits(user_limit_list, _used_limits_uid, &user_id, NULL,
			    user_id);
}
#endif

void fake_ctld_free_priority(job_record_t *job)
{
	if (job->prio_factors) {
		xfree(job->prio_factors->priority_tres);
		xfree(job->prio_factors->tres_weights);
		xfree(job->prio_factors);
	}
#if FW_SLURM_AT_LEAST(24, 11)
	if (FW_JOB_PRIO_MULT(job)) {
		xfree(FW_JOB_PRIO_MULT(job)->priority_array);
		xfree(FW_JOB_PRIO_MULT(job)->priority_array_names);
		xfree(FW_JOB_PRIO_MULT(job));
	}
#else
	xfree(job->priority_array);
#endif
}

void fake_ctld_free_job(void *x)
{
	job_record_t *job = x;

	fake_ctld_free_priority(job);
	xfree(job->details);
	xfree(job->tres_req_cnt);
	xfree(job->tres_alloc_cnt);
	xfree(job->account);
	xfree(job->comment);
	xfree(job->partition);
	FREE_NULL_LIST(job->part_ptr_list);
#if FW_SLURM_AT_LEAST(24, 11)
	FREE_NULL_LIST(job->qos_list);
#endif
	xfree(job);
}
