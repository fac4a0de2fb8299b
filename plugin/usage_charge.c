/*****************************************************************************\
 *  usage_charge.c - usage accrual: what a running job is charged each period and an
 *  ending job at its end (multifactor's _apply_new_usage and its helpers),
 *  added to its QOS, its partition's QOS and its association up to the root;
 *  and the TRES run seconds slurmctld reserves at start, released for what
 *  running jobs already used.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <inttypes.h>
#include <string.h>

#include "fairway_charge.h"
#include "fairway_plugin.h"

assoc_mgr_lock_t fw_charge_locks = { .assoc = WRITE_LOCK,
				     .qos = WRITE_LOCK,
				     .tres = READ_LOCK };

/* The records a charge adds to, and what an underflow's line names. */
struct charged {
	job_record_t *job;
	slurmdb_qos_rec_t *qos[2];
	slurmdb_assoc_rec_t **assoc;
	size_t nqos;
};

/* Run seconds that a release would take below 0 (set to 0 then). */
static void _underflow(void *arg, size_t rec, fairway_run_secs_t which,
		       size_t i, uint64_t tried, uint64_t remained)
{
	const struct charged *ch = arg;
	const slurmdb_qos_rec_t *qos = rec < ch->nqos ? ch->qos[rec] : NULL;
	const slurmdb_assoc_rec_t *assoc = qos ? NULL :
						 ch->assoc[rec - ch->nqos];

	if (which != FAIRWAY_RUN_SECS_GRP)
		error("%s: job %u: QOS %s TRES %s %s used limit tres_run_secs underflow, tried to remove %" PRIu64
		      " seconds when only %" PRIu64 " remained.",
		      plugin_type, ch->job->job_id, qos->name,
		      assoc_mgr_tres_name_array[i],
		      which == FAIRWAY_RUN_SECS_ACCOUNT ? "account" : "user",
		      tried, remained);
	else
		error("%s: job %u: %s %s(%u) TRES %s grp_used_tres_run_secs underflow, tried to remove %" PRIu64
		      " seconds when only %" PRIu64 " remained.",
		      plugin_type, ch->job->job_id, qos ? "QOS" : "assoc",
		      qos ? (qos->name ? qos->name : "") :
			    (assoc->acct ? assoc->acct : ""),
		      qos ? qos->id : assoc->id, assoc_mgr_tres_name_array[i],
		      tried, remained);
}

/* A QOS's usage; its TRES only where limits are enforced, and from Slurm 24.11
 * with the run seconds of the job's account and user under the QOS, and no
 * TRES for a job without an association. */
static void _qos_record(slurmdb_qos_rec_t *qos, job_record_t *job_ptr,
			fairway_charged_record_t *r)
{
	memset(r, 0, sizeof(*r));
	r->usage_raw = &qos->usage->usage_raw;
	r->grp_used_wall = &qos->usage->grp_used_wall;
	r->nodecay = (qos->flags & QOS_FLAG_NO_DECAY) != 0;
	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
		return;
	if (FW_QOS_RUN_SECS_PER_USER) {
		if (!job_ptr->assoc_ptr)
			return;
		fw_qos_used_run_secs(qos, job_ptr,
				     &r->run_secs[FAIRWAY_RUN_SECS_ACCOUNT],
				     &r->run_secs[FAIRWAY_RUN_SECS_USER]);
	}
	r->usage_tres_raw = qos->usage->usage_tres_raw;
	r->run_secs[FAIRWAY_RUN_SECS_GRP] = qos->usage->grp_used_tres_run_secs;
}

/* How many records a job's charge adds to: QOS and associations. */
static size_t _record_count(const job_record_t *job_ptr)
{
	size_t n = 2;

	for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a && a->usage;
	     a = a->usage->parent_assoc_ptr)
		n++;
	return n;
}

/*
 * The records a job's charge adds to, in order: its QOS; its partition's QOS
 * unless that is the job's (usage factor of the job's QOS only); its
 * association and every ancestor up to root (root's usage normalizes
 * everyone's).  Their number.  Caller holds the assoc and QOS write locks.
 */
