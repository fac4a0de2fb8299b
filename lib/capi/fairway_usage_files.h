/*
 * fairway_usage_files.h - Fairway's C API for the files of restart safety:
 * the decay state file (multifactor's), Fairway's usage file and its journal of job ends.
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

/* ---- The decay state file ---- */

/*
 * Read the decay state file (StateSaveLocation/priority_last_decay_ran, multifactor's
 * format).  *found is 0 when the file does not exist (times are then 0).
 * Errors: FAIRWAY_EINVAL (NULL argument), FAIRWAY_EIO (unreadable),
 *         FAIRWAY_EPARSE (corrupt: wrong size or implausible times; see
 *         fairway_last_error()).
 */
fairway_error_t fairway_decay_state_read(const char* path, time_t now, int* found, time_t* last_ran,
                                         time_t* last_reset);

/*
 * Write the decay state file atomically (PATH.new, fsync, PATH.old kept, rename), mode
 * 0600.  Errors: FAIRWAY_EINVAL, FAIRWAY_EIO (the step that failed is in
 * fairway_last_error(); the previous file is intact).
 */
fairway_error_t fairway_decay_state_write(const char* path, time_t last_ran, time_t last_reset);

/* ---- Fairway's usage file and journal (restart safety after a killed slurmctld) ---- */

typedef struct fairway_usage_entry {
  uint32_t id; /* association or QOS id */
  long double usage_raw;
  double grp_used_wall;
} fairway_usage_entry_t;

/*
 * Write the usage file atomically (PATH.new, fsync, rename; mode 0600): the usage of every
 * association and QOS at the end of the period `period`.
 * Errors: FAIRWAY_EINVAL (NULL path, or NULL array with a count), FAIRWAY_EIO.
 */
fairway_error_t fairway_usage_write(const char* path, time_t period,
                                    const fairway_usage_entry_t* assocs, size_t nassocs,
                                    const fairway_usage_entry_t* qos, size_t nqos);

typedef struct fairway_usage_file fairway_usage_file_t;

/*
 * Read a usage file; *out is NULL when it does not exist.
 * Errors: FAIRWAY_EINVAL, FAIRWAY_EIO, FAIRWAY_EPARSE (names the line).
 */
fairway_error_t fairway_usage_read(const char* path, fairway_usage_file_t** out);
/* The period the file belongs to.  Errors: none; 0 for NULL. */
time_t fairway_usage_period(const fairway_usage_file_t* f);
/* Entries (qos != 0: QOS, else associations).  Errors: none; 0 entries for NULL, and a
 * NULL entry past the end. */
size_t fairway_usage_count(const fairway_usage_file_t* f, int qos);
const fairway_usage_entry_t* fairway_usage_entry(const fairway_usage_file_t* f, int qos,
                                                 size_t index);
/* Free *f and set it to NULL; NULL is a no-op.  Errors: none. */
void fairway_usage_destroy(fairway_usage_file_t** f);

/* What one job end charged, as a journal line. */
typedef struct fairway_journal_entry {
  time_t epoch; /* the period before the job ended */
  uint32_t job_id;
  uint32_t assoc_id; /* charged (real, run) up to the root */
  double real, run;
  uint32_t qos_id; /* 0: none */
  double qos_usage, qos_wall;
  uint32_t part_qos_id; /* 0: none */
  double part_qos_usage, part_qos_wall;
  /* Nonzero: a charge that did not end the job (Slurm 26.05 charges a pending
   * heterogeneous job component at submission), which may be charged again.  0: a job end
   * (what a zeroed entry says). */
  int not_ended;
} fairway_journal_entry_t;

/* The journal line of e (with its newline) in buf; its length.
 * Errors: none; 0 when e or buf is NULL or buf is too small. */
size_t fairway_journal_format(const fairway_journal_entry_t* e, char* buf, size_t len);

/*
 * Every complete entry of a journal file (a torn last line is skipped); free *entries
 * with fairway_journal_destroy(); NULL with *count 0 when the file does not exist.
 * Errors: FAIRWAY_EINVAL, FAIRWAY_EIO, FAIRWAY_EPARSE (names the line), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_journal_read(const char* path, fairway_journal_entry_t** entries,
                                     size_t* count);

/* Free what fairway_journal_read returned and set *entries to NULL.  Errors: none. */
void fairway_journal_destroy(fairway_journal_entry_t** entries);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_USAGE_FILES_H */
