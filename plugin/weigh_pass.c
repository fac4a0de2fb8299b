/*****************************************************************************\
 *  weigh_pass.c - Fair Tree's weighing pass: the weighable jobs collected in one
 *  walk of job_list (which also charges running jobs), then weighed in one or
 *  two threads under the calculation thread's locks, with software prefetch.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fairway_plugin.h"

/*
 * Parallel weighing (Fair Tree only).  Weighing a job reads its record, its
 * association, QOS and partitions and writes only the job's own priority,
 * prio_factors and priority_array, so jobs can be weighed by several threads
 * at once while the calculation thread holds the job write lock and the assoc
 * read lock on their behalf (nobody else can change what they read).  Not in
 * classic mode: there a job's fair-share factor may first compute and store
 * its association's effective usage (multifactor's on-demand
 * priority_p_set_assoc_usage), a write shared between jobs.
 *
 * The calculation thread collects the weighable jobs into g_weigh_jobs (which
 * only grows), hands the second half to a helper thread and weighs the first
 * half itself.  FAIRWAY_WEIGH_THREADS=1 in slurmctld's environment turns it
 * off (default: 2 when more than one CPU is online); passes with fewer than
 * FAIRWAY_PARALLEL_MIN_JOBS weighable jobs (default 4096) stay serial.
 */
static int g_weigh_threads = 1;
static size_t g_parallel_min_jobs = 4096;
static job_record_t **g_weigh_jobs = NULL;
static size_t g_weigh_cap = 0;

static pthread_mutex_t g_helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_helper_cond = PTHREAD_COND_INITIALIZER;
static pthread_t g_helper_thread;
static bool g_helper_started = false, g_helper_stop = false;
static struct {
	uint64_t posted, done;	/* tasks handed out / finished */
	const fw_cfg_t *cfg;
	time_t now;
	size_t begin, end;	/* range of g_weigh_jobs */
	bool changed;
} g_helper;

/*
 * Software prefetch for the weighing pass.  The pass is bound by memory: per
 * job about a dozen cache lines of records scattered over the heap (the job
 * record, its details, its association and usage, its prio_factors).  Walking
 * an array of job pointers lets the loop ask for them ahead of use, in two
 * stages: the job record's lines PF_RECORD jobs ahead; the records it points
 * to (details, prio_factors) PF_POINTED ahead, once the pointers are in cache.
 * The association's fair-share factor comes from g_fs_slots.  With
 * publishing on, the lines only fw_publish_note reads are asked for too.
 *
 * always_inline: GCC 12 at -O2 otherwise finds a helper that only prefetches
 * free of side effects and drops its calls before inlining them, prefetches
 * and all (the plugin built before 2026-11-25 had none of _prefetch_pointed's).
 */
#define PF_RECORD 12
#define PF_POINTED 6

static inline __attribute__((always_inline)) void
_prefetch_record(const job_record_t *j, bool noting)
{
	__builtin_prefetch(&j->assoc_ptr);
	__builtin_prefetch(&j->details);
	__builtin_prefetch(&j->job_state);
	__builtin_prefetch(&j->part_ptr_list);
	__builtin_prefetch(&j->qos_ptr);
	__builtin_prefetch(&j->site_factor);
	__builtin_prefetch(&j->total_cpus);
	if (noting) {	/* the lines only publishing reads (fw_publish_note) */
		__builtin_prefetch(&j->array_task_id);
		__builtin_prefetch(&j->job_id);
	}
}

static inline __attribute__((always_inline)) void
_prefetch_pointed(const job_record_t *j, bool noting)
{
	if (j->details) {
		__builtin_prefetch(&j->details->accrue_time);
		__builtin_prefetch(&j->details->min_cpus);
		if (noting)
			__builtin_prefetch(&j->details->submit_time);
	}
	if (j->prio_factors) {
		const char *pf = (const char *) j->prio_factors;
		__builtin_prefetch(pf, 1);
		__builtin_prefetch(pf + 64, 1);
		__builtin_prefetch(pf + sizeof(*j->prio_factors) - 1, 1);
	}
}


static bool _weigh_range(const fw_cfg_t *cfg, time_t now, size_t begin,
			 size_t end)
{
	bool changed = false, noting = fw_publish_noting();

	for (size_t i = begin; i < end; i++) {
		if (i + PF_RECORD < end)
			_prefetch_record(g_weigh_jobs[i + PF_RECORD], noting);
		if (i + PF_POINTED < end)
			_prefetch_pointed(g_weigh_jobs[i + PF_POINTED], noting);
		if (fw_weigh_job(cfg, g_weigh_jobs[i], now, true, true))
			changed = true;
	}
	return changed;
}

