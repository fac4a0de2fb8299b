/*****************************************************************************\
 *  job_weigh.c - one job's priority: what the core needs copied out of the job,
 *  its association, QOS and partitions, one call into the core
 *  (fairway_job_weigh), and the results written back where slurmctld and sprio
 *  read them (job->priority, the per-partition array of priorities, and
 *  job->prio_factors).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "fairway_plugin.h"

/*
 * The fair-share factor of a job's association, as multifactor's
 * _get_fairshare_priority(): the core picks the rule for the algorithm and the
 * release (fairway_job_fs_factor) from the job's association and the one it
 * shares with (its parent for Fairshare=parent), and names the effective usage
 * to compute on demand first when it is not yet.  *settled: nothing is left to
 * compute, so every job of the association gets this factor for the rest of the
 * pass.  pass: the fair-share table of the pass computing (fw_set_assoc_usage),
 * or NULL.  Caller holds the assoc read lock.
 */
static double _job_fs_factor(const fw_cfg_t *cfg, job_record_t *job_ptr,
			     fairway_fair_share_table_t *pass, bool *settled)
{
	slurmdb_assoc_rec_t *assoc = job_ptr->assoc_ptr;
	slurmdb_assoc_rec_t *fs_assoc;
	fairway_assoc_result_t own, shared;
	int compute_first = 0;
	double factor = 0.0;

	if (settled)
		*settled = false;
	if (!cfg->fair_share)
		return 0.0;
	if (!assoc || !assoc->usage) {
		error("%s: %pJ has no association, fair-share factor 0",
		      plugin_type, job_ptr);
		return 0.0;
	}
	fs_assoc = assoc;
	if ((assoc->shares_raw == SLURMDB_FS_USE_PARENT) &&
	    assoc->usage->fs_assoc_ptr)
		fs_assoc = assoc->usage->fs_assoc_ptr;

	/* Only what the rule reads: another cache line of each usage record
	 * per job otherwise. */
	for (int round = 0; round < 2; round++) {
		memset(&own, 0, sizeof(own));
		memset(&shared, 0, sizeof(shared));
		if (cfg->fs_reads & FAIRWAY_FS_READS_OWN_FS_FACTOR)
			own.fs_factor = assoc->usage->fs_factor;
		if (cfg->fs_reads & FAIRWAY_FS_READS_OWN_USAGE_EFCTV)
			own.usage_efctv = assoc->usage->usage_efctv;
		if (cfg->fs_reads & FAIRWAY_FS_READS_SHARED) {
			shared.shares_norm = fs_assoc->usage->shares_norm;
			shared.usage_efctv = fs_assoc->usage->usage_efctv;
		}
		factor = fairway_job_fs_factor(cfg->algo, SLURM_VERSION_NUMBER,
					       &own, &shared, cfg->damp,
					       &compute_first);
		if (!compute_first || round)
			break;
		/* 1: the job's own association, 2: the one it shares with */
		fw_set_assoc_usage(compute_first == 1 ? assoc : fs_assoc, pass);
	}
	if (settled)
		*settled = !compute_first;
	return factor;
}

/* Whether the job's fair-share factor comes from the table of the pass (Fair
 * Tree's: the association's fs_factor, assoc_sync.c; classic's and
 * depth-oblivious's: the one fw_job_fs_prepare noted, which it also handed
 * the pass as `known`) rather than from its association's record. */
static const double *_fs_slot(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
			      const job_record_t *job_ptr, bool fs_slots,
			      const double *known)
{
	if (!fs_slots || !job_ptr->assoc_ptr || FW_WEIGHT(cfg, ASSOC))
		return NULL;
	return known ? known : fw_fs_table_factor(fs, job_ptr->assoc_id);
}

/* Copy what the job-factor computation needs out of a job.  Caller holds the
 * job lock and the assoc read lock. */
