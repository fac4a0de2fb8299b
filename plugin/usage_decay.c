/*****************************************************************************\
 *  usage_decay.c - stored usage decayed by the half-life each period, or forgotten
 *  at a PriorityUsageResetPeriod boundary (associations, their leaf usage and
 *  QOS; QOS with NoDecay keep theirs from decay).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/* Multiply all stored usage by real_decay (QOS with NoDecay excepted). */
extern void fw_usage_decay(const fw_state_t *st, double real_decay)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;

	if (!st->fair_share || (real_decay == 1))
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			slurmdb_assoc_usage_t *u = assoc->usage, *leaf;
			if (!u)
				continue;
			u->usage_raw *= real_decay;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				u->usage_tres_raw[i] *= real_decay;
			u->grp_used_wall *= real_decay;
			leaf = assoc->leaf_usage;
			if (leaf && (leaf != u)) {
				leaf->usage_raw *= real_decay;
				for (int i = 0; i < slurmctld_tres_cnt; i++)
					leaf->usage_tres_raw[i] *= real_decay;
				leaf->grp_used_wall *= real_decay;
			}
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it))) {
			if ((qos->flags & QOS_FLAG_NO_DECAY) || !qos->usage)
				continue;
			qos->usage->usage_raw *= real_decay;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				qos->usage->usage_tres_raw[i] *= real_decay;
			qos->usage->grp_used_wall *= real_decay;
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
}

/* PriorityUsageResetPeriod: forget all usage. */
extern void fw_usage_reset(const fw_state_t *st)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;

	if (!st->fair_share)
		return;
	info("%s: resetting all usage (PriorityUsageResetPeriod)", plugin_type);
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			if (!assoc->usage)
				continue;
			assoc->usage->usage_raw = 0;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				assoc->usage->usage_tres_raw[i] = 0;
			assoc->usage->grp_used_wall = 0;
			if (assoc->leaf_usage &&
			    (assoc->leaf_usage != assoc->usage)) {
				slurmdb_destroy_assoc_usage(assoc->leaf_usage);
				assoc->leaf_usage = NULL;
			}
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it))) {
			if (!qos->usage)
				continue;
			qos->usage->usage_raw = 0;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				qos->usage->usage_tres_raw[i] = 0;
			qos->usage->grp_used_wall = 0;
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
}
