/*****************************************************************************\
 *  usage_journal.c - restart safety: Fairway's usage file, written at the end of every
 *  period, and the journal of job ends since (lib/core/usage_store.h), so that a
 *  slurmctld killed between its usage checkpoints loses no usage; at start both
 *  are replayed over slurmctld's checkpoint when they belong to the last period.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fairway_plugin.h"

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
	return (x > y) - (x < y);
}

extern bool fw_ended_before_restart(const fw_state_t *st, uint32_t job_id)
{
	return bsearch(&job_id, st->ended_ids, st->ended_n, sizeof(uint32_t),
		       _cmp_u32) != NULL;
}

static char *_usage_path(const char *suffix)
{
	return xstrdup_printf("%s/fairway_usage%s",
			      slurm_conf.state_save_location, suffix);
}

/* The QOS charge of a job end, as _charge_qos made it. */
static void _qos_charge(slurmdb_qos_rec_t *qos, const fairway_job_charge_t *c,
			uint32_t *id, double *usage, double *wall)
{
	if (!qos || !qos->usage)
		return;
	*id = qos->id;
	*usage = (qos->flags & QOS_FLAG_NO_DECAY) ? c->real_nodecay :
						    c->real_decay;
	*wall = (qos->flags & QOS_FLAG_NO_DECAY) ? c->run_nodecay :
						   c->run_decay;
}

/* Append what a job's end charged to the journal.  Caller holds the assoc
 * write lock. */
extern void fw_journal_job_end(fw_state_t *st, job_record_t *job_ptr,
			       const fairway_job_charge_t *c,
			       slurmdb_qos_rec_t *qos)
{
	fairway_journal_entry_t e = { 0 };
	char line[512];
	size_t len;

	if (!job_ptr->assoc_ptr)
		return;
	e.epoch = st->epoch;
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
	if (!(len = fairway_journal_format(&e, line, sizeof(line))))
		return;
	slurm_mutex_lock(&st->journal_lock);
	/* One write(): a killed slurmctld leaves whole lines (the page cache
	 * outlives the process) or a torn last one, which is skipped. */
	if ((st->journal_fd >= 0) && (write(st->journal_fd, line, len) != len))
		error("%s: cannot append to the usage journal: %m",
		      plugin_type);
	slurm_mutex_unlock(&st->journal_lock);
}

/* Open the journal for appending (mode 0600), closing the previous one. */
extern void fw_journal_open(fw_state_t *st)
{
	char *path = _usage_path(".journal");

	slurm_mutex_lock(&st->journal_lock);
	if (st->journal_fd >= 0)
		close(st->journal_fd);
	st->journal_fd = open(
		path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		0600);
	if (st->journal_fd < 0)
		error("%s: cannot open the usage journal %s: %m", plugin_type,
		      path);
	slurm_mutex_unlock(&st->journal_lock);
	xfree(path);
}

/* The previous journal becomes .old (read at start too), a new one begins. */
static void _journal_rotate(fw_state_t *st)
{
	char *path = _usage_path(".journal"),
	     *old = _usage_path(".journal.old");

	slurm_mutex_lock(&st->journal_lock);
	(void) rename(path, old);
	slurm_mutex_unlock(&st->journal_lock);
	fw_journal_open(st);
	xfree(path);
	xfree(old);
}

static int _foreach_usage_entry(void *x, void *arg)
{
	fairway_usage_entry_t **cursor = arg;
	slurmdb_assoc_rec_t *a = x;

	if (a->usage) {
		(*cursor)->id = a->id;
		(*cursor)->usage_raw = a->usage->usage_raw;
		(*cursor)->grp_used_wall = a->usage->grp_used_wall;
		(*cursor)++;
	}
	return 0;
}

static int _foreach_qos_usage_entry(void *x, void *arg)
{
	fairway_usage_entry_t **cursor = arg;
	slurmdb_qos_rec_t *q = x;

	if (q->usage) {
		(*cursor)->id = q->id;
		(*cursor)->usage_raw = q->usage->usage_raw;
		(*cursor)->grp_used_wall = q->usage->grp_used_wall;
		(*cursor)++;
	}
	return 0;
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
	fairway_usage_entry_t *assocs = NULL, *qos = NULL, *cur;
	size_t na = 0, nq = 0;
	char *path;

	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null"))
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		assocs = xcalloc(list_count(assoc_mgr_assoc_list) + 1,
				 sizeof(*assocs));
		cur = assocs;
		list_for_each(assoc_mgr_assoc_list, _foreach_usage_entry, &cur);
		na = cur - assocs;
	}
	if (assoc_mgr_qos_list) {
		qos = xcalloc(list_count(assoc_mgr_qos_list) + 1, sizeof(*qos));
		cur = qos;
		list_for_each(assoc_mgr_qos_list, _foreach_qos_usage_entry,
			      &cur);
		nq = cur - qos;
	}
	st->epoch = now;
	assoc_mgr_unlock(&locks);

	path = _usage_path("");
	if (fairway_usage_write(path, now, assocs, na, qos, nq) != FAIRWAY_OK)
		error("%s: cannot save the usage file: %s", plugin_type,
		      fairway_last_error());
	else
		_journal_rotate(st);
	xfree(path);
	xfree(assocs);
	xfree(qos);
}

