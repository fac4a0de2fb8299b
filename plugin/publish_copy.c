/*****************************************************************************\
 *  publish_copy.c - what publishing copies under slurmctld's locks: the
 *  partitions under the job write lock that noted the rows, and at the end of
 *  the period the associations, QOS and TRES names under assoc_mgr's read
 *  locks.  Copies only: the files are written after every lock is released.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "publish_state.h"

extern void fw_publish_parts_clear(fw_parts_t *parts)
{
	for (size_t i = 0; i < parts->n; i++)
		xfree(parts->name[i]);
	xfree(parts->name);
	xfree(parts->ptr);
	xfree(parts->info);
	parts->n = 0;
}

struct part_cursor {
	fw_parts_t *parts;
	size_t i;
};

static int _foreach_part(void *x, void *arg)
{
	part_record_t *part = x;
	struct part_cursor *c = arg;
	fairway_partition_info_t *info;

	c->parts->ptr[c->i] = part;
	c->parts->name[c->i] = xstrdup(part->name);
	info = &c->parts->info[c->i];
	info->priority_job_factor = part->priority_job_factor;
	info->norm_priority = part->norm_priority;
	info->priority_tier = part->priority_tier;
	info->total_cpus = part->total_cpus;
	info->total_nodes = part->total_nodes;
	c->i++;
	return 0;
}

extern void fw_publish_copy_locked(fw_publish_t *pub)
{
	struct part_cursor c;
	fw_parts_t *parts;
	size_t n;

	/* Each hold that noted rows copies again: the last one is the one
	 * the rows' partition addresses belong to. */
	if (!pub || !pub->noting || !part_list)
		return;
	parts = &pub->parts;
	fw_publish_parts_clear(parts);
	n = list_count(part_list);
	parts->ptr = xcalloc(n + 1, sizeof(*parts->ptr));
	parts->name = xcalloc(n + 1, sizeof(*parts->name));
	parts->info = xcalloc(n + 1, sizeof(*parts->info));
	c.parts = parts;
	c.i = 0;
	list_for_each(part_list, _foreach_part, &c);
	parts->n = c.i;
	parts->cluster_cpus = cluster_cpus;
	parts->cluster_nodes = FW_CLUSTER_NODES;
}

static int _cmp_part_at(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) ((const fw_part_at_t *) a)->ptr;
	uintptr_t y = (uintptr_t) ((const fw_part_at_t *) b)->ptr;

	return (x > y) - (x < y);
}

extern void fw_publish_parts_order(fw_parts_t *parts)
{
	xfree(parts->order);
	parts->order = xcalloc(parts->n + 1, sizeof(*parts->order));
	for (uint32_t i = 0; i < parts->n; i++) {
		parts->order[i].ptr = parts->ptr[i];
		parts->order[i].index = i;
	}
	qsort(parts->order, parts->n, sizeof(*parts->order), _cmp_part_at);
}

extern uint32_t fw_publish_part_index(const fw_parts_t *parts, const void *part)
{
	size_t lo = 0, hi = parts->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const void *at = parts->order[mid].ptr;

		if (at == part)
			return parts->order[mid].index;
		if ((uintptr_t) at < (uintptr_t) part)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

extern uint32_t fw_publish_qos_index(const fw_copy_t *c, uint32_t id)
{
	for (size_t i = 0; id && (i < c->nqos); i++)
		if (c->qos_ids[i] == id)
			return i;
	return UINT32_MAX;
}

extern void fw_publish_copy_free(fw_copy_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		char *account = (char *) c->assocs[i].account;
		char *user = (char *) c->assocs[i].user;

		xfree(account);
		xfree(user);
	}
	xfree(c->assocs);
	for (size_t i = 0; i < c->nqos; i++)
		xfree(c->qos_names[i]);
	xfree(c->qos_names);
	xfree(c->qos_ids);
	xfree(c->qos_info);
	for (size_t i = 0; i < c->tres_count; i++)
		xfree(c->tres_names[i]);
	xfree(c->tres_names);
	for (int k = 0; k < c->fs_tres_n; k++)
		xfree(c->fs_tres[k]);
	xfree(c->fs_tres_usage);
}

