/*
 * slurm_api.h - Slurm's public API (slurm.h, slurmdb.h) under the names of the newest
 * supported release, for the plugin and the fairway command alike.  The one place where
 * a difference in Slurm's public headers between releases goes:
 *
 *   23.02 renamed the list types of slurm.h: `List` and `ListIterator` (pointers) became
 *   `list_t` and `list_itr_t` (structures).  Fairway writes `list_t *` and `list_itr_t *`,
 *   and gets the older names from here.
 *   26.05 renamed slurm_free_ctl_conf() slurm_free_conf(): fairway_free_ctl_conf().
 *
 * Copyright (C) 2026 The Fairway authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FAIRWAY_SLURM_API_H
#define FAIRWAY_SLURM_API_H

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "slurm/slurm_version.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/* Free what slurm_load_ctl_conf() returned. */
static inline void fairway_free_ctl_conf(slurm_conf_t *conf)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

#endif /* FAIRWAY_SLURM_API_H */
