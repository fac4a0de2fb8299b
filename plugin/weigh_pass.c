/*****************************************************************************\
 *  weigh_pass.c - Fair Tree's weighing pass: the weighable jobs collected in one
 *  walk of job_list (which also charges running jobs), then weighed by a pool of
 *  threads under the calculation thread's locks, with software prefetch.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
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
 * only grows), cuts it into as many consecutive ranges as threads take part,
 * hands ranges 1.. to the pool's threads and weighs range 0 itself; thread k
 * notes its rows in publishing's lane k, so the lanes in order hold the jobs
 * in job_list's order.  How many threads: PriorityParameters
 * fairway_weigh_threads, else FAIRWAY_WEIGH_THREADS in slurmctld's
 * environment, else the CPUs slurmctld may run on (its affinity mask), at
 * most FW_WEIGH_DEFAULT_MAX.  A pass gives each thread at least half of
 * FAIRWAY_PARALLEL_MIN_JOBS jobs (default 4096), so a pass of fewer stays
 * serial.  The pool's threads start at the first pass that needs them and
 * stay until fini.
 */
#define FW_WEIGH_DEFAULT_MAX 16
static int g_env_threads = 0;		/* FAIRWAY_WEIGH_THREADS, 0: none */
static int g_default_threads = 1;	/* the CPUs we may run on, capped */
static size_t g_parallel_min_jobs = 4096;
static job_record_t **g_weigh_jobs = NULL;
static size_t g_weigh_cap = 0;

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_work_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done_cond = PTHREAD_COND_INITIALIZER;
static pthread_t g_pool_thread[FW_WEIGH_MAX_THREADS];
static int g_pool_started = 0;	/* threads 1 .. g_pool_started are running */
/* The passes handed out before thread k started (what it has seen). */
static uint64_t g_pool_seen0[FW_WEIGH_MAX_THREADS];
static bool g_pool_stop = false;
static bool g_pool_told = false;	/* a thread that could not start, logged */
static struct {
	uint64_t posted;	/* passes handed out */
	int parts;		/* threads taking part, the calculation thread too */
	int running;		/* pool threads of this pass not done yet */
	const fw_cfg_t *cfg;
	fw_publish_t *pub;	/* the calculation thread's publishing */
	time_t now;
	size_t n;		/* jobs of the pass */
	bool changed;
} g_pass;

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
_prefetch_record(const job_record_t *j, bool noting, bool queue)
{
	__builtin_prefetch(&j->assoc_ptr);
	__builtin_prefetch(&j->details);
	__builtin_prefetch(&j->job_state);
	__builtin_prefetch(&j->part_ptr_list);
	__builtin_prefetch(&j->qos_ptr);
	__builtin_prefetch(&j->site_factor);
	__builtin_prefetch(&j->total_cpus);
	if (noting)	/* the lines only publishing reads (fw_publish_note) */
		__builtin_prefetch(&j->job_id);
	if (queue)	/* and, for the queue's details, the array ids */
		__builtin_prefetch(&j->array_task_id);
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
	bool queue = fw_publish_noting_queue();

	for (size_t i = begin; i < end; i++) {
		if (i + PF_RECORD < end)
			_prefetch_record(g_weigh_jobs[i + PF_RECORD], noting,
					 queue);
		if (i + PF_POINTED < end)
			_prefetch_pointed(g_weigh_jobs[i + PF_POINTED], noting);
		if (fw_weigh_job(cfg, g_weigh_jobs[i], now, true, true))
			changed = true;
	}
	return changed;
}

/* Thread k's range of a pass of n jobs cut into parts. */
static inline size_t _range_begin(size_t n, int parts, int k)
{
	return (size_t) (((uint64_t) n * (uint64_t) k) / (uint64_t) parts);
}

static void *_pool_main(void *arg)
{
	int k = (int) (intptr_t) arg;
	uint64_t seen = g_pool_seen0[k];
	char name[16];

	snprintf(name, sizeof(name), "fw_weigh%d", k);
	(void) prctl(PR_SET_NAME, name, NULL, NULL, NULL);
	slurm_mutex_lock(&g_pool_lock);
	while (!g_pool_stop) {
		const fw_cfg_t *cfg;
		fw_publish_t *pub;
		time_t now;
		size_t begin, end;
		bool changed;

		if (g_pass.posted == seen) {
			slurm_cond_wait(&g_work_cond, &g_pool_lock);
			continue;
		}
		seen = g_pass.posted;
		if (k >= g_pass.parts)	/* not needed for this pass */
			continue;
		cfg = g_pass.cfg;
		pub = g_pass.pub;
		now = g_pass.now;
		begin = _range_begin(g_pass.n, g_pass.parts, k);
		end = _range_begin(g_pass.n, g_pass.parts, k + 1);
		slurm_mutex_unlock(&g_pool_lock);

		fw_publish_lane(pub, k);
		changed = _weigh_range(cfg, now, begin, end);
		fw_publish_lane(pub, -1);

		slurm_mutex_lock(&g_pool_lock);
		g_pass.changed |= changed;
		if (--g_pass.running == 0)
			slurm_cond_signal(&g_done_cond);
	}
	slurm_mutex_unlock(&g_pool_lock);
	return NULL;
}

/* Have threads 1 .. want - 1 running; how many threads can take part (the
 * calculation thread and those running). */
static int _pool_grow(int want)
{
	while (g_pool_started < want - 1) {
		int k = g_pool_started + 1;

		/* Only the calculation thread hands out passes. */
		g_pool_seen0[k] = g_pass.posted;
		if (pthread_create(&g_pool_thread[k], NULL, _pool_main,
				   (void *) (intptr_t) k)) {
			/* Once until a thread starts again. */
			if (!g_pool_told)
				error("%s: cannot start weighing thread %d (%m): weighing in %d",
				      plugin_type, k, g_pool_started + 1);
			g_pool_told = true;
			break;
		}
		g_pool_told = false;
		g_pool_started = k;
	}
	return (g_pool_started + 1 < want) ? g_pool_started + 1 : want;
}

