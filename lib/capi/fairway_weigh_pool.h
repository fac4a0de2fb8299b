/*
 * fairway_weigh_pool.h - the weighing pool: threads that weigh consecutive ranges of a pass's
 * jobs at once, while the caller holds the locks that make that safe.  The plugin keeps the
 * jobs and weighs a range; the pool decides how many threads take part, starts them the first
 * time a pass needs them, hands out the ranges and waits for them.
 *
 * How many threads: the setting passed to fairway_weigh_pool_run (PriorityParameters
 * fairway_weigh_threads), else FAIRWAY_WEIGH_THREADS from the environment, else the CPUs the
 * process may run on (its affinity mask), at most 16; never more than
 * FAIRWAY_MAX_WEIGH_THREADS.  Each thread gets at least half of FAIRWAY_PARALLEL_MIN_JOBS
 * jobs (default 4096), so a pass of fewer stays in the calling thread.  The threads stay
 * until fairway_weigh_pool_destroy.
 *
 * Copyright (C) 2026 The Fairway authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FAIRWAY_WEIGH_POOL_H
#define FAIRWAY_WEIGH_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "fairway.h"
#include "fairway_publish.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fairway_weigh_pool fairway_weigh_pool_t;

/* Weigh jobs [begin, end) of the pass in thread `lane` (0: the caller of
 * fairway_weigh_pool_run, 1 ..: the pool's threads, named fw_weigh<lane>); nonzero when a
 * priority changed.  Runs concurrently with the other lanes of the pass. */
typedef int (*fairway_weigh_range_fn)(void* arg, int lane, size_t begin, size_t end);

/* A pool with no thread yet, reading the environment's FAIRWAY_WEIGH_THREADS and
 * FAIRWAY_PARALLEL_MIN_JOBS (each NULL when unset); a value out of range is told through
 * say (one line each) and replaced by the default.  say is also told, once until a thread
 * starts again, when a thread cannot start.
 * Errors: FAIRWAY_EINVAL (pool or say NULL), FAIRWAY_ENOMEM. */
fairway_error_t fairway_weigh_pool_create(const char* env_threads, const char* env_min_jobs,
                                          fairway_message_fn say, void* say_arg,
                                          fairway_weigh_pool_t** pool);

/* Weigh a pass of n jobs: in the calling thread alone when parallel is 0, when n is under
 * the parallel minimum or when fewer than two threads can take part, else cut into as many
 * consecutive ranges as threads take part (threads: fairway_weigh_threads, 0: not given),
 * range 0 in the calling thread, each other in a pool thread; returns once every range is
 * weighed.  *changed: whether any range's weigh returned nonzero; *parts: the threads that
 * took part (either may be NULL).  Called from one thread at a time.
 * Errors: FAIRWAY_EINVAL (pool or weigh NULL). */
fairway_error_t fairway_weigh_pool_run(fairway_weigh_pool_t* pool, size_t n, uint32_t threads,
                                       int parallel, fairway_weigh_range_fn weigh, void* arg,
                                       int* changed, int* parts);

/* Stop the pool's threads and free it; *pool is set to NULL (NULL or *pool NULL: nothing).
 * No pass may be running. */
void fairway_weigh_pool_destroy(fairway_weigh_pool_t** pool);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_WEIGH_POOL_H */
