/*****************************************************************************\
 *  assoc_sync.c - the association tree copied into the core, fair-share computed
 *  there, the results written back into assoc->usage (where sshare reads them);
 *  and, for Fair Tree's weighing pass, a compact table of every association's
 *  fair-share factor; with fairway_fairshare_tres, one more tree per listed
 *  TRES comparing its usage, and the factors jobs judged by it get.
 *  Depth-oblivious walks assoc_mgr's tree itself, in
 *  multifactor's order (assoc_usage.c computes each association); and every
 *  association's normalized shares when a reconfigure changes the algorithm.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

/*
 * The table (fw_fs_table_t, a part of the plugin's state):
 *
 * Fair Tree: every association's fs_factor after the last calculation, by
 * association id (open addressing, linear probing, load at most 0.8), so that
 * weighing a job reads this compact table instead of two scattered records
 * (the association and its usage: a quarter of the weighing pass at 1,000,000
 * jobs).  Keyed by id, not pointer: ids are never reused.  Built under the
 * assoc write lock at the end of a successful calculation, read by the
 * weighing threads under the assoc read lock; invalid until then and after a
 * failed one (jobs then read their association, as before).
 *
 * fairway_fairshare_tres: per listed TRES, the tree with that usage (same
 * shape as fs->tree) and every association's factor from it, by index:
 * fs->tres_fs[k * fs->n + index].  Valid with the slots' indexes.  Looked up
 * by TRES position, so that a reconfigure that changes the list never reads
 * another TRES's factors before the next calculation.
 *
 * The association tree of the last calculation, kept while the associations
 * keep their shape (same records, ids, parents, shares), so that a period only
 * updates usage and recomputes, allocating nothing.  Protected by the assoc
 * write lock (only used inside _recalc_fair_share).
 */
struct fw_fs_slot {
	uint32_t id;	/* 0: empty (association ids start at 1) */
	uint32_t index; /* in fs->ptrs */
	double fs_factor;
};

/* What the cached tree was built from, to tell whether the shape changed (the
 * full fairway_assoc_t input only exists while a tree is built: 16 bytes per
 * association kept instead of 48). */
struct fw_fs_shape {
	uint32_t id, parent_id, shares_raw;
	uint8_t shares_parent, is_user;
};

static inline size_t _fs_slot_hash(uint32_t id)
{
	return (size_t) ((id * 0x9E3779B1u) >> 7);
}

/* The fs_factor of association `id` after the last calculation, or NULL. */
extern const double *fw_fs_table_factor(const fw_fs_table_t *fs, uint32_t id)
{
	size_t h;

	if (!fs->slots_valid || !id)
		return NULL;
	for (h = _fs_slot_hash(id) & fs->mask; fs->slots[h].id;
	     h = (h + 1) & fs->mask)
		if (fs->slots[h].id == id)
			return &fs->slots[h].fs_factor;
	return NULL;
}

extern void fw_fs_slots_invalidate(fw_fs_table_t *fs)
{
	fs->slots_valid = false;
	fs->tres_valid = false;
}

extern bool fw_fs_table_tres_factor(const fw_fs_table_t *fs, uint32_t id,
				    int pos, double *out)
{
	size_t h;
	int k = 0;

	while ((k < fs->tres_n) && (fs->tres_pos[k] != pos))
		k++;
	if (!fs->tres_valid || !id || (k == fs->tres_n))
		return false;
	for (h = _fs_slot_hash(id) & fs->mask; fs->slots[h].id;
	     h = (h + 1) & fs->mask)
		if (fs->slots[h].id == id) {
			*out = fs->tres_fs[k * fs->n + fs->slots[h].index];
			return true;
		}
	return false;
}

/* The slots of every association: id, index and (Fair Tree) fs_factor. */
static void _fs_slots_build(fw_fs_table_t *fs, bool fair_tree)
{
	size_t want = 1024;

	while (want * 4 < fs->n * 5)
		want <<= 1;
	if (want - 1 != fs->mask) {
		xfree(fs->slots);
		fs->slots = xcalloc(want, sizeof(*fs->slots));
		fs->mask = want - 1;
	} else {
		memset(fs->slots, 0, want * sizeof(*fs->slots));
	}
	for (size_t i = 0; i < fs->n; i++) {
		uint32_t id = fs->ptrs[i]->id;
		size_t h = _fs_slot_hash(id) & fs->mask;

		if (!id)
			continue;
		while (fs->slots[h].id && (fs->slots[h].id != id))
			h = (h + 1) & fs->mask;
		fs->slots[h].id = id;
		fs->slots[h].index = (uint32_t) i;
		fs->slots[h].fs_factor = fs->ptrs[i]->usage->fs_factor;
	}
	fs->slots_valid = fair_tree;
}

