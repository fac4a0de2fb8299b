/*****************************************************************************\
 *  publish.c - what a period publishes for the tools sites already run: with
 *  PriorityParameters=fairway_metrics_dir=DIR a Prometheus text file for
 *  node_exporter's textfile collector and the association tree as a snapshot
 *  file for the fairway command; with fairway_history_days=N one record per
 *  association in DIR/fairway_history (StateSaveLocation/fairway_history
 *  without a metrics directory), kept N days, and a line per job that started
 *  with its place in the last order; with fairway_starvation_minutes
 *  one log line when a user starts and stops being starved of service
 *  (fairway_publish, lib/capi/fairway.h).
 *
 *  Under slurmctld's locks only copies are made: while jobs are weighed, one
 *  row per pending job and partition (a few words, into a buffer per weighing
 *  thread); the partitions' names under the job lock; at the end of the
 *  period the associations and QOS under assoc_mgr's read locks.  Fair-share
 *  is computed again from the copy and the files are written after every
 *  lock is released, so that the job write lock is held no longer than the
 *  weighing itself (bench/side-by-side measures it with and without).
 *
 *  A failure (an unwritable or missing directory, a full disk) is logged once
 *  when it starts and once when it ends; priorities never depend on it.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

/* One row as noted under the job lock (40 bytes): the partition by address
 * (matched to the names copied under the same lock), the QOS and association by
 * id, times as unsigned 32-bit Unix times. */
typedef struct {
	const void *part;
	uint32_t qos_id;	/* 0: none */
	uint32_t priority;
	uint32_t submit;
	uint32_t eligible;	/* accrue or begin time, 0: not eligible yet */
	uint32_t assoc_id;
	uint32_t job_id;
	uint32_t job;		/* the lane's job detail, UINT32_MAX: none */
	bool first;
	bool resources;		/* its state reason is Resources */
} note_t;
_Static_assert(sizeof(note_t) <= 40, "a row stays 40 bytes");

/* A cache line each, so that two weighing threads never write one line. */
typedef struct {
	note_t *v;
	size_t n, cap;
	uint64_t jobs;
	/* With the queue (fairway_metrics_dir): one detail per job, and its
	 * weighted TRES factors (tres_count each, with TRES weights). */
	fairway_pending_job_t *jobv;
	size_t njobs, jobs_cap;
	double *tres;
	size_t ntres, tres_cap;
	bool over;	/* more jobs than fairway_queue_jobs: no details */
	/* fairway_fairshare_tres: the pending jobs weighed, and per listed
	 * TRES those it judged, the first one's factor and whether another's
	 * differed (_tally). */
	uint64_t tally_jobs;
	uint64_t tres_jobs[FAIRWAY_MAX_FAIRSHARE_TRES];
	double tres_factor[FAIRWAY_MAX_FAIRSHARE_TRES];
	bool tres_differ[FAIRWAY_MAX_FAIRSHARE_TRES];
} __attribute__((aligned(64))) lane_t;

/* Lane 0: the calculation thread; lane k: the weighing pool's thread k, which
 * weighs the k-th of the pass's consecutive ranges, so that the lanes in order
 * hold the jobs in job_list's order.  Only the calculation thread touches
 * g_lanes outside a weighing pass. */
#define LANES FW_WEIGH_MAX_THREADS
static lane_t g_lanes[LANES];
static bool g_noting = false;
/* fairway_fairshare_tres with a fair-share weight: the period's jobs are
 * tallied by the TRES that judged them (no rows unless g_noting). */
static bool g_tally = false;
static __thread lane_t *t_lane = NULL;
/* The queue's details are noted (fairway_metrics_dir, up to queue_jobs jobs). */
static bool g_noting_queue = false;
static uint32_t g_queue_jobs = 0;
static size_t g_queue_tres = 0;
static bool g_queue_over_told = false;
static uint64_t g_last_jobs = 0;	/* pending jobs the last period noted */
/* The period's settings, from fw_publish_begin to fw_publish_end (the period
 * holds them): which TRES judged a noted job (fairway_fairshare_tres). */
static const fw_cfg_t *g_cfg = NULL;

/* The partitions of the period, copied under the job lock, and the cluster's
 * size. */
static struct {
	const void **ptr;
	char **name;
	fairway_partition_info_t *info;
	size_t n;
	uint32_t cluster_cpus, cluster_nodes;
} g_parts;

/* Jobs started since the last published period (periods only: calc_lock). */
static fairway_started_job_t *g_started = NULL;
static size_t g_started_n = 0, g_started_cap = 0;
static bool g_noting_starts = false;
/* The last published period: when its walk began (0: none), and the jobs it
 * weighed (sorted ids). */
