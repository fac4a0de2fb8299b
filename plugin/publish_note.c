/*****************************************************************************\
 *  publish_note.c - what publishing notes while a period weighs jobs, under
 *  slurmctld's job write lock: one row per pending job and partition (a few
 *  words, into a lane per weighing thread), with fairway_metrics_dir the
 *  queue's details, with fairway_fairshare_tres a tally of the TRES that
 *  judged the jobs, with fairway_history_days the jobs that started since the
 *  last published period.  A thread with no lane notes nothing, at the cost
 *  of one test.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "publish_state.h"

/* The lane the calling thread notes into, NULL: none (per thread: the
 * weighing pool's threads note at once). */
static __thread fw_lane_t *t_lane = NULL;

extern int fw_publish_cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

extern void fw_publish_started_clear(fw_publish_t *pub)
{
	for (size_t i = 0; i < pub->started_n; i++) {
		xfree(*(char **) &pub->started[i].user);
		xfree(*(char **) &pub->started[i].account);
		xfree(*(char **) &pub->started[i].partition);
	}
	pub->started_n = 0;
}

static fw_publish_t *_publish_new(void)
{
	void *mem = NULL;

	/* The lanes are aligned on cache lines. */
	if (posix_memalign(&mem, 64, sizeof(fw_publish_t)))
		fatal("%s: out of memory for publishing", plugin_type);
	memset(mem, 0, sizeof(fw_publish_t));
	for (int i = 0; i < FW_PUBLISH_LANES; i++)
		((fw_publish_t *) mem)->lanes[i].pub = mem;
	return mem;
}

extern void fw_publish_begin(fw_publish_t **pubp, const fw_cfg_t *cfg)
{
	bool noting = (cfg->metrics_dir != NULL) || cfg->history_days ||
		cfg->starvation_minutes;
	bool tally = cfg->fs_tres_n && FW_WEIGHT(cfg, FAIRSHARE) &&
		cfg->fair_share;
	fw_publish_t *pub;

	if (!*pubp && !noting && !tally)
		return;
	if (!*pubp)
		*pubp = _publish_new();
	pub = *pubp;
	pub->noting = noting;
	pub->tally = tally;
	pub->noting_starts = cfg->history_days && pub->last_walk;
	/* Not while the last period had more jobs than the queue may hold:
	 * they would be noted under the job lock only to be dropped. */
	pub->noting_queue = (cfg->metrics_dir != NULL) && cfg->queue_jobs &&
		(pub->last_jobs <= cfg->queue_jobs);
	pub->queue_jobs = cfg->queue_jobs;
	pub->queue_tres = cfg->weights.tres ? cfg->weights.tres_count : 0;
	/* Only this period's walk (not a reconfigure's). */
	fw_publish_started_clear(pub);
	for (int i = 0; i < FW_PUBLISH_LANES; i++) {
		fw_lane_t *l = &pub->lanes[i];

		l->n = l->jobs = 0;
		l->njobs = l->ntres = 0;
		l->over = false;
		l->tally_jobs = 0;
		memset(l->tres_jobs, 0, sizeof(l->tres_jobs));
		memset(l->tres_differ, 0, sizeof(l->tres_differ));
	}
	t_lane = (noting || tally) ? &pub->lanes[0] : NULL;
	fw_publish_parts_clear(&pub->parts);
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
	return t_lane && t_lane->pub->noting;
}

extern bool fw_publish_noting_queue(void)
{
	return t_lane && t_lane->pub->noting && t_lane->pub->noting_queue;
}

extern void fw_publish_lane(fw_publish_t *pub, int lane)
{
	t_lane = (pub && (lane >= 1) && (lane < FW_PUBLISH_LANES)) ?
		&pub->lanes[lane] :
		NULL;
}

