/*****************************************************************************\
 *  slurm_compat.h - Slurm's internal API under one set of names for every
 *  supported release (22.05, 23.11, 24.11, 25.05, 25.11, 26.05) and any
 *  point release of them, keyed on SLURM_VERSION_NUMBER.  The other files of
 *  plugin/ include this header (through fairway_plugin.h) and test no
 *  version themselves, except the loader's list of entry points in
 *  priority_fairway.c; doc/architecture.md says what goes where.  A
 *  difference in multifactor's arithmetic goes to the core instead
 *  (fairway_weights_t.slurm_release).  The test programs that
 *  play slurmctld include it too (test/slurmctld/fake_slurmctld.h, which
 *  adds the names only they need).
 *
 *  What changed, by the first supported release that has it (23.02 and 24.05
 *  are not supported: a change that came in one of them is named at the next;
 *  point releases are named where a change came in one), each explained where
 *  it is defined below (the releases' tags in SchedMD's repository,
 *  src/interfaces/priority.c, src/common/assoc_mgr.h, src/common/job_record.h):
 *    23.11  interface headers in src/interfaces/; list_t and list_itr_t
 *           (lib/slurm/slurm_api.h); job_details_t; fw_prio_factors_t and
 *           sprio's row (fw_row_init, FW_ROW_DIRECT_EVERY_ROW,
 *           fw_row_factors); FW_CLUSTER_NODES; fw_site_factor_*;
 *           FW_SPRIO_CALLER_LOCKS; FW_INIT_CALLER_LOCKS; and in
 *           priority_fairway.c priority_p_recover and sprio's request.
 *    23.11.6  FW_LOADER_THREAD_START; FW_THREAD_WITHOUT_FAIR_SHARE;
 *           fw_user_is_coord.
 *    24.11  FW_JOB_QOS_LIST; fw_job_prio_array; FW_PLUGIN_SORTS_JOB_PARTITIONS;
 *           FW_QOS_RUN_SECS_PER_USER; no site_factor_g_reconfig; sprio's
 *           request gone (24.05).
 *    24.11.7, 25.05.1  FW_JOB_PRIO_MULT.
 *    25.11  FW_CLASSIC_STORES_FS_FACTOR; priority_p_calc_fs_factor gone.
 *    26.05  fw_row_init's step id.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef FAIRWAY_SLURM_COMPAT_H
#define FAIRWAY_SLURM_COMPAT_H

#include <string.h>

#include "slurm_api.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#include "src/interfaces/mcs.h"
#include "src/interfaces/priority.h"
#include "src/interfaces/site_factor.h"
#else
#include "src/common/site_factor.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#endif

#define FW_SLURM_AT_LEAST(a, b) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, 0))
#define FW_SLURM_AT_LEAST_MICRO(a, b, c) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

#if FW_SLURM_AT_LEAST(24, 11)
#include "src/common/state_save.h"
#include "src/slurmctld/acct_policy.h"
#endif

/* ---- records ---- */
/* A job's weighted factors (job->prio_factors). */
#if !FW_SLURM_AT_LEAST(23, 11)
typedef struct job_details job_details_t;
typedef priority_factors_object_t fw_prio_factors_t;
#else
typedef priority_factors_t fw_prio_factors_t;
#endif

/* The nodes the job-size factor is relative to. */
#if FW_SLURM_AT_LEAST(23, 11)
#define FW_CLUSTER_NODES ((uint32_t) active_node_record_count)
#else
#define FW_CLUSTER_NODES ((uint32_t) node_record_count)
#endif

/* A job's several QOS (NULL: one, job->qos_ptr). */
#if FW_SLURM_AT_LEAST(24, 11)
#define FW_JOB_QOS_LIST(job) ((job)->qos_list)
#else
#define FW_JOB_QOS_LIST(job) ((list_t *) NULL)
#endif