static void _pool_stop(void)
{
	if (!g_pool_started)
		return;
	slurm_mutex_lock(&g_pool_lock);
	g_pool_stop = true;
	slurm_cond_broadcast(&g_work_cond);
	slurm_mutex_unlock(&g_pool_lock);
	for (int k = 1; k <= g_pool_started; k++)
		pthread_join(g_pool_thread[k], NULL);
	g_pool_started = 0;
	g_pool_stop = false;
}

/* The threads a pass may use: fairway_weigh_threads, FAIRWAY_WEIGH_THREADS,
 * the default. */
static int _threads_wanted(const fw_cfg_t *cfg)
{
	int n = cfg->weigh_threads ? (int) cfg->weigh_threads :
		g_env_threads ? g_env_threads : g_default_threads;

	return (n < FW_WEIGH_MAX_THREADS) ? n : FW_WEIGH_MAX_THREADS;
}

extern int fw_collect_job(void *x, void *arg)
{
	fw_collect_t *c = arg;
	/* Fair Tree weighs every weighable job, finished ones included;
	 * classic (collected under fairway_usage or fairway_fairshare_tres)
	 * only those its charging pass weighs. */
	bool classic = (c->cfg->algo != FAIRWAY_ALGO_FAIR_TREE), weighs;

	if (c->charge)
		weighs = fw_charge_running_job(c->st, c->cfg, x, c->now, true);
	else
		weighs = !classic || fw_classic_weighs(c->st, c->cfg, x);
	if ((c->charge || c->rerank) && fw_cfg_held(c->cfg))
		fw_held_note(c->cfg, x, c->now);
	if (!c->rerank)
		fw_publish_note_started(x, c->now);
	if ((classic && !weighs) || !fw_weighable(c->cfg, x))
		return 0;
	if (c->n == g_weigh_cap) {	/* grows with the queue, never shrinks */
		g_weigh_cap += g_weigh_cap / 4 + 1024;
		xrecalloc(g_weigh_jobs, g_weigh_cap, sizeof(*g_weigh_jobs));
	}
	g_weigh_jobs[c->n++] = x;
	return 0;
}

/* Weigh the n jobs collected in g_weigh_jobs, under Fair Tree in the pool's
 * threads from g_parallel_min_jobs on (classic, collected under fairway_usage:
 * one).  Caller holds the job write lock and the assoc and QOS read locks. */
extern void fw_weigh_collected(const fw_cfg_t *cfg, time_t now, size_t n)
{
	size_t per = (g_parallel_min_jobs + 1) / 2;	/* jobs per thread, at least */
	size_t most = n / per;
	int parts = _threads_wanted(cfg);
	bool changed;

	if ((size_t) parts > most)
		parts = (int) most;
	/* Classic (collected under fairway_usage): one thread, see above. */
	if ((parts < 2) || (n < g_parallel_min_jobs) ||
	    (cfg->algo != FAIRWAY_ALGO_FAIR_TREE) ||
	    ((parts = _pool_grow(parts)) < 2)) {
		if (_weigh_range(cfg, now, 0, n))
			last_job_update = time(NULL);
		return;
	}

	slurm_mutex_lock(&g_pool_lock);
	g_pass.cfg = cfg;
	g_pass.pub = fw_publish_current();
	g_pass.now = now;
	g_pass.n = n;
	g_pass.parts = parts;
	g_pass.running = parts - 1;
	g_pass.changed = false;
	g_pass.posted++;
	slurm_cond_broadcast(&g_work_cond);
	slurm_mutex_unlock(&g_pool_lock);

	changed = _weigh_range(cfg, now, 0, _range_begin(n, parts, 1));

	slurm_mutex_lock(&g_pool_lock);
	while (g_pass.running)
		slurm_cond_wait(&g_done_cond, &g_pool_lock);
	changed |= g_pass.changed;
	slurm_mutex_unlock(&g_pool_lock);
	if (changed)
		last_job_update = time(NULL);
	log_flag(PRIO, "%s: weighed %zu jobs in %d threads", plugin_type, n,
		 parts);
}

/* The CPUs this process may run on (its affinity mask), or those online. */
static int _cpus_usable(void)
{
	cpu_set_t set;
	long online;

	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return (online > 0) ? (int) online : 1;
}

/* The default thread count, FAIRWAY_WEIGH_THREADS and
 * FAIRWAY_PARALLEL_MIN_JOBS from the environment. */
extern void fw_weigh_pass_configure(void)
{
	const char *v;
	char *end;
	long n;

	g_default_threads = _cpus_usable();
	if (g_default_threads > FW_WEIGH_DEFAULT_MAX)
		g_default_threads = FW_WEIGH_DEFAULT_MAX;
	g_env_threads = 0;
	g_parallel_min_jobs = 4096;
	if ((v = getenv("FAIRWAY_WEIGH_THREADS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 1) ||
		    (n > FW_WEIGH_MAX_THREADS))
			error("%s: FAIRWAY_WEIGH_THREADS='%s' is not a number of threads from 1 to %d, using %d",
			      plugin_type, v, FW_WEIGH_MAX_THREADS,
			      g_default_threads);
		else
			g_env_threads = n;
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

/* Stop the pool's threads and free the job array (fini; no period runs). */
extern void fw_weigh_pass_free(void)
{
	_pool_stop();
	xfree(g_weigh_jobs);
	g_weigh_cap = 0;
}
