/*****************************************************************************\
 *  fw_diff.c - differential test: Slurm's own priority_multifactor.so and
 *  priority/fairway on the same scenario, in one process, every number compared.
 *
 *  The program plays slurmctld: it defines the globals and the few functions
 *  only slurmctld has (locks, find_part_record, ...; linked with -rdynamic so
 *  both plugins bind to them), loads multifactor through Slurm's own plugin
 *  loader (priority_g_init) and priority/fairway with dlopen, builds an
 *  association tree in assoc_mgr, QOS, partitions and a job list from a seeded
 *  random scenario (or a site tree of the seeds), runs one calculation with
 *  each plugin and compares every association's shares_norm, usage_norm,
 *  usage_efctv, level_fs and fs_factor (as sshare reads them) and every job's
 *  priority, priority_array and prio_factors (as sprio reads them).
 *
 *  Usage: fw_diff [-v] [-p PLUGIN.so] [-n COUNT] [-s FIRST_SEED] [--sites]
 *	Runs COUNT random scenarios from FIRST_SEED (each in a forked child so
 *	that assoc_mgr starts clean), plus the seeds' site trees with --sites.
 *	The last line is "N scenarios, M mismatches".
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <dlfcn.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/slurm_priority.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

/* ---- what slurmctld would provide ---- */
void *acct_db_conn = NULL;
uint32_t cluster_cpus = NO_VAL;	/* NO_VAL at init: no calculation threads */
List job_list = NULL;
time_t last_job_update = 0;
int slurmctld_tres_cnt = 0;
uint16_t accounting_enforce = 0;
uint16_t running_cache = RUNNING_CACHE_STATE_NOTRUNNING;

#define MAX_PARTS 3
static part_record_t g_parts[MAX_PARTS];
static int g_nparts;

/* Time the job write lock is held (bench mode reports it). */
static struct timespec g_job_lock_t0;
static double g_job_lock_ns;
static double _ns(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
}
void lock_slurmctld(slurmctld_lock_t l)
{
	if (l.job == WRITE_LOCK)
		clock_gettime(CLOCK_MONOTONIC, &g_job_lock_t0);
}
void unlock_slurmctld(slurmctld_lock_t l)
{
	struct timespec t;
	if (l.job == WRITE_LOCK) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		g_job_lock_ns += _ns(g_job_lock_t0, t);
	}
}
void lock_state_files(void) {}
void unlock_state_files(void) {}
bool validate_operator(uid_t uid) { return uid == 0; }
part_record_t *find_part_record(char *name)
{
	for (int i = 0; i < g_nparts; i++)
		if (name && !xstrcmp(name, g_parts[i].name))
			return &g_parts[i];
	return NULL;
}
double calc_job_billable_tres(job_record_t *job_ptr, time_t start_time,
			      bool assoc_mgr_locked)
{
	return job_ptr->total_cpus;
}

/* ---- a small deterministic random generator (scenarios are reproducible
 * from their seed on any machine) ---- */
static uint64_t g_rng;
static uint32_t _rand(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return (uint32_t) (g_rng >> 11);
}
static uint32_t _pick(uint32_t n) { return n ? _rand() % n : 0; }
static bool _chance(int percent) { return (int) _pick(100) < percent; }

/* ---- scenario ---- */
typedef struct {
	uint32_t id, parent;
	char acct[32], user[32];
	uint32_t shares;	/* SLURMDB_FS_USE_PARENT for parent */
	long double usage;	/* own usage; parents get the subtree's sum */
} sc_assoc_t;

typedef struct {
	char name[64];
	char flags[256];
	uint32_t w_age, w_assoc, w_fs, w_js, w_part, w_qos;
	char w_tres[128];
	uint32_t max_age, damp;
	bool favor_small;
	int nassoc, cap;
	sc_assoc_t *a;
	int njobs;
	int nrunning;		/* bench: running jobs among njobs */
} scenario_t;

static int g_verbose;

/* Empty a scenario, keeping its association array. */
static void _clear(scenario_t *s)
{
	sc_assoc_t *a = s->a;
	int cap = s->cap;

	memset(s, 0, sizeof(*s));
	s->a = a;
	s->cap = cap;
}

static void _add(scenario_t *s, uint32_t id, uint32_t parent, const char *acct,
		 const char *user, uint32_t shares, long double usage)
{
	sc_assoc_t *a;

	if (s->nassoc == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->a = realloc(s->a, sizeof(*s->a) * s->cap);
	}
	a = &s->a[s->nassoc++];
	a->id = id;
	a->parent = parent;
	snprintf(a->acct, sizeof(a->acct), "%s", acct);
	snprintf(a->user, sizeof(a->user), "%s", user ? user : "");
	a->shares = shares;
	a->usage = usage;
}

/* Random subtree below account `parent` (id), depth levels left. */
static uint32_t g_next_id;
static int g_user_no;
static void _gen_subtree(scenario_t *s, uint32_t parent, const char *pacct,
			 int depth, int max_assocs, long double usage_scale,
			 bool tie_usage)
{
	int nchildren = 1 + _pick(depth > 1 ? 4 : 5);
	long double tie_value = (long double) _pick(1000);
	uint32_t tie_shares = 1 + _pick(50);

	for (int c = 0; c < nchildren && s->nassoc < max_assocs; c++) {
		bool user = (depth <= 1) || _chance(35);
		uint32_t shares;
		long double usage;

		if (_chance(8))
			shares = 0;
		else if (_chance(10))
			shares = SLURMDB_FS_USE_PARENT;
		else if (tie_usage)
			shares = tie_shares;
		else
			shares = 1 + _pick(100);
		if (tie_usage)
			usage = tie_value;
		else if (_chance(20))
			usage = 0;
		else if (_chance(5))
			usage = 1e15L * (1 + _pick(1000));
		else
			usage = usage_scale * (long double) _pick(100000) / 7;
		if (user) {
			char name[32];
			snprintf(name, sizeof(name), "u%d", g_user_no++);
			_add(s, g_next_id++, parent, pacct, name, shares,
			     usage);
		} else {
			char acct[32];
			uint32_t id = g_next_id++;
			snprintf(acct, sizeof(acct), "a%u", id);
			_add(s, id, parent, acct, NULL, shares, 0);
			_gen_subtree(s, id, acct, depth - 1, max_assocs,
				     usage_scale, _chance(15));
		}
	}
}

static const char *g_flag_names[] = {
	"ACCRUE_ALWAYS", "SMALL_RELATIVE_TO_TIME", "CALCULATE_RUNNING",
	"INCR_ONLY", "MAX_TRES", "NO_NORMAL_ASSOC", "NO_NORMAL_PART",
	"NO_NORMAL_QOS", "NO_NORMAL_TRES",
};
static const uint32_t g_weights[] = { 0, 1, 1000, 1000, 10000, 30000,
				      60000, 70000, 1000000, 10000000 };

