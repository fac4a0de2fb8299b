/*****************************************************************************\
 *  world.c - Slurm's state for a scenario, as slurmctld would hold it: a
 *  slurm.conf in a fresh StateSaveLocation read by slurm_conf_init, the
 *  association tree and TRES in assoc_mgr, partitions (part_list) and QOS
 *  with random factors, and the job list (jobs.c).  Also the state file the
 *  plugins' calculation threads read and write.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

fw_opts_t fw_opts;
fw_world_t fw_world = { .gpu_pos = -1 };

void world_remove_state_files(void)
{
	const char *names[] = {
		"priority_last_decay_ran",     "priority_last_decay_ran.old",
		"priority_last_decay_ran.new", "fairway_usage",
		"fairway_usage.new",	       "fairway_usage.journal",
		"fairway_usage.journal.old",   NULL
	};
	for (int i = 0; names[i]; i++) {
		char *f = xstrdup_printf("%s/%s", fw_world.state_dir, names[i]);
		unlink(f);
		xfree(f);
	}
}

/* slurm.conf in a fresh state directory. */
static void _write_conf(const scenario_t *s)
{
	FILE *f;
	char dir[] = "/tmp/fw_diff.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	fw_world.state_dir = xstrdup(dir);
	fw_world.conf_path = xstrdup_printf("%s/slurm.conf", dir);
	if (!(f = fopen(fw_world.conf_path, "w"))) {
		perror(fw_world.conf_path);
		exit(2);
	}
	fprintf(f,
		"ClusterName=fwdiff\nSlurmctldHost=localhost\n"
		"StateSaveLocation=%s\n"
		"PluginDir=%s%s%s\n"
		"PriorityType=priority/multifactor\n"
		"AccountingStorageType=accounting_storage/%s\n"
		"AccountingStorageTRES=cpu,mem,energy,node,billing,gres/gpu\n"
		"PriorityWeightAge=%u\nPriorityWeightAssoc=%u\n"
		"PriorityWeightFairshare=%u\nPriorityWeightJobSize=%u\n"
		"PriorityWeightPartition=%u\nPriorityWeightQOS=%u\n"
		"PriorityMaxAge=%u\nFairShareDampeningFactor=%u\n"
		"PriorityFavorSmall=%s\n"
		/* Decay and resets happen in multifactor's thread, which
		 * only --decay-thread runs: other scenarios compare accrual
		 * without decay. */
		"PriorityDecayHalfLife=%s\nPriorityUsageResetPeriod=%s\n",
		dir, plugin_mf_dir(), plugin_mf_dir()[0] ? ":" : "",
		plugin_slurm_dir(),
		(fw_opts.conf_extra || fw_opts.thread_mode) ? "slurmdbd" :
							      "none",
		s->w_age, s->w_assoc, s->w_fs, s->w_js, s->w_part, s->w_qos,
		(unsigned) (s->max_age / 60), s->damp,
		s->favor_small ? "YES" : "NO",
		s->decay_hl ? s->decay_hl : (fw_opts.conf_extra ? "7-0" : "0"),
		s->reset_period ? s->reset_period : "YEARLY");
	if (fw_opts.thread_mode && s->enforce_limits)
		fputs("AccountingStorageEnforce=associations,limits\n", f);
	if (s->flags[0])
		fprintf(f, "PriorityFlags=%s\n", s->flags);
	if (s->w_tres[0])
		fprintf(f, "PriorityWeightTRES=%s\n", s->w_tres);
	if (fw_opts.conf_extra)
		fputs(fw_opts.conf_extra, f);
	fprintf(f, "NodeName=n[1-4] CPUs=16 RealMemory=4000\n");
	fclose(f);
}

/* id -> position in the scenario and -> assoc_mgr record, by binary search. */
typedef struct {
	uint32_t id;
	int idx;
	slurmdb_assoc_rec_t *rec;
} id_index_t;
static id_index_t *g_ids;
static int g_nids;

