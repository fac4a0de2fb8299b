/*****************************************************************************\
 *  soak_ops.c - what slurmctld's RPC and job threads do around a priority
 *  plugin, for the soak (fw_soak): submits (priority_p_set), job ends
 *  (priority_p_job_end) and starts with their TRES reserved as
 *  acct_policy_job_begin does, the purge of finished jobs, sprio queries,
 *  reconfigures with and without slurmctld's locks, and associations added
 *  and removed through assoc_mgr with jobs pending and running under them.
 *  Each takes the locks slurmctld takes.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

soak_state_t soak_state;

static slurmctld_lock_t g_job_write = { READ_LOCK, WRITE_LOCK, WRITE_LOCK,
					READ_LOCK, READ_LOCK };

static void _push_running(job_record_t *j)
{
	if (soak_state.nrun == soak_state.caprun) {
		soak_state.caprun = soak_state.caprun ? 2 * soak_state.caprun :
							1024;
		soak_state.running = xrealloc(
			soak_state.running,
			soak_state.caprun * sizeof(*soak_state.running));
	}
	soak_state.running[soak_state.nrun++] = j;
}

static void _queue_push(job_record_t *j)
{
	if (soak_state.qlen == soak_state.qcap) { /* grow, keeping the order */
		size_t cap = soak_state.qcap ? 2 * soak_state.qcap : 1024;
		job_record_t **q = xcalloc(cap, sizeof(*q));
		for (size_t i = 0; i < soak_state.qlen; i++)
			q[i] = soak_state.queue[(soak_state.qhead + i) %
						soak_state.qcap];
		xfree(soak_state.queue);
		soak_state.queue = q;
		soak_state.qcap = cap;
		soak_state.qhead = 0;
	}
	soak_state.queue[(soak_state.qhead + soak_state.qlen++) %
			 soak_state.qcap] = j;
}

static job_record_t *_queue_pop(void)
{
	job_record_t *j;

	if (!soak_state.qlen)
		return NULL;
	j = soak_state.queue[soak_state.qhead];
	soak_state.qhead = (soak_state.qhead + 1) % soak_state.qcap;
	soak_state.qlen--;
	return j;
}

/* slurmctld's acct_policy_job_begin(): a starting job reserves its TRES for
 * its whole time limit in grp_used_tres_run_secs of its QOS and associations,
 * and from 24.11 under its QOS for its account and its user (the plugin
 * releases them as the job runs). */
static void _reserve_run_secs_locked(job_record_t *j)
{
	uint64_t secs = (uint64_t) j->time_limit * 60;
	uint64_t *acct_secs = NULL, *user_secs = NULL;

	/* The QOS UsageFactor scales it (truncated, as Slurm does). */
	if (j->qos_ptr && (j->qos_ptr->usage_factor >= 0))
		secs *= j->qos_ptr->usage_factor;
	if (FW_QOS_RUN_SECS_PER_USER && j->qos_ptr && j->assoc_ptr)
		fw_qos_used_run_secs(j->qos_ptr, j, &acct_secs, &user_secs);
	for (int t = 0; t < slurmctld_tres_cnt; t++) {
		uint64_t v = j->tres_alloc_cnt[t] * secs;

		if ((t == TRES_ARRAY_ENERGY) ||
		    (j->tres_alloc_cnt[t] == NO_CONSUME_VAL64))
			continue;
		if (j->qos_ptr)
			j->qos_ptr->usage->grp_used_tres_run_secs[t] += v;
		if (acct_secs)
			acct_secs[t] += v;
		if (user_secs)
			user_secs[t] += v;
		for (slurmdb_assoc_rec_t *a = j->assoc_ptr; a && a->usage;
		     a = a->usage->parent_assoc_ptr)
			a->usage->grp_used_tres_run_secs[t] += v;
	}
}

static void _reserve_run_secs(job_record_t *j)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };

	assoc_mgr_lock(&locks);
	_reserve_run_secs_locked(j);
	assoc_mgr_unlock(&locks);
}

