/*****************************************************************************\
 *  publish_state.h - publishing's part of the plugin's state (fw_publish_t),
 *  shared by publish_note.c (rows noted while jobs are weighed) and
 *  publish.c (copies made under slurmctld's and assoc_mgr's locks, the
 *  period's end).  What survives from one period to the next
 *  is the library's fairway_publisher_t.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef FAIRWAY_PUBLISH_STATE_H
#define FAIRWAY_PUBLISH_STATE_H

#include "fairway_plugin.h"

_Static_assert(sizeof(fairway_note_t) <= 40, "a row stays 40 bytes");

/* What one weighing thread noted: a cache line each, so that two weighing
 * threads never write one line. */
typedef struct {
	struct fw_publish *pub;
	fairway_lane_t l;
} __attribute__((aligned(64))) fw_lane_t;

/* Lane 0: the calculation thread; lane k: the weighing pool's thread k, which
 * weighs the k-th of the pass's consecutive ranges. */
#define FW_PUBLISH_LANES FW_WEIGH_MAX_THREADS

struct fw_publish {
	/* Only the calculation thread touches the lanes outside a weighing
	 * pass. */
	fw_lane_t lanes[FW_PUBLISH_LANES];
	fairway_publish_plan_t plan; /* what this period notes */
	uint32_t queue_jobs;
	size_t queue_tres;
	/* The partitions copied under the job lock that noted the rows. */
	const void **part_at;
	char **part_name;
	fairway_partition_info_t *part_info;
	size_t nparts;
	uint32_t cluster_cpus, cluster_nodes;
	fairway_publisher_t *publisher;
};

/* What cfg asks of publishing. */
static inline fairway_publish_settings_t
fw_publish_settings(const fw_cfg_t *cfg)
{
	return (fairway_publish_settings_t) {
		.metrics_dir = cfg->metrics_dir,
		.history_days = cfg->history_days,
		.starvation_minutes = cfg->starvation_minutes,
		.queue_jobs = cfg->queue_jobs,
		.queue_tres = cfg->weights.tres ? cfg->weights.tres_count : 0,
		.fairshare_tres = (const char *const *) cfg->fs_tres_name,
		.fairshare_tres_count = cfg->fs_tres_n,
		.fair_share = FW_WEIGHT(cfg, FAIRSHARE) && cfg->fair_share,
	};
}

/* publish_note.c: the calling thread notes into no lane from here on. */
extern void fw_publish_lane_leave(void);

/* publish.c */
extern void fw_publish_parts_clear(fw_publish_t *pub);

#endif /* FAIRWAY_PUBLISH_STATE_H */