static size_t _records(job_record_t *job_ptr, struct charged *ch,
		       slurmdb_assoc_rec_t **assocs,
		       fairway_charged_record_t *r)
{
	slurmdb_qos_rec_t *qos = job_ptr->qos_ptr;
	slurmdb_qos_rec_t *part_qos = job_ptr->part_ptr ?
		job_ptr->part_ptr->qos_ptr :
		NULL;
	size_t n = 0;

	*ch = (struct charged) { .job = job_ptr, .assoc = assocs };
	if (qos && qos->usage)
		ch->qos[ch->nqos++] = qos;
	if (part_qos && (part_qos != qos) && part_qos->usage)
		ch->qos[ch->nqos++] = part_qos;
	for (; n < ch->nqos; n++)
		_qos_record(ch->qos[n], job_ptr, &r[n]);
	for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a && a->usage;
	     a = a->usage->parent_assoc_ptr, n++) {
		memset(&r[n], 0, sizeof(r[n]));
		r[n].usage_raw = &a->usage->usage_raw;
		r[n].grp_used_wall = &a->usage->grp_used_wall;
		assocs[n - ch->nqos] = a;
		if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
			continue;
		r[n].usage_tres_raw = a->usage->usage_tres_raw;
		r[n].run_secs[FAIRWAY_RUN_SECS_GRP] =
			a->usage->grp_used_tres_run_secs;
	}
	return n;
}

/* Add charge c to the job's records; without one, release the TRES run seconds
 * of `used` seconds (x UsageFactor) from them.  Caller holds the assoc and QOS
 * write locks and the TRES read lock. */
static void _charge(job_record_t *job_ptr, const fairway_job_charge_t *c,
		    double used)
{
	fairway_tres_charge_t t = { job_ptr->tres_alloc_cnt,
				    (size_t) slurmctld_tres_cnt,
				    TRES_ARRAY_ENERGY };
	size_t max = _record_count(job_ptr), n;
	fairway_charged_record_t r[max];
	slurmdb_assoc_rec_t *assocs[max];
	struct charged ch;

	n = _records(job_ptr, &ch, assocs, r);
	if (c)
		(void) fairway_charge_records(c, &t, r, n, _underflow, &ch);
	else
		(void) fairway_release_run_secs(&t, used, r, n, _underflow,
						&ch);
}

/*
 * Charge a job's usage between start_period and end_period to its QOS, its
 * partition's QOS and its association and every ancestor up to root.  at_end:
 * the job ended; charge once and mark it done (end_time_exp = NO_VAL).  Caller
 * holds the job write lock.  Returns false when there is nothing to do.
 */
extern bool fw_apply_new_usage(fw_state_t *st, job_record_t *job_ptr,
			       time_t start_period, time_t end_period,
			       bool at_end, bool assoc_locked)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK,
				   .qos = WRITE_LOCK,
				   .tres = READ_LOCK };
	fairway_job_times_t times;
	fairway_job_charge_t c;
	slurmdb_qos_rec_t *qos;
	double usage_factor = -1.0, billable, decay_factor;

	/* The job's end was charged already. */
	if (job_ptr->end_time_exp == (time_t) NO_VAL)
		return false;
	if (fw_ended_before_restart(st, job_ptr->job_id)) {
		if (at_end)
			job_ptr->end_time_exp = (time_t) NO_VAL;
		log_flag(
			PRIO,
			"%s: %pJ ended before the restart and was charged then",
			plugin_type, job_ptr);
		return false;
	}

	memset(&times, 0, sizeof(times));
	times.start_time = job_ptr->start_time;
	times.end_time = job_ptr->end_time;
	times.end_time_exp = job_ptr->end_time_exp;
	times.time_limit = job_ptr->time_limit;
	times.finished = IS_JOB_FINISHED(job_ptr) ||
		IS_JOB_COMPLETING(job_ptr) || IS_JOB_RESIZING(job_ptr);
	if (job_ptr->start_time > start_period)
		start_period = job_ptr->start_time;
	if (at_end)
		job_ptr->end_time_exp = (time_t) NO_VAL;

	if (!assoc_locked)
		assoc_mgr_lock(&locks);
	billable = calc_job_billable_tres(job_ptr, start_period, true);
	qos = job_ptr->qos_ptr;
	if (qos && (qos->usage_factor >= 0))
		usage_factor = qos->usage_factor;
	__atomic_load(&st->decay_factor, &decay_factor, __ATOMIC_RELAXED);
	fairway_job_charge(&times, start_period, end_period, at_end,
			   decay_factor, billable, usage_factor, &c);
	_charge(job_ptr, &c, 0.0);
	if (at_end)
		fw_journal_job_end(st, job_ptr, &c, qos);
	if (!assoc_locked)
		assoc_mgr_unlock(&locks);
	log_flag(PRIO, "%s: %pJ charged %f (%g s x %f billable TRES)",
		 plugin_type, job_ptr, c.real_decay, c.run_delta, billable);
	return true;
}

