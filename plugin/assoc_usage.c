/*****************************************************************************\
 *  assoc_usage.c - one association's values outside a period: normalized and
 *  effective usage on demand (sshare, a classic job's fair-share factor), as
 *  multifactor's priority_p_set_assoc_usage sets them, and every association's
 *  normalized shares when a reconfigure changes the fair-share algorithm.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/*
 * Normalized and effective usage of one association, as multifactor sets them
 * on demand (sshare, a job's fair-share factor).  Caller holds the assoc lock.
 */
extern void fw_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	slurmdb_assoc_rec_t *fs_assoc;

	if (!assoc || !assoc->usage || !assoc_mgr_root_assoc) {
		error("%s: %s called without an association", plugin_type,
		      __func__);
		return;
	}
	fs_assoc = assoc->usage->fs_assoc_ptr;
	assoc->usage->usage_norm = fairway_usage_norm(
		assoc->usage->usage_raw, assoc_mgr_root_assoc->usage->usage_raw);
	if (!fs_assoc) {
		/* The root association: its effective usage is its own. */
		assoc->usage->usage_efctv = assoc->usage->usage_norm;
	} else if (fs_assoc == assoc_mgr_root_assoc) {
		assoc->usage->usage_efctv = assoc->usage->usage_norm;
	} else if (assoc->shares_raw == SLURMDB_FS_USE_PARENT) {
		assoc->usage->usage_efctv = fs_assoc->usage->usage_efctv;
	} else if (fw_cfg_algo() == FAIRWAY_ALGO_DEPTH_OBLIVIOUS) {
		/* From the siblings' usage_norm as stored now, as multifactor
		 * reads them (users' may be from an earlier period). */
		long double siblings = 0;
		slurmdb_assoc_rec_t *sib;
		ListIterator it;

		if (fs_assoc->usage->children_list) {
			it = list_iterator_create(fs_assoc->usage->children_list);
			while ((sib = list_next(it)))
				if (sib->shares_raw != SLURMDB_FS_USE_PARENT)
					siblings += sib->usage->usage_norm;
			list_iterator_destroy(it);
		}
		assoc->usage->usage_efctv = fairway_depth_oblivious_usage_efctv(
			assoc->usage->usage_norm, assoc->usage->shares_norm,
			fs_assoc->usage->usage_efctv,
			fs_assoc->usage->shares_norm, siblings);
	} else {
		assoc->usage->usage_efctv = fairway_classic_usage_efctv(
			assoc->usage->usage_norm, fs_assoc->usage->usage_efctv,
			assoc->shares_raw, assoc->usage->level_shares);
	}
}

/*
 * The fair-share algorithm changed by reconfigure: give every association what
 * a controller started with the new PriorityFlags has.  assoc_mgr normalizes
 * shares by the flags when it loads the associations (Fair Tree among
 * siblings, the others down the whole path); the classic period never writes
 * users' shares_norm, so without this they would keep Fair Tree's until a
 * restart.  Leaving Fair Tree, its Level FS and fair-share factor go too: the
 * other algorithms never store them.  Users of Fairshare=parent copy their
 * account's normalized shares, hence the second pass.  multifactor 22.05
 * tests for the switch after taking the new flags and keeps the old
 * algorithm's shares (doc/differences.md).  Caller holds st->calc_lock.
 */
extern void fw_algorithm_switched(fairway_algorithm_t algo)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	slurmdb_assoc_rec_t *assoc;
	ListIterator it;

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
			}
		}
		list_iterator_destroy(it);
	}
	fw_fs_slots_invalidate();
	assoc_mgr_unlock(&locks);
	info("%s: fair-share algorithm changed by reconfigure: associations' normalized shares recomputed for the new one",
	     plugin_type);
}
