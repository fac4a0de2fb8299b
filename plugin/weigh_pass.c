/*****************************************************************************\
 *  weigh_pass.c - the weighing pass: the weighable jobs collected in one walk
 *  of job_list (which also charges running jobs), then weighed by a pool of
 *  threads under the calculation thread's locks, with software prefetch.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fairway_plugin.h"

/*
 * Weighing a job reads its record, association, QOS and partitions and writes
 * only the job's own priority, prio_factors and priority array, so the pool's
 * threads weigh consecutive ranges of the collected jobs at once while the
 * calculation thread holds the job write lock and the assoc read lock for
 * them; lane k's range is noted in publishing's lane k, so the lanes in order
 * hold the jobs in job_list's order.  What classic and depth-oblivious compute
 * on demand (a write shared between jobs, whose value depends on when it
 * happens) is computed before, in the calculation thread, job after job
 * (fw_job_fs_prepare); the threads only look factors up (doc/architecture.md,
 * step 6).
 *
 * Software prefetch: the pass is bound by memory, about a dozen cache lines
 * per job scattered over the heap.  The job record's lines are asked for
 * PF_RECORD jobs ahead, the records it points to (details, prio_factors)
 * PF_POINTED ahead, once the pointers are in cache; with publishing on, the
 * lines only fw_publish_note reads too.  always_inline: GCC 12 at -O2 drops
 * the calls of a helper that only prefetches before inlining it.
 */
#define PF_RECORD 12
#define PF_POINTED 6

