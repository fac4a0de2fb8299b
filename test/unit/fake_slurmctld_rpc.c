/*
 * fake_slurmctld_rpc.c - slurmctld's answers to the fairway command, preloaded (LD_PRELOAD)
 * over libslurm's RPCs, so that the command's live mode runs without a cluster.
 * FAKE_SLURMCTLD selects what slurmctld shows:
 *   queue     the tree root > a > (root, alice); pending jobs 40 (array 27, task 3), 27
 *             (array 27, tasks 4-9:2 not yet split), 31 (heterogeneous 30, component 1);
 *             job 10 running, job 11 completed
 *   private   what a user sees under PrivateData=usage,jobs: only its own association
 *             (fw_u1 in bloggs.prj, whose parent is hidden) and no job
 * Everything else (slurm_init, lists) is libslurm's own.
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "slurm/slurm_version.h"

static int private_view(void)
{
	const char *s = getenv("FAKE_SLURMCTLD");
	return s && !strcmp(s, "private");
}

int slurm_load_ctl_conf(time_t update_time, slurm_conf_t **conf)
{
	(void) update_time;
	slurm_conf_t *c = calloc(1, sizeof(*c));
	c->cluster_name = strdup("fakecluster");
	c->priority_weight_fs = 10000;
	c->priority_weight_age = 1000;
	c->priority_max_age = 7 * 86400;
	c->priority_decay_hl = 7 * 86400;
	c->priority_calc_period = 300;
	c->fs_dampening_factor = 1;
	c->slurm_user_id = 64030;
	if (private_view())
		c->private_data = PRIVATE_DATA_JOBS | PRIVATE_DATA_USAGE;
	*conf = c;
	return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
void slurm_free_conf(slurm_conf_t *conf)
{
	(void) conf;
}
#else
void slurm_free_ctl_conf(slurm_conf_t *conf)
{
	(void) conf;
}
#endif

static slurmdb_assoc_rec_t *assoc(uint32_t id, uint32_t parent,
				  const char *acct, const char *user,
				  uint32_t shares, double usage)
{
	slurmdb_assoc_rec_t *a = calloc(1, sizeof(*a));
	a->id = id;
	a->parent_id = parent;
	a->acct = strdup(acct);
	a->user = user ? strdup(user) : NULL;
	a->shares_raw = shares;
	a->usage = calloc(1, sizeof(*a->usage));
	a->usage->usage_raw = usage;
	return a;
}

int slurm_load_assoc_mgr_info(assoc_mgr_info_request_msg_t *req,
			      assoc_mgr_info_msg_t **resp)
{
	(void) req;
	assoc_mgr_info_msg_t *m = calloc(1, sizeof(*m));
	m->assoc_list = slurm_list_create(NULL);
	if (private_view()) {
		slurm_list_append(m->assoc_list,
				  assoc(7, 5, "bloggs.prj", "fw_u1", 1, 100));
	} else {
		slurm_list_append(m->assoc_list,
				  assoc(1, 0, "root", NULL, 1, 3000));
		slurm_list_append(m->assoc_list,
				  assoc(2, 1, "a", NULL, 1, 3000));
		slurm_list_append(m->assoc_list,
				  assoc(3, 2, "a", "root", 1, 1000));
		slurm_list_append(m->assoc_list,
				  assoc(4, 2, "a", "alice", 1, 2000));
	}
	*resp = m;
	return SLURM_SUCCESS;
}

void slurm_free_assoc_mgr_info_msg(assoc_mgr_info_msg_t *msg)
{
	(void) msg;
}

int slurm_load_partitions(time_t update_time, partition_info_msg_t **resp,
			  uint16_t show_flags)
{
	(void) update_time;
	(void) show_flags;
	partition_info_msg_t *m = calloc(1, sizeof(*m));
	m->record_count = 1;
	m->partition_array = calloc(1, sizeof(partition_info_t));
	m->partition_array[0].name = strdup("p");
	m->partition_array[0].total_cpus = 8;
	m->partition_array[0].total_nodes = 2;
	*resp = m;
	return SLURM_SUCCESS;
}

void slurm_free_partition_info_msg(partition_info_msg_t *msg)
{
	(void) msg;
}

int slurm_load_node(time_t update_time, node_info_msg_t **resp,
		    uint16_t show_flags)
{
	(void) update_time;
	(void) show_flags;
	node_info_msg_t *m = calloc(1, sizeof(*m));
	m->record_count = 2;
	m->node_array = calloc(2, sizeof(node_info_t));
	m->node_array[0].cpus = m->node_array[1].cpus = 4;
	*resp = m;
	return SLURM_SUCCESS;
}

void slurm_free_node_info_msg(node_info_msg_t *msg)
{
	(void) msg;
}

static void job(slurm_job_info_t *j, uint32_t id, uint32_t state)
{
	time_t now = time(NULL);
	j->job_id = id;
	j->job_state = state;
	j->array_task_id = NO_VAL;
	j->assoc_id = 3;
	j->user_id = 0;
	j->account = strdup("a");
	j->partition = strdup("p");
	j->submit_time = j->eligible_time = j->accrue_time = now - 600;
	j->num_cpus = j->max_cpus = j->num_nodes = 1;
	j->time_limit = 60;
	j->nice = NICE_OFFSET;
	j->priority = 5000;
}

static job_info_msg_t *all_jobs(void)
{
	job_info_msg_t *m = calloc(1, sizeof(*m));
	if (!private_view()) {
		m->record_count = 5;
		m->job_array = calloc(5, sizeof(slurm_job_info_t));
		slurm_job_info_t *j = m->job_array;
		job(&j[0], 40, JOB_PENDING);
		j[0].array_job_id = 27;
		j[0].array_task_id = 3;
		job(&j[1], 27, JOB_PENDING);
		j[1].array_job_id = 27;
		j[1].array_task_str = strdup("4-9:2");
		job(&j[2], 31, JOB_PENDING);
		j[2].het_job_id = 30;
		j[2].het_job_offset = 1;
		job(&j[3], 10, JOB_RUNNING);
		job(&j[4], 11, JOB_COMPLETE);
	}
	return m;
}

int slurm_load_jobs(time_t update_time, job_info_msg_t **resp,
		    uint16_t show_flags)
{
	(void) update_time;
	(void) show_flags;
	*resp = all_jobs();
	return SLURM_SUCCESS;
}

/* As slurmctld answers scontrol show job ID: the job, or every record of the array or
 * heterogeneous job of that id. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
/* 26.05 asks by step id: the job id is its job_id. */
int slurm_load_job(job_info_msg_t **resp, slurm_step_id_t step_id,
		   uint16_t show_flags)
{
	uint32_t job_id = step_id.job_id;
#else
int slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t show_flags)
{
#endif
	(void) show_flags;
	job_info_msg_t *m = all_jobs();
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->record_count; i++) {
		const slurm_job_info_t *j = &m->job_array[i];
		if (j->job_id == job_id || j->array_job_id == job_id ||
		    j->het_job_id == job_id)
			m->job_array[n++] = *j;
	}
	m->record_count = n;
	if (!n) {
		slurm_seterrno(ESLURM_INVALID_JOB_ID);
		return SLURM_ERROR;
	}
	*resp = m;
	return SLURM_SUCCESS;
}

void slurm_free_job_info_msg(job_info_msg_t *msg)
{
	(void) msg;
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
int slurm_load_job_prio(priority_factors_response_msg_t **resp,
			List job_id_list, char *partitions, List uid_list,
			uint16_t show_flags)
{
	(void) job_id_list;
	(void) partitions;
	(void) uid_list;
#else
int slurm_load_job_prio(priority_factors_response_msg_t **resp,
			uint16_t show_flags)
{
#endif
	(void) show_flags;
	*resp = calloc(1, sizeof(**resp)); /* no rows: sprio shows none */
	return SLURM_SUCCESS;
}

void slurm_free_priority_factors_response_msg(
	priority_factors_response_msg_t *msg)
{
	(void) msg;
}
