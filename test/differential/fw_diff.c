/*****************************************************************************\
 *  fw_diff.c - differential test: Slurm's own priority_multifactor.so and
 *  priority/fairway on the same scenario, in one process, every number compared.
 *
 *  The program plays slurmctld (test/slurmctld/fake_slurmctld.c), loads
 *  multifactor through Slurm's own plugin loader (priority_g_init) and
 *  priority/fairway with dlopen, builds an association tree in assoc_mgr, QOS,
 *  partitions and a job list from a seeded random scenario (or a site's
 *  published tree), runs one calculation with each plugin and compares every
 *  association's shares_norm, usage_norm, usage_efctv, level_fs and fs_factor
 *  (as sshare reads them) and every job's priority, priority_array and
 *  prio_factors (as sprio reads them).  harness.h lists the parts.
 *
 *  Usage: fw_diff [-v] [-p PLUGIN.so] [-n COUNT] [-s FIRST_SEED] [--sites]
 *		   [--decay-thread | --reconfig-switch]
 *	Runs COUNT random scenarios from FIRST_SEED (each in a forked child so
 *	that assoc_mgr starts clean), plus four sites' trees with --sites.
 *	The last line is "N scenarios, M mismatches".
 *	--decay-thread: each plugin runs the period in its own calculation
 *	thread, started as slurmctld starts it, with the clock frozen at the
 *	scenario's time: random PriorityDecayHalfLife, PriorityUsageResetPeriod,
 *	time since the last period and since the last reset (multifactor's
 *	decay and reset code only runs in its thread).
 *	--reconfig-switch: priority/fairway starts under the other fair-share
 *	algorithm, calculates once, and is switched to the scenario's by a
 *	reconfigure; its next period is compared with multifactor started
 *	with the scenario's flags (a restarted controller).
 *  Environment: FAIRWAY_PLUGIN (the plugin without -p), FW_DIFF_MF_DIR (a
 *  directory with another build of priority_multifactor.so).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/*
 * --reconfig-switch: priority/fairway as in a controller started with the
 * other fair-share algorithm (associations normalized for it), one
 * calculation, then slurm.conf's flags changed and the plugin told, as
 * `scontrol reconfigure` does.  Its next period must give what multifactor
 * gave from a fresh start with the scenario's flags.
 */
static void _start_fairway_switched(fw_plugin_t *fw, time_t now)
{
	uint16_t want = slurm_conf.priority_flags, other;
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;

	if (want & PRIORITY_FLAGS_FAIR_TREE)
		other = (want & ~PRIORITY_FLAGS_FAIR_TREE) |
			(fw_chance(50) ? PRIORITY_FLAGS_DEPTH_OBLIVIOUS : 0);
	else
		other = (want & ~PRIORITY_FLAGS_DEPTH_OBLIVIOUS) |
			PRIORITY_FLAGS_FAIR_TREE;
	slurm_conf.priority_flags = other;
	world_normalize_all_shares();
	plugin_start_fairway(fw);
	if (fw->recalc(now - 600) != SLURM_SUCCESS)
		printf("NOTE %s: priority/fairway reported an error before the switch\n",
		       fw_world.scenario);
	/* The jobs as multifactor found them.  Depth-oblivious reads the
	 * usage values the last period stored, which a restarted controller
	 * does not have: forget them too (as state_reset does), keeping what
	 * the switch must mend (shares, Level FS, fair-share factor). */
	jobs_reset();
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		a->usage->usage_norm = (long double) NO_VAL;
		a->usage->usage_efctv = 0;
	}
	list_iterator_destroy(it);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	slurm_conf.priority_flags = want;
	fw->reconfig(false);
}

/* TRES run seconds still reserved and TRES usage of earlier periods (decayed
 * and reset like usage_raw), on every association; from 24.11 also the run
 * seconds reserved under a running job's QOS for its account and its user
 * (as slurmctld reserves them when a job starts; now and then none). */
static void _earlier_usage(void)
{
	slurmdb_assoc_rec_t *a;
	job_record_t *j;
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);

	while ((a = list_next(it)))
		for (int t = 0; t < g_tres_count; t++) {
			a->usage->grp_used_tres_run_secs[t] = fw_pick(1u << 30);
			a->usage->usage_tres_raw[t] = a->usage->usage_raw *
				(t + 1) / 4;
		}
	list_iterator_destroy(it);
	if (!FW_QOS_RUN_SECS_PER_USER)
		return;
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		uint64_t *acct_secs, *user_secs;

		if (!IS_JOB_RUNNING(j) || !j->qos_ptr || !j->assoc_ptr ||
		    fw_chance(10))
			continue;
		fw_qos_used_run_secs(j->qos_ptr, j, &acct_secs, &user_secs);
		for (int t = 0; t < g_tres_count; t++) {
			acct_secs[t] += fw_pick(1u << 30);
			user_secs[t] += fw_pick(1u << 30);
		}
	}
	list_iterator_destroy(it);
}

