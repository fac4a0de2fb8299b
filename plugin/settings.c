/*****************************************************************************\
 *  settings.c - the Priority* settings of slurm.conf.
 *
 *  priority_p_reconfig runs without slurmctld's locks while the calculation
 *  thread, submits and sprio read the settings, so a settings object is
 *  immutable once published: readers hold a reference (fw_cfg_get/fw_cfg_put)
 *  for as long as they use it, and a reconfigure publishes a new object.  The
 *  library's fairway_settings_holder_t keeps the object in force and counts
 *  the references, under a leaf lock.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

#include "priority_flags.h"

static fairway_settings_holder_t *g_cfg = NULL;
/* Before init and after fini: no weights. */
static const fw_cfg_t g_cfg_none = { .algo = FAIRWAY_ALGO_FAIR_TREE,
				     .fs_reads = FAIRWAY_FS_READS_OWN_FS_FACTOR,
				     .damp = 1.0 };

extern const fw_cfg_t *fw_cfg_get(void)
{
	const fw_cfg_t *c = fairway_settings_holder_acquire(g_cfg);

	return c ? c : &g_cfg_none;
}

extern void fw_cfg_put(const fw_cfg_t *cfg)
{
	if (cfg != &g_cfg_none)
		fairway_settings_holder_release(g_cfg, cfg);
}

/* fairway_free_fn: a settings object neither in force nor held. */
static void _cfg_free(void *obj)
{
	fw_cfg_t *c = obj;

	xfree(c->tres);
	xfree(c);
}

/* What was logged last is in a fw_settings_log_t of the plugin's state
 * (zeroed: historical usage, no fairway_fairshare_tres list). */
_Static_assert(FAIRWAY_USAGE_HISTORICAL == 0, "a zeroed log says historical");
extern void fw_settings_clear(void)
{
	fairway_settings_holder_destroy(&g_cfg);
}

extern void fw_say_error(const char *message, void *arg)
{
	error("%s: %s", plugin_type, message);
}

extern void fw_say_info(const char *message, void *arg)
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
				     log, c->fs_tres_pos, fw_say_error,
				     fw_say_info, NULL);
	for (size_t i = 0; i < n; i++)
		xfree(names[i]);
	xfree(names);
	return err;
}

/* Fairway's own options in PriorityParameters, kept whole in c->opt; a bad
 * one is logged and ignored (never a failed start), and options that do not
 * apply to the algorithm or the TRES tracked are refused with a line each.  A
 * change of fairway_usage or fairway_fairshare_tres since `log` is logged.
 * Options that cannot be settled are all off. */
static void _options_read(fw_settings_log_t *log, fw_cfg_t *c)
{
	fairway_options_t *o = &c->opt;
	fairway_error_t err = fairway_options_parse(slurm_conf.priority_params,
						    o, fw_say_error, NULL);

	if (err != FAIRWAY_OK) {
		error("%s: PriorityParameters not read: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
		memset(o, 0, sizeof(*o));
	}
	if ((err = _options_settle(log, c, o)) != FAIRWAY_OK) {
		error("%s: PriorityParameters not settled: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
		memset(o, 0, sizeof(*o));
		return;
	}
	c->fs_tres_n = (int) o->fairshare_tres_count;
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

/* (Re)read the Priority* settings of slurm.conf, as multifactor's setup does,
 * and publish them; without fair-share (no slurmdbd) the age and fair-share
 * weights are 0.  log: what was logged last (only a change is logged). */
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
	c->fs_reads = fairway_job_fs_reads(c->algo, SLURM_VERSION_NUMBER);

	if (!fair_share) {
		w->weight[FAIRWAY_FACTOR_AGE] = 0;
		w->weight[FAIRWAY_FACTOR_FAIRSHARE] = 0;
	}
	_options_read(log, c);
	(void) fairway_publish_settings_from_options(&c->opt, c->fs_tres_name,
						     &c->publish);
	c->publish.queue_tres = w->tres ? w->tres_count : 0;
	c->publish.fair_share = FW_WEIGHT(c, FAIRSHARE) && fair_share;
	if (slurm_conf.private_data & PRIVATE_DATA_USAGE)
		c->private_data |= FAIRWAY_PRIVATE_DATA_USAGE;
	if (slurm_conf.private_data & PRIVATE_DATA_USERS)
		c->private_data |= FAIRWAY_PRIVATE_DATA_USERS;
	(void) fairway_private_data_tell(&c->opt, c->private_data, fw_say_info,
					 NULL);

	log_flag(
		PRIO,
		"%s: weights age=%u assoc=%u fairshare=%u jobsize=%u partition=%u qos=%u maxage=%u flags=0x%x algorithm=%d",
		plugin_type, FW_WEIGHT(c, AGE), FW_WEIGHT(c, ASSOC),
		FW_WEIGHT(c, FAIRSHARE), FW_WEIGHT(c, JOB_SIZE),
		FW_WEIGHT(c, PARTITION), FW_WEIGHT(c, QOS), w->max_age,
		c->slurm_flags, c->algo);
	if ((!g_cfg && fairway_settings_holder_new(_cfg_free, &g_cfg)) ||
	    fairway_settings_holder_set(g_cfg, c))
		fatal("%s: out of memory for the settings", plugin_type);
}

extern fairway_algorithm_t fw_cfg_algo(void)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	fairway_algorithm_t a = cfg->algo;

	fw_cfg_put(cfg);
	return a;
}
