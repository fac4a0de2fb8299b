/*****************************************************************************\
 *  period.c - one calculation period and the thread that runs one every
 *  PriorityCalcPeriod: usage reset if due, decay, running jobs charged,
 *  fair-share computed, every pending job weighed, restart state written, in
 *  multifactor's order and under slurmctld's locks (doc/architecture.md).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/* Release the job write lock of a step that weighed jobs, once publishing
 * has copied what it must under it. */
static void _job_unlock_weighed(fw_state_t *st)
{
	fw_publish_copy_locked(st->publish);
	fw_job_write_unlock(&st->job_lock);
}

/* Every job's priority, under the job write lock (assoc read lock inside it,
 * the order slurmctld uses). */
static void _weigh_all_jobs(fw_state_t *st, const fw_cfg_t *cfg, time_t now)
{
	assoc_mgr_lock_t assoc_read = { .assoc = READ_LOCK, .qos = READ_LOCK };
	/* classic and depth-oblivious: the jobs the charging pass would weigh
	 * (a recalculation, a period without fair-share) */
	bool in_order = (cfg->algo != FAIRWAY_ALGO_FAIR_TREE);
	fw_collect_t c = { st, cfg, now, false, 0, false, in_order };

	fw_job_write_lock(&st->job_lock);
	if (job_list) {
		assoc_mgr_lock(&assoc_read);
		list_for_each(job_list, fw_collect_job, &c);
		fw_weigh_collected(&st->pool, cfg, &st->fs, now, c.n,
				   in_order ? FW_WEIGH_IN_ORDER :
					      FW_WEIGH_FROM_TABLE);
		assoc_mgr_unlock(&assoc_read);
	}
	_job_unlock_weighed(st);
}

static double _ms(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}

/*
 * One walk of job_list under walk_locks with c (charging running jobs when
 * c->charge, noting what they hold under fairway_usage), then the tree
 * computed (with fair-share on) and the collected jobs weighed under the
 * assoc and QOS read locks; the three steps' times logged.  Caller holds the
 * job write lock, so the list is walked once under it (multifactor walks it
 * twice and takes the job write lock twice, for longer in all); assoc locks
 * inside the job lock: slurmctld's order.  Returns the fair-share result.
 */
