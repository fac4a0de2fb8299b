/*
 * fairway_usage_files.h - Fairway's C API for the files of restart safety: what is read of
 * the decay state file (multifactor's) at start, the handle of Fairway's journal of job ends
 * (the usage file and the journal are written and replayed through fairway_usage_state.h),
 * and what running jobs hold.
 *
 * Plain C over fairway.h (its errors and types), with the same habits: every failure
 * is a fairway_error_t with details in fairway_last_error(), "Errors:" on each function,
 * and a _destroy beside each object this API allocates.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_USAGE_FILES_H
#define FAIRWAY_USAGE_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The decay state file, as read at start (fairway_decay_state_recover_in) ---- */

/* Where the times read at start come from (fairway_decay_state_recover_in). */
typedef enum fairway_decay_source {
  FAIRWAY_DECAY_FROM_FILE,     /* the decay state file */
  FAIRWAY_DECAY_NO_FILE,       /* there is none: both times 0 */
  FAIRWAY_DECAY_FROM_PREVIOUS, /* the file is unusable; its previous copy was read */
  FAIRWAY_DECAY_FROM_NOW,      /* neither is usable: last_ran is now, last_reset 0 */
} fairway_decay_source_t;

typedef struct fairway_decay_recovery {
  time_t last_ran;
  time_t last_reset;
  fairway_decay_source_t source;
  char error[4352]; /* why the file was unusable (PREVIOUS, NOW), NUL-terminated */
  /* fairway_decay_state_recover_in only ("" otherwise): the files read, and what to log
   * about them, an info line and up to two error lines ("": none). */
  char path[4096], old_path[4096];
  char info_line[4160];
  char error_lines[2][4480];
} fairway_decay_recovery_t;

/* ---- The journal's handle: the open journal, its period, the job ends replayed ---- */

typedef struct fairway_usage_journal fairway_usage_journal_t;

/* A handle with no journal open, period 0 and no job end replayed; NULL when out of memory.
 * Errors: none but that NULL. */
fairway_usage_journal_t* fairway_usage_journal_new(void);

/* Close the journal, free j and set *j to NULL; NULL is a no-op.  Errors: none. */
void fairway_usage_journal_destroy(fairway_usage_journal_t** j);

/*
 * Open dir's journal for appending (O_APPEND, O_NOFOLLOW, mode 0600), closing the one open.
 * With rotate, the journal is first renamed to .journal.old (failure ignored: the old one
 * stays and gets the next lines).  On failure no journal is open, errno is open(2)'s, and
 * fairway_last_error() is the path.
 * Errors: FAIRWAY_EINVAL (NULL j or dir), FAIRWAY_EIO.
 */
fairway_error_t fairway_usage_journal_open(fairway_usage_journal_t* j, const char* dir, int rotate);

/* The period the lines appended from now on belong to (set with the usage copied for the
 * usage file, under the same lock as appending).  Errors: none; NULL j is a no-op. */
void fairway_usage_journal_set_epoch(fairway_usage_journal_t* j, time_t epoch);

/* Whether a restore replayed this job's end (it must not be charged again).
 * Errors: none; 0 for NULL j. */
int fairway_usage_journal_ended(const fairway_usage_journal_t* j, uint32_t job_id);

/* What a restart's replay counted (fairway_usage_copy_replay, fairway_usage_state.h). */
typedef struct fairway_replay_counts {
  size_t restored; /* associations whose usage the file held */
  size_t applied;  /* journal entries added */
  size_t fresh;    /* associations created since the period, from 0 */
} fairway_replay_counts_t;

/* ---- What running jobs hold (fairway_usage=allocated|committed), noted each period ---- */

typedef struct fairway_held_jobs fairway_held_jobs_t;

/* An empty list; NULL when out of memory.  Errors: none but that NULL. */
fairway_held_jobs_t* fairway_held_jobs_new(void);
/* Free *h and set it to NULL; NULL is a no-op.  Errors: none. */
void fairway_held_jobs_destroy(fairway_held_jobs_t** h);
/* Forget every job noted.  Errors: none; NULL is a no-op. */
void fairway_held_jobs_reset(fairway_held_jobs_t* h);

/*
 * Note one running job, and what it holds of each of the ntres listed TRES (tres[k], its
 * allocation times its QOS's UsageFactor; 0 for k >= ntres).
 * Errors: FAIRWAY_EINVAL (NULL h or job, NULL tres with ntres > 0, ntres over
 *         FAIRWAY_MAX_FAIRSHARE_TRES), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_held_jobs_add(fairway_held_jobs_t* h, const fairway_running_job_t* job,
                                      const double* tres, size_t ntres);

/* The jobs noted since the reset, in order, valid until the next add or reset.
 * Errors: none; NULL with *n 0 for NULL h. */
const fairway_running_job_t* fairway_held_jobs_list(const fairway_held_jobs_t* h, size_t* n);

/* The same jobs with what each holds of the k-th listed TRES as its charge rate, in one
 * buffer that the next call overwrites.  Errors: none; NULL with *n 0 for NULL h or no job,
 * NULL with *n the count for k out of range. */
const fairway_running_job_t* fairway_held_jobs_tres(fairway_held_jobs_t* h, int k, size_t* n);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_USAGE_FILES_H */