static void _gen_random(scenario_t *s, uint32_t seed)
{
	int algo = _pick(3);

	_clear(s);
	snprintf(s->name, sizeof(s->name), "seed %u", seed);
	g_next_id = 2;
	g_user_no = 1;
	s->flags[0] = 0;
	if (algo == 1)
		strcat(s->flags, "NO_FAIR_TREE");
	else if (algo == 2)
		strcat(s->flags, "DEPTH_OBLIVIOUS");
	for (size_t i = 0; i < sizeof(g_flag_names) / sizeof(g_flag_names[0]);
	     i++) {
		if (!_chance(15))
			continue;
		if (s->flags[0])
			strcat(s->flags, ",");
		strcat(s->flags, g_flag_names[i]);
	}
#define W() g_weights[_pick(sizeof(g_weights) / sizeof(g_weights[0]))]
	s->w_age = W();
	s->w_assoc = _chance(30) ? W() : 0;
	s->w_fs = W();
	s->w_js = W();
	s->w_part = W();
	s->w_qos = W();
	if (_chance(30))
		snprintf(s->w_tres, sizeof(s->w_tres), "CPU=%u,Mem=%u",
			 W(), W());
	s->max_age = _chance(20) ? 0 : 60 * (1 + _pick(10000));
	s->damp = 1 + _pick(5);
	s->favor_small = _chance(30);

	_add(s, 1, 0, "root", NULL, 1, 0);
	if (_chance(30))	/* a user directly under root */
		_add(s, g_next_id++, 1, "root", "root", 1,
		     (long double) _pick(5000));
	_gen_subtree(s, 1, "root", 1 + _pick(6), 40 + _pick(400),
		     _chance(50) ? 1.0L : 1000.0L, _chance(10));
	s->njobs = 20 + _pick(200);
}

/* The seeds' site trees (shared/seeds): DKRZ, BMRC, Limoges, and the live
 * cluster of shared/reference/slurm-testbed.md section 2. */
static int _gen_site(scenario_t *s, int which)
{
	_clear(s);
	s->w_age = 1000;
	s->w_fs = 10000;
	s->w_js = 1000;
	s->w_part = 1000;
	s->w_qos = 1000;
	s->max_age = 600;
	s->damp = 1;
	s->njobs = 60;
	_add(s, 1, 0, "root", NULL, 1, 0);
	switch (which) {
	case 0:	/* live testbed cluster: A(40){B(30):u1, C(10):u2,u3} D(60){E(25):u4, F(35):u5} */
		snprintf(s->name, sizeof(s->name), "site: testbed A-F");
		_add(s, 2, 1, "a", NULL, 40, 0);
		_add(s, 21, 2, "b", NULL, 30, 0);
		_add(s, 211, 21, "b", "u1", 1, 1256.73L);
		_add(s, 22, 2, "c", NULL, 10, 0);
		_add(s, 221, 22, "c", "u2", 1, 199.49L);
		_add(s, 222, 22, "c", "u3", 1, 89.91L);
		_add(s, 3, 1, "d", NULL, 60, 0);
		_add(s, 31, 3, "e", NULL, 25, 0);
		_add(s, 311, 31, "e", "u4", 1, 1104.63L);
		_add(s, 32, 3, "f", NULL, 35, 0);
		_add(s, 321, 32, "f", "u5", 1, 135.75L);
		_add(s, 4, 1, "root", "root", 1, 4917.10L);
		return 1;
	case 1:	/* DKRZ: two levels of projects, CPU-seconds usage */
		snprintf(s->name, sizeof(s->name), "site: DKRZ");
		s->w_fs = 1000;
		s->w_age = 1000;
		s->w_qos = 1000;
		_add(s, 2, 1, "bm0146", NULL, 10, 0);
		_add(s, 21, 2, "bm0146", "k202101", 1, 3.2e6L);
		_add(s, 22, 2, "bm0146", "k202102", 1, 0);
		_add(s, 3, 1, "bb1153", NULL, 25, 0);
		_add(s, 31, 3, "bb1153", "b381001", 1, 9.7e6L);
		_add(s, 32, 3, "bb1153", "b381002", 1, 1.1e6L);
		_add(s, 33, 3, "bb1153", "b381003", 1, 1.1e6L);
		_add(s, 4, 1, "mh0033", NULL, 65, 0);
		_add(s, 41, 4, "mh0033", "m300001", 1, 2.5e7L);
		return 1;
	case 2:	/* BMRC: group / group.prj.high, .prj, .prj.low (parent) */
		snprintf(s->name, sizeof(s->name), "site: BMRC");
		s->w_age = 10000000;
		s->w_fs = 100000000;
		s->flags[0] = 0;
		for (int g = 0; g < 3; g++) {
			uint32_t gid = 10 + g * 10;
			char grp[16], sub[32];
			snprintf(grp, sizeof(grp), "grp%d", g);
			_add(s, gid, 1, grp, NULL, 100 * (g + 1), 0);
			snprintf(sub, sizeof(sub), "%s.prj.high", grp);
			_add(s, gid + 1, gid, sub, NULL, 50, 0);
			_add(s, gid * 100 + 1, gid + 1, sub, "alice", SLURMDB_FS_USE_PARENT, 4000.0L * g);
			snprintf(sub, sizeof(sub), "%s.prj", grp);
			_add(s, gid + 2, gid, sub, NULL, 30, 0);
			_add(s, gid * 100 + 2, gid + 2, sub, "bob", SLURMDB_FS_USE_PARENT, 100.0L * (g + 3));
			_add(s, gid * 100 + 3, gid + 2, sub, "carol", SLURMDB_FS_USE_PARENT, 0);
			snprintf(sub, sizeof(sub), "%s.prj.low", grp);
			_add(s, gid + 3, gid, sub, NULL, 20, 0);
			_add(s, gid * 100 + 4, gid + 3, sub, "dave", 1, 777.0L);
		}
		return 1;
	case 3:	/* Limoges: three levels, partition + fair-share only */
		snprintf(s->name, sizeof(s->name), "site: Limoges");
		s->w_age = 0;
		s->w_js = 0;
		s->w_qos = 0;
		s->w_part = 30000;
		s->w_fs = 70000;
		_add(s, 2, 1, "xlim", NULL, 60, 0);
		_add(s, 21, 2, "xlim-gc", NULL, 40, 0);
		_add(s, 211, 21, "xlim-gc", "pierre", 1, 5000);
		_add(s, 212, 21, "xlim-gc", "marie", 2, 200);
		_add(s, 22, 2, "xlim-rf", NULL, 60, 0);
		_add(s, 221, 22, "xlim-rf", "jean", 1, 0);
		_add(s, 3, 1, "ircer", NULL, 40, 0);
		_add(s, 31, 3, "ircer-ms", NULL, 1, 0);
		_add(s, 311, 31, "ircer-ms", "luc", 1, 12000);
		_add(s, 312, 31, "ircer-ms", "anne", 1, 12000);
		return 1;
	}
	return 0;
}

static char *g_state_dir;

