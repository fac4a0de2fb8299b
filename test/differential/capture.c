/*****************************************************************************\
 *  capture.c - what a plugin computed, copied out of Slurm's structures so
 *  that the next plugin can run on the same state: every association's
 *  fair-share values and usage (what sshare reads), the QOS usage, every job's
 *  priority and factors, sprio's rows, the priorities of submits and the usage
 *  job ends charge.  Then the state put back as it was before the first one.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include "harness.h"

/* An association's or a QOS's usage, out of assoc_mgr's record and back. */
static void _usage_out(usage_out_t *o, long double raw, double wall,
		       const uint64_t *run_secs, const long double *tres_raw)
{
	o->usage_raw = raw;
	o->grp_used_wall = wall;
	for (int t = 0; t < g_tres_count && t < MAX_TRES; t++) {
		o->run_secs[t] = run_secs[t];
		o->tres_raw[t] = tres_raw[t];
	}
}

static void _usage_in(const usage_out_t *o, long double *raw, double *wall,
		      uint64_t *run_secs, long double *tres_raw)
{
	*raw = o->usage_raw;
	*wall = o->grp_used_wall;
	for (int t = 0; t < g_tres_count && t < MAX_TRES; t++) {
		run_secs[t] = o->run_secs[t];
		tres_raw[t] = o->tres_raw[t];
	}
}

/* A plugin's factors copied out: the values, and ntres TRES factors in tres. */
static void _factors_out(fw_prio_factors_t *out, double *tres,
			 const fw_prio_factors_t *f, int ntres)
{
	*out = *f;
	if (f->priority_tres)
		memcpy(tres, f->priority_tres,
		       sizeof(double) * MIN(ntres, MAX_TRES));
	out->priority_tres = NULL;
	out->tres_weights = NULL;
	out->tres_names = NULL;
}

/* Append the rows of one sprio request, copied out of the returned list. */
static void _append_sprio(result_t *r, list_t *l)
{
	priority_factors_object_t *o;
	fw_prio_factors_t *f;
	list_itr_t *it;

	if (!l)
		return;
	xrecalloc(r->rows, r->nrows + list_count(l) + 1, sizeof(*r->rows));
	it = list_iterator_create(l);
	while ((o = list_next(it))) {
		sprio_row_t *w = &r->rows[r->nrows++];
		w->job_id = FW_ROW_JOB_ID(o);
		w->user_id = o->user_id;
		w->direct_prio = o->direct_prio;
		snprintf(w->partition, sizeof(w->partition), "%s",
			 o->partition ? o->partition : "");
		snprintf(w->account, sizeof(w->account), "%s",
			 FW_ROW_ACCOUNT(o) ? FW_ROW_ACCOUNT(o) : "");
		snprintf(w->qos, sizeof(w->qos), "%s",
			 FW_ROW_QOS(o) ? FW_ROW_QOS(o) : "");
		if ((f = FW_ROW_FACTORS(o))) {
			w->has_factors = true;
			_factors_out(&w->f, w->tres, f, f->tres_cnt);
		}
	}
	list_iterator_destroy(it);
}

/* The filters are the plugin's on Slurm 22.05, the sprio command's later.
 * slurmctld calls the plugin with its job, node and partition read locks and
 * assoc_mgr's QOS read lock held from 23.11 on. */
void capture_sprio(result_t *r, fake_sprio_f *factors)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK,
					   .node = READ_LOCK,
					   .part = READ_LOCK };
	assoc_mgr_lock_t qos_read_lock = { .qos = READ_LOCK };
	uint32_t ids[] = { 100, 101, 103, 110 }, uid = 1002;
	fake_sprio_req_t req;
	char *parts;
	list_t *l;

	r->rows = xcalloc(1, sizeof(*r->rows));
	r->nrows = 0;
	for (int kind = 0; kind < 4; kind++) {
		memset(&req, 0, sizeof(req));
		parts = NULL;
		if (kind == 1) {
			req.job_ids = list_create(NULL);
			for (int i = 0; i < 4; i++)
				list_append(req.job_ids, &ids[i]);
		} else if (kind == 2) {
			req.user_ids = list_create(NULL);
			list_append(req.user_ids, &uid);
		} else if (kind == 3) {
			parts = xstrdup_printf("p%d,nosuch",
					       fw_world.nparts - 1);
			req.partitions = parts;
		}
		if (FW_SPRIO_CALLER_LOCKS) {
			lock_slurmctld(job_read_lock);
			assoc_mgr_lock(&qos_read_lock);
		}
		l = fake_ctld_sprio(factors, &req, 0);
		_append_sprio(r, l);
		FREE_NULL_LIST(l);
		if (FW_SPRIO_CALLER_LOCKS) {
			assoc_mgr_unlock(&qos_read_lock);
			unlock_slurmctld(job_read_lock);
		}
		FREE_NULL_LIST(req.job_ids);
		FREE_NULL_LIST(req.user_ids);
		xfree(parts);
	}
}

