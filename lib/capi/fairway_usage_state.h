/*
 * fairway_usage_state.h - Fairway's C API for the usage the restart-safety files hold: every
 * association's and QOS's usage as the plugin reads it out of assoc_mgr (one call per record),
 * written to the usage file or replaced by a restart's replay; and a job end's journal line,
 * built from what its end charged.
 *
 * Plain C over fairway.h and fairway_usage_files.h, with the same habits: every failure is a
 * fairway_error_t with details in fairway_last_error(), "Errors:" on each function, and a
 * _destroy beside each object this API allocates.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_USAGE_STATE_H
#define FAIRWAY_USAGE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fairway.h"
#include "fairway_usage_files.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The usage of every association and QOS, with where it lives ---- */

typedef struct fairway_usage_copy fairway_usage_copy_t;

/* An empty copy; NULL when out of memory.  Errors: none but that NULL. */
fairway_usage_copy_t* fairway_usage_copy_new(void);

/* Free *c and set it to NULL; NULL is a no-op.  Errors: none. */
void fairway_usage_copy_destroy(fairway_usage_copy_t** c);

/*
 * Empty c for the next copy, keeping the memory it and its saves hold: a copy saved every
 * period then takes no memory from the system and gives none back each time.  NULL is a
 * no-op.  Errors: none.
 */
void fairway_usage_copy_clear(fairway_usage_copy_t* c);

/* Room in c for `assocs` associations and `qos` QOS in all, taken at once (a copy that grows
 * record by record takes up to twice the memory).  Errors: FAIRWAY_EINVAL (NULL c),
 * FAIRWAY_ENOMEM. */
fairway_error_t fairway_usage_copy_reserve(fairway_usage_copy_t* c, size_t assocs, size_t qos);

/*
 * Add one association's usage, read from *usage_raw and *grp_used_wall, and its parent
 * (has_parent 0: none).  The pointers are kept for fairway_usage_copy_replay, which writes
 * through them: they must stay valid, under the caller's lock, until then.  A copy that an
 * add failed on is refused by fairway_usage_copy_save and fairway_usage_copy_replay.
 * Errors: FAIRWAY_EINVAL (NULL argument), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_usage_copy_assoc(fairway_usage_copy_t* c, uint32_t id,
                                         long double* usage_raw, double* grp_used_wall,
                                         uint32_t parent_id, int has_parent);

/* One QOS's usage, as fairway_usage_copy_assoc.
 * Errors: FAIRWAY_EINVAL (NULL argument), FAIRWAY_ENOMEM. */
fairway_error_t fairway_usage_copy_qos(fairway_usage_copy_t* c, uint32_t id, long double* usage_raw,
                                       double* grp_used_wall);

/*
 * Write dir's usage file atomically (.new, fsync, rename; mode 0600) from the values copied,
 * as of `period`: every association's and QOS's usage (the parents are not written); the
 * records' pointers are not read.  The journal is not touched: open it with rotate next.
 * Errors: FAIRWAY_EINVAL (NULL argument), FAIRWAY_ENOMEM (an add failed), FAIRWAY_EIO.
 */
fairway_error_t fairway_usage_copy_save(const fairway_usage_copy_t* c, const char* dir,
                                        time_t period);

/*
 * Replay what j read (fairway_usage_restore_prepare) over the usage copied: every
 * association's and QOS's usage replaced by the usage file's (0 for one it does not hold),
 * then the journal entries of period `epoch` added (to the association and its ancestors, its
 * QOS, its partition's QOS), each job end at most once, the jobs whose end was added
 * remembered (fairway_usage_journal_ended), and what was read freed; then every record's new
 * usage_raw and grp_used_wall written through its pointers.  On a failure nothing is written.
 * The caller holds the lock the pointers need.
 * Errors: FAIRWAY_EINVAL (NULL argument, nothing read), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_usage_copy_replay(fairway_usage_copy_t* c, fairway_usage_journal_t* j,
                                          time_t epoch, fairway_replay_counts_t* counts);

/* ---- A restart's restore of the usage ---- */

/* Whether a restart replaces slurmctld's usage (fairway_usage_restore_prepare). */
typedef enum fairway_restore {
  FAIRWAY_RESTORE_READY,    /* the usage file and journals are read: replay them */
  FAIRWAY_RESTORE_NONE,     /* there is no usage file: slurmctld's usage stays */
  FAIRWAY_RESTORE_STALE,    /* the file is of another period: slurmctld's usage stays */
  FAIRWAY_RESTORE_UNUSABLE, /* the file or a journal is unreadable or damaged: it stays */
} fairway_restore_t;

