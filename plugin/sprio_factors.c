/*****************************************************************************\
 *  sprio_factors.c - sprio's rows: every pending job's weighted factors, one row per
 *  partition of a job submitted to several, and from Slurm 24.11 one per (partition,
 *  QOS) pair of a job submitted to several partitions or QOS (multifactor's
 *  priority_p_get_priority_factors_list), with PrivateData=jobs enforced here as
 *  multifactor does.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <string.h>

#include "fairway_plugin.h"

static int _find_ptr(void *x, void *key)
{
	return x == key;
}

static int _find_uint32(void *x, void *key)
{
	return *(uint32_t *) x == *(uint32_t *) key;
}

/* The rows come from the plugin's row arena (fairway_rows.h): blocks kept
 * for the next lists, freed by fini. */
extern void fw_sprio_kept_init(fw_sprio_kept_t *kept)
{
	fairway_error_t err = fairway_row_arena_create(&kept->arena);

	/* Without an arena each list's blocks are freed with it. */
	if (err != FAIRWAY_OK)
		error("%s: sprio keeps no row blocks: %s: %s", plugin_type,
		      fairway_strerror(err), fairway_last_error());
}

extern void fw_sprio_rows_free(fw_sprio_kept_t *kept)
{
	fairway_row_arena_destroy(kept->arena);
	kept->arena = NULL;
}

/* What one job's rows need. */
typedef struct {
	const fw_cfg_t *cfg;
	fw_sprio_kept_t *kept; /* the row blocks kept */
	job_record_t *job_ptr;
	part_record_t *part_ptr; /* NULL: the job's only partition */
	list_t *part_filter;	 /* of part_record_t *, or NULL */
	list_t *rows;
	fairway_row_fill_t fill; /* the row block being filled */
} fw_rows_t;

/* One row: the job's factors, with this partition's and this QOS's where the
 * job has several (multifactor's _filter_job, later _create_prio_list_qos). */
static int _append_row(void *x, void *arg)
{
	slurmdb_qos_rec_t *qos_ptr = x;
	fw_rows_t *r = arg;
	job_record_t *job_ptr = r->job_ptr;
	part_record_t *part_ptr = r->part_ptr;
	const fairway_weights_t *w = &r->cfg->weights;
	bool direct = job_ptr->direct_set_prio &&
		(FW_ROW_DIRECT_EVERY_ROW || !part_ptr);
	priority_factors_object_t *row;
	fw_prio_factors_t *f;
	fairway_sprio_place_t place = { 0 };
	void *at, *extra;

	if (fairway_row_alloc(
		    r->kept->arena, &r->fill, sizeof(*row),
		    direct ? 0 : fw_row_factors_size(job_ptr->prio_factors),
		    &at, &extra) != FAIRWAY_OK)
		return -1; /* out of memory: no more rows */
	row = at;
	fw_row_init(row, job_ptr, part_ptr, qos_ptr);
	list_append(r->rows, row);
	if (direct) {
		row->direct_prio = job_ptr->priority;
		return 0;
	}
	f = fw_row_factors(row, job_ptr->prio_factors, extra);
	if (part_ptr) {
		place.has_partition = 1;
		place.part_job_factor = part_ptr->priority_job_factor;
		place.part_norm_priority = part_ptr->norm_priority;
		place.part_tres = part_ptr->tres_cnt;
		place.job_tres_alloc = job_ptr->tres_alloc_cnt;
		place.job_tres_req = job_ptr->tres_req_cnt;
	}
	if (qos_ptr) {
		place.has_qos = 1;
		place.qos_priority = qos_ptr->priority;
		/* Read only where it weighs, as multifactor does. */
		if (qos_ptr->priority &&
		    !(w->flags & FAIRWAY_FLAG_NO_NORMAL_QOS))
			place.qos_norm_priority = qos_ptr->usage->norm_priority;
	}
	(void) fairway_sprio_row_place(w, &place, f->priority_tres, f->tres_cnt,
				       &f->priority_part, &f->priority_qos);
	return 0;
}

/* The rows of one job in one partition: one per QOS of a job with several. */
static int _append_part_rows(void *x, void *arg)
{
	fw_rows_t *r = arg;
	list_t *qos_list = FW_JOB_QOS_LIST(r->job_ptr);

	r->part_ptr = x;
	if (r->part_filter &&
	    !list_find_first(r->part_filter, _find_ptr,
			     x ? x : r->job_ptr->part_ptr))
		return 0;
	if (qos_list)
		(void) list_for_each(qos_list, _append_row, r);
	else
		(void) _append_row(NULL, r);
	return 0;
}

/* May uid see this job's factors under PrivateData=jobs? */
static bool _may_see_job(job_record_t *job_ptr, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS))
		return true;
	if ((job_ptr->user_id == uid) || validate_operator(uid))
		return true;
	if (slurm_mcs_get_privatedata() == 0)
		return fw_user_is_coord(uid, job_ptr->account);
	return mcs_g_check_mcs_label(uid, job_ptr->mcs_label, false) == 0;
}

/* Does sprio show this job (pending or CALCULATE_RUNNING, eligible, not held,
 * visible to uid, asked for)? */