static int _cmp_id(const void *a, const void *b)
{
	uint32_t x = ((const id_index_t *) a)->id,
		 y = ((const id_index_t *) b)->id;
	return (x > y) - (x < y);
}

static void _index_scenario(const scenario_t *s)
{
	g_ids = realloc(g_ids, sizeof(*g_ids) * (s->nassoc + 1));
	g_nids = s->nassoc;
	for (int i = 0; i < s->nassoc; i++)
		g_ids[i] = (id_index_t) { s->a[i].id, i, NULL };
	qsort(g_ids, g_nids, sizeof(*g_ids), _cmp_id);
}

static id_index_t *_lookup(uint32_t id)
{
	id_index_t key = { id, 0, NULL };
	return bsearch(&key, g_ids, g_nids, sizeof(*g_ids), _cmp_id);
}

static int _scenario_index(uint32_t id)
{
	id_index_t *e = _lookup(id);
	return e ? e->idx : -1;
}

slurmdb_assoc_rec_t *world_assoc_rec(uint32_t id, const char *acct,
				     const char *user)
{
	slurmdb_assoc_rec_t *a = xmalloc(sizeof(*a));

	slurmdb_init_assoc_rec(a, 0);
	a->cluster = xstrdup(slurm_conf.cluster_name);
	a->id = id;
	a->acct = xstrdup(acct);
	if (user && user[0])
		a->user = xstrdup(user);
	return a;
}

void world_update_assocs(uint16_t type, list_t *records)
{
	slurmdb_update_object_t update = { .type = type, .objects = records };

	if (assoc_mgr_update_assocs(&update, false))
		fatal("assoc_mgr_update_assocs (%s) failed",
		      (type == SLURMDB_REMOVE_ASSOC) ? "remove" : "add");
	FREE_NULL_LIST(update.objects);
}

/* assoc_mgr started as slurmctld starts it, with the TRES slurmdbd would
 * send: cpu, mem, energy, node, billing and gres/gpu. */
static void _setup_tres(void)
{
	slurmdb_update_object_t update;
	assoc_init_args_t args;
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
	const char *tres_types[] = { "cpu",  "mem",	"energy",
				     "node", "billing", "gres" };

	assoc_mgr_assoc_list = list_create(slurmdb_destroy_assoc_rec);
	assoc_mgr_user_list = list_create(slurmdb_destroy_user_rec);
	assoc_mgr_qos_list = list_create(slurmdb_destroy_qos_rec);
	memset(&args, 0, sizeof(args));
	args.running_cache = &running_cache;
	args.remove_assoc_notify = fw_opts.remove_assoc_notify;
	running_cache = RUNNING_CACHE_STATE_RUNNING;
	assoc_mgr_init(NULL, &args, SLURM_SUCCESS);

	memset(&update, 0, sizeof(update));
	update.type = SLURMDB_ADD_TRES;
	update.objects = list_create(slurmdb_destroy_tres_rec);
	for (int i = 0; i < 6; i++) {
		slurmdb_tres_rec_t *t = xmalloc(sizeof(*t));
		/* gres/gpu: the id slurmdbd gives the first GRES */
		t->id = (i < 5) ? i + 1 : 1001;
		t->type = xstrdup(tres_types[i]);
		if (i == 5)
			t->name = xstrdup("gpu");
		list_append(update.objects, t);
	}
	if (assoc_mgr_update_tres(&update, false))
		fatal("assoc_mgr_update_tres failed");
	FREE_NULL_LIST(update.objects);
	slurmctld_tres_cnt = g_tres_count;
	fw_world.gpu_pos = assoc_mgr_find_tres_pos(&gpu, false);
	if (fw_world.gpu_pos < 0)
		fatal("no gres/gpu TRES in assoc_mgr");
}

/* The scenario's associations added to assoc_mgr as slurmdbd sends them, an
 * account's usage its subtree's (what slurmctld accumulates), and the index
 * pointed at assoc_mgr's records. */
