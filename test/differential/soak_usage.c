/*****************************************************************************\
 *  soak_usage.c - no lost usage, for the soak (fw_soak, FW_SOAK_USAGE): with
 *  decay off (PriorityDecayHalfLife=0) every second a job ran is charged
 *  once, billable TRES x its QOS's UsageFactor, to its association and each
 *  ancestor up to the root.  The harness starts and ends every job itself, so
 *  it knows what each one ran: counted here at its end (and for the jobs
 *  still running, up to the last period), per association, and compared with
 *  assoc_mgr's usage_raw at the end.
 *
 *  An association removed mid-run takes its own usage with it, and its jobs
 *  lose their association (later charges reach no association), while its
 *  parents keep what it was charged (assoc_mgr does not subtract it): its
 *  usage is read when slurmctld is told of the removal, and replaces what
 *  its jobs had been counted.
 *
 *  The figures are exact: seconds, CPU counts, UsageFactor (multiples of
 *  0.5) and the scenario's initial usage are all binary fractions small
 *  enough for a long double's 64-bit mantissa, so any difference is usage
 *  lost or charged twice; a relative 1e-12 is allowed all the same.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <math.h>
#include <stdio.h>

#include "harness.h"

/* What the harness counted for one association: its usage at the start plus
 * every job's charge.  Under the job write lock. */
typedef struct {
	long double expect;
	bool used, removed;
} slot_t;

static struct {
	time_t charged_from; /* the state file's last period at start */
	long double root0;   /* root's usage at the start */
	long double jobs;    /* jobs' charges in associations still there */
	long double removed; /* usage of removed associations, at removal */
	slot_t *orig;	     /* by id: the scenario's associations */
	size_t norig;
	slot_t *added; /* by id - SOAK_FIRST_ADDED_ID */
	size_t nadded;
	long njobs, nlost, nremoved;
} g_u;

static slot_t *_slot(uint32_t id)
{
	slot_t **v = &g_u.orig;
	size_t *n = &g_u.norig, k = id;

	if (id >= SOAK_FIRST_ADDED_ID) {
		v = &g_u.added;
		n = &g_u.nadded;
		k = id - SOAK_FIRST_ADDED_ID;
	}
	if (k >= *n) {
		size_t cap = 2 * k + 64;
		*v = xrealloc(*v, cap * sizeof(slot_t)); /* zeroes the rest */
		*n = cap;
	}
	return &(*v)[k];
}

void soak_usage_start(time_t charged_from)
{
	assoc_mgr_lock_t read = { .assoc = READ_LOCK };
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;

	g_u.charged_from = charged_from;
	assoc_mgr_lock(&read);
	g_u.root0 = assoc_mgr_root_assoc->usage->usage_raw;
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		slot_t *s = _slot(a->id);
		s->expect = a->usage->usage_raw;
		s->used = true;
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&read);
}

/* What a job ran up to `until` (its end, or the last period), from its start
 * or the first period the plugin charges from, as the plugin charges it:
 * seconds x billable TRES (its CPUs here) x its QOS's UsageFactor. */
static long double _ran(const job_record_t *j, time_t until)
{
	time_t from = j->start_time;
	double factor = 1.0;

	if (!from)
		return 0; /* never started: cancelled while pending */
	if (from < g_u.charged_from)
		from = g_u.charged_from;
	if (until <= from)
		return 0;
	if (j->qos_ptr && (j->qos_ptr->usage_factor >= 0))
		factor = j->qos_ptr->usage_factor;
	return (long double) (until - from) * j->total_cpus * factor;
}

static void _count(const job_record_t *j, time_t until)
{
	long double ran = _ran(j, until);
	slot_t *s;

	g_u.njobs++;
	if (!j->assoc_ptr) {
		/* Its association was removed: counted in what that took. */
		g_u.nlost++;
		return;
	}
	s = _slot(j->assoc_ptr->id);
	s->expect += ran;
	s->used = true;
	g_u.jobs += ran;
}

void soak_usage_job_end(const job_record_t *j)
{
	_count(j, j->end_time);
}

void soak_usage_assoc_removed(const slurmdb_assoc_rec_t *rec)
{
	slot_t *s = _slot(rec->id);

	/* Its jobs no longer reach it: what they were counted is replaced by
	 * what it was charged (it started at 0). */
	g_u.jobs -= s->expect;
	g_u.removed += rec->usage->usage_raw;
	g_u.nremoved++;
	s->expect = 0;
	s->removed = true;
}

/* One association compared; true when it matches. */
static bool _matches(long double expect, long double found)
{
	return fabsl(found - expect) <= 1e-12L * fabsl(expect);
}

bool soak_usage_check(time_t charged_to)
{
	assoc_mgr_lock_t read = { .assoc = READ_LOCK };
	long double expect, found;
	slurmdb_assoc_rec_t *a;
	size_t checked = 0, bad = 0;
	list_itr_t *it;

	for (size_t r = 0; r < soak_state.nrun; r++)
		_count(soak_state.running[r], charged_to);

	assoc_mgr_lock(&read);
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		slot_t *s = _slot(a->id);
		if (!a->user || !s->used)
			continue;
		checked++;
		if (_matches(s->expect, a->usage->usage_raw))
			continue;
		if (++bad <= 5)
			printf("FAIL: association %u (%s): usage_raw %.3Lf, the jobs ran %.3Lf (%+.3Lf)\n",
			       a->id, a->user, a->usage->usage_raw, s->expect,
			       a->usage->usage_raw - s->expect);
	}
	list_iterator_destroy(it);
	found = assoc_mgr_root_assoc->usage->usage_raw;
	assoc_mgr_unlock(&read);

	expect = g_u.root0 + g_u.jobs + g_u.removed;
	printf("  usage (decay off): root expected %.1Lf = %.1Lf at the start + %.1Lf charged to associations still there + %.1Lf taken by %ld removed associations; found %.1Lf (difference %Lg)\n",
	       expect, g_u.root0, g_u.jobs, g_u.removed, g_u.nremoved, found,
	       found - expect);
	printf("  usage: %ld jobs counted (%ld without their removed association); %zu user associations checked, %zu differ\n",
	       g_u.njobs, g_u.nlost, checked, bad);
	if (!_matches(expect, found)) {
		printf("FAIL: usage lost or charged twice: the root has %.3Lf, the jobs ran %.3Lf\n",
		       found, expect);
		bad++;
	}
	xfree(g_u.orig);
	xfree(g_u.added);
	return !bad;
}