static bool _job_shown(const fw_cfg_t *cfg, job_record_t *job_ptr, time_t now,
		       uid_t uid, const fw_sprio_filter_t *filter)
{
	time_t use_time;

	if (!(cfg->weights.flags & FAIRWAY_FLAG_CALCULATE_RUNNING) &&
	    !IS_JOB_PENDING(job_ptr))
		return false;
	if (IS_JOB_REVOKED(job_ptr) || !job_ptr->details)
		return false;
	/* Not eligible yet. */
	use_time = (cfg->weights.flags & FAIRWAY_FLAG_ACCRUE_ALWAYS) ?
		job_ptr->details->submit_time :
		job_ptr->details->begin_time;
	if (!use_time || (use_time > now))
		return false;
	if (job_ptr->priority == 0) /* held */
		return false;
	if (!_may_see_job(job_ptr, uid))
		return false;
	if (filter && filter->job_ids &&
	    !list_find_first(filter->job_ids, _find_uint32, &job_ptr->job_id))
		return false;
	if (filter && filter->user_ids &&
	    !list_find_first(filter->user_ids, _find_uint32, &job_ptr->user_id))
		return false;
	/* A job whose partition was deleted has nothing to show. */
	return job_ptr->part_ptr || job_ptr->part_ptr_list;
}

/* The partitions sprio asked for (of part_record_t *), NULL: all. */
static list_t *_part_filter(const fw_sprio_filter_t *filter)
{
	char *parts, *save = NULL;
	part_record_t *part_ptr;
	list_t *l;

	if (!filter || !filter->partitions)
		return NULL;
	l = list_create(NULL);
	parts = xstrdup(filter->partitions);
	for (char *tok = strtok_r(parts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if ((part_ptr = find_part_record(tok)))
			list_append(l, part_ptr);
	xfree(parts);
	return l;
}

/*
 * The list is built in two steps, as the period's weighing pass is: one walk
 * of job_list collects the job pointers (a chain of dependent cache misses no
 * plugin can shorten), then the jobs are read from that array with their
 * records, details and factors asked for ahead of use, so that their misses
 * overlap instead of following one another.
 */
#define SPRIO_PF_RECORD 12
#define SPRIO_PF_POINTED 6

typedef struct {
	job_record_t **v;
	size_t n;
} fw_job_array_t;

static int _collect(void *x, void *arg)
{
	fw_job_array_t *a = arg;

	a->v[a->n++] = x;
	return 0;
}

static inline __attribute__((always_inline)) void
_prefetch_shown(const job_record_t *j)
{
	__builtin_prefetch(&j->job_state);
	__builtin_prefetch(&j->details);
	__builtin_prefetch(&j->priority);
	__builtin_prefetch(&j->part_ptr_list);
	__builtin_prefetch(&j->prio_factors);
	__builtin_prefetch(&j->user_id);
}

static inline __attribute__((always_inline)) void
_prefetch_shown_pointed(const job_record_t *j)
{
	if (j->details)
		__builtin_prefetch(&j->details->begin_time);
	if (j->prio_factors)
		__builtin_prefetch(j->prio_factors);
}

extern list_t *fw_factors_list(fw_sprio_kept_t *kept,
			       const fw_sprio_filter_t *filter, uid_t uid)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK,
					   .node = READ_LOCK,
					   .part = READ_LOCK };
	fw_rows_t r = { 0 };
	time_t now = time(NULL);
	fw_job_array_t jobs = { 0 };
	int count;

	r.cfg = fw_cfg_get();
	r.kept = kept;
	if (!FW_SPRIO_CALLER_LOCKS)
		lock_slurmctld(job_read_lock);
	r.part_filter = _part_filter(filter);

	if (job_list && (count = list_count(job_list))) {
		r.rows = list_create(fairway_row_free);
		jobs.v = xmalloc_nz(count * sizeof(*jobs.v));
		(void) list_for_each_max(job_list, &count, _collect, &jobs, 1,
					 0);
		for (size_t i = 0; i < jobs.n; i++) {
			job_record_t *job_ptr = jobs.v[i];

			if (i + SPRIO_PF_RECORD < jobs.n)
				_prefetch_shown(jobs.v[i + SPRIO_PF_RECORD]);
			if (i + SPRIO_PF_POINTED < jobs.n)
				_prefetch_shown_pointed(
					jobs.v[i + SPRIO_PF_POINTED]);
			if (!_job_shown(r.cfg, job_ptr, now, uid, filter))
				continue;
			r.job_ptr = job_ptr;
			if (job_ptr->part_ptr_list)
				(void) list_for_each(job_ptr->part_ptr_list,
						     _append_part_rows, &r);
			else
				(void) _append_part_rows(NULL, &r);
		}
		xfree(jobs.v);
		if (!list_count(r.rows))
			FREE_NULL_LIST(r.rows);
	}
	if (!FW_SPRIO_CALLER_LOCKS)
		unlock_slurmctld(job_read_lock);
	fw_cfg_put(r.cfg);
	FREE_NULL_LIST(r.part_filter);
	return r.rows;
}