static inline __attribute__((always_inline)) void
_prefetch_record(const job_record_t *j, bool ids, bool queue)
{
	__builtin_prefetch(&j->assoc_ptr);
	__builtin_prefetch(&j->details);
	__builtin_prefetch(&j->job_state);
	__builtin_prefetch(&j->part_ptr_list);
	__builtin_prefetch(&j->qos_ptr);
	__builtin_prefetch(&j->site_factor);
	__builtin_prefetch(&j->total_cpus);
	if (ids) { /* the lines only publishing reads (fw_publish_note) */
		__builtin_prefetch(&j->job_id);
		__builtin_prefetch(&j->state_reason);
	}
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


/* known: classic's and depth-oblivious's factors noted beside the jobs (NULL:
 * Fair Tree's are looked up in the table). */
static bool _weigh_range(job_record_t **jobs, const double *known,
			 const fw_cfg_t *cfg, const fw_fs_table_t *fs,
			 bool fs_slots, time_t now, size_t begin, size_t end)
{
	bool changed = false, noting = fw_publish_noting();
	bool ids = fw_publish_noting_ids(), queue = fw_publish_noting_queue();

	for (size_t i = begin; i < end; i++) {
		const double *k = (known && !isnan(known[i])) ? &known[i] :
								NULL;

		if (i + PF_RECORD < end)
			_prefetch_record(jobs[i + PF_RECORD], ids, queue);
		if (i + PF_POINTED < end)
			_prefetch_pointed(jobs[i + PF_POINTED], noting);
		if (fw_weigh_job(cfg, fs, jobs[i], now, true, fs_slots, k))
			changed = true;
	}
	return changed;
}

/* Weigh lane k's range of the pass in pool (fairway_weigh_range_fn). */
static int _weigh_lane(void *arg, int lane, size_t begin, size_t end)
{
	fw_pool_t *pool = arg;
	bool changed;

	if (lane)
		fw_publish_lane(pool->pub, lane);
	changed = _weigh_range(pool->jobs, pool->use_known ? pool->known : NULL,
			       pool->cfg, pool->fs, pool->fs_slots, pool->now,
			       begin, end);
	if (lane)
		fw_publish_lane(pool->pub, -1);
	return changed;
}

/* Collected job i's on-demand fair-share computed now, its factor kept
 * beside it for the weighing (classic and depth-oblivious). */
static void _note_known(fw_pool_t *pool, const fw_cfg_t *cfg, fw_fs_table_t *fs,
			size_t i)
{
	double f = fw_job_fs_prepare(cfg, fs, pool->jobs[i]);

	if (i < pool->known_cap)
		pool->known[i] = f;
}

extern int fw_collect_job(void *x, void *arg)
{
	fw_collect_t *c = arg;
	fw_pool_t *pool = &c->st->pool;
	/* Fair Tree weighs every weighable job, finished ones included;
	 * classic (collected under fairway_usage or fairway_fairshare_tres)
	 * only those its charging pass weighs. */
	bool classic = (c->cfg->algo != FAIRWAY_ALGO_FAIR_TREE) || c->in_order;
	bool weighs;

	if (c->charge)
		weighs = fw_charge_running_job(c->st, c->cfg, x, c->now, true);
	else
		weighs = !classic || fw_classic_weighs(c->st, c->cfg, x);
	if ((c->charge || c->rerank) && !c->in_order && fw_cfg_held(c->cfg))
		fw_held_note(&c->st->held, c->cfg, x, c->now);
	/* Starts only where a period published before (st->publish). */
	if (!c->rerank && c->st->publish)
		fw_publish_note_started(x, c->now);
	if ((classic && !weighs) || !fw_weighable(c->cfg, x))
		return 0;
	if (c->n == pool->cap) { /* grows with the queue only */
		pool->cap += pool->cap / 4 + 1024;
		xrecalloc(pool->jobs, pool->cap, sizeof(*pool->jobs));
	}
	/* Classic: the noted factors beside the jobs (Fair Tree's come from
	 * the tree computed after the walk). */
	if ((c->cfg->algo != FAIRWAY_ALGO_FAIR_TREE) &&
	    (pool->known_cap < pool->cap)) {
		pool->known_cap = pool->cap;
		xrecalloc(pool->known, pool->known_cap, sizeof(*pool->known));
	}
	pool->jobs[c->n++] = x;
	if (c->in_order)
		_note_known(pool, c->cfg, &c->st->fs, c->n - 1);
	return 0;
}

/* Weigh the n jobs collected in pool->jobs in the pool's threads; the factors
 * noted for the pass are forgotten after.  Caller holds the job write lock and
 * the assoc and QOS read (or write) locks. */
extern void fw_weigh_collected(fw_pool_t *pool, const fw_cfg_t *cfg,
			       fw_fs_table_t *fs, time_t now, size_t n,
			       fw_weigh_how_t how)
{
	bool classic = (cfg->algo != FAIRWAY_ALGO_FAIR_TREE);
	int changed = 0, parts = 1;

	/* Fair Tree collected in order (a period without slurmdbd) reads each
	 * association, as multifactor's pass does. */
	pool->fs_slots = (how == FW_WEIGH_FROM_TABLE) || classic;
	pool->use_known = classic && (pool->known_cap >= n);
	if ((how == FW_WEIGH_FROM_TABLE) && classic)
		for (size_t i = 0; i < n; i++)
			_note_known(pool, cfg, fs, i);
	pool->cfg = cfg;
	pool->fs = fs;
	pool->pub = fw_publish_current();
	pool->now = now;
	/* Without the pool (it could not be made): in this thread. */
	if (!pool->threads)
		changed = _weigh_lane(pool, 0, 0, n);
	else
		(void) fairway_weigh_pool_run(pool->threads, n,
					      cfg->opt.weigh_threads, 1,
					      _weigh_lane, pool, &changed,
					      &parts);
	fairway_fair_share_table_forget_noted(fs->table);
	if (changed)
		last_job_update = time(NULL);
	if (parts > 1)
		log_flag(PRIO, "%s: weighed %zu jobs in %d threads",
			 plugin_type, n, parts);
}

/* The pool, no thread yet; FAIRWAY_WEIGH_THREADS and FAIRWAY_PARALLEL_MIN_JOBS
 * from the environment. */
extern void fw_weigh_pass_configure(fw_pool_t *pool)
{
	fairway_error_t err =
		fairway_weigh_pool_create(getenv("FAIRWAY_WEIGH_THREADS"),
					  getenv("FAIRWAY_PARALLEL_MIN_JOBS"),
					  fw_say_error, NULL, &pool->threads);

	if (err != FAIRWAY_OK)
		error("%s: no weighing threads, weighing in one: %s: %s",
		      plugin_type, fairway_strerror(err), fairway_last_error());
}

/* Stop the pool's threads and free the job array (fini; no period runs). */
extern void fw_weigh_pass_free(fw_pool_t *pool)
{
	fairway_weigh_pool_destroy(&pool->threads);
	xfree(pool->jobs);
	xfree(pool->known);
	pool->cap = pool->known_cap = 0;
}
