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

#include <string.h>

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
	double age, assoc, fs, js, part, qos;
	uint32_t site, nice; /* biased by NICE_OFFSET */
	uint32_t tres_cnt;
	const double *tres; /* weighted */
	char **tres_names;
} fairway_prio_row_t;

static inline void fairway_prio_row(const priority_factors_object_t *o,
				    fairway_prio_row_t *r)
{
	memset(r, 0, sizeof(*r));
	r->partition = o->partition;
	r->direct_prio = o->direct_prio;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	r->job_id = o->step_id.job_id;
#else
	r->job_id = o->job_id;
#endif
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
	const priority_factors_object_t *f = o;
	r->has_factors = o->direct_prio <= 0;
#else
	const priority_factors_t *f = o->prio_factors;
	r->has_factors = f != NULL;
	if (!f)
		return;
#endif
	r->age = f->priority_age;
	r->assoc = f->priority_assoc;
	r->fs = f->priority_fs;
	r->js = f->priority_js;
	r->part = f->priority_part;
	r->qos = f->priority_qos;
	r->site = f->priority_site;
	r->nice = f->nice;
	r->tres_cnt = f->tres_cnt;
	r->tres = f->priority_tres;
	r->tres_names = f->tres_names;
}

#endif /* FAIRWAY_SLURM_API_H */