/* Whether the plugin sorts a job's partitions by PriorityTier before weighing
 * (22.05's and 23.11's multifactor did; later slurmctld keeps them sorted). */
#define FW_PLUGIN_SORTS_JOB_PARTITIONS (!FW_SLURM_AT_LEAST(24, 11))

/* 24.11 on: a job's priority_mult_t *, its priorities per (partition, QOS)
 * pair with their partitions' names: job->part_prio in 24.11.0-24.11.6 and
 * 25.05.0, job->prio_mult from 24.11.7 and 25.05.1. */
#if FW_SLURM_AT_LEAST_MICRO(25, 5, 1) || \
	(FW_SLURM_AT_LEAST_MICRO(24, 11, 7) && !FW_SLURM_AT_LEAST(25, 5))
#define FW_JOB_PRIO_MULT(job) ((job)->prio_mult)
#elif FW_SLURM_AT_LEAST(24, 11)
#define FW_JOB_PRIO_MULT(job) ((job)->part_prio)
#endif

/*
 * The array of a job's priorities per partition (22.05, 23.11) or per
 * (partition, QOS) pair (24.11 on, partition-major), allocated as that
 * release's multifactor does, for npairs entries (nparts partitions of
 * part_ptr_list, 0 without one, times nqos QOS of qos_list, 1 without one);
 * NULL when the job has no such array.  Caller holds the job write lock.
 */
static inline uint32_t *fw_job_prio_array(job_record_t *job_ptr, int nparts,
					  int nqos)
{
#if FW_SLURM_AT_LEAST(24, 11)
	priority_mult_t **mp = &FW_JOB_PRIO_MULT(job_ptr);
	int n;

	if (!job_ptr->part_ptr_list && !job_ptr->qos_list) {
		if (*mp) {
			xfree((*mp)->priority_array);
			xfree((*mp)->priority_array_names);
			xfree(*mp);
		}
		return NULL;
	}
	n = nparts ? nparts * nqos : nqos;
	if (!*mp)
		*mp = xmalloc(sizeof(**mp));
	/*
	 * Reallocated (zeroed) when missing or older than the last partition
	 * change, as multifactor does; also when its size is not the pairs'
	 * (slurmctld keeps the array when a job's QOS list changes, which
	 * multifactor then indexes past its end).
	 */
	if (!(*mp)->priority_array || ((*mp)->last_update < last_part_update) ||
	    (xsize((*mp)->priority_array) != n * sizeof(uint32_t))) {
		xfree((*mp)->priority_array);
		if (job_ptr->part_ptr_list) {
			xfree((*mp)->priority_array_names);
			(*mp)->priority_array_names =
				part_list_to_xstr(job_ptr->part_ptr_list);
		}
		(*mp)->priority_array = xcalloc(n, sizeof(uint32_t));
		(*mp)->last_update = time(NULL);
	}
	return (*mp)->priority_array;
#else
	(void) nqos;
	if (!job_ptr->part_ptr_list)
		return NULL;
	if (!job_ptr->priority_array)
		job_ptr->priority_array = xcalloc(nparts + 1, sizeof(uint32_t));
	return job_ptr->priority_array;
#endif
}

/* ---- sprio's rows ---- */
/*
 * sprio's rows are built in memory the caller provides (sprio_factors.c
 * allocates them in blocks and gives the list its own destructor): slurmctld
 * only counts, packs and then destroys the list, and nothing frees a row or
 * its arrays one by one.  fw_row_init fills a zeroed row for a job in
 * part_ptr (NULL: its only partition) and qos_ptr (NULL: its only QOS);
 * strings point into slurmctld's records (the list is packed under
 * slurmctld's locks from 23.11; on 22.05, as multifactor's, after them).
 */
#if FW_SLURM_AT_LEAST(23, 11)
/* Every row of a job with an administrator-set priority shows it alone. */
#define FW_ROW_DIRECT_EVERY_ROW 1
#else
/* Only the row of a job in one partition shows an administrator-set
 * priority alone; a job's rows in several partitions show its factors. */
