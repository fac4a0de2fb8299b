/*****************************************************************************\
 *  held_usage.c - what running jobs hold, noted during the period's walk of
 *  job_list, for fairway_usage=allocated|committed: each running job's
 *  association, its charge rate (billable TRES x its QOS's UsageFactor, what a
 *  second of it charges to historical usage) and the seconds left to its end
 *  time (and, with fairway_fairshare_tres, what it was allocated of each
 *  listed TRES).  The core sums them up the association tree and fair-share compares
 *  the totals with shares (lib/core/held_usage.h); the same array goes to the
 *  per-period files.
 *
 *  Written by the walk (job write lock, assoc write lock, calc_lock) and read
 *  by the fair-share computation and publishing of the same period or by a
 *  reconfigure's recomputation, all under calc_lock.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

static fairway_running_job_t *g_held = NULL;
static size_t g_held_n = 0, g_held_cap = 0;
/* fairway_fairshare_tres: each job's allocated count of each listed TRES
 * times its usage factor (FAIRWAY_MAX_FAIRSHARE_TRES per job), and the jobs
 * handed out per TRES. */
static double *g_held_tres = NULL;
static fairway_running_job_t *g_tres_jobs = NULL;

extern void fw_held_reset(void)
{
	g_held_n = 0;
}

extern void fw_held_note(const fw_cfg_t *cfg, job_record_t *job_ptr,
			 time_t now)
{
	fairway_running_job_t *h;
	double rate, factor = 1.0;

	if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->assoc_id)
		return;
	rate = calc_job_billable_tres(job_ptr, now, true);
	if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0))
		factor = job_ptr->qos_ptr->usage_factor;
	rate *= factor;
	if (g_held_n == g_held_cap) {	/* grows with the running jobs */
		g_held_cap += g_held_cap / 2 + 256;
		xrecalloc(g_held, g_held_cap, sizeof(*g_held));
		xrecalloc(g_held_tres, g_held_cap * FAIRWAY_MAX_FAIRSHARE_TRES,
			  sizeof(*g_held_tres));
		xrecalloc(g_tres_jobs, g_held_cap, sizeof(*g_tres_jobs));
	}
	for (int k = 0; k < cfg->fs_tres_n; k++) {
		int pos = cfg->fs_tres_pos[k];

		g_held_tres[g_held_n * FAIRWAY_MAX_FAIRSHARE_TRES + k] =
			job_ptr->tres_alloc_cnt ?
			(double) job_ptr->tres_alloc_cnt[pos] * factor : 0.0;
	}
	h = &g_held[g_held_n++];
	h->assoc_id = job_ptr->assoc_id;
	h->charge_rate = rate;
	h->remaining_seconds = (job_ptr->end_time > now) ?
		difftime(job_ptr->end_time, now) : 0.0;
}

extern const fairway_running_job_t *fw_held_jobs(size_t *n)
{
	*n = g_held_n;
	return g_held;
}

extern const fairway_running_job_t *fw_held_tres_jobs(int k, size_t *n)
{
	*n = g_held_n;
	if (!g_held_n)
		return NULL;
	for (size_t i = 0; i < g_held_n; i++) {
		g_tres_jobs[i] = g_held[i];
		g_tres_jobs[i].charge_rate =
			g_held_tres[i * FAIRWAY_MAX_FAIRSHARE_TRES + k];
	}
	return g_tres_jobs;
}

extern void fw_held_free(void)
{
	xfree(g_held_tres);
	xfree(g_tres_jobs);
	xfree(g_held);
	g_held_n = g_held_cap = 0;
}