static void _setup_assocs(scenario_t *s)
{
	list_t *records = list_create(slurmdb_destroy_assoc_rec);
	slurmdb_assoc_rec_t *a;
	list_itr_t *it;

	/* Children come after their parents in every generated scenario. */
	_index_scenario(s);
	for (int i = s->nassoc - 1; i > 0; i--) {
		int j = _scenario_index(s->a[i].parent);
		if (j >= 0)
			s->a[j].usage += s->a[i].usage;
	}

	for (int i = 0; i < s->nassoc; i++) {
		a = world_assoc_rec(s->a[i].id, s->a[i].acct, s->a[i].user);
		a->usage = slurmdb_create_assoc_usage(g_tres_count);
		a->parent_id = s->a[i].parent;
		a->shares_raw = s->a[i].shares;
		if (a->user)
			a->uid = 1000 + i;
		a->usage->usage_raw = s->a[i].usage;
		list_append(records, a);
	}
	world_update_assocs(SLURMDB_ADD_ASSOC, records);

	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		id_index_t *e = _lookup(a->id);
		if (e)
			e->rec = a;
	}
	list_iterator_destroy(it);
}


/*
 * What partitions look like at sites with GPUs in some nodes only
 * (AccountingStorageTRES=gres/gpu, Gres=gpu:N on some nodes): GPUs counted in
 * some partitions and not in others, a partition without nodes (slurmctld
 * leaves its counts at 0), and one whose tres_cnt was never set (NULL).
 */
static void _part_shape(part_record_t *p)
{
	switch (fw_pick(6)) {
	case 0:
	case 1:
	case 2:
		p->tres_cnt[fw_world.gpu_pos] = 8; /* GPU nodes */
		break;
	case 3:
		break; /* no GPUs */
	case 4:
		memset(p->tres_cnt, 0, sizeof(uint64_t) * slurmctld_tres_cnt);
		break; /* no nodes */
	default:
		xfree(p->tres_cnt); /* never counted */
	}
}

static void _setup_parts_qos(void)
{
	uint32_t max_factor = 0, max_prio = 0;

	fw_world.nparts = 1 + fw_pick(MAX_PARTS);
	if (fw_opts.bench && getenv("FW_BENCH_PARTS"))
		fw_world.nparts = atoi(getenv("FW_BENCH_PARTS"));
	for (int i = 0; i < fw_world.nparts; i++) {
		part_record_t *p = &fw_world.parts[i];
		memset(p, 0, sizeof(*p));
		p->name = xstrdup_printf("p%d", i);
		p->priority_job_factor = fw_chance(15) ? 0 : 1 + fw_pick(100);
		p->priority_tier = fw_pick(3);
		p->max_time = fw_chance(50) ? INFINITE : 60 * (1 + fw_pick(48));
		p->tres_cnt = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
		p->tres_cnt[TRES_ARRAY_CPU] = 64;
		p->tres_cnt[TRES_ARRAY_MEM] = 16000;
		p->tres_cnt[TRES_ARRAY_NODE] = 4;
		p->tres_cnt[TRES_ARRAY_BILLING] = 64;
		if (!fw_opts.bench)
			_part_shape(p);
		if (p->priority_job_factor > max_factor)
			max_factor = p->priority_job_factor;
	}
	/* slurmctld normalizes partition factors by the largest. */
	for (int i = 0; i < fw_world.nparts; i++)
		fw_world.parts[i].norm_priority = max_factor ?
			(double) fw_world.parts[i].priority_job_factor /
				max_factor :
			0.0;
	part_list = list_create(NULL);
	for (int i = 0; i < fw_world.nparts; i++)
		list_append(part_list, &fw_world.parts[i]);

	for (int i = 0; i < MAX_QOS; i++) {
		slurmdb_qos_rec_t *q = xmalloc(sizeof(*q));
		slurmdb_init_qos_rec(q, 0, NO_VAL);
		q->id = i + 1;
		q->name = xstrdup_printf("q%d", i);
		q->priority = fw_chance(30) ? 0 : fw_pick(1000);
		q->usage = slurmdb_create_qos_usage(g_tres_count);
		q->usage_factor = fw_chance(20) ? 0.5 * fw_pick(5) : 1.0;
		if (fw_chance(15))
			q->flags |= QOS_FLAG_NO_DECAY;
		for (int t = 0; t < g_tres_count; t++)
			q->usage->grp_used_tres_run_secs[t] = fw_pick(1u << 30);
		/* Usage from earlier periods, for decay and resets to act on. */
		if (fw_chance(60)) {
			q->usage->usage_raw = (long double) fw_pick(10000000);
			q->usage->grp_used_wall = fw_pick(1000000);
		}
		if (q->priority > max_prio)
			max_prio = q->priority;
		list_append(assoc_mgr_qos_list, q);
		fw_world.qos[i] = q;
	}
	for (int i = 0; i < MAX_QOS; i++)
		fw_world.qos[i]->usage->norm_priority = max_prio ?
			(double) fw_world.qos[i]->priority / max_prio :
			0.0;
}

