/*****************************************************************************\
 *  job_lock.c - slurmctld's job write lock as a period takes it, with the time
 *  it is held added up (the fairway_period_job_lock_seconds metric).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

static const slurmctld_lock_t job_write_lock = { .job = WRITE_LOCK,
						 .node = READ_LOCK,
						 .part = READ_LOCK };

extern void fw_job_write_lock(fw_job_lock_t *l)
{
	lock_slurmctld(job_write_lock);
	clock_gettime(CLOCK_MONOTONIC, &l->taken);
}

extern void fw_job_write_unlock(fw_job_lock_t *l)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	l->seconds += (t.tv_sec - l->taken.tv_sec) +
		(t.tv_nsec - l->taken.tv_nsec) / 1e9;
	unlock_slurmctld(job_write_lock);
}

extern void fw_job_lock_timing_reset(fw_job_lock_t *l)
{
	l->seconds = 0;
}
