/*****************************************************************************\
 *  held_usage.c - what running jobs hold, noted during the period's walk of
 *  job_list, for fairway_usage=allocated|committed: each running job's
 *  association, its charge rate (billable TRES x its QOS's UsageFactor) and the
 *  seconds left to its end time (and, with fairway_fairshare_tres, what it was
 *  allocated of each listed TRES), kept below the C API (fairway_held_jobs_t).
 *  Written by the walk and read by the fair-share computation and publishing,
 *  all under calc_lock.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

extern void fw_held_note(fw_held_t *held, const fw_cfg_t *cfg,
			 job_record_t *job_ptr, time_t now)
{
	fairway_running_job_t h = { .assoc_id = job_ptr->assoc_id };
	double tres[FAIRWAY_MAX_FAIRSHARE_TRES] = { 0 }, factor = 1.0;

	if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->assoc_id)
		return;
	if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0))
		factor = job_ptr->qos_ptr->usage_factor;
	h.charge_rate = calc_job_billable_tres(job_ptr, now, true) * factor;
	for (int k = 0; k < cfg->fs_tres_n; k++)
		if (job_ptr->tres_alloc_cnt)
			tres[k] =
				(double) job_ptr
					->tres_alloc_cnt[cfg->fs_tres_pos[k]] *
				factor;
	h.remaining_seconds = (job_ptr->end_time > now) ?
		difftime(job_ptr->end_time, now) :
		0.0;
	if (!held->jobs && !(held->jobs = fairway_held_jobs_new()))
		return;
	if (fairway_held_jobs_add(held->jobs, &h, tres, cfg->fs_tres_n))
		error("%s: %pJ not noted as running: %s", plugin_type, job_ptr,
		      fairway_last_error());
}
