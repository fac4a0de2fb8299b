/*****************************************************************************\
 *  priority_fairway.c - priority/fairway: a drop-in replacement for Slurm's
 *  priority/multifactor plugin.  What Slurm's plugin loader sees: the plugin's
 *  identity, init and fini, and the priority_p_* entry points, each handing
 *  the work to the file named after it (doc/architecture.md has the map).
 *
 *  The files of plugin/ are the only code of Fairway that sees Slurm's internal
 *  headers.  They copy what the core needs out of slurmctld (jobs,
 *  associations, settings) under Slurm's locks, call the C API of
 *  lib/capi/fairway.h and write the results back where sshare and sprio read
 *  them (assoc->usage, job->priority, job->prio_factors).
 *
 *  Entry points follow the loader of this Slurm version (slurm_priority.c,
 *  later src/interfaces/priority.c), guarded by SLURM_VERSION_NUMBER where its
 *  list changed: 23.02 added priority_p_recover and passed
 *  get_priority_factors_list sprio's request only from older clients,
 *  23.11.6 added priority_p_thread_start, 24.05 gave
 *  get_priority_factors_list only the uid, 25.11 dropped
 *  priority_p_calc_fs_factor.  Every other difference between releases is in
 *  slurm_compat.h.
 *
 *  Two test hooks are exported, documented in priority_fairway(8):
 *  priority_fairway_recalc(now) and priority_fairway_cycle(now) run a
 *  recalculation or a whole period synchronously, under the thread's locks.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

const char plugin_name[] = "Priority FAIRWAY plugin";
const char plugin_type[] = "priority/fairway";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The core's special values and reset periods must be Slurm's (fairway.h does
 * not include Slurm). */
_Static_assert(FAIRWAY_NO_VAL == NO_VAL, "NO_VAL");
_Static_assert(FAIRWAY_INFINITE == INFINITE, "INFINITE");
_Static_assert(FAIRWAY_NICE_OFFSET == NICE_OFFSET, "NICE_OFFSET");
_Static_assert((int) FAIRWAY_RESET_NOW == PRIORITY_RESET_NOW, "RESET_NOW");
_Static_assert((int) FAIRWAY_RESET_YEARLY == PRIORITY_RESET_YEARLY,
	       "RESET_YEARLY");

/* Everything the plugin keeps from one period to the next: one instance,
 * handed to every file that uses it (Slurm's entry points take no context, so
 * they reach it here).  init sets it up, fini frees each part and zeroes it. */
static fw_state_t g_state = {
	.calc_lock = PTHREAD_MUTEX_INITIALIZER,
	.fair_share = true,
	.decay_factor = 1.0,
};

/* The state as init finds it: never used, or zeroed by fini. */
static void _state_init(fw_state_t *st)
{
	slurm_mutex_init(&st->calc_lock);
	st->fair_share = true;
	st->decay_factor = 1.0;
	fw_weigh_pass_configure(&st->pool);
	fw_sprio_kept_init(&st->sprio_kept);
}

extern int priority_fairway_recalc(time_t now)
{
	return fw_recalc(&g_state, now);
}

extern int priority_fairway_cycle(time_t now)
{
	int rc;

	slurm_mutex_lock(&g_state.calc_lock);
	rc = fw_period(&g_state, now);
	slurm_mutex_unlock(&g_state.calc_lock);
	return rc;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 6)
/* slurmctld calls init, then this once it is ready for threads. */
extern void priority_p_thread_start(void)
{
	if (g_state.thread_wanted)
		fw_calc_thread_start(&g_state);
}
#endif

/* Without slurmdbd: every job charged and weighed once, under the job write
 * lock, when slurmctld has loaded its jobs. */
static void _weigh_all_jobs(fw_state_t *st)
{
	slurmctld_lock_t job_write_lock = { .job = WRITE_LOCK,
					    .node = READ_LOCK,
					    .part = READ_LOCK };
	const fw_cfg_t *cfg = fw_cfg_get();

	lock_slurmctld(job_write_lock);
	fw_charge_and_weigh_all(st, cfg, time(NULL));
	unlock_slurmctld(job_write_lock);
	fw_cfg_put(cfg);
}

