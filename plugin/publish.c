/*****************************************************************************\
 *  publish.c - what a period publishes for the tools sites already run: with
 *  PriorityParameters=fairway_metrics_dir=DIR a Prometheus text file for
 *  node_exporter's textfile collector and the association tree as a snapshot
 *  file for the fairway command; with fairway_history_days=N one record per
 *  association in DIR/fairway_history (StateSaveLocation/fairway_history
 *  without a metrics directory), kept N days, and a line per job that started
 *  with its place in the last order; with fairway_starvation_minutes
 *  one log line when a user starts and stops being starved of service.
 *
 *  Publishing observes the period: under slurmctld's locks only copies are
 *  made (publish_note.c: the rows noted while jobs are weighed; here: the
 *  partitions under the job lock, the associations, QOS and TRES names under
 *  assoc_mgr's read locks).  This file hands the period's notes and copies to
 *  the library (fairway_publisher_end) after every lock, which
 *  decides what goes out and writes the files, so that the job write lock is
 *  held no longer than the weighing itself (bench/side-by-side measures it
 *  with and without).  The lines it tells are logged here.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "publish_state.h"

/* The associations, QOS and TRES names, copied under assoc_mgr's read locks. */
typedef struct {
	fairway_assoc_t *assocs;
	size_t n;
	uint32_t *qos_ids;
	char **qos_names;
	fairway_qos_info_t *qos_info;
	size_t nqos;
	char **tres_names; /* queue_tres, NULL: not copied */
	size_t tres_count;
	/* fairway_fairshare_tres: the listed TRES's names and (historical usage)
	 * each association's usage of each, [k * n + i]. */
	char *fs_tres[FAIRWAY_MAX_FAIRSHARE_TRES];
	int fs_tres_n;
	long double *fs_tres_usage;
} fw_copy_t;

/* What _tres_unused reads besides assoc_mgr. */
typedef struct {
	const fw_cfg_t *cfg;
	fw_held_t *held;
} fw_publish_use_t;

extern void fw_publish_parts_clear(fw_publish_t *pub)
{
	for (size_t i = 0; i < pub->nparts; i++)
		xfree(pub->part_name[i]);
	xfree(pub->part_name);
	xfree(pub->part_at);
	xfree(pub->part_info);
	pub->nparts = 0;
}

static int _foreach_part(void *x, void *arg)
{
	part_record_t *part = x;
	fw_publish_t *pub = arg;
	fairway_partition_info_t *info = &pub->part_info[pub->nparts];

	pub->part_at[pub->nparts] = part;
	pub->part_name[pub->nparts++] = xstrdup(part->name);
	info->priority_job_factor = part->priority_job_factor;
	info->norm_priority = part->norm_priority;
	info->priority_tier = part->priority_tier;
	info->total_cpus = part->total_cpus;
	info->total_nodes = part->total_nodes;
	return 0;
}

extern void fw_publish_copy_locked(fw_publish_t *pub)
{
	size_t n;

	/* Each hold that noted rows copies again: the last one is the one
	 * the rows' partition addresses belong to. */
	if (!pub || !pub->plan.rows || !part_list)
		return;
	fw_publish_parts_clear(pub);
	n = list_count(part_list);
	pub->part_at = xcalloc(n + 1, sizeof(*pub->part_at));
	pub->part_name = xcalloc(n + 1, sizeof(*pub->part_name));
	pub->part_info = xcalloc(n + 1, sizeof(*pub->part_info));
	list_for_each(part_list, _foreach_part, pub);
	pub->cluster_cpus = cluster_cpus;
	pub->cluster_nodes = FW_CLUSTER_NODES;
}