static void _job_input(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
		       job_record_t *job_ptr, fairway_job_input_t *in,
		       bool fs_slots, const double *known)
{
	job_details_t *details = job_ptr->details;
	const double *slot;

	memset(in, 0, sizeof(*in));
	in->has_details = (details != NULL);
	if (details) {
		in->accrue_time = details->accrue_time;
		in->max_cpus = details->max_cpus;
		in->min_cpus = details->min_cpus;
		in->min_nodes = details->min_nodes;
		in->nice = details->nice;
	} else {
		in->max_cpus = NO_VAL;
		in->nice = NICE_OFFSET;
	}
	in->total_cpus = job_ptr->total_cpus;
	in->time_limit = job_ptr->time_limit;
	/* Only what a nonzero weight uses: the records of associations, QOS
	 * and partitions are scattered too, and the core ignores the rest. */
	if ((slot = _fs_slot(cfg, fs, job_ptr, fs_slots, known))) {
		/* The weighing pass: the association's factor from the
		 * table of the pass. */
		in->has_assoc = 1;
		if (FW_WEIGHT(cfg, FAIRSHARE) && cfg->fair_share)
			in->fs_factor = *slot;
	} else if (job_ptr->assoc_ptr && job_ptr->assoc_ptr->usage) {
		in->has_assoc = 1;
		if (FW_WEIGHT(cfg, FAIRSHARE))
			in->fs_factor = _job_fs_factor(cfg, job_ptr, NULL,
						       NULL);
		if (FW_WEIGHT(cfg, ASSOC)) {
			in->assoc_priority = job_ptr->assoc_ptr->priority;
			in->assoc_priority_norm =
				job_ptr->assoc_ptr->usage->priority_norm;
		}
	}
	if (cfg->fs_tres_n && in->has_assoc) {
		double f;

		if (fw_job_tres_factor(cfg, fs, job_ptr, &f) >= 0)
			in->fs_factor = f;
	}
	if (job_ptr->part_ptr) {
		in->has_part = 1;
		if (FW_WEIGHT(cfg, PARTITION)) {
			in->part_priority_job_factor =
				job_ptr->part_ptr->priority_job_factor;
			in->part_norm_priority =
				job_ptr->part_ptr->norm_priority;
		}
		if (FW_WEIGHT(cfg, JOB_SIZE) &&
		    (cfg->weights.flags & FAIRWAY_FLAG_SMALL_RELATIVE))
			in->part_max_time = job_ptr->part_ptr->max_time;
	}
	if (job_ptr->qos_ptr && job_ptr->qos_ptr->usage &&
	    FW_WEIGHT(cfg, QOS)) {
		in->has_qos = 1;
		in->qos_priority = job_ptr->qos_ptr->priority;
		in->qos_norm_priority = job_ptr->qos_ptr->usage->norm_priority;
	}
	in->site_factor = job_ptr->site_factor;
	/* TRES only with TRES weights: the job's arrays are further cache
	 * misses, and the core reads them only then. */
	if (cfg->weights.tres) {
		in->tres_alloc = job_ptr->tres_alloc_cnt;
		in->tres_req = job_ptr->tres_req_cnt;
		in->part_tres = job_ptr->part_ptr ?
			job_ptr->part_ptr->tres_cnt :
			NULL;
	}
}

/* Where prio_factors keeps each weighted factor before the TRES (sprio reads
 * them there); the site factor and nice follow, with Slurm's offset. */
static const size_t _pf_weighted[FAIRWAY_FACTOR_TRES] = {
	[FAIRWAY_FACTOR_AGE] = offsetof(fw_prio_factors_t, priority_age),
	[FAIRWAY_FACTOR_ASSOC] = offsetof(fw_prio_factors_t, priority_assoc),
	[FAIRWAY_FACTOR_FAIRSHARE] = offsetof(fw_prio_factors_t, priority_fs),
	[FAIRWAY_FACTOR_JOB_SIZE] = offsetof(fw_prio_factors_t, priority_js),
	[FAIRWAY_FACTOR_PARTITION] = offsetof(fw_prio_factors_t, priority_part),
	[FAIRWAY_FACTOR_QOS] = offsetof(fw_prio_factors_t, priority_qos),
};

static uint32_t _with_offset(double v)
{
	return (uint32_t) ((int64_t) v + NICE_OFFSET);
}