/* The plugins' files in the scenario's StateSaveLocation. */
static void _remove_state_files(void)
{
	const char *names[] = { "priority_last_decay_ran",
				"priority_last_decay_ran.old",
				"priority_last_decay_ran.new", "fairway_usage",
				"fairway_usage.new", "fairway_usage.journal",
				"fairway_usage.journal.old", NULL };
	for (int i = 0; names[i]; i++) {
		char *f = xstrdup_printf("%s/%s", g_state_dir, names[i]);
		unlink(f);
		xfree(f);
	}
}

/* ---- building Slurm's state ---- */
static char *g_conf_path;

static void _write_conf(const scenario_t *s)
{
	FILE *f;
	char dir[] = "/tmp/fw_diff.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	g_state_dir = xstrdup(dir);
	g_conf_path = xstrdup_printf("%s/slurm.conf", dir);
	if (!(f = fopen(g_conf_path, "w"))) {
		perror(g_conf_path);
		exit(2);
	}
	fprintf(f, "ClusterName=fwdiff\nSlurmctldHost=localhost\n"
		"StateSaveLocation=%s\n"
		"PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm\n"
		"PriorityType=priority/multifactor\n"
		"AccountingStorageType=accounting_storage/none\n"
		"AccountingStorageTRES=cpu,mem,energy,node,billing\n"
		"PriorityWeightAge=%u\nPriorityWeightAssoc=%u\n"
		"PriorityWeightFairshare=%u\nPriorityWeightJobSize=%u\n"
		"PriorityWeightPartition=%u\nPriorityWeightQOS=%u\n"
		"PriorityMaxAge=%u\nFairShareDampeningFactor=%u\n"
		"PriorityFavorSmall=%s\n"
		/* The decay factor of multifactor lives in its thread, which
		 * a harness does not run: compare accrual without decay (the
		 * decay arithmetic is unit-tested in test_usage_decay). */
		"PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=YEARLY\n",
		dir, s->w_age, s->w_assoc, s->w_fs, s->w_js, s->w_part,
		s->w_qos, (unsigned) (s->max_age / 60), s->damp,
		s->favor_small ? "YES" : "NO");
	if (s->flags[0])
		fprintf(f, "PriorityFlags=%s\n", s->flags);
	if (s->w_tres[0])
		fprintf(f, "PriorityWeightTRES=%s\n", s->w_tres);
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
	uint32_t x = ((const id_index_t *) a)->id, y = ((const id_index_t *) b)->id;
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

static void _setup_assoc_mgr(scenario_t *s)
{
	slurmdb_update_object_t update;
	assoc_init_args_t args;
	const char *tres_types[] = { "cpu", "mem", "energy", "node", "billing" };

	assoc_mgr_assoc_list = list_create(slurmdb_destroy_assoc_rec);
	assoc_mgr_user_list = list_create(slurmdb_destroy_user_rec);
	assoc_mgr_qos_list = list_create(slurmdb_destroy_qos_rec);
	memset(&args, 0, sizeof(args));
	args.running_cache = &running_cache;
	running_cache = RUNNING_CACHE_STATE_RUNNING;
	assoc_mgr_init(NULL, &args, SLURM_SUCCESS);

	memset(&update, 0, sizeof(update));
	update.type = SLURMDB_ADD_TRES;
	update.objects = list_create(slurmdb_destroy_tres_rec);
	for (int i = 0; i < 5; i++) {
		slurmdb_tres_rec_t *t = xmalloc(sizeof(*t));
		t->id = i + 1;
		t->type = xstrdup(tres_types[i]);
		list_append(update.objects, t);
	}
	if (assoc_mgr_update_tres(&update, false))
		fatal("assoc_mgr_update_tres failed");
	FREE_NULL_LIST(update.objects);
	slurmctld_tres_cnt = g_tres_count;

	/* An account's usage is its subtree's (what slurmctld accumulates).
	 * Children come after their parents in every generated scenario. */
	_index_scenario(s);
	for (int i = s->nassoc - 1; i > 0; i--) {
		int j = _scenario_index(s->a[i].parent);
		if (j >= 0)
			s->a[j].usage += s->a[i].usage;
	}

	update.type = SLURMDB_ADD_ASSOC;
	update.objects = list_create(slurmdb_destroy_assoc_rec);
	for (int i = 0; i < s->nassoc; i++) {
		slurmdb_assoc_rec_t *a = xmalloc(sizeof(*a));
		slurmdb_init_assoc_rec(a, 0);
		a->cluster = xstrdup(slurm_conf.cluster_name);
		a->usage = slurmdb_create_assoc_usage(g_tres_count);
		a->id = s->a[i].id;
		a->parent_id = s->a[i].parent;
		a->shares_raw = s->a[i].shares;
		a->acct = xstrdup(s->a[i].acct);
		if (s->a[i].user[0]) {
			a->user = xstrdup(s->a[i].user);
			a->uid = 1000 + i;
		}
		a->usage->usage_raw = s->a[i].usage;
		list_append(update.objects, a);
	}
	if (assoc_mgr_update_assocs(&update, false))
		fatal("assoc_mgr_update_assocs failed");
	FREE_NULL_LIST(update.objects);
	{
		slurmdb_assoc_rec_t *a;
		ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it))) {
			id_index_t *e = _lookup(a->id);
			if (e)
				e->rec = a;
		}
		list_iterator_destroy(it);
	}
}

#define MAX_QOS 3
static slurmdb_qos_rec_t *g_qos[MAX_QOS];
static bool g_bench;	/* bench mode: exactly s->nrunning running jobs */

static void _setup_parts_qos(void)
{
	uint32_t max_factor = 0, max_prio = 0;

	g_nparts = 1 + _pick(MAX_PARTS);
	if (g_bench && getenv("FW_BENCH_PARTS"))
		g_nparts = atoi(getenv("FW_BENCH_PARTS"));
	for (int i = 0; i < g_nparts; i++) {
		part_record_t *p = &g_parts[i];
		memset(p, 0, sizeof(*p));
		p->name = xstrdup_printf("p%d", i);
		p->priority_job_factor = _chance(15) ? 0 : 1 + _pick(100);
		p->priority_tier = _pick(3);
		p->max_time = _chance(50) ? INFINITE : 60 * (1 + _pick(48));
		p->tres_cnt = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
		p->tres_cnt[TRES_ARRAY_CPU] = 64;
		p->tres_cnt[TRES_ARRAY_MEM] = 16000;
		p->tres_cnt[TRES_ARRAY_NODE] = 4;
		p->tres_cnt[TRES_ARRAY_BILLING] = 64;
		if (p->priority_job_factor > max_factor)
			max_factor = p->priority_job_factor;
	}
	/* slurmctld normalizes partition factors by the largest. */
	for (int i = 0; i < g_nparts; i++)
		g_parts[i].norm_priority = max_factor ?
			(double) g_parts[i].priority_job_factor / max_factor :
			0.0;

	for (int i = 0; i < MAX_QOS; i++) {
		slurmdb_qos_rec_t *q = xmalloc(sizeof(*q));
		slurmdb_init_qos_rec(q, 0, NO_VAL);
		q->id = i + 1;
		q->name = xstrdup_printf("q%d", i);
		q->priority = _chance(30) ? 0 : _pick(1000);
		q->usage = slurmdb_create_qos_usage(g_tres_count);
		q->usage_factor = _chance(20) ? 0.5 * _pick(5) : 1.0;
		if (_chance(15))
			q->flags |= QOS_FLAG_NO_DECAY;
		for (int t = 0; t < g_tres_count; t++)
			q->usage->grp_used_tres_run_secs[t] = _pick(1u << 30);
		if (q->priority > max_prio)
			max_prio = q->priority;
		list_append(assoc_mgr_qos_list, q);
		g_qos[i] = q;
	}
	for (int i = 0; i < MAX_QOS; i++)
		g_qos[i]->usage->norm_priority = max_prio ?
			(double) g_qos[i]->priority / max_prio : 0.0;
}

