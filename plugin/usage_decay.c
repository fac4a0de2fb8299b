/*****************************************************************************\
 *  usage_decay.c - stored usage decayed by the half-life each period, or forgotten
 *  at a PriorityUsageResetPeriod boundary (associations, their leaf usage and
 *  QOS; QOS with NoDecay keep theirs from decay).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/* An association's or a QOS's usage times f, or 0 when reset. */
#define FW_SCALE(x, f, reset) ((reset) ? 0 : (x) * (f))
#define FW_DECAY(u, f, reset) \
	do { \
		(u)->usage_raw = FW_SCALE((u)->usage_raw, f, reset); \
		for (int i = 0; i < slurmctld_tres_cnt; i++) \
			(u)->usage_tres_raw[i] = \
				FW_SCALE((u)->usage_tres_raw[i], f, reset); \
		(u)->grp_used_wall = FW_SCALE((u)->grp_used_wall, f, reset); \
	} while (0)

static void _decay_all(double f, bool reset)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;
	list_itr_t *it;

	assoc_mgr_lock(&locks);
	it = assoc_mgr_assoc_list ? list_iterator_create(assoc_mgr_assoc_list) :
				    NULL;
	while (it && (a = list_next(it))) {
		if (!a->usage)
			continue;
		FW_DECAY(a->usage, f, reset);
		if (!a->leaf_usage || (a->leaf_usage == a->usage))
			continue;
		if (!reset) {
			FW_DECAY(a->leaf_usage, f, false);
			continue;
		}
		slurmdb_destroy_assoc_usage(a->leaf_usage);
		a->leaf_usage = NULL;
	}
	if (it)
		list_iterator_destroy(it);
	it = assoc_mgr_qos_list ? list_iterator_create(assoc_mgr_qos_list) :
				  NULL;
	while (it && (q = list_next(it)))
		if (q->usage && (reset || !(q->flags & QOS_FLAG_NO_DECAY)))
			FW_DECAY(q->usage, f, reset);
	if (it)
		list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
}

/* Multiply all stored usage by real_decay (QOS with NoDecay excepted). */
extern void fw_usage_decay(const fw_state_t *st, double real_decay)
{
	if (st->fair_share && (real_decay != 1))
		_decay_all(real_decay, false);
}

/* PriorityUsageResetPeriod: forget all usage. */
extern void fw_usage_reset(const fw_state_t *st)
{
	if (!st->fair_share)
		return;
	info("%s: resetting all usage (PriorityUsageResetPeriod)", plugin_type);
	_decay_all(0, true);
}