static void _clear_prio_factors(job_record_t *job_ptr)
{
	if (!job_ptr->prio_factors)
		return;
	xfree(job_ptr->prio_factors->tres_weights);
	xfree(job_ptr->prio_factors->priority_tres);
	memset(job_ptr->prio_factors, 0, sizeof(fw_prio_factors_t));
}

/* A job's partitions in PriorityTier order, in *out (parts, or an xmalloc'ed
 * array for more than MAX_JOB_PARTS); their number. */
#define MAX_JOB_PARTS 64
struct part_cursor {
	part_record_t **p;
	int n, max;
};

static int _foreach_part(void *x, void *arg)
{
	struct part_cursor *c = arg;

	if (c->n < c->max)
		c->p[c->n++] = x;
	return 0;
}

static bool _parts_in_tier_order(const struct part_cursor *c)
{
	for (int i = 1; i < c->n; i++)
		if (c->p[i - 1]->priority_tier < c->p[i]->priority_tier)
			return false;
	return true;
}

static int _job_parts(job_record_t *job_ptr, int cnt,
		      part_record_t *parts[MAX_JOB_PARTS], part_record_t ***out)
{
	struct part_cursor c = { .p = parts, .n = 0, .max = cnt };

	if (cnt > MAX_JOB_PARTS)
		c.p = xcalloc(cnt, sizeof(*c.p));
	/*
	 * 22.05's multifactor sorts the job's list every time; glibc's qsort
	 * (which list_sort uses) is a stable merge sort, so sorting a list that
	 * is already in tier order changes nothing: skip it then, and read the
	 * partitions without an iterator.  Later releases keep it sorted in
	 * slurmctld and take it as it is.
	 */
	list_for_each(job_ptr->part_ptr_list, _foreach_part, &c);
	if (FW_PLUGIN_SORTS_JOB_PARTITIONS && !_parts_in_tier_order(&c)) {
		list_sort(job_ptr->part_ptr_list, priority_sort_part_tier);
		c.n = 0;
		list_for_each(job_ptr->part_ptr_list, _foreach_part, &c);
	}
	*out = c.p;
	return c.n;
}

/* The QOS of the (partition, QOS) pairs, in the QOS fields of a slot: one of
 * the job's several QOS each. */
struct qos_cursor {
	fairway_job_partition_t *v;
	int n, max;
};

static int _foreach_qos(void *x, void *arg)
{
	slurmdb_qos_rec_t *qos = x;
	struct qos_cursor *c = arg;

	if (c->n < c->max) {
		c->v[c->n].has_qos = 1;
		c->v[c->n].qos_priority = qos->priority;
		c->v[c->n].qos_norm_priority = qos->usage ?
			qos->usage->norm_priority :
			0.0;
		c->n++;
	}
	return 0;
}