static slurmdb_qos_rec_t *_find_qos(uint32_t id)
{
	slurmdb_qos_rec_t *q;
	list_itr_t *it;

	if (!id || !assoc_mgr_qos_list)
		return NULL;
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it)) && (q->id != id))
		;
	list_iterator_destroy(it);
	return q;
}

static int _cmp_assoc_id(const void *a, const void *b)
{
	uint32_t x = (*(slurmdb_assoc_rec_t *const *) a)->id;
	uint32_t y = (*(slurmdb_assoc_rec_t *const *) b)->id;
	return (x > y) - (x < y);
}

static slurmdb_assoc_rec_t *_find_assoc_sorted(slurmdb_assoc_rec_t **v,
					       size_t n, uint32_t id)
{
	slurmdb_assoc_rec_t key = { .id = id }, *kp = &key, **hit;

	hit = bsearch(&kp, v, n, sizeof(*v), _cmp_assoc_id);
	return hit ? *hit : NULL;
}

static size_t _find_assoc_index(slurmdb_assoc_rec_t **v, size_t n,
				slurmdb_assoc_rec_t *a)
{
	slurmdb_assoc_rec_t **hit = bsearch(&a, v, n, sizeof(*v),
					    _cmp_assoc_id);

	return hit ? (size_t) (hit - v) : 0;
}

static void _add_journal(fw_state_t *st, fairway_journal_entry_t *e, size_t n,
			 time_t epoch, slurmdb_assoc_rec_t **byid, size_t nbyid,
			 size_t *applied)
{
	for (size_t i = 0; i < n; i++) {
		slurmdb_assoc_rec_t *a;
		slurmdb_qos_rec_t *q;

		if ((e[i].epoch != epoch) ||
		    (!e[i].not_ended && st->ended_n &&
		     fw_ended_before_restart(st, e[i].job_id)))
			continue;
		for (a = _find_assoc_sorted(byid, nbyid, e[i].assoc_id);
		     a && a->usage; a = a->usage->parent_assoc_ptr) {
			a->usage->usage_raw += (long double) e[i].real;
			a->usage->grp_used_wall += e[i].run;
		}
		if ((q = _find_qos(e[i].qos_id)) && q->usage) {
			q->usage->usage_raw += (long double) e[i].qos_usage;
			q->usage->grp_used_wall += e[i].qos_wall;
		}
		if ((q = _find_qos(e[i].part_qos_id)) && q->usage) {
			q->usage->usage_raw +=
				(long double) e[i].part_qos_usage;
			q->usage->grp_used_wall += e[i].part_qos_wall;
		}
		(*applied)++;
		if (e[i].not_ended)
			continue; /* charged, but the job goes on */
		xrecalloc(st->ended_ids, st->ended_n + 1, sizeof(uint32_t));
		st->ended_ids[st->ended_n++] = e[i].job_id;
		qsort(st->ended_ids, st->ended_n, sizeof(uint32_t), _cmp_u32);
	}
}

/*
 * At start, after slurmctld loaded its own usage checkpoint (up to 5 minutes
 * old after a crash): if Fairway's usage file belongs to the last period the
 * decay state records, it and the journal of the job ends after it replace the
 * checkpointed usage, so nothing charged before a kill -9 is lost, and the
 * jobs whose end was replayed are never charged again.  An association or QOS
 * the file does not hold was created after that period: everything it was
 * charged since is in the journal, so it starts from 0 (slurmctld's checkpoint,
 * taken after some of those job ends, would count them twice).  Anything inconsistent
 * (another plugin ran since, a damaged file) leaves slurmctld's usage as it
 * is, with one log line.  Caller holds st->calc_lock.
 */