static void *_helper_main(void *arg)
{
	uint64_t seen = 0;

	(void) prctl(PR_SET_NAME, "fw_weigh", NULL, NULL, NULL);
	slurm_mutex_lock(&g_helper_lock);
	while (!g_helper_stop) {
		const fw_cfg_t *cfg;
		time_t now;
		size_t begin, end;
		bool changed;

		if (g_helper.posted == seen) {
			slurm_cond_wait(&g_helper_cond, &g_helper_lock);
			continue;
		}
		seen = g_helper.posted;
		cfg = g_helper.cfg;
		now = g_helper.now;
		begin = g_helper.begin;
		end = g_helper.end;
		slurm_mutex_unlock(&g_helper_lock);

		fw_publish_lane(1);
		changed = _weigh_range(cfg, now, begin, end);
		fw_publish_lane(-1);

		slurm_mutex_lock(&g_helper_lock);
		g_helper.changed = changed;
		g_helper.done = seen;
		slurm_cond_broadcast(&g_helper_cond);
	}
	slurm_mutex_unlock(&g_helper_lock);
	return NULL;
}

/* Start the helper once; false (serial passes) if it cannot be started. */
static bool _helper_start(void)
{
	if (g_helper_started)
		return true;
	g_helper_stop = false;
	if (pthread_create(&g_helper_thread, NULL, _helper_main, NULL)) {
		error("%s: cannot start the weighing helper thread (%m), weighing jobs in one thread",
		      plugin_type);
		g_weigh_threads = 1;
		return false;
	}
	g_helper_started = true;
	return true;
}

static void _helper_stop(void)
{
	if (!g_helper_started)
		return;
	slurm_mutex_lock(&g_helper_lock);
	g_helper_stop = true;
	slurm_cond_broadcast(&g_helper_cond);
	slurm_mutex_unlock(&g_helper_lock);
	pthread_join(g_helper_thread, NULL);
	g_helper_started = false;
}

extern int fw_collect_job(void *x, void *arg)
{
	fw_collect_t *c = arg;

	if (c->charge)
		(void) fw_charge_running_job(c->st, c->cfg, x, c->now, true);
	if ((c->charge || c->rerank) && fw_cfg_held(c->cfg))
		fw_held_note(c->cfg, x, c->now);
	if (!c->rerank)
		fw_publish_note_started(x, c->now);
	if (!fw_weighable(c->cfg, x))
		return 0;
	if (c->n == g_weigh_cap) {	/* grows with the queue, never shrinks */
		g_weigh_cap += g_weigh_cap / 4 + 1024;
		xrecalloc(g_weigh_jobs, g_weigh_cap, sizeof(*g_weigh_jobs));
	}
	g_weigh_jobs[c->n++] = x;
	return 0;
}

/* Weigh the n jobs collected in g_weigh_jobs, under Fair Tree in two threads
 * from g_parallel_min_jobs on (classic, collected under fairway_usage: one).  Caller holds the job write lock
 * and the assoc and QOS read locks. */
extern void fw_weigh_collected(const fw_cfg_t *cfg, time_t now, size_t n)
{
	size_t half;
	bool changed;

	/* Classic (collected under fairway_usage): one thread, see above. */
	if ((g_weigh_threads < 2) || (n < g_parallel_min_jobs) ||
	    (cfg->algo != FAIRWAY_ALGO_FAIR_TREE) || !_helper_start()) {
		if (_weigh_range(cfg, now, 0, n))
			last_job_update = time(NULL);
		return;
	}

	half = n / 2;
	slurm_mutex_lock(&g_helper_lock);
	g_helper.cfg = cfg;
	g_helper.now = now;
	g_helper.begin = half;
	g_helper.end = n;
	g_helper.posted++;
	slurm_cond_broadcast(&g_helper_cond);
	slurm_mutex_unlock(&g_helper_lock);

	changed = _weigh_range(cfg, now, 0, half);

	slurm_mutex_lock(&g_helper_lock);
	while (g_helper.done != g_helper.posted)
		slurm_cond_wait(&g_helper_cond, &g_helper_lock);
	changed |= g_helper.changed;
	slurm_mutex_unlock(&g_helper_lock);
	if (changed)
		last_job_update = time(NULL);
	log_flag(PRIO, "%s: weighed %zu jobs in two threads", plugin_type, n);
}

/* FAIRWAY_WEIGH_THREADS and FAIRWAY_PARALLEL_MIN_JOBS from the environment. */
extern void fw_weigh_pass_configure(void)
{
	const char *v;
	char *end;
	long n;

	g_weigh_threads = (sysconf(_SC_NPROCESSORS_ONLN) > 1) ? 2 : 1;
	g_parallel_min_jobs = 4096;
	if ((v = getenv("FAIRWAY_WEIGH_THREADS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 1) || (n > 2))
			error("%s: FAIRWAY_WEIGH_THREADS='%s' is not 1 or 2, using %d",
			      plugin_type, v, g_weigh_threads);
		else
			g_weigh_threads = n;
	}
	if ((v = getenv("FAIRWAY_PARALLEL_MIN_JOBS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 2))
			error("%s: FAIRWAY_PARALLEL_MIN_JOBS='%s' is not a number of at least 2, using %zu",
			      plugin_type, v, g_parallel_min_jobs);
		else
			g_parallel_min_jobs = n;
	}
}

/* Stop the helper thread and free the job array (fini; no period runs). */
extern void fw_weigh_pass_free(void)
{
	_helper_stop();
	xfree(g_weigh_jobs);
	g_weigh_cap = 0;
}