extern uint32_t fw_job_priority(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
				job_record_t *job_ptr, time_t now,
				bool assoc_locked, bool fs_slots,
				const double *known)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	fairway_cluster_t cluster = { cluster_cpus, FW_CLUSTER_NODES };
	fairway_job_partition_t slots_buf[MAX_JOB_PARTS], *slots = slots_buf;
	part_record_t *parts_buf[MAX_JOB_PARTS], **parts = parts_buf;
	fairway_job_partition_t qos_buf[MAX_JOB_PARTS], *qos = qos_buf;
	struct qos_cursor qc = { .v = qos_buf, .n = 0, .max = 1 };
	list_t *qos_list = FW_JOB_QOS_LIST(job_ptr);
	fairway_job_input_t in;
	fairway_job_weighed_t r;
	fw_weighed_t w;
	fw_prio_factors_t *pf;
	fairway_error_t err;
	uint32_t *prio_array = NULL;
	int nparts = 0, n = 0;

	if (job_ptr->direct_set_prio && (job_ptr->priority > 0)) {
		_clear_prio_factors(job_ptr);
		r.priority = job_ptr->priority;
		goto observed;
	}
	if (!job_ptr->details) {
		error("%s: %pJ has no details, can't set its priority",
		      plugin_type, job_ptr);
		_clear_prio_factors(job_ptr);
		return 0;
	}

	/* The QOS of the pairs: the job's several (24.11 on), or one without
	 * a QOS of its own (the job's QOS factor). */
	memset(&qos_buf[0], 0, sizeof(qos_buf[0]));
	if (qos_list) {
		qc.max = list_count(qos_list);
		if (qc.max > MAX_JOB_PARTS)
			qos = qc.v = xcalloc(qc.max, sizeof(*qos));
	}
	if (!assoc_locked)
		assoc_mgr_lock(&locks);
	_job_input(cfg, fs, job_ptr, &in, fs_slots, known);
	if (qos_list)
		list_for_each(qos_list, _foreach_qos, &qc);
	if (!assoc_locked)
		assoc_mgr_unlock(&locks);
	if (!qos_list)
		qc.n = 1;

	if (!job_ptr->prio_factors)
		job_ptr->prio_factors = xmalloc(sizeof(fw_prio_factors_t));
	else
		_clear_prio_factors(job_ptr);
	pf = job_ptr->prio_factors;
	if (cfg->weights.tres) {
		pf->priority_tres = xcalloc(slurmctld_tres_cnt, sizeof(double));
		pf->tres_weights = xcalloc(slurmctld_tres_cnt, sizeof(double));
		memcpy(pf->tres_weights, cfg->weights.tres,
		       sizeof(double) * slurmctld_tres_cnt);
		pf->tres_cnt = slurmctld_tres_cnt;
	}

	/* One priority per partition in PriorityTier order; from 24.11 one
	 * per (partition, QOS) pair, partition-major. */
	if (job_ptr->part_ptr_list) {
		int cnt = list_count(job_ptr->part_ptr_list);

		prio_array = fw_job_prio_array(job_ptr, cnt, qc.n);
		nparts = _job_parts(job_ptr, cnt, parts_buf, &parts);
	} else if (qos_list && job_ptr->part_ptr) {
		prio_array = fw_job_prio_array(job_ptr, 0, qc.n);
		parts_buf[0] = job_ptr->part_ptr;
		nparts = 1;
	} else {
		(void) fw_job_prio_array(job_ptr, 0, 1); /* frees a stale one */
	}
	if (prio_array) {
		n = nparts * qc.n;
		if (n > MAX_JOB_PARTS)
			slots = xcalloc(n, sizeof(*slots));
		for (int p = 0, i = 0; p < nparts; p++) {
			for (int q = 0; q < qc.n; q++, i++) {
				slots[i] = qos[q];
				slots[i].priority_job_factor =
					parts[p]->priority_job_factor;
				slots[i].norm_priority =
					parts[p]->norm_priority;
				slots[i].tres_cnt = parts[p]->tres_cnt;
				slots[i].priority = prio_array[i];
				slots[i].clamped = 0;
			}
		}
	}

	err = fairway_job_weigh(&cfg->weights, &cluster, &in, now,
				pf->priority_tres, slots, n, &r);
	if (err != FAIRWAY_OK) {
		error("%s: %pJ: %s: %s; its priority is left as it is",
		      plugin_type, job_ptr, fairway_strerror(err),
		      fairway_last_error());
		r.priority = job_ptr->priority;
		n = 0;
	} else {
		if (r.clamped)
			error("%s: %pJ priority exceeds 32 bits. Reducing it to 4294967295 (2^32 - 1)",
			      plugin_type, job_ptr);
#pragma GCC unroll 8 /* the offsets then are constants */
		for (int k = 0; k < FAIRWAY_FACTOR_TRES; k++)
			*(double *) ((char *) pf +
				     _pf_weighted[k]) = r.weighted.factor[k];
		pf->priority_site =
			_with_offset(r.weighted.factor[FAIRWAY_FACTOR_SITE]);
		pf->nice = _with_offset(r.weighted.factor[FAIRWAY_FACTOR_NICE]);
	}
	for (int i = 0; i < n; i++) {
		if (slots[i].clamped)
			error("%s: %pJ priority in partition %s exceeds 32 bits. Reducing it to 4294967295 (2^32 - 1)",
			      plugin_type, job_ptr, parts[i / qc.n]->name);
		prio_array[i] = slots[i].priority;
	}