extern int init(void)
{
	fw_state_t *st = &g_state;

	_state_init(st);

	/* Loaded outside slurmctld (sshare, a test harness): no thread. */
	if (cluster_cpus == NO_VAL) {
		fw_settings_read(&st->settings_log, true);
		debug("%s: loaded outside slurmctld, no calculation thread",
		      plugin_type);
		return SLURM_SUCCESS;
	}

	/* Before the calculation thread can start (22.05 and 23.11.0-23.11.5
	 * start it below): a period reads st->site_factor. */
	if (fw_site_factor_init() == SLURM_SUCCESS)
		st->site_factor = true;
	else
		error("%s: the site_factor plugin (PrioritySiteFactorPlugin=%s) failed to start: jobs get no site factor",
		      plugin_type, slurm_conf.site_factor_plugin);

	if (!slurm_with_slurmdbd()) {
		if (slurm_conf.priority_weight_age)
			error("PriorityWeightAge can only be used with SlurmDBD, ignoring");
		if (slurm_conf.priority_weight_fs)
			error("PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
		st->fair_share = false;
		fw_settings_read(&st->settings_log, false);
		st->thread_wanted = FW_THREAD_WITHOUT_FAIR_SHARE;
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
		/* 23.02 on: in priority_p_recover, once jobs are loaded. */
		_weigh_all_jobs(st);
#endif
	} else if (assoc_mgr_root_assoc) {
		assoc_mgr_lock_t assoc_write = { .assoc = WRITE_LOCK };

		fw_settings_read(&st->settings_log, true);
		assoc_mgr_lock(&assoc_write);
		assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
		assoc_mgr_unlock(&assoc_write);
		/* Before any job can end: priority_p_job_end charges from the
		 * last period, so it must be known (as multifactor waits for
		 * its thread to read it).  Without calc_lock: the calculation
		 * thread starts after this, and slurmctld calls nothing else of
		 * the plugin before init returns; taken here, under the job
		 * lock the caller holds from 23.11 on, it would be ordered
		 * after that lock, against the calculation thread's order. */
		fw_period_state_load(st, time(NULL), FW_INIT_CALLER_LOCKS);
		st->run_secs_pending = true;
		if (FW_LOADER_THREAD_START)
			st->thread_wanted = true; /* priority_p_thread_start */
		else
			fw_calc_thread_start(st);
	} else {
		/*
		 * multifactor calls fatal() here when PriorityWeightFairshare
		 * is set; Fairway never stops slurmctld: it disables the
		 * fair-share factor and says why.
		 */
		if (slurm_conf.priority_weight_fs)
			error("%s: no association data from the database: the fair-share factor is disabled until slurmctld restarts with a working slurmdbd",
			      plugin_type);
		st->fair_share = false;
		fw_settings_read(&st->settings_log, false);
		st->thread_wanted = FW_THREAD_WITHOUT_FAIR_SHARE;
	}

	info("%s: %s %s loaded (fairway %s, %s)", plugin_type, plugin_name,
	     SLURM_VERSION_STRING, fairway_version(),
	     fairway_algorithm_log_name(fw_cfg_algo()));
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	fw_state_t *st = &g_state;

	fw_calc_thread_stop(st);
	/* No period runs now (the thread is gone; a test's synchronous call
	 * has returned). */
	fw_weigh_pass_free(&st->pool);
	fw_held_free(&st->held);
	fw_settings_clear();
	fw_assoc_sync_free(&st->fs);
	fw_publish_free(&st->publish);
	fw_sprio_rows_free(&st->sprio_kept);
	fw_journal_close(st);
	if (st->site_factor)
		fw_site_factor_fini();
	pthread_mutex_destroy(&st->calc_lock);
	/* A later init (the plugin reloaded) starts from the state file again,
	 * every part new (job ends charge from the state file's period). */
	memset(st, 0, sizeof(*st));
	return SLURM_SUCCESS;
}

extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	uint32_t prio;

	/* First, so a new site factor is part of the sum. */
	if (g_state.site_factor)
		site_factor_g_set(job_ptr);
	prio = fw_job_priority(cfg, &g_state.fs, job_ptr, time(NULL), false,
			       false, NULL);
	fw_cfg_put(cfg);
	debug2("%s: initial priority for %pJ is %u", plugin_type, job_ptr,
	       prio);
	return prio;
}