/* A reconfigure's _restore_job_accounting(): slurmctld clears the TRES run
 * seconds and reserves every running job's whole time limit again (then
 * calls priority_g_reconfig(true), which releases what was used). */
static void _restore_job_accounting(void)
{
	slurmctld_lock_t locks = { WRITE_LOCK, WRITE_LOCK, WRITE_LOCK,
				   WRITE_LOCK, READ_LOCK };
	assoc_mgr_lock_t alocks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;
	job_record_t *j;

	lock_slurmctld(locks);
	assoc_mgr_lock(&alocks);
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it)))
		memset(a->usage->grp_used_tres_run_secs, 0,
		       sizeof(uint64_t) * g_tres_count);
	list_iterator_destroy(it);
	for (int q = 0; q < MAX_QOS; q++) {
		memset(fw_world.qos[q]->usage->grp_used_tres_run_secs, 0,
		       sizeof(uint64_t) * g_tres_count);
		/* (24.11 on) and the per-account and per-user entries */
		FREE_NULL_LIST(fw_world.qos[q]->usage->acct_limit_list);
		FREE_NULL_LIST(fw_world.qos[q]->usage->user_limit_list);
	}
	it = list_iterator_create(job_list);
	while ((j = list_next(it)))
		if (IS_JOB_RUNNING(j) && j->tres_alloc_cnt)
			_reserve_run_secs_locked(j);
	list_iterator_destroy(it);
	assoc_mgr_unlock(&alocks);
	unlock_slurmctld(locks);
}

/* A job ends (or a pending one is cancelled): slurmctld calls the plugin
 * under the job write lock; the record stays until the purge. */
static void _finish(job_record_t *j, uint32_t state, time_t now)
{
	j->job_state = state;
	j->end_time = now;
	soak_state.fw.job_end(j);
	if (soak_state.usage)
		soak_usage_job_end(j);
}

static void _op_submit(time_t now)
{
	const sc_assoc_t *sa;
	slurmdb_assoc_rec_t *rec = NULL;
	job_record_t *j;
	uint32_t id;

	lock_slurmctld(g_job_write);
	if (soak_state.nadded && fw_chance(10)) {
		added_assoc_t *a =
			&soak_state.added[fw_pick(soak_state.nadded)];
		sa = &a->sc;
		rec = a->rec;
	} else {
		sa = &soak_state.s
			      ->a[soak_state.users[fw_pick(soak_state.nusers)]];
	}
	id = __atomic_fetch_add(&soak_state.next_job_id, 1, __ATOMIC_RELAXED);
	j = job_make(id, sa, now);
	if (rec)
		j->assoc_ptr = rec;
	j->details->submit_time = j->details->begin_time = now;
	j->details->accrue_time = now;
	if (j->priority && !j->direct_set_prio)
		j->priority = soak_state.fw.set(0, j);
	list_append(job_list, j);
	_queue_push(j);
	unlock_slurmctld(g_job_write);
}

/* One running job ends; the oldest submitted job (once SOAK_LAG wait) starts,
 * or is cancelled if it cannot run (held, or its association is gone).  The
 * times are read under the job write lock, as slurmctld reads them: never
 * before the last period the plugin charged up to. */
static void _op_turnover(void)
{
	job_record_t *j;
	time_t now;

	lock_slurmctld(g_job_write);
	now = time(NULL);
	if (soak_state.nrun) {
		size_t r = fw_pick(soak_state.nrun);
		j = soak_state.running[r];
		soak_state.running[r] = soak_state.running[--soak_state.nrun];
		_finish(j, JOB_COMPLETE, now);
	}
	if ((soak_state.qlen > SOAK_LAG) && (j = _queue_pop())) {
		if (!IS_JOB_PENDING(j))
			; /* finished already */
		else if (!j->priority || !j->assoc_ptr)
			_finish(j, JOB_CANCELLED, now);
		else {
			/* slurmctld ends a job at its time limit; here jobs
			 * end at random, so give them longer than the soak. */
			if ((j->time_limit == NO_VAL) || (j->time_limit < 60))
				j->time_limit = 60 + fw_pick(2880);
			job_start(j, now);
			_reserve_run_secs(j);
			_push_running(j);
		}
	}
	unlock_slurmctld(g_job_write);
}

