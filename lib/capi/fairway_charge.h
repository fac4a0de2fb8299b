/*
 * fairway_charge.h - Fairway's C API for adding one job's charge to the usage of its QOS,
 * its partition's QOS and its associations up to the root (multifactor's
 * _apply_new_usage), and for releasing the TRES run seconds running jobs used before a
 * restart (its _init_grp_used_tres_run_secs).  The caller holds the assoc and QOS write
 * locks and passes pointers into those records; the core adds to them.
 *
 * Plain C over fairway.h (its errors and fairway_job_charge_t), with the same habits:
 * every failure is a fairway_error_t with details in fairway_last_error(), and "Errors:"
 * on each function.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_CHARGE_H
#define FAIRWAY_CHARGE_H

#include <stddef.h>
#include <stdint.h>

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The run seconds of a charged record: its own grp_used_tres_run_secs, and a QOS's
 * per-account and per-user ones (Slurm 24.11 on). */
typedef enum fairway_run_secs {
  FAIRWAY_RUN_SECS_GRP = 0,
  FAIRWAY_RUN_SECS_ACCOUNT,
  FAIRWAY_RUN_SECS_USER,
  FAIRWAY_RUN_SECS_COUNT
} fairway_run_secs_t;

/* One QOS's or association's usage a charge adds to; every pointer may be NULL (not
 * charged there).  TRES arrays have the charge's tres_count entries. */
typedef struct fairway_charged_record {
  long double* usage_raw;      /* += billable TRES x seconds (real_decay or real_nodecay) */
  double* grp_used_wall;       /* += seconds (run_decay or run_nodecay) */
  long double* usage_tres_raw; /* += each TRES's count x seconds */
  uint64_t* run_secs[FAIRWAY_RUN_SECS_COUNT]; /* -= each TRES's run seconds */
  int nodecay; /* a QOS with NoDecay: charged the undecayed amounts */
} fairway_charged_record_t;

/* What a charge takes from the job. */
typedef struct fairway_tres_charge {
  const uint64_t* tres_alloc; /* the job's count per TRES (tres_count), or NULL: none */
  size_t tres_count;
  size_t skip_tres; /* a TRES never charged (energy) */
} fairway_tres_charge_t;

/* Run seconds that would go below 0 in records[record].run_secs[which][tres]: the release
 * tried `tried` seconds and only `remained` were left.  The value is then set to 0. */
typedef void (*fairway_underflow_fn)(void* arg, size_t record, fairway_run_secs_t which,
                                     size_t tres, uint64_t tried, uint64_t remained);

/*
 * Add charge c (fairway_job_charge) to each record in order: usage_raw and grp_used_wall;
 * then for each TRES but skip_tres, count x the seconds to usage_tres_raw and count x
 * c->tres_time_delta released from run_secs[GRP], then from run_secs[ACCOUNT] and
 * run_secs[USER].  A TRES counted 0 or NO_CONSUME_VAL64 adds and releases nothing.
 * Each underflow is reported to fn (may be NULL) in that order.
 * Errors: FAIRWAY_EINVAL (NULL c or t, or NULL records with n > 0).
 */
fairway_error_t fairway_charge_records(const fairway_job_charge_t* c,
                                       const fairway_tres_charge_t* t,
                                       fairway_charged_record_t* records, size_t n,
                                       fairway_underflow_fn fn, void* arg);

/*
 * Release what a running job used before a restart, used_seconds (seconds since its start
 * x its QOS UsageFactor), from each record's run seconds: count x used_seconds for each
 * TRES but skip_tres and those counted NO_CONSUME_VAL64; usage is left as it is.
 * Underflows are reported to fn (may be NULL) as fairway_charge_records does.
 * Errors: FAIRWAY_EINVAL (NULL t, or NULL records with n > 0).
 */
fairway_error_t fairway_release_run_secs(const fairway_tres_charge_t* t, double used_seconds,
                                         fairway_charged_record_t* records, size_t n,
                                         fairway_underflow_fn fn, void* arg);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_CHARGE_H */
