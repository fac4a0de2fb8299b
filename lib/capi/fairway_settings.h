/*
 * fairway_settings.h - Fairway's C API for settling the options of PriorityParameters
 * against the rest of the configuration: which of fairway_usage and fairway_fairshare_tres
 * survive the fair-share algorithm and the TRES slurmctld tracks, and what to log about them.
 *
 * Plain C over fairway.h and fairway_publish.h (fairway_options_t), with the same habits:
 * every failure is a fairway_error_t with details in fairway_last_error(), "Errors:" on each
 * function.  Nothing here allocates.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_SETTINGS_H
#define FAIRWAY_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "fairway.h"
#include "fairway_publish.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What was logged last about fairway_usage and fairway_fairshare_tres, so that a
 * reconfigure logs only a change (zeroed: historical usage, no list). */
typedef struct fairway_options_said {
  uint32_t usage_basis; /* FAIRWAY_USAGE_* last logged */
  /* the fairway_fairshare_tres list last logged, comma-separated ("": none) */
  char fairshare_tres[FAIRWAY_MAX_FAIRSHARE_TRES * 65];
} fairway_options_said_t;

/*
 * Settle *o, as parsed by fairway_options_parse(), for the fair-share algorithm algo and the
 * TRES slurmctld tracks (tracked[0 .. tracked_count), the names of its TRES arrays in order,
 * compared without regard to case; a NULL name matches nothing):
 *  - fairway_usage other than historical is refused under depth-oblivious (usage_basis becomes
 *    FAIRWAY_USAGE_HISTORICAL and rerank_interval 0);
 *  - fairway_fairshare_tres is refused under depth-oblivious, and each listed TRES that is not
 *    tracked is dropped; the others keep their order in o->fairshare_tres, and positions[k]
 *    (FAIRWAY_MAX_FAIRSHARE_TRES of them) gets the index in tracked of the k-th.
 * Each refusal is said through say_error; then one line through say_info when the basis in
 * force differs from said->usage_basis, and one when the list in force differs from
 * said->fairshare_tres, *said being updated to match.  say_error and say_info may be NULL.
 * Errors: FAIRWAY_EINVAL (NULL o, said or positions, NULL tracked with a count, an unknown
 * algorithm or usage basis), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_options_settle(fairway_options_t* o, fairway_algorithm_t algo,
                                       const char* const* tracked, size_t tracked_count,
                                       fairway_options_said_t* said, int* positions,
                                       fairway_message_fn say_error, fairway_message_fn say_info,
                                       void* arg);

/*
 * The algorithm as the plugin's start line names it: "fair tree", "classic fair-share" or
 * "depth-oblivious fair-share" (an unknown value: the last).
 * Errors: none.
 */
const char* fairway_algorithm_log_name(fairway_algorithm_t algo);

/* ---- The settings in force, shared between threads ---- */

/*
 * Holds the plugin's settings object in force: a reconfigure puts a new one in force while
 * threads go on reading the one they acquired, so an object is immutable once in force, and
 * it is handed to free_fn once it is neither in force nor held.  One lock, a leaf, guards
 * the holder: nothing else is taken while it is held, and free_fn runs outside it.
 */
typedef struct fairway_settings_holder fairway_settings_holder_t;
typedef void (*fairway_free_fn)(void* obj);

/* Errors: FAIRWAY_EINVAL (NULL free_fn or out), FAIRWAY_ENOMEM. */
fairway_error_t fairway_settings_holder_new(fairway_free_fn free_fn,
                                            fairway_settings_holder_t** out);
/*
 * Put obj in force (NULL: none); the object it replaces is freed now, or when its last
 * holder releases it.  Errors: FAIRWAY_EINVAL (NULL h), FAIRWAY_ENOMEM (nothing changed).
 */
fairway_error_t fairway_settings_holder_set(fairway_settings_holder_t* h, void* obj);
/* The object in force, held until fairway_settings_holder_release; NULL: none, or NULL h.
 * Errors: none. */
void* fairway_settings_holder_acquire(fairway_settings_holder_t* h);
/* Release obj, acquired from h (NULL h or obj, or one not held: a no-op).  Errors: none. */
void fairway_settings_holder_release(fairway_settings_holder_t* h, const void* obj);
/* Put none in force and free *h, setting it to NULL (NULL: a no-op); nothing acquired from
 * it may still be held.  Errors: none. */
void fairway_settings_holder_destroy(fairway_settings_holder_t** h);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_SETTINGS_H */
