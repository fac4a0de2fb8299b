/*****************************************************************************\
 *  assoc_sync.c - the associations copied into the core's fair-share table
 *  under assoc_mgr's lock, the results written back into assoc->usage (where
 *  sshare reads them); depth-oblivious walks assoc_mgr's tree itself, in
 *  multifactor's order; every association's normalized shares when a
 *  reconfigure changes the algorithm; and (fairway_fairshare_tres) the listed
 *  TRES that judges a job, with its factor from that TRES's tree.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/*
 * fairway_fairshare_tres: which listed TRES the job mostly asks for in its
 * partition (lib/queue/fairshare_tres.h), or -1 (billing).  A pending job by
 * what it asks for, a running one (CALCULATE_RUNNING) by what it was given.
 */
static int _job_fs_tres(const fw_cfg_t *cfg, const job_record_t *job_ptr)
{
	const uint64_t *asked = job_ptr->tres_req_cnt;
	const uint64_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->tres_cnt :
						   NULL;
	uint64_t a[FAIRWAY_MAX_FAIRSHARE_TRES], p[FAIRWAY_MAX_FAIRSHARE_TRES];

	if (!IS_JOB_PENDING(job_ptr) && job_ptr->tres_alloc_cnt)
		asked = job_ptr->tres_alloc_cnt;
	if (!asked || !part)
		return -1;
	for (int k = 0; k < cfg->fs_tres_n; k++) {
		a[k] = asked[cfg->fs_tres_pos[k]];
		p[k] = part[cfg->fs_tres_pos[k]];
	}
	return fairway_job_fairshare_tres(a, p, cfg->fs_tres_n,
					  asked[TRES_ARRAY_CPU],
					  part[TRES_ARRAY_CPU]);
}

/* The listed TRES that judges the job (its fair-share factor of that TRES from
 * the last calculation in *f), or -1: billing's.  Assoc read lock. */
extern int fw_job_tres_factor(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
			      const job_record_t *job_ptr, double *f)
{
	int k;

	if (!cfg->fs_tres_n || !job_ptr->assoc_ptr ||
	    !FW_WEIGHT(cfg, FAIRSHARE) || !cfg->fair_share)
		return -1;
	k = _job_fs_tres(cfg, job_ptr);
	if ((k < 0) ||
	    !fairway_fair_share_table_tres_factor(fs->table, job_ptr->assoc_id,
						  cfg->fs_tres_pos[k], f))
		return -1;
	return k;
}

extern void fw_assoc_sync_free(fw_fs_table_t *fs)
{
	fairway_fair_share_table_destroy(&fs->table);
	xfree(fs->ptrs);
	xfree(fs->in);
	xfree(fs->tres_usage);
	fs->n = fs->cap = fs->tres_cap = 0;
}

/* Copy every association with usage into fs->ptrs/fs->in (the core rebuilds
 * its tree when their shape changed).  Caller holds the assoc lock. */
static void _fs_copy(fw_fs_table_t *fs)
{
	slurmdb_assoc_rec_t *assoc;
	size_t cnt = list_count(assoc_mgr_assoc_list), n = 0;
	list_itr_t *it;

	if (cnt > fs->cap) {
		fs->cap = cnt + cnt / 8 + 16;
		xrecalloc(fs->ptrs, fs->cap, sizeof(*fs->ptrs));
		xrecalloc(fs->in, fs->cap, sizeof(*fs->in));
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(it)) && (n < fs->cap)) {
		if (!assoc->usage)
			continue;
		fw_assoc_in(assoc, &fs->in[n]);
		fs->ptrs[n++] = assoc;
	}
	list_iterator_destroy(it);
	fs->n = n;
}

/*
 * fairway_fairshare_tres: for each listed TRES, the tree given each
 * association's usage of that TRES (usage_tres_raw, historical and decayed as
 * usage_raw is; or what its running jobs were allocated of it under
 * fairway_usage), computed with the same algorithm.  On an error the jobs
 * keep billing's factor and the reason is logged.
 */