/* --decay-thread: a plugin started as slurmctld starts it, from the
 * scenario's state file and at the frozen `now`: its own thread runs a whole
 * period (reset, decay, accrual, fair-share, every job). */
static void _thread_period(const scenario_t *s, time_t now, fw_plugin_t *fw,
			   const char *who)
{
	world_write_state_file(now - s->since_last_ran,
			       s->last_reset_ago ? now - s->last_reset_ago : 0);
	if (fw)
		plugin_load_fairway(fw);
	plugin_start_in_slurmctld(fw);
	if (!world_wait_period(now))
		fatal("%s ran no period", who);
}

/* multifactor's period, captured as sshare and sprio read it. */
static void _run_mf(const scenario_t *s, time_t now, result_t *r)
{
	mf_plugin_t mf;

	if (fw_opts.thread_mode) {
		fw_frozen_now = now;
		_thread_period(s, now, NULL, "multifactor's decay thread");
	} else {
		plugin_start_mf();
	}
	plugin_find_mf(&mf);
	if (!fw_opts.thread_mode)
		plugin_mf_period(&mf, now);
	capture(r, mf.set_assoc_usage);
	capture_sprio(r, priority_g_get_priority_factors_list);
	capture_submit_and_end(r, priority_g_set, priority_g_job_end,
			       mf.set_assoc_usage, now);
	if (fw_opts.thread_mode) { /* stop multifactor's thread */
		priority_g_fini();
		world_remove_state_files();
	}
}

/* priority/fairway's, from the same state; fini'ed after the capture. */
static void _run_fairway(const scenario_t *s, time_t now, result_t *r)
{
	fw_plugin_t fw;
	int rc;

	if (fw_opts.thread_mode) {
		_thread_period(s, now, &fw, "Fairway's calculation thread");
	} else {
		if (fw_opts.switch_mode)
			_start_fairway_switched(&fw, now);
		else
			plugin_start_fairway(&fw);
		world_write_state_file(now - 50000, 0);
		rc = fw_world.use_recalc ? fw.recalc(now) : fw.cycle(now);
		if (rc != SLURM_SUCCESS)
			printf("NOTE %s: priority/fairway reported an error\n",
			       fw_world.scenario);
	}
	capture(r, fw.set_assoc_usage);
	capture_sprio(r, fw.factors);
	capture_submit_and_end(r, fw.set, fw.job_end, fw.set_assoc_usage, now);
	fw.fini();
}

/* -v: what the scenario was and what the period charged. */
static void _report(const scenario_t *s, const result_t *mf, int mismatches)
{
	long double charged = mf->a[0].u.usage_raw -
		capture_initial_root_usage();
	double tres = 0;

	for (int i = 0; i < mf->nj; i++)
		for (int t = 0; t < MAX_TRES; t++)
			tres += mf->j[i].tres[t];
	printf("%s: TRES factors sum %.3f (PriorityWeightTRES '%s')\n",
	       fw_world.scenario, tres, s->w_tres);
	printf("%s: %d associations, %d jobs (%s), flags '%s', usage charged to root %.0Lf: %d mismatches\n",
	       fw_world.scenario, mf->na, mf->nj,
	       fw_world.use_recalc ? "recalc" : "cycle", s->flags, charged,
	       mismatches);
}

/* One scenario, in its own process.  Returns bit 0: a mismatch; bit 1: sprio
 * rows that keep a TRES factor; bit 2: jobs with several QOS. */