static void _tres_trees_free(fw_fs_table_t *fs, int from)
{
	for (int k = from; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++)
		fairway_fair_share_destroy(&fs->tres_tree[k]);
}


extern void fw_assoc_sync_free(fw_fs_table_t *fs)
{
	fs->slots_valid = false;
	fs->tres_valid = false;
	_tres_trees_free(fs, 0);
	xfree(fs->tres_fs);
	fs->tres_fs_cap = 0;
	fs->tres_n = 0;
	xfree(fs->slots);
	fs->mask = 0;
	fairway_fair_share_destroy(&fs->tree);
	xfree(fs->ptrs);
	xfree(fs->shape);
	fs->n = fs->cap = 0;
}

/* Record the current associations in fs->shape/fs->ptrs; true if their shape
 * is what the cached tree was built from. */
static bool _fs_snapshot(fw_fs_table_t *fs)
{
	slurmdb_assoc_rec_t *assoc;
	size_t cnt = list_count(assoc_mgr_assoc_list), n = 0;
	bool same = (fs->tree != NULL);
	list_itr_t *it;

	if (cnt > fs->cap) {
		fs->cap = cnt + cnt / 8 + 16;
		xrecalloc(fs->ptrs, fs->cap, sizeof(*fs->ptrs));
		xrecalloc(fs->shape, fs->cap, sizeof(*fs->shape));
		same = false;
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(it)) && (n < fs->cap)) {
		fw_fs_shape_t *in = &fs->shape[n];
		uint32_t parent = (assoc == assoc_mgr_root_assoc) ?
			0 :
			assoc->parent_id;
		uint8_t sp = (assoc->shares_raw == SLURMDB_FS_USE_PARENT);
		uint32_t shares = sp ? 0 : assoc->shares_raw;
		uint8_t user = (assoc->user != NULL);

		if (!assoc->usage)
			continue;
		if (same &&
		    ((fs->ptrs[n] != assoc) || (in->id != assoc->id) ||
		     (in->parent_id != parent) || (in->shares_parent != sp) ||
		     (in->shares_raw != shares) || (in->is_user != user)))
			same = false;
		fs->ptrs[n] = assoc;
		in->id = assoc->id;
		in->parent_id = parent;
		in->shares_parent = sp;
		in->shares_raw = shares;
		in->is_user = user;
		n++;
	}
	list_iterator_destroy(it);
	if (n != fs->n)
		same = false;
	fs->n = n;
	return same;
}

/* Build fs->tree from the associations _fs_snapshot() recorded. */
static fairway_error_t _fs_build(fw_fs_table_t *fs)
{
	fairway_assoc_t *in = xcalloc(fs->n + 1, sizeof(*in));
	fairway_error_t err;

	for (size_t i = 0; i < fs->n; i++) {
		const slurmdb_assoc_rec_t *a = fs->ptrs[i];

		in[i].id = fs->shape[i].id;
		in[i].parent_id = fs->shape[i].parent_id;
		in[i].account = a->acct;
		in[i].user = a->user;
		in[i].shares_parent = fs->shape[i].shares_parent;
		in[i].shares_raw = fs->shape[i].shares_raw;
		in[i].usage_raw = a->usage->usage_raw;
	}
	err = fairway_fair_share_new(in, fs->n, &fs->tree);
	xfree(in);
	return err;
}

/* fairway_usage=allocated|committed: the tree's usage becomes what the
 * running jobs noted by the last walk hold (assoc->usage->usage_raw, sshare's
 * RawUsage, stays historical usage). */
