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

#include "fairway_plugin.h"
#include "fairway_usage_state.h"

assoc_mgr_lock_t fw_charge_locks = { .assoc = WRITE_LOCK,
				     .qos = WRITE_LOCK,
				     .tres = READ_LOCK };

/* Add decayed TRES usage (NULL: none) to a QOS or association and release
 * the TRES run seconds reserved at job start in run_secs (whose: the
 * record's name in an underflow's message).  Only when limits are enforced,
 * as Slurm does. */
static void _charge_tres(long double *usage_tres_raw, uint64_t *run_secs,
			 const long double *tres_usage,
			 const uint64_t *tres_run_delta, uint32_t job_id,
			 const char *whose, const char *name, uint32_t id)
{
	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
		return;
	for (int i = 0; i < slurmctld_tres_cnt; i++) {
		if (i == TRES_ARRAY_ENERGY)
			continue;
		if (tres_usage)
			usage_tres_raw[i] += tres_usage[i];
		if (tres_run_delta[i] > run_secs[i]) {
			error("%s: job %u: %s %s(%u) TRES %s run seconds underflow, tried to remove %" PRIu64
			      " seconds when only %" PRIu64 " remained.",
			      plugin_type, job_id, whose, name ? name : "", id,
			      assoc_mgr_tres_name_array[i], tres_run_delta[i],
			      run_secs[i]);
			run_secs[i] = 0;
		} else
			run_secs[i] -= tres_run_delta[i];
	}
}

/* A QOS's TRES usage and released run seconds for a job; from Slurm 24.11
 * also the run seconds of the job's account and user under the QOS, and
 * nothing for a job without an association. */
static void _charge_qos_tres(slurmdb_qos_rec_t *qos, job_record_t *job_ptr,
			     const long double *tres_usage,
			     const uint64_t *tres_run_delta)
{
	uint64_t *acct_secs = NULL, *user_secs = NULL;
	uint32_t job_id = job_ptr->job_id;

	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
		return;
	if (FW_QOS_RUN_SECS_PER_USER) {
		if (!job_ptr->assoc_ptr)
			return;
		fw_qos_used_run_secs(qos, job_ptr, &acct_secs, &user_secs);
	}
	_charge_tres(qos->usage->usage_tres_raw,
		     qos->usage->grp_used_tres_run_secs, tres_usage,
		     tres_run_delta, job_id, "QOS", qos->name, qos->id);
	if (acct_secs)
		_charge_tres(NULL, acct_secs, NULL, tres_run_delta, job_id,
			     "QOS account limits of", qos->name, qos->id);
	if (user_secs)
		_charge_tres(NULL, user_secs, NULL, tres_run_delta, job_id,
			     "QOS user limits of", qos->name, qos->id);
}

/* A job's charge c (NULL: only the run seconds released) added to a QOS. */
static void _charge_qos(slurmdb_qos_rec_t *qos, job_record_t *job_ptr,
			const fairway_job_charge_t *c,
			const long double *tres_decay,
			const long double *tres_nodecay,
			const uint64_t *tres_run_delta)
{
	bool nodecay = qos && (qos->flags & QOS_FLAG_NO_DECAY);

	if (!qos || !qos->usage)
		return;
	if (c) {
		qos->usage->grp_used_wall += nodecay ? c->run_nodecay :
						       c->run_decay;
		qos->usage->usage_raw +=
			(long double) (nodecay ? c->real_nodecay :
						 c->real_decay);
	}
	_charge_qos_tres(qos, job_ptr, nodecay ? tres_nodecay : tres_decay,
			 tres_run_delta);
}

/* A job's charge c (NULL: only the run seconds released) added to its QOS,
 * its partition's QOS unless it is the job's (the usage factor is the job's
 * QOS's only), and its association and every ancestor up to and including
 * root (root's usage normalizes everyone's).  Assoc and QOS write locks. */
static void _charge_records(job_record_t *job_ptr,
			    const fairway_job_charge_t *c,
			    const long double *tres_decay,
			    const long double *tres_nodecay,
			    const uint64_t *tres_run_delta)
{
	slurmdb_qos_rec_t *qos = job_ptr->qos_ptr;

	_charge_qos(qos, job_ptr, c, tres_decay, tres_nodecay, tres_run_delta);
	if (job_ptr->part_ptr && (job_ptr->part_ptr->qos_ptr != qos))
		_charge_qos(job_ptr->part_ptr->qos_ptr, job_ptr, c, tres_decay,
			    tres_nodecay, tres_run_delta);
	for (slurmdb_assoc_rec_t *assoc = job_ptr->assoc_ptr;
	     assoc && assoc->usage; assoc = assoc->usage->parent_assoc_ptr) {
		if (c) {
			assoc->usage->grp_used_wall += c->run_decay;
			assoc->usage->usage_raw += (long double) c->real_decay;
		}
		_charge_tres(assoc->usage->usage_tres_raw,
			     assoc->usage->grp_used_tres_run_secs, tres_decay,
			     tres_run_delta, job_ptr->job_id, "assoc",
			     assoc->acct, assoc->id);
	}
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
	int cnt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1;
	uint64_t tres_run_delta[cnt];
	long double tres_decay[cnt], tres_nodecay[cnt];
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

	memset(tres_run_delta, 0, sizeof(tres_run_delta));
	memset(tres_decay, 0, sizeof(tres_decay));
	memset(tres_nodecay, 0, sizeof(tres_nodecay));

	if (!assoc_locked)
		assoc_mgr_lock(&locks);
	billable = calc_job_billable_tres(job_ptr, start_period, true);
	qos = job_ptr->qos_ptr;
	if (qos && (qos->usage_factor >= 0))
		usage_factor = qos->usage_factor;
	__atomic_load(&st->decay_factor, &decay_factor, __ATOMIC_RELAXED);
	fairway_job_charge(&times, start_period, end_period, at_end,
			   decay_factor, billable, usage_factor, &c);
	if (job_ptr->tres_alloc_cnt) {
		for (int i = 0; i < slurmctld_tres_cnt; i++) {
			uint64_t cnt_i = job_ptr->tres_alloc_cnt[i];
			if (!cnt_i || (cnt_i == NO_CONSUME_VAL64))
				continue;
			tres_run_delta[i] = c.tres_time_delta * cnt_i;
			tres_decay[i] = (long double) c.run_decay *
				(long double) cnt_i;
			tres_nodecay[i] = (long double) c.run_nodecay *
				(long double) cnt_i;
		}
	}

	_charge_records(job_ptr, &c, tres_decay, tres_nodecay, tres_run_delta);
	if (at_end) {
		fairway_charge_basis_t basis = {
			.times = times,
			.start_period = start_period,
			.end_period = end_period,
			.decay_factor = decay_factor,
			.billable_tres = billable,
			.usage_factor = usage_factor,
		};
		fw_journal_job_end(st, job_ptr, &c, &basis, qos);
	}
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
	int cnt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1;
	uint64_t delta[cnt];
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
		memset(delta, 0, sizeof(delta));
		for (int i = 0; i < slurmctld_tres_cnt; i++) {
			if (job_ptr->tres_alloc_cnt[i] == NO_CONSUME_VAL64)
				continue;
			delta[i] = job_ptr->tres_alloc_cnt[i] * usage_factor;
		}
		_charge_records(job_ptr, NULL, NULL, NULL, delta);
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	unlock_slurmctld(job_read_lock);
}