observed:
	/* The priority the job keeps (INCR_ONLY: never lower), to publishing;
	 * the listed TRES that judged a pending job with it. */
	w.job = job_ptr;
	w.parts = parts;
	w.nparts = nparts;
	w.prio = n ? prio_array : NULL;
	w.nqos = qc.n;
	w.priority = ((cfg->weights.flags & FAIRWAY_FLAG_INCR_ONLY) &&
		      (job_ptr->priority > r.priority)) ?
		job_ptr->priority :
		r.priority;
	w.tres_factor = 0;
	w.tres = (cfg->fs_tres_n && IS_JOB_PENDING(job_ptr)) ?
		fw_job_tres_factor(cfg, fs, job_ptr, &w.tres_factor) :
		-1;
	fw_publish_note(&w);
	if (parts != parts_buf)
		xfree(parts);
	if (slots != slots_buf)
		xfree(slots);
	if (qos != qos_buf)
		xfree(qos);
	return r.priority;
}

/*
 * What weighing the job would compute on demand (classic and depth-oblivious:
 * its association's effective usage, multifactor's priority_p_set_assoc_usage)
 * computed now, at this point of the pass, and the factor it gives noted for
 * every job of the association (it no longer changes in the pass), so that the
 * weighing only reads and can run in the pool's threads with the same result
 * as one job after the other.  The first job of each association computes; the
 * others find the noted factor.  Then the same tests as fw_job_priority and
 * _job_input, in their order.  Returns the factor noted for the job's
 * association (NAN: none), which the weighing reads in place of the table's.
 * Caller holds the job lock and an assoc lock.
 */
extern double fw_job_fs_prepare(const fw_cfg_t *cfg, fw_fs_table_t *fs,
				job_record_t *job_ptr)
{
	const double *noted = fw_fs_table_factor(fs, job_ptr->assoc_id);
	bool settled;
	double f;

	/* Noted: nothing is left to compute (and only the job record is read,
	 * not its details and association: cache misses in the walk). */
	if (noted)
		return *noted;
	if ((job_ptr->direct_set_prio && (job_ptr->priority > 0)) ||
	    !job_ptr->details || !job_ptr->assoc_ptr ||
	    !job_ptr->assoc_ptr->usage || !FW_WEIGHT(cfg, FAIRSHARE))
		return NAN;
	/* Without a table (out of memory): computed job after job. */
	if (!fs->table)
		(void) fairway_fair_share_table_new(&fs->table);
	f = _job_fs_factor(cfg, job_ptr, fs->table, &settled);
	if (settled && fs->table &&
	    (fairway_fair_share_table_note_factor(fs->table, job_ptr->assoc_id,
						  f) == FAIRWAY_OK))
		return f;
	return NAN;
}

/* Whether the periodic pass weighs this job: held jobs (priority 0) keep 0;
 * only pending jobs unless CALCULATE_RUNNING. */
extern bool fw_weighable(const fw_cfg_t *cfg, const job_record_t *job_ptr)
{
	return (job_ptr->priority != 0) && !IS_JOB_POWER_UP_NODE(job_ptr) &&
		(IS_JOB_PENDING(job_ptr) ||
		 (cfg->weights.flags & FAIRWAY_FLAG_CALCULATE_RUNNING));
}

/* Weigh one weighable job; true if its priority changed (the caller then
 * sets last_job_update). */
extern bool fw_weigh_job(const fw_cfg_t *cfg, const fw_fs_table_t *fs,
			 job_record_t *job_ptr, time_t now, bool assoc_locked,
			 bool fs_slots, const double *known)
{
	uint32_t prio = fw_job_priority(cfg, fs, job_ptr, now, assoc_locked,
					fs_slots, known);

	if (!(cfg->weights.flags & FAIRWAY_FLAG_INCR_ONLY) ||
	    (job_ptr->priority < prio)) {
		job_ptr->priority = prio;
		return true;
	}
	return false;
}
