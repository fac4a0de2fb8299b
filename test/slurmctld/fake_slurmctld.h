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
#include <string.h>
#include <sys/types.h>

/* Slurm's internal API under one set of names for every supported release
 * (plugin/slurm_compat.h); what only these programs need is below, guarded
 * the same way. */
#include "slurm_compat.h"

/* A row's job id, its job's account and QOS name (NULL before 23.11), and its
 * factors (NULL for a job with an administrator-set priority from 23.11 on;
 * the row itself before). */
#if FW_SLURM_AT_LEAST(26, 5)
#define FW_ROW_JOB_ID(row) ((row)->step_id.job_id)
#else
#define FW_ROW_JOB_ID(row) ((row)->job_id)
#endif
#if FW_SLURM_AT_LEAST(23, 11)
#define FW_ROW_ACCOUNT(row) ((row)->account)
#define FW_ROW_QOS(row) ((row)->qos)
#define FW_ROW_FACTORS(row) ((row)->prio_factors)
#else
#define FW_ROW_ACCOUNT(row) ((char *) NULL)
#define FW_ROW_QOS(row) ((char *) NULL)
#define FW_ROW_FACTORS(row) (row)
#endif

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
	void (*billable_tres)(void *ctx, job_record_t *job,
			      bool assoc_mgr_locked);
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
/* Takes (take) or releases the locks slurmctld holds around a call into the
 * plugin, as lock_slurmctld/unlock_slurmctld do but without their hooks: the
 * plugin's own threads then wait for them as they would in slurmctld. */
extern void fake_ctld_caller_locks(slurmctld_lock_t locks, bool take);

/* Free a job's computed priority: prio_factors and its priorities per
 * partition (22.05: priority_array) or per (partition, QOS) pair (24.11 on:
 * part_prio, 24.11.7 and 25.05.1 on: prio_mult). */
extern void fake_ctld_free_priority(job_record_t *job);

/* Free a job record and what it owns, as slurmctld's purge does (a ListDelF). */
extern void fake_ctld_free_job(void *job);

/* A new job record's id: job_id, not an array task, and from 25.11 the
 * step_id slurmctld sets with it (the record's first member, which sprio's
 * rows copy from 26.05). */
static inline void fake_ctld_job_set_id(job_record_t *job, uint32_t job_id)
{
	job->job_id = job_id;
	job->array_task_id = NO_VAL;
#if FW_SLURM_AT_LEAST(25, 11)
	job->step_id = SLURM_STEP_ID_INITIALIZER;
	job->step_id.job_id = job_id;
#endif
}

/* The nodes of the cluster: node_record_count and, from 23.11 (the job-size
 * factor counts them), active_node_record_count. */
static inline void fake_ctld_set_node_count(int n)
{
	node_record_count = n;
#if FW_SLURM_AT_LEAST(23, 11)
	active_node_record_count = n;
#endif
}

/* ---- a job's several QOS (24.11 on) ---- */
/* Whether jobs may ask for several QOS (job->qos_list). */
#define FAKE_CTLD_MULTI_QOS FW_SLURM_AT_LEAST(24, 11)

/* Give a job several QOS (a list of slurmdb_qos_rec_t *, at least two, the
 * job's from now on), sorted as slurmctld sorts them (priority_sort_qos_desc,
 * highest priority first).  Does nothing before 24.11 (FAKE_CTLD_MULTI_QOS). */
static inline void fake_ctld_job_set_qos_list(job_record_t *job, list_t *qos)
{
#if FW_SLURM_AT_LEAST(24, 11)
	list_sort(qos, priority_sort_qos_desc);
	job->qos_list = qos;
#else
	(void) job;
	FREE_NULL_LIST(qos);
#endif
}

/* ---- what a plugin computed ---- */
/*
 * A job's priorities per partition (22.05) or per (partition, QOS) pair (24.11
 * on): the array, NULL when the job has none, its entries in *n (22.05: one
 * per partition of part_ptr_list; 24.11 on: as allocated), and the partition
 * names stored with it in *names (NULL before 24.11 and without several
 * partitions).  Uses libslurmfull's xsize (the differential harness only).
 */
static inline uint32_t *fake_ctld_prio_array(job_record_t *job, int *n,
					     const char **names)
{
#if FW_SLURM_AT_LEAST(24, 11)
	priority_mult_t *m = FW_JOB_PRIO_MULT(job);

	*n = 0;
	*names = NULL;
	if (!m)
		return NULL;
	*names = m->priority_array_names;
	if (m->priority_array)
		*n = xsize(m->priority_array) / sizeof(uint32_t);
	return m->priority_array;
#else
	*names = NULL;
	*n = (job->priority_array && job->part_ptr_list) ?
		list_count(job->part_ptr_list) :
		0;
	return job->priority_array;
#endif
}

/* 24.11 on: the run seconds of an entry of a QOS's acct_limit_list or
 * user_limit_list (NULL before: those lists are not charged then). */
static inline uint64_t *fake_ctld_used_run_secs(slurmdb_used_limits_t *u)
{
#if FW_SLURM_AT_LEAST(24, 11)
	return u->tres_run_secs;
#else
	(void) u;
	return NULL;
#endif
}

/* ---- sprio ---- */
/* priority_p_get_priority_factors_list: with sprio's request (22.05; 23.11
 * passes NULL for a 23.02 or later client, whose command filters the rows
 * itself), or only the uid (24.11 on). */