static int _run_scenario(scenario_t *s, uint32_t seed)
{
	result_t r_mf = { 0 }, r_fw = { 0 };
	time_t now = FW_NOW;
	int mismatches;

	/* Every fourth scenario has no running job and is run with
	 * priority_fairway_recalc; the others with priority_fairway_cycle,
	 * which also charges the running jobs' usage.  A switch is seen by
	 * the period (classic leaves users' shares to the switch), not by a
	 * recalculation (it writes every association). */
	fw_world.use_recalc = !fw_opts.thread_mode && !fw_opts.switch_mode &&
		((seed % 4) == 0);
	/* Every third scenario: partitions changed before the submits. */
	fw_world.parts_changed = ((seed % 3) == 1);
	world_setup(s, seed, now, "fw_diff");
	/* TRES run seconds are released only when limits are enforced. */
	if (fw_opts.thread_mode)
		accounting_enforce = s->enforce_limits ?
			ACCOUNTING_ENFORCE_LIMITS :
			0;
	else
		accounting_enforce = fw_chance(50) ? ACCOUNTING_ENFORCE_LIMITS :
						     0;
	_earlier_usage();
	capture_initial();

	_run_mf(s, now, &r_mf);
	state_reset();
	_run_fairway(s, now, &r_fw);

	mismatches = compare_results(&r_mf, &r_fw);
	if (fw_opts.verbose)
		_report(s, &r_mf, mismatches);
	if (!fw_opts.thread_mode)
		priority_g_fini();
	result_free(&r_mf);
	result_free(&r_fw);
	capture_initial_free();
	world_remove_files();
	return (mismatches ? 1 : 0) | (capture_tres_kept_rows() ? 2 : 0) |
		(jobs_multi_qos() ? 4 : 0);
}

/* Scenarios whose sprio rows reached a partition lacking a TRES count, and
 * scenarios with jobs of several QOS. */
static int g_kept_tres_scenarios, g_multi_qos_scenarios;
/* Scenarios with PriorityFlags=MAX_TRES_GRES (25.05 on). */
static int g_max_tres_gres_scenarios;

/* 1 when the scenario's process found a mismatch or died. */
static int _fork_scenario(scenario_t *s, uint32_t seed)
{
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		fw_world.scenario = s->name;
		exit(_run_scenario(s, seed));
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(2);
	}
	if (WIFEXITED(status) && (WEXITSTATUS(status) <= 7)) {
		if (WEXITSTATUS(status) & 2)
			g_kept_tres_scenarios++;
		if (WEXITSTATUS(status) & 4)
			g_multi_qos_scenarios++;
		return WEXITSTATUS(status) & 1;
	}
	printf("ERROR %s: the scenario process died (status 0x%x)\n", s->name,
	       status);
	return 1;
}

static uint32_t g_first = 1, g_count = 100;
static bool g_sites;

static bool _option(int opt, char *arg)
{
	switch (opt) {
	case 'n':
		g_count = strtoul(arg, NULL, 10);
		return true;
	case 's':
		g_first = strtoul(arg, NULL, 10);
		return true;
	case 'S':
		g_sites = true;
		return true;
	case 'T':
		fw_opts.thread_mode = true;
		return true;
	case 'W':
		fw_opts.switch_mode = true;
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	static scenario_t s;
	int failed = 0, total = 0;
	static const struct option longopts[] = {
		{ "sites", no_argument, NULL, 'S' },
		{ "decay-thread", no_argument, NULL, 'T' },
		{ "reconfig-switch", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 }
	};

	harness_options(
		argc, argv, "n:s:", longopts, _option,
		"[-v] [-p plugin.so] [-n count] [-s first-seed] [--sites] [--decay-thread | --reconfig-switch]");
	for (int w = 0; g_sites && sc_site(&s, w); w++) {
		if (fw_opts.thread_mode) {
			fw_rng = (1000000 + w) * 0x9E3779B97F4A7C15ULL + 1;
			sc_thread_params(&s);
		}
		total++;
		failed += _fork_scenario(&s, 1000000 + w);
	}
	for (uint32_t seed = g_first; seed < g_first + g_count; seed++) {
		fw_rng = seed * 0x9E3779B97F4A7C15ULL + 1;
		sc_random(&s, seed);
		if (fw_opts.thread_mode)
			sc_thread_params(&s);
		total++;
		if (strstr(s.flags, "MAX_TRES_GRES"))
			g_max_tres_gres_scenarios++;
		failed += _fork_scenario(&s, seed);
	}
	printf("%d of %d scenarios compared sprio rows of a job in a partition that lacks a TRES count its first partition has (GPUs, no nodes)\n",
	       g_kept_tres_scenarios, total);
	if (FAKE_CTLD_MULTI_QOS)
		printf("%d of %d scenarios had jobs with several QOS\n",
		       g_multi_qos_scenarios, total);
#ifdef PRIORITY_FLAGS_MAX_TRES_GRES
	printf("%d of %d scenarios ran with PriorityFlags=MAX_TRES_GRES\n",
	       g_max_tres_gres_scenarios, total);
#endif
	printf("%d scenarios, %d mismatches\n", total, failed);
	return failed ? 1 : 0;
}