extern void priority_p_reconfig(bool assoc_clear)
{
	fw_state_t *st = &g_state;
	fairway_algorithm_t was = fw_cfg_algo(), algo;

	fw_settings_read(&st->settings_log, st->fair_share);
	if ((algo = fw_cfg_algo()) != was) {
		/* Not while a period computes (slurmctld holds no lock). */
		slurm_mutex_lock(&st->calc_lock);
		fw_algorithm_switched(&st->fs, algo);
		slurm_mutex_unlock(&st->calc_lock);
	}
	/* Decay half-life and reset period are re-read by the next period. */
	__atomic_store_n(&st->reconfig, true, __ATOMIC_RELEASE);
	/* slurmctld reset the TRES run seconds: release what was used up to
	 * the last period again. */
	if (assoc_clear) {
		/* Not while a period charges (slurmctld holds no lock here). */
		slurm_mutex_lock(&st->calc_lock);
		fw_init_grp_used_tres_run_secs(st);
		/* This release replaces the one pending since init: slurmctld
		 * reserved every running job's whole time limit again. */
		st->run_secs_pending = false;
		slurm_mutex_unlock(&st->calc_lock);
	}
	if (st->site_factor)
		fw_site_factor_reconfig();
	debug2("%s: reconfigured", plugin_type);
}

/* Normalized and effective usage of one association on demand (sshare, a
 * job's fair-share factor).  Caller holds the assoc lock. */
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	fw_set_assoc_usage(assoc, NULL);
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 11, 0)
/* Slurm 25.11 dropped this hook from the loader's list. */
extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	double f = fairway_classic_fs_factor(usage_efctv, shares_norm,
					     cfg->damp);

	fw_cfg_put(cfg);
	return f;
}
#endif

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
/* 24.05 on: the sprio command filters the rows itself. */
extern list_t *priority_p_get_priority_factors_list(uid_t uid)
{
	return fw_factors_list(&g_state.sprio_kept, NULL, uid);
}
#else
/* Before 24.05 sprio's request (jobs, users, partitions) comes in req_msg;
 * from 23.02 only from a client older than 23.02 (NULL otherwise: the
 * command filters the rows itself); 22.05 returns nothing without one. */
extern list_t *
priority_p_get_priority_factors_list(priority_factors_request_msg_t *req_msg,
				     uid_t uid)
{
	fw_sprio_filter_t filter;

	if (!req_msg)
		return FW_SLURM_AT_LEAST(23, 2) ?
			fw_factors_list(&g_state.sprio_kept, NULL, uid) :
			NULL;
	filter.job_ids = req_msg->job_id_list;
	filter.user_ids = req_msg->uid_list;
	filter.partitions = req_msg->partitions;
	return fw_factors_list(&g_state.sprio_kept, &filter, uid);
}
#endif

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/*
 * 23.02 on: called after slurmctld recovered its jobs, with the boost
 * priority/basic adds to keep its decreasing priorities above 0.  Like
 * multifactor, Fairway computes every priority afresh and needs no boost.
 */
extern uint32_t priority_p_recover(uint32_t prio_boost)
{
	(void) prio_boost;
	/* Without slurmdbd, every job is weighed once its record is loaded
	 * (22.05 did it in init, where jobs are loaded now). */
	if (!slurm_with_slurmdbd() && (cluster_cpus != NO_VAL))
		_weigh_all_jobs(&g_state);
	return 0;
}
#endif

/* A job ended: charge what it used since the last period.  Caller holds the
 * job write lock (acct_policy_job_fini). */
extern void priority_p_job_end(job_record_t *job_ptr)
{
	if (!job_ptr)
		return;
	log_flag(PRIO, "%s: %s called for %pJ", plugin_type, __func__, job_ptr);
	(void) fw_apply_new_usage(&g_state, job_ptr, g_state.charged_to,
				  time(NULL), true, false);
}