#if FW_SLURM_AT_LEAST(24, 11)
typedef list_t *fake_sprio_f(uid_t uid);
#else
typedef list_t *fake_sprio_f(priority_factors_request_msg_t *req, uid_t uid);
#endif

/* What sprio asks for: job ids and user ids (lists of uint32_t *, NULL: all),
 * partitions (comma-separated names, NULL: all). */
typedef struct {
	list_t *job_ids;
	list_t *user_ids;
	const char *partitions;
} fake_sprio_req_t;

#if FW_SLURM_AT_LEAST(23, 11)
static inline int _fake_sprio_find_u32(void *x, void *key)
{
	return *(uint32_t *) x == *(uint32_t *) key;
}

/* The sprio command's filter (src/sprio/filter.c): true drops the row. */
static inline int _fake_sprio_drop_row(void *x, void *arg)
{
	priority_factors_object_t *row = x;
	const fake_sprio_req_t *req = arg;
	uint32_t job_id = FW_ROW_JOB_ID(row);
	bool in_part = false;

	if (req->job_ids &&
	    !list_find_first(req->job_ids, _fake_sprio_find_u32, &job_id))
		return 1;
	if (req->user_ids &&
	    !list_find_first(req->user_ids, _fake_sprio_find_u32,
			     &row->user_id))
		return 1;
	if (req->partitions) {
		const char *p = req->partitions;
		size_t len = row->partition ? strlen(row->partition) : 0;

		while (!in_part && p && *p) {
			const char *end = strchr(p, ',');
			size_t l = end ? (size_t) (end - p) : strlen(p);

			in_part = row->partition && (l == len) &&
				!strncmp(p, row->partition, l);
			p = end ? end + 1 : NULL;
		}
		if (!in_part)
			return 1;
	}
	return 0;
}
#endif

/*
 * sprio's rows for uid, as the sprio command ends up with them (NULL: none):
 * 22.05 hands the request to the plugin, which filters; from 23.11 the plugin
 * returns every row uid may see and the rows the request does not ask for are
 * dropped here, as the command does.  The caller holds the locks slurmctld
 * holds around the call (FW_SPRIO_CALLER_LOCKS).
 */
static inline list_t *fake_ctld_sprio(fake_sprio_f *factors,
				      const fake_sprio_req_t *req, uid_t uid)
{
#if FW_SLURM_AT_LEAST(23, 11)
#if FW_SLURM_AT_LEAST(24, 11)
	list_t *rows = factors(uid);
#else
	list_t *rows = factors(NULL, uid);
#endif

	if (rows && (req->job_ids || req->user_ids || req->partitions)) {
		(void) list_delete_all(rows, _fake_sprio_drop_row,
				       (void *) req);
		if (!list_count(rows)) /* as a plugin returns no rows */
			FREE_NULL_LIST(rows);
	}
	return rows;
#else
	priority_factors_request_msg_t msg;
	list_t *rows;

	memset(&msg, 0, sizeof(msg));
	msg.job_id_list = req->job_ids;
	msg.uid_list = req->user_ids;
	msg.partitions = xstrdup(req->partitions);
	rows = factors(&msg, uid);
	xfree(msg.partitions);
	return rows;
#endif
}

/* Whether slurmctld hands the plugin the request of a sprio command older than
 * 23.02 (23.11; 22.05 hands every request, 24.11 on none). */
#define FAKE_CTLD_SPRIO_OLD_CLIENT \
	(FW_SLURM_AT_LEAST(23, 11) && !FW_SLURM_AT_LEAST(24, 11))

/* sprio's rows for uid as a command older than 23.02 asks for them on 23.11:
 * the request goes to the plugin, which filters (NULL on other releases). */
static inline list_t *fake_ctld_sprio_old_client(fake_sprio_f *factors,
						 const fake_sprio_req_t *req,
						 uid_t uid)
{
#if FAKE_CTLD_SPRIO_OLD_CLIENT
	priority_factors_request_msg_t msg;
	list_t *rows;

	memset(&msg, 0, sizeof(msg));
	msg.job_id_list = req->job_ids;
	msg.uid_list = req->user_ids;
	msg.partitions = xstrdup(req->partitions);
	rows = factors(&msg, uid);
	xfree(msg.partitions);
	return rows;
#else
	(void) factors;
	(void) req;
	(void) uid;
	return NULL;
#endif
}

/* ---- mocks of libslurmfull (test/plugin/fake_slurm.c) ---- */
/* list_append returns nothing from 23.11 on: the mock's return type and its
 * return statement. */
#if FW_SLURM_AT_LEAST(23, 11)
typedef void fake_list_append_ret_t;
#define FAKE_LIST_APPEND_RETURN(x) return
#else
typedef void *fake_list_append_ret_t;
#define FAKE_LIST_APPEND_RETURN(x) return (x)
#endif
/* assoc_mgr_is_user_acct_coord's last parameter from 23.11.6 on. */
#if FW_SLURM_AT_LEAST_MICRO(23, 11, 6)
#define FAKE_COORD_IS_LOCKED_PARAM , bool is_locked
#else
#define FAKE_COORD_IS_LOCKED_PARAM
#endif
/* Copying a job's factors into a row of sprio's. */
#if FW_SLURM_AT_LEAST(23, 11)
#define fake_copy_prio_factors slurm_copy_priority_factors
#else
#define fake_copy_prio_factors slurm_copy_priority_factors_object
#endif

#endif
