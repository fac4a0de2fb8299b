/*****************************************************************************\
 *  settings.c - the Priority* settings of slurm.conf.
 *
 *  priority_p_reconfig runs without slurmctld's locks while the calculation
 *  thread, submits and sprio read the settings, so a settings object is
 *  immutable once published: readers hold a reference (fw_cfg_get/fw_cfg_put)
 *  for as long as they use it, and a reconfigure publishes a new object.
 *  g_cfg_lock is a leaf lock (nothing else is taken while holding it).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>
#include <strings.h>

#include "fairway_plugin.h"

#include "priority_flags.h"

static fw_cfg_t *g_cfg = NULL;
static pthread_mutex_t g_cfg_lock = PTHREAD_MUTEX_INITIALIZER;
/* Before init and after fini: no weights. */
static fw_cfg_t g_cfg_none = { .algo = FAIRWAY_ALGO_FAIR_TREE, .damp = 1.0 };

extern const fw_cfg_t *fw_cfg_get(void)
{
	fw_cfg_t *c;

	slurm_mutex_lock(&g_cfg_lock);
	if ((c = g_cfg))
		c->refs++;
	slurm_mutex_unlock(&g_cfg_lock);
	return c ? c : &g_cfg_none;
}

extern void fw_cfg_put(const fw_cfg_t *cfg)
{
	fw_cfg_t *c = (fw_cfg_t *) cfg;
	bool last;

	if (!c || (c == &g_cfg_none))
		return;
	slurm_mutex_lock(&g_cfg_lock);
	last = (--c->refs == 0);
	slurm_mutex_unlock(&g_cfg_lock);
	if (last) {
		xfree(c->tres);
		for (int k = 0; k < c->fs_tres_n; k++)
			xfree(c->fs_tres_name[k]);
		xfree(c->metrics_dir);
		xfree(c->shadow_file);
		xfree(c);
	}
}

/* Publish `c` (NULL: none) as the current settings. */
static void _cfg_publish(fw_cfg_t *c)
{
	fw_cfg_t *old;

	if (c)
		c->refs = 1;
	slurm_mutex_lock(&g_cfg_lock);
	old = g_cfg;
	g_cfg = c;
	slurm_mutex_unlock(&g_cfg_lock);
	fw_cfg_put(old);
}

/* What was logged last is in a fw_settings_log_t of the plugin's state
 * (zeroed: historical usage, no fairway_fairshare_tres list). */
_Static_assert(FAIRWAY_USAGE_HISTORICAL == 0, "a zeroed log says historical");
extern void fw_settings_clear(void)
{
	_cfg_publish(NULL);
}

static void _say_option(const char *message, void *arg)
{
	error("%s: %s", plugin_type, message);
}

/* Fairway's own options in PriorityParameters; a bad one is logged and
 * ignored (never a failed start). */
