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

/*
 * The rows are allocated in blocks, each row with its factors and their
 * arrays in one piece behind a header that names its block: one allocation
 * per few thousand rows instead of two to four per row.  The list's
 * destructor counts a block's rows down and frees it with the last one, so
 * the rows may be destroyed in any order.  One list is built and destroyed
 * by one thread (slurmctld frees it after packing it), so the counts need
 * no atomics.
 */
typedef struct {
	size_t live;	/* rows of this block not destroyed yet */
} fw_rows_block_t;

typedef struct {
	fw_rows_block_t *block;
} fw_row_head_t;

/* Blocks double from 64 KiB to 1 MiB: at most 1 MiB unused per list. */
#define FW_ROWS_BLOCK_MIN ((size_t) 64 << 10)
#define FW_ROWS_BLOCK_MAX ((size_t) 1 << 20)

static void _row_release(void *x)
{
	fw_row_head_t *h = (fw_row_head_t *) x - 1;
	fw_rows_block_t *b = h->block;

	if (--b->live == 0)
		xfree(b);
}

/* What one job's rows need. */
typedef struct {
	const fw_cfg_t *cfg;
	job_record_t *job_ptr;
	part_record_t *part_ptr;	/* NULL: the job's only partition */
	list_t *part_filter;		/* of part_record_t *, or NULL */
	list_t *rows;
	/* The block being filled: its free bytes from `at`. */
	fw_rows_block_t *block;
	char *at;
	size_t left, block_size;
} fw_rows_t;

/* Every piece of a block is aligned for a double or a pointer. */
static inline size_t _align8(size_t n)
{
	return (n + 7) & ~(size_t) 7;
}

/* A zeroed row with `extra` bytes after it (aligned for a double), in the
 * block being filled or a new one. */
static priority_factors_object_t *_row_alloc(fw_rows_t *r, size_t extra,
					     char **extra_at)
{
	size_t row = _align8(sizeof(priority_factors_object_t));
	size_t need = sizeof(fw_row_head_t) + row + _align8(extra);
	fw_row_head_t *h;

	if (need > r->left) {
		size_t size;

		r->block_size = r->block_size ?
			MIN(r->block_size * 2, FW_ROWS_BLOCK_MAX) :
			FW_ROWS_BLOCK_MIN;
		size = MAX(r->block_size, _align8(sizeof(fw_rows_block_t)) +
			   need);
		r->block = xmalloc_nz(size);
		r->block->live = 0;
		r->at = (char *) r->block + _align8(sizeof(fw_rows_block_t));
		r->left = size - _align8(sizeof(fw_rows_block_t));
	}
	h = (fw_row_head_t *) r->at;
	h->block = r->block;
	r->block->live++;
	r->at += need;
	r->left -= need;
	memset(h + 1, 0, sizeof(priority_factors_object_t));
	*extra_at = (char *) (h + 1) + row;
	return (priority_factors_object_t *) (h + 1);
}

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
	char *extra;

	row = _row_alloc(r, direct ? 0 :
			 fw_row_factors_size(job_ptr->prio_factors), &extra);
	fw_row_init(row, job_ptr, part_ptr, qos_ptr);
	list_append(r->rows, row);
	if (direct) {
		row->direct_prio = job_ptr->priority;
		return 0;
	}
	f = fw_row_factors(row, job_ptr->prio_factors, extra);
	if (part_ptr) {
		f->priority_part =
			((w->flags & FAIRWAY_FLAG_NO_NORMAL_PART) ?
			 part_ptr->priority_job_factor :
			 part_ptr->norm_priority) * (double) w->partition;
		/* Over the copy of the job's weighted factors: a TRES this
		 * partition does not count keeps the copied value and is
		 * weighted again, as multifactor's rows show it. */
		if (f->priority_tres)
			(void) fairway_sprio_row_tres(w, job_ptr->tres_alloc_cnt,
						      job_ptr->tres_req_cnt,
						      part_ptr->tres_cnt,
						      f->priority_tres);
	}
	if (qos_ptr && qos_ptr->priority && w->qos)
		f->priority_qos = ((w->flags & FAIRWAY_FLAG_NO_NORMAL_QOS) ?
				   qos_ptr->priority :
				   qos_ptr->usage->norm_priority) *
			(double) w->qos;
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
		job_ptr->details->submit_time : job_ptr->details->begin_time;
	if (!use_time || (use_time > now))
		return false;
	if (job_ptr->priority == 0)	/* held */
		return false;
	if (!_may_see_job(job_ptr, uid))
		return false;
	if (filter && filter->job_ids &&
	    !list_find_first(filter->job_ids, _find_uint32, &job_ptr->job_id))
		return false;
	if (filter && filter->user_ids &&
	    !list_find_first(filter->user_ids, _find_uint32,
			     &job_ptr->user_id))
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

extern list_t *fw_factors_list(const fw_sprio_filter_t *filter, uid_t uid)
{
	slurmctld_lock_t job_read_lock =
		{ .job = READ_LOCK, .node = READ_LOCK, .part = READ_LOCK };
	fw_rows_t r = { 0 };
	time_t now = time(NULL);
	job_record_t *job_ptr;
	list_itr_t *it;

	r.cfg = fw_cfg_get();
	if (!FW_SPRIO_CALLER_LOCKS)
		lock_slurmctld(job_read_lock);
	r.part_filter = _part_filter(filter);

	if (job_list && list_count(job_list)) {
		r.rows = list_create(_row_release);
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it))) {
			if (!_job_shown(r.cfg, job_ptr, now, uid, filter))
				continue;
			r.job_ptr = job_ptr;
			if (job_ptr->part_ptr_list)
				(void) list_for_each(job_ptr->part_ptr_list,
						     _append_part_rows, &r);
			else
				(void) _append_part_rows(NULL, &r);
		}
		list_iterator_destroy(it);
		if (!list_count(r.rows))
			FREE_NULL_LIST(r.rows);
	}
	if (!FW_SPRIO_CALLER_LOCKS)
		unlock_slurmctld(job_read_lock);
	fw_cfg_put(r.cfg);
	FREE_NULL_LIST(r.part_filter);
	return r.rows;
}