void soak_purge(void)
{
	list_itr_t *it;
	job_record_t *j;

	lock_slurmctld(g_job_write);
	it = list_iterator_create(job_list);
	while ((j = list_next(it)))
		if (IS_JOB_FINISHED(j)) {
			list_remove(it);
			fake_ctld_free_job(j);
		}
	list_iterator_destroy(it);
	unlock_slurmctld(g_job_write);
}

static void _query(int op, uint32_t *count)
{
	/* From 23.11 slurmctld calls the plugin holding these. */
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK,
					   .node = READ_LOCK,
					   .part = READ_LOCK };
	assoc_mgr_lock_t qos_read_lock = { .qos = READ_LOCK };
	fake_sprio_req_t req = { 0 };
	uint32_t hi = __atomic_load_n(&soak_state.next_job_id,
				      __ATOMIC_RELAXED);
	char *parts = NULL;
	list_t *l;

	if (op == OP_Q_JOBS) {
		req.job_ids = list_create(xfree_ptr);
		for (int i = 0; i < 5; i++) {
			uint32_t *id = xmalloc(sizeof(*id));
			*id = 100 + fw_pick(hi - 100);
			list_append(req.job_ids, id);
		}
	} else if (op == OP_Q_USER) {
		uint32_t *uid = xmalloc(sizeof(*uid));
		*uid = 1000 + fw_pick(7);
		req.user_ids = list_create(xfree_ptr);
		list_append(req.user_ids, uid);
	} else if (op == OP_Q_PART) {
		parts = xstrdup_printf("p%u", fw_pick(fw_world.nparts));
		req.partitions = parts;
	}
	if (FW_SPRIO_CALLER_LOCKS) {
		lock_slurmctld(job_read_lock);
		assoc_mgr_lock(&qos_read_lock);
	}
	l = fake_ctld_sprio(soak_state.fw.factors, &req, 0);
	*count = l ? list_count(l) : 0;
	/* (slurmctld packs the reply under the locks, frees it after) */
	if (FW_SPRIO_CALLER_LOCKS) {
		assoc_mgr_unlock(&qos_read_lock);
		unlock_slurmctld(job_read_lock);
	}
	FREE_NULL_LIST(l);
	FREE_NULL_LIST(req.job_ids);
	FREE_NULL_LIST(req.user_ids);
	xfree(parts);
}

/* As slurmctld: scontrol setfsdampeningfactor (config and job write locks,
 * slurm_conf changed) or a reconfigure's notification (no lock held). */
static void _op_reconfig(void)
{
	slurmctld_lock_t config_write = { WRITE_LOCK, WRITE_LOCK, READ_LOCK,
					  READ_LOCK, READ_LOCK };
	if (fw_chance(50)) {
		lock_slurmctld(config_write);
		slurm_conf.fs_dampening_factor = 1 + fw_pick(4);
		soak_state.fw.reconfig(false);
		unlock_slurmctld(config_write);
	} else {
		/* slurmctld serves reconfigure RPCs one at a time
		 * (reconfig_mutex, held until the plugin is notified). */
		static pthread_mutex_t reconfig_mutex =
			PTHREAD_MUTEX_INITIALIZER;
		pthread_mutex_lock(&reconfig_mutex);
		_restore_job_accounting();
		soak_state.fw.reconfig(true);
		pthread_mutex_unlock(&reconfig_mutex);
	}
}

/* Outside assoc_mgr's locks: slurmctld's job_hold_by_assoc_id(). */
void soak_remove_assoc_notify(slurmdb_assoc_rec_t *rec)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	list_itr_t *it;
	job_record_t *j;

	lock_slurmctld(job_write);
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if (j->assoc_id != rec->id)
			continue;
		if (IS_JOB_PENDING(j) && j->details) {
			j->state_reason = FAIL_ACCOUNT;
			j->details->accrue_time = 0;
			j->details->begin_time = 0;
		}
		/* A finished job's pointer is cleared too (slurmctld's
		 * _job_fail_account): the record is freed after this. */
		if (!IS_JOB_FINISHED(j))
			soak_state.held_by_removal++;
		j->assoc_ptr = NULL;
		j->assoc_id = 0;
	}
	list_iterator_destroy(it);
	/* No job reaches it now: what it was charged is final. */
	if (soak_state.usage)
		soak_usage_assoc_removed(rec);
	unlock_slurmctld(job_write);
}