static slurmdb_assoc_rec_t *_find_assoc(uint32_t id)
{
	id_index_t *e = _lookup(id);
	return e ? e->rec : NULL;
}

/* Every fourth scenario has no running job and is run with
 * priority_fairway_recalc; the others with priority_fairway_cycle, which also
 * charges the running jobs' usage. */
static bool g_use_recalc;

static void _setup_jobs(scenario_t *s, time_t now)
{
	int *users = xcalloc(s->nassoc + 1, sizeof(int)), nusers = 0;

	for (int i = 0; i < s->nassoc; i++)
		if (s->a[i].user[0])
			users[nusers++] = i;
	job_list = list_create(NULL);
	for (int n = 0; n < s->njobs && nusers; n++) {
		job_record_t *j = xmalloc(sizeof(*j));
		sc_assoc_t *sa = &s->a[users[_pick(nusers)]];
		int part = _pick(g_nparts);

		j->magic = JOB_MAGIC;
		j->job_id = 100 + n;
		j->job_state = JOB_PENDING;
		j->assoc_id = sa->id;
		j->assoc_ptr = _find_assoc(sa->id);
		j->account = xstrdup(sa->acct);
		j->user_id = 1000 + n % 7;
		j->part_ptr = &g_parts[part];
		j->partition = xstrdup(g_parts[part].name);
		if ((g_nparts > 1) && _chance(20)) {
			j->part_ptr_list = list_create(NULL);
			for (int p = 0; p < g_nparts; p++)
				list_append(j->part_ptr_list, &g_parts[p]);
		}
		j->priority = _chance(8) ? 0 : 1;	/* 0: held */
		if (_chance(5)) {			/* set by an admin */
			j->priority = 1 + _pick(100000);
			j->direct_set_prio = 1;
		}
		j->site_factor = NICE_OFFSET;
		j->time_limit = _chance(30) ? NO_VAL : 1 + _pick(2880);
		if (_chance(70))
			j->qos_ptr = g_qos[_pick(MAX_QOS)];
		j->details = xmalloc(sizeof(*j->details));
		j->details->min_cpus = 1 + _pick(64);
		j->details->max_cpus = _chance(20) ? j->details->min_cpus :
			NO_VAL;
		j->details->min_nodes = 1 + _pick(4);
		j->details->nice = NICE_OFFSET +
			(_chance(20) ? (int) _pick(2000) - 500 : 0);
		j->details->submit_time = now - _pick(100000);
		j->details->begin_time = j->details->submit_time;
		j->details->accrue_time = _chance(10) ? 0 :
			now - _pick(200000) + (_chance(5) ? 5000 : 0);
		j->tres_req_cnt = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
		j->tres_req_cnt[TRES_ARRAY_CPU] = j->details->min_cpus;
		j->tres_req_cnt[TRES_ARRAY_MEM] = 100 * (1 + _pick(100));
		j->tres_req_cnt[TRES_ARRAY_NODE] = j->details->min_nodes;
		if (g_bench ? (n < s->nrunning) : (!g_use_recalc && _chance(25))) {
			/* Running since some time after the last period:
			 * charged by the period under test. */
			j->job_state = JOB_RUNNING;
			j->start_time = now - 1 - _pick(40000);
			j->total_cpus = j->details->min_cpus;
			j->end_time_exp = j->start_time +
				((j->time_limit == NO_VAL) ? 100000 :
				 (time_t) j->time_limit * 60);
			j->tres_alloc_cnt = xcalloc(slurmctld_tres_cnt,
						    sizeof(uint64_t));
			j->tres_alloc_cnt[TRES_ARRAY_CPU] = j->total_cpus;
			j->tres_alloc_cnt[TRES_ARRAY_MEM] =
				j->tres_req_cnt[TRES_ARRAY_MEM];
			j->tres_alloc_cnt[TRES_ARRAY_NODE] =
				j->details->min_nodes;
			j->tres_alloc_cnt[TRES_ARRAY_BILLING] = j->total_cpus;
		}
		list_append(job_list, j);
	}
	xfree(users);
}

/* ---- running one plugin and capturing its results ---- */
typedef struct {
	double shares_norm, fs_factor, grp_used_wall;
	long double usage_norm, usage_efctv, level_fs, usage_raw;
	uint64_t run_secs[8];
} assoc_out_t;

typedef struct {
	long double usage_raw;
	double grp_used_wall;
	uint64_t run_secs[8];
} qos_out_t;

typedef struct {
	uint32_t priority;
	uint32_t prio_array[MAX_PARTS + 1];
	bool has_factors;
	priority_factors_object_t f;
	double tres[8];
} job_out_t;

typedef struct {
	assoc_out_t *a;
	job_out_t *j;
	qos_out_t q[MAX_QOS];
	int na, nj;
} result_t;

static void _capture(result_t *r, void (*set_assoc_usage)(slurmdb_assoc_rec_t *))
{
	slurmdb_assoc_rec_t *a;
	job_record_t *j;
	ListIterator it;
	int i = 0;

	r->na = list_count(assoc_mgr_assoc_list);
	r->a = xcalloc(r->na, sizeof(*r->a));
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		/* What sshare reads: users' effective usage is computed on
		 * demand when the period left it at NO_VAL. */
		if (a->user && fuzzy_equal(a->usage->usage_efctv, NO_VAL))
			set_assoc_usage(a);
		r->a[i].shares_norm = a->usage->shares_norm;
		r->a[i].usage_norm = a->usage->usage_norm;
		r->a[i].usage_efctv = a->usage->usage_efctv;
		r->a[i].level_fs = a->usage->level_fs;
		r->a[i].fs_factor = a->usage->fs_factor;
		r->a[i].usage_raw = a->usage->usage_raw;
		r->a[i].grp_used_wall = a->usage->grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++)
			r->a[i].run_secs[t] = a->usage->grp_used_tres_run_secs[t];
		i++;
	}
	list_iterator_destroy(it);

	for (int q = 0; q < MAX_QOS; q++) {
		r->q[q].usage_raw = g_qos[q]->usage->usage_raw;
		r->q[q].grp_used_wall = g_qos[q]->usage->grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++)
			r->q[q].run_secs[t] = g_qos[q]->usage->grp_used_tres_run_secs[t];
	}
	r->nj = list_count(job_list);
	r->j = xcalloc(r->nj, sizeof(*r->j));
	i = 0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		job_out_t *o = &r->j[i++];
		o->priority = j->priority;
		if (j->priority_array && j->part_ptr_list)
			memcpy(o->prio_array, j->priority_array,
			       sizeof(uint32_t) * list_count(j->part_ptr_list));
		if (j->prio_factors) {
			o->has_factors = true;
			o->f = *j->prio_factors;
			if (j->prio_factors->priority_tres)
				memcpy(o->tres, j->prio_factors->priority_tres,
				       sizeof(double) * slurmctld_tres_cnt);
			o->f.priority_tres = NULL;
			o->f.tres_weights = NULL;
		}
	}
	list_iterator_destroy(it);
}

