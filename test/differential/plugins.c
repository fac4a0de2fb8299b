/*****************************************************************************\
 *  plugins.c - the two priority plugins the harness runs: Slurm's own
 *  priority_multifactor.so, loaded by Slurm's plugin loader (priority_g_init,
 *  as slurmctld loads it) with its exported period functions found in it, and
 *  priority/fairway, loaded with dlopen beside it (the loader takes one
 *  priority plugin).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <dlfcn.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef FW_SLURM_PLUGINDIR /* from configure (SLURM_LIBDIR) */
#error "FW_SLURM_PLUGINDIR: the directory of Slurm's plugins, from configure"
#endif

const char *plugin_slurm_dir(void)
{
	return FW_SLURM_PLUGINDIR;
}

const char *plugin_mf_dir(void)
{
	const char *d = getenv("FW_DIFF_MF_DIR");
	return d ? d : "";
}

/* The priority_multifactor.so Slurm's loader loaded. */
static void *_mf_handle(void)
{
	char *path = xstrdup_printf("%s/priority_multifactor.so",
				    plugin_mf_dir()[0] ? plugin_mf_dir() :
							 plugin_slurm_dir());
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

	if (!h)
		fatal("dlopen NOLOAD %s: %s", path, dlerror());
	xfree(path);
	return h;
}

void plugin_find_mf(mf_plugin_t *mf)
{
	void *h = _mf_handle();

	mf->fair_tree_decay = dlsym(h, "fair_tree_decay");
	mf->weigh = dlsym(h, "decay_apply_weighted_factors");
	mf->charge = dlsym(h, "decay_apply_new_usage");
	mf->set_assoc_usage = dlsym(h, "priority_p_set_assoc_usage");
	if (!mf->fair_tree_decay || !mf->weigh || !mf->charge ||
	    !mf->set_assoc_usage)
		fatal("multifactor lacks fair_tree_decay/decay_apply_weighted_factors");
}

/* The classic branch of multifactor's decay thread, with its static helper
 * done through the exported priority_p_set_assoc_usage: accounts top-down,
 * users left for on-demand computation (usage_efctv NO_VAL).  An iterator,
 * not list_for_each: set_assoc_usage walks the same list (its siblings). */
static void _mf_classic_children(list_t *children,
				 void (*set_assoc_usage)(slurmdb_assoc_rec_t *))
{
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;

	if (!children)
		return;
	it = list_iterator_create(children);
	while ((a = list_next(it))) {
		if (a->user) {
			a->usage->usage_efctv = (long double) NO_VAL;
			continue;
		}
		set_assoc_usage(a);
		_mf_classic_children(a->usage->children_list, set_assoc_usage);
	}
	list_iterator_destroy(it);
}

/* Then each job charged and weighed, as
 * _decay_apply_new_usage_and_weighted_factors does. */
static const mf_plugin_t *g_mf;

static int _mf_charge_and_weigh(void *x, void *arg)
{
	if (g_mf->charge(x, arg))
		g_mf->weigh(x, arg);
	return 0;
}

/*
 * 25.11 on, classic and depth-oblivious: the end of the period stores the
 * fair-share factor of every job's association from its effective usage of
 * that moment, as multifactor's static _set_non_fair_tree_fs_factor and
 * _set_assoc_fs_factor do (not reachable through dlsym, so the harness states
 * their rule itself, independently of Fairway's core, which it tests;
 * --decay-thread runs multifactor's own).
 */
static int _mf_store_fs_factor(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	slurmdb_assoc_rec_t *assoc = job_ptr->assoc_ptr, *fs;
	uint16_t damp_factor = slurm_conf.fs_dampening_factor;

	if (!assoc)
		return 0;
	fs = (assoc->shares_raw == SLURMDB_FS_USE_PARENT) ?
		assoc->usage->fs_assoc_ptr :
		assoc;
	if (fuzzy_equal(fs->usage->usage_efctv, NO_VAL) ||
	    (fs->usage->shares_norm <= 0))
		assoc->usage->fs_factor = 0.0;
	else
		assoc->usage->fs_factor = pow(
			2.0,
			-((fs->usage->usage_efctv / fs->usage->shares_norm) /
			  damp_factor));
	return 0;
}

void plugin_mf_period(const mf_plugin_t *mf, time_t now)
{
	if (slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE) {
		mf->fair_tree_decay(job_list, now);
		return;
	}
	_mf_classic_children(assoc_mgr_root_assoc->usage->children_list,
			     mf->set_assoc_usage);
	g_mf = mf;
	list_for_each(job_list, _mf_charge_and_weigh, &now);
	if (FW_CLASSIC_STORES_FS_FACTOR)
		list_for_each(job_list, _mf_store_fs_factor, NULL);
}

