/*
 * slurm_api.h - Slurm's public API (slurm.h, slurmdb.h) under the names of the newest
 * supported release, for the plugin and the fairway command alike.  The one place where
 * a difference in Slurm's public headers between releases goes:
 *
 *   23.02 renamed the list types of slurm.h: `List` and `ListIterator` (pointers) became
 *   `list_t` and `list_itr_t` (structures).  Fairway writes `list_t *` and `list_itr_t *`,
 *   and gets the older names from here.
 *   26.05 renamed slurm_free_ctl_conf() slurm_free_conf(): fairway_free_ctl_conf().
 *   24.05 exports squeue's Reason text under a new name: fairway_job_reason_string().
 *   26.05's slurm_load_job() takes a step id: fairway_load_job().
 *   sprio's RPC: slurm_load_job_prio() lost its filter arguments after 22.05, and its rows
 *   moved their factors into a priority_factors_t (24.11) and the job id into a step id
 *   (26.05): fairway_load_job_prio() and fairway_prio_row().
 *
 * Copyright (C) 2026 The Fairway authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FAIRWAY_SLURM_API_H
#define FAIRWAY_SLURM_API_H

#include <stddef.h>
#include <string.h>

#include "fairway.h"
#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "slurm/slurm_version.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/* squeue's Reason of a job as text.  libslurm exports it as slurm_job_reason_string()
 * up to 23.11 and slurm_job_state_reason_string() from 24.05; slurm.h declares neither. */
#ifdef __cplusplus
extern "C" {
#endif
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
extern const char *slurm_job_state_reason_string(enum job_state_reason inx);
#else
extern char *slurm_job_reason_string(enum job_state_reason inx);
#endif
#ifdef __cplusplus
}
#endif
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
static inline const char *fairway_job_reason_string(uint32_t reason)
{
	return slurm_job_state_reason_string((enum job_state_reason) reason);
}
#else
static inline const char *fairway_job_reason_string(uint32_t reason)
{
	return slurm_job_reason_string((enum job_state_reason) reason);
}
#endif

/* One job's records (an array's tasks, a heterogeneous job's components): 26.05 takes a step
 * id where the job id was. */
static inline int fairway_load_job(job_info_msg_t **resp, uint32_t job_id,
				   uint16_t show_flags)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t step_id;

	memset(&step_id, 0, sizeof(step_id));
	step_id.job_id = job_id;
	step_id.step_het_comp = NO_VAL;
	step_id.step_id = NO_VAL;
	return slurm_load_job(resp, step_id, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

/* Free what slurm_load_ctl_conf() returned. */
static inline void fairway_free_ctl_conf(slurm_conf_t *conf)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/* All pending jobs' rows, as `sprio` asks for them (the controller applies PrivateData). */
static inline int fairway_load_job_prio(priority_factors_response_msg_t **resp)
{
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
	return slurm_load_job_prio(resp, NULL, NULL, NULL, 0);
#else
	return slurm_load_job_prio(resp, 0);
#endif
}

/* One row of sprio, the same on every release. */
typedef struct {
	uint32_t job_id;
	const char *partition;
	double direct_prio; /* > 0: set by an administrator, no factors */
	int has_factors;
	/* Weighted, by fairway_factor_t: TRES is the sum of tres; SITE and
	 * NICE are without NICE_OFFSET. */
	double factor[FAIRWAY_FACTOR_COUNT];
	uint32_t tres_cnt;
	const double *tres; /* weighted */
	char **tres_names;
} fairway_prio_row_t;

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
typedef priority_factors_object_t fairway_slurm_factors_t;
#else
typedef priority_factors_t fairway_slurm_factors_t;
#endif

static inline void fairway_prio_row(const priority_factors_object_t *o,
				    fairway_prio_row_t *r)
{
	/* Where Slurm keeps each weighted factor before the TRES, in
	 * fairway_factor_t's order (C++ includes this too: no designators). */
	static const size_t at[FAIRWAY_FACTOR_TRES] = {
		offsetof(fairway_slurm_factors_t, priority_age),
		offsetof(fairway_slurm_factors_t, priority_assoc),
		offsetof(fairway_slurm_factors_t, priority_fs),
		offsetof(fairway_slurm_factors_t, priority_js),
		offsetof(fairway_slurm_factors_t, priority_part),
		offsetof(fairway_slurm_factors_t, priority_qos),
	};

	memset(r, 0, sizeof(*r));
	r->partition = o->partition;
	r->direct_prio = o->direct_prio;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	r->job_id = o->step_id.job_id;
#else
	r->job_id = o->job_id;
#endif
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
	const fairway_slurm_factors_t *f = o;
	r->has_factors = o->direct_prio <= 0;
#else
	const fairway_slurm_factors_t *f = o->prio_factors;
	r->has_factors = f != NULL;
	if (!f)
		return;
#endif
	for (int k = 0; k < FAIRWAY_FACTOR_TRES; k++)
		r->factor[k] = *(const double *) ((const char *) f + at[k]);
	r->factor[FAIRWAY_FACTOR_SITE] = (double) ((int64_t) f->priority_site -
						   NICE_OFFSET);
	r->factor[FAIRWAY_FACTOR_NICE] = (double) ((int64_t) f->nice -
						   NICE_OFFSET);
	r->tres_cnt = f->tres_cnt;
	r->tres = f->priority_tres;
	r->tres_names = f->tres_names;
	for (uint32_t i = 0; (i < r->tres_cnt) && r->tres; i++)
		r->factor[FAIRWAY_FACTOR_TRES] += r->tres[i];
}

#endif /* FAIRWAY_SLURM_API_H */
