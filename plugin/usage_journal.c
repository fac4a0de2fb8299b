/*****************************************************************************\
 *  usage_journal.c - restart safety: Fairway's usage file, written at the end of every
 *  period, and the journal of job ends since (lib/capi/fairway_usage_files.h), so that a
 *  slurmctld killed between its usage checkpoints loses no usage; at start both
 *  are replayed over slurmctld's checkpoint when they belong to the last period.
 *  Here: the usage read out of assoc_mgr under its locks, one call per record
 *  (lib/capi/fairway_usage_state.h writes a replay back), and what a job end
 *  charged named for the journal.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"
#include "fairway_usage_state.h"

extern bool fw_ended_before_restart(const fw_state_t *st, uint32_t job_id)
{
	return fairway_usage_journal_ended(st->journal, job_id);
}

/* A QOS's part in a job end's charge: charged where it has usage. */
static fairway_end_qos_t _end_qos(const slurmdb_qos_rec_t *qos)
{
	return (fairway_end_qos_t) { qos ? qos->id : 0, qos && qos->usage,
				     qos && (qos->flags & QOS_FLAG_NO_DECAY) };
}

/* Append what a job's end charged (c, computed from basis) to the journal.
 * Caller holds the assoc write lock. */
extern void fw_journal_job_end(fw_state_t *st, job_record_t *job_ptr,
			       const fairway_job_charge_t *c,
			       const fairway_charge_basis_t *basis,
			       slurmdb_qos_rec_t *qos)
{
	fairway_job_end_t e = { .basis = basis };

	if (!job_ptr->assoc_ptr)
		return;
	e.job_id = job_ptr->job_id;
	/* 26.05 charges a pending heterogeneous job component at submission
	 * through priority_p_job_end: not an end, the job will run. */
	e.not_ended = IS_JOB_PENDING(job_ptr);
	e.assoc_id = job_ptr->assoc_ptr->id;
	e.qos = _end_qos(qos);
	if (job_ptr->part_ptr && (job_ptr->part_ptr->qos_ptr != qos))
		e.part_qos = _end_qos(job_ptr->part_ptr->qos_ptr);
	if (fairway_usage_journal_job_end(st->journal, c, &e) != FAIRWAY_OK)
		error("%s: cannot append to the usage journal: %m",
		      plugin_type);
}

/* Open (or, after the usage file was written, rotate) the journal. */
extern void fw_journal_open(fw_state_t *st, bool rotate)
{
	if (fairway_usage_journal_open(st->journal,
				       slurm_conf.state_save_location,
				       rotate) != FAIRWAY_OK)
		error("%s: cannot open the usage journal %s: %m", plugin_type,
		      fairway_last_error());
}

/* Copy the usage out into c, one call per record; c is NULL when out of
 * memory.  Caller holds the assoc and QOS locks until the copy is replayed. */
static fairway_usage_copy_t *_copy(fairway_usage_copy_t *c)
{
	slurmdb_assoc_rec_t *a, *p;
	slurmdb_qos_rec_t *q;
	list_itr_t *it;

	if (c && assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)))
			if (a->usage) {
				p = a->usage->parent_assoc_ptr;
				(void) fairway_usage_copy_assoc(
					c, a->id, &a->usage->usage_raw,
					&a->usage->grp_used_wall, p ? p->id : 0,
					p != NULL);
			}
		list_iterator_destroy(it);
	}
	if (c && assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((q = list_next(it)))
			if (q->usage)
				(void) fairway_usage_copy_qos(
					c, q->id, &q->usage->usage_raw,
					&q->usage->grp_used_wall);
		list_iterator_destroy(it);
	}
	return c;
}

/*
 * At the end of a period: the usage of every association and QOS as of `now`
 * to the usage file, and a new journal for the job ends that follow.  The
 * copy and the new epoch are taken under the assoc write lock, so every job
 * end is either in the file or in the journal of the new epoch.
 */
extern void fw_usage_save(fw_state_t *st, time_t now)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = READ_LOCK };
	fairway_usage_copy_t *c;

	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null"))
		return;
	/* Kept between periods, at the size of the lists: a copy of every
	 * association made and freed each period takes megabytes from the
	 * system and gives them back every time, which costs the next period's
	 * walk on virtual machines whose host reclaims freed memory
	 * (doc/performance.md). */
	if (st->usage_copy)
		fairway_usage_copy_clear(st->usage_copy);
	else
		st->usage_copy = fairway_usage_copy_new();
	assoc_mgr_lock(&locks);
	if (st->usage_copy && assoc_mgr_assoc_list && assoc_mgr_qos_list)
		(void) fairway_usage_copy_reserve(
			st->usage_copy, list_count(assoc_mgr_assoc_list),
			list_count(assoc_mgr_qos_list));
	c = _copy(st->usage_copy);
	fairway_usage_journal_set_epoch(st->journal, now);
	assoc_mgr_unlock(&locks);

	if (fairway_usage_copy_save(c, slurm_conf.state_save_location, now) !=
	    FAIRWAY_OK)
		error("%s: cannot save the usage file: %s", plugin_type,
		      fairway_last_error());
	else
		fw_journal_open(st, true);
}

/*
 * At start, after slurmctld loaded its own usage checkpoint (up to 5 minutes
 * old after a crash): if Fairway's usage file belongs to the last period the
 * decay state records, it and the journal of the job ends after it replace the
 * checkpointed usage, so nothing charged before a kill -9 is lost, and the
 * jobs whose end was replayed are never charged again; an association or QOS
 * the file does not hold starts from 0 (lib/state/usage_replay.h).  Anything
 * inconsistent (another plugin ran since, a damaged file) leaves slurmctld's
 * usage as it is, with one log line.  Caller holds st->calc_lock.
 */
extern void fw_usage_restore(fw_state_t *st)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	fairway_replay_counts_t n = { 0 };
	fairway_usage_copy_t *c = NULL;
	fairway_restore_t r;
	char line[8192];

	(void) fairway_usage_restore_prepare(st->journal,
					     slurm_conf.state_save_location,
					     st->last_ran, &r, line,
					     sizeof(line));
	if (r == FAIRWAY_RESTORE_STALE)
		info("%s: %s", plugin_type, line);
	else if (r == FAIRWAY_RESTORE_UNUSABLE)
		error("%s: %s", plugin_type, line);
	if (r != FAIRWAY_RESTORE_READY)
		goto done;

	assoc_mgr_lock(&locks);
	c = _copy(fairway_usage_copy_new());
	(void) fairway_usage_copy_replay(c, st->journal, st->last_ran, &n);
	assoc_mgr_unlock(&locks);
	fairway_usage_restore_summary(&n, st->last_ran, line, sizeof(line));
	info("%s: %s", plugin_type, line);
done:
	fairway_usage_journal_set_epoch(st->journal, st->last_ran);
	fairway_usage_copy_destroy(&c);
}

/* Close the journal, forget the replayed job ends and free the usage file's
 * copy (fini). */
extern void fw_journal_close(fw_state_t *st)
{
	fairway_usage_journal_destroy(&st->journal);
	fairway_usage_copy_destroy(&st->usage_copy);
}