/*
 * A restart, before the replay: read dir's usage file into j and, when it belongs to period
 * last_ran (the decay state's), the journals after it.  *out says what to do; for STALE and
 * UNUSABLE, line (NUL-terminated, cut to len - 1) says why slurmctld's usage is kept, a line
 * to log as info (STALE) or as an error (UNUSABLE; a NULL j or dir is that too); ""
 * otherwise.  Errors: FAIRWAY_EINVAL (NULL out or line, or len 0).
 */
fairway_error_t fairway_usage_restore_prepare(fairway_usage_journal_t* j, const char* dir,
                                              time_t last_ran, fairway_restore_t* out, char* line,
                                              size_t len);

/* The line that reports a replay of period last_ran's usage (counts: what
 * fairway_usage_copy_replay counted), NUL-terminated in line, cut to len - 1; its length.
 * Errors: none; 0 for a NULL argument or len 0. */
size_t fairway_usage_restore_summary(const fairway_replay_counts_t* counts, time_t last_ran,
                                     char* line, size_t len);

/* ---- The decay state file of a StateSaveLocation ---- */

/*
 * The decay state at start from directory dir: its priority_last_decay_ran (multifactor's
 * format) and, when that is unusable (unreadable, or corrupt: wrong size or implausible
 * times), its previous copy priority_last_decay_ran.old if that exists and is sound, else
 * `now` -- never charging running jobs twice for time already charged; with out->path and
 * out->old_path set.  Whatever fails (a NULL dir, a path too long, out of memory) gives
 * FAIRWAY_DECAY_FROM_NOW with the reason in out->error, never an error.  The lines to log:
 * out->info_line when there is no file; out->error_lines when it is unusable, why and what
 * was used instead.
 * Errors: FAIRWAY_EINVAL (NULL out).
 */
fairway_error_t fairway_decay_state_recover_in(const char* dir, time_t now,
                                               fairway_decay_recovery_t* out);

/*
 * Write dir's priority_last_decay_ran atomically (.new, fsync, the previous file kept as .old,
 * rename), mode 0600.
 * Errors: FAIRWAY_EINVAL (NULL dir or a path too long), FAIRWAY_EIO (the step that failed is
 *         in fairway_last_error(); the previous file is intact).
 */
fairway_error_t fairway_decay_state_save(const char* dir, time_t last_ran, time_t last_reset);

/* ---- A job end's journal line ---- */

/* A QOS a job end may have charged. */
typedef struct fairway_end_qos {
  uint32_t id;
  int charged; /* 0: not charged (no such QOS, or it has no usage) */
  int nodecay; /* NoDecay: charged the undecayed amounts */
} fairway_end_qos_t;

/* What a charge was computed from: fairway_job_charge's arguments (at_end set). */
typedef struct fairway_charge_basis {
  fairway_job_times_t times;
  time_t start_period, end_period;
  double decay_factor, billable_tres, usage_factor;
} fairway_charge_basis_t;

/* The job whose end was charged. */
typedef struct fairway_job_end {
  uint32_t job_id;
  uint32_t assoc_id;
  /* Nonzero: a charge that did not end the job (Slurm 26.05 charges a pending heterogeneous
   * job component at submission), which may be charged again. */
  int not_ended;
  fairway_end_qos_t qos, part_qos;
  /* What the charge was computed from, so that the line can be charged from a later period
   * instead (below); NULL: the charge is journaled as it is. */
  const fairway_charge_basis_t* basis;
} fairway_job_end_t;

/*
 * Append the journal line of a job end that charged c, with the handle's period as its epoch,
 * in one write(2) (a killed process leaves whole lines or a torn last one): the association's
 * decayed amounts, each QOS charged its amounts (undecayed for NoDecay).  Nothing is written
 * when no journal is open (or j is NULL).
 *
 * Two controllers in control at once (a backup that took over from a primary that still
 * runs) share the journal: when the journal at its path is no longer the file this handle
 * opened, another controller wrote its usage file and rotated the journal.  The line then goes
 * to the journal at the path, and when that usage file is of a later period than the handle's,
 * that period becomes the handle's and, with a basis, the line charges only the time after it
 * (the usage file holds what came before): what a restart replays over that file is exact.
 * Errors: FAIRWAY_EINVAL (NULL c or end), FAIRWAY_EIO (errno is write(2)'s, or open(2)'s when
 *         the journal at the path cannot be opened).
 */
fairway_error_t fairway_usage_journal_job_end(fairway_usage_journal_t* j,
                                              const fairway_job_charge_t* c,
                                              const fairway_job_end_t* end);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_USAGE_STATE_H */
