/*****************************************************************************\
 *  sprio_factors.c - sprio's rows: every pending job's weighted factors, one row per
 *  partition of a job submitted to several (multifactor's
 *  priority_p_get_priority_factors_list and _filter_job), with PrivateData=jobs
 *  enforced here as multifactor does.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

#include "src/common/slurm_mcs.h"

static int _find_ptr(void *x, void *key)
{
	return x == key;
}

static int _find_uint32(void *x, void *key)
{
	return *(uint32_t *) x == *(uint32_t *) key;
}

/* Does list (of part_record_t *) hold part_ptr? */
static bool _part_in_list(List list, part_record_t *part_ptr)
{
	return list_find_first(list, _find_ptr, part_ptr) != NULL;
}

/* Append sprio's records of one job to ret_list (multifactor's _filter_job). */
static void _append_job_factors(const fw_cfg_t *cfg, job_record_t *job_ptr,
				priority_factors_request_msg_t *req_msg,
				List part_filter, List ret_list)
{
	priority_factors_object_t *obj;
	part_record_t *part_ptr;
	ListIterator it;

	if (req_msg && req_msg->job_id_list &&
	    !list_find_first(req_msg->job_id_list, _find_uint32,
			     &job_ptr->job_id))
		return;
	if (req_msg && req_msg->uid_list &&
	    !list_find_first(req_msg->uid_list, _find_uint32,
			     &job_ptr->user_id))
		return;
	/* A job whose partition was deleted has nothing to show. */
	if (!job_ptr->part_ptr && !job_ptr->part_ptr_list)
		return;

	if (!job_ptr->part_ptr_list) {
		if (part_filter && !_part_in_list(part_filter, job_ptr->part_ptr))
			return;
		obj = xmalloc(sizeof(*obj));
		if (job_ptr->direct_set_prio)
			obj->direct_prio = job_ptr->priority;
		else
			slurm_copy_priority_factors_object(obj,
							   job_ptr->prio_factors);
		obj->job_id = job_ptr->job_id;
		obj->partition = job_ptr->part_ptr->name;
		obj->user_id = job_ptr->user_id;
		list_append(ret_list, obj);
		return;
	}

	it = list_iterator_create(job_ptr->part_ptr_list);
	while ((part_ptr = list_next(it))) {
		if (part_filter && !_part_in_list(part_filter, part_ptr))
			continue;
		obj = xmalloc(sizeof(*obj));
		slurm_copy_priority_factors_object(obj, job_ptr->prio_factors);
		obj->priority_part =
			((cfg->weights.flags & FAIRWAY_FLAG_NO_NORMAL_PART) ?
			 part_ptr->priority_job_factor :
			 part_ptr->norm_priority) * (double) cfg->weights.partition;
		obj->job_id = job_ptr->job_id;
		obj->partition = part_ptr->name;
		obj->user_id = job_ptr->user_id;
		/* Over the copy of the job's weighted factors: a TRES this
		 * partition does not count keeps the copied value and is
		 * weighted again, as multifactor's rows show it. */
		if (obj->priority_tres)
			(void) fairway_sprio_row_tres(&cfg->weights,
						      job_ptr->tres_alloc_cnt,
						      job_ptr->tres_req_cnt,
						      part_ptr->tres_cnt,
						      obj->priority_tres);
		list_append(ret_list, obj);
	}
	list_iterator_destroy(it);
}

/* May uid see this job's factors under PrivateData=jobs? */
static bool _may_see_job(job_record_t *job_ptr, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS))
		return true;
	if ((job_ptr->user_id == uid) || validate_operator(uid))
		return true;
	if (slurm_mcs_get_privatedata() == 0)
		return assoc_mgr_is_user_acct_coord(acct_db_conn, uid,
						    job_ptr->account);
	return mcs_g_check_mcs_label(uid, job_ptr->mcs_label, false) == 0;
}

/* The sprio breakdown of every job uid may see, filtered by req_msg (NULL: no
 * filter, as Slurm 23.02 and later ask for it). */
extern List fw_factors_list(priority_factors_request_msg_t *req_msg, uid_t uid)
{
	slurmctld_lock_t job_read_lock =
		{ NO_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	List ret_list = NULL, part_filter = NULL;
	time_t now = time(NULL);
	const fw_cfg_t *cfg;
	job_record_t *job_ptr;
	ListIterator it;

	cfg = fw_cfg_get();

	lock_slurmctld(job_read_lock);
	if (req_msg && req_msg->partitions) {
		char *parts = xstrdup(req_msg->partitions), *save = NULL;
		part_record_t *part_ptr;

		part_filter = list_create(NULL);
		for (char *tok = strtok_r(parts, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if ((part_ptr = find_part_record(tok)))
				list_append(part_filter, part_ptr);
		xfree(parts);
	}

	if (job_list && list_count(job_list)) {
		ret_list = list_create(slurm_destroy_priority_factors_object);
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it))) {
			time_t use_time;

			if (!(cfg->weights.flags &
			      FAIRWAY_FLAG_CALCULATE_RUNNING) &&
			    !IS_JOB_PENDING(job_ptr))
				continue;
			if (IS_JOB_REVOKED(job_ptr) || !job_ptr->details)
				continue;
			/* Not eligible yet. */
			use_time = (cfg->weights.flags &
				    FAIRWAY_FLAG_ACCRUE_ALWAYS) ?
				job_ptr->details->submit_time :
				job_ptr->details->begin_time;
			if (!use_time || (use_time > now))
				continue;
			if (job_ptr->priority == 0)	/* held */
				continue;
			if (!_may_see_job(job_ptr, uid))
				continue;
			_append_job_factors(cfg, job_ptr, req_msg,
					    part_filter, ret_list);
		}
		list_iterator_destroy(it);
		if (!list_count(ret_list))
			FREE_NULL_LIST(ret_list);
	}
	unlock_slurmctld(job_read_lock);
	fw_cfg_put(cfg);
	FREE_NULL_LIST(part_filter);
	return ret_list;
}
