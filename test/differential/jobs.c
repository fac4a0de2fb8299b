/*****************************************************************************\
 *  jobs.c - the job list of a scenario: pending jobs of random shape (held,
 *  administrator-set priorities, nice, QOS, several partitions, from Slurm
 *  24.11 several QOS, GPUs, requeued allocations), some of them running since
 *  before the period under test, and some that ended and are still in the list
 *  (completing, completed, cancelled, requeued and completing), half of these
 *  with the priority, priorities per partition and factors an earlier period
 *  gave them.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "harness.h"

/* Every draw from fw_rng: a scenario's jobs are reproducible from its seed.
 * Held jobs carry the comment "held", which the soak checks at the end. */
job_record_t *job_make(uint32_t job_id, const sc_assoc_t *sa, time_t now)
{
	job_record_t *j = xmalloc(sizeof(*j));
	int part = fw_pick(fw_world.nparts);

	j->magic = JOB_MAGIC;
	fake_ctld_job_set_id(j, job_id);
	j->job_state = JOB_PENDING;
	j->assoc_id = sa->id;
	j->assoc_ptr = world_assoc(sa->id);
	j->account = xstrdup(sa->acct);
	j->user_id = 1000 + (job_id - 100) % 7;
	j->part_ptr = &fw_world.parts[part];
	j->partition = xstrdup(fw_world.parts[part].name);
	if ((fw_world.nparts > 1) && fw_chance(20)) {
		j->part_ptr_list = list_create(NULL);
		for (int p = 0; p < fw_world.nparts; p++)
			list_append(j->part_ptr_list, &fw_world.parts[p]);
		/* From 24.11 slurmctld keeps it in PriorityTier order (22.05's
		 * and 23.11's multifactor sorted it itself). */
		if (!FW_PLUGIN_SORTS_JOB_PARTITIONS)
			list_sort(j->part_ptr_list, priority_sort_part_tier);
	}
	j->priority = fw_chance(8) ? 0 : 1; /* 0: held */
	if (fw_chance(5)) {		    /* set by an admin */
		j->priority = 1 + fw_pick(100000);
		j->direct_set_prio = 1;
	}
	if (!j->priority) {
		j->state_reason = WAIT_HELD;
		j->comment = xstrdup("held"); /* the soak's marker */
	}
	j->site_factor = NICE_OFFSET;
	j->time_limit = fw_chance(30) ? NO_VAL : 1 + fw_pick(2880);
	if (fw_chance(70))
		j->qos_ptr = fw_world.qos[fw_pick(MAX_QOS)];
	if (FAKE_CTLD_MULTI_QOS && fw_chance(25)) {
		/* --qos=a,b[,c] (24.11 on): two or three QOS, which slurmctld
		 * sorts; qos_ptr is the first at submit, then whichever the
		 * scheduler tried last. */
		list_t *qos = list_create(NULL);
		int first = fw_pick(MAX_QOS), n = 2 + fw_pick(MAX_QOS - 1);

		for (int q = 0; q < n; q++)
			list_append(qos, fw_world.qos[(first + q) % MAX_QOS]);
		fake_ctld_job_set_qos_list(j, qos);
		j->qos_ptr = fw_chance(50) ?
			list_peek(qos) :
			fw_world.qos[(first + fw_pick(n)) % MAX_QOS];
	}
	j->details = xmalloc(sizeof(*j->details));
	j->details->min_cpus = 1 + fw_pick(64);
	j->details->max_cpus = fw_chance(20) ? j->details->min_cpus : NO_VAL;
	j->details->min_nodes = 1 + fw_pick(4);
	j->details->nice = NICE_OFFSET +
		(fw_chance(20) ? (int) fw_pick(2000) - 500 : 0);
	j->details->submit_time = now - fw_pick(100000);
	j->details->begin_time = j->details->submit_time;
	j->details->accrue_time = fw_chance(10) ?
		0 :
		now - fw_pick(200000) + (fw_chance(5) ? 5000 : 0);
	j->tres_req_cnt = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_req_cnt[TRES_ARRAY_CPU] = j->details->min_cpus;
	j->tres_req_cnt[TRES_ARRAY_MEM] = 100 * (1 + fw_pick(100));
	j->tres_req_cnt[TRES_ARRAY_NODE] = j->details->min_nodes;
	if (!fw_opts.bench) {
		if (fw_chance(35)) /* --gpus */
			j->tres_req_cnt[fw_world.gpu_pos] = 1 + fw_pick(8);
		if (fw_chance(10)) { /* requeued: its last allocation */
			j->tres_alloc_cnt = xcalloc(slurmctld_tres_cnt,
						    sizeof(uint64_t));
			j->tres_alloc_cnt[TRES_ARRAY_CPU] =
				j->details->min_cpus;
			j->tres_alloc_cnt[TRES_ARRAY_MEM] = NO_CONSUME_VAL64;
			j->tres_alloc_cnt[fw_world.gpu_pos] = fw_chance(50) ?
				NO_CONSUME_VAL64 :
				j->tres_req_cnt[fw_world.gpu_pos];
		} else if (fw_chance(5)) { /* never had its request set */
			xfree(j->tres_req_cnt);
		}
	}
	return j;
}