/* Usage before the first plugin ran, restored for the second. */
static result_t g_before;

/* Forget every computed value so the second plugin starts from the same
 * state as the first. */
static void _reset_state(void)
{
	slurmdb_assoc_rec_t *a;
	job_record_t *j;
	ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
	int i = 0;

	for (int q = 0; q < MAX_QOS; q++) {
		g_qos[q]->usage->usage_raw = g_before.q[q].usage_raw;
		g_qos[q]->usage->grp_used_wall = g_before.q[q].grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++)
			g_qos[q]->usage->grp_used_tres_run_secs[t] =
				g_before.q[q].run_secs[t];
	}
	while ((a = list_next(it))) {
		a->usage->usage_raw = g_before.a[i].usage_raw;
		a->usage->grp_used_wall = g_before.a[i].grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++)
			a->usage->grp_used_tres_run_secs[t] =
				g_before.a[i].run_secs[t];
		i++;
		a->usage->usage_norm = (long double) NO_VAL;
		a->usage->usage_efctv = 0;
		a->usage->level_fs = 0;
		a->usage->fs_factor = 0;
	}
	list_iterator_destroy(it);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if (!j->direct_set_prio && j->priority)
			j->priority = 1;
		if (j->prio_factors) {
			xfree(j->prio_factors->priority_tres);
			xfree(j->prio_factors->tres_weights);
			xfree(j->prio_factors);
		}
		xfree(j->priority_array);
	}
	list_iterator_destroy(it);
}

/* The classic branch of multifactor's decay thread, with its static helper
 * done through the exported priority_p_set_assoc_usage: accounts top-down,
 * users left for on-demand computation, then every job weighed. */
static void _mf_classic_children(List children,
				 void (*set_assoc_usage)(slurmdb_assoc_rec_t *))
{
	slurmdb_assoc_rec_t *a;
	ListIterator it;

	if (!children)
		return;
	it = list_iterator_create(children);
	while ((a = list_next(it))) {
		if (a->user) {
			a->usage->usage_efctv = (long double) NO_VAL;
			continue;
		}
		set_assoc_usage(a);
		_mf_classic_children(a->usage->children_list, set_assoc_usage);
	}
	list_iterator_destroy(it);
}

/* ---- comparing ---- */
static int g_mismatches;
static const char *g_scenario;

static bool _same(long double a, long double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	if (a == b)
		return true;
	return fabsl(a - b) <= 1e-9L * fmaxl(fabsl(a), fabsl(b));
}

static void _mismatch(const char *what, int idx, const char *field,
		      long double mf, long double fw)
{
	g_mismatches++;
	if (g_mismatches <= 20)
		printf("MISMATCH %s: %s %d %s: multifactor %.17Lg fairway %.17Lg\n",
		       g_scenario, what, idx, field, mf, fw);
}

#define CMP(what, i, field, x, y) \
	do { if (!_same((x), (y))) _mismatch(what, i, field, (x), (y)); } while (0)
#define CMPI(what, i, field, x, y) \
	do { if ((x) != (y)) _mismatch(what, i, field, (x), (y)); } while (0)

static void _compare(const result_t *mf, const result_t *fw)
{
	for (int i = 0; i < mf->na; i++) {
		CMP("assoc", i, "shares_norm", mf->a[i].shares_norm, fw->a[i].shares_norm);
		CMP("assoc", i, "usage_norm", mf->a[i].usage_norm, fw->a[i].usage_norm);
		CMP("assoc", i, "usage_efctv", mf->a[i].usage_efctv, fw->a[i].usage_efctv);
		CMP("assoc", i, "level_fs", mf->a[i].level_fs, fw->a[i].level_fs);
		CMP("assoc", i, "fs_factor", mf->a[i].fs_factor, fw->a[i].fs_factor);
		CMP("assoc", i, "usage_raw", mf->a[i].usage_raw, fw->a[i].usage_raw);
		CMP("assoc", i, "grp_used_wall", mf->a[i].grp_used_wall, fw->a[i].grp_used_wall);
		for (int t = 0; t < 8; t++)
			CMPI("assoc", i, "grp_used_tres_run_secs", mf->a[i].run_secs[t],
			     fw->a[i].run_secs[t]);
	}
	for (int q = 0; q < MAX_QOS; q++) {
		CMP("qos", q, "usage_raw", mf->q[q].usage_raw, fw->q[q].usage_raw);
		CMP("qos", q, "grp_used_wall", mf->q[q].grp_used_wall, fw->q[q].grp_used_wall);
		for (int t = 0; t < 8; t++)
			CMPI("qos", q, "grp_used_tres_run_secs", mf->q[q].run_secs[t],
			     fw->q[q].run_secs[t]);
	}
	for (int i = 0; i < mf->nj; i++) {
		const job_out_t *a = &mf->j[i], *b = &fw->j[i];
		CMPI("job", i, "priority", a->priority, b->priority);
		for (int p = 0; p <= MAX_PARTS; p++)
			CMPI("job", i, "priority_array", a->prio_array[p], b->prio_array[p]);
		CMPI("job", i, "has_factors", a->has_factors, b->has_factors);
		if (!a->has_factors || !b->has_factors)
			continue;
		CMP("job", i, "age", a->f.priority_age, b->f.priority_age);
		CMP("job", i, "assoc", a->f.priority_assoc, b->f.priority_assoc);
		CMP("job", i, "fs", a->f.priority_fs, b->f.priority_fs);
		CMP("job", i, "js", a->f.priority_js, b->f.priority_js);
		CMP("job", i, "part", a->f.priority_part, b->f.priority_part);
		CMP("job", i, "qos", a->f.priority_qos, b->f.priority_qos);
		CMPI("job", i, "site", a->f.priority_site, b->f.priority_site);
		CMPI("job", i, "nice", a->f.nice, b->f.nice);
		CMPI("job", i, "tres_cnt", a->f.tres_cnt, b->f.tres_cnt);
		for (int t = 0; t < slurmctld_tres_cnt && t < 8; t++)
			CMP("job", i, "tres", a->tres[t], b->tres[t]);
	}
}

static const char *g_plugin_path;

/* priority/fairway's entry points, loaded with dlopen as slurmctld's loader
 * would not let us (it loads one priority plugin). */