static time_t g_last_walk = 0;
static uint32_t *g_prev_ids = NULL;
static size_t g_prev_n = 0, g_prev_cap = 0;

static char *g_last_failure = NULL;	/* the failure logged last, or NULL */
static fairway_publisher_t *g_publisher = NULL;	/* starvation episodes */

static void _say_starvation(const char *message, void *arg)
{
	info("%s: %s", plugin_type, message);
}

static double _seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

extern void fw_job_write_lock(fw_state_t *st)
{
	slurmctld_lock_t job_write_lock =
		{ .job = WRITE_LOCK, .node = READ_LOCK, .part = READ_LOCK };

	lock_slurmctld(job_write_lock);
	clock_gettime(CLOCK_MONOTONIC, &st->job_lock_taken);
}

extern void fw_job_write_unlock(fw_state_t *st)
{
	slurmctld_lock_t job_write_lock =
		{ .job = WRITE_LOCK, .node = READ_LOCK, .part = READ_LOCK };

	st->job_lock_seconds += _seconds_since(&st->job_lock_taken);
	unlock_slurmctld(job_write_lock);
}

static void _parts_clear(void)
{
	for (size_t i = 0; i < g_parts.n; i++)
		xfree(g_parts.name[i]);
	xfree(g_parts.name);
	xfree(g_parts.ptr);
	xfree(g_parts.info);
	g_parts.n = 0;
}

static void _started_clear(void)
{
	for (size_t i = 0; i < g_started_n; i++) {
		xfree(*(char **) &g_started[i].user);
		xfree(*(char **) &g_started[i].account);
		xfree(*(char **) &g_started[i].partition);
	}
	g_started_n = 0;
}

extern void fw_publish_begin(fw_state_t *st, const fw_cfg_t *cfg)
{
	clock_gettime(CLOCK_MONOTONIC, &st->period_begin);
	st->job_lock_seconds = 0;
	g_noting = (cfg->metrics_dir != NULL) || cfg->history_days ||
		   cfg->starvation_minutes;
	g_tally = cfg->fs_tres_n && cfg->weights.fairshare && cfg->fair_share;
	g_noting_starts = cfg->history_days && g_last_walk;
	/* Not while the last period had more jobs than the queue may hold:
	 * they would be noted under the job lock only to be dropped. */
	g_noting_queue = (cfg->metrics_dir != NULL) && cfg->queue_jobs &&
			 (g_last_jobs <= cfg->queue_jobs);
	g_queue_jobs = cfg->queue_jobs;
	g_queue_tres = cfg->weights.tres ? cfg->weights.tres_count : 0;
	g_cfg = cfg;
	_started_clear();	/* only this period's walk (not a reconfigure's) */
	for (int i = 0; i < LANES; i++) {
		g_lanes[i].n = g_lanes[i].jobs = 0;
		g_lanes[i].njobs = g_lanes[i].ntres = 0;
		g_lanes[i].over = false;
		g_lanes[i].tally_jobs = 0;
		memset(g_lanes[i].tres_jobs, 0, sizeof(g_lanes[i].tres_jobs));
		memset(g_lanes[i].tres_differ, 0,
		       sizeof(g_lanes[i].tres_differ));
	}
	t_lane = (g_noting || g_tally) ? &g_lanes[0] : NULL;
	_parts_clear();
}

extern bool fw_publish_noting(void)
{
	return g_noting;
}

extern bool fw_publish_noting_queue(void)
{
	return g_noting && g_noting_queue;
}

extern void fw_publish_lane(int lane)
{
	t_lane = ((g_noting || g_tally) && (lane >= 1) && (lane < LANES)) ?
		&g_lanes[lane] : NULL;
}