/* The association tree, QOS and TRES names; with assoc_mgr's read locks. */
static void _copy_locked(fw_copy_t *c, size_t queue_tres)
{
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;
	size_t cnt;

	if (assoc_mgr_assoc_list && assoc_mgr_root_assoc) {
		cnt = list_count(assoc_mgr_assoc_list);
		c->assocs = xcalloc(cnt + 1, sizeof(*c->assocs));
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it)) && (c->n < cnt)) {
			fairway_assoc_t *a = &c->assocs[c->n];

			if (!assoc->usage)
				continue;
			a->id = assoc->id;
			a->parent_id = (assoc == assoc_mgr_root_assoc) ?
				0 :
				assoc->parent_id;
			a->account = xstrdup(assoc->acct);
			a->user = xstrdup(assoc->user);
			a->shares_parent = (assoc->shares_raw ==
					    SLURMDB_FS_USE_PARENT);
			a->shares_raw = a->shares_parent ? 0 :
							   assoc->shares_raw;
			a->usage_raw = assoc->usage->usage_raw;
			c->n++;
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		cnt = list_count(assoc_mgr_qos_list);
		c->qos_ids = xcalloc(cnt + 1, sizeof(*c->qos_ids));
		c->qos_names = xcalloc(cnt + 1, sizeof(*c->qos_names));
		c->qos_info = xcalloc(cnt + 1, sizeof(*c->qos_info));
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it)) && (c->nqos < cnt)) {
			c->qos_ids[c->nqos] = qos->id;
			c->qos_names[c->nqos] = xstrdup(qos->name);
			c->qos_info[c->nqos].priority = qos->priority;
			c->qos_info[c->nqos].usage_factor = qos->usage_factor;
			c->nqos++;
		}
		list_iterator_destroy(it);
	}
	if (queue_tres && assoc_mgr_tres_name_array &&
	    (queue_tres <= g_tres_count)) {
		c->tres_names = xcalloc(queue_tres, sizeof(*c->tres_names));
		for (size_t i = 0; i < queue_tres; i++)
			c->tres_names[i] =
				xstrdup(assoc_mgr_tres_name_array[i]);
		c->tres_count = queue_tres;
	}
}

/* fairway_fairshare_tres: the names of the listed TRES and (historical usage)
 * every association's usage of each; with the assoc and TRES read locks. */
static void _copy_fs_tres_locked(fw_copy_t *c, const fw_cfg_t *cfg)
{
	size_t i = 0;
	slurmdb_assoc_rec_t *assoc;
	list_itr_t *it;

	if (!cfg->fs_tres_n || !c->n || !assoc_mgr_tres_name_array)
		return;
	for (int k = 0; k < cfg->fs_tres_n; k++) {
		int pos = cfg->fs_tres_pos[k];

		if ((pos < 0) || (pos >= g_tres_count) ||
		    !assoc_mgr_tres_name_array[pos])
			return; /* the TRES changed: the next period */
	}
	for (int k = 0; k < cfg->fs_tres_n; k++)
		c->fs_tres[k] =
			xstrdup(assoc_mgr_tres_name_array[cfg->fs_tres_pos[k]]);
	c->fs_tres_n = cfg->fs_tres_n;
	if (fw_cfg_held(cfg))
		return;
	c->fs_tres_usage = xcalloc(c->n * c->fs_tres_n + 1,
				   sizeof(*c->fs_tres_usage));
	/* The same walk as _copy_locked's, so that index i is c->assocs[i]. */
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(it)) && (i < c->n)) {
		const slurmdb_assoc_usage_t *u = assoc->usage;

		if (!u)
			continue;
		for (int k = 0; k < c->fs_tres_n; k++) {
			int pos = cfg->fs_tres_pos[k];

			if (u->usage_tres_raw && (pos < (int) u->tres_cnt))
				c->fs_tres_usage[k * c->n + i] =
					u->usage_tres_raw[pos];
		}
		i++;
	}
	list_iterator_destroy(it);
}

extern void fw_publish_copy_assocs(fw_copy_t *c, const fw_cfg_t *cfg,
				   size_t queue_tres)
{
	/* The TRES names only with TRES weights (the queue's TRES factors)
	 * or listed TRES. */
	assoc_mgr_lock_t read_locks = { .assoc = READ_LOCK,
					.qos = READ_LOCK,
					.tres = (queue_tres || cfg->fs_tres_n) ?
						READ_LOCK :
						NO_LOCK };

	assoc_mgr_lock(&read_locks);
	_copy_locked(c, queue_tres);
	_copy_fs_tres_locked(c, cfg);
	assoc_mgr_unlock(&read_locks);
}