static void _copy_free(fw_copy_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		xfree(*(char **) &c->assocs[i].account);
		xfree(*(char **) &c->assocs[i].user);
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

static void _copy_assocs(fw_copy_t *c, const fw_cfg_t *cfg, size_t queue_tres)
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

/* fairway_unused_fn: no association has used listed TRES k: none of its
 * historical usage, or no running job holds any of it (fairway_usage).  arg:
 * the fw_publish_use_t.  Takes assoc_mgr's read locks. */
static int _tres_unused(size_t k, void *arg)
{
	const fw_publish_use_t *use = arg;
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .tres = READ_LOCK };
	int pos = use->cfg->fs_tres_pos[k];
	slurmdb_assoc_rec_t *assoc;
	bool unused = true;
	list_itr_t *it;

	if (fw_cfg_held(use->cfg)) {
		size_t n = 0;
		const fairway_running_job_t *held = fw_held_tres_jobs(use->held,
								      k, &n);

		for (size_t i = 0; i < n; i++)
			if (held[i].charge_rate > 0)
				return false;
		return true;
	}
	assoc_mgr_lock(&locks);
	if (!assoc_mgr_assoc_list) {
		assoc_mgr_unlock(&locks);
		return false;
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while (unused && (assoc = list_next(it))) {
		const slurmdb_assoc_usage_t *u = assoc->usage;

		if (u && u->usage_tres_raw && (pos >= 0) &&
		    (pos < (int) u->tres_cnt) && (u->usage_tres_raw[pos] > 0))
			unused = false;
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	return unused;
}

static void _say(const char *message, void *arg)
{
	info("%s: %s", plugin_type, message);
}

static void _say_error(const char *message, void *arg)
{
	error("%s: %s", plugin_type, message);
}

static double _seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

extern void fw_publish_end(fw_publish_t *pub, const fw_cfg_t *cfg,
			   const fw_period_record_t *rec)
{
	fairway_running_job_t *tres_running[FAIRWAY_MAX_FAIRSHARE_TRES] = { 0 };
	size_t tres_running_n[FAIRWAY_MAX_FAIRSHARE_TRES];
	const fairway_lane_t *lanes[FW_PUBLISH_LANES];
	fairway_publish_settings_t s = fw_publish_settings(cfg);
	fw_publish_use_t use = { .cfg = cfg, .held = rec->held };
	fairway_period_notes_t n = { .lanes = lanes,
				     .lane_count = FW_PUBLISH_LANES };
	fairway_publication_t p = { 0 };
	fw_copy_t c = { 0 };
	char *history = NULL;

	if (!pub)
		return;
	fw_publish_lane_leave();
	for (int l = 0; l < FW_PUBLISH_LANES; l++)
		lanes[l] = &pub->lanes[l].l;
	fairway_publisher_tell_ties(pub->publisher, &s, lanes, FW_PUBLISH_LANES,
				    _tres_unused, _say, &use);
	if (!pub->plan.rows ||
	    !(cfg->metrics_dir || cfg->history_days || cfg->starvation_minutes))
		return;
	pub->plan.rows = 0;

	_copy_assocs(&c, cfg, pub->queue_tres);
	n.partition_at = pub->part_at;
	n.qos_ids = c.qos_ids;
	n.walk = rec->now;
	n.where = cfg->metrics_dir ? cfg->metrics_dir :
				     slurm_conf.state_save_location;
	p.directory = cfg->metrics_dir;
	if (cfg->history_days) {
		history = xstrdup_printf("%s/fairway_history", n.where);
		p.history_dir = history;
		p.history_days = cfg->history_days;
	}
	p.slurm_release = SLURM_VERSION_STRING;
	p.lineage_order = FW_SLURM_AT_LEAST(23, 11);
	p.algo = cfg->algo;
	p.decay_exact = cfg->decay_exact;
	p.usage_basis = cfg->usage_basis;
	if (fw_cfg_held(cfg))
		p.running = fw_held_jobs(rec->held, &p.running_count);
	if (c.fs_tres_n) {
		p.fairshare_tres = (const char *const *) c.fs_tres;
		p.fairshare_tres_count = c.fs_tres_n;
		p.fairshare_tres_usage = c.fs_tres_usage;
	}
	/* Under a held basis each listed TRES's held jobs, copied
	 * (fw_held_tres_jobs reuses its buffer). */
	for (int k = 0; fw_cfg_held(cfg) && (k < c.fs_tres_n); k++) {
		const fairway_running_job_t *held =
			fw_held_tres_jobs(rec->held, k, &tres_running_n[k]);

		tres_running[k] = xcalloc(tres_running_n[k] + 1, sizeof(*held));
		if (tres_running_n[k])
			memcpy(tres_running[k], held,
			       tres_running_n[k] * sizeof(*held));
		p.fairshare_tres_running =
			(const fairway_running_job_t *const *) tres_running;
		p.fairshare_tres_running_count = tres_running_n;
	}
	p.dampening = cfg->damp;
	p.assocs = c.assocs;
	p.assoc_count = c.n;
	p.partitions = (const char *const *) pub->part_name;
	p.partition_count = pub->nparts;
	p.partition_info = pub->part_info;
	p.qos = (const char *const *) c.qos_names;
	p.qos_count = c.nqos;
	p.qos_info = c.qos_info;
	p.weights = &cfg->weights;
	p.decay_half_life = slurm_conf.priority_decay_hl;
	p.calc_period = slurm_conf.priority_calc_period;
	p.cluster_cpus = pub->cluster_cpus;
	p.cluster_nodes = pub->cluster_nodes;
	p.tres_names = (const char *const *) c.tres_names;
	p.shadow_file = cfg->shadow_file;
	p.period_end = time(NULL);
	p.period_seconds = _seconds_since(&rec->begin);
	p.job_lock_seconds = rec->job_lock_seconds;
	p.starvation_minutes = cfg->starvation_minutes;
	p.starvation_quantile = cfg->starvation_quantile;
	fairway_publisher_end(pub->publisher, &s, &n, &p, _say, _say_error,
			      NULL);
	xfree(history);
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++)
		xfree(tres_running[k]);
	_copy_free(&c);
}

extern void fw_publish_free(fw_publish_t **pubp)
{
	fw_publish_t *pub = *pubp;

	if (!pub)
		return;
	for (int i = 0; i < FW_PUBLISH_LANES; i++) {
		xfree(pub->lanes[i].l.rows);
		xfree(pub->lanes[i].l.jobv);
		xfree(pub->lanes[i].l.tres);
	}
	fw_publish_parts_clear(pub);
	fairway_publisher_destroy(&pub->publisher);
	free(pub);
	*pubp = NULL;
}
