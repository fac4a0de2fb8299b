/*****************************************************************************\
 *  publish.c - what a period publishes for the tools sites already run: with
 *  PriorityParameters=fairway_metrics_dir=DIR a Prometheus text file for
 *  node_exporter's textfile collector and the association tree as a snapshot
 *  file for the fairway command; with fairway_history_days=N one record per
 *  association in DIR/fairway_history (StateSaveLocation/fairway_history
 *  without a metrics directory), kept N days, and a line per job that started
 *  with its place in the last order; with fairway_starvation_minutes
 *  one log line when a user starts and stops being starved of service
 *  (fairway_publish, lib/capi/fairway.h).
 *
 *  Publishing observes the period: under slurmctld's locks only copies are
 *  made (publish_note.c: one row per pending job and partition while jobs
 *  are weighed; publish_copy.c: the partitions under the job lock, the
 *  associations and QOS under assoc_mgr's read locks).  This file takes the
 *  period's record at its end, after every lock: fair-share is computed again
 *  from the copy and the files are written, so that the job write lock is
 *  held no longer than the weighing itself (bench/side-by-side measures it
 *  with and without).
 *
 *  A failure (an unwritable or missing directory, a full disk) is logged once
 *  when it starts and once when it ends; priorities never depend on it.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "publish_state.h"

static void _say_starvation(const char *message, void *arg)
{
	info("%s: %s", plugin_type, message);
}

static double _seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Log a failure when it starts or changes, and the recovery. */
static void _outcome(fw_publish_t *pub, const char *dir, const char *failure)
{
	if (!failure) {
		if (pub->last_failure)
			info("%s: fair-share published to %s again",
			     plugin_type, dir);
		xfree(pub->last_failure);
		return;
	}
	if (pub->last_failure && !xstrcmp(pub->last_failure, failure))
		return;
	error("%s: fair-share not published to %s: %s; priorities are not affected, retried every period",
	      plugin_type, dir, failure);
	xfree(pub->last_failure);
	pub->last_failure = xstrdup(failure);
}

/* The jobs this period weighed, for the next period's starts. */
static void _prev_ids_keep(fw_publish_t *pub, const fairway_pending_row_t *rows,
			   size_t n, time_t walk)
{
	pub->prev_n = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].first)
			continue;
		if (pub->prev_n == pub->prev_cap) {
			pub->prev_cap += pub->prev_cap / 4 + 1024;
			xrecalloc(pub->prev_ids, pub->prev_cap,
				  sizeof(*pub->prev_ids));
		}
		pub->prev_ids[pub->prev_n++] = rows[i].job_id;
	}
	if (pub->prev_n)
		qsort(pub->prev_ids, pub->prev_n, sizeof(*pub->prev_ids),
		      fw_publish_cmp_id);
	pub->last_walk = walk;
}

/* No association has used TRES k: none of its historical usage, or no
 * running job holds any of it (fairway_usage). */