/* The job's detail for the queue: UINT32_MAX when not noted. */
static uint32_t _note_detail(lane_t *l, const job_record_t *job_ptr,
			     uint32_t priority)
{
	const fw_prio_factors_t *pf = job_ptr->prio_factors;
	const job_details_t *d = job_ptr->details;
	fairway_pending_job_t *j;

	if (!g_noting_queue || l->over)
		return UINT32_MAX;
	if (l->njobs >= g_queue_jobs) {
		l->over = true;
		return UINT32_MAX;
	}
	if (l->njobs == l->jobs_cap) {	/* grows with the queue */
		l->jobs_cap += l->jobs_cap / 4 + 1024;
		xrecalloc(l->jobv, l->jobs_cap, sizeof(*l->jobv));
	}
	j = &l->jobv[l->njobs];
	/* The lane's memory is cold after the seconds between two periods:
	 * ask for the lines a few jobs ahead while this one is written. */
	if (l->njobs + 8 < l->jobs_cap)
		__builtin_prefetch(&l->jobv[l->njobs + 8], 1);
	j->array_job_id = job_ptr->array_task_id == NO_VAL ?
		0 : job_ptr->array_job_id;
	j->priority = priority;
	j->accrue_time = d ? d->accrue_time : 0;
	j->min_cpus = d ? d->min_cpus : 0;
	j->max_cpus = d ? d->max_cpus : NO_VAL;
	j->min_nodes = d ? d->min_nodes : 0;
	j->time_limit = job_ptr->time_limit;
	j->admin = job_ptr->direct_set_prio || !pf;
	j->fairshare_tres = 0;
	if (g_cfg && g_cfg->fs_tres_n && pf) {
		double f;

		j->fairshare_tres = fw_job_tres_factor(g_cfg, job_ptr, &f) + 1;
	}
	j->age = pf ? pf->priority_age : 0;
	j->assoc = pf ? pf->priority_assoc : 0;
	j->fairshare = pf ? pf->priority_fs : 0;
	j->job_size = pf ? pf->priority_js : 0;
	j->qos = pf ? pf->priority_qos : 0;
	j->site = pf ? pf->priority_site : NICE_OFFSET;
	j->nice = d ? d->nice : NICE_OFFSET;
	j->tres_at = SIZE_MAX;
	if (g_queue_tres && pf && pf->priority_tres &&
	    (pf->tres_cnt >= g_queue_tres)) {
		if (l->ntres + g_queue_tres > l->tres_cap) {
			l->tres_cap += l->tres_cap / 4 + 1024 * g_queue_tres;
			xrecalloc(l->tres, l->tres_cap, sizeof(*l->tres));
		}
		for (size_t t = 0; t < g_queue_tres; t++)	/* a few */
			l->tres[l->ntres + t] = pf->priority_tres[t];
		j->tres_at = l->ntres;
		l->ntres += g_queue_tres;
	}
	return l->njobs++;
}

