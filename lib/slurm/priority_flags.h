/*
 * priority_flags.h - Slurm's PriorityFlags (slurm.h's PRIORITY_FLAGS_*) as Fairway's
 * FAIRWAY_FLAG_* bits, for the plugin (slurm_conf.priority_flags) and the fairway command
 * (slurm_load_ctl_conf's priority_flags) alike, so that both see the same settings and,
 * through fairway_algorithm_from_flags(), the same fair-share algorithm.  Slurm's public
 * header only: this is where a difference in Slurm's public flags between releases goes.
 *
 * Copyright (C) 2026 The Fairway authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FAIRWAY_SLURM_PRIORITY_FLAGS_H
#define FAIRWAY_SLURM_PRIORITY_FLAGS_H

#include <stdint.h>

#include "slurm_api.h"

#include "fairway.h"

static inline uint32_t fairway_flags_from_slurm(uint32_t slurm_flags)
{
	static const struct {
		uint32_t slurm, fairway;
	} map[] = {
		{ PRIORITY_FLAGS_ACCRUE_ALWAYS, FAIRWAY_FLAG_ACCRUE_ALWAYS },
		{ PRIORITY_FLAGS_SIZE_RELATIVE, FAIRWAY_FLAG_SMALL_RELATIVE },
		{ PRIORITY_FLAGS_CALCULATE_RUNNING,
		  FAIRWAY_FLAG_CALCULATE_RUNNING },
		{ PRIORITY_FLAGS_DEPTH_OBLIVIOUS,
		  FAIRWAY_FLAG_DEPTH_OBLIVIOUS },
		{ PRIORITY_FLAGS_INCR_ONLY, FAIRWAY_FLAG_INCR_ONLY },
		{ PRIORITY_FLAGS_MAX_TRES, FAIRWAY_FLAG_MAX_TRES },
		{ PRIORITY_FLAGS_NO_NORMAL_ASSOC,
		  FAIRWAY_FLAG_NO_NORMAL_ASSOC },
		{ PRIORITY_FLAGS_NO_NORMAL_PART, FAIRWAY_FLAG_NO_NORMAL_PART },
		{ PRIORITY_FLAGS_NO_NORMAL_QOS, FAIRWAY_FLAG_NO_NORMAL_QOS },
		{ PRIORITY_FLAGS_NO_NORMAL_TRES, FAIRWAY_FLAG_NO_NORMAL_TRES },
	};
	uint32_t f = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (slurm_flags & map[i].slurm)
			f |= map[i].fairway;
	/* Slurm sets FAIR_TREE unless NO_FAIR_TREE or DEPTH_OBLIVIOUS is given. */
	if (!(slurm_flags & PRIORITY_FLAGS_FAIR_TREE))
		f |= FAIRWAY_FLAG_NO_FAIR_TREE;
	return f;
}

#endif /* FAIRWAY_SLURM_PRIORITY_FLAGS_H */
