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
 *  made into the library's publisher (fw_publish_t), one call per record
 *  (publish_note.c: the rows noted while jobs are weighed; here: the
 *  partitions under the job lock, the associations, QOS and TRES names under
 *  assoc_mgr's read locks); after every lock fairway_publisher_finish decides
 *  what goes out and writes the files.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

extern void fw_publish_begin(fw_publish_t **pubp, const fw_cfg_t *cfg)
{
	const fairway_publish_settings_t *s = &cfg->publish;
	fairway_publish_plan_t plan;

	if (fairway_publisher_begin(*pubp, s, &plan) ||
	    (!*pubp && !plan.rows && !plan.tally))
		return;
	if (!*pubp) {
		if (fairway_publisher_new(pubp))
			fatal("%s: out of memory for publishing", plugin_type);
		fairway_publisher_begin(*pubp, s, &plan);
	}
	/* From here on the calculation thread notes into lane 0. */
	fw_publish_lane(*pubp, (plan.rows || plan.tally) ? 0 : -1);
}

/* What _tres_unused reads besides assoc_mgr. */
typedef struct {
	const fw_cfg_t *cfg;
	fw_held_t *held;
} fw_publish_use_t;

static int _foreach_part(void *x, void *arg)
{
	part_record_t *part = x;
	fairway_partition_info_t info = {
		.priority_job_factor = part->priority_job_factor,
		.norm_priority = part->norm_priority,
		.priority_tier = part->priority_tier,
		.total_cpus = part->total_cpus,
		.total_nodes = part->total_nodes,
	};

	fairway_publisher_add_partition(arg, part, part->name, &info);
	return 0;
}

extern void fw_publish_copy_locked(fw_publish_t *pub)
{
	/* Each hold that noted rows copies again: the last one is the one
	 * the rows' partition addresses belong to. */
	if (!pub || !fairway_publisher_plan(pub)->rows || !part_list)
		return;
	fairway_publisher_partitions_begin(pub, cluster_cpus, FW_CLUSTER_NODES);
	list_for_each(part_list, _foreach_part, pub);
}

/* fairway_fairshare_tres: the names of the listed TRES, when the cluster
 * tracks every one; with the TRES read lock. */
static bool _copy_fs_tres_locked(fw_publish_t *p, const fw_cfg_t *cfg)
{
	const char *names[FAIRWAY_MAX_FAIRSHARE_TRES];

	if (!cfg->fs_tres_n || !assoc_mgr_tres_name_array)
		return false;
	for (int k = 0; k < cfg->fs_tres_n; k++) {
		int pos = cfg->fs_tres_pos[k];

		if ((pos < 0) || (pos >= g_tres_count) ||
		    !assoc_mgr_tres_name_array[pos])
			return false; /* the TRES changed: the next period */
		names[k] = assoc_mgr_tres_name_array[pos];
	}
	fairway_publisher_copy_fairshare_tres(p, names, cfg->fs_tres_n,
					      !fw_cfg_held(cfg));
	return true;
}

/* The association tree (with, under historical usage, each association's
 * usage of the listed TRES), QOS and TRES names; with assoc_mgr's read
 * locks. */
static void _copy_locked(fw_publish_t *p, const fw_cfg_t *cfg,
			 size_t queue_tres)
{
	bool usage = _copy_fs_tres_locked(p, cfg) && !fw_cfg_held(cfg);
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;

	if (assoc_mgr_assoc_list && assoc_mgr_root_assoc) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			long double tres[FAIRWAY_MAX_FAIRSHARE_TRES] = { 0 };
			fairway_assoc_t a;

			if (!assoc->usage)
				continue;
			fw_assoc_in(assoc, &a);
			for (int k = 0; usage && (k < cfg->fs_tres_n); k++)
				tres[k] = fw_assoc_tres_usage(
					assoc->usage, cfg->fs_tres_pos[k]);
			fairway_publisher_add_assoc(p, &a, tres);
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it))) {
			fairway_qos_info_t info = {
				.priority = qos->priority,
				.usage_factor = qos->usage_factor,
			};

			fairway_publisher_add_qos(p, qos->id, qos->name, &info);
		}
		list_iterator_destroy(it);
	}
	if (queue_tres && assoc_mgr_tres_name_array &&
	    (queue_tres <= g_tres_count))
		fairway_publisher_copy_tres(
			p, (const char *const *) assoc_mgr_tres_name_array,
			queue_tres);
}

static void _copy_assocs(fw_publish_t *p, const fw_cfg_t *cfg,
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
	_copy_locked(p, cfg, queue_tres);
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
	while (unused && (assoc = list_next(it)))
		if (assoc->usage &&
		    (fw_assoc_tres_usage(assoc->usage, pos) > 0))
			unused = false;
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	return unused;
}

extern void fw_publish_end(fw_publish_t *pub, const fw_cfg_t *cfg,
			   const fw_period_record_t *rec)
{
	const fairway_publish_settings_t *s = &cfg->publish;
	fw_publish_use_t use = { .cfg = cfg, .held = rec->held };
	fairway_period_end_t e = { .walk = rec->now, .begin = rec->begin };
	fairway_publication_t p = { 0 };

	if (!pub)
		return;
	fw_publish_lane(NULL, -1); /* nothing is noted from here on */
	fairway_publisher_tell_ties(pub, s, NULL, 0, _tres_unused, fw_say_info,
				    &use);
	if (!fairway_publisher_plan(pub)->rows ||
	    !(s->metrics_dir || s->history_days || s->starvation_minutes))
		return;

	_copy_assocs(pub, cfg, s->queue_tres);
	e.where = s->metrics_dir ? s->metrics_dir :
				   slurm_conf.state_save_location;
	(void) fairway_publication_from_options(&cfg->opt, &p);
	p.private_data = cfg->private_data;
	p.slurm_release = SLURM_VERSION_STRING;
	p.lineage_order = FW_SLURM_AT_LEAST(23, 11);
	p.algo = cfg->algo;
	if (fw_cfg_held(cfg))
		p.running = fw_held_jobs(rec->held, &p.running_count);
	/* Under a held basis each listed TRES's held jobs, copied
	 * (fw_held_tres_jobs reuses its buffer). */
	for (int k = 0; fw_cfg_held(cfg) && (k < cfg->fs_tres_n); k++) {
		size_t n = 0;
		const fairway_running_job_t *held = fw_held_tres_jobs(rec->held,
								      k, &n);

		fairway_publisher_copy_tres_running(pub, k, held, n);
	}
	p.dampening = cfg->damp;
	p.weights = &cfg->weights;
	p.decay_half_life = slurm_conf.priority_decay_hl;
	p.calc_period = slurm_conf.priority_calc_period;
	p.job_lock_seconds = rec->job_lock_seconds;
	fairway_publisher_finish(pub, s, &e, &p, fw_say_info, fw_say_error,
				 NULL);
}

extern void fw_publish_free(fw_publish_t **pubp)
{
	fairway_publisher_destroy(pubp);
}