static inline __attribute__((always_inline)) void
_note(lane_t *l, const note_t *job, const void *part, uint32_t prio,
      bool first)
{
	note_t *n;

	if (l->n == l->cap) {	/* grows with the queue, never shrinks */
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
static void _tally(lane_t *l, const job_record_t *job_ptr)
{
	double f = 0;
	int k = fw_job_tres_factor(g_cfg, job_ptr, &f);

	l->tally_jobs++;
	if ((k < 0) || (k >= FAIRWAY_MAX_FAIRSHARE_TRES))
		return;
	if (!l->tres_jobs[k]++)
		l->tres_factor[k] = f;
	else if (f != l->tres_factor[k])
		l->tres_differ[k] = true;
}

extern void fw_publish_note(const job_record_t *job_ptr,
			    part_record_t *const *parts, int nparts,
			    const uint32_t *prio, int nqos, uint32_t priority)
{
	lane_t *l = t_lane;
	const job_details_t *d;
	note_t job = { 0 };

	/* Pending jobs only (CALCULATE_RUNNING weighs running ones too). */
	if (!l || !IS_JOB_PENDING(job_ptr))
		return;
	if (g_tally && !job_ptr->direct_set_prio)
		_tally(l, job_ptr);
	if (!g_noting)
		return;
	d = job_ptr->details;
	job.qos_id = job_ptr->qos_ptr ? job_ptr->qos_ptr->id : 0;
	job.submit = d ? (uint32_t) d->submit_time : 0;
	job.eligible = !d ? 0 : d->accrue_time ? (uint32_t) d->accrue_time :
		       (uint32_t) d->begin_time;
	job.assoc_id = job_ptr->assoc_id;
	job.job_id = job_ptr->job_id;
	job.resources = (job_ptr->state_reason == WAIT_RESOURCES);
	job.job = _note_detail(l, job_ptr, priority);
	l->jobs++;
	if (nparts <= 0) {
		_note(l, &job, job_ptr->part_ptr, priority, true);
		return;
	}
	for (int p = 0; p < nparts; p++) {
		uint32_t best = priority;

		if (prio) {
			best = prio[p * nqos];
			for (int q = 1; q < nqos; q++)
				if (prio[p * nqos + q] > best)
					best = prio[p * nqos + q];
		}
		_note(l, &job, parts[p], best, p == 0);
	}
}

static int _cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
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
	const fw_prio_factors_t *pf;
	const slurmdb_assoc_rec_t *assoc;
	fairway_started_job_t *s;
	uint32_t id;

	/* A job cancelled while pending gets start_time = end_time but no
	 * nodes: it never started.  Nothing else of the job is read before
	 * this test: it runs for every job of the walk under the job lock. */
	if (!g_noting_starts || IS_JOB_PENDING(job_ptr) ||
	    (job_ptr->start_time < g_last_walk) || (job_ptr->start_time > now) ||
	    !job_ptr->nodes || !job_ptr->nodes[0])
		return;
	pf = job_ptr->prio_factors;
	assoc = job_ptr->assoc_ptr;
	id = job_ptr->job_id;
	if ((!g_prev_n ||
	     !bsearch(&id, g_prev_ids, g_prev_n, sizeof(id), _cmp_id)) &&
	    (job_ptr->start_time == g_last_walk))
		return;
	if (g_started_n == g_started_cap) {
		g_started_cap += g_started_cap / 2 + 64;
		xrecalloc(g_started, g_started_cap, sizeof(*g_started));
	}
	s = &g_started[g_started_n++];
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

static int _foreach_part(void *x, void *arg)
{
	part_record_t *part = x;
	fairway_partition_info_t *info;
	size_t *i = arg;

	g_parts.ptr[*i] = part;
	g_parts.name[*i] = xstrdup(part->name);
	info = &g_parts.info[*i];
	info->priority_job_factor = part->priority_job_factor;
	info->norm_priority = part->norm_priority;
	info->priority_tier = part->priority_tier;
	info->total_cpus = part->total_cpus;
	info->total_nodes = part->total_nodes;
	(*i)++;
	return 0;
}

extern void fw_publish_partitions(void)
{
	size_t n = 0;

	/* Each hold that noted rows copies again: the last one is the one
	 * the rows' partition addresses belong to. */
	if (!g_noting || !part_list)
		return;
	_parts_clear();
	n = list_count(part_list);
	g_parts.ptr = xcalloc(n + 1, sizeof(*g_parts.ptr));
	g_parts.name = xcalloc(n + 1, sizeof(*g_parts.name));
	g_parts.info = xcalloc(n + 1, sizeof(*g_parts.info));
	n = 0;
	list_for_each(part_list, _foreach_part, &n);
	g_parts.n = n;
	g_parts.cluster_cpus = cluster_cpus;
	g_parts.cluster_nodes = FW_CLUSTER_NODES;
}

/* The association tree and QOS names, copied under assoc_mgr's read locks. */
typedef struct {
	fairway_assoc_t *assocs;
	size_t n;
	uint32_t *qos_ids;
	char **qos_names;
	fairway_qos_info_t *qos_info;
	size_t nqos;
	char **tres_names;	/* tres_count, with the queue */
	size_t tres_count;
	/* fairway_fairshare_tres: the listed TRES's names and (historical usage)
	 * each association's usage of each, [k * n + i]. */
	char *fs_tres[FAIRWAY_MAX_FAIRSHARE_TRES];
	int fs_tres_n;
	long double *fs_tres_usage;
} copy_t;

static void _copy_free(copy_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		char *account = (char *) c->assocs[i].account;
		char *user = (char *) c->assocs[i].user;

		xfree(account);
		xfree(user);
	}
	xfree(c->assocs);
	for (size_t i = 0; i < c->nqos; i++)
		xfree(c->qos_names[i]);
	xfree(c->qos_names);
	xfree(c->qos_ids);
	xfree(c->qos_info);
	for (size_t i = 0; i < c->tres_count; i++)
		xfree(c->tres_names[i]);
	xfree(c->tres_names);
	for (int k = 0; k < c->fs_tres_n; k++)
		xfree(c->fs_tres[k]);
	xfree(c->fs_tres_usage);
}

/* fairway_fairshare_tres: the names of the listed TRES and (historical usage)
 * every association's usage of each; with the assoc and TRES read locks. */
static void _copy_fs_tres_locked(copy_t *c, const fw_cfg_t *cfg)
{
	size_t i = 0;
	slurmdb_assoc_rec_t *assoc;
	list_itr_t *it;

	if (!cfg->fs_tres_n || !c->n || !assoc_mgr_tres_name_array)
		return;
	for (int k = 0; k < cfg->fs_tres_n; k++) {
		int pos = cfg->fs_tres_pos[k];

		if ((pos < 0) || (pos >= g_tres_count) ||
		    !assoc_mgr_tres_name_array[pos])
			return;	/* the TRES changed: the next period */
	}
	for (int k = 0; k < cfg->fs_tres_n; k++)
		c->fs_tres[k] = xstrdup(
			assoc_mgr_tres_name_array[cfg->fs_tres_pos[k]]);
	c->fs_tres_n = cfg->fs_tres_n;
	if (fw_cfg_held(cfg))
		return;
	c->fs_tres_usage = xcalloc(c->n * c->fs_tres_n + 1,
				   sizeof(*c->fs_tres_usage));
	/* The same walk as _copy_locked's, so that index i is c->assocs[i]. */
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(it)) && (i < c->n)) {
		const slurmdb_assoc_usage_t *u = assoc->usage;

		if (!u)
			continue;
		for (int k = 0; k < c->fs_tres_n; k++) {
			int pos = cfg->fs_tres_pos[k];

			if (u->usage_tres_raw && (pos < (int) u->tres_cnt))
				c->fs_tres_usage[k * c->n + i] =
					u->usage_tres_raw[pos];
		}
		i++;
	}
	list_iterator_destroy(it);
}

