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

static void _say_setting(const char *message, void *arg)
{
	info("%s: %s", plugin_type, message);
}

/* Settle fairway_usage and fairway_fairshare_tres (fairway_options_settle)
 * with the names of the TRES slurmctld tracks (AccountingStorageTRES),
 * copied under assoc_mgr's TRES lock. */
static fairway_error_t _options_settle(fw_settings_log_t *log, fw_cfg_t *c,
				       fairway_options_t *o)
{
	assoc_mgr_lock_t tres_read = { .tres = READ_LOCK };
	char **names = NULL;
	size_t n = 0;
	fairway_error_t err;

	if (o->fairshare_tres_count) {
		assoc_mgr_lock(&tres_read);
		if (assoc_mgr_tres_name_array) {
			n = MIN(g_tres_count, slurmctld_tres_cnt);
			names = xcalloc(n ? n : 1, sizeof(*names));
			for (size_t i = 0; i < n; i++)
				names[i] =
					xstrdup(assoc_mgr_tres_name_array[i]);
		}
		assoc_mgr_unlock(&tres_read);
	}
	err = fairway_options_settle(o, c->algo, (const char *const *) names, n,
				     log, c->fs_tres_pos, _say_option,
				     _say_setting, NULL);
	for (size_t i = 0; i < n; i++)
		xfree(names[i]);
	xfree(names);
	return err;
}

/* Fairway's own options in PriorityParameters; a bad one is logged and
 * ignored (never a failed start), and options that do not apply to the
 * algorithm or the TRES tracked are refused with a line each.  A change of
 * fairway_usage or fairway_fairshare_tres since `log` is logged. */
static void _options_read(fw_settings_log_t *log, fw_cfg_t *c)
{
	fairway_options_t o;
	fairway_error_t err = fairway_options_parse(slurm_conf.priority_params,
						    &o, _say_option, NULL);

	if (err != FAIRWAY_OK) {
		error("%s: PriorityParameters not read: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
		memset(&o, 0, sizeof(o));
	}
	if ((err = _options_settle(log, c, &o)) != FAIRWAY_OK) {
		error("%s: PriorityParameters not settled: %s: %s", plugin_type,
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
	_options_read(log, c);

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
