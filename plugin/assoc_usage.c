/*****************************************************************************\
 *  assoc_usage.c - one association's values outside a period, as multifactor's
 *  priority_p_set_assoc_usage sets them on demand (sshare, a classic job's
 *  fair-share factor); the core picks each formula.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/* 25.11 on, classic and depth-oblivious: the fair-share factor a job of this
 * association gets, stored in it (multifactor's _set_assoc_fs_factor), from
 * its account's for Fairshare=parent.  Caller holds the assoc lock. */
extern void fw_store_fs_factor(slurmdb_assoc_rec_t *assoc, double damp)
{
	slurmdb_assoc_rec_t *fs = assoc;

	if ((assoc->shares_raw == SLURMDB_FS_USE_PARENT) &&
	    assoc->usage->fs_assoc_ptr)
		fs = assoc->usage->fs_assoc_ptr;
	assoc->usage->fs_factor = fairway_classic_fs_factor(
		fs->usage->usage_efctv, fs->usage->shares_norm, damp);
}

/* 25.11 on, classic and depth-oblivious, at the end of a period: the stored
 * fair-share factor of every job's association, from the effective usage of
 * that moment (users not computed this period get 0 until a job reads it). */
extern void fw_store_jobs_fs_factors(const fw_cfg_t *cfg)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK };
	assoc_mgr_lock_t assoc_write = { .assoc = WRITE_LOCK };
	job_record_t *job_ptr;
	list_itr_t *it;

	if (!job_list)
		return;
	lock_slurmctld(job_read_lock);
	assoc_mgr_lock(&assoc_write);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		if (job_ptr->assoc_ptr && job_ptr->assoc_ptr->usage)
			fw_store_fs_factor(job_ptr->assoc_ptr, cfg->damp);
		else
			debug("%s: %pJ has no association, no fair-share factor to store",
			      plugin_type, job_ptr);
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&assoc_write);
	unlock_slurmctld(job_read_lock);
}

static int _add_usage_norm(void *x, void *arg)
{
	slurmdb_assoc_rec_t *sib = x;

	if (sib->shares_raw != SLURMDB_FS_USE_PARENT)
		*(long double *) arg += sib->usage->usage_norm;
	return 0;
}

/* The fair-share parent whose children's usage_norm depth-oblivious adds;
 * pass: the fair-share table of a pass that keeps copies of them, or NULL. */
struct siblings {
	slurmdb_assoc_rec_t *parent;
	fairway_fair_share_table_t *pass;
};

/* The children the sum adds, in the list's order, as copied for the pass. */
struct children_copy {
	uint32_t *ids;
	long double *values;
	size_t n;
};

static int _copy_child(void *x, void *arg)
{
	slurmdb_assoc_rec_t *sib = x;
	struct children_copy *c = arg;

	if (sib->shares_raw != SLURMDB_FS_USE_PARENT) {
		c->ids[c->n] = sib->id;
		c->values[c->n++] = sib->usage->usage_norm;
	}
	return 0;
}

/* The parent's children copied into the pass's table; false when they cannot
 * be (then the list is summed). */
static bool _copy_children(const struct siblings *s, list_t *children)
{
	int n = list_count(children);
	struct children_copy c = { 0 };
	fairway_error_t err;

	if (n <= 0)
		return false;
	c.ids = xcalloc(n, sizeof(*c.ids));
	c.values = xcalloc(n, sizeof(*c.values));
	list_for_each(children, _copy_child, &c);
	err = fairway_fair_share_table_copy_children(s->pass, s->parent->id,
						     c.ids, c.values, c.n);
	xfree(c.ids);
	xfree(c.values);
	return err == FAIRWAY_OK;
}

/* The sum of usage_norm over the children of the fair-share parent (Fairshare=
 * parent ones skipped), as stored now, in the list's order: in a pass, from
 * the copy of the children made at the parent's first sum and kept current
 * (fairway_fair_share_table_sibling_sum), else one walk of the list under one
 * list lock.  Caller holds the assoc lock. */
static long double _siblings_usage_norm(void *arg)
{
	const struct siblings *s = arg;
	list_t *children = s->parent->usage->children_list;
	long double sum = 0;

	if (!children)
		return 0;
	if (s->pass &&
	    (fairway_fair_share_table_sibling_sum(s->pass, s->parent->id,
						  &sum) ||
	     (_copy_children(s, children) &&
	      fairway_fair_share_table_sibling_sum(s->pass, s->parent->id,
						   &sum))))
		return sum;
	sum = 0;
	list_for_each(children, _add_usage_norm, &sum);
	return sum;
}

/* Normalized and effective usage of one association; from 25.11 its
 * fair-share factor too, unless Fair Tree computes it.  pass: the fair-share
 * table of the pass computing it (its copies of children's usage_norm kept
 * current), or NULL.  Assoc lock held. */
extern void fw_set_assoc_usage(slurmdb_assoc_rec_t *assoc,
			       fairway_fair_share_table_t *pass)
{
	struct siblings sibs = { .pass = pass };
	slurmdb_assoc_rec_t *fs_assoc;
	fairway_assoc_result_t self = { 0 }, parent = { 0 };
	const fw_cfg_t *cfg;

	if (!assoc || !assoc->usage || !assoc_mgr_root_assoc) {
		error("%s: %s called without an association", plugin_type,
		      __func__);
		return;
	}
	fs_assoc = assoc->usage->fs_assoc_ptr;
	assoc->usage->usage_norm =
		fairway_usage_norm(assoc->usage->usage_raw,
				   assoc_mgr_root_assoc->usage->usage_raw);
	if (pass)
		fairway_fair_share_table_set_usage_norm(
			pass, assoc->id, assoc->usage->usage_norm);
	self.shares_norm = assoc->usage->shares_norm;
	self.usage_norm = assoc->usage->usage_norm;
	/* The root and its children: the effective usage is their own. */
	if (fs_assoc == assoc_mgr_root_assoc)
		fs_assoc = NULL;
	if (fs_assoc) {
		sibs.parent = fs_assoc;
		parent.shares_norm = fs_assoc->usage->shares_norm;
		parent.usage_norm = fs_assoc->usage->usage_norm;
		parent.usage_efctv = fs_assoc->usage->usage_efctv;
	}
	/* The core picks the formula; the siblings' usage_norm (as stored
	 * now, users' possibly from an earlier period) only when it reads it. */
	cfg = fw_cfg_get();
	assoc->usage->usage_efctv = fairway_assoc_usage_efctv(
		cfg->algo, &self, assoc->shares_raw, assoc->usage->level_shares,
		fs_assoc ? &parent : NULL, _siblings_usage_norm, &sibs);
	if (FW_CLASSIC_STORES_FS_FACTOR &&
	    (cfg->algo != FAIRWAY_ALGO_FAIR_TREE))
		fw_store_fs_factor(assoc, cfg->damp);
	fw_cfg_put(cfg);
}