static void _recalc_tres(fw_fs_table_t *fs, fw_held_t *held,
			 const fw_cfg_t *cfg)
{
	fairway_error_t err =
		fairway_fair_share_table_tres_begin(fs->table, cfg->fs_tres_n);
	int k;

	if (!fw_cfg_held(cfg) && (fs->tres_cap < fs->n)) {
		fs->tres_cap = fs->n;
		xrecalloc(fs->tres_usage, fs->n, sizeof(*fs->tres_usage));
	}
	for (k = 0; (k < cfg->fs_tres_n) && (err == FAIRWAY_OK); k++) {
		const fairway_running_job_t *jobs = NULL;
		int pos = cfg->fs_tres_pos[k];
		size_t n = 0;

		if (fw_cfg_held(cfg))
			jobs = fw_held_tres_jobs(held, k, &n);
		for (size_t i = 0; !fw_cfg_held(cfg) && (i < fs->n); i++)
			fs->tres_usage[i] =
				fw_assoc_tres_usage(fs->ptrs[i]->usage, pos);
		err = fairway_fair_share_table_tres(
			fs->table, k, pos,
			fw_cfg_held(cfg) ? NULL : fs->tres_usage,
			cfg->opt.usage_basis, jobs, n, cfg->algo, cfg->damp);
	}
	if (err != FAIRWAY_OK)
		error("%s: fair-share of %s usage failed, jobs asking mostly for it keep billing's factor: %s: %s",
		      plugin_type, cfg->fs_tres_name[k ? k - 1 : 0],
		      fairway_strerror(err), fairway_last_error());
}

/* The five values of association i written back where sshare reads them. */
static void _write_back(fw_fs_table_t *fs, size_t i, const fw_cfg_t *cfg,
			bool users_lazy)
{
	fairway_assoc_result_t r;
	slurmdb_assoc_usage_t *u = fs->ptrs[i]->usage;

	if (users_lazy && fs->ptrs[i]->user) {
		u->usage_efctv = (long double) NO_VAL;
		return;
	}
	if (fairway_fair_share_table_result(fs->table, i, &r) != FAIRWAY_OK)
		return;
	if (r.set & FAIRWAY_SET_SHARES_NORM)
		u->shares_norm = r.shares_norm;
	if (r.set & FAIRWAY_SET_USAGE_NORM)
		u->usage_norm = r.usage_norm;
	if (r.set & FAIRWAY_SET_USAGE_EFCTV)
		u->usage_efctv = r.usage_efctv;
	if (r.set & FAIRWAY_SET_LEVEL_FS)
		u->level_fs = r.level_fs;
	if (r.set & FAIRWAY_SET_FS_FACTOR)
		u->fs_factor = r.fs_factor;
	/* 25.11 on: classic stores the factor of each association it computed
	 * but root's. */
	if (FW_CLASSIC_STORES_FS_FACTOR &&
	    (cfg->algo == FAIRWAY_ALGO_CLASSIC) &&
	    (fs->ptrs[i] != assoc_mgr_root_assoc))
		fw_store_fs_factor(fs->ptrs[i], cfg->damp);
}

/*
 * Recompute the fair-share values of every association from its current raw
 * usage (or, under fairway_usage, what its running jobs hold) and write them
 * back into assoc->usage.  Caller holds the assoc write lock.  On a malformed
 * tree nothing is written and the reason is logged.
 *
 * users_lazy: classic multifactor computes only the accounts in the period and
 * marks users' effective usage NO_VAL, to be computed on demand (by a job's
 * fair-share factor or sshare) from the usage of that moment; do the same.
 */