typedef struct {
	void *handle;
	int (*init)(void);
	int (*fini)(void);
	void (*reconfig)(bool);
	uint32_t (*set)(uint32_t, job_record_t *);
	void (*set_assoc_usage)(slurmdb_assoc_rec_t *);
	List (*factors)(priority_factors_request_msg_t *, uid_t);
	int (*recalc)(time_t);
	int (*cycle)(time_t);
} fw_plugin_t;

static void _load_fairway(fw_plugin_t *p)
{
	if (!(p->handle = dlopen(g_plugin_path, RTLD_LAZY | RTLD_LOCAL)))
		fatal("dlopen %s: %s", g_plugin_path, dlerror());
	p->init = dlsym(p->handle, "init");
	p->fini = dlsym(p->handle, "fini");
	p->reconfig = dlsym(p->handle, "priority_p_reconfig");
	p->set = dlsym(p->handle, "priority_p_set");
	p->set_assoc_usage = dlsym(p->handle, "priority_p_set_assoc_usage");
	p->factors = dlsym(p->handle, "priority_p_get_priority_factors_list");
	p->recalc = dlsym(p->handle, "priority_fairway_recalc");
	p->cycle = dlsym(p->handle, "priority_fairway_cycle");
	if (!p->init || !p->fini || !p->reconfig || !p->set ||
	    !p->set_assoc_usage || !p->factors || !p->recalc || !p->cycle)
		fatal("%s lacks the entry points of priority/fairway",
		      g_plugin_path);
}

/* slurm.conf, assoc_mgr, partitions, QOS and jobs of a scenario. */
static void _setup_world(scenario_t *s, uint32_t seed, time_t now,
			 const char *log_name)
{
	log_options_t logopt = LOG_OPTS_STDERR_ONLY;

	logopt.stderr_level = g_verbose ? LOG_LEVEL_INFO : LOG_LEVEL_ERROR;
	log_init((char *) log_name, logopt, 0, NULL);
	_write_conf(s);
	if (slurm_conf_init(g_conf_path) != SLURM_SUCCESS)
		fatal("slurm_conf_init(%s) failed", g_conf_path);
	node_record_count = 4;
	_setup_assoc_mgr(s);
	if (seed)
		g_rng = seed * 2654435761ULL + 7;
	_setup_parts_qos();
	_setup_jobs(s, now);
}

/* ---- one scenario (in its own process) ---- */
static bool (*mf_charge)(job_record_t *, time_t *);
static int (*mf_weigh)(job_record_t *, time_t *);

/* The classic branch of multifactor's decay thread: each job charged, then
 * weighed (_decay_apply_new_usage_and_weighted_factors). */
static int _mf_charge_and_weigh(void *x, void *arg)
{
	if (mf_charge(x, arg))
		mf_weigh(x, arg);
	return 0;
}

static void _no_materialize(slurmdb_assoc_rec_t *a) { (void) a; }

/* When the last period ran, in multifactor's state file format: before every
 * running job started, so both plugins charge each from its start. */
static void _write_last_ran(time_t last_ran)
{
	char *path = xstrdup_printf("%s/priority_last_decay_ran", g_state_dir);
	unsigned char b[16] = { 0 };
	FILE *f;

	for (int i = 0; i < 8; i++)
		b[i] = ((uint64_t) last_ran) >> (56 - 8 * i);
	if (!(f = fopen(path, "w")) || (fwrite(b, 1, 16, f) != 16))
		fatal("cannot write %s", path);
	fclose(f);
	xfree(path);
}

static int _run_scenario(scenario_t *s, uint32_t seed)
{
	void (*mf_fair_tree_decay)(List, time_t);
	void (*mf_set_assoc_usage)(slurmdb_assoc_rec_t *);
	fw_plugin_t fw;
	void *mf;
	result_t r_mf = { 0 }, r_fw = { 0 };
	time_t now = 1700000000;
	bool classic;

	g_use_recalc = (seed % 4) == 0;
	_setup_world(s, seed, now, "fw_diff");
	classic = !(slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE);
	/* TRES run seconds are released only when limits are enforced. */
	accounting_enforce = _chance(50) ? ACCOUNTING_ENFORCE_LIMITS : 0;
	{
		slurmdb_assoc_rec_t *a;
		ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)))
			for (int t = 0; t < g_tres_count; t++)
				a->usage->grp_used_tres_run_secs[t] =
					_pick(1u << 30);
		list_iterator_destroy(it);
	}
	_capture(&g_before, _no_materialize);

	/* multifactor, through Slurm's loader, outside slurmctld (no thread),
	 * then set up as slurmctld would (cluster_cpus, reconfig). */
	if (priority_g_init() != SLURM_SUCCESS)
		fatal("cannot load priority/multifactor");
	cluster_cpus = 64;
	priority_g_reconfig(false);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	if (!(mf = dlopen("/usr/lib/x86_64-linux-gnu/slurm-wlm/priority_multifactor.so",
			  RTLD_LAZY | RTLD_NOLOAD)))
		fatal("dlopen NOLOAD multifactor: %s", dlerror());
	mf_fair_tree_decay = dlsym(mf, "fair_tree_decay");
	mf_weigh = dlsym(mf, "decay_apply_weighted_factors");
	mf_charge = dlsym(mf, "decay_apply_new_usage");
	mf_set_assoc_usage = dlsym(mf, "priority_p_set_assoc_usage");
	if (!mf_fair_tree_decay || !mf_weigh || !mf_charge || !mf_set_assoc_usage)
		fatal("multifactor lacks fair_tree_decay/decay_apply_weighted_factors");

	if (classic) {
		_mf_classic_children(assoc_mgr_root_assoc->usage->children_list,
				     mf_set_assoc_usage);
		list_for_each(job_list, _mf_charge_and_weigh, &now);
	} else {
		mf_fair_tree_decay(job_list, now);
	}
	_capture(&r_mf, mf_set_assoc_usage);
	_reset_state();

	/* priority/fairway, the same way. */
	cluster_cpus = NO_VAL;
	_load_fairway(&fw);
	if (fw.init() != SLURM_SUCCESS)
		fatal("fairway init failed");
	cluster_cpus = 64;
	fw.reconfig(false);
	_write_last_ran(now - 50000);
	if ((g_use_recalc ? fw.recalc(now) : fw.cycle(now)) != SLURM_SUCCESS)
		printf("NOTE %s: priority/fairway reported an error\n",
		       g_scenario);
	_capture(&r_fw, fw.set_assoc_usage);
	fw.fini();

	_compare(&r_mf, &r_fw);
	if (g_verbose) {
		long double charged = r_mf.a[0].usage_raw - g_before.a[0].usage_raw;
		double tres = 0;
		for (int i = 0; i < r_mf.nj; i++)
			for (int t = 0; t < 8; t++)
				tres += r_mf.j[i].tres[t];
		printf("%s: TRES factors sum %.3f (PriorityWeightTRES '%s')\n",
		       g_scenario, tres, s->w_tres);
		printf("%s: %d associations, %d jobs (%s), flags '%s', usage charged to root %.0Lf: %d mismatches\n",
		       g_scenario, r_mf.na, r_mf.nj,
		       g_use_recalc ? "recalc" : "cycle", s->flags, charged,
		       g_mismatches);
	}
	priority_g_fini();
	xfree(r_mf.a);
	xfree(r_mf.j);
	xfree(r_fw.a);
	xfree(r_fw.j);
	xfree(g_before.a);
	xfree(g_before.j);
	unlink(g_conf_path);
	_remove_state_files();
	rmdir(g_state_dir);
	return g_mismatches ? 1 : 0;
}

