/*****************************************************************************\
 *  publish_note.c - what publishing notes while a period weighs jobs, under
 *  slurmctld's job write lock: one row per pending job and partition (a few
 *  words, into a lane per weighing thread), with fairway_metrics_dir the
 *  queue's details, with fairway_fairshare_tres a tally of the TRES that
 *  judged the jobs, with fairway_history_days the jobs that started since the
 *  last published period.  What to note is the library's plan
 *  (fairway_publisher_begin).  A thread with no lane notes nothing, at the
 *  cost of one test.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

/* The publishing and the lane the calling thread notes into, NULL: none (per
 * thread: the weighing pool's threads note at once).  The lanes are the
 * publisher's: lane 0 the calculation thread's, lane k the weighing pool's
 * thread k's, which weighs the k-th of the pass's consecutive ranges. */
static __thread fw_publish_t *t_pub = NULL;
static __thread fairway_lane_t *t_lane = NULL;

extern fw_publish_t *fw_publish_current(void)
{
	return t_pub;
}

extern bool fw_publish_noting(void)
{
	return t_lane && t_lane->plan.rows;
}

extern bool fw_publish_noting_ids(void)
{
	return t_lane && t_lane->plan.ids; /* ids: with rows only */
}

extern bool fw_publish_noting_queue(void)
{
	return t_lane && t_lane->plan.rows && t_lane->plan.queue;
}

extern void fw_publish_lane(fw_publish_t *pub, int lane)
{
	t_lane = (pub && (lane >= 0)) ? fairway_publisher_lane(pub, lane) :
					NULL;
	t_pub = t_lane ? pub : NULL;
}

/* The job's weighted factors that the queue and the journal of starts both
 * read.  prio_factors keeps the site factor and nice biased by NICE_OFFSET, in
 * every release. */
static void _factors(const fw_prio_factors_t *pf, double *f)
{
	f[FAIRWAY_FACTOR_AGE] = pf->priority_age;
	f[FAIRWAY_FACTOR_ASSOC] = pf->priority_assoc;
	f[FAIRWAY_FACTOR_FAIRSHARE] = pf->priority_fs;
	f[FAIRWAY_FACTOR_JOB_SIZE] = pf->priority_js;
	f[FAIRWAY_FACTOR_QOS] = pf->priority_qos;
	f[FAIRWAY_FACTOR_SITE] = (double) ((int64_t) pf->priority_site -
					   (int64_t) NICE_OFFSET);
}

/* The job's detail for the queue, and its weighted TRES factors (NULL:
 * none).  Each field is set (no memset of the struct per job); tres_at is the
 * note's. */
static const double *_detail(const fw_weighed_t *w, size_t queue_tres,
			     fairway_pending_job_t *j)
{
	const job_record_t *job_ptr = w->job;
	const fw_prio_factors_t *pf = job_ptr->prio_factors;
	const job_details_t *d = job_ptr->details;
	double *f = j->factors;

	j->array_job_id = job_ptr->array_task_id == NO_VAL ?
		0 :
		job_ptr->array_job_id;
	j->priority = w->priority;
	j->accrue_time = d ? d->accrue_time : 0;
	j->min_cpus = d ? d->min_cpus : 0;
	j->max_cpus = d ? d->max_cpus : NO_VAL;
	j->min_nodes = d ? d->min_nodes : 0;
	j->time_limit = job_ptr->time_limit;
	j->admin = job_ptr->direct_set_prio || !pf;
	j->fairshare_tres = pf ? w->tres + 1 : 0;
	j->tres_at = 0;
	for (int k = 0; k < FAIRWAY_FACTOR_COUNT; k++)
		f[k] = 0;
	if (pf)
		_factors(pf, f);
	if (d)
		f[FAIRWAY_FACTOR_NICE] = (double) ((int64_t) d->nice -
						   (int64_t) NICE_OFFSET);
	if (queue_tres && pf && pf->priority_tres &&
	    (pf->tres_cnt >= queue_tres))
		return pf->priority_tres;
	return NULL;
}