void job_start(job_record_t *j, time_t start)
{
	j->job_state = JOB_RUNNING;
	j->start_time = start;
	j->total_cpus = j->details->min_cpus;
	j->end_time_exp = start +
		((j->time_limit == NO_VAL) ? 100000 :
					     (time_t) j->time_limit * 60);
	xfree(j->tres_alloc_cnt);
	j->tres_alloc_cnt = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_alloc_cnt[TRES_ARRAY_CPU] = j->total_cpus;
	j->tres_alloc_cnt[TRES_ARRAY_MEM] = j->tres_req_cnt ?
		j->tres_req_cnt[TRES_ARRAY_MEM] :
		100;
	j->tres_alloc_cnt[TRES_ARRAY_NODE] = j->details->min_nodes;
	j->tres_alloc_cnt[TRES_ARRAY_BILLING] = j->total_cpus;
	/* A no_consume GRES is allocated as NO_CONSUME_VAL64.  Not in
	 * --decay-thread scenarios: there multifactor's thread starts by
	 * releasing the run seconds of running jobs from an array it never
	 * clears, so for such a TRES it releases the previous job's seconds,
	 * or whatever the stack held (doc/differences.md); Fairway releases
	 * none.  The other modes compare the charging of such jobs. */
	if (!fw_opts.bench && j->tres_req_cnt &&
	    j->tres_req_cnt[fw_world.gpu_pos])
		j->tres_alloc_cnt[fw_world.gpu_pos] = (!fw_opts.thread_mode &&
						       fw_chance(20)) ?
			NO_CONSUME_VAL64 :
			j->tres_req_cnt[fw_world.gpu_pos];
}

/* ---- jobs that ended ---- */
/* An ended job's priority, priorities per partition (pair) and factors as an
 * earlier period left them: what a plugin must leave alone or recompute, the
 * same for each plugin (jobs_reset puts them back). */
typedef struct {
	job_record_t *job;
	uint32_t priority;
	fw_prio_factors_t *f; /* NULL: no factors */
	uint32_t prio[MAX_PRIO];
	int nprio; /* 0: no array */
} earlier_t;

static earlier_t *g_earlier;
static int g_nearlier;

/* A copy of factors with their TRES arrays (the names stay NULL, as
 * multifactor leaves them). */
static fw_prio_factors_t *_factors_copy(const fw_prio_factors_t *f)
{
	fw_prio_factors_t *c = xmalloc(sizeof(*c));

	*c = *f;
	if (f->priority_tres) {
		c->priority_tres = xcalloc(f->tres_cnt, sizeof(double));
		memcpy(c->priority_tres, f->priority_tres,
		       f->tres_cnt * sizeof(double));
	}
	if (f->tres_weights) {
		c->tres_weights = xcalloc(f->tres_cnt, sizeof(double));
		memcpy(c->tres_weights, f->tres_weights,
		       f->tres_cnt * sizeof(double));
	}
	return c;
}

/* The job's array of priorities per partition (pair), allocated as the
 * plugins allocate it for its partitions and QOS; NULL when it has none. */
static uint32_t *_prio_array(job_record_t *j, int *n)
{
	const char *names;
	int nparts = j->part_ptr_list ? list_count(j->part_ptr_list) : 0;
	int nqos = FW_JOB_QOS_LIST(j) ? list_count(FW_JOB_QOS_LIST(j)) : 1;

	if (!fw_job_prio_array(j, nparts, nqos)) {
		*n = 0;
		return NULL;
	}
	return fake_ctld_prio_array(j, n, &names);
}

static void _earlier_apply(const earlier_t *e)
{
	job_record_t *j = e->job;
	uint32_t *prio;
	int n;

	j->priority = e->priority;
	if (e->f)
		j->prio_factors = _factors_copy(e->f);
	if (e->nprio && (prio = _prio_array(j, &n)))
		memcpy(prio, e->prio, sizeof(uint32_t) * MIN(n, e->nprio));
}

/* Half the ended jobs that an earlier period weighed (not held, no
 * administrator-set priority): a priority, weighted factors (TRES ones when
 * PriorityWeightTRES is set) and, for a job in several partitions or QOS, its
 * priorities per partition (pair). */