static int _fork_scenario(scenario_t *s, uint32_t seed)
{
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		g_scenario = s->name;
		exit(_run_scenario(s, seed));
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(2);
	}
	if (WIFEXITED(status) && (WEXITSTATUS(status) <= 1))
		return WEXITSTATUS(status);
	printf("ERROR %s: the scenario process died (status 0x%x)\n", s->name,
	       status);
	return 1;
}


/* ---- bench mode: the same large scenario under both plugins, timed ---- */

/* root -> accounts -> 100 users each, about `assocs` associations. */
static void _gen_bench(scenario_t *s, int assocs, int jobs, int running)
{
	int accounts = assocs / 101 > 0 ? assocs / 101 : 1;
	int users = (assocs - 1 - accounts) / accounts;
	char name[32];

	_clear(s);
	snprintf(s->name, sizeof(s->name), "bench %d/%d/%d", assocs, jobs, running);
	s->w_age = 1000;
	s->w_fs = 100000;
	s->w_js = 1000;
	s->w_part = 1000;
	s->w_qos = 1000;
	s->max_age = 7 * 86400;
	s->damp = 1;
	s->njobs = jobs;
	s->nrunning = running;
	g_next_id = 2;
	_add(s, 1, 0, "root", NULL, 1, 0);
	for (int k = 0; k < accounts; k++) {
		uint32_t aid = g_next_id++;
		char acct[32];
		snprintf(acct, sizeof(acct), "acct%d", k);
		_add(s, aid, 1, acct, NULL, 1 + _pick(100), 0);
		for (int u = 0; u < users; u++) {
			snprintf(name, sizeof(name), "user%d_%d", k, u);
			_add(s, g_next_id++, aid, acct, name, 1 + _pick(10),
			     (long double) _pick(100000));
		}
	}
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

static double _median(double *v, int n)
{
	qsort(v, n, sizeof(double), _cmp_double);
	return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static size_t _heap(void)
{
	return mallinfo2().uordblks;
}

/* Time fn(now) `reps` times after one warm-up; medians of the time and of the
 * job write lock's hold time. */
static void _time_period(void (*fn)(time_t), time_t now, int reps,
			 double *ms, double *lock_ms)
{
	double t[64], l[64];
	struct timespec a, b;

	fn(now);
	for (int r = 0; r < reps && r < 64; r++) {
		g_job_lock_ns = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		fn(now + 1 + r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = _ns(a, b) / 1e6;
		l[r] = g_job_lock_ns / 1e6;
	}
	*ms = _median(t, reps);
	*lock_ms = _median(l, reps);
}

static void (*g_mf_ftd)(List, time_t);
static int (*g_fw_cycle)(time_t);
static int (*g_fw_recalc)(time_t);
static void _mf_period(time_t now) { g_mf_ftd(job_list, now); }
static void _fw_period(time_t now) { (void) g_fw_cycle(now); }
static void _fw_recalc_only(time_t now) { (void) g_fw_recalc(now); }

/* The floor of any exact per-period pass: walk job_list and, per job, read
 * only its state, priority, accrue time, its association's fair-share factor
 * and its partition's factor, and write the priority -- what every exact
 * recalculation must touch at least, since Slurm changes these fields without
 * telling the priority plugin. */
static int getenv_full;
static int _floor_cb(void *x, void *arg)
{
	job_record_t *j = x;
	double p;

	if (!IS_JOB_PENDING(j) || !j->priority || !j->details)
		return 0;
	p = (double) (*(time_t *) arg - j->details->accrue_time);
	if (j->assoc_ptr && j->assoc_ptr->usage)
		p += j->assoc_ptr->usage->fs_factor * 1000;
	if (j->part_ptr)
		p += j->part_ptr->norm_priority;
	if (getenv_full) {	/* every field fairway reads, and prio_factors written */
		p += j->details->min_cpus + j->details->max_cpus +
			j->details->min_nodes + j->details->nice +
			j->site_factor + j->time_limit + j->total_cpus +
			j->direct_set_prio;
		if (j->qos_ptr)
			p += j->qos_ptr->priority + j->qos_ptr->usage->norm_priority;
		if (j->part_ptr)
			p += j->part_ptr->priority_job_factor + j->part_ptr->max_time;
		if (j->prio_factors) {
			j->prio_factors->priority_age = p;
			j->prio_factors->priority_fs = p;
			j->prio_factors->priority_js = p;
			j->prio_factors->priority_part = p;
			j->prio_factors->nice = 1;
		}
	}
	j->priority = 1 + ((uint32_t) p & 0xffff);
	return 0;
}

static double _time_floor(time_t now)
{
	struct timespec a, b;
	double t[5];

	for (int r = 0; r < 5; r++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		list_for_each(job_list, _floor_cb, &now);
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = _ns(a, b) / list_count(job_list);
	}
	return _median(t, 5);
}

/* ns per priority_p_set call over every job */
static double _time_set(uint32_t (*set)(uint32_t, job_record_t *))
{
	struct timespec a, b;
	job_record_t *j;
	ListIterator it = list_iterator_create(job_list);
	int n = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	while ((j = list_next(it))) {
		j->priority = set(0, j);
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	list_iterator_destroy(it);
	return n ? _ns(a, b) / n : 0;
}

static int _run_bench(int assocs, int jobs, int running, int reps)
{
	static scenario_t s;
	time_t now = 1700000000;
	double mf_ms, mf_lock, fw_ms, fw_lock, mf_set, fw_set;
	size_t h0, h_mf, h1, h_fw;
	fw_plugin_t fw;
	void *mf;

	g_rng = 42;
	g_bench = true;
	_gen_bench(&s, assocs, jobs, running);
	g_scenario = s.name;
	_setup_world(&s, 0, now, "fw_bench");

	if (priority_g_init() != SLURM_SUCCESS)
		fatal("cannot load priority/multifactor");
	cluster_cpus = 64;
	priority_g_reconfig(false);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	if (!(mf = dlopen("/usr/lib/x86_64-linux-gnu/slurm-wlm/priority_multifactor.so",
			  RTLD_LAZY | RTLD_NOLOAD)) ||
	    !(g_mf_ftd = dlsym(mf, "fair_tree_decay")))
		fatal("multifactor's fair_tree_decay not found");
	h0 = _heap();
	if (getenv("FW_BENCH_ONLY_FAIRWAY")) {	/* for profiling fairway alone */
		mf_ms = mf_lock = mf_set = 1;
		h_mf = h0;
	} else {
		_time_period(_mf_period, now, reps, &mf_ms, &mf_lock);
		h_mf = _heap();
		mf_set = _time_set(priority_g_set);
	}
	_capture(&g_before, _no_materialize);
	_reset_state();

	cluster_cpus = NO_VAL;
	_load_fairway(&fw);
	g_fw_cycle = fw.cycle;
	g_fw_recalc = fw.recalc;
	fw.init();
	cluster_cpus = 64;
	fw.reconfig(false);
	_write_last_ran(now - 50000);
	h1 = _heap();
	_time_period(_fw_period, now, reps, &fw_ms, &fw_lock);
	h_fw = _heap();
	if (getenv("FW_BENCH_SPLIT")) {
		double r_ms, r_lock;
		_time_period(_fw_recalc_only, now + 100, reps, &r_ms, &r_lock);
		printf("# fairway recalc only (no accrual): %.2f ms, job lock %.2f ms\n",
		       r_ms, r_lock);
	}
	fw_set = _time_set(fw.set);
	fw.fini();
	printf("# memory floor of an exact pass (read state, priority, accrue time, fs factor, partition; write priority): %.0f ns/job\n",
	       _time_floor(now));
	getenv_full = 1;
	printf("# same, reading every field fairway reads and writing prio_factors: %.0f ns/job\n",
	       _time_floor(now));

	/* Both plugins allocate the same per-job objects (prio_factors,
	 * priority_array); what fairway keeps beyond that is its association
	 * tree, so the difference is reported per association. */
	printf("%8d %9d %8d | %10.2f %10.2f %7.1fx | %7.0f %7.0f | %9.2f %9.2f %7.1fx | %6.0f %6.0f | %8.1f\n",
	       s.nassoc, jobs, running, mf_ms, fw_ms, mf_ms / fw_ms,
	       mf_ms * 1e6 / jobs, fw_ms * 1e6 / jobs, mf_lock, fw_lock,
	       mf_lock / fw_lock, mf_set, fw_set,
	       ((double) h_fw - h1 - ((double) h_mf - h0)) / s.nassoc);
	fflush(stdout);
	unlink(g_conf_path);
	_remove_state_files();
	rmdir(g_state_dir);
	return 0;
}

/*
 * --cycles N: priority/fairway alone on one scenario: load, N calculation periods
 * (one PriorityCalcPeriod apart, running jobs charged, usage and state files
 * written), sprio-style queries, unload.  For valgrind (test/differential/run-valgrind).
 */
static int _run_cycles(int cycles)
{
	static scenario_t s;
	time_t now = 1700000000;
	priority_factors_request_msg_t req;
	fw_plugin_t fw;
	int rc = 0;

	g_rng = 7;
	g_bench = true;
	_gen_bench(&s, 300, 600, 150);
	g_scenario = s.name;
	_setup_world(&s, 0, now, "fw_cycles");
	accounting_enforce = ACCOUNTING_ENFORCE_LIMITS;

	_load_fairway(&fw);
	memset(&req, 0, sizeof(req));
	for (int round = 0; round < 2; round++) {	/* load twice: init after fini */
		fw.init();
		cluster_cpus = 64;
		fw.reconfig(false);
		for (int c = 0; c < cycles / 2; c++) {
			List l;
			now += 60;
			if (fw.cycle(now) != SLURM_SUCCESS)
				rc = 1;
			if ((c % 50) == 0) {
				l = fw.factors(&req, 0);
				FREE_NULL_LIST(l);
				fw.reconfig(true);
			}
		}
		fw.fini();
		cluster_cpus = NO_VAL;
	}
	dlclose(fw.handle);
	printf("%d periods of priority/fairway, loaded and unloaded twice: %s\n",
	       cycles, rc ? "errors" : "ok");
	unlink(g_conf_path);
	_remove_state_files();
	rmdir(g_state_dir);
	return rc;
}

static void _bench_header(void)
{
	printf("# Full recalculation (fair-share + every job) per PriorityCalcPeriod, median of N runs after a warm-up;\n"
	       "# multifactor = Debian's priority_multifactor.so (fair_tree_decay), fairway = priority_fairway_cycle.\n"
	       "# extra B/assoc: heap fairway keeps beyond multifactor's (which is all per association: it\n"
	       "# allocates nothing per job that multifactor does not).\n"
	       "#   assocs      jobs  running |     mf ms     fw ms   speed | mf ns/j fw ns/j | mf lock ms fw lock ms   ratio | set ns mf/fw | extra B/assoc\n");
}

static int _run_cycles_main(const char *arg)
{
	if (!g_plugin_path) {
		fprintf(stderr, "fw_diff: no plugin: pass -p first or set FAIRWAY_PLUGIN\n");
		return 2;
	}
	return _run_cycles(atoi(arg));
}

int main(int argc, char **argv)
{
	static scenario_t s;
	uint32_t first = 1, count = 100;
	bool sites = false;
	int failed = 0, total = 0, opt, reps = 5;
	char *bench = NULL;
	static const struct option longopts[] = {
		{ "sites", no_argument, NULL, 'S' },
		{ "bench", required_argument, NULL, 'B' },
		{ "reps", required_argument, NULL, 'R' },
		{ "cycles", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 } };

	g_plugin_path = getenv("FAIRWAY_PLUGIN");
	while ((opt = getopt_long(argc, argv, "vp:n:s:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': g_verbose = 1; break;
		case 'p': g_plugin_path = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 10); break;
		case 's': first = strtoul(optarg, NULL, 10); break;
		case 'S': sites = true; break;
		case 'B': bench = optarg; break;
		case 'R': reps = atoi(optarg); break;
		case 'C': return _run_cycles_main(optarg);
		default:
			fprintf(stderr, "usage: %s [-v] [-p plugin.so] [-n count] [-s first-seed] [--sites]\n",
				argv[0]);
			return 2;
		}
	}
	if (!g_plugin_path) {
		fprintf(stderr, "fw_diff: no plugin: pass -p priority_fairway.so or set FAIRWAY_PLUGIN\n");
		return 2;
	}
	if (bench) {	/* --bench A,J,R;A,J,R;... one process per size */
		char *save = NULL;
		_bench_header();
		for (char *tok = strtok_r(bench, ";", &save); tok;
		     tok = strtok_r(NULL, ";", &save)) {
			int a = 0, j = 0, r = 0, status;
			pid_t pid;
			sscanf(tok, "%d,%d,%d", &a, &j, &r);
			fflush(stdout);
			if ((pid = fork()) == 0)
				exit(_run_bench(a, j, r, reps));
			waitpid(pid, &status, 0);
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				printf("# size %s failed (status 0x%x)\n", tok, status);
		}
		return 0;
	}
	for (int w = 0; sites && _gen_site(&s, w); w++) {
		total++;
		failed += _fork_scenario(&s, 1000000 + w);
	}
	for (uint32_t seed = first; seed < first + count; seed++) {
		g_rng = seed * 0x9E3779B97F4A7C15ULL + 1;
		_gen_random(&s, seed);
		total++;
		failed += _fork_scenario(&s, seed);
	}
	printf("%d scenarios, %d mismatches\n", total, failed);
	return failed ? 1 : 0;
}
