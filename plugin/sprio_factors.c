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
 * The rows are allocated in blocks of 1 MiB, each row with its factors and
 * their arrays in one piece behind a header that names its block: one
 * allocation per few thousand rows instead of two to four per row.  The
 * list's destructor counts a block's rows down and, with the last one, gives
 * the block back; the rows may be destroyed in any order.  One list is built
 * and destroyed by one thread (slurmctld frees it after packing it), so a
 * block's count needs no atomics.
 *
 * Blocks given back are kept for the next lists, up to FW_ROWS_KEPT of them
 * (32 MiB): fresh memory costs a page fault per 4 KiB page on first touch,
 * which was a third of the list's time at 100,000 jobs.  A site's sprio
 * calls reuse the same pages; slurmctld keeps at most that much after the
 * largest list, and fini frees it.  Several sprio calls may build and free
 * lists at once (slurmctld's RPC threads, under the job read lock): the kept
 * blocks (fw_sprio_kept_t, a part of the plugin's state) are under their own
 * lock, taken once per block.  Each block names the kept blocks it goes back
 * to, as the list's destructor is given only the row.
 */
typedef struct fw_rows_block {
	size_t live;		    /* rows of this block not destroyed yet */
	bool big;		    /* larger than FW_ROWS_BLOCK: never kept */
	struct fw_rows_block *next; /* among the kept blocks */
	fw_sprio_kept_t *kept;	    /* where it goes back to */
} fw_rows_block_t;

typedef struct {
	fw_rows_block_t *block;
} fw_row_head_t;

#define FW_ROWS_BLOCK ((size_t) 1 << 20)
#define FW_ROWS_KEPT 32

/* Every piece of a block is aligned for a double or a pointer. */
static inline size_t _align8(size_t n)
{
	return (n + 7) & ~(size_t) 7;
}

#define FW_ROWS_HEAD _align8(sizeof(fw_rows_block_t))

/* A block for at least `need` bytes: a kept one, or a new one. */
static fw_rows_block_t *_block_get(fw_sprio_kept_t *kept, size_t need)
{
	fw_rows_block_t *b = NULL;

	if (FW_ROWS_HEAD + need > FW_ROWS_BLOCK) {
		b = xmalloc_nz(FW_ROWS_HEAD + need);
		b->big = true;
	} else {
		slurm_mutex_lock(&kept->lock);
		if ((b = kept->blocks)) {
			kept->blocks = b->next;
			kept->n--;
		}
		slurm_mutex_unlock(&kept->lock);
		if (!b)
			b = xmalloc_nz(FW_ROWS_BLOCK);
		b->big = false;
	}
	b->live = 0;
	b->next = NULL;
	b->kept = kept;
	return b;
}

static void _block_put(fw_rows_block_t *b)
{
	fw_sprio_kept_t *kept = b->kept;

	if (!b->big) {
		slurm_mutex_lock(&kept->lock);
		if (kept->n < FW_ROWS_KEPT) {
			b->next = kept->blocks;
			kept->blocks = b;
			kept->n++;
			b = NULL;
		}
		slurm_mutex_unlock(&kept->lock);
	}
	xfree(b);
}

static void _row_release(void *x)
{
	fw_row_head_t *h = (fw_row_head_t *) x - 1;
	fw_rows_block_t *b = h->block;

	if (--b->live == 0)
		_block_put(b);
}

extern void fw_sprio_kept_init(fw_sprio_kept_t *kept)
{
	slurm_mutex_init(&kept->lock);
	kept->blocks = NULL;
	kept->n = 0;
}

/* Free the kept blocks (fini). */
extern void fw_sprio_rows_free(fw_sprio_kept_t *kept)
{
	fw_rows_block_t *b;

	slurm_mutex_lock(&kept->lock);
	while ((b = kept->blocks)) {
		kept->blocks = b->next;
		xfree(b);
	}
	kept->n = 0;
	slurm_mutex_unlock(&kept->lock);
	pthread_mutex_destroy(&kept->lock);
}

/* What one job's rows need. */
typedef struct {
	const fw_cfg_t *cfg;
	fw_sprio_kept_t *kept; /* the row blocks kept */
	job_record_t *job_ptr;
	part_record_t *part_ptr; /* NULL: the job's only partition */
	list_t *part_filter;	 /* of part_record_t *, or NULL */
	list_t *rows;
	/* The block being filled: its free bytes from `at`. */
	fw_rows_block_t *block;
	char *at;
	size_t left;
} fw_rows_t;

/* A zeroed row with `extra` bytes after it (aligned for a double), in the
 * block being filled or the next. */
static priority_factors_object_t *_row_alloc(fw_rows_t *r, size_t extra,
					     char **extra_at)
{
	size_t row = _align8(sizeof(priority_factors_object_t));
	size_t need = sizeof(fw_row_head_t) + row + _align8(extra);
	fw_row_head_t *h;

	if (need > r->left) {
		r->block = _block_get(r->kept, need);
		r->at = (char *) r->block + FW_ROWS_HEAD;
		r->left = r->block->big ? need : FW_ROWS_BLOCK - FW_ROWS_HEAD;
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

	row = _row_alloc(
		r, direct ? 0 : fw_row_factors_size(job_ptr->prio_factors),
		&extra);
	fw_row_init(row, job_ptr, part_ptr, qos_ptr);
	list_append(r->rows, row);
	if (direct) {
		row->direct_prio = job_ptr->priority;
		return 0;
	}
	f = fw_row_factors(row, job_ptr->prio_factors, extra);
	if (part_ptr) {
		f->priority_part = ((w->flags & FAIRWAY_FLAG_NO_NORMAL_PART) ?
					    part_ptr->priority_job_factor :
					    part_ptr->norm_priority) *
			(double) w->weight[FAIRWAY_FACTOR_PARTITION];
		/* Over the copy of the job's weighted factors: a TRES this
		 * partition does not count keeps the copied value and is
		 * weighted again, as multifactor's rows show it. */
		if (f->priority_tres) {
			/* A job weighed before slurmctld's TRES grew (a
			 * reconfigure): only the TRES its copy holds, never
			 * past its end into the next row. */
			fairway_weights_t fewer;
			const fairway_weights_t *tw = w;

			if (f->tres_cnt < w->tres_count) {
				fewer = *w;
				fewer.tres_count = f->tres_cnt;
				tw = &fewer;
			}
			(void) fairway_sprio_row_tres(tw,
						      job_ptr->tres_alloc_cnt,
						      job_ptr->tres_req_cnt,
						      part_ptr->tres_cnt,
						      f->priority_tres);
		}
	}
	if (qos_ptr && qos_ptr->priority && w->weight[FAIRWAY_FACTOR_QOS])
		f->priority_qos = ((w->flags & FAIRWAY_FLAG_NO_NORMAL_QOS) ?
					   qos_ptr->priority :
					   qos_ptr->usage->norm_priority) *
			(double) w->weight[FAIRWAY_FACTOR_QOS];
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
		r.rows = list_create(_row_release);
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