#define FW_ROW_DIRECT_EVERY_ROW 0
#endif

static inline void fw_row_init(priority_factors_object_t *row,
			       job_record_t *job_ptr, part_record_t *part_ptr,
			       slurmdb_qos_rec_t *qos_ptr)
{
#if FW_SLURM_AT_LEAST(26, 5)
	row->step_id = job_ptr->step_id;
#else
	row->job_id = job_ptr->job_id;
#endif
	row->partition = part_ptr ? part_ptr->name : job_ptr->part_ptr->name;
	row->user_id = job_ptr->user_id;
#if FW_SLURM_AT_LEAST(23, 11)
	row->account = job_ptr->account;
	row->qos = qos_ptr	 ? qos_ptr->name :
		job_ptr->qos_ptr ? job_ptr->qos_ptr->name :
				   NULL;
#else
	(void) qos_ptr;
#endif
}

/* Bytes fw_row_factors stores beside the row for a copy of job_factors
 * (NULL: none): the factors' own struct from 23.11 on, and their arrays. */
static inline size_t fw_row_factors_size(const fw_prio_factors_t *job_factors)
{
	size_t n = FW_SLURM_AT_LEAST(23, 11) ? sizeof(fw_prio_factors_t) : 0;

	if (job_factors) {
		size_t cnt = job_factors->tres_cnt;

		if (job_factors->priority_tres)
			n += cnt * sizeof(double);
		if (job_factors->tres_weights)
			n += cnt * sizeof(double);
		if (job_factors->tres_names)
			n += cnt * sizeof(char *);
	}
	return n;
}

/* The row's factors, a copy of the job's (zero when it has none) as Slurm's
 * slurm_copy_priority_factors(_object) makes it: the struct copied, its
 * arrays copied into mem (fw_row_factors_size bytes, aligned for a double),
 * the TRES names' strings shared. */
static inline fw_prio_factors_t *
fw_row_factors(priority_factors_object_t *row,
	       const fw_prio_factors_t *job_factors, char *mem)
{
	fw_prio_factors_t *f;
	size_t cnt;

#if FW_SLURM_AT_LEAST(23, 11)
	f = (fw_prio_factors_t *) mem;
	mem += sizeof(*f);
	row->prio_factors = f;
	if (!job_factors) {
		memset(f, 0, sizeof(*f));
		return f;
	}
	*f = *job_factors;
#else
	f = row;
	if (!job_factors)
		return f;
	{
		/* The copy takes the job's ids and names too. */
		uint32_t job_id = row->job_id, user_id = row->user_id;
		char *partition = row->partition;

		*f = *job_factors;
		f->job_id = job_id;
		f->user_id = user_id;
		f->partition = partition;
	}
#endif
	cnt = job_factors->tres_cnt;
	if (job_factors->priority_tres) {
		f->priority_tres = (double *) mem;
		memcpy(mem, job_factors->priority_tres, cnt * sizeof(double));
		mem += cnt * sizeof(double);
	}
	if (job_factors->tres_weights) {
		f->tres_weights = (double *) mem;
		memcpy(mem, job_factors->tres_weights, cnt * sizeof(double));
		mem += cnt * sizeof(double);
	}
	if (job_factors->tres_names) {
		f->tres_names = (char **) mem;
		memcpy(mem, job_factors->tres_names, cnt * sizeof(char *));
	}
	return f;
}

/* Without fair-share (no slurmdbd, or no root association) multifactor still
 * runs its thread from 23.11.6 on (priority_p_thread_start starts it whatever
 * init found): every period it updates the site factor and weighs every job.
 * 22.05 weighed them once, at start; 23.11.0-23.11.5 once, when jobs are
 * recovered (priority_p_recover), and only without slurmdbd. */
#define FW_THREAD_WITHOUT_FAIR_SHARE FW_SLURM_AT_LEAST_MICRO(23, 11, 6)