static void _options_read(fw_cfg_t *c)
{
	fairway_options_t o;
	fairway_error_t err = fairway_options_parse(slurm_conf.priority_params,
						    &o, _say_option, NULL);

	if (err != FAIRWAY_OK) {
		error("%s: PriorityParameters not read: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
		return;
	}
	if (o.metrics_dir[0])
		c->metrics_dir = xstrdup(o.metrics_dir);
	c->history_days = o.history_days;
	c->starvation_minutes = o.starvation_minutes;
	c->starvation_quantile = o.starvation_quantile;
	if (o.shadow_file[0])
		c->shadow_file = xstrdup(o.shadow_file);
	c->queue_jobs = o.queue_jobs;
	c->decay_exact = o.decay_exact;
	c->usage_basis = o.usage_basis;
	c->rerank_interval = o.rerank_interval;
	c->weigh_threads = o.weigh_threads;
	for (uint32_t k = 0; k < o.fairshare_tres_count; k++)
		c->fs_tres_name[c->fs_tres_n++] = xstrdup(o.fairshare_tres[k]);
}

/* The position of TRES `name` ("gres/gpu") in slurmctld's TRES arrays, or -1
 * (compared as Slurm names them, without regard to case). */
static int _tres_pos(const char *name)
{
	assoc_mgr_lock_t tres_read = { .tres = READ_LOCK };
	int pos = -1;

	assoc_mgr_lock(&tres_read);
	for (uint32_t i = 0; assoc_mgr_tres_name_array && (i < g_tres_count) &&
	     (i < slurmctld_tres_cnt);
	     i++) {
		if (assoc_mgr_tres_name_array[i] &&
		    !strcasecmp(assoc_mgr_tres_name_array[i], name)) {
			pos = (int) i;
			break;
		}
	}
	assoc_mgr_unlock(&tres_read);
	return pos;
}

/* fairway_fairshare_tres: each listed TRES found among those slurmctld tracks
 * (AccountingStorageTRES), the others refused with a line each; refused
 * under depth-oblivious, which walks assoc_mgr's own tree.  One line when the
 * list in force is set or changes. */
static void _fs_tres_check(fw_settings_log_t *log, fw_cfg_t *c)
{
	char list[sizeof(log->tres)] = "";
	int n = 0;

	if (c->fs_tres_n && (c->algo == FAIRWAY_ALGO_DEPTH_OBLIVIOUS)) {
		error("%s: PriorityParameters: fairway_fairshare_tres applies to Fair Tree and classic fair-share, not depth-oblivious; ignored (every job's fair-share compares billing)",
		      plugin_type);
		for (int k = 0; k < c->fs_tres_n; k++)
			xfree(c->fs_tres_name[k]);
		c->fs_tres_n = 0;
	}
	for (int k = 0; k < c->fs_tres_n; k++) {
		int pos = _tres_pos(c->fs_tres_name[k]);

		if (pos < 0) {
			error("%s: PriorityParameters: fairway_fairshare_tres: %s is not a TRES slurmctld tracks (AccountingStorageTRES), ignored",
			      plugin_type, c->fs_tres_name[k]);
			xfree(c->fs_tres_name[k]);
			continue;
		}
		c->fs_tres_name[n] = c->fs_tres_name[k];
		c->fs_tres_pos[n++] = pos;
		if (list[0])
			strcat(list, ",");
		strcat(list, c->fs_tres_name[n - 1]); /* 63 bytes at most */
	}
	for (int k = n; k < c->fs_tres_n; k++)
		c->fs_tres_name[k] = NULL;
	c->fs_tres_n = n;
	if (!strcmp(list, log->tres))
		return;
	if (list[0])
		info("%s: a job that mostly asks for one of %s gets the fair-share factor of its association's usage of it, every other job billing's (fairway_fairshare_tres)",
		     plugin_type, list);
	else
		info("%s: every job's fair-share factor compares billing, as multifactor's does",
		     plugin_type);
	strcpy(log->tres, list);
}

/* One line when fairway_usage is read other than historical, and one whenever
 * it changes at a reconfigure; the default alone logs nothing.  Depth-oblivious
 * walks assoc_mgr's own tree from historical usage: there it is refused. */
static void _usage_basis_check(fw_settings_log_t *log, fw_cfg_t *c)
{
	uint32_t logged = log->basis;

	if (fw_cfg_held(c) && (c->algo == FAIRWAY_ALGO_DEPTH_OBLIVIOUS)) {
		error("%s: PriorityParameters: fairway_usage=%s applies to Fair Tree and classic fair-share, not depth-oblivious; ignored (fair-share compares historical usage)",
		      plugin_type,
		      (c->usage_basis == FAIRWAY_USAGE_COMMITTED) ?
			      "committed" :
			      "allocated");
		c->usage_basis = FAIRWAY_USAGE_HISTORICAL;
		c->rerank_interval = 0;
	}
	if (c->usage_basis == logged)
		return;
	if (c->usage_basis == FAIRWAY_USAGE_ALLOCATED)
		info("%s: fair-share compares the billable TRES running jobs hold now with shares (fairway_usage=allocated); RawUsage stays historical usage",
		     plugin_type);
	else if (c->usage_basis == FAIRWAY_USAGE_COMMITTED)
		info("%s: fair-share compares the billable TRES running jobs hold, times the time left to their time limits, with shares (fairway_usage=committed); RawUsage stays historical usage",
		     plugin_type);
	else
		info("%s: fair-share compares historical usage with shares, as multifactor's does",
		     plugin_type);
	log->basis = c->usage_basis;
}

/* slurm.conf's PriorityWeight* of each weighted factor. */
static const struct {
	fairway_factor_t factor;
	const uint32_t *conf;
} _weight_conf[] = {
	{ FAIRWAY_FACTOR_AGE, &slurm_conf.priority_weight_age },
	{ FAIRWAY_FACTOR_ASSOC, &slurm_conf.priority_weight_assoc },
	{ FAIRWAY_FACTOR_FAIRSHARE, &slurm_conf.priority_weight_fs },
	{ FAIRWAY_FACTOR_JOB_SIZE, &slurm_conf.priority_weight_js },
	{ FAIRWAY_FACTOR_PARTITION, &slurm_conf.priority_weight_part },
	{ FAIRWAY_FACTOR_QOS, &slurm_conf.priority_weight_qos },
};

/* (Re)read the Priority* settings of slurm.conf, as multifactor's setup does;
 * without fair-share (no slurmdbd) the age and fair-share weights are 0. */
extern void fw_settings_read(fw_settings_log_t *log, bool fair_share)
{
	fw_cfg_t *c = xmalloc(sizeof(*c));
	fairway_weights_t *w = &c->weights;

	c->slurm_flags = slurm_conf.priority_flags;
	c->fair_share = fair_share;
	c->damp = (double) slurm_conf.fs_dampening_factor;
	if (c->damp < 1)
		c->damp = 1;

	for (size_t k = 0; k < sizeof(_weight_conf) / sizeof(*_weight_conf);
	     k++)
		w->weight[_weight_conf[k].factor] = *_weight_conf[k].conf;
	w->max_age = slurm_conf.priority_max_age;
	w->favor_small = slurm_conf.priority_favor_small;
	w->flags = fairway_flags_from_slurm(c->slurm_flags);
	/* Multifactor of this release: the core applies its rules. */
	w->slurm_release = SLURM_VERSION_NUMBER;

	c->tres = slurm_get_tres_weight_array(slurm_conf.priority_weight_tres,
					      slurmctld_tres_cnt, true);
	w->tres = c->tres;
	w->tres_count = c->tres ? slurmctld_tres_cnt : 0;
	c->algo = fairway_algorithm_from_flags(w->flags);

	if (!fair_share) {
		w->weight[FAIRWAY_FACTOR_AGE] = 0;
		w->weight[FAIRWAY_FACTOR_FAIRSHARE] = 0;
	}
	_options_read(c);
	_usage_basis_check(log, c);
	_fs_tres_check(log, c);

	log_flag(
		PRIO,
		"%s: weights age=%u assoc=%u fairshare=%u jobsize=%u partition=%u qos=%u maxage=%u flags=0x%x algorithm=%d",
		plugin_type, FW_WEIGHT(c, AGE), FW_WEIGHT(c, ASSOC),
		FW_WEIGHT(c, FAIRSHARE), FW_WEIGHT(c, JOB_SIZE),
		FW_WEIGHT(c, PARTITION), FW_WEIGHT(c, QOS), w->max_age,
		c->slurm_flags, c->algo);
	_cfg_publish(c);
}

extern fairway_algorithm_t fw_cfg_algo(void)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	fairway_algorithm_t a = cfg->algo;

	fw_cfg_put(cfg);
	return a;
}
