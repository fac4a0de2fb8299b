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

#include "publish_state.h"

/* The lane the calling thread notes into, NULL: none (per thread: the
 * weighing pool's threads note at once). */
static __thread fw_lane_t *t_lane = NULL;

extern void fw_publish_begin(fw_publish_t **pubp, const fw_cfg_t *cfg)
{
	fairway_publish_settings_t s = fw_publish_settings(cfg);
	fairway_publish_plan_t plan;
	fw_publish_t *pub = *pubp;
	void *mem = NULL;

	if (fairway_publisher_begin(pub ? pub->publisher : NULL, &s, &plan) ||
	    (!pub && !plan.rows && !plan.tally))
		return;
	if (!pub) { /* the lanes are aligned on cache lines */
		if (posix_memalign(&mem, 64, sizeof(*pub)))
			fatal("%s: out of memory for publishing", plugin_type);
		pub = memset(mem, 0, sizeof(*pub));
		if (fairway_publisher_new(&pub->publisher))
			fatal("%s: out of memory for publishing", plugin_type);
		for (int i = 0; i < FW_PUBLISH_LANES; i++)
			pub->lanes[i].pub = pub;
		fairway_publisher_begin(pub->publisher, &s, &plan);
		*pubp = pub;
	}
	pub->plan = plan;
	pub->queue_jobs = s.queue_jobs;
	pub->queue_tres = s.queue_tres;
	for (int i = 0; i < FW_PUBLISH_LANES; i++) {
		fairway_lane_t *l = &pub->lanes[i].l;

		l->n = l->jobs = l->njobs = l->ntres = l->tally_jobs = 0;
		l->over = 0;
		memset(l->tres_jobs, 0, sizeof(l->tres_jobs));
		memset(l->tres_differ, 0, sizeof(l->tres_differ));
	}
	t_lane = (plan.rows || plan.tally) ? &pub->lanes[0] : NULL;
	fw_publish_parts_clear(pub);
}

extern void fw_publish_lane_leave(void)
{
	t_lane = NULL;
}

extern fw_publish_t *fw_publish_current(void)
{
	return t_lane ? t_lane->pub : NULL;
}

extern bool fw_publish_noting(void)
{
	return t_lane && t_lane->pub->plan.rows;
}

extern bool fw_publish_noting_queue(void)
{
	return t_lane && t_lane->pub->plan.rows && t_lane->pub->plan.queue;
}

extern void fw_publish_lane(fw_publish_t *pub, int lane)
{
	t_lane = (pub && (lane >= 1) && (lane < FW_PUBLISH_LANES)) ?
		&pub->lanes[lane] :
		NULL;
}

/* The job's detail for the queue: UINT32_MAX when not noted. */
static uint32_t _note_detail(fw_lane_t *lane, const fw_weighed_t *w)
{
	const fw_publish_t *pub = lane->pub;
	fairway_lane_t *l = &lane->l;
	const job_record_t *job_ptr = w->job;
	const fw_prio_factors_t *pf = job_ptr->prio_factors;
	const job_details_t *d = job_ptr->details;
	fairway_pending_job_t *j;
	double *f;

	if (!pub->plan.queue || l->over)
		return UINT32_MAX;
	if (l->njobs >= pub->queue_jobs) {
		l->over = 1;
		return UINT32_MAX;
	}
	if (l->njobs == l->jobs_cap) { /* grows with the queue */
		l->jobs_cap += l->jobs_cap / 4 + 1024;
		xrecalloc(l->jobv, l->jobs_cap, sizeof(*l->jobv));
	}
	j = &l->jobv[l->njobs];
	/* The lane's memory is cold after the seconds between two periods:
	 * ask for the lines a few jobs ahead while this one is written. */
	if (l->njobs + 8 < l->jobs_cap)
		__builtin_prefetch(&l->jobv[l->njobs + 8], 1);
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
	f = j->factors;
	memset(f, 0, sizeof(j->factors));
	if (pf) {
		f[FAIRWAY_FACTOR_AGE] = pf->priority_age;
		f[FAIRWAY_FACTOR_ASSOC] = pf->priority_assoc;
		f[FAIRWAY_FACTOR_FAIRSHARE] = pf->priority_fs;
		f[FAIRWAY_FACTOR_JOB_SIZE] = pf->priority_js;
		f[FAIRWAY_FACTOR_QOS] = pf->priority_qos;
		f[FAIRWAY_FACTOR_SITE] = (double) ((int64_t) pf->priority_site -
						   (int64_t) NICE_OFFSET);
	}
	if (d)
		f[FAIRWAY_FACTOR_NICE] = (double) ((int64_t) d->nice -
						   (int64_t) NICE_OFFSET);
	j->tres_at = SIZE_MAX;
	if (pub->queue_tres && pf && pf->priority_tres &&
	    (pf->tres_cnt >= pub->queue_tres)) {
		size_t nt = pub->queue_tres;

		if (l->ntres + nt > l->tres_cap) {
			l->tres_cap += l->tres_cap / 4 + 1024 * nt;
			xrecalloc(l->tres, l->tres_cap, sizeof(*l->tres));
		}
		memcpy(l->tres + l->ntres, pf->priority_tres,
		       nt * sizeof(double));
		j->tres_at = l->ntres;
		l->ntres += nt;
	}
	return l->njobs++;
}