static int _walk_and_weigh(fw_collect_t *c, assoc_mgr_lock_t *walk_locks,
			   const char *walk)
{
	assoc_mgr_lock_t assoc_read = { .assoc = READ_LOCK, .qos = READ_LOCK };
	struct timespec t0, t1, t2, t3;
	int rc = SLURM_SUCCESS;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fw_held_reset(&c->st->held);
	if (job_list) {
		assoc_mgr_lock(walk_locks);
		list_for_each(job_list, fw_collect_job, c);
		assoc_mgr_unlock(walk_locks);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (c->st->fair_share)
		rc = fw_fair_share_locked(&c->st->fs, &c->st->held, c->cfg,
					  false);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (c->n) {
		assoc_mgr_lock(&assoc_read);
		fw_weigh_collected(&c->st->pool, c->cfg, &c->st->fs, c->now,
				   c->n, FW_WEIGH_FROM_TABLE);
		assoc_mgr_unlock(&assoc_read);
	}
	clock_gettime(CLOCK_MONOTONIC, &t3);
	log_flag(
		PRIO,
		"%s: %ld: job list walk (%s) %.3f ms, fair-share %.3f ms, weighing %zu jobs %.3f ms",
		plugin_type, (long) c->now, walk, _ms(t0, t1), _ms(t1, t2),
		c->n, _ms(t2, t3));
	return rc;
}

/*
 * A period without fair-share (24.11 on: no slurmdbd, or no root association;
 * FW_THREAD_WITHOUT_FAIR_SHARE): the site factor updated, from the second
 * period on (multifactor's first period skips to weighing), then every job
 * weighed.  There is no association to charge or decay, and no state file is
 * written: the usage file of an earlier run with slurmdbd stays as it was.
 */
static void _period_without_fair_share(fw_state_t *st, const fw_cfg_t *cfg,
				       time_t now)
{
	if (st->site_factor && st->last_ran &&
	    (difftime(now, st->last_ran) > 0)) {
		fw_job_write_lock(&st->job_lock);
		site_factor_g_update();
		fw_job_write_unlock(&st->job_lock);
	}
	_weigh_all_jobs(st, cfg, now);
	st->last_ran = now;
}

/* The period's start, for its record; publishing notes from here on. */
static void _begin(fw_state_t *st, const fw_cfg_t *cfg, fw_period_record_t *rec,
		   time_t now)
{
	rec->now = now;
	clock_gettime(CLOCK_MONOTONIC, &rec->begin);
	fw_job_lock_timing_reset(&st->job_lock);
	fw_publish_begin(&st->publish, cfg);
}

/* The decay state and restored usage (first period), the TRES run seconds
 * running jobs used before the last period released (slurmctld reserved
 * their whole time limit at start) before this period charges them again
 * (once, and not after a reconfigure released them already), and the decay
 * settings after a reconfigure. */
static void _load_once(fw_state_t *st, time_t now)
{
	if (!st->loaded)
		fw_period_state_load(st, now, false);
	if (st->run_secs_pending) {
		fw_init_grp_used_tres_run_secs(st);
		st->run_secs_pending = false;
	}
	if (__atomic_exchange_n(&st->reconfig, false, __ATOMIC_ACQ_REL))
		fw_decay_settings_read(st);
}

static void _reset_if_due(fw_state_t *st, time_t now)
{
	if (fairway_reset_due(&st->reset, now))
		fw_usage_reset(st);
}

/* Stored usage decayed over the time since the last period. */
static void _decay(fw_state_t *st, time_t now)
{
	double decay;
	double run_delta = difftime(now, st->last_ran);

	__atomic_load(&st->decay_factor, &decay, __ATOMIC_RELAXED);
	fw_usage_decay(st, fairway_period_decay(decay, run_delta));
}

/* Under one job write lock: the site factor updated and (classic, one job at
 * a time) each job charged and weighed. */
static void _charge_and_weigh(fw_state_t *st, const fw_cfg_t *cfg, time_t now,
			      bool one_walk)
{
	fw_job_write_lock(&st->job_lock);
	if (st->site_factor)
		site_factor_g_update();
	if (!one_walk)
		fw_charge_and_weigh_all(st, cfg, now);
	if (!one_walk)
		st->charged_to = now;
	_job_unlock_weighed(st);
}

/* Fair Tree, or classic collecting first: running jobs charged in one walk,
 * the tree computed, the collected jobs weighed, all under the job write
 * lock that also makes charged_to consistent with job ends. */
static int _charge_walk_and_weigh(fw_state_t *st, const fw_cfg_t *cfg,
				  time_t now)
{
	fw_collect_t c = { st, cfg, now, true, 0 };
	int rc;

	fw_job_write_lock(&st->job_lock);
	rc = _walk_and_weigh(&c, &fw_charge_locks, "charging, collecting");
	st->charged_to = now;
	_job_unlock_weighed(st);
	return rc;
}

/* No charging pass ran (classic, first period or clock not moved): job ends
 * charge from here on.  Written only by periods (st->calc_lock held), so
 * reading it here needs no job lock. */
static void _charged_to_now(fw_state_t *st, time_t now)
{
	if (st->charged_to != now) {
		fw_job_write_lock(&st->job_lock);
		st->charged_to = now;
		fw_job_write_unlock(&st->job_lock);
	}
}

static void _save(fw_state_t *st, time_t now)
{
	st->last_ran = now;
	fw_usage_save(st, now);
	fw_decay_state_write(st);
}

/* The period's record handed to publishing, after every lock. */
static void _publish(fw_state_t *st, const fw_cfg_t *cfg,
		     fw_period_record_t *rec)
{
	rec->job_lock_seconds = st->job_lock.seconds;
	rec->held = &st->held;
	fw_publish_end(st->publish, cfg, rec);
}

/*
 * A period with fair-share, in multifactor's order: usage reset if due;
 * (classic) account fair-share; decay of stored usage; then either (classic)
 * each job charged and weighed in one pass, or (Fair Tree, and classic under
 * fairway_usage=allocated|committed or fairway_fairshare_tres) all jobs
 * charged, the tree computed, all jobs weighed; finally the state file.
 */
static int _period_with_fair_share(fw_state_t *st, const fw_cfg_t *cfg,
				   time_t now)
{
	/* Fair Tree, or classic comparing held usage (which must be collected
	 * before any account is computed) or the usage of listed TRES (whose
	 * trees are computed whole, not user by user when a job is weighed, and
	 * so after this period's charges): charge and collect in one walk,
	 * compute the tree, weigh the collected jobs. */
	bool one_walk = (cfg->algo == FAIRWAY_ALGO_FAIR_TREE) ||
		fw_cfg_held(cfg) || cfg->fs_tres_n;
	int rc = SLURM_SUCCESS;

	_load_once(st, now);
	_reset_if_due(st, now);
	if (!one_walk && st->fair_share)
		rc = fw_fair_share_locked(&st->fs, &st->held, cfg, true);
	if (st->last_ran && (difftime(now, st->last_ran) > 0)) {
		_decay(st, now);
		_charge_and_weigh(st, cfg, now, one_walk);
	}
	if (one_walk)
		rc = _charge_walk_and_weigh(st, cfg, now);
	if (FW_CLASSIC_STORES_FS_FACTOR && !one_walk && st->fair_share)
		fw_store_jobs_fs_factors(cfg);
	_charged_to_now(st, now);
	_save(st, now);
	return rc;
}

/* One period at `now`, then what it publishes, outside slurmctld's locks.
 * Each step takes its own locks.  Caller holds st->calc_lock. */
extern int fw_period(fw_state_t *st, time_t now)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	fw_period_record_t rec;
	int rc = SLURM_SUCCESS;

	_begin(st, cfg, &rec, now);
	if (st->fair_share)
		rc = _period_with_fair_share(st, cfg, now);
	else
		_period_without_fair_share(st, cfg, now);
	_publish(st, cfg, &rec);
	fw_cfg_put(cfg);
	return rc;
}

