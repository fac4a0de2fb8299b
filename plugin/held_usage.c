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

/* The jobs are in a fw_held_t, a part of the plugin's state. */

extern void fw_held_reset(fw_held_t *held)
{
	held->n = 0;
}

extern void fw_held_note(fw_held_t *held, const fw_cfg_t *cfg,
			 job_record_t *job_ptr, time_t now)
{
	fairway_running_job_t *h;
	double rate, factor = 1.0;

	if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->assoc_id)
		return;
	rate = calc_job_billable_tres(job_ptr, now, true);
	if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0))
		factor = job_ptr->qos_ptr->usage_factor;
	rate *= factor;
	if (held->n == held->cap) { /* grows with the running jobs */
		held->cap += held->cap / 2 + 256;
		xrecalloc(held->jobs, held->cap, sizeof(*held->jobs));
		xrecalloc(held->tres, held->cap * FAIRWAY_MAX_FAIRSHARE_TRES,
			  sizeof(*held->tres));
		xrecalloc(held->tres_jobs, held->cap, sizeof(*held->tres_jobs));
	}
	for (int k = 0; k < cfg->fs_tres_n; k++) {
		int pos = cfg->fs_tres_pos[k];

		held->tres[held->n * FAIRWAY_MAX_FAIRSHARE_TRES + k] =
			job_ptr->tres_alloc_cnt ?
			(double) job_ptr->tres_alloc_cnt[pos] * factor :
			0.0;
	}
	h = &held->jobs[held->n++];
	h->assoc_id = job_ptr->assoc_id;
	h->charge_rate = rate;
	h->remaining_seconds = (job_ptr->end_time > now) ?
		difftime(job_ptr->end_time, now) :
		0.0;
}

extern const fairway_running_job_t *fw_held_jobs(const fw_held_t *held,
						 size_t *n)
{
	*n = held->n;
	return held->jobs;
}

extern const fairway_running_job_t *fw_held_tres_jobs(fw_held_t *held, int k,
						      size_t *n)
{
	*n = held->n;
	if (!held->n)
		return NULL;
	for (size_t i = 0; i < held->n; i++) {
		held->tres_jobs[i] = held->jobs[i];
		held->tres_jobs[i].charge_rate =
			held->tres[i * FAIRWAY_MAX_FAIRSHARE_TRES + k];
	}
	return held->tres_jobs;
}

extern void fw_held_free(fw_held_t *held)
{
	xfree(held->tres);
	xfree(held->tres_jobs);
	xfree(held->jobs);
	held->n = held->cap = 0;
}