extern void fw_publish_note(const fw_weighed_t *w)
{
	fairway_lane_t *l = t_lane;
	const job_record_t *job_ptr = w->job;
	const job_details_t *d;
	fairway_pending_job_t detail;
	fairway_job_note_t job; /* each field set below: no memset per job */

	/* Pending jobs only (CALCULATE_RUNNING weighs running ones too). */
	if (!l || !IS_JOB_PENDING(job_ptr))
		return;
	if (l->plan.tally && !job_ptr->direct_set_prio)
		fairway_lane_tally(l, w->tres, w->tres_factor);
	if (!l->plan.rows)
		return;
	d = job_ptr->details;
	job.row.part = job_ptr->part_ptr;
	job.row.qos_id = job_ptr->qos_ptr ? job_ptr->qos_ptr->id : 0;
	job.row.submit = d ? (uint32_t) d->submit_time : 0;
	job.row.eligible = !d  ? 0 :
		d->accrue_time ? (uint32_t) d->accrue_time :
				 (uint32_t) d->begin_time;
	job.row.assoc_id = job_ptr->assoc_id;
	/* Two more lines of the job record, read only when the plan needs them
	 * (fairway_publish_plan_t.ids). */
	job.row.job_id = l->plan.ids ? job_ptr->job_id : 0;
	job.row.resources = l->plan.ids &&
		(job_ptr->state_reason == WAIT_RESOURCES);
	job.row.priority = job.row.job = 0; /* the note sets them */
	job.row.first = 0;
	job.parts = (const void *const *) w->parts;
	job.nparts = w->nparts;
	job.prio = w->prio;
	job.nqos = w->nqos;
	job.priority = w->priority;
	job.tres = NULL;
	job.detail = NULL;
	if (l->plan.queue && !l->over) {
		job.tres = _detail(w, l->queue_tres, &detail);
		job.detail = &detail;
	}
	fairway_lane_note(l, &job);
}

/*
 * A job started since the last period: not pending now, started no earlier
 * than that period's walk, and either weighed by it (then it has a place in
 * its order) or started after it (submitted and started in between).  One
 * that started in the very second of that walk without being weighed by it
 * was running then, and was noted before.  With fairway_history_days; the
 * calculation thread, with the job lock and an assoc_mgr lock held.
 */
extern void fw_publish_note_started(const job_record_t *job_ptr, time_t now)
{
	const fairway_lane_t *l = t_lane;
	const fw_prio_factors_t *pf;
	const slurmdb_assoc_rec_t *assoc;
	fairway_started_job_t s;

	/* A job cancelled while pending gets start_time = end_time but no
	 * nodes: it never started.  Nothing else of the job is read before
	 * this test: it runs for every job of the walk under the job lock. */
	if (!l || !l->plan.starts || IS_JOB_PENDING(job_ptr) ||
	    !fairway_publisher_started_since(t_pub, job_ptr->job_id,
					     job_ptr->start_time, now) ||
	    !job_ptr->nodes || !job_ptr->nodes[0])
		return;
	pf = job_ptr->prio_factors;
	assoc = job_ptr->assoc_ptr;
	memset(&s, 0, sizeof(s));
	s.job_id = job_ptr->job_id;
	s.user = assoc ? assoc->user : NULL;
	s.account = assoc ? assoc->acct : job_ptr->account;
	s.partition = job_ptr->part_ptr ? job_ptr->part_ptr->name :
					  job_ptr->partition;
	s.submit_time = job_ptr->details ? job_ptr->details->submit_time : 0;
	s.start_time = job_ptr->start_time;
	s.priority = job_ptr->priority;
	if (pf) {
		s.has_factors = 1;
		_factors(pf, s.factors);
		s.factors[FAIRWAY_FACTOR_PARTITION] = pf->priority_part;
		s.factors[FAIRWAY_FACTOR_NICE] =
			(double) ((int64_t) pf->nice - (int64_t) NICE_OFFSET);
	}
	fairway_publisher_note_start(t_pub, &s);
}