/* Classic and depth-oblivious fair-share store each association's fair-share
 * factor (assoc->usage->fs_factor), which a job then reads, instead of
 * computing it from the effective usage whenever a job is weighed (25.11 on;
 * priority_p_calc_fs_factor left the loader's list then). */
#define FW_CLASSIC_STORES_FS_FACTOR FW_SLURM_AT_LEAST(25, 11)

/* Called with slurmctld's job, node and partition read locks (and assoc_mgr's
 * QOS read lock) held (23.11 on) or not (22.05: the plugin takes them). */
#define FW_SPRIO_CALLER_LOCKS FW_SLURM_AT_LEAST(23, 11)
/* init runs with slurmctld's config write lock (job write lock included) held
 * (23.11 on), and so does priority_p_thread_start where the loader has it
 * (23.11.6 on). */
#define FW_INIT_CALLER_LOCKS FW_SLURM_AT_LEAST(23, 11)
/* The loader calls priority_p_thread_start (23.11.6 on); before, the plugin
 * starts its calculation thread in init. */
#define FW_LOADER_THREAD_START FW_SLURM_AT_LEAST_MICRO(23, 11, 6)

/* ---- slurmctld's services ---- */
/* Whether uid coordinates the account; 23.11.6 added is_locked. */
static inline bool fw_user_is_coord(uid_t uid, char *account)
{
#if FW_SLURM_AT_LEAST_MICRO(23, 11, 6)
	return assoc_mgr_is_user_acct_coord(acct_db_conn, uid, account, false);
#else
	return assoc_mgr_is_user_acct_coord(acct_db_conn, uid, account);
#endif
}

#if FW_SLURM_AT_LEAST(24, 11)
#define fw_site_factor_init() site_factor_g_init()
#define fw_site_factor_fini() site_factor_g_fini()
#define fw_site_factor_reconfig() \
	do { \
	} while (0)
#elif FW_SLURM_AT_LEAST(23, 11)
#define fw_site_factor_init() site_factor_g_init()
#define fw_site_factor_fini() site_factor_g_fini()
#define fw_site_factor_reconfig() site_factor_g_reconfig()
#else
#define fw_site_factor_init() site_factor_plugin_init()
#define fw_site_factor_fini() site_factor_plugin_fini()
#define fw_site_factor_reconfig() site_factor_g_reconfig()
#endif

/*
 * Since 24.11 slurmctld keeps a QOS's reserved run seconds per account and per
 * user as well, and multifactor releases them with the QOS's own (and charges
 * no QOS for a job without an association).  fw_qos_used_run_secs: the job's
 * account's and user's arrays under qos (created when missing, as slurmctld
 * does).  Caller holds the QOS write lock.
 */
#if FW_SLURM_AT_LEAST(24, 11)
#define FW_QOS_RUN_SECS_PER_USER 1
static inline void fw_qos_used_run_secs(slurmdb_qos_rec_t *qos,
					job_record_t *job_ptr,
					uint64_t **acct_secs,
					uint64_t **user_secs)
{
	slurmdb_used_limits_t *a = acct_policy_get_acct_used_limits(
		&qos->usage->acct_limit_list, job_ptr->assoc_ptr->acct);
	slurmdb_used_limits_t *u = acct_policy_get_user_used_limits(
		&qos->usage->user_limit_list, job_ptr->user_id);

	*acct_secs = a->tres_run_secs;
	*user_secs = u->tres_run_secs;
}
#else
#define FW_QOS_RUN_SECS_PER_USER 0
static inline void fw_qos_used_run_secs(slurmdb_qos_rec_t *qos,
					job_record_t *job_ptr,
					uint64_t **acct_secs,
					uint64_t **user_secs)
{
	(void) qos;
	(void) job_ptr;
	*acct_secs = *user_secs = NULL;
}
#endif

#endif /* FAIRWAY_SLURM_COMPAT_H */