static fairway_error_t _hold_usage(fw_fs_table_t *fs, const fw_held_t *held,
				   const fw_cfg_t *cfg)
{
	size_t n, unknown = 0;
	const fairway_running_job_t *jobs = fw_held_jobs(held, &n);
	fairway_error_t err = fairway_fair_share_hold(
		fs->tree, cfg->usage_basis, jobs, n, &unknown);

	if ((err == FAIRWAY_OK) && unknown)
		log_flag(
			PRIO,
			"%s: %zu running jobs of associations no longer listed hold nothing this period",
			plugin_type, unknown);
	return err;
}

/*
 * Recompute the fair-share values of every association from its current raw
 * usage (or, under fairway_usage, what its running jobs hold) and write them
 * back into assoc->usage.  Caller holds the assoc write
 * lock.  On a malformed tree nothing is written and the reason is logged.
 *
 * users_lazy: classic multifactor computes only the accounts in the period and
 * marks users' effective usage NO_VAL, to be computed on demand (by a job's
 * fair-share factor or sshare) from the usage of that moment; do the same.
 */
/*
 * fairway_fairshare_tres: for each listed TRES, a copy of the tree (made
 * again when the shape changed) given each association's usage of that TRES
 * (usage_tres_raw, historical and decayed as usage_raw is; or what its running
 * jobs were allocated of it under fairway_usage), computed with the same
 * algorithm, and every association's factor kept.  On an error the jobs keep
 * billing's factor and the reason is logged.
 */
static void _recalc_tres(fw_fs_table_t *fs, fw_held_t *held,
			 const fw_cfg_t *cfg, bool rebuilt)
{
	fairway_error_t err = FAIRWAY_OK;
	int k;

	_tres_trees_free(fs, cfg->fs_tres_n);
	fs->tres_n = 0;
	if (!cfg->fs_tres_n)
		return;
	if (fs->tres_fs_cap < fs->n * cfg->fs_tres_n) {
		fs->tres_fs_cap = fs->n * cfg->fs_tres_n;
		xrecalloc(fs->tres_fs, fs->tres_fs_cap, sizeof(*fs->tres_fs));
	}
	for (k = 0; (k < cfg->fs_tres_n) && (err == FAIRWAY_OK); k++) {
		int pos = cfg->fs_tres_pos[k];

		fs->tres_pos[k] = pos;
		if (rebuilt || !fs->tres_tree[k] ||
		    (fairway_fair_share_count(fs->tres_tree[k]) != fs->n)) {
			fairway_fair_share_destroy(&fs->tres_tree[k]);
			err = fairway_fair_share_copy(fs->tree,
						      &fs->tres_tree[k]);
		}
		if ((err == FAIRWAY_OK) && fw_cfg_held(cfg)) {
			size_t n;
			const fairway_running_job_t *jobs =
				fw_held_tres_jobs(held, k, &n);

			err = fairway_fair_share_hold(fs->tres_tree[k],
						      cfg->usage_basis, jobs, n,
						      NULL);
		}
		for (size_t i = 0;
		     !fw_cfg_held(cfg) && (err == FAIRWAY_OK) && (i < fs->n);
		     i++) {
			const slurmdb_assoc_usage_t *u = fs->ptrs[i]->usage;
			long double used = (u->usage_tres_raw &&
					    (pos < (int) u->tres_cnt)) ?
				u->usage_tres_raw[pos] :
				0.0L;

			err = fairway_fair_share_set_usage(fs->tres_tree[k], i,
							   used);
		}
		if (err == FAIRWAY_OK)
			err = fairway_fair_share_compute(fs->tres_tree[k],
							 cfg->algo, cfg->damp);
		for (size_t i = 0; (err == FAIRWAY_OK) && (i < fs->n); i++) {
			fairway_assoc_result_t r;

			err = fairway_fair_share_result(fs->tres_tree[k], i,
							&r);
			fs->tres_fs[k * fs->n + i] = r.fs_factor;
		}
	}
	if (err != FAIRWAY_OK) {
		error("%s: fair-share of %s usage failed, jobs asking mostly for it keep billing's factor: %s: %s",
		      plugin_type, cfg->fs_tres_name[k - 1],
		      fairway_strerror(err), fairway_last_error());
		_tres_trees_free(fs, 0);
		return;
	}
	fs->tres_n = cfg->fs_tres_n;
	fs->tres_valid = true;
}