static inline __attribute__((always_inline)) void
_note(fairway_lane_t *l, const fairway_note_t *job, const void *part,
      uint32_t prio, bool first)
{
	fairway_note_t *n;

	if (l->n == l->cap) { /* grows with the queue, never shrinks */
		l->cap += l->cap / 4 + 1024;
		xrecalloc(l->rows, l->cap, sizeof(*l->rows));
	}
	n = &l->rows[l->n++];
	if (l->n + 16 < l->cap)
		__builtin_prefetch(&l->rows[l->n + 16], 1);
	*n = *job;
	n->part = part;
	n->priority = prio;
	n->first = first;
}

/* fairway_fairshare_tres: which listed TRES judged a pending job, and its
 * factor there. */
static void _tally(fairway_lane_t *l, int k, double f)
{
	l->tally_jobs++;
	if ((k < 0) || (k >= FAIRWAY_MAX_FAIRSHARE_TRES))
		return;
	if (!l->tres_jobs[k]++)
		l->tres_factor[k] = f;
	else if (f != l->tres_factor[k])
		l->tres_differ[k] = 1;
}

extern void fw_publish_note(const fw_weighed_t *w)
{
	fw_lane_t *lane = t_lane;
	const job_record_t *job_ptr = w->job;
	const job_details_t *d;
	fairway_note_t job = { 0 };
	fairway_lane_t *l;

	/* Pending jobs only (CALCULATE_RUNNING weighs running ones too). */
	if (!lane || !IS_JOB_PENDING(job_ptr))
		return;
	l = &lane->l;
	if (lane->pub->plan.tally && !job_ptr->direct_set_prio)
		_tally(l, w->tres, w->tres_factor);
	if (!lane->pub->plan.rows)
		return;
	d = job_ptr->details;
	job.qos_id = job_ptr->qos_ptr ? job_ptr->qos_ptr->id : 0;
	job.submit = d ? (uint32_t) d->submit_time : 0;
	job.eligible = !d      ? 0 :
		d->accrue_time ? (uint32_t) d->accrue_time :
				 (uint32_t) d->begin_time;
	job.assoc_id = job_ptr->assoc_id;
	job.job_id = job_ptr->job_id;
	job.resources = (job_ptr->state_reason == WAIT_RESOURCES);
	job.job = _note_detail(lane, w);
	l->jobs++;
	if (w->nparts <= 0) {
		_note(l, &job, job_ptr->part_ptr, w->priority, true);
		return;
	}
	for (int p = 0; p < w->nparts; p++) {
		uint32_t best = w->priority;

		if (w->prio) {
			best = w->prio[p * w->nqos];
			for (int q = 1; q < w->nqos; q++)
				if (w->prio[p * w->nqos + q] > best)
					best = w->prio[p * w->nqos + q];
		}
		_note(l, &job, w->parts[p], best, p == 0);
	}
}

/*
 * A job started since the last period: not pending now, started no earlier
 * than that period's walk, and either weighed by it (then it has a place in
 * its order) or started after it (submitted and started in between).  One
 * that started in the very second of that walk without being weighed by it
 * was running then, and was noted before.
 */
extern void fw_publish_note_started(const job_record_t *job_ptr, time_t now)
{
	fw_publish_t *pub = t_lane ? t_lane->pub : NULL;
	const fw_prio_factors_t *pf;
	const slurmdb_assoc_rec_t *assoc;
	fairway_started_job_t s;

	/* A job cancelled while pending gets start_time = end_time but no
	 * nodes: it never started.  Nothing else of the job is read before
	 * this test: it runs for every job of the walk under the job lock. */
	if (!pub || !pub->plan.starts || IS_JOB_PENDING(job_ptr) ||
	    (job_ptr->start_time < pub->plan.last_walk) ||
	    (job_ptr->start_time > now) || !job_ptr->nodes ||
	    !job_ptr->nodes[0])
		return;
	if ((job_ptr->start_time == pub->plan.last_walk) &&
	    !fairway_publisher_weighed(pub->publisher, job_ptr->job_id))
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
		s.factors[FAIRWAY_FACTOR_AGE] = pf->priority_age;
		s.factors[FAIRWAY_FACTOR_ASSOC] = pf->priority_assoc;
		s.factors[FAIRWAY_FACTOR_FAIRSHARE] = pf->priority_fs;
		s.factors[FAIRWAY_FACTOR_JOB_SIZE] = pf->priority_js;
		s.factors[FAIRWAY_FACTOR_PARTITION] = pf->priority_part;
		s.factors[FAIRWAY_FACTOR_QOS] = pf->priority_qos;
		/* prio_factors keeps the site factor and nice biased by
		 * NICE_OFFSET, in every release. */
		s.factors[FAIRWAY_FACTOR_SITE] =
			(double) ((int64_t) pf->priority_site -
				  (int64_t) NICE_OFFSET);
		s.factors[FAIRWAY_FACTOR_NICE] =
			(double) ((int64_t) pf->nice - (int64_t) NICE_OFFSET);
	}
	fairway_publisher_note_start(pub->publisher, &s);
}