void plugin_mf_thread_start(void)
{
	void (*thread_start)(void) = dlsym(_mf_handle(),
					   "priority_p_thread_start");

	if (thread_start)
		thread_start();
}

void plugin_load_fairway(fw_plugin_t *p)
{
	if (!(p->handle = dlopen(fw_opts.plugin_path, RTLD_LAZY | RTLD_LOCAL)))
		fatal("dlopen %s: %s", fw_opts.plugin_path, dlerror());
	p->init = dlsym(p->handle, "init");
	p->fini = dlsym(p->handle, "fini");
	p->reconfig = dlsym(p->handle, "priority_p_reconfig");
	p->set = dlsym(p->handle, "priority_p_set");
	p->set_assoc_usage = dlsym(p->handle, "priority_p_set_assoc_usage");
	p->factors = dlsym(p->handle, "priority_p_get_priority_factors_list");
	p->recalc = dlsym(p->handle, "priority_fairway_recalc");
	p->cycle = dlsym(p->handle, "priority_fairway_cycle");
	p->job_end = dlsym(p->handle, "priority_p_job_end");
	p->thread_start = dlsym(p->handle, "priority_p_thread_start");
	if (!p->init || !p->fini || !p->reconfig || !p->set ||
	    !p->set_assoc_usage || !p->factors || !p->recalc || !p->cycle ||
	    !p->job_end)
		fatal("%s lacks the entry points of priority/fairway",
		      fw_opts.plugin_path);
}

void plugin_start_mf(void)
{
	if (priority_g_init() != SLURM_SUCCESS)
		fatal("cannot load priority/multifactor");
	/* Its init starts the site_factor plugin only inside slurmctld, and
	 * from 24.11 a job's priority needs it started. */
	if (fw_site_factor_init() != SLURM_SUCCESS)
		fatal("cannot start the site_factor plugin");
	cluster_cpus = 64;
	priority_g_reconfig(false);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
}

void plugin_start_in_slurmctld(fw_plugin_t *fw)
{
	/* From 23.11 slurmctld calls init holding its config write lock,
	 * before it has read the nodes (cluster_cpus 0), and from 23.11.6
	 * starts the plugin's thread once they are read, still holding it.
	 * 23.11.0-23.11.5 start the thread in init: its first period waits
	 * for that lock, which this program does not take for real (no
	 * rwlocks), so the nodes are read before init there. */
	slurmctld_lock_t config_write_lock = { .conf = WRITE_LOCK,
					       .job = WRITE_LOCK,
					       .node = WRITE_LOCK,
					       .part = WRITE_LOCK };

	cluster_cpus = 64;
	if (FW_INIT_CALLER_LOCKS) {
		lock_slurmctld(config_write_lock);
		if (FW_LOADER_THREAD_START)
			cluster_cpus = 0;
	}
	if (!fw) {
		if (priority_g_init() != SLURM_SUCCESS)
			fatal("cannot load priority/multifactor");
	} else if (fw->init() != SLURM_SUCCESS) {
		fatal("fairway init failed");
	}
	/* 22.05 and 23.11.0-23.11.5 start the thread in init, with
	 * cluster_cpus already set: written again only under the config
	 * write lock. */
	if (FW_INIT_CALLER_LOCKS)
		cluster_cpus = 64;
	if (!fw)
		plugin_mf_thread_start();
	else if (fw->thread_start)
		fw->thread_start();
	if (FW_INIT_CALLER_LOCKS)
		unlock_slurmctld(config_write_lock);
}

void plugin_start_fairway(fw_plugin_t *fw)
{
	cluster_cpus = NO_VAL;
	plugin_load_fairway(fw);
	if (fw->init() != SLURM_SUCCESS)
		fatal("fairway init failed");
	cluster_cpus = 64;
	fw->reconfig(false);
}

void harness_usage(const char *argv0, const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", argv0, usage);
	exit(2);
}

void harness_options(int argc, char **argv, const char *shortopts,
		     const struct option *longopts,
		     bool (*option)(int opt, char *arg), const char *usage)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 :
						   argv[0];
	char all[64];
	int opt;

	snprintf(all, sizeof(all), "vp:%s", shortopts);
	fw_opts.plugin_path = getenv("FAIRWAY_PLUGIN");
	while ((opt = getopt_long(argc, argv, all, longopts, NULL)) != -1) {
		if (opt == 'v')
			fw_opts.verbose = 1;
		else if (opt == 'p')
			fw_opts.plugin_path = optarg;
		else if (!option(opt, optarg))
			harness_usage(argv[0], usage);
	}
	if (!fw_opts.plugin_path || !fw_opts.plugin_path[0]) {
		fprintf(stderr,
			"%s: no plugin: pass -p priority_fairway.so or set FAIRWAY_PLUGIN\n",
			prog);
		exit(2);
	}
}