static void _op_assoc_add(void)
{
	assoc_mgr_lock_t read = { .assoc = READ_LOCK };
	slurmdb_assoc_rec_t *a, *found = NULL;
	list_t *records;
	added_assoc_t n;
	const sc_assoc_t *parent = NULL;
	list_itr_t *it;

	memset(&n, 0, sizeof(n));
	while (!parent || parent->user[0] || (parent->id == 1))
		parent = &soak_state.s->a[fw_pick(soak_state.s->nassoc)];
	n.sc.id = soak_state.next_assoc_id++;
	n.sc.parent = parent->id;
	n.sc.shares = 1 + fw_pick(10);
	snprintf(n.sc.acct, sizeof(n.sc.acct), "%s", parent->acct);
	snprintf(n.sc.user, sizeof(n.sc.user), "soak%u", n.sc.id);

	a = world_assoc_rec(n.sc.id, n.sc.acct, n.sc.user);
	a->usage = slurmdb_create_assoc_usage(g_tres_count);
	a->parent_id = n.sc.parent;
	a->shares_raw = n.sc.shares;
	a->uid = 5000 + (n.sc.id % 1000);
	records = list_create(slurmdb_destroy_assoc_rec);
	list_append(records, a);
	world_update_assocs(SLURMDB_ADD_ASSOC, records);

	assoc_mgr_lock(&read);
	it = list_iterator_create(assoc_mgr_assoc_list);
	while (!found && (a = list_next(it)))
		if (a->id == n.sc.id)
			found = a;
	list_iterator_destroy(it);
	assoc_mgr_unlock(&read);
	if (!found)
		fatal("soak: added association %u not in assoc_mgr", n.sc.id);
	n.rec = found;

	lock_slurmctld(g_job_write);
	soak_state.added[soak_state.nadded++] = n;
	unlock_slurmctld(g_job_write);
}

static void _op_assoc_del(void)
{
	added_assoc_t gone;
	list_t *records;
	int k;

	/* No new job may use it from here on (submits hold the job lock). */
	lock_slurmctld(g_job_write);
	k = fw_pick(soak_state.nadded);
	gone = soak_state.added[k];
	soak_state.added[k] = soak_state.added[--soak_state.nadded];
	unlock_slurmctld(g_job_write);

	records = list_create(slurmdb_destroy_assoc_rec);
	list_append(records,
		    world_assoc_rec(gone.sc.id, gone.sc.acct, gone.sc.user));
	world_update_assocs(SLURMDB_REMOVE_ASSOC, records);
}

void soak_start_running(time_t now)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *j;

	while ((j = list_next(it))) {
		if (!IS_JOB_RUNNING(j))
			continue;
		/* Within its time limit, with an hour left. */
		if ((j->time_limit == NO_VAL) || (j->time_limit < 120))
			j->time_limit = 120 + fw_pick(2880);
		xfree(j->tres_alloc_cnt);
		job_start(j, now - 1 - fw_pick((j->time_limit - 60) * 60));
		_reserve_run_secs(j);
		_push_running(j);
	}
	list_iterator_destroy(it);
}

void soak_op(int op, time_t now, uint32_t *items)
{
	switch (op) {
	case OP_SUBMIT:
		_op_submit(now);
		break;
	case OP_TURNOVER:
		_op_turnover();
		break;
	case OP_RECONFIG:
		_op_reconfig();
		break;
	case OP_ASSOC_ADD:
		_op_assoc_add();
		break;
	case OP_ASSOC_DEL:
		_op_assoc_del();
		break;
	default:
		_query(op, items);
		break;
	}
}