/*
 * fairway_usage=allocated|committed between periods: one walk of job_list
 * notes what the running jobs hold now and collects the weighable jobs (no
 * usage charged, no start noted, nothing published), fair-share is computed
 * from it, and the collected jobs are weighed; all under one job write lock,
 * as a Fair Tree period.  Caller holds st->calc_lock.
 */
static int _rerank_held(fw_state_t *st, const fw_cfg_t *cfg, time_t now)
{
	fw_collect_t c = { st, cfg, now, false, 0, true };
	assoc_mgr_lock_t note_locks = { .assoc = READ_LOCK,
					.qos = READ_LOCK,
					.tres = READ_LOCK };
	int rc;

	fw_job_write_lock(&st->job_lock);
	rc = _walk_and_weigh(&c, &note_locks, "noting what running jobs hold");
	fw_job_write_unlock(&st->job_lock);
	return rc;
}

/* Fair-share and every pending job's priority recomputed without decay or
 * charges; under a held usage basis from what running jobs hold now.  Caller
 * holds st->calc_lock. */
static int _recalc_locked(fw_state_t *st, time_t now)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	int rc = SLURM_SUCCESS;

	if (st->fair_share && fw_cfg_held(cfg)) {
		rc = _rerank_held(st, cfg, now);
	} else {
		if (st->fair_share)
			rc = fw_fair_share_locked(&st->fs, &st->held, cfg,
						  false);
		_weigh_all_jobs(st, cfg, now);
	}
	fw_cfg_put(cfg);
	return rc;
}

extern int fw_recalc(fw_state_t *st, time_t now)
{
	int rc;

	slurm_mutex_lock(&st->calc_lock);
	rc = _recalc_locked(st, now);
	slurm_mutex_unlock(&st->calc_lock);
	return rc;
}

/* The calculation thread's calls (fairway_period_clock.h), under calc_lock. */
static void _clock_period(time_t start, void *arg)
{
	(void) fw_period(arg, start);
}

static uint32_t _clock_calc_period(void *arg)
{
	(void) arg;
	return slurm_conf.priority_calc_period;
}

/* fairway_rerank_interval under a held usage basis, once the first period has
 * loaded the state and with fair-share; else 0. */
static uint32_t _clock_rerank_interval(void *arg)
{
	fw_state_t *st = arg;
	const fw_cfg_t *cfg;
	uint32_t iv;

	if (!st->loaded || !st->fair_share)
		return 0;
	cfg = fw_cfg_get();
	iv = fw_cfg_held(cfg) ? cfg->opt.rerank_interval : 0;
	fw_cfg_put(cfg);
	return iv;
}

static void _clock_rerank(time_t now, void *arg)
{
	(void) _recalc_locked(arg, now);
}

extern void fw_calc_thread_start(fw_state_t *st)
{
	fairway_period_clock_calls_t calls = { _clock_period,
					       _clock_calc_period,
					       _clock_rerank_interval,
					       _clock_rerank, st };
	fairway_error_t err;

	if (st->clock)
		return;
	err = fairway_period_clock_start(&st->calc_lock, &calls, "fairway",
					 &st->clock);
	if (err != FAIRWAY_OK)
		error("%s: the calculation thread cannot start (%s: %s): priorities are set at submission only, not recalculated",
		      plugin_type, fairway_strerror(err), fairway_last_error());
}

extern void fw_calc_thread_stop(fw_state_t *st)
{
	fairway_period_clock_stop(&st->clock);
}

/* Charge and weigh every job as one pass job after job would (classic's
 * period; init without slurmdbd): each running job charged and what weighing
 * computes on demand computed as the walk collects the jobs, then the
 * collected jobs weighed in the pool.  The caller holds the job write lock;
 * the assoc and QOS write locks are held for the walk and the weighing both
 * (multifactor takes them per job; one lock around the pass is the same
 * sequence of values, and keeps one lock order for every pass over job_list:
 * assoc_mgr's locks, then the list's). */
extern void fw_charge_and_weigh_all(fw_state_t *st, const fw_cfg_t *cfg,
				    time_t now)
{
	fw_collect_t c = { st, cfg, now, true, 0, false, true };

	if (!job_list)
		return;
	assoc_mgr_lock(&fw_charge_locks);
	list_for_each(job_list, fw_collect_job, &c);
	fw_weigh_collected(&st->pool, cfg, &st->fs, now, c.n,
			   FW_WEIGH_IN_ORDER);
	assoc_mgr_unlock(&fw_charge_locks);
}