static int _recalc_fair_share(fw_fs_table_t *fs, fw_held_t *held,
			      const fw_cfg_t *cfg, bool users_lazy)
{
	fairway_error_t err = FAIRWAY_OK;
	bool rebuilt = false;

	fs->slots_valid = false;
	fs->tres_valid = false;
	if (!assoc_mgr_assoc_list || !assoc_mgr_root_assoc)
		return SLURM_SUCCESS;

	if (!_fs_snapshot(fs)) {
		fairway_fair_share_destroy(&fs->tree);
		rebuilt = true;
		err = _fs_build(fs);
	} else if (!fw_cfg_held(cfg)) {
		for (size_t i = 0; (i < fs->n) && (err == FAIRWAY_OK); i++)
			err = fairway_fair_share_set_usage(
				fs->tree, i, fs->ptrs[i]->usage->usage_raw);
	}
	if ((err == FAIRWAY_OK) && fw_cfg_held(cfg))
		err = _hold_usage(fs, held, cfg);
	if (err != FAIRWAY_OK) {
		error("%s: association tree rejected, fair-share values left unchanged: %s: %s",
		      plugin_type, fairway_strerror(err), fairway_last_error());
		fairway_fair_share_destroy(&fs->tree);
		return SLURM_ERROR;
	}
	if ((err = fairway_fair_share_compute(fs->tree, cfg->algo,
					      cfg->damp)) != FAIRWAY_OK) {
		error("%s: fair-share calculation failed: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
		return SLURM_ERROR;
	}
	for (size_t i = 0; i < fs->n; i++) {
		fairway_assoc_result_t r;
		slurmdb_assoc_usage_t *u = fs->ptrs[i]->usage;

		if (users_lazy && fs->ptrs[i]->user) {
			u->usage_efctv = (long double) NO_VAL;
			continue;
		}
		if (fairway_fair_share_result(fs->tree, i, &r) != FAIRWAY_OK)
			continue;
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
		/* 25.11 on: classic stores the factor of each association
		 * it computed but root's. */
		if (FW_CLASSIC_STORES_FS_FACTOR &&
		    (cfg->algo == FAIRWAY_ALGO_CLASSIC) &&
		    (fs->ptrs[i] != assoc_mgr_root_assoc))
			fw_store_fs_factor(fs->ptrs[i], cfg->damp);
	}
	if ((cfg->algo == FAIRWAY_ALGO_FAIR_TREE) || cfg->fs_tres_n)
		_fs_slots_build(fs, cfg->algo == FAIRWAY_ALGO_FAIR_TREE);
	_recalc_tres(fs, held, cfg, rebuilt);
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
		fw_set_assoc_usage(assoc);
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
 * shares by the flags when it loads the associations (Fair Tree among
 * siblings, the others down the whole path); the classic period never writes
 * users' shares_norm, so without this they would keep Fair Tree's until a
 * restart.  Leaving Fair Tree, its Level FS and fair-share factor go too: the
 * other algorithms never store them (Level FS; from 25.11 they store their
 * own fair-share factor, from the next period on).  Going to Fair Tree from
 * 25.11 on, classic's fair-share factors go: Fair Tree stores users' again,
 * and accounts have none under it.  Users of Fairshare=parent copy their
 * account's normalized shares, hence the second pass.  multifactor 22.05
 * tests for the switch after taking the new flags and keeps the old
 * algorithm's shares (doc/differences.md).  The fs_factor table goes too.
 * Caller holds st->calc_lock.
 */
extern void fw_algorithm_switched(fw_fs_table_t *fs, fairway_algorithm_t algo)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
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
			if (algo != FAIRWAY_ALGO_FAIR_TREE) {
				assoc->usage->level_fs = 0;
				assoc->usage->fs_factor = 0;
			} else if (FW_CLASSIC_STORES_FS_FACTOR) {
				/* Classic's, which Fair Tree writes again
				 * for users only. */
				assoc->usage->fs_factor = 0;
			}
		}
		list_iterator_destroy(it);
	}
	fw_fs_slots_invalidate(fs);
	assoc_mgr_unlock(&locks);
	info("%s: fair-share algorithm changed by reconfigure: associations' normalized shares recomputed for the new one",
	     plugin_type);
}
