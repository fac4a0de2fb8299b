/*
 * fake_slurm_watch.h - what fake_slurm.c shares with the fixtures and entry point calls
 * of fake_slurm_fixtures.c: the layout of its lists and its lock watcher.  Private to
 * test/plugin; include after fake_slurmctld.h (Slurm's headers) and fake_slurm.h.
 */
#ifndef FAKE_SLURM_WATCH_H
#define FAKE_SLURM_WATCH_H

#include <stdbool.h>

#include "fake_slurm.h"

/* Slurm's list_t, as fake_slurm.c implements it: an array list. */
struct xlist {
	void **items;
	int n, cap;
	ListDelF del;
};

/* Report a violation (printf-style) to hooks.violation, or to stderr. */
void fake_violation(const char *fmt, ...);

/* Take the jobs' and associations' fields as they are now as the baselines
 * (a change made by the test itself, or by the caller that holds the lock). */
void fake_rebase(void);

/* Install the test's hooks (NULL: none) and route fake_slurmctld.c's locks
 * to the watcher. */
void fake_watch_reset(const fake_hooks_t *hooks);

/* Forget every lock count: no lock held, none taken yet. */
void fake_watch_zero(void);

/* After an entry point: report a write made without its lock. */
void fake_after(const char *what);

/* Take (or release) the job write lock as slurmctld holds it around an
 * entry point. */
void fake_caller_job_lock(bool take);

/* Count (or release) the job and QOS read locks slurmctld holds around
 * sprio's call. */
void fake_caller_readers(bool take);

#endif /* FAKE_SLURM_WATCH_H */
