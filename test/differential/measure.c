/*****************************************************************************\
 *  measure.c - the clock both plugins read, and what the harness measures:
 *  how long slurmctld's job write lock is held, elapsed times, medians, the
 *  heap in use.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <malloc.h>
#include <stdlib.h>

#include "harness.h"

/*
 * --decay-thread freezes the clock at the scenario's time, so that
 * multifactor's decay thread and Fairway's calculation thread, each started as
 * slurmctld starts it, run their first period at the same second (the
 * executable's time() is found before libc's: -rdynamic).
 */
time_t fw_frozen_now;

time_t time(time_t *t)
{
	struct timespec ts;
	time_t v;

	if (fw_frozen_now) {
		v = fw_frozen_now;
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = ts.tv_sec;
	}
	if (t)
		*t = v;
	return v;
}

/*
 * Without rwlocks (differential, bench: one thread) the job write lock's hold
 * times are summed (bench reports the sum per period); with them (soak) the
 * longest hold is kept.
 */
fw_locks_t fw_locks;
static bool g_rwlocks;
static __thread struct timespec g_job_lock_t0;

double ns_between(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
}

static void _locked(void *ctx, slurmctld_lock_t l)
{
	if (l.job == WRITE_LOCK)
		clock_gettime(CLOCK_MONOTONIC, &g_job_lock_t0);
}

static void _unlocking(void *ctx, slurmctld_lock_t l)
{
	struct timespec t;
	uint64_t ns, max;

	if (l.job != WRITE_LOCK)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!g_rwlocks) {
		fw_locks.sum_ns += ns_between(g_job_lock_t0, t);
		return;
	}
	ns = ns_between(g_job_lock_t0, t);
	max = __atomic_load_n(&fw_locks.max_ns, __ATOMIC_RELAXED);
	while ((ns > max) &&
	       !__atomic_compare_exchange_n(&fw_locks.max_ns, &max, ns, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void measure_install_lock_hooks(void)
{
	fake_ctld_hooks_t hooks = { .locked = _locked,
				    .unlocking = _unlocking };

	fake_ctld_set_hooks(&hooks);
}

void measure_use_rwlocks(bool on)
{
	g_rwlocks = on;
	fake_ctld_use_rwlocks(on);
}

double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

double median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	/* Large arrays (e.g. per-association vectors) are mmap'ed chunks. */
	return mi.uordblks + mi.hblkhd;
}