static void _copy_locked(copy_t *c)
{
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;
	size_t cnt;

	if (assoc_mgr_assoc_list && assoc_mgr_root_assoc) {
		cnt = list_count(assoc_mgr_assoc_list);
		c->assocs = xcalloc(cnt + 1, sizeof(*c->assocs));
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it)) && (c->n < cnt)) {
			fairway_assoc_t *a = &c->assocs[c->n];

			if (!assoc->usage)
				continue;
			a->id = assoc->id;
			a->parent_id = (assoc == assoc_mgr_root_assoc) ?
				0 : assoc->parent_id;
			a->account = xstrdup(assoc->acct);
			a->user = xstrdup(assoc->user);
			a->shares_parent =
				(assoc->shares_raw == SLURMDB_FS_USE_PARENT);
			a->shares_raw = a->shares_parent ? 0 : assoc->shares_raw;
			a->usage_raw = assoc->usage->usage_raw;
			c->n++;
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		cnt = list_count(assoc_mgr_qos_list);
		c->qos_ids = xcalloc(cnt + 1, sizeof(*c->qos_ids));
		c->qos_names = xcalloc(cnt + 1, sizeof(*c->qos_names));
		c->qos_info = xcalloc(cnt + 1, sizeof(*c->qos_info));
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it)) && (c->nqos < cnt)) {
			c->qos_ids[c->nqos] = qos->id;
			c->qos_names[c->nqos] = xstrdup(qos->name);
			c->qos_info[c->nqos].priority = qos->priority;
			c->qos_info[c->nqos].usage_factor = qos->usage_factor;
			c->nqos++;
		}
		list_iterator_destroy(it);
	}
	if (g_queue_tres && assoc_mgr_tres_name_array &&
	    (g_queue_tres <= g_tres_count)) {
		c->tres_names = xcalloc(g_queue_tres, sizeof(*c->tres_names));
		for (size_t i = 0; i < g_queue_tres; i++)
			c->tres_names[i] = xstrdup(assoc_mgr_tres_name_array[i]);
		c->tres_count = g_queue_tres;
	}
}

/* The partitions' indexes sorted by address, for _part_index. */
static uint32_t *g_part_order = NULL;

static int _cmp_part_order(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) g_parts.ptr[*(const uint32_t *) a];
	uintptr_t y = (uintptr_t) g_parts.ptr[*(const uint32_t *) b];

	return (x > y) - (x < y);
}

static void _part_order_build(void)
{
	xfree(g_part_order);
	g_part_order = xcalloc(g_parts.n + 1, sizeof(*g_part_order));
	for (uint32_t i = 0; i < g_parts.n; i++)
		g_part_order[i] = i;
	qsort(g_part_order, g_parts.n, sizeof(*g_part_order),
	      _cmp_part_order);
}

/* The index of the partition at `part`, UINT32_MAX: not in the copy. */
static uint32_t _part_index(const void *part)
{
	size_t lo = 0, hi = g_parts.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const void *at = g_parts.ptr[g_part_order[mid]];

		if (at == part)
			return g_part_order[mid];
		if ((uintptr_t) at < (uintptr_t) part)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

static uint32_t _qos_index(const copy_t *c, uint32_t id)
{
	for (size_t i = 0; id && (i < c->nqos); i++)
		if (c->qos_ids[i] == id)
			return i;
	return UINT32_MAX;
}

/* Log a failure when it starts or changes, and the recovery. */
static void _outcome(const char *dir, const char *failure)
{
	if (!failure) {
		if (g_last_failure)
			info("%s: fair-share published to %s again",
			     plugin_type, dir);
		xfree(g_last_failure);
		return;
	}
	if (g_last_failure && !xstrcmp(g_last_failure, failure))
		return;
	error("%s: fair-share not published to %s: %s; priorities are not affected, retried every period",
	      plugin_type, dir, failure);
	xfree(g_last_failure);
	g_last_failure = xstrdup(failure);
}

/* The jobs this period weighed, for the next period's starts. */
static void _prev_ids_keep(const fairway_pending_row_t *rows, size_t n,
			   time_t walk)
{
	g_prev_n = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].first)
			continue;
		if (g_prev_n == g_prev_cap) {
			g_prev_cap += g_prev_cap / 4 + 1024;
			xrecalloc(g_prev_ids, g_prev_cap, sizeof(*g_prev_ids));
		}
		g_prev_ids[g_prev_n++] = rows[i].job_id;
	}
	if (g_prev_n)
		qsort(g_prev_ids, g_prev_n, sizeof(*g_prev_ids), _cmp_id);
	g_last_walk = walk;
}

