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

/* ---- The state files of a StateSaveLocation ---- */

typedef enum {
  FAIRWAY_STATE_DECAY,       /* priority_last_decay_ran (multifactor's) */
  FAIRWAY_STATE_DECAY_OLD,   /* priority_last_decay_ran.old, its previous copy */
  FAIRWAY_STATE_USAGE,       /* fairway_usage */
  FAIRWAY_STATE_JOURNAL,     /* fairway_usage.journal */
  FAIRWAY_STATE_JOURNAL_OLD, /* fairway_usage.journal.old, the journal of the period before */
} fairway_state_file_t;

/* The path of state file `file` in directory dir (StateSaveLocation), NUL-terminated in buf;
 * its length.  Errors: none; 0 (buf "" when len > 0) for a NULL argument, an unknown file or
 * a path longer than len - 1. */
size_t fairway_state_path(const char* dir, fairway_state_file_t file, char* buf, size_t len);

/* ---- The journal's handle: the open journal, its period, the job ends replayed ---- */

/* An association's usage as the plugin copied it, with its parent (charged with it). */
typedef struct fairway_usage_node {
  fairway_usage_entry_t usage;
  uint32_t parent_id;
  int has_parent; /* 0: parent_id is meaningless */
} fairway_usage_node_t;

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

/*
 * Append what a job end charged, with the handle's period as its epoch, in one write(2): a
 * killed process leaves whole lines or a torn last one.  Nothing is written when no journal
 * is open.  Errors: FAIRWAY_EINVAL (NULL e), FAIRWAY_EIO (errno is write(2)'s).
 */
fairway_error_t fairway_usage_journal_append(fairway_usage_journal_t* j,
                                             const fairway_journal_entry_t* e);

/* Whether a restore replayed this job's end (it must not be charged again).
 * Errors: none; 0 for NULL j. */
int fairway_usage_journal_ended(const fairway_usage_journal_t* j, uint32_t job_id);

/*
 * Write dir's usage file as fairway_usage_write does, as of `period` (the associations'
 * parents are not written).  The journal is not touched: open it with rotate next.
 * Errors: FAIRWAY_EINVAL (NULL dir, or NULL array with a count), FAIRWAY_EIO.
 */
fairway_error_t fairway_usage_journal_save(const char* dir, time_t period,
                                           const fairway_usage_node_t* assocs, size_t nassocs,
                                           const fairway_usage_entry_t* qos, size_t nqos);

/*
 * A restart, first step: read dir's usage file, kept in j; *found 0 when there is none, else
 * *period its period.  Errors: FAIRWAY_EINVAL, FAIRWAY_EIO, FAIRWAY_EPARSE.
 */
fairway_error_t fairway_usage_journal_read_usage(fairway_usage_journal_t* j, const char* dir,
                                                 int* found, time_t* period);

/* Second step: read dir's journals (.journal.old, then .journal), kept in j.
 * Errors: FAIRWAY_EINVAL, FAIRWAY_EIO, FAIRWAY_EPARSE, FAIRWAY_ENOMEM. */
fairway_error_t fairway_usage_journal_read_journals(fairway_usage_journal_t* j, const char* dir);

typedef struct fairway_replay_counts {
  size_t restored; /* associations whose usage the file held */
  size_t applied;  /* journal entries added */
  size_t fresh;    /* associations created since the period, from 0 */
} fairway_replay_counts_t;

/*
 * Last step: replace the usage of every association and QOS given by the usage file's (0 for
 * one it does not hold), then add the journal entries of period `epoch` (to the association and
 * its ancestors, its QOS, its partition's QOS), each job end at most once; the jobs whose end
 * was added are remembered (fairway_usage_journal_ended).  Frees what was read.
 * Errors: FAIRWAY_EINVAL (NULL j or counts, NULL array with a count, nothing read),
 *         FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_usage_journal_replay(fairway_usage_journal_t* j, time_t epoch,
                                             fairway_usage_node_t* assocs, size_t nassocs,
                                             fairway_usage_entry_t* qos, size_t nqos,
                                             fairway_replay_counts_t* counts);

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
