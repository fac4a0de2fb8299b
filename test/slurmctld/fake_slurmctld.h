/*****************************************************************************\
 *  fake_slurmctld.h - what only slurmctld defines, for the test programs that
 *  run a priority plugin outside slurmctld.
 *
 *  A priority plugin calls a few functions and reads a few globals that
 *  slurmctld itself provides and libslurmfull does not: the controller's locks,
 *  the job and partition lists, find_part_record, validate_operator,
 *  cluster_cpus, accounting_enforce, ...  fake_slurmctld.c defines them once
 *  for two kinds of program:
 *   - the differential harness (test/differential/fw_diff, fw_soak,
 *     bench/fw_bench), which links the real libslurmfull and loads Slurm's
 *     priority_multifactor.so and priority/fairway with dlopen; it links with
 *     -rdynamic so that both plugins bind to these definitions;
 *   - the shim test (test/plugin/test_shim), which links
 *     plugin/priority_fairway.c itself with a mocked libslurmfull
 *     (test/plugin/fake_slurm.c).
 *  What each program watches goes through hooks: the harness times how long
 *  the job write lock is held, the shim test checks which locks are taken in
 *  which order.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#ifndef FAKE_SLURMCTLD_H
#define FAKE_SLURMCTLD_H

#include <stdbool.h>
#include <sys/types.h>

#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

/* Observers of the fake controller; a NULL member is not called. */
typedef struct {
	void *ctx;
	/* lock_slurmctld, after the locks are taken */
	void (*locked)(void *ctx, slurmctld_lock_t locks);
	/* unlock_slurmctld, before the locks are released */
	void (*unlocking)(void *ctx, slurmctld_lock_t locks);
	/* validate_operator's answer (NULL: only root is an operator) */
	bool (*is_operator)(void *ctx, uid_t uid);
	/* calc_job_billable_tres was called, with the caller's assoc_mgr_locked */
	void (*billable_tres)(void *ctx, job_record_t *job, bool assoc_mgr_locked);
} fake_ctld_hooks_t;

/* Install observers (NULL: none). */
extern void fake_ctld_set_hooks(const fake_ctld_hooks_t *hooks);

/*
 * Off (the default): lock_slurmctld and unlock_slurmctld lock nothing, for a
 * program with one thread touching slurmctld's data.  On: real read/write
 * locks, taken in slurmctld's order (config, job, node, partition,
 * federation), for a program whose threads play slurmctld's.
 */
extern void fake_ctld_use_rwlocks(bool on);

/* Free a job's computed priority: prio_factors and priority_array. */
extern void fake_ctld_free_priority(job_record_t *job);

/* Free a job record and what it owns, as slurmctld's purge does (a ListDelF). */
extern void fake_ctld_free_job(void *job);

#endif
