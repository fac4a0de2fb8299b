/*
 * fairway_period_clock.h - the calculation thread's schedule: one period every
 * PriorityCalcPeriod, and between periods, where the plugin asks for it
 * (PriorityParameters fairway_rerank_interval), a re-ranking of the queue.  The plugin
 * computes the period and the re-ranking; the clock decides when each runs, and runs it in
 * its own thread under the plugin's calculation lock, which the thread holds but while it
 * waits.
 *
 * Plain C over fairway.h (its errors), with the same habits: every failure is a
 * fairway_error_t with details in fairway_last_error(), "Errors:" on each function.
 *
 * Copyright (C) 2026 The Fairway authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FAIRWAY_PERIOD_CLOCK_H
#define FAIRWAY_PERIOD_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fairway_period_clock fairway_period_clock_t;

/* What the clock runs, each called in its thread with the lock held. */
typedef struct fairway_period_clock_calls {
  /* One period; start is when the thread began or the wait before it ended. */
  void (*period)(time_t start, void* arg);
  /* Seconds from one period's start to the next (PriorityCalcPeriod), read after each. */
  uint32_t (*calc_period)(void* arg);
  /* Seconds between re-rankings now, 0: none until the next period; read at every wake. */
  uint32_t (*rerank_interval)(void* arg);
  /* A re-ranking at now (NULL when rerank_interval is NULL). */
  void (*rerank)(time_t now, void* arg);
  void* arg;
} fairway_period_clock_calls_t;

/*
 * Start the thread, named name (at most 15 characters kept), which takes *lock, runs a
 * period at once and then as calls says until fairway_period_clock_stop.  calls is copied;
 * lock must outlive the clock.
 * Errors: FAIRWAY_EINVAL (NULL lock, calls, calls->period, calls->calc_period, name or out;
 * rerank_interval without rerank), FAIRWAY_ENOMEM, FAIRWAY_EINTERNAL (no thread could start).
 */
fairway_error_t fairway_period_clock_start(pthread_mutex_t* lock,
                                           const fairway_period_clock_calls_t* calls,
                                           const char* name, fairway_period_clock_t** out);

/* Wake the thread, wait until it has ended (a period under way first finishes), free the
 * clock and set *clock NULL (NULL or *clock NULL: nothing).  The caller must not hold the
 * lock.  Errors: none. */
void fairway_period_clock_stop(fairway_period_clock_t** clock);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_PERIOD_CLOCK_H */