static int _recalc_fair_share(fw_fs_table_t *fs, fw_held_t *held,
			      const fw_cfg_t *cfg, bool users_lazy)
{
	fairway_error_t err = FAIRWAY_OK;
	const fairway_running_job_t *jobs = NULL;
	size_t n = 0, unknown = 0;

	fairway_fair_share_table_forget(fs->table);
	if (!assoc_mgr_assoc_list || !assoc_mgr_root_assoc)
		return SLURM_SUCCESS;
	if (!fs->table)
		err = fairway_fair_share_table_new(&fs->table);
	_fs_copy(fs);
	/* fairway_usage=allocated|committed: the tree's usage is what the
	 * running jobs noted by the last walk hold (usage_raw, sshare's
	 * RawUsage, stays historical usage). */
	if (fw_cfg_held(cfg))
		jobs = fw_held_jobs(held, &n);
	if (err == FAIRWAY_OK)
		err = fairway_fair_share_table_load(fs->table, fs->in, fs->n,
						    cfg->opt.usage_basis, jobs,
						    n, &unknown);
	if ((err == FAIRWAY_OK) && unknown)
		log_flag(
			PRIO,
			"%s: %zu running jobs of associations no longer listed hold nothing this period",
			plugin_type, unknown);
	if (err != FAIRWAY_OK) {
		error("%s: association tree rejected, fair-share values left unchanged: %s: %s",
		      plugin_type, fairway_strerror(err), fairway_last_error());
		return SLURM_ERROR;
	}
	err = fairway_fair_share_table_compute(fs->table, cfg->algo, cfg->damp,
					       cfg->fs_tres_n);
	if (err != FAIRWAY_OK) {
		error("%s: fair-share calculation failed: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
		return SLURM_ERROR;
	}
	for (size_t i = 0; i < fs->n; i++)
		_write_back(fs, i, cfg, users_lazy);
	_recalc_tres(fs, held, cfg);
	return SLURM_SUCCESS;
}

/*
 * Depth-oblivious, as multifactor walks it: accounts top-down, each from its
 * siblings' usage as stored at that moment (so the result depends on the
 * order and on earlier periods, which Fairway reproduces rather than "fixes");
 * users marked NO_VAL and computed when needed.  Caller holds the assoc write
 * lock.
 */
static void _depth_oblivious_children(list_t *children)
{
	slurmdb_assoc_rec_t *assoc;
	list_itr_t *it;

	if (!children)
		return;
	it = list_iterator_create(children);
	while ((assoc = list_next(it))) {
		if (assoc->user) {
			assoc->usage->usage_efctv = (long double) NO_VAL;
			continue;
		}
		fw_set_assoc_usage(assoc, NULL);
		_depth_oblivious_children(assoc->usage->children_list);
	}
	list_iterator_destroy(it);
}

/* Fair-share of every association, under the assoc write lock. */
extern int fw_fair_share_locked(fw_fs_table_t *fs, fw_held_t *held,
				const fw_cfg_t *cfg, bool users_lazy)
{
	assoc_mgr_lock_t assoc_write = { .assoc = WRITE_LOCK };
	int rc = SLURM_SUCCESS;

	assoc_mgr_lock(&assoc_write);
	if (cfg->algo == FAIRWAY_ALGO_DEPTH_OBLIVIOUS) {
		if (assoc_mgr_root_assoc)
			_depth_oblivious_children(
				assoc_mgr_root_assoc->usage->children_list);
	} else {
		rc = _recalc_fair_share(fs, held, cfg, users_lazy);
	}
	assoc_mgr_unlock(&assoc_write);
	return rc;
}

/*
 * The fair-share algorithm changed by reconfigure: give every association what
 * a controller started with the new PriorityFlags has.  assoc_mgr normalizes
 * shares by the flags when it loads the associations; the classic period
 * never writes users' shares_norm, so without this they would keep Fair
 * Tree's until a restart.  What else goes is the core's answer.  Users of
 * Fairshare=parent copy their account's normalized shares, hence the second
 * pass.  multifactor 22.05 tests for the switch after taking the new flags and
 * keeps the old algorithm's shares (doc/differences.md).  The fs_factor table
 * goes too.  Caller holds st->calc_lock.
 */
extern void fw_algorithm_switched(fw_fs_table_t *fs, fairway_algorithm_t algo)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	unsigned clear = fairway_fair_share_switch_clears(algo,
							  SLURM_VERSION_NUMBER);
	slurmdb_assoc_rec_t *assoc;
	list_itr_t *it;

	assoc_mgr_lock(&locks);
	if (!assoc_mgr_assoc_list) {
		assoc_mgr_unlock(&locks);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			bool parent = (assoc->shares_raw ==
				       SLURMDB_FS_USE_PARENT);

			if (!assoc->usage || (parent != (pass == 1)))
				continue;
			assoc_mgr_normalize_assoc_shares(assoc);
			if (clear & FAIRWAY_SET_LEVEL_FS)
				assoc->usage->level_fs = 0;
			if (clear & FAIRWAY_SET_FS_FACTOR)
				assoc->usage->fs_factor = 0;
		}
		list_iterator_destroy(it);
	}
	fairway_fair_share_table_forget(fs->table);
	assoc_mgr_unlock(&locks);
	info("%s: fair-share algorithm changed by reconfigure: associations' normalized shares recomputed for the new one",
	     plugin_type);
}