/* Whether a period charges this job: running, or (CALCULATE_RUNNING) pending
 * with a start time, with an association and no node powering up for it. */
static bool _period_charges(const fw_cfg_t *cfg, const job_record_t *job_ptr)
{
	return ((cfg->weights.flags & FAIRWAY_FLAG_CALCULATE_RUNNING) ||
		!IS_JOB_PENDING(job_ptr)) &&
		!IS_JOB_POWER_UP_NODE(job_ptr) && job_ptr->start_time &&
		job_ptr->assoc_ptr;
}

/* Charge a running job for the period (multifactor's decay_apply_new_usage);
 * false for jobs that are done: finished or completing, or whose end was
 * charged already (then classic does not weigh them either).  assoc_locked:
 * the caller holds the assoc and QOS write locks and the TRES read lock. */
extern bool fw_charge_running_job(fw_state_t *st, const fw_cfg_t *cfg,
				  job_record_t *job_ptr, time_t now,
				  bool assoc_locked)
{
	if (IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return false;
	if (_period_charges(cfg, job_ptr)) {
		if (!fw_apply_new_usage(st, job_ptr, st->charged_to, now, false,
					assoc_locked))
			return false;
	}
	return true;
}

/*
 * Whether classic and depth-oblivious weigh this job in a pass that charges
 * nothing: as fw_charge_running_job would answer, without the charge.  A job
 * that is finished or completing (COMPLETED, CANCELLED, ..., or requeued and
 * still completing), or whose end was charged already, keeps the priority,
 * priorities per partition and factors of the last pass that weighed it, even
 * with CALCULATE_RUNNING (Fair Tree weighs it again).  Caller holds the job
 * lock.
 */
extern bool fw_classic_weighs(const fw_state_t *st, const fw_cfg_t *cfg,
			      const job_record_t *job_ptr)
{
	if (IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return false;
	if (!_period_charges(cfg, job_ptr))
		return true;
	return (job_ptr->end_time_exp != (time_t) NO_VAL) &&
		!(fw_ended_before_restart(st, job_ptr->job_id));
}

/*
 * At start (and reconfigure with assoc_clear), slurmctld reserves every running
 * job's whole TRES x time limit in grp_used_tres_run_secs; release what was
 * already used up to the last period (multifactor's fw_init_grp_used_tres_run_secs).
 */
extern void fw_init_grp_used_tres_run_secs(fw_state_t *st)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK };
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK,
				   .qos = WRITE_LOCK,
				   .tres = READ_LOCK };
	job_record_t *job_ptr;
	list_itr_t *it;
	time_t last_ran;

	if (!(slurm_conf.accounting_storage_enforce &
	      ACCOUNTING_ENFORCE_LIMITS))
		return;
	if (!job_list)
		return;

	lock_slurmctld(job_read_lock);
	if (!list_count(job_list)) {
		unlock_slurmctld(job_read_lock);
		return;
	}
	last_ran = st->charged_to;
	assoc_mgr_lock(&locks);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		double usage_factor = 1.0;

		if ((job_ptr->end_time_exp == (time_t) NO_VAL) ||
		    !IS_JOB_RUNNING(job_ptr) ||
		    (job_ptr->start_time > last_ran) ||
		    !job_ptr->tres_alloc_cnt)
			continue;
		if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0))
			usage_factor = job_ptr->qos_ptr->usage_factor;
		usage_factor *= (double) (last_ran - job_ptr->start_time);
		_charge(job_ptr, NULL, usage_factor);
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	unlock_slurmctld(job_read_lock);
}
