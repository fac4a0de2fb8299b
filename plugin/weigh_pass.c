/*****************************************************************************\
 *  weigh_pass.c - Fair Tree's weighing pass: the weighable jobs collected in one
 *  walk of job_list (which also charges running jobs), then weighed by a pool of
 *  threads under the calculation thread's locks, with software prefetch.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
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
 * The pool (fw_pool_t, a part of the plugin's state) holds the threads and
 * the jobs: the calculation thread collects the weighable jobs into
 * pool->jobs (which only grows), cuts it into as many consecutive ranges
 * as threads take part,
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

/*
 * Software prefetch for the weighing pass.  The pass is bound by memory: per
 * job about a dozen cache lines of records scattered over the heap (the job
 * record, its details, its association and usage, its prio_factors).  Walking
 * an array of job pointers lets the loop ask for them ahead of use, in two
 * stages: the job record's lines PF_RECORD jobs ahead; the records it points
 * to (details, prio_factors) PF_POINTED ahead, once the pointers are in cache.
 * The association's fair-share factor comes from fs->slots.  With
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
	if (noting) /* the lines only publishing reads (fw_publish_note) */
		__builtin_prefetch(&j->job_id);
	if (queue) /* and, for the queue's details, the array ids */
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


static bool _weigh_range(job_record_t **jobs, const fw_cfg_t *cfg,
			 const fw_fs_table_t *fs, time_t now, size_t begin,
			 size_t end)
{
	bool changed = false, noting = fw_publish_noting();
	bool queue = fw_publish_noting_queue();

	for (size_t i = begin; i < end; i++) {
		if (i + PF_RECORD < end)
			_prefetch_record(jobs[i + PF_RECORD], noting, queue);
		if (i + PF_POINTED < end)
			_prefetch_pointed(jobs[i + PF_POINTED], noting);
		if (fw_weigh_job(cfg, fs, jobs[i], now, true, true))
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
	fw_pool_worker_t *w = arg;
	fw_pool_t *pool = w->pool;
	int k = w->k;
	uint64_t seen = pool->seen0[k];
	char name[16];

	snprintf(name, sizeof(name), "fw_weigh%d", k);
	(void) prctl(PR_SET_NAME, name, NULL, NULL, NULL);
	slurm_mutex_lock(&pool->lock);
	while (!pool->stop) {
		const fw_cfg_t *cfg;
		fw_publish_t *pub;
		time_t now;
		size_t begin, end;
		bool changed;

		if (pool->pass.posted == seen) {
			slurm_cond_wait(&pool->work_cond, &pool->lock);
			continue;
		}
		seen = pool->pass.posted;
		if (k >= pool->pass.parts) /* not needed for this pass */
			continue;
		cfg = pool->pass.cfg;
		pub = pool->pass.pub;
		now = pool->pass.now;
		begin = _range_begin(pool->pass.n, pool->pass.parts, k);
		end = _range_begin(pool->pass.n, pool->pass.parts, k + 1);
		slurm_mutex_unlock(&pool->lock);

		fw_publish_lane(pub, k);
		changed = _weigh_range(pool->jobs, cfg, pool->pass.fs, now,
				       begin, end);
		fw_publish_lane(pub, -1);

		slurm_mutex_lock(&pool->lock);
		pool->pass.changed |= changed;
		if (--pool->pass.running == 0)
			slurm_cond_signal(&pool->done_cond);
	}
	slurm_mutex_unlock(&pool->lock);
	return NULL;
}

/* Have threads 1 .. want - 1 running; how many threads can take part (the
 * calculation thread and those running). */
static int _pool_grow(fw_pool_t *pool, int want)
{
	while (pool->started < want - 1) {
		int k = pool->started + 1;

		/* Only the calculation thread hands out passes. */
		pool->seen0[k] = pool->pass.posted;
		pool->worker[k].pool = pool;
		pool->worker[k].k = k;
		if (pthread_create(&pool->thread[k], NULL, _pool_main,
				   &pool->worker[k])) {
			/* Once until a thread starts again. */
			if (!pool->told)
				error("%s: cannot start weighing thread %d (%m): weighing in %d",
				      plugin_type, k, pool->started + 1);
			pool->told = true;
			break;
		}
		pool->told = false;
		pool->started = k;
	}
	return (pool->started + 1 < want) ? pool->started + 1 : want;
}

static void _pool_stop(fw_pool_t *pool)
{
	if (!pool->started)
		return;
	slurm_mutex_lock(&pool->lock);
	pool->stop = true;
	slurm_cond_broadcast(&pool->work_cond);
	slurm_mutex_unlock(&pool->lock);
	for (int k = 1; k <= pool->started; k++)
		pthread_join(pool->thread[k], NULL);
	pool->started = 0;
	pool->stop = false;
}

/* The threads a pass may use: fairway_weigh_threads, FAIRWAY_WEIGH_THREADS,
 * the default. */
static int _threads_wanted(const fw_pool_t *pool, const fw_cfg_t *cfg)
{
	int n = cfg->weigh_threads ? (int) cfg->weigh_threads :
		pool->env_threads  ? pool->env_threads :
				     pool->default_threads;

	return (n < FW_WEIGH_MAX_THREADS) ? n : FW_WEIGH_MAX_THREADS;
}

extern int fw_collect_job(void *x, void *arg)
{
	fw_collect_t *c = arg;
	fw_pool_t *pool = &c->st->pool;
	/* Fair Tree weighs every weighable job, finished ones included;
	 * classic (collected under fairway_usage or fairway_fairshare_tres)
	 * only those its charging pass weighs. */
	bool classic = (c->cfg->algo != FAIRWAY_ALGO_FAIR_TREE), weighs;

	if (c->charge)
		weighs = fw_charge_running_job(c->st, c->cfg, x, c->now, true);
	else
		weighs = !classic || fw_classic_weighs(c->st, c->cfg, x);
	if ((c->charge || c->rerank) && fw_cfg_held(c->cfg))
		fw_held_note(&c->st->held, c->cfg, x, c->now);
	if (!c->rerank)
		fw_publish_note_started(x, c->now);
	if ((classic && !weighs) || !fw_weighable(c->cfg, x))
		return 0;
	if (c->n == pool->cap) { /* grows with the queue only */
		pool->cap += pool->cap / 4 + 1024;
		xrecalloc(pool->jobs, pool->cap, sizeof(*pool->jobs));
	}
	pool->jobs[c->n++] = x;
	return 0;
}

/* Weigh the n jobs collected in pool->jobs, under Fair Tree in the pool's
 * threads from pool->parallel_min_jobs on (classic, collected under
 * fairway_usage: one).  Caller holds the job write lock and the assoc and QOS
 * read locks. */
extern void fw_weigh_collected(fw_pool_t *pool, const fw_cfg_t *cfg,
			       const fw_fs_table_t *fs, time_t now, size_t n)
{
	/* jobs per thread, at least */
	size_t per = (pool->parallel_min_jobs + 1) / 2;
	size_t most = n / per;
	int parts = _threads_wanted(pool, cfg);
	bool changed;

	if ((size_t) parts > most)
		parts = (int) most;
	/* Classic (collected under fairway_usage): one thread, see above. */
	if ((parts < 2) || (n < pool->parallel_min_jobs) ||
	    (cfg->algo != FAIRWAY_ALGO_FAIR_TREE) ||
	    ((parts = _pool_grow(pool, parts)) < 2)) {
		if (_weigh_range(pool->jobs, cfg, fs, now, 0, n))
			last_job_update = time(NULL);
		return;
	}

	slurm_mutex_lock(&pool->lock);
	pool->pass.cfg = cfg;
	pool->pass.fs = fs;
	pool->pass.pub = fw_publish_current();
	pool->pass.now = now;
	pool->pass.n = n;
	pool->pass.parts = parts;
	pool->pass.running = parts - 1;
	pool->pass.changed = false;
	pool->pass.posted++;
	slurm_cond_broadcast(&pool->work_cond);
	slurm_mutex_unlock(&pool->lock);

	changed = _weigh_range(pool->jobs, cfg, fs, now, 0,
			       _range_begin(n, parts, 1));

	slurm_mutex_lock(&pool->lock);
	while (pool->pass.running)
		slurm_cond_wait(&pool->done_cond, &pool->lock);
	changed |= pool->pass.changed;
	slurm_mutex_unlock(&pool->lock);
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

/* The pool's lock and conditions, no thread; the default thread count,
 * FAIRWAY_WEIGH_THREADS and FAIRWAY_PARALLEL_MIN_JOBS from the environment. */
extern void fw_weigh_pass_configure(fw_pool_t *pool)
{
	const char *v;
	char *end;
	long n;

	slurm_mutex_init(&pool->lock);
	slurm_cond_init(&pool->work_cond, NULL);
	slurm_cond_init(&pool->done_cond, NULL);

	pool->default_threads = _cpus_usable();
	if (pool->default_threads > FW_WEIGH_DEFAULT_MAX)
		pool->default_threads = FW_WEIGH_DEFAULT_MAX;
	pool->env_threads = 0;
	pool->parallel_min_jobs = 4096;
	if ((v = getenv("FAIRWAY_WEIGH_THREADS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 1) ||
		    (n > FW_WEIGH_MAX_THREADS))
			error("%s: FAIRWAY_WEIGH_THREADS='%s' is not a number of threads from 1 to %d, using %d",
			      plugin_type, v, FW_WEIGH_MAX_THREADS,
			      pool->default_threads);
		else
			pool->env_threads = n;
	}
	if ((v = getenv("FAIRWAY_PARALLEL_MIN_JOBS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 2))
			error("%s: FAIRWAY_PARALLEL_MIN_JOBS='%s' is not a number of at least 2, using %zu",
			      plugin_type, v, pool->parallel_min_jobs);
		else
			pool->parallel_min_jobs = n;
	}
}

/* Stop the pool's threads and free the job array (fini; no period runs). */
extern void fw_weigh_pass_free(fw_pool_t *pool)
{
	_pool_stop(pool);
	xfree(pool->jobs);
	pool->cap = 0;
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->work_cond);
	pthread_cond_destroy(&pool->done_cond);
}