/*
 * fairway_fairshare_tres: a listed TRES that makes every job or every
 * association tie (every pending job judged by it, with one factor; or, with
 * a job judged by it, no association's usage of it), told once when it starts
 * and once when it ends.
 */
enum { TIE_NONE, TIE_JOBS, TIE_UNUSED };
static int g_tie[FAIRWAY_MAX_FAIRSHARE_TRES];
static char *g_tie_name[FAIRWAY_MAX_FAIRSHARE_TRES];

/* No association has used TRES k: none of its historical usage, or no
 * running job holds any of it (fairway_usage). */
static bool _tres_unused(fw_state_t *st, const fw_cfg_t *cfg, int k)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .tres = READ_LOCK };
	int pos = cfg->fs_tres_pos[k];
	slurmdb_assoc_rec_t *assoc;
	bool unused = true;
	list_itr_t *it;

	if (fw_cfg_held(cfg)) {
		size_t n = 0;
		const fairway_running_job_t *held = fw_held_tres_jobs(&st->held, k, &n);

		for (size_t i = 0; i < n; i++)
			if (held[i].charge_rate > 0)
				return false;
		return true;
	}
	assoc_mgr_lock(&locks);
	if (!assoc_mgr_assoc_list) {
		assoc_mgr_unlock(&locks);
		return false;
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while (unused && (assoc = list_next(it))) {
		const slurmdb_assoc_usage_t *u = assoc->usage;

		if (u && u->usage_tres_raw && (pos >= 0) &&
		    (pos < (int) u->tres_cnt) && (u->usage_tres_raw[pos] > 0))
			unused = false;
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	return unused;
}

static void _tell_ties(fw_state_t *st, const fw_cfg_t *cfg)
{
	uint64_t jobs = 0;

	for (int l = 0; l < LANES; l++)
		jobs += g_lanes[l].tally_jobs;
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++) {
		const char *name = (g_tally && (k < cfg->fs_tres_n)) ?
			cfg->fs_tres_name[k] : NULL;
		uint64_t judged = 0;
		bool differ = false;
		double f = 0;
		int tie = TIE_NONE;

		if (xstrcmp(name, g_tie_name[k])) {	/* another list */
			xfree(g_tie_name[k]);
			g_tie_name[k] = xstrdup(name);
			g_tie[k] = TIE_NONE;
		}
		if (!name)
			continue;
		for (int l = 0; l < LANES; l++) {
			const lane_t *ln = &g_lanes[l];

			if (!ln->tres_jobs[k])
				continue;
			if (!judged)
				f = ln->tres_factor[k];
			else if (ln->tres_factor[k] != f)
				differ = true;
			differ |= ln->tres_differ[k];
			judged += ln->tres_jobs[k];
		}
		if ((jobs > 1) && (judged == jobs) && !differ)
			tie = TIE_JOBS;
		else if (judged && _tres_unused(st, cfg, k))	/* a job it ties */
			tie = TIE_UNUSED;
		if (tie == g_tie[k])
			continue;
		if (tie == TIE_JOBS)
			info("%s: fairway_fairshare_tres: every pending job (%"PRIu64") is judged by its share of %s, and all get fair-share factor %.6f: fair-share orders none of them (a default a job is given, such as DefMemPerCPU or DefMemPerNode for mem, counts as asked for)",
			     plugin_type, jobs, name, f);
		else if (tie == TIE_UNUSED)
			info("%s: fairway_fairshare_tres: no association has used %s: every job judged by its share of %s gets the same fair-share factor",
			     plugin_type, name, name);
		else
			info("%s: fairway_fairshare_tres: %s tells jobs apart again",
			     plugin_type, name);
		g_tie[k] = tie;
	}
}