static bool _tres_unused(const fw_cfg_t *cfg, fw_held_t *held_part, int k)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .tres = READ_LOCK };
	int pos = cfg->fs_tres_pos[k];
	slurmdb_assoc_rec_t *assoc;
	bool unused = true;
	list_itr_t *it;

	if (fw_cfg_held(cfg)) {
		size_t n = 0;
		const fairway_running_job_t *held = fw_held_tres_jobs(held_part,
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

/*
 * fairway_fairshare_tres: a listed TRES that makes every job or every
 * association tie (every pending job judged by it, with one factor; or, with
 * a job judged by it, no association's usage of it), told once when it starts
 * and once when it ends.
 */
static void _tell_ties(fw_publish_t *pub, const fw_cfg_t *cfg, fw_held_t *held)
{
	uint64_t jobs = 0;

	for (int l = 0; l < FW_PUBLISH_LANES; l++)
		jobs += pub->lanes[l].tally_jobs;
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++) {
		const char *name = (pub->tally && (k < cfg->fs_tres_n)) ?
			cfg->fs_tres_name[k] :
			NULL;
		uint64_t judged = 0;
		bool differ = false;
		double f = 0;
		int tie = FW_TIE_NONE;

		if (xstrcmp(name, pub->tie_name[k])) { /* another list */
			xfree(pub->tie_name[k]);
			pub->tie_name[k] = xstrdup(name);
			pub->tie[k] = FW_TIE_NONE;
		}
		if (!name)
			continue;
		for (int l = 0; l < FW_PUBLISH_LANES; l++) {
			const fw_lane_t *ln = &pub->lanes[l];

			if (!ln->tres_jobs[k])
				continue;
			if (!judged)
				f = ln->tres_factor[k];
			else if (ln->tres_factor[k] != f)
				differ = true;
			differ |= ln->tres_differ[k];
			judged += ln->tres_jobs[k];
		}
		if ((jobs > 1) && (judged == jobs) && !differ)
			tie = FW_TIE_JOBS;
		else if (judged &&
			 _tres_unused(cfg, held, k)) /* a job it ties */
			tie = FW_TIE_UNUSED;
		if (tie == pub->tie[k])
			continue;
		if (tie == FW_TIE_JOBS)
			info("%s: fairway_fairshare_tres: every pending job (%" PRIu64
			     ") is judged by its share of %s, and all get fair-share factor %.6f: fair-share orders none of them (a default a job is given, such as DefMemPerCPU or DefMemPerNode for mem, counts as asked for)",
			     plugin_type, jobs, name, f);
		else if (tie == FW_TIE_UNUSED)
			info("%s: fairway_fairshare_tres: no association has used %s: every job judged by its share of %s gets the same fair-share factor",
			     plugin_type, name, name);
		else
			info("%s: fairway_fairshare_tres: %s tells jobs apart again",
			     plugin_type, name);
		pub->tie[k] = tie;
	}
}

/* Whether the queue's details go out (every job's were noted: not with more
 * jobs than fairway_queue_jobs, one line per episode; the TRES weights'
 * names copied). */
static bool _queue_published(fw_publish_t *pub, const fw_cfg_t *cfg,
			     const fw_copy_t *c, bool over)
{
	bool queue = pub->noting_queue;

	if (cfg->metrics_dir && cfg->queue_jobs &&
	    ((pub->last_jobs > cfg->queue_jobs) || over)) {
		queue = false;
		if (!pub->queue_over_told)
			info("%s: %" PRIu64
			     " pending jobs, more than fairway_queue_jobs=%u: %s/fairway.json holds the association tree only%s until they are fewer",
			     plugin_type, pub->last_jobs, cfg->queue_jobs,
			     cfg->metrics_dir,
			     cfg->shadow_file ?
				     " and the shadow policy is not weighed" :
				     "");
		pub->queue_over_told = true;
	} else if (queue) {
		pub->queue_over_told = false;
	}
	/* TRES weights whose names could not be copied (never seen): the
	 * jobs' TRES factors could not be named. */
	if (queue && pub->queue_tres && (c->tres_count != pub->queue_tres))
		queue = false;
	return queue;
}

/* The lanes' job details and TRES factors in one array each, into p. */
static void _queue_gather(fw_publish_t *pub, const fw_cfg_t *cfg,
			  const fw_copy_t *c, fairway_publication_t *p)
{
	fairway_pending_job_t *jobs;
	size_t nj = 0, nt = 0;
	double *tres;

	for (int l = 0; l < FW_PUBLISH_LANES; l++) {
		nj += pub->lanes[l].njobs;
		nt += pub->lanes[l].ntres;
	}
	jobs = xcalloc(nj + 1, sizeof(*jobs));
	tres = xcalloc(nt + 1, sizeof(*tres));
	for (size_t l = 0, j = 0, t = 0; l < FW_PUBLISH_LANES; l++) {
		const fw_lane_t *ln = &pub->lanes[l];

		/* (A lane that noted nothing may have no buffer.) */
		if (ln->njobs)
			memcpy(jobs + j, ln->jobv, ln->njobs * sizeof(*jobs));
		for (size_t i = 0; i < ln->njobs; i++) {
			if (jobs[j + i].tres_at != SIZE_MAX)
				jobs[j + i].tres_at += t;
			/* The listed TRES could not be copied (changed since
			 * the walk): none judged. */
			if (!c->fs_tres_n)
				jobs[j + i].fairshare_tres = 0;
		}
		if (ln->ntres)
			memcpy(tres + t, ln->tres, ln->ntres * sizeof(*tres));
		j += ln->njobs;
		t += ln->ntres;
	}
	p->jobs = jobs;
	p->job_count = nj;
	p->tres_values = tres;
	p->tres_value_count = nt;
	p->partition_info = pub->parts.info;
	p->qos_info = c->qos_info;
	p->weights = &cfg->weights;
	p->decay_half_life = slurm_conf.priority_decay_hl;
	p->calc_period = slurm_conf.priority_calc_period;
	p->cluster_cpus = pub->parts.cluster_cpus;
	p->cluster_nodes = pub->parts.cluster_nodes;
	p->tres_names = (const char *const *) c->tres_names;
	p->shadow_file = cfg->shadow_file;
}

/* The noted rows with partitions and QOS by index in the copies (rows whose
 * partition is not in the copy left out); their number in *n. */
static fairway_pending_row_t *_rows(fw_publish_t *pub, const fw_copy_t *c,
				    bool queue, size_t nrows, size_t *n)
{
	fairway_pending_row_t *rows = xcalloc(nrows + 1, sizeof(*rows));
	size_t r = 0;

	fw_publish_parts_order(&pub->parts);
	for (int l = 0, job_base = 0; l < FW_PUBLISH_LANES;
	     job_base += pub->lanes[l].njobs, l++) {
		for (size_t i = 0; i < pub->lanes[l].n; i++) {
			const fw_note_t *note = &pub->lanes[l].v[i];
			uint32_t part = fw_publish_part_index(&pub->parts,
							      note->part);

			if (part == UINT32_MAX)
				continue;
			rows[r].partition = part;
			rows[r].qos = fw_publish_qos_index(c, note->qos_id);
			rows[r].priority = note->priority;
			rows[r].first = note->first;
			rows[r].submit_time = note->submit;
			rows[r].assoc_id = note->assoc_id;
			rows[r].job_id = note->job_id;
			rows[r].eligible_time = note->eligible;
			rows[r].waits_for_resources = note->resources;
			rows[r].job = (!queue || (note->job == UINT32_MAX)) ?
				UINT32_MAX :
				job_base + note->job;
			r++;
		}
	}
	*n = r;
	return rows;
}

/* fairway_fairshare_tres: the listed TRES's names and usage into p; under a
 * held usage basis each one's held jobs, copied into running[]
 * (fw_held_tres_jobs reuses its buffer). */
static void _fs_tres(const fw_cfg_t *cfg, const fw_copy_t *c,
		     fw_held_t *held_part, fairway_publication_t *p,
		     fairway_running_job_t *running[FAIRWAY_MAX_FAIRSHARE_TRES],
		     size_t running_n[FAIRWAY_MAX_FAIRSHARE_TRES])
{
	if (!c->fs_tres_n)
		return;
	p->fairshare_tres = (const char *const *) c->fs_tres;
	p->fairshare_tres_count = c->fs_tres_n;
	p->fairshare_tres_usage = c->fs_tres_usage;
	if (!fw_cfg_held(cfg))
		return;
	for (int k = 0; k < c->fs_tres_n; k++) {
		const fairway_running_job_t *held =
			fw_held_tres_jobs(held_part, k, &running_n[k]);

		running[k] = xcalloc(running_n[k] + 1, sizeof(*running[k]));
		if (running_n[k])
			memcpy(running[k], held, running_n[k] * sizeof(*held));
	}
	p->fairshare_tres_running =
		(const fairway_running_job_t *const *) running;
	p->fairshare_tres_running_count = running_n;
}

extern void fw_publish_end(fw_publish_t *pub, const fw_cfg_t *cfg,
			   const fw_period_record_t *rec)
{
	fairway_running_job_t *tres_running[FAIRWAY_MAX_FAIRSHARE_TRES] = { 0 };
	size_t tres_running_n[FAIRWAY_MAX_FAIRSHARE_TRES];
	fairway_publication_t p = { 0 };
	fairway_pending_row_t *rows;
	fw_copy_t c = { 0 };
	size_t nrows = 0, r = 0;
	uint64_t noted = 0;
	bool over = false, queue;
	const char *where = cfg->metrics_dir ? cfg->metrics_dir :
					       slurm_conf.state_save_location;
	char *history = NULL;
	fairway_error_t err;

	if (!pub)
		return;
	fw_publish_lane_leave();
	_tell_ties(pub, cfg, rec->held);
	for (int l = 0; l < FW_PUBLISH_LANES; l++) {
		nrows += pub->lanes[l].n;
		noted += pub->lanes[l].jobs;
		over |= pub->lanes[l].over;
	}
	if (!pub->noting ||
	    !(cfg->metrics_dir || cfg->history_days || cfg->starvation_minutes))
		return;
	pub->noting = false;

	fw_publish_copy_assocs(&c, cfg, pub->queue_tres);
	if (!c.n) {
		_outcome(pub, where,
			 "no association tree (is slurmdbd reachable?)");
		fw_publish_copy_free(&c);
		fw_publish_started_clear(pub);
		return;
	}
	pub->last_jobs = noted;
	queue = _queue_published(pub, cfg, &c, over);
	if (queue)
		_queue_gather(pub, cfg, &c, &p);
	rows = _rows(pub, &c, queue, nrows, &r);
	p.directory = cfg->metrics_dir;
	if (cfg->history_days) {
		history = xstrdup_printf("%s/fairway_history", where);
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
	_fs_tres(cfg, &c, rec->held, &p, tres_running, tres_running_n);
	p.dampening = cfg->damp;
	p.assocs = c.assocs;
	p.assoc_count = c.n;
	p.partitions = (const char *const *) pub->parts.name;
	p.partition_count = pub->parts.n;
	p.qos = (const char *const *) c.qos_names;
	p.qos_count = c.nqos;
	p.rows = rows;
	p.row_count = r;
	p.period_end = time(NULL);
	p.period_seconds = _seconds_since(&rec->begin);
	p.job_lock_seconds = rec->job_lock_seconds;
	p.jobs_weighed = pub->last_jobs;
	p.started = pub->started;
	p.started_count = pub->started_n;
	p.starvation_minutes = cfg->starvation_minutes;
	p.starvation_quantile = cfg->starvation_quantile;

	if (!pub->publisher &&
	    (fairway_publisher_new(&pub->publisher) != FAIRWAY_OK))
		error("%s: %s: starvation episodes are not followed",
		      plugin_type, fairway_last_error());
	err = fairway_publish(pub->publisher, &p, _say_starvation, NULL);
	_outcome(pub, where, (err == FAIRWAY_OK) ? NULL : fairway_last_error());
	/* After a failure the next period notes the starts since this
	 * period's predecessor again: none is lost. */
	if (err == FAIRWAY_OK)
		_prev_ids_keep(pub, rows, r, rec->now);
	fw_publish_started_clear(pub);
	xfree(history);
	xfree(rows);
	xfree(*(fairway_pending_job_t **) &p.jobs);
	xfree(*(double **) &p.tres_values);
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++)
		xfree(tres_running[k]);
	fw_publish_copy_free(&c);
}

extern void fw_publish_free(fw_publish_t **pubp)
{
	fw_publish_t *pub = *pubp;

	if (!pub)
		return;
	for (int i = 0; i < FW_PUBLISH_LANES; i++) {
		xfree(pub->lanes[i].v);
		xfree(pub->lanes[i].jobv);
		xfree(pub->lanes[i].tres);
	}
	fw_publish_parts_clear(&pub->parts);
	xfree(pub->parts.order);
	fw_publish_started_clear(pub);
	xfree(pub->started);
	xfree(pub->prev_ids);
	xfree(pub->last_failure);
	fairway_publisher_destroy(&pub->publisher);
	for (int k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++)
		xfree(pub->tie_name[k]);
	free(pub);
	*pubp = NULL;
}