/* A partition "lacks" a TRES that it does not count: no GPUs, no nodes. */
int capture_tres_kept_rows(void)
{
	job_record_t *j;
	part_record_t *p;
	list_itr_t *it, *pit;
	int n = 0;

	if (!slurm_conf.priority_weight_tres)
		return 0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if (!j->part_ptr_list || !j->part_ptr || !j->part_ptr->tres_cnt)
			continue;
		pit = list_iterator_create(j->part_ptr_list);
		while ((p = list_next(pit)))
			for (int t = 0; t < slurmctld_tres_cnt; t++) {
				uint64_t v = j->tres_req_cnt ?
					j->tres_req_cnt[t] :
					0;
				if (j->tres_alloc_cnt &&
				    (j->tres_alloc_cnt[t] != NO_CONSUME_VAL64))
					v = j->tres_alloc_cnt[t];
				if (v && j->part_ptr->tres_cnt[t] &&
				    (!p->tres_cnt || !p->tres_cnt[t]))
					n++;
			}
		list_iterator_destroy(pit);
	}
	list_iterator_destroy(it);
	return n;
}

static int _cmp_used(const void *x, const void *y)
{
	const used_out_t *a = x, *b = y;
	int c;

	if (a->qos != b->qos)
		return a->qos - b->qos;
	if (a->user != b->user)
		return a->user - b->user;
	if ((c = strcmp(a->acct, b->acct)))
		return c;
	return (a->uid > b->uid) - (a->uid < b->uid);
}

/* An entry of a QOS's acct_limit_list or user_limit_list as a key. */
static void _used_key(used_out_t *o, int q, bool user, slurmdb_used_limits_t *u)
{
	memset(o, 0, sizeof(*o));
	o->qos = q;
	o->user = user;
	snprintf(o->acct, sizeof(o->acct), "%s", u->acct ? u->acct : "");
	o->uid = u->uid;
}

/* 24.11 on: the run seconds reserved per account and per user under each
 * QOS, sorted. */
static void _capture_used(used_out_t **out, int *n)
{
	*out = NULL;
	*n = 0;
	for (int q = 0; q < MAX_QOS; q++) {
		list_t *lists[2] = { fw_world.qos[q]->usage->acct_limit_list,
				     fw_world.qos[q]->usage->user_limit_list };

		for (int k = 0; k < 2; k++) {
			slurmdb_used_limits_t *u;
			list_itr_t *it;
			uint64_t *secs;

			if (!lists[k])
				continue;
			it = list_iterator_create(lists[k]);
			while ((u = list_next(it))) {
				if (!(secs = fake_ctld_used_run_secs(u)))
					continue;
				xrecalloc(*out, *n + 1, sizeof(**out));
				_used_key(&(*out)[*n], q, k, u);
				memcpy((*out)[*n].run_secs, secs,
				       sizeof(uint64_t) *
					       MIN(slurmctld_tres_cnt,
						   MAX_TRES));
				(*n)++;
			}
			list_iterator_destroy(it);
		}
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), _cmp_used);
}

void capture(result_t *r, void (*set_assoc_usage)(slurmdb_assoc_rec_t *))
{
	slurmdb_assoc_rec_t *a;
	job_record_t *j;
	list_itr_t *it;
	int i = 0;

	r->na = list_count(assoc_mgr_assoc_list);
	r->a = xcalloc(r->na, sizeof(*r->a));
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		/* What sshare reads: users' effective usage is computed on
		 * demand when the period left it at NO_VAL. */
		if (set_assoc_usage && a->user &&
		    fuzzy_equal(a->usage->usage_efctv, NO_VAL))
			set_assoc_usage(a);
		r->a[i].shares_norm = a->usage->shares_norm;
		r->a[i].usage_norm = a->usage->usage_norm;
		r->a[i].usage_efctv = a->usage->usage_efctv;
		r->a[i].level_fs = a->usage->level_fs;
		r->a[i].fs_factor = a->usage->fs_factor;
		_usage_out(&r->a[i].u, a->usage->usage_raw,
			   a->usage->grp_used_wall,
			   a->usage->grp_used_tres_run_secs,
			   a->usage->usage_tres_raw);
		i++;
	}
	list_iterator_destroy(it);

	for (int q = 0; q < MAX_QOS; q++) {
		slurmdb_qos_usage_t *u = fw_world.qos[q]->usage;

		_usage_out(&r->q[q], u->usage_raw, u->grp_used_wall,
			   u->grp_used_tres_run_secs, u->usage_tres_raw);
	}
	_capture_used(&r->used, &r->nused);
	r->nj = list_count(job_list);
	r->j = xcalloc(r->nj, sizeof(*r->j));
	i = 0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		job_out_t *o = &r->j[i++];
		const char *names;
		uint32_t *prio = fake_ctld_prio_array(j, &o->nprio, &names);

		o->priority = j->priority;
		if (prio)
			memcpy(o->prio_array, prio,
			       sizeof(uint32_t) * MIN(o->nprio, MAX_PRIO));
		snprintf(o->prio_names, sizeof(o->prio_names), "%s",
			 names ? names : "");
		if (j->prio_factors) {
			o->has_factors = true;
			_factors_out(&o->f, o->tres, j->prio_factors,
				     slurmctld_tres_cnt);
		}
	}
	list_iterator_destroy(it);
}