slurmdb_assoc_rec_t *world_assoc(uint32_t id)
{
	id_index_t *e = _lookup(id);
	return e ? e->rec : NULL;
}

void world_setup(scenario_t *s, uint32_t seed, time_t now, const char *log_name)
{
	log_options_t logopt = LOG_OPTS_STDERR_ONLY;

	logopt.stderr_level = fw_opts.verbose ? LOG_LEVEL_INFO :
						LOG_LEVEL_ERROR;
	log_init((char *) log_name, logopt, 0, NULL);
	measure_install_lock_hooks();
	_write_conf(s);
	if (slurm_conf_init(fw_world.conf_path) != SLURM_SUCCESS)
		fatal("slurm_conf_init(%s) failed", fw_world.conf_path);
	fake_ctld_set_node_count(4);
	_setup_tres();
	_setup_assocs(s);
	if (seed)
		fw_rng = seed * 2654435761ULL + 7;
	_setup_parts_qos();
	jobs_setup(s, now);
}

/* ---- one scenario (in its own process) ---- */

/* Multifactor's format, which priority/fairway reads too: the two times as
 * 64-bit big-endian numbers. */
void world_write_state_file(time_t last_ran, time_t last_reset)
{
	char *path = xstrdup_printf("%s/priority_last_decay_ran",
				    fw_world.state_dir);
	unsigned char b[16] = { 0 };
	FILE *f;

	for (int i = 0; i < 8; i++) {
		b[i] = ((uint64_t) last_ran) >> (56 - 8 * i);
		b[8 + i] = ((uint64_t) last_reset) >> (56 - 8 * i);
	}
	if (!(f = fopen(path, "w")) || (fwrite(b, 1, 16, f) != 16))
		fatal("cannot write %s", path);
	fclose(f);
	xfree(path);
}

time_t world_last_period(void)
{
	char *path = xstrdup_printf("%s/priority_last_decay_ran",
				    fw_world.state_dir);
	unsigned char b[8];
	FILE *f = fopen(path, "r");
	uint64_t v = 0;

	if (f && (fread(b, 1, 8, f) == 8))
		for (int k = 0; k < 8; k++)
			v = (v << 8) | b[k];
	if (f)
		fclose(f);
	xfree(path);
	return (time_t) v;
}

bool world_wait_period(time_t when)
{
	for (int i = 0; i < 30000; i++) {
		if (world_last_period() == when)
			return true;
		usleep(1000);
	}
	return false;
}

/* Fairshare=parent after the others. */
void world_normalize_all_shares(void)
{
	for (int pass = 0; pass < 2; pass++) {
		slurmdb_assoc_rec_t *a;
		list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);

		while ((a = list_next(it)))
			if ((a->shares_raw == SLURMDB_FS_USE_PARENT) ==
			    (pass == 1))
				assoc_mgr_normalize_assoc_shares(a);
		list_iterator_destroy(it);
	}
}

void world_remove_files(void)
{
	unlink(fw_world.conf_path);
	world_remove_state_files();
	rmdir(fw_world.state_dir);
}