static void _earlier_draw(job_record_t *j)
{
	earlier_t *e;
	fw_prio_factors_t *f;
	uint32_t *prio;
	int n;

	if ((j->priority != 1) || j->direct_set_prio || !fw_chance(50))
		return;
	xrecalloc(g_earlier, g_nearlier + 1, sizeof(*g_earlier));
	e = &g_earlier[g_nearlier++];
	e->job = j;
	e->priority = 1 + fw_pick(200000000);
	e->f = f = xmalloc(sizeof(*f));
	f->priority_age = fw_pick(10000000) / 8.0;
	f->priority_assoc = fw_pick(10000000) / 8.0;
	f->priority_fs = fw_pick(10000000) / 8.0;
	f->priority_js = fw_pick(10000000) / 8.0;
	f->priority_part = fw_pick(10000000) / 8.0;
	f->priority_qos = fw_pick(10000000) / 8.0;
	f->priority_site = fw_pick(1000);
	f->nice = j->details->nice;
	if (slurm_conf.priority_weight_tres) {
		f->tres_cnt = slurmctld_tres_cnt;
		f->priority_tres = xcalloc(f->tres_cnt, sizeof(double));
		f->tres_weights = xcalloc(f->tres_cnt, sizeof(double));
		for (uint32_t t = 0; t < f->tres_cnt; t++) {
			f->priority_tres[t] = fw_pick(1000000) / 8.0;
			f->tres_weights[t] = fw_pick(100000);
		}
	}
	if ((prio = _prio_array(j, &n))) {
		e->nprio = MIN(n, MAX_PRIO);
		for (int i = 0; i < e->nprio; i++)
			e->prio[i] = 1 + fw_pick(200000000);
		fake_ctld_free_priority(j);
	}
	_earlier_apply(e);
}

/*
 * The job ended some time before the period and is still in job_list, as
 * slurmctld keeps it until MinJobAge: completing (its epilog running),
 * completed, cancelled after running (completing or not), cancelled while
 * pending, or requeued and still completing its last allocation.  A job that
 * ran had its end charged (end_time_exp NO_VAL).
 */
static void _job_ended(job_record_t *j, time_t now)
{
	int kind = fw_pick(5);
	time_t end = now - 1 - fw_pick(3000);

	if ((kind == 3) && j->start_time) /* it ran: cancelled after */
		kind = 2;
	if ((kind != 3) && !j->start_time)
		job_start(j, end - 1 - fw_pick(40000));
	switch (kind) {
	case 0:
		j->job_state = JOB_COMPLETE | JOB_COMPLETING;
		break;
	case 1:
		j->job_state = JOB_COMPLETE;
		break;
	case 2:
		j->job_state = JOB_CANCELLED |
			(fw_chance(50) ? JOB_COMPLETING : 0);
		break;
	case 3:
		j->job_state = JOB_CANCELLED;
		j->start_time = end;
		break;
	default:
		j->job_state = JOB_PENDING | JOB_COMPLETING;
		break;
	}
	j->end_time = end;
	if (kind != 3)
		j->end_time_exp = (time_t) NO_VAL;
	/* 22.05's multifactor sorted its partitions when it first weighed it
	 * (at submit, priority_p_set); a period that skips it leaves them so. */
	if (FW_PLUGIN_SORTS_JOB_PARTITIONS && j->part_ptr_list)
		list_sort(j->part_ptr_list, priority_sort_part_tier);
	_earlier_draw(j);
}

void jobs_setup(scenario_t *s, time_t now)
{
	int *users = xcalloc(s->nassoc + 1, sizeof(int)), nusers = 0;

	for (int i = 0; i < s->nassoc; i++)
		if (s->a[i].user[0])
			users[nusers++] = i;
	job_list = list_create(NULL);
	for (int n = 0; n < s->njobs && nusers; n++) {
		job_record_t *j = job_make(100 + n,
					   &s->a[users[fw_pick(nusers)]], now);

		/* Running since some time after the last period: charged by
		 * the period under test. */
		if (fw_opts.bench ? (n < s->nrunning) :
				    (!fw_world.use_recalc && fw_chance(25)))
			job_start(j, now - 1 - fw_pick(40000));
		/* Ended, in every mode but the bench's fixed shapes. */
		if (!fw_opts.bench && fw_chance(10))
			_job_ended(j, now);
		list_append(job_list, j);
	}
	xfree(users);
}

void jobs_reset(void)
{
	job_record_t *j;
	list_itr_t *it = list_iterator_create(job_list);

	while ((j = list_next(it))) {
		if (!j->direct_set_prio && j->priority)
			j->priority = 1;
		fake_ctld_free_priority(j);
	}
	list_iterator_destroy(it);
	for (int i = 0; i < g_nearlier; i++)
		_earlier_apply(&g_earlier[i]);
}

int jobs_multi_qos(void)
{
	job_record_t *j;
	list_itr_t *it = list_iterator_create(job_list);
	int n = 0;

	while ((j = list_next(it)))
		if (FW_JOB_QOS_LIST(j) && (list_count(FW_JOB_QOS_LIST(j)) > 1))
			n++;
	list_iterator_destroy(it);
	return n;
}

int jobs_weighed(void)
{
	job_record_t *j;
	list_itr_t *it = list_iterator_create(job_list);
	int n = 0;

	while ((j = list_next(it)))
		if (j->prio_factors)
			n++;
	list_iterator_destroy(it);
	return n;
}