extern void fw_publish_end(fw_state_t *st, const fw_cfg_t *cfg, time_t now)
{
	/* The TRES names only with TRES weights (the queue's TRES factors). */
	assoc_mgr_lock_t read_locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
					.tres = (g_queue_tres || cfg->fs_tres_n) ?
						READ_LOCK : NO_LOCK };
	/* Each listed TRES's held jobs, copied (fw_held_tres_jobs reuses its
	 * buffer). */
	fairway_running_job_t *tres_running[FAIRWAY_MAX_FAIRSHARE_TRES] = { 0 };
	size_t tres_running_n[FAIRWAY_MAX_FAIRSHARE_TRES];
	fairway_publication_t p = { 0 };
	fairway_pending_row_t *rows = NULL;
	fairway_pending_job_t *jobs = NULL;
	double *tres = NULL;
	bool queue = g_noting_queue;
	copy_t c = { 0 };
	size_t nrows = 0, r = 0;
	uint64_t noted = 0;
	bool over = false;
	const char *where = cfg->metrics_dir ? cfg->metrics_dir :
			    slurm_conf.state_save_location;
	char *history = NULL;
	fairway_error_t err;

	t_lane = NULL;
	g_cfg = NULL;
	_tell_ties(st, cfg);
	for (int l = 0; l < LANES; l++) {
		nrows += g_lanes[l].n;
		noted += g_lanes[l].jobs;
		over |= g_lanes[l].over;
	}
	if (!g_noting ||
	    !(cfg->metrics_dir || cfg->history_days || cfg->starvation_minutes))
		return;
	g_noting = false;

	assoc_mgr_lock(&read_locks);
	_copy_locked(&c);
	_copy_fs_tres_locked(&c, cfg);
	assoc_mgr_unlock(&read_locks);

	if (!c.n) {
		_outcome(where, "no association tree (is slurmdbd reachable?)");
		_copy_free(&c);
		_started_clear();
		return;
	}
	g_last_jobs = noted;
	/* The queue, when every job's details were noted: not with more
	 * jobs than fairway_queue_jobs (one line per episode). */
	if (cfg->metrics_dir && cfg->queue_jobs &&
	    ((g_last_jobs > cfg->queue_jobs) || over)) {
		queue = false;
		if (!g_queue_over_told)
			info("%s: %"PRIu64" pending jobs, more than fairway_queue_jobs=%u: %s/fairway.json holds the association tree only%s until they are fewer",
			     plugin_type, g_last_jobs, cfg->queue_jobs,
			     cfg->metrics_dir,
			     cfg->shadow_file ? " and the shadow policy is not weighed" : "");
		g_queue_over_told = true;
	} else if (queue) {
		g_queue_over_told = false;
	}
	/* TRES weights whose names could not be copied (never seen): the
	 * jobs' TRES factors could not be named. */
	if (queue && g_queue_tres && (c.tres_count != g_queue_tres))
		queue = false;
	if (queue) {
		size_t nj = 0, nt = 0;

		for (int l = 0; l < LANES; l++) {
			nj += g_lanes[l].njobs;
			nt += g_lanes[l].ntres;
		}

		jobs = xcalloc(nj + 1, sizeof(*jobs));
		tres = xcalloc(nt + 1, sizeof(*tres));
		for (size_t l = 0, j = 0, t = 0; l < LANES; l++) {
			/* (A lane that noted nothing may have no buffer.) */
			if (g_lanes[l].njobs)
				memcpy(jobs + j, g_lanes[l].jobv,
				       g_lanes[l].njobs * sizeof(*jobs));
			for (size_t i = 0; i < g_lanes[l].njobs; i++) {
				if (jobs[j + i].tres_at != SIZE_MAX)
					jobs[j + i].tres_at += t;
				/* The listed TRES could not be copied
				 * (changed since the walk): none judged. */
				if (!c.fs_tres_n)
					jobs[j + i].fairshare_tres = 0;
			}
			if (g_lanes[l].ntres)
				memcpy(tres + t, g_lanes[l].tres,
				       g_lanes[l].ntres * sizeof(*tres));
			j += g_lanes[l].njobs;
			t += g_lanes[l].ntres;
		}
		p.jobs = jobs;
		p.job_count = nj;
		p.tres_values = tres;
		p.tres_value_count = nt;
		p.partition_info = g_parts.info;
		p.qos_info = c.qos_info;
		p.weights = &cfg->weights;
		p.decay_half_life = slurm_conf.priority_decay_hl;
		p.calc_period = slurm_conf.priority_calc_period;
		p.cluster_cpus = g_parts.cluster_cpus;
		p.cluster_nodes = g_parts.cluster_nodes;
		p.tres_names = (const char *const *) c.tres_names;
		p.shadow_file = cfg->shadow_file;
	}
	rows = xcalloc(nrows + 1, sizeof(*rows));
	_part_order_build();
	for (int l = 0, job_base = 0; l < LANES;
	     job_base += g_lanes[l].njobs, l++) {
		for (size_t i = 0; i < g_lanes[l].n; i++) {
			const note_t *n = &g_lanes[l].v[i];
			uint32_t part = _part_index(n->part);

			if (part == UINT32_MAX)
				continue;
			rows[r].partition = part;
			rows[r].qos = _qos_index(&c, n->qos_id);
			rows[r].priority = n->priority;
			rows[r].first = n->first;
			rows[r].submit_time = n->submit;
			rows[r].assoc_id = n->assoc_id;
			rows[r].job_id = n->job_id;
			rows[r].eligible_time = n->eligible;
			rows[r].waits_for_resources = n->resources;
			rows[r].job = (!queue || (n->job == UINT32_MAX)) ?
				UINT32_MAX : job_base + n->job;
			r++;
		}
	}
	p.directory = cfg->metrics_dir;
	if (cfg->history_days) {
		history = xstrdup_printf("%s/fairway_history",
					 cfg->metrics_dir ? cfg->metrics_dir :
					 slurm_conf.state_save_location);
		p.history_dir = history;
		p.history_days = cfg->history_days;
	}
	p.slurm_release = SLURM_VERSION_STRING;
	p.lineage_order = FW_SLURM_AT_LEAST(23, 11);
	p.algo = cfg->algo;
	p.decay_exact = cfg->decay_exact;
	p.usage_basis = cfg->usage_basis;
	if (fw_cfg_held(cfg))
		p.running = fw_held_jobs(&st->held, &p.running_count);
	if (c.fs_tres_n) {
		p.fairshare_tres = (const char *const *) c.fs_tres;
		p.fairshare_tres_count = c.fs_tres_n;
		p.fairshare_tres_usage = c.fs_tres_usage;
		if (fw_cfg_held(cfg)) {
			for (int k = 0; k < c.fs_tres_n; k++) {
				const fairway_running_job_t *held =
					fw_held_tres_jobs(&st->held, k, &tres_running_n[k]);

				tres_running[k] = xcalloc(
					tres_running_n[k] + 1,
					sizeof(*tres_running[k]));
				if (tres_running_n[k])
					memcpy(tres_running[k], held,
					       tres_running_n[k] *
					       sizeof(*held));
			}
			p.fairshare_tres_running =
				(const fairway_running_job_t *const *)
				tres_running;
			p.fairshare_tres_running_count = tres_running_n;
		}
	}
	p.dampening = cfg->damp;
	p.assocs = c.assocs;
	p.assoc_count = c.n;
	p.partitions = (const char *const *) g_parts.name;
	p.partition_count = g_parts.n;
	p.qos = (const char *const *) c.qos_names;
	p.qos_count = c.nqos;
	p.rows = rows;
	p.row_count = r;
	p.period_end = time(NULL);
	p.period_seconds = _seconds_since(&st->period_begin);
	p.job_lock_seconds = st->job_lock_seconds;
	p.jobs_weighed = g_last_jobs;
	p.started = g_started;
	p.started_count = g_started_n;
	p.starvation_minutes = cfg->starvation_minutes;
	p.starvation_quantile = cfg->starvation_quantile;

	if (!g_publisher && (fairway_publisher_new(&g_publisher) != FAIRWAY_OK))
		error("%s: %s: starvation episodes are not followed",
		      plugin_type, fairway_last_error());
	err = fairway_publish(g_publisher, &p, _say_starvation, NULL);
	_outcome(where, (err == FAIRWAY_OK) ? NULL : fairway_last_error());
	/* After a failure the next period notes the starts since this
	 * period's predecessor again: none is lost. */
	if (err == FAIRWAY_OK)
		_prev_ids_keep(rows, r, now);
	_started_clear();
	xfree(history);
	xfree(rows);
	xfree(jobs);
	xfree(tres);
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++)
		xfree(tres_running[k]);
	_copy_free(&c);
}

extern void fw_publish_free(void)
{
	for (int i = 0; i < LANES; i++) {
		xfree(g_lanes[i].v);
		g_lanes[i].n = g_lanes[i].cap = 0;
		xfree(g_lanes[i].jobv);
		g_lanes[i].njobs = g_lanes[i].jobs_cap = 0;
		xfree(g_lanes[i].tres);
		g_lanes[i].ntres = g_lanes[i].tres_cap = 0;
	}
	_parts_clear();
	xfree(g_part_order);
	_started_clear();
	xfree(g_started);
	g_started_cap = 0;
	xfree(g_prev_ids);
	g_prev_n = g_prev_cap = 0;
	g_last_walk = 0;
	xfree(g_last_failure);
	fairway_publisher_destroy(&g_publisher);
	g_noting = false;
	g_tally = false;
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++) {
		xfree(g_tie_name[k]);
		g_tie[k] = TIE_NONE;
	}
}