/* The job's detail for the queue: UINT32_MAX when not noted. */
static uint32_t _note_detail(fw_lane_t *l, const fw_weighed_t *w)
{
	const fw_publish_t *pub = l->pub;
	const job_record_t *job_ptr = w->job;
	const fw_prio_factors_t *pf = job_ptr->prio_factors;
	const job_details_t *d = job_ptr->details;
	fairway_pending_job_t *j;

	if (!pub->noting_queue || l->over)
		return UINT32_MAX;
	if (l->njobs >= pub->queue_jobs) {
		l->over = true;
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
	j->age = pf ? pf->priority_age : 0;
	j->assoc = pf ? pf->priority_assoc : 0;
	j->fairshare = pf ? pf->priority_fs : 0;
	j->job_size = pf ? pf->priority_js : 0;
	j->qos = pf ? pf->priority_qos : 0;
	j->site = pf ? pf->priority_site : NICE_OFFSET;
	j->nice = d ? d->nice : NICE_OFFSET;
	j->tres_at = SIZE_MAX;
	if (pub->queue_tres && pf && pf->priority_tres &&
	    (pf->tres_cnt >= pub->queue_tres)) {
		size_t nt = pub->queue_tres;

		if (l->ntres + nt > l->tres_cap) {
			l->tres_cap += l->tres_cap / 4 + 1024 * nt;
			xrecalloc(l->tres, l->tres_cap, sizeof(*l->tres));
		}
		for (size_t t = 0; t < nt; t++) /* a few */
			l->tres[l->ntres + t] = pf->priority_tres[t];
		j->tres_at = l->ntres;
		l->ntres += nt;
	}
	return l->njobs++;
}

static inline __attribute__((always_inline)) void
_note(fw_lane_t *l, const fw_note_t *job, const void *part, uint32_t prio,
      bool first)
{
	fw_note_t *n;

	if (l->n == l->cap) { /* grows with the queue, never shrinks */
		l->cap += l->cap / 4 + 1024;
		xrecalloc(l->v, l->cap, sizeof(*l->v));
	}
	n = &l->v[l->n++];
	if (l->n + 16 < l->cap)
		__builtin_prefetch(&l->v[l->n + 16], 1);
	*n = *job;
	n->part = part;
	n->priority = prio;
	n->first = first;
}

/* fairway_fairshare_tres: which listed TRES judged a pending job, and its
 * factor there. */
static void _tally(fw_lane_t *l, int k, double f)
{
	l->tally_jobs++;
	if ((k < 0) || (k >= FAIRWAY_MAX_FAIRSHARE_TRES))
		return;
	if (!l->tres_jobs[k]++)
		l->tres_factor[k] = f;
	else if (f != l->tres_factor[k])
		l->tres_differ[k] = true;
}

extern void fw_publish_note(const fw_weighed_t *w)
{
	fw_lane_t *l = t_lane;
	const job_record_t *job_ptr = w->job;
	const job_details_t *d;
	fw_note_t job = { 0 };

	/* Pending jobs only (CALCULATE_RUNNING weighs running ones too). */
	if (!l || !IS_JOB_PENDING(job_ptr))
		return;
	if (l->pub->tally && !job_ptr->direct_set_prio)
		_tally(l, w->tres, w->tres_factor);
	if (!l->pub->noting)
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
	job.job = _note_detail(l, w);
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
	fairway_started_job_t *s;
	uint32_t id;

	/* A job cancelled while pending gets start_time = end_time but no
	 * nodes: it never started.  Nothing else of the job is read before
	 * this test: it runs for every job of the walk under the job lock. */
	if (!pub || !pub->noting_starts || IS_JOB_PENDING(job_ptr) ||
	    (job_ptr->start_time < pub->last_walk) ||
	    (job_ptr->start_time > now) || !job_ptr->nodes ||
	    !job_ptr->nodes[0])
		return;
	pf = job_ptr->prio_factors;
	assoc = job_ptr->assoc_ptr;
	id = job_ptr->job_id;
	if ((!pub->prev_n ||
	     !bsearch(&id, pub->prev_ids, pub->prev_n, sizeof(id),
		      fw_publish_cmp_id)) &&
	    (job_ptr->start_time == pub->last_walk))
		return;
	if (pub->started_n == pub->started_cap) {
		pub->started_cap += pub->started_cap / 2 + 64;
		xrecalloc(pub->started, pub->started_cap,
			  sizeof(*pub->started));
	}
	s = &pub->started[pub->started_n++];
	memset(s, 0, sizeof(*s));
	s->job_id = job_ptr->job_id;
	s->user = xstrdup(assoc ? assoc->user : NULL);
	s->account = xstrdup(assoc ? assoc->acct : job_ptr->account);
	s->partition = xstrdup(job_ptr->part_ptr ? job_ptr->part_ptr->name :
						   job_ptr->partition);
	s->submit_time = job_ptr->details ? job_ptr->details->submit_time : 0;
	s->start_time = job_ptr->start_time;
	s->priority = job_ptr->priority;
	if (pf) {
		s->has_factors = 1;
		s->age = pf->priority_age;
		s->assoc = pf->priority_assoc;
		s->fairshare = pf->priority_fs;
		s->job_size = pf->priority_js;
		s->partition_factor = pf->priority_part;
		s->qos = pf->priority_qos;
		/* prio_factors keeps the site factor biased by NICE_OFFSET
		 * (as site_factor), in every release: the priority used
		 * the unbiased value. */
		s->site = (double) ((int64_t) pf->priority_site -
				    (int64_t) NICE_OFFSET);
		s->nice = pf->nice;
	}
}