extern void fw_usage_restore(fw_state_t *st)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	char *path = _usage_path(""), *jpath = _usage_path(".journal"),
	     *jold = _usage_path(".journal.old");
	fairway_usage_file_t *f = NULL;
	fairway_journal_entry_t *e1 = NULL, *e2 = NULL;
	size_t n1 = 0, n2 = 0, restored = 0, applied = 0, nbyid = 0, fresh = 0;
	slurmdb_assoc_rec_t **byid = NULL;
	bool *in_file = NULL;
	slurmdb_qos_rec_t *qos;
	list_itr_t *qit;

	if (fairway_usage_read(path, &f) != FAIRWAY_OK) {
		error("%s: usage file unusable, keeping slurmctld's usage: %s",
		      plugin_type, fairway_last_error());
		goto done;
	}
	if (!f)
		goto done;
	if (fairway_usage_period(f) != st->last_ran) {
		info("%s: usage file is of %ld, the last period of %ld: keeping slurmctld's usage",
		     plugin_type, (long) fairway_usage_period(f),
		     (long) st->last_ran);
		goto done;
	}
	if ((fairway_journal_read(jold, &e1, &n1) != FAIRWAY_OK) ||
	    (fairway_journal_read(jpath, &e2, &n2) != FAIRWAY_OK)) {
		error("%s: usage journal unusable, keeping slurmctld's usage: %s",
		      plugin_type, fairway_last_error());
		goto done;
	}

	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		slurmdb_assoc_rec_t *a;
		list_itr_t *it;

		byid = xcalloc(list_count(assoc_mgr_assoc_list) + 1,
			       sizeof(*byid));
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)))
			if (a->usage)
				byid[nbyid++] = a;
		list_iterator_destroy(it);
		qsort(byid, nbyid, sizeof(*byid), _cmp_assoc_id);
	}
	in_file = xcalloc(nbyid + 1, sizeof(*in_file));
	for (size_t i = 0; i < fairway_usage_count(f, 0); i++) {
		const fairway_usage_entry_t *u = fairway_usage_entry(f, 0, i);
		slurmdb_assoc_rec_t *a = _find_assoc_sorted(byid, nbyid, u->id);

		if (!a)
			continue; /* deleted since */
		a->usage->usage_raw = u->usage_raw;
		a->usage->grp_used_wall = u->grp_used_wall;
		in_file[_find_assoc_index(byid, nbyid, a)] = true;
		restored++;
	}
	for (size_t k = 0; k < nbyid; k++) {
		if (in_file[k])
			continue; /* created since the period */
		byid[k]->usage->usage_raw = 0;
		byid[k]->usage->grp_used_wall = 0;
		fresh++;
	}
	qit = assoc_mgr_qos_list ? list_iterator_create(assoc_mgr_qos_list) :
				   NULL;
	while (qit && (qos = list_next(qit))) {
		bool found = false;

		if (!qos->usage)
			continue;
		for (size_t i = 0; i < fairway_usage_count(f, 1); i++) {
			const fairway_usage_entry_t *u =
				fairway_usage_entry(f, 1, i);

			if (u->id != qos->id)
				continue;
			qos->usage->usage_raw = u->usage_raw;
			qos->usage->grp_used_wall = u->grp_used_wall;
			found = true;
			break;
		}
		if (!found) { /* created since the period */
			qos->usage->usage_raw = 0;
			qos->usage->grp_used_wall = 0;
		}
	}
	if (qit)
		list_iterator_destroy(qit);
	_add_journal(st, e1, n1, st->last_ran, byid, nbyid, &applied);
	_add_journal(st, e2, n2, st->last_ran, byid, nbyid, &applied);
	assoc_mgr_unlock(&locks);
	if (fresh)
		info("%s: usage of %zu associations restored from the period at %ld, plus %zu job ends after it; %zu associations created since start from 0",
		     plugin_type, restored, (long) st->last_ran, applied,
		     fresh);
	else
		info("%s: usage of %zu associations restored from the period at %ld, plus %zu job ends after it",
		     plugin_type, restored, (long) st->last_ran, applied);
done:
	st->epoch = st->last_ran;
	fairway_usage_destroy(&f);
	fairway_journal_destroy(&e1);
	fairway_journal_destroy(&e2);
	xfree(byid);
	xfree(in_file);
	xfree(path);
	xfree(jpath);
	xfree(jold);
}

/* Close the journal and forget the replayed job ends (fini). */
extern void fw_journal_close(fw_state_t *st)
{
	slurm_mutex_lock(&st->journal_lock);
	if (st->journal_fd >= 0)
		close(st->journal_fd);
	st->journal_fd = -1;
	slurm_mutex_unlock(&st->journal_lock);
	xfree(st->ended_ids);
	st->ended_n = 0;
	st->epoch = 0;
}