/*
 * After the period: priority_p_set of every pending job (a submit, one second
 * later; in some scenarios after a partition changed), then, in --decay-thread scenarios, priority_p_job_end of every running
 * job 100 s after the period, and the usage it charged.  Multifactor charges a
 * job end from the time its thread recorded, which only its thread sets: the
 * other modes compare submits only.  Job ends mark the job (end_time_exp), so
 * the marks are undone for the next plugin.
 */
void capture_submit_and_end(result_t *r,
			    uint32_t (*set)(uint32_t, job_record_t *),
			    void (*job_end)(job_record_t *),
			    void (*set_assoc_usage)(slurmdb_assoc_rec_t *),
			    time_t now)
{
	time_t frozen = fw_frozen_now, *exp;
	job_record_t *j;
	list_itr_t *it;
	int i = 0;

	r->set_prio = xcalloc(r->nj + 1, sizeof(*r->set_prio));
	exp = xcalloc(r->nj + 1, sizeof(*exp));
	fw_frozen_now = now + 1;
	/* A partition changed after every array the period allocated (their
	 * time is the clock's, real outside --decay-thread). */
	if (fw_world.parts_changed)
		last_part_update = (time_t) 1 << 32;
	it = list_iterator_create(job_list);
	while ((j = list_next(it)) && (i < r->nj)) {
		exp[i] = j->end_time_exp;
		if (IS_JOB_PENDING(j) && j->priority)
			r->set_prio[i] = set(1, j);
		i++;
	}
	list_iterator_destroy(it);
	if (fw_opts.thread_mode) {
		result_t after = { 0 };

		fw_frozen_now = now + 100;
		it = list_iterator_create(job_list);
		while ((j = list_next(it)))
			if (IS_JOB_RUNNING(j))
				job_end(j);
		list_iterator_destroy(it);
		capture(&after, set_assoc_usage);
		r->a_end = after.a;
		memcpy(r->q_end, after.q, sizeof(r->q_end));
		r->used_end = after.used;
		r->nused_end = after.nused;
		xfree(after.j);
	}
	i = 0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it)) && (i < r->nj))
		j->end_time_exp = exp[i++];
	list_iterator_destroy(it);
	xfree(exp);
	fw_frozen_now = frozen;
	last_part_update = 0;
}

/* Usage before the first plugin ran, restored for the second. */
static result_t g_before;

/* The run seconds per account and user under each QOS as they were (entries
 * the first plugin created: none reserved). */
static void _used_reset(void)
{
	for (int q = 0; q < MAX_QOS; q++) {
		list_t *lists[2] = { fw_world.qos[q]->usage->acct_limit_list,
				     fw_world.qos[q]->usage->user_limit_list };

		for (int k = 0; k < 2; k++) {
			slurmdb_used_limits_t *u;
			list_itr_t *it;
			uint64_t *secs;

			if (!lists[k])
				continue;
			it = list_iterator_create(lists[k]);
			while ((u = list_next(it))) {
				used_out_t key, *was;

				if (!(secs = fake_ctld_used_run_secs(u)))
					continue;
				_used_key(&key, q, k, u);
				was = g_before.nused ?
					bsearch(&key, g_before.used,
						g_before.nused, sizeof(key),
						_cmp_used) :
					NULL;
				memset(secs, 0,
				       sizeof(uint64_t) * slurmctld_tres_cnt);
				if (was)
					memcpy(secs, was->run_secs,
					       sizeof(uint64_t) *
						       MIN(slurmctld_tres_cnt,
							   MAX_TRES));
			}
			list_iterator_destroy(it);
		}
	}
}

void state_reset(void)
{
	slurmdb_assoc_rec_t *a;
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	int i = 0;

	for (int q = 0; q < MAX_QOS; q++) {
		slurmdb_qos_usage_t *u = fw_world.qos[q]->usage;

		_usage_in(&g_before.q[q], &u->usage_raw, &u->grp_used_wall,
			  u->grp_used_tres_run_secs, u->usage_tres_raw);
	}
	while ((a = list_next(it))) {
		_usage_in(&g_before.a[i].u, &a->usage->usage_raw,
			  &a->usage->grp_used_wall,
			  a->usage->grp_used_tres_run_secs,
			  a->usage->usage_tres_raw);
		i++;
		a->usage->usage_norm = (long double) NO_VAL;
		a->usage->usage_efctv = 0;
		a->usage->level_fs = 0;
		a->usage->fs_factor = 0;
	}
	list_iterator_destroy(it);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	_used_reset();
	jobs_reset();
}

void capture_initial(void)
{
	capture(&g_before, NULL);
}

long double capture_initial_root_usage(void)
{
	return g_before.a[0].u.usage_raw;
}

void capture_initial_free(void)
{
	result_free(&g_before);
}

void result_free(result_t *r)
{
	xfree(r->a);
	xfree(r->j);
	xfree(r->rows);
	xfree(r->set_prio);
	xfree(r->a_end);
	xfree(r->used);
	xfree(r->used_end);
}
