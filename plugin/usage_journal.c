/*****************************************************************************\
 *  usage_journal.c - restart safety: Fairway's usage file, written at the end of every
 *  period, and the journal of job ends since (lib/capi/fairway_usage_files.h), so that a
 *  slurmctld killed between its usage checkpoints loses no usage; at start both
 *  are replayed over slurmctld's checkpoint when they belong to the last period.
 *  Here: the usage copied out of assoc_mgr and written back under its locks.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"

/* Every association's and QOS's usage (those with usage), and where it is. */
typedef struct {
	slurmdb_assoc_rec_t **a;
	fairway_usage_node_t *an;
	slurmdb_qos_rec_t **q;
	fairway_usage_entry_t *qn;
	size_t na, nq;
} fw_usage_copy_t;

extern bool fw_ended_before_restart(const fw_state_t *st, uint32_t job_id)
{
	return fairway_usage_journal_ended(st->journal, job_id);
}

/* The QOS charge of a job end, as _charge_qos made it. */
static void _qos_charge(slurmdb_qos_rec_t *qos, const fairway_job_charge_t *c,
			uint32_t *id, double *usage, double *wall)
{
	bool nodecay = qos && (qos->flags & QOS_FLAG_NO_DECAY);

	if (!qos || !qos->usage)
		return;
	*id = qos->id;
	*usage = nodecay ? c->real_nodecay : c->real_decay;
	*wall = nodecay ? c->run_nodecay : c->run_decay;
}

/* Append what a job's end charged to the journal.  Caller holds the assoc
 * write lock. */
extern void fw_journal_job_end(fw_state_t *st, job_record_t *job_ptr,
			       const fairway_job_charge_t *c,
			       slurmdb_qos_rec_t *qos)
{
	fairway_journal_entry_t e = { 0 };

	if (!job_ptr->assoc_ptr)
		return;
	e.job_id = job_ptr->job_id;
	/* 26.05 charges a pending heterogeneous job component at submission
	 * through priority_p_job_end: not an end, the job will run. */
	e.not_ended = IS_JOB_PENDING(job_ptr);
	e.assoc_id = job_ptr->assoc_ptr->id;
	e.real = c->real_decay;
	e.run = c->run_decay;
	_qos_charge(qos, c, &e.qos_id, &e.qos_usage, &e.qos_wall);
	if (job_ptr->part_ptr && (job_ptr->part_ptr->qos_ptr != qos))
		_qos_charge(job_ptr->part_ptr->qos_ptr, c, &e.part_qos_id,
			    &e.part_qos_usage, &e.part_qos_wall);
	if (fairway_usage_journal_append(st->journal, &e) != FAIRWAY_OK)
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

/* Copy the usage out; caller holds the assoc and QOS locks. */
static void _copy(fw_usage_copy_t *c)
{
	slurmdb_assoc_rec_t *a, *p;
	slurmdb_qos_rec_t *q;
	list_itr_t *it;

	if (assoc_mgr_assoc_list) {
		c->a = xcalloc(list_count(assoc_mgr_assoc_list) + 1,
			       sizeof(*c->a));
		c->an = xcalloc(list_count(assoc_mgr_assoc_list) + 1,
				sizeof(*c->an));
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)))
			if (a->usage) {
				p = a->usage->parent_assoc_ptr;
				c->an[c->na] = (fairway_usage_node_t) {
					{ a->id, a->usage->usage_raw,
					  a->usage->grp_used_wall },
					p ? p->id : 0,
					p != NULL
				};
				c->a[c->na++] = a;
			}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		c->q = xcalloc(list_count(assoc_mgr_qos_list) + 1,
			       sizeof(*c->q));
		c->qn = xcalloc(list_count(assoc_mgr_qos_list) + 1,
				sizeof(*c->qn));
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((q = list_next(it)))
			if (q->usage) {
				c->qn[c->nq] = (fairway_usage_entry_t) {
					q->id, q->usage->usage_raw,
					q->usage->grp_used_wall
				};
				c->q[c->nq++] = q;
			}
		list_iterator_destroy(it);
	}
}

static void _copy_free(fw_usage_copy_t *c)
{
	xfree(c->a);
	xfree(c->an);
	xfree(c->q);
	xfree(c->qn);
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
	fw_usage_copy_t c = { 0 };

	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null"))
		return;
	assoc_mgr_lock(&locks);
	_copy(&c);
	fairway_usage_journal_set_epoch(st->journal, now);
	assoc_mgr_unlock(&locks);

	if (fairway_usage_journal_save(slurm_conf.state_save_location, now,
				       c.an, c.na, c.qn, c.nq) != FAIRWAY_OK)
		error("%s: cannot save the usage file: %s", plugin_type,
		      fairway_last_error());
	else
		fw_journal_open(st, true);
	_copy_free(&c);
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
	const char *dir = slurm_conf.state_save_location;
	fairway_replay_counts_t n = { 0 };
	fw_usage_copy_t c = { 0 };
	time_t period = 0;
	int found = 0;

	if (fairway_usage_journal_read_usage(st->journal, dir, &found,
					     &period) != FAIRWAY_OK) {
		error("%s: usage file unusable, keeping slurmctld's usage: %s",
		      plugin_type, fairway_last_error());
		goto done;
	}
	if (!found)
		goto done;
	if (period != st->last_ran) {
		info("%s: usage file is of %ld, the last period of %ld: keeping slurmctld's usage",
		     plugin_type, (long) period, (long) st->last_ran);
		goto done;
	}
	if (fairway_usage_journal_read_journals(st->journal, dir) !=
	    FAIRWAY_OK) {
		error("%s: usage journal unusable, keeping slurmctld's usage: %s",
		      plugin_type, fairway_last_error());
		goto done;
	}

	assoc_mgr_lock(&locks);
	_copy(&c);
	if (fairway_usage_journal_replay(st->journal, st->last_ran, c.an, c.na,
					 c.qn, c.nq, &n) == FAIRWAY_OK) {
		for (size_t i = 0; i < c.na; i++) {
			c.a[i]->usage->usage_raw = c.an[i].usage.usage_raw;
			c.a[i]->usage->grp_used_wall =
				c.an[i].usage.grp_used_wall;
		}
		for (size_t i = 0; i < c.nq; i++) {
			c.q[i]->usage->usage_raw = c.qn[i].usage_raw;
			c.q[i]->usage->grp_used_wall = c.qn[i].grp_used_wall;
		}
	}
	assoc_mgr_unlock(&locks);
	if (n.fresh)
		info("%s: usage of %zu associations restored from the period at %ld, plus %zu job ends after it; %zu associations created since start from 0",
		     plugin_type, n.restored, (long) st->last_ran, n.applied,
		     n.fresh);
	else
		info("%s: usage of %zu associations restored from the period at %ld, plus %zu job ends after it",
		     plugin_type, n.restored, (long) st->last_ran, n.applied);
done:
	fairway_usage_journal_set_epoch(st->journal, st->last_ran);
	_copy_free(&c);
}

/* Close the journal and forget the replayed job ends (fini). */
extern void fw_journal_close(fw_state_t *st)
{
	fairway_usage_journal_destroy(&st->journal);
}
