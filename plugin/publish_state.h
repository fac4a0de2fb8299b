/*****************************************************************************\
 *  publish_state.h - publishing's part of the plugin's state (fw_publish_t),
 *  shared by publish.c (the period's end), publish_note.c (rows noted while
 *  jobs are weighed) and publish_copy.c (copies made under slurmctld's and
 *  assoc_mgr's locks).  Private to those three files.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef FAIRWAY_PUBLISH_STATE_H
#define FAIRWAY_PUBLISH_STATE_H

#include "fairway_plugin.h"

/* One row as noted under the job lock (40 bytes): the partition by address
 * (matched to the names copied under the same lock), the QOS and association by
 * id, times as unsigned 32-bit Unix times. */
typedef struct {
	const void *part;
	uint32_t qos_id; /* 0: none */
	uint32_t priority;
	uint32_t submit;
	uint32_t eligible; /* accrue or begin time, 0: not eligible yet */
	uint32_t assoc_id;
	uint32_t job_id;
	uint32_t job; /* the lane's job detail, UINT32_MAX: none */
	bool first;
	bool resources; /* its state reason is Resources */
} fw_note_t;
_Static_assert(sizeof(fw_note_t) <= 40, "a row stays 40 bytes");

/* What one weighing thread noted: a cache line each, so that two weighing
 * threads never write one line. */
typedef struct {
	struct fw_publish *pub;
	fw_note_t *v;
	size_t n, cap;
	uint64_t jobs;
	/* With the queue (fairway_metrics_dir): one detail per job, and its
	 * weighted TRES factors (tres_count each, with TRES weights). */
	fairway_pending_job_t *jobv;
	size_t njobs, jobs_cap;
	double *tres;
	size_t ntres, tres_cap;
	bool over; /* more jobs than fairway_queue_jobs: no details */
	/* fairway_fairshare_tres: the pending jobs weighed, and per listed
	 * TRES those it judged, the first one's factor and whether another's
	 * differed. */
	uint64_t tally_jobs;
	uint64_t tres_jobs[FAIRWAY_MAX_FAIRSHARE_TRES];
	double tres_factor[FAIRWAY_MAX_FAIRSHARE_TRES];
	bool tres_differ[FAIRWAY_MAX_FAIRSHARE_TRES];
} __attribute__((aligned(64))) fw_lane_t;

/* Lane 0: the calculation thread; lane k: the weighing pool's thread k, which
 * weighs the k-th of the pass's consecutive ranges, so that the lanes in order
 * hold the jobs in job_list's order. */
#define FW_PUBLISH_LANES FW_WEIGH_MAX_THREADS

/* A partition's address and its index in the copy. */
typedef struct {
	const void *ptr;
	uint32_t index;
} fw_part_at_t;

/* The partitions of the period, copied under the job lock, and the cluster's
 * size; their addresses sorted (fw_publish_part_index). */
typedef struct {
	const void **ptr;
	char **name;
	fairway_partition_info_t *info;
	size_t n;
	uint32_t cluster_cpus, cluster_nodes;
	fw_part_at_t *order;
} fw_parts_t;

/* The association tree and QOS names, copied under assoc_mgr's read locks. */
typedef struct {
	fairway_assoc_t *assocs;
	size_t n;
	uint32_t *qos_ids;
	char **qos_names;
	fairway_qos_info_t *qos_info;
	size_t nqos;
	char **tres_names; /* tres_count, with the queue */
	size_t tres_count;
	/* fairway_fairshare_tres: the listed TRES's names and (historical usage)
	 * each association's usage of each, [k * n + i]. */
	char *fs_tres[FAIRWAY_MAX_FAIRSHARE_TRES];
	int fs_tres_n;
	long double *fs_tres_usage;
} fw_copy_t;

/* fairway_fairshare_tres: how a listed TRES ties the jobs it judges. */
enum { FW_TIE_NONE, FW_TIE_JOBS, FW_TIE_UNUSED };

struct fw_publish {
	/* Only the calculation thread touches the lanes outside a weighing
	 * pass. */
	fw_lane_t lanes[FW_PUBLISH_LANES];
	/* This period: rows noted (fairway_metrics_dir, history, starvation);
	 * jobs tallied by the TRES that judged them (fairway_fairshare_tres
	 * with a fair-share weight); the queue's details noted (up to
	 * queue_jobs jobs, queue_tres TRES factors each); starts noted. */
	bool noting, tally, noting_queue, noting_starts;
	uint32_t queue_jobs;
	size_t queue_tres;
	bool queue_over_told;
	uint64_t last_jobs; /* pending jobs the last period noted */
	fw_parts_t parts;
	/* Jobs started since the last published period. */
	fairway_started_job_t *started;
	size_t started_n, started_cap;
	/* The last published period: when its walk began (0: none), and the
	 * jobs it weighed (sorted ids). */
	time_t last_walk;
	uint32_t *prev_ids;
	size_t prev_n, prev_cap;
	char *last_failure;		/* the failure logged last, or NULL */
	fairway_publisher_t *publisher; /* starvation episodes */
	/* fairway_fairshare_tres: each listed TRES's tie, as last told. */
	int tie[FAIRWAY_MAX_FAIRSHARE_TRES];
	char *tie_name[FAIRWAY_MAX_FAIRSHARE_TRES];
};

/* publish_note.c */
extern void fw_publish_started_clear(fw_publish_t *pub);
/* The calling thread notes into no lane from here on. */
extern void fw_publish_lane_leave(void);
/* qsort's and bsearch's order of job ids. */
extern int fw_publish_cmp_id(const void *a, const void *b);

/* publish_copy.c */
extern void fw_publish_parts_clear(fw_parts_t *parts);
/* The index of the partition at `part`, UINT32_MAX: not in the copy (after
 * fw_publish_parts_order sorted the addresses). */
extern void fw_publish_parts_order(fw_parts_t *parts);
extern uint32_t fw_publish_part_index(const fw_parts_t *parts,
				      const void *part);
extern uint32_t fw_publish_qos_index(const fw_copy_t *c, uint32_t id);
/* The associations, QOS and TRES names (queue_tres of them), and the listed
 * TRES's usage, under assoc_mgr's read locks. */
extern void fw_publish_copy_assocs(fw_copy_t *c, const fw_cfg_t *cfg,
				   size_t queue_tres);
extern void fw_publish_copy_free(fw_copy_t *c);

#endif /* FAIRWAY_PUBLISH_STATE_H */
