/*****************************************************************************\
 *  fw_diff.c - differential test: Slurm's own priority_multifactor.so and
 *  priority/fairway on the same scenario, in one process, every number compared.
 *
 *  The program plays slurmctld: it defines the globals and the few functions
 *  only slurmctld has (locks, find_part_record, ...; linked with -rdynamic so
 *  both plugins bind to them), loads multifactor through Slurm's own plugin
 *  loader (priority_g_init) and priority/fairway with dlopen, builds an
 *  association tree in assoc_mgr, QOS, partitions and a job list from a seeded
 *  random scenario (or a site's published tree), runs one calculation with
 *  each plugin and compares every association's shares_norm, usage_norm,
 *  usage_efctv, level_fs and fs_factor (as sshare reads them) and every job's
 *  priority, priority_array and prio_factors (as sprio reads them).
 *
 *  Usage: fw_diff [-v] [-p PLUGIN.so] [-n COUNT] [-s FIRST_SEED] [--sites]
 *	Runs COUNT random scenarios from FIRST_SEED (each in a forked child so
 *	that assoc_mgr starts clean), plus four sites' trees with --sites.
 *	The last line is "N scenarios, M mismatches".
 *	--decay-thread: each plugin runs the period in its own calculation
 *	thread, started as slurmctld starts it, with the clock frozen at the
 *	scenario's time: random PriorityDecayHalfLife, PriorityUsageResetPeriod,
 *	time since the last period and since the last reset (multifactor's
 *	decay and reset code only runs in its thread).
 *	--reconfig-switch: priority/fairway starts under the other fair-share
 *	algorithm, calculates once, and is switched to the scenario's by a
 *	reconfigure; its next period is compared with multifactor started
 *	with the scenario's flags (a restarted controller).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <dlfcn.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
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

/*
 * slurmctld's locks.  One thread (differential, bench): no-ops that time how
 * long the job write lock is held (bench mode reports the sum).  Soak mode
 * (g_real_locks): real read/write locks taken in slurmctld's order (config,
 * job, node, partition, federation), and the longest job write lock hold.
 */
static __thread struct timespec g_job_lock_t0;
static double g_job_lock_ns;
static bool g_real_locks;
static uint64_t g_job_lock_max_ns;	/* soak: atomic */
static pthread_rwlock_t g_ctld_locks[5] = {
	PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER,
	PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER,
	PTHREAD_RWLOCK_INITIALIZER };
static double _ns(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
}
static void _lock_one(int i, lock_level_t level)
{
	if (level == READ_LOCK)
		pthread_rwlock_rdlock(&g_ctld_locks[i]);
	else if (level == WRITE_LOCK)
		pthread_rwlock_wrlock(&g_ctld_locks[i]);
}
static void _unlock_one(int i, lock_level_t level)
{
	if (level != NO_LOCK)
		pthread_rwlock_unlock(&g_ctld_locks[i]);
}
void lock_slurmctld(slurmctld_lock_t l)
{
	if (g_real_locks) {
		_lock_one(0, l.conf);
		_lock_one(1, l.job);
		_lock_one(2, l.node);
		_lock_one(3, l.part);
		_lock_one(4, l.fed);
	}
	if (l.job == WRITE_LOCK)
		clock_gettime(CLOCK_MONOTONIC, &g_job_lock_t0);
}
void unlock_slurmctld(slurmctld_lock_t l)
{
	struct timespec t;
	if (l.job == WRITE_LOCK) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!g_real_locks) {
			g_job_lock_ns += _ns(g_job_lock_t0, t);
		} else {
			uint64_t ns = _ns(g_job_lock_t0, t);
			uint64_t max = __atomic_load_n(&g_job_lock_max_ns,
						       __ATOMIC_RELAXED);
			while ((ns > max) &&
			       !__atomic_compare_exchange_n(
				       &g_job_lock_max_ns, &max, ns, false,
				       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				;
		}
	}
	if (g_real_locks) {
		_unlock_one(4, l.fed);
		_unlock_one(3, l.part);
		_unlock_one(2, l.node);
		_unlock_one(1, l.job);
		_unlock_one(0, l.conf);
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

/*
 * The clock both plugins read.  --decay-thread freezes it at the scenario's
 * time, so that multifactor's decay thread and Fairway's calculation thread,
 * each started as slurmctld starts it, run their first period at the same
 * second (the executable's time() is found before libc's: -rdynamic).
 */
static time_t g_frozen_now;
time_t time(time_t *t)
{
	struct timespec ts;
	time_t v;

	if (g_frozen_now) {
		v = g_frozen_now;
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = ts.tv_sec;
	}
	if (t)
		*t = v;
	return v;
}

/* ---- a small deterministic random generator (scenarios are reproducible
 * from their seed on any machine) ---- */
static __thread uint64_t g_rng;	/* per thread (soak mode) */
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
	char name[160];
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
	if (_chance(45))
		snprintf(s->w_tres, sizeof(s->w_tres), "CPU=%u,Mem=%u%s%u",
			 W(), W(), _chance(70) ? ",GRES/gpu=" : ",Node=", W());
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

/* Site trees as the sites publish them (doc/differences.md names the pages):
 * DKRZ, BMRC, Limoges, and a two-level A-F tree with usage on every user. */
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
	case 0:	/* A(40){B(30):u1, C(10):u2,u3} D(60){E(25):u4, F(35):u5} */
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
/* Soak mode: more lines, and accounting through slurmdbd (so that the plugin
 * starts its calculation thread) with a decay half-life of 7 days. */
static const char *g_conf_extra;
/* --decay-thread: each scenario's PriorityDecayHalfLife,
 * PriorityUsageResetPeriod, AccountingStorageEnforce=limits, and the state
 * file the plugins find (when the last period ran, when usage was last reset). */
static bool g_thread_mode;
/* --reconfig-switch: Fairway switched to the scenario's algorithm by a
 * reconfigure after a calculation under the other one. */
static bool g_switch_mode;
static const char *g_decay_hl;
static const char *g_reset_period;
static bool g_enforce_limits;
static time_t g_since_last_ran, g_last_reset_ago;

#ifndef FW_SLURM_PLUGINDIR	/* Slurm's plugin directory (from configure) */
#define FW_SLURM_PLUGINDIR "/usr/lib/x86_64-linux-gnu/slurm-wlm"
#endif

/* A directory with another build of priority_multifactor.so, searched before
 * Slurm's own (make coverage-multifactor: an instrumented one), or "". */
static const char *_mf_dir(void)
{
	const char *d = getenv("FW_DIFF_MF_DIR");
	return d ? d : "";
}

/* The priority_multifactor.so that Slurm's loader loaded. */
static void *_mf_handle(void)
{
	char *path = xstrdup_printf("%s/priority_multifactor.so",
				    _mf_dir()[0] ? _mf_dir() :
				    FW_SLURM_PLUGINDIR);
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

	if (!h)
		fatal("dlopen NOLOAD %s: %s", path, dlerror());
	xfree(path);
	return h;
}

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
		dir, _mf_dir(), _mf_dir()[0] ? ":" : "", FW_SLURM_PLUGINDIR,
		(g_conf_extra || g_thread_mode) ? "slurmdbd" : "none", s->w_age,
		s->w_assoc, s->w_fs, s->w_js, s->w_part, s->w_qos, (unsigned) (s->max_age / 60), s->damp,
		s->favor_small ? "YES" : "NO",
		g_decay_hl ? g_decay_hl : (g_conf_extra ? "7-0" : "0"),
		g_reset_period ? g_reset_period : "YEARLY");
	if (g_thread_mode && g_enforce_limits)
		fputs("AccountingStorageEnforce=associations,limits\n", f);
	if (s->flags[0])
		fprintf(f, "PriorityFlags=%s\n", s->flags);
	if (s->w_tres[0])
		fprintf(f, "PriorityWeightTRES=%s\n", s->w_tres);
	if (g_conf_extra)
		fputs(g_conf_extra, f);
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

/* Position of the gres/gpu TRES in every TRES array. */
static int g_gpu_pos = -1;

/* slurmctld's reaction to a removed association (soak mode). */
static void (*g_remove_assoc_notify)(slurmdb_assoc_rec_t *);

static void _setup_assoc_mgr(scenario_t *s)
{
	slurmdb_update_object_t update;
	assoc_init_args_t args;
	const char *tres_types[] = { "cpu", "mem", "energy", "node", "billing",
				     "gres" };

	assoc_mgr_assoc_list = list_create(slurmdb_destroy_assoc_rec);
	assoc_mgr_user_list = list_create(slurmdb_destroy_user_rec);
	assoc_mgr_qos_list = list_create(slurmdb_destroy_qos_rec);
	memset(&args, 0, sizeof(args));
	args.running_cache = &running_cache;
	args.remove_assoc_notify = g_remove_assoc_notify;
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
	{
		slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
		g_gpu_pos = assoc_mgr_find_tres_pos(&gpu, false);
		if (g_gpu_pos < 0)
			fatal("no gres/gpu TRES in assoc_mgr");
	}

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

/*
 * What partitions look like at sites with GPUs in some nodes only
 * (AccountingStorageTRES=gres/gpu, Gres=gpu:N on some nodes): GPUs counted in
 * some partitions and not in others, a partition without nodes (slurmctld
 * leaves its counts at 0), and one whose tres_cnt was never set (NULL).
 */
static void _part_shape(part_record_t *p)
{
	switch (_pick(6)) {
	case 0:
	case 1:
	case 2:
		p->tres_cnt[g_gpu_pos] = 8;	/* GPU nodes */
		break;
	case 3:
		break;				/* no GPUs */
	case 4:
		memset(p->tres_cnt, 0, sizeof(uint64_t) * slurmctld_tres_cnt);
		break;				/* no nodes */
	default:
		xfree(p->tres_cnt);		/* never counted */
	}
}

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
		if (!g_bench)
			_part_shape(p);
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
		/* Usage from earlier periods, for decay and resets to act on. */
		if (_chance(60)) {
			q->usage->usage_raw = (long double) _pick(10000000);
			q->usage->grp_used_wall = _pick(1000000);
		}
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

/* A pending job of association `sa`, of random shape (drawn from the
 * generator: scenarios are reproducible from their seed). */
static job_record_t *_make_job(uint32_t job_id, const sc_assoc_t *sa,
			       time_t now)
{
	job_record_t *j = xmalloc(sizeof(*j));
	int part = _pick(g_nparts);

	j->magic = JOB_MAGIC;
	j->job_id = job_id;
	j->job_state = JOB_PENDING;
	j->assoc_id = sa->id;
	j->assoc_ptr = _find_assoc(sa->id);
	j->account = xstrdup(sa->acct);
	j->user_id = 1000 + (job_id - 100) % 7;
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
	if (!j->priority) {
		j->state_reason = WAIT_HELD;
		j->comment = xstrdup("held");	/* the soak's marker */
	}
	j->site_factor = NICE_OFFSET;
	j->time_limit = _chance(30) ? NO_VAL : 1 + _pick(2880);
	if (_chance(70))
		j->qos_ptr = g_qos[_pick(MAX_QOS)];
	j->details = xmalloc(sizeof(*j->details));
	j->details->min_cpus = 1 + _pick(64);
	j->details->max_cpus = _chance(20) ? j->details->min_cpus : NO_VAL;
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
	if (!g_bench) {
		if (_chance(35))	/* --gpus */
			j->tres_req_cnt[g_gpu_pos] = 1 + _pick(8);
		if (_chance(10)) {	/* requeued: its last allocation */
			j->tres_alloc_cnt = xcalloc(slurmctld_tres_cnt,
						    sizeof(uint64_t));
			j->tres_alloc_cnt[TRES_ARRAY_CPU] =
				j->details->min_cpus;
			j->tres_alloc_cnt[TRES_ARRAY_MEM] = NO_CONSUME_VAL64;
			j->tres_alloc_cnt[g_gpu_pos] = _chance(50) ?
				NO_CONSUME_VAL64 : j->tres_req_cnt[g_gpu_pos];
		} else if (_chance(5)) {	/* never had its request set */
			xfree(j->tres_req_cnt);
		}
	}
	return j;
}

/* Start a pending job at `start`: it runs on min_cpus CPUs until its time
 * limit (100000 s without one). */
static void _start_job(job_record_t *j, time_t start)
{
	j->job_state = JOB_RUNNING;
	j->start_time = start;
	j->total_cpus = j->details->min_cpus;
	j->end_time_exp = start + ((j->time_limit == NO_VAL) ? 100000 :
				   (time_t) j->time_limit * 60);
	xfree(j->tres_alloc_cnt);
	j->tres_alloc_cnt = xcalloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_alloc_cnt[TRES_ARRAY_CPU] = j->total_cpus;
	j->tres_alloc_cnt[TRES_ARRAY_MEM] = j->tres_req_cnt ?
		j->tres_req_cnt[TRES_ARRAY_MEM] : 100;
	j->tres_alloc_cnt[TRES_ARRAY_NODE] = j->details->min_nodes;
	j->tres_alloc_cnt[TRES_ARRAY_BILLING] = j->total_cpus;
	/* A no_consume GRES is allocated as NO_CONSUME_VAL64.  Not in
	 * --decay-thread scenarios: there multifactor's thread starts by
	 * releasing the run seconds of running jobs from an array it never
	 * clears, so for such a TRES it releases the previous job's seconds,
	 * or whatever the stack held (doc/differences.md); Fairway releases
	 * none.  The other modes compare the charging of such jobs. */
	if (!g_bench && j->tres_req_cnt && j->tres_req_cnt[g_gpu_pos])
		j->tres_alloc_cnt[g_gpu_pos] =
			(!g_thread_mode && _chance(20)) ? NO_CONSUME_VAL64 :
			j->tres_req_cnt[g_gpu_pos];
}

static void _setup_jobs(scenario_t *s, time_t now)
{
	int *users = xcalloc(s->nassoc + 1, sizeof(int)), nusers = 0;

	for (int i = 0; i < s->nassoc; i++)
		if (s->a[i].user[0])
			users[nusers++] = i;
	job_list = list_create(NULL);
	for (int n = 0; n < s->njobs && nusers; n++) {
		job_record_t *j = _make_job(100 + n, &s->a[users[_pick(nusers)]],
					    now);

		/* Running since some time after the last period: charged by
		 * the period under test. */
		if (g_bench ? (n < s->nrunning) : (!g_use_recalc && _chance(25)))
			_start_job(j, now - 1 - _pick(40000));
		list_append(job_list, j);
	}
	xfree(users);
}

/* ---- running one plugin and capturing its results ---- */
typedef struct {
	double shares_norm, fs_factor, grp_used_wall;
	long double usage_norm, usage_efctv, level_fs, usage_raw;
	long double tres_raw[8];
	uint64_t run_secs[8];
} assoc_out_t;

typedef struct {
	long double usage_raw;
	long double tres_raw[8];
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

/* One row of sprio: what priority_p_get_priority_factors_list returns. */
typedef struct {
	uint32_t job_id, user_id, direct_prio;
	char partition[16];
	priority_factors_object_t f;
	double tres[8];
} sprio_row_t;

typedef struct {
	assoc_out_t *a;
	job_out_t *j;
	qos_out_t q[MAX_QOS];
	sprio_row_t *rows;
	int na, nj, nrows;
	uint32_t *set_prio;		/* priority_p_set of each pending job */
	assoc_out_t *a_end;		/* after priority_p_job_end (thread mode) */
	qos_out_t q_end[MAX_QOS];
} result_t;

/* Append the rows of one sprio request, copied out of the returned list. */
static void _append_sprio(result_t *r, List l)
{
	priority_factors_object_t *o;
	ListIterator it;

	if (!l)
		return;
	xrecalloc(r->rows, r->nrows + list_count(l) + 1, sizeof(*r->rows));
	it = list_iterator_create(l);
	while ((o = list_next(it))) {
		sprio_row_t *w = &r->rows[r->nrows++];
		w->job_id = o->job_id;
		w->user_id = o->user_id;
		w->direct_prio = o->direct_prio;
		snprintf(w->partition, sizeof(w->partition), "%s",
			 o->partition ? o->partition : "");
		w->f = *o;
		if (o->priority_tres)
			memcpy(w->tres, o->priority_tres, sizeof(double) *
			       MIN(o->tres_cnt, 8));
		w->f.priority_tres = NULL;
		w->f.tres_weights = NULL;
		w->f.partition = NULL;
	}
	list_iterator_destroy(it);
}

/* sprio's rows as root: every job, then filtered by job ids, by user and by
 * partitions (the filters are the plugin's on Slurm 22.05). */
static void _capture_sprio(result_t *r, List (*factors)(
				   priority_factors_request_msg_t *, uid_t))
{
	priority_factors_request_msg_t req;
	uint32_t ids[] = { 100, 101, 103, 110 }, uid = 1002;
	List l;

	r->rows = xcalloc(1, sizeof(*r->rows));
	r->nrows = 0;
	for (int kind = 0; kind < 4; kind++) {
		memset(&req, 0, sizeof(req));
		if (kind == 1) {
			req.job_id_list = list_create(NULL);
			for (int i = 0; i < 4; i++)
				list_append(req.job_id_list, &ids[i]);
		} else if (kind == 2) {
			req.uid_list = list_create(NULL);
			list_append(req.uid_list, &uid);
		} else if (kind == 3) {
			req.partitions = xstrdup_printf("p%d,nosuch", g_nparts - 1);
		}
		l = factors(&req, 0);
		_append_sprio(r, l);
		FREE_NULL_LIST(l);
		FREE_NULL_LIST(req.job_id_list);
		FREE_NULL_LIST(req.uid_list);
		xfree(req.partitions);
	}
}

/*
 * Scenarios that reached sprio rows where multifactor keeps a job's weighted
 * TRES factor: a job in several partitions, one of which does not count a TRES
 * (no GPUs, no nodes) that the job uses and its first partition counts.
 */
static int _tres_kept_rows(void)
{
	job_record_t *j;
	part_record_t *p;
	ListIterator it, pit;
	int n = 0;

	if (!slurm_conf.priority_weight_tres)
		return 0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if (!j->part_ptr_list || !j->part_ptr ||
		    !j->part_ptr->tres_cnt)
			continue;
		pit = list_iterator_create(j->part_ptr_list);
		while ((p = list_next(pit)))
			for (int t = 0; t < slurmctld_tres_cnt; t++) {
				uint64_t v = j->tres_req_cnt ?
					j->tres_req_cnt[t] : 0;
				if (j->tres_alloc_cnt &&
				    (j->tres_alloc_cnt[t] != NO_CONSUME_VAL64))
					v = j->tres_alloc_cnt[t];
				if (v && j->part_ptr->tres_cnt[t] &&
				    (!p->tres_cnt || !p->tres_cnt[t]))
					n++;
			}
		list_iterator_destroy(pit);
	}
	list_iterator_destroy(it);
	return n;
}

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
		for (int t = 0; t < g_tres_count && t < 8; t++) {
			r->a[i].run_secs[t] = a->usage->grp_used_tres_run_secs[t];
			r->a[i].tres_raw[t] = a->usage->usage_tres_raw[t];
		}
		i++;
	}
	list_iterator_destroy(it);

	for (int q = 0; q < MAX_QOS; q++) {
		r->q[q].usage_raw = g_qos[q]->usage->usage_raw;
		r->q[q].grp_used_wall = g_qos[q]->usage->grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++) {
			r->q[q].run_secs[t] = g_qos[q]->usage->grp_used_tres_run_secs[t];
			r->q[q].tres_raw[t] = g_qos[q]->usage->usage_tres_raw[t];
		}
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

/*
 * After the period: priority_p_set of every pending job (a submit, one second
 * later), then, in --decay-thread scenarios, priority_p_job_end of every running
 * job 100 s after the period, and the usage it charged.  Multifactor charges a
 * job end from the time its thread recorded, which only its thread sets: the
 * other modes compare submits only.  Job ends mark the job (end_time_exp), so
 * the marks are undone for the next plugin.
 */
static void _capture_submit_and_end(result_t *r,
				    uint32_t (*set)(uint32_t, job_record_t *),
				    void (*job_end)(job_record_t *),
				    void (*set_assoc_usage)(slurmdb_assoc_rec_t *),
				    time_t now)
{
	time_t frozen = g_frozen_now, *exp;
	job_record_t *j;
	ListIterator it;
	int i = 0;

	r->set_prio = xcalloc(r->nj + 1, sizeof(*r->set_prio));
	exp = xcalloc(r->nj + 1, sizeof(*exp));
	g_frozen_now = now + 1;
	it = list_iterator_create(job_list);
	while ((j = list_next(it)) && (i < r->nj)) {
		exp[i] = j->end_time_exp;
		if (IS_JOB_PENDING(j) && j->priority)
			r->set_prio[i] = set(1, j);
		i++;
	}
	list_iterator_destroy(it);
	if (g_thread_mode) {
		result_t after = { 0 };

		g_frozen_now = now + 100;
		it = list_iterator_create(job_list);
		while ((j = list_next(it)))
			if (IS_JOB_RUNNING(j))
				job_end(j);
		list_iterator_destroy(it);
		_capture(&after, set_assoc_usage);
		r->a_end = after.a;
		memcpy(r->q_end, after.q, sizeof(r->q_end));
		xfree(after.j);
	}
	i = 0;
	it = list_iterator_create(job_list);
	while ((j = list_next(it)) && (i < r->nj))
		j->end_time_exp = exp[i++];
	list_iterator_destroy(it);
	xfree(exp);
	g_frozen_now = frozen;
}

/* Usage before the first plugin ran, restored for the second. */
static result_t g_before;

static void _reset_jobs(void);

/* Forget every computed value so the second plugin starts from the same
 * state as the first. */
static void _reset_state(void)
{
	slurmdb_assoc_rec_t *a;
	ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
	int i = 0;

	for (int q = 0; q < MAX_QOS; q++) {
		g_qos[q]->usage->usage_raw = g_before.q[q].usage_raw;
		g_qos[q]->usage->grp_used_wall = g_before.q[q].grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++) {
			g_qos[q]->usage->grp_used_tres_run_secs[t] =
				g_before.q[q].run_secs[t];
			g_qos[q]->usage->usage_tres_raw[t] =
				g_before.q[q].tres_raw[t];
		}
	}
	while ((a = list_next(it))) {
		a->usage->usage_raw = g_before.a[i].usage_raw;
		a->usage->grp_used_wall = g_before.a[i].grp_used_wall;
		for (int t = 0; t < g_tres_count && t < 8; t++) {
			a->usage->grp_used_tres_run_secs[t] =
				g_before.a[i].run_secs[t];
			a->usage->usage_tres_raw[t] = g_before.a[i].tres_raw[t];
		}
		i++;
		a->usage->usage_norm = (long double) NO_VAL;
		a->usage->usage_efctv = 0;
		a->usage->level_fs = 0;
		a->usage->fs_factor = 0;
	}
	list_iterator_destroy(it);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	_reset_jobs();
}

/* Forget every job's computed priority and factors. */
static void _reset_jobs(void)
{
	job_record_t *j;
	ListIterator it = list_iterator_create(job_list);

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

static int _cmp_ld(const void *a, const void *b)
{
	long double x = *(const long double *) a, y = *(const long double *) b;
	return (x > y) - (x < y);
}

/*
 * Fair Tree ranks siblings by level_fs and ties them only when the two long
 * doubles are exactly equal, as Slurm does; Fairway reproduces that bit for
 * bit (doc/differences.md).  When fs_factor differs, say separately whether
 * multifactor's level_fs values hold a "near tie" (two values equal up to
 * rounding, 1e-12 relative, but not equal): a rank difference there would come
 * from arithmetic that is not bit-identical, not from a wrong tie rule.  It
 * still counts as a mismatch.
 */
static void _report_near_ties(const result_t *mf)
{
	long double *v = xcalloc(mf->na + 1, sizeof(*v));
	int n = 0, near = 0;

	for (int i = 0; i < mf->na; i++)
		if (isfinite(mf->a[i].level_fs) && (mf->a[i].level_fs > 0))
			v[n++] = mf->a[i].level_fs;
	qsort(v, n, sizeof(*v), _cmp_ld);
	for (int i = 1; i < n; i++)
		if ((v[i] != v[i - 1]) &&
		    (v[i] - v[i - 1] <= 1e-12L * v[i]))
			near++;
	if (near)
		printf("NEAR-TIE %s: fs_factor differs, and %d pairs of level_fs values are equal up to rounding but not exactly (Slurm does not tie them): if the differing ranks are among these, Fairway's arithmetic is not bit-identical to Slurm's there (a mismatch all the same)\n",
		       g_scenario, near);
	xfree(v);
}

/* Every field of two priority_factors objects (a job's, or a row of sprio's),
 * with their TRES factors. */
static void _cmp_factors(const char *what, int i,
			 const priority_factors_object_t *a, const double *ta,
			 const priority_factors_object_t *b, const double *tb)
{
	CMP(what, i, "age", a->priority_age, b->priority_age);
	CMP(what, i, "assoc", a->priority_assoc, b->priority_assoc);
	CMP(what, i, "fs", a->priority_fs, b->priority_fs);
	CMP(what, i, "js", a->priority_js, b->priority_js);
	CMP(what, i, "part", a->priority_part, b->priority_part);
	CMP(what, i, "qos", a->priority_qos, b->priority_qos);
	CMPI(what, i, "site", a->priority_site, b->priority_site);
	CMPI(what, i, "nice", a->nice, b->nice);
	CMPI(what, i, "tres_cnt", a->tres_cnt, b->tres_cnt);
	for (int t = 0; t < slurmctld_tres_cnt && t < 8; t++)
		CMP(what, i, "tres", ta[t], tb[t]);
}

static void _compare(const result_t *mf, const result_t *fw)
{
	bool fs_differs = false;

	for (int i = 0; i < mf->na; i++)
		if (!_same(mf->a[i].fs_factor, fw->a[i].fs_factor))
			fs_differs = true;
	if (fs_differs)
		_report_near_ties(mf);
	for (int i = 0; i < mf->na; i++) {
		CMP("assoc", i, "shares_norm", mf->a[i].shares_norm, fw->a[i].shares_norm);
		CMP("assoc", i, "usage_norm", mf->a[i].usage_norm, fw->a[i].usage_norm);
		CMP("assoc", i, "usage_efctv", mf->a[i].usage_efctv, fw->a[i].usage_efctv);
		CMP("assoc", i, "level_fs", mf->a[i].level_fs, fw->a[i].level_fs);
		CMP("assoc", i, "fs_factor", mf->a[i].fs_factor, fw->a[i].fs_factor);
		CMP("assoc", i, "usage_raw", mf->a[i].usage_raw, fw->a[i].usage_raw);
		CMP("assoc", i, "grp_used_wall", mf->a[i].grp_used_wall, fw->a[i].grp_used_wall);
		for (int t = 0; t < 8; t++) {
			CMPI("assoc", i, "grp_used_tres_run_secs", mf->a[i].run_secs[t],
			     fw->a[i].run_secs[t]);
			CMP("assoc", i, "usage_tres_raw", mf->a[i].tres_raw[t],
			    fw->a[i].tres_raw[t]);
		}
	}
	for (int q = 0; q < MAX_QOS; q++) {
		CMP("qos", q, "usage_raw", mf->q[q].usage_raw, fw->q[q].usage_raw);
		CMP("qos", q, "grp_used_wall", mf->q[q].grp_used_wall, fw->q[q].grp_used_wall);
		for (int t = 0; t < 8; t++) {
			CMPI("qos", q, "grp_used_tres_run_secs", mf->q[q].run_secs[t],
			     fw->q[q].run_secs[t]);
			CMP("qos", q, "usage_tres_raw", mf->q[q].tres_raw[t],
			    fw->q[q].tres_raw[t]);
		}
	}
	for (int i = 0; i < mf->nj; i++) {
		const job_out_t *a = &mf->j[i], *b = &fw->j[i];
		CMPI("job", i, "priority", a->priority, b->priority);
		for (int p = 0; p <= MAX_PARTS; p++)
			CMPI("job", i, "priority_array", a->prio_array[p], b->prio_array[p]);
		CMPI("job", i, "has_factors", a->has_factors, b->has_factors);
		if (a->has_factors && b->has_factors)
			_cmp_factors("job", i, &a->f, a->tres, &b->f, b->tres);
	}
	for (int i = 0; i < mf->nj; i++)
		CMPI("job", i, "priority_p_set", mf->set_prio[i], fw->set_prio[i]);
	for (int i = 0; mf->a_end && fw->a_end && (i < mf->na); i++) {
		CMP("assoc after job ends", i, "usage_raw", mf->a_end[i].usage_raw,
		    fw->a_end[i].usage_raw);
		CMP("assoc after job ends", i, "grp_used_wall",
		    mf->a_end[i].grp_used_wall, fw->a_end[i].grp_used_wall);
		for (int t = 0; t < 8; t++) {
			CMPI("assoc after job ends", i, "grp_used_tres_run_secs",
			     mf->a_end[i].run_secs[t], fw->a_end[i].run_secs[t]);
			CMP("assoc after job ends", i, "usage_tres_raw",
			    mf->a_end[i].tres_raw[t], fw->a_end[i].tres_raw[t]);
		}
	}
	for (int q = 0; mf->a_end && fw->a_end && (q < MAX_QOS); q++) {
		CMP("qos after job ends", q, "usage_raw", mf->q_end[q].usage_raw,
		    fw->q_end[q].usage_raw);
		for (int t = 0; t < 8; t++)
			CMPI("qos after job ends", q, "grp_used_tres_run_secs",
			     mf->q_end[q].run_secs[t], fw->q_end[q].run_secs[t]);
	}
	CMPI("sprio", 0, "rows", mf->nrows, fw->nrows);
	for (int i = 0; i < mf->nrows && i < fw->nrows; i++) {
		const sprio_row_t *a = &mf->rows[i], *b = &fw->rows[i];
		CMPI("sprio row", i, "job_id", a->job_id, b->job_id);
		CMPI("sprio row", i, "user_id", a->user_id, b->user_id);
		CMPI("sprio row", i, "direct_prio", a->direct_prio, b->direct_prio);
		CMPI("sprio row", i, "partition", strcmp(a->partition, b->partition), 0);
		_cmp_factors("sprio row", i, &a->f, a->tres, &b->f, b->tres);
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
	void (*job_end)(job_record_t *);
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
	p->job_end = dlsym(p->handle, "priority_p_job_end");
	if (!p->init || !p->fini || !p->reconfig || !p->set ||
	    !p->set_assoc_usage || !p->factors || !p->recalc || !p->cycle ||
	    !p->job_end)
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
static void _write_state_file(time_t last_ran, time_t last_reset)
{
	char *path = xstrdup_printf("%s/priority_last_decay_ran", g_state_dir);
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

static void _write_last_ran(time_t last_ran)
{
	_write_state_file(last_ran, 0);
}

/* Wait until a plugin's calculation thread has finished its period at `when`:
 * both plugins write the state file last.  False after 30 seconds. */
static bool _wait_period(time_t when)
{
	char *path = xstrdup_printf("%s/priority_last_decay_ran", g_state_dir);
	bool done = false;

	for (int i = 0; (i < 30000) && !done; i++) {
		unsigned char b[8];
		FILE *f = fopen(path, "r");
		uint64_t v = 0;

		if (f && (fread(b, 1, 8, f) == 8)) {
			for (int k = 0; k < 8; k++)
				v = (v << 8) | b[k];
			done = ((time_t) v == when);
		}
		if (f)
			fclose(f);
		if (!done)
			usleep(1000);
	}
	xfree(path);
	return done;
}

/* Every association's normalized shares as assoc_mgr sets them when it loads
 * them under slurm_conf's PriorityFlags (Fairshare=parent after the others). */
static void _normalize_all_shares(void)
{
	for (int pass = 0; pass < 2; pass++) {
		slurmdb_assoc_rec_t *a;
		ListIterator it = list_iterator_create(assoc_mgr_assoc_list);

		while ((a = list_next(it)))
			if ((a->shares_raw == SLURMDB_FS_USE_PARENT) ==
			    (pass == 1))
				assoc_mgr_normalize_assoc_shares(a);
		list_iterator_destroy(it);
	}
}

/*
 * --reconfig-switch: priority/fairway as in a controller started with the
 * other fair-share algorithm (associations normalized for it), one
 * calculation, then slurm.conf's flags changed and the plugin told, as
 * `scontrol reconfigure` does.  Its next period must give what multifactor
 * gave from a fresh start with the scenario's flags.
 */
static void _load_fairway_switched(fw_plugin_t *fw, time_t now)
{
	uint16_t want = slurm_conf.priority_flags, other;

	if (want & PRIORITY_FLAGS_FAIR_TREE)
		other = (want & ~PRIORITY_FLAGS_FAIR_TREE) |
			(_chance(50) ? PRIORITY_FLAGS_DEPTH_OBLIVIOUS : 0);
	else
		other = (want & ~PRIORITY_FLAGS_DEPTH_OBLIVIOUS) |
			PRIORITY_FLAGS_FAIR_TREE;
	slurm_conf.priority_flags = other;
	_normalize_all_shares();
	cluster_cpus = NO_VAL;
	_load_fairway(fw);
	if (fw->init() != SLURM_SUCCESS)
		fatal("fairway init failed");
	cluster_cpus = 64;
	fw->reconfig(false);
	if (fw->recalc(now - 600) != SLURM_SUCCESS)
		printf("NOTE %s: priority/fairway reported an error before the switch\n",
		       g_scenario);
	/* The jobs as multifactor found them.  Depth-oblivious reads the
	 * usage values the last period stored, which a restarted controller
	 * does not have: forget them too (as _reset_state does), keeping what
	 * the switch must mend (shares, Level FS, fair-share factor). */
	_reset_jobs();
	{
		slurmdb_assoc_rec_t *a;
		ListIterator it = list_iterator_create(assoc_mgr_assoc_list);

		while ((a = list_next(it))) {
			a->usage->usage_norm = (long double) NO_VAL;
			a->usage->usage_efctv = 0;
		}
		list_iterator_destroy(it);
		assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	}
	slurm_conf.priority_flags = want;
	fw->reconfig(false);
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

	/* A switch is seen by the period (classic leaves users' shares to
	 * the switch), not by a recalculation (it writes every association). */
	g_use_recalc = !g_thread_mode && !g_switch_mode && ((seed % 4) == 0);
	_setup_world(s, seed, now, "fw_diff");
	classic = !(slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE);
	/* TRES run seconds are released only when limits are enforced. */
	if (g_thread_mode)
		accounting_enforce = g_enforce_limits ?
			ACCOUNTING_ENFORCE_LIMITS : 0;
	else
		accounting_enforce = _chance(50) ? ACCOUNTING_ENFORCE_LIMITS : 0;
	{
		slurmdb_assoc_rec_t *a;
		ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)))
			for (int t = 0; t < g_tres_count; t++) {
				a->usage->grp_used_tres_run_secs[t] =
					_pick(1u << 30);
				/* TRES usage of earlier periods (decayed
				 * and reset like usage_raw) */
				a->usage->usage_tres_raw[t] =
					a->usage->usage_raw * (t + 1) / 4;
			}
		list_iterator_destroy(it);
	}
	_capture(&g_before, _no_materialize);

	if (g_thread_mode) {
		/* As slurmctld starts it: multifactor's decay thread reads the
		 * state file and runs a whole period (reset, decay, accrual,
		 * fair-share, every job) at the frozen `now`. */
		g_frozen_now = now;
		_write_state_file(now - g_since_last_ran,
				  g_last_reset_ago ? now - g_last_reset_ago : 0);
		cluster_cpus = 64;
		if (priority_g_init() != SLURM_SUCCESS)
			fatal("cannot load priority/multifactor");
		if (!_wait_period(now))
			fatal("multifactor's decay thread ran no period");
	} else {
	/* multifactor, through Slurm's loader, outside slurmctld (no thread),
	 * then set up as slurmctld would (cluster_cpus, reconfig). */
	if (priority_g_init() != SLURM_SUCCESS)
		fatal("cannot load priority/multifactor");
	cluster_cpus = 64;
	priority_g_reconfig(false);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	}
	mf = _mf_handle();
	mf_fair_tree_decay = dlsym(mf, "fair_tree_decay");
	mf_weigh = dlsym(mf, "decay_apply_weighted_factors");
	mf_charge = dlsym(mf, "decay_apply_new_usage");
	mf_set_assoc_usage = dlsym(mf, "priority_p_set_assoc_usage");
	if (!mf_fair_tree_decay || !mf_weigh || !mf_charge || !mf_set_assoc_usage)
		fatal("multifactor lacks fair_tree_decay/decay_apply_weighted_factors");

	if (g_thread_mode) {
		/* the period ran in multifactor's thread */
	} else if (classic) {
		_mf_classic_children(assoc_mgr_root_assoc->usage->children_list,
				     mf_set_assoc_usage);
		list_for_each(job_list, _mf_charge_and_weigh, &now);
	} else {
		mf_fair_tree_decay(job_list, now);
	}
	_capture(&r_mf, mf_set_assoc_usage);
	_capture_sprio(&r_mf, priority_g_get_priority_factors_list);
	_capture_submit_and_end(&r_mf, priority_g_set, priority_g_job_end,
				mf_set_assoc_usage, now);
	if (g_thread_mode) {	/* stop multifactor's thread */
		priority_g_fini();
		_remove_state_files();
	}
	_reset_state();

	if (g_thread_mode) {
		/* priority/fairway as slurmctld starts it, from the same
		 * state file: its own thread runs the period. */
		_write_state_file(now - g_since_last_ran,
				  g_last_reset_ago ? now - g_last_reset_ago : 0);
		cluster_cpus = 64;
		_load_fairway(&fw);
		if (fw.init() != SLURM_SUCCESS)
			fatal("fairway init failed");
		if (!_wait_period(now))
			fatal("Fairway's calculation thread ran no period");
	} else {
	/* priority/fairway, the same way. */
	if (g_switch_mode) {
		_load_fairway_switched(&fw, now);
	} else {
		cluster_cpus = NO_VAL;
		_load_fairway(&fw);
		if (fw.init() != SLURM_SUCCESS)
			fatal("fairway init failed");
		cluster_cpus = 64;
		fw.reconfig(false);
	}
	_write_last_ran(now - 50000);
	if ((g_use_recalc ? fw.recalc(now) : fw.cycle(now)) != SLURM_SUCCESS)
		printf("NOTE %s: priority/fairway reported an error\n",
		       g_scenario);
	}
	_capture(&r_fw, fw.set_assoc_usage);
	_capture_sprio(&r_fw, fw.factors);
	_capture_submit_and_end(&r_fw, fw.set, fw.job_end, fw.set_assoc_usage,
				now);
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
	if (!g_thread_mode)
		priority_g_fini();
	xfree(r_mf.a);
	xfree(r_mf.j);
	xfree(r_mf.rows);
	xfree(r_mf.set_prio);
	xfree(r_mf.a_end);
	xfree(r_fw.set_prio);
	xfree(r_fw.a_end);
	xfree(r_fw.a);
	xfree(r_fw.j);
	xfree(r_fw.rows);
	xfree(g_before.a);
	xfree(g_before.j);
	unlink(g_conf_path);
	_remove_state_files();
	rmdir(g_state_dir);
	/* bit 0: a mismatch; bit 1: sprio rows that keep a TRES factor */
	return (g_mismatches ? 1 : 0) | (_tres_kept_rows() ? 2 : 0);
}

/* --decay-thread: what the calculation threads find, drawn from the
 * scenario's generator after its tree (reproducible from the seed). */
static void _gen_thread_params(scenario_t *s)
{
	static const char *hl[] = { "0", "60", "1-0", "7-0", "90-0" };
	static const char *reset[] = { "NONE", "NOW", "DAILY", "WEEKLY",
				       "MONTHLY", "QUARTERLY", "YEARLY" };
	size_t len = strlen(s->name);

	g_decay_hl = hl[_pick(5)];
	g_reset_period = reset[_pick(7)];
	g_enforce_limits = _chance(50);
	g_since_last_ran = 1 + _pick(_chance(20) ? 300 : 100000);
	/* 0: never reset (the thread counts from its start); else up to 400
	 * days ago, so that every period's reset is sometimes due. */
	g_last_reset_ago = _chance(20) ? 0 : 1 + _pick(400 * 86400);
	snprintf(s->name + len, sizeof(s->name) - len,
		 " [thread: hl %s, reset %s, %lds since last]", g_decay_hl,
		 g_reset_period, (long) g_since_last_ran);
}

/* Scenarios whose sprio rows reached a partition lacking a TRES count. */
static int g_kept_tres_scenarios;

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
	if (WIFEXITED(status) && (WEXITSTATUS(status) <= 3)) {
		if (WEXITSTATUS(status) & 2)
			g_kept_tres_scenarios++;
		return WEXITSTATUS(status) & 1;
	}
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

/* Jobs a period weighed (they carry prio_factors): the two plugins must have
 * weighed the same jobs for their times to be compared. */
static int _count_weighed(void)
{
	job_record_t *j;
	ListIterator it = list_iterator_create(job_list);
	int n = 0;

	while ((j = list_next(it)))
		if (j->prio_factors)
			n++;
	list_iterator_destroy(it);
	return n;
}

/* Bytes allocated with malloc: in the arenas and in chunks glibc serves with
 * mmap (large arrays, e.g. per-association vectors, go there). */
static size_t _heap(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
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

/*
 * The same floor at its best on this machine: one walk over job_list only to
 * collect the job pointers, then the minimal per-job work in two threads
 * (this machine's cores) over the two halves, each asking for the lines
 * ahead of use (software prefetch).  An exact pass cannot do less: Slurm
 * changes these fields without telling the priority plugin, so each period
 * must read them and write every pending job's priority.
 */
static job_record_t **g_floor_jobs;
static int g_floor_n;
struct floor_part {
	int begin, end;
	time_t now;
};

static void *_floor_range(void *arg)
{
	struct floor_part *r = arg;

	for (int i = r->begin; i < r->end; i++) {
		job_record_t *j = g_floor_jobs[i];
		double p;

		if (i + 12 < r->end) {
			__builtin_prefetch(&g_floor_jobs[i + 12]->job_state);
			__builtin_prefetch(&g_floor_jobs[i + 12]->priority);
			__builtin_prefetch(&g_floor_jobs[i + 12]->details);
		}
		if ((i + 6 < r->end) && g_floor_jobs[i + 6]->details)
			__builtin_prefetch(&g_floor_jobs[i + 6]->details->accrue_time);
		if (!IS_JOB_PENDING(j) || !j->priority || !j->details)
			continue;
		p = (double) (r->now - j->details->accrue_time);
		if (j->part_ptr)
			p += j->part_ptr->norm_priority;
		p += j->assoc_id;	/* the fair-share factor from a table */
		j->priority = 1 + ((uint32_t) p & 0xffff);
	}
	return NULL;
}

static int _floor_collect(void *x, void *arg)
{
	g_floor_jobs[g_floor_n++] = x;
	return 0;
}

static void _time_floor_parallel(time_t now, double *walk_ns, double *work_ns)
{
	struct timespec a, b, c;
	double tw[5], tk[5];
	int n = list_count(job_list);

	g_floor_jobs = xcalloc(n + 1, sizeof(*g_floor_jobs));
	for (int r = 0; r < 5; r++) {
		struct floor_part lo, hi;
		pthread_t t;

		g_floor_n = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		list_for_each(job_list, _floor_collect, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		lo = (struct floor_part) { 0, g_floor_n / 2, now };
		hi = (struct floor_part) { g_floor_n / 2, g_floor_n, now };
		pthread_create(&t, NULL, _floor_range, &hi);
		_floor_range(&lo);
		pthread_join(t, NULL);
		clock_gettime(CLOCK_MONOTONIC, &c);
		tw[r] = _ns(a, b) / n;
		tk[r] = _ns(b, c) / n;
	}
	xfree(g_floor_jobs);
	*walk_ns = _median(tw, 5);
	*work_ns = _median(tk, 5);
}

/* ns per priority_p_set call over every job */
static volatile uint64_t g_set_sink;

static double _time_set(uint32_t (*set)(uint32_t, job_record_t *))
{
	struct timespec a, b;
	job_record_t *j;
	ListIterator it = list_iterator_create(job_list);
	int n = 0;

	/* The priorities set() returns are not kept: held jobs must stay held
	 * (priority 0) for the plugin measured next, or it would weigh more
	 * jobs than the one measured first. */
	clock_gettime(CLOCK_MONOTONIC, &a);
	while ((j = list_next(it))) {
		g_set_sink += set(0, j);
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
	int mf_weighed = -1, fw_weighed;
	double extra;
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
	mf = _mf_handle();
	if (!(g_mf_ftd = dlsym(mf, "fair_tree_decay")))
		fatal("multifactor's fair_tree_decay not found");
	h0 = _heap();
	if (getenv("FW_BENCH_ONLY_FAIRWAY")) {	/* for profiling fairway alone */
		mf_ms = mf_lock = mf_set = 1;
		h_mf = h0;
	} else {
		_time_period(_mf_period, now, reps, &mf_ms, &mf_lock);
		h_mf = _heap();
		mf_weighed = _count_weighed();
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
	fw_weighed = _count_weighed();
	if (getenv("FW_BENCH_SPLIT")) {
		double r_ms, r_lock;
		_time_period(_fw_recalc_only, now + 100, reps, &r_ms, &r_lock);
		printf("# fairway recalc only (no accrual): %.2f ms, job lock %.2f ms\n",
		       r_ms, r_lock);
	}
	/* priority_p_set at submit: both plugins in turn, BENCH_REPS times,
	 * medians (alternating, so that both see the same machine). */
	{
		double t_mf[64], t_fw[64];
		/* FW_BENCH_PERIODS_ONLY: no priority_p_set timing (profiling
		 * the periods alone) */
		int n = getenv("FW_BENCH_PERIODS_ONLY") ? 1 :
			((reps < 64) ? reps : 64);

		for (int r = 0; r < n; r++) {
			if (getenv("FW_BENCH_PERIODS_ONLY")) {
				t_mf[r] = t_fw[r] = 1;
				continue;
			}
			t_mf[r] = getenv("FW_BENCH_ONLY_FAIRWAY") ?
				1 : _time_set(priority_g_set);
			t_fw[r] = _time_set(fw.set);
		}
		mf_set = _median(t_mf, n);
		fw_set = _median(t_fw, n);
	}
	if (getenv("FW_BENCH_HEAP"))
		printf("# heap kept by the periods: multifactor %+.0f B, fairway %+.0f B\n",
		       (double) h_mf - h0, (double) h_fw - h1);
	if ((mf_weighed >= 0) && (mf_weighed != fw_weighed)) {
		printf("FAIL: multifactor weighed %d jobs, fairway %d: not the same work\n",
		       mf_weighed, fw_weighed);
		return 1;
	}
	fw.fini();
	printf("# memory floor of an exact pass (read state, priority, accrue time, fs factor, partition; write priority): %.0f ns/job\n",
	       _time_floor(now));
	getenv_full = 1;
	printf("# same, reading every field fairway reads and writing prio_factors: %.0f ns/job\n",
	       _time_floor(now));
	{
		double walk, work;
		_time_floor_parallel(now, &walk, &work);
		printf("# floor at its best (one walk collecting the jobs, then the minimal pass in two threads with prefetch): %.0f + %.0f = %.0f ns/job; 10x multifactor needs %.0f\n",
		       walk, work, walk + work,
		       getenv("FW_BENCH_ONLY_FAIRWAY") ? 0 : mf_ms * 1e5 / jobs);
	}

	/* Extra = heap fairway keeps beyond multifactor's after the same
	 * periods on the same jobs.  It is a*assocs + b*jobs with a, b >= 0, so
	 * extra/assocs bounds a and extra/jobs bounds b (each as if all of it
	 * were per association, or per job). */
	extra = (double) h_fw - h1 - ((double) h_mf - h0);
	printf("%8d %9d %8d | %10.2f %10.2f %7.1fx | %7.0f %7.0f | %9.2f %9.2f %7.1fx | %6.0f %6.0f | %7.1f %7.1f\n",
	       s.nassoc, jobs, running, mf_ms, fw_ms, mf_ms / fw_ms,
	       mf_ms * 1e6 / jobs, fw_ms * 1e6 / jobs, mf_lock, fw_lock,
	       mf_lock / fw_lock, mf_set, fw_set, extra / s.nassoc,
	       extra / jobs);
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

/*
 * --soak SECONDS[,ASSOCS,PENDING,RUNNING]: priority/fairway loaded as
 * slurmctld loads it (its calculation thread started, real read/write locks),
 * with another thread running calculation periods back to back and four
 * threads playing slurmctld's RPC and job threads for SECONDS seconds:
 * sprio-style queries (by job ids, user, partition, all), submits
 * (priority_p_set), job ends (priority_p_job_end) and starts, reconfigures
 * (with and without slurmctld's locks, the dampening factor changed), and
 * associations added and removed through assoc_mgr with jobs pending and
 * running under them (removal handled as slurmctld does: the jobs lose their
 * association).  The main thread purges finished jobs every second, as
 * slurmctld's background thread does, and samples the heap and RSS.
 *
 * Checks: no crash (and, under ThreadSanitizer, no report), no calculation
 * error, the heap in use flat from the first quarter to the end (within
 * 5% + 8 MB: the job count moves a little), every pending job's priority in
 * [1, 2^32-1] unless held (0) or set by an administrator, no NaN in any
 * association.  Prints per-operation latency (p50, p99, max) and the figures.
 */
#define SOAK_WORKERS 4
#define SOAK_LAG 100		/* submitted jobs waiting before one starts */
#define SOAK_MAX_ADDED 32	/* associations added and not yet removed */

enum {
	OP_Q_JOBS, OP_Q_USER, OP_Q_PART, OP_Q_ALL, OP_SUBMIT, OP_TURNOVER,
	OP_RECONFIG, OP_ASSOC_ADD, OP_ASSOC_DEL, OP_PURGE, OP_PERIOD, SOAK_OPS
};
static const char *g_op_name[SOAK_OPS] = {
	"sprio -j (5 jobs)", "sprio -u (1 user)", "sprio -p (1 partition)",
	"sprio (all)", "submit (priority_p_set)",
	"job end + start (priority_p_job_end)", "reconfigure",
	"association added", "association removed", "purge finished jobs",
	"calculation period"
};

typedef struct {
	double *v;
	size_t n, cap;
	double sum;
} lat_t;

static void _lat_add(lat_t *l, double ms)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = xrealloc(l->v, l->cap * sizeof(double));
	}
	l->v[l->n++] = ms;
	l->sum += ms;
}

static double _now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

typedef struct {
	sc_assoc_t sc;
	slurmdb_assoc_rec_t *rec;
} added_assoc_t;

/* Shared by the soak threads; everything below is under the job write lock
 * except what is marked atomic. */
static struct {
	fw_plugin_t fw;
	scenario_t *s;
	int *users, nusers;
	job_record_t **running;
	size_t nrun, caprun;
	job_record_t **queue;	/* ring of submitted pending jobs */
	size_t qhead, qlen, qcap;
	uint32_t next_job_id;	/* atomic */
	added_assoc_t added[SOAK_MAX_ADDED];
	int nadded;
	uint32_t next_assoc_id;	/* only the association thread */
	double deadline;	/* read-only while the threads run */
	int stop;		/* atomic */
	long cycle_errors;	/* atomic */
	long held_by_removal;	/* jobs that lost their association */
	bool no_reconfig, no_assoc, no_assoc_del; /* FW_SOAK_SKIP=reconfig,assoc,del */
} g_soak;

static slurmctld_lock_t g_soak_job_write = { READ_LOCK, WRITE_LOCK, WRITE_LOCK,
					     READ_LOCK, READ_LOCK };

static void _free_job(job_record_t *j)
{
	if (j->prio_factors) {
		xfree(j->prio_factors->priority_tres);
		xfree(j->prio_factors->tres_weights);
		xfree(j->prio_factors);
	}
	xfree(j->priority_array);
	xfree(j->details);
	xfree(j->tres_req_cnt);
	xfree(j->tres_alloc_cnt);
	xfree(j->account);
	xfree(j->comment);
	xfree(j->partition);
	FREE_NULL_LIST(j->part_ptr_list);
	xfree(j);
}

static void _soak_push_running(job_record_t *j)
{
	if (g_soak.nrun == g_soak.caprun) {
		g_soak.caprun = g_soak.caprun ? 2 * g_soak.caprun : 1024;
		g_soak.running = xrealloc(g_soak.running,
					  g_soak.caprun * sizeof(*g_soak.running));
	}
	g_soak.running[g_soak.nrun++] = j;
}

static void _soak_queue_push(job_record_t *j)
{
	if (g_soak.qlen == g_soak.qcap) {	/* grow, keeping the order */
		size_t cap = g_soak.qcap ? 2 * g_soak.qcap : 1024;
		job_record_t **q = xcalloc(cap, sizeof(*q));
		for (size_t i = 0; i < g_soak.qlen; i++)
			q[i] = g_soak.queue[(g_soak.qhead + i) % g_soak.qcap];
		xfree(g_soak.queue);
		g_soak.queue = q;
		g_soak.qcap = cap;
		g_soak.qhead = 0;
	}
	g_soak.queue[(g_soak.qhead + g_soak.qlen++) % g_soak.qcap] = j;
}

static job_record_t *_soak_queue_pop(void)
{
	job_record_t *j;

	if (!g_soak.qlen)
		return NULL;
	j = g_soak.queue[g_soak.qhead];
	g_soak.qhead = (g_soak.qhead + 1) % g_soak.qcap;
	g_soak.qlen--;
	return j;
}

/* slurmctld's acct_policy_job_begin(): a starting job reserves its TRES for
 * its whole time limit in grp_used_tres_run_secs of its QOS and associations
 * (the plugin releases them as the job runs). */
static void _reserve_run_secs_locked(job_record_t *j)
{
	uint64_t secs = (uint64_t) j->time_limit * 60;

	/* The QOS UsageFactor scales it (truncated, as Slurm does). */
	if (j->qos_ptr && (j->qos_ptr->usage_factor >= 0))
		secs *= j->qos_ptr->usage_factor;
	for (int t = 0; t < slurmctld_tres_cnt; t++) {
		uint64_t v = j->tres_alloc_cnt[t] * secs;

		if ((t == TRES_ARRAY_ENERGY) ||
		    (j->tres_alloc_cnt[t] == NO_CONSUME_VAL64))
			continue;
		if (j->qos_ptr)
			j->qos_ptr->usage->grp_used_tres_run_secs[t] += v;
		for (slurmdb_assoc_rec_t *a = j->assoc_ptr; a && a->usage;
		     a = a->usage->parent_assoc_ptr)
			a->usage->grp_used_tres_run_secs[t] += v;
	}
}

static void _reserve_run_secs(job_record_t *j)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };

	assoc_mgr_lock(&locks);
	_reserve_run_secs_locked(j);
	assoc_mgr_unlock(&locks);
}

/* A reconfigure's _restore_job_accounting(): slurmctld clears the TRES run
 * seconds and reserves every running job's whole time limit again (then
 * calls priority_g_reconfig(true), which releases what was used). */
static void _restore_job_accounting(void)
{
	slurmctld_lock_t locks = { WRITE_LOCK, WRITE_LOCK, WRITE_LOCK,
				   WRITE_LOCK, READ_LOCK };
	assoc_mgr_lock_t alocks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *a;
	ListIterator it;
	job_record_t *j;

	lock_slurmctld(locks);
	assoc_mgr_lock(&alocks);
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it)))
		memset(a->usage->grp_used_tres_run_secs, 0,
		       sizeof(uint64_t) * g_tres_count);
	list_iterator_destroy(it);
	for (int q = 0; q < MAX_QOS; q++)
		memset(g_qos[q]->usage->grp_used_tres_run_secs, 0,
		       sizeof(uint64_t) * g_tres_count);
	it = list_iterator_create(job_list);
	while ((j = list_next(it)))
		if (IS_JOB_RUNNING(j) && j->tres_alloc_cnt)
			_reserve_run_secs_locked(j);
	list_iterator_destroy(it);
	assoc_mgr_unlock(&alocks);
	unlock_slurmctld(locks);
}

/* A job ends (or a pending one is cancelled): slurmctld calls the plugin
 * under the job write lock; the record stays until the purge. */
static void _soak_finish(job_record_t *j, uint32_t state, time_t now)
{
	j->job_state = state;
	j->end_time = now;
	g_soak.fw.job_end(j);
}

static void _op_submit(time_t now)
{
	const sc_assoc_t *sa;
	slurmdb_assoc_rec_t *rec = NULL;
	job_record_t *j;
	uint32_t id;

	lock_slurmctld(g_soak_job_write);
	if (g_soak.nadded && _chance(10)) {
		added_assoc_t *a = &g_soak.added[_pick(g_soak.nadded)];
		sa = &a->sc;
		rec = a->rec;
	} else {
		sa = &g_soak.s->a[g_soak.users[_pick(g_soak.nusers)]];
	}
	id = __atomic_fetch_add(&g_soak.next_job_id, 1, __ATOMIC_RELAXED);
	j = _make_job(id, sa, now);
	if (rec)
		j->assoc_ptr = rec;
	j->details->submit_time = j->details->begin_time = now;
	j->details->accrue_time = now;
	if (j->priority && !j->direct_set_prio)
		j->priority = g_soak.fw.set(0, j);
	list_append(job_list, j);
	_soak_queue_push(j);
	unlock_slurmctld(g_soak_job_write);
}

/* One running job ends; the oldest submitted job (once SOAK_LAG wait) starts,
 * or is cancelled if it cannot run (held, or its association is gone). */
static void _op_turnover(time_t now)
{
	job_record_t *j;

	lock_slurmctld(g_soak_job_write);
	if (g_soak.nrun) {
		size_t r = _pick(g_soak.nrun);
		j = g_soak.running[r];
		g_soak.running[r] = g_soak.running[--g_soak.nrun];
		_soak_finish(j, JOB_COMPLETE, now);
	}
	if ((g_soak.qlen > SOAK_LAG) && (j = _soak_queue_pop())) {
		if (!IS_JOB_PENDING(j))
			;	/* finished already */
		else if (!j->priority || !j->assoc_ptr)
			_soak_finish(j, JOB_CANCELLED, now);
		else {
			/* slurmctld ends a job at its time limit; here jobs
			 * end at random, so give them longer than the soak. */
			if ((j->time_limit == NO_VAL) || (j->time_limit < 60))
				j->time_limit = 60 + _pick(2880);
			_start_job(j, now);
			_reserve_run_secs(j);
			_soak_push_running(j);
		}
	}
	unlock_slurmctld(g_soak_job_write);
}

static bool _is_finished(job_record_t *j)
{
	return IS_JOB_FINISHED(j);
}

/* slurmctld's purge of old jobs: finished records leave job_list. */
static void _op_purge(void)
{
	ListIterator it;
	job_record_t *j;

	lock_slurmctld(g_soak_job_write);
	it = list_iterator_create(job_list);
	while ((j = list_next(it)))
		if (_is_finished(j)) {
			list_remove(it);
			_free_job(j);
		}
	list_iterator_destroy(it);
	unlock_slurmctld(g_soak_job_write);
}

static int _query(int op, uint32_t *count)
{
	priority_factors_request_msg_t req;
	uint32_t hi = __atomic_load_n(&g_soak.next_job_id, __ATOMIC_RELAXED);
	List l;

	memset(&req, 0, sizeof(req));
	if (op == OP_Q_JOBS) {
		req.job_id_list = list_create(xfree_ptr);
		for (int i = 0; i < 5; i++) {
			uint32_t *id = xmalloc(sizeof(*id));
			*id = 100 + _pick(hi - 100);
			list_append(req.job_id_list, id);
		}
	} else if (op == OP_Q_USER) {
		uint32_t *uid = xmalloc(sizeof(*uid));
		*uid = 1000 + _pick(7);
		req.uid_list = list_create(xfree_ptr);
		list_append(req.uid_list, uid);
	} else if (op == OP_Q_PART) {
		req.partitions = xstrdup_printf("p%u", _pick(g_nparts));
	}
	l = g_soak.fw.factors(&req, 0);
	*count = l ? list_count(l) : 0;
	FREE_NULL_LIST(l);
	FREE_NULL_LIST(req.job_id_list);
	FREE_NULL_LIST(req.uid_list);
	xfree(req.partitions);
	return 0;
}

/* As slurmctld: scontrol setfsdampeningfactor (config and job write locks,
 * slurm_conf changed) or a reconfigure's notification (no lock held). */
static void _op_reconfig(void)
{
	slurmctld_lock_t config_write = { WRITE_LOCK, WRITE_LOCK, READ_LOCK,
					  READ_LOCK, READ_LOCK };
	if (_chance(50)) {
		lock_slurmctld(config_write);
		slurm_conf.fs_dampening_factor = 1 + _pick(4);
		g_soak.fw.reconfig(false);
		unlock_slurmctld(config_write);
	} else {
		/* slurmctld serves reconfigure RPCs one at a time
		 * (reconfig_mutex, held until the plugin is notified). */
		static pthread_mutex_t reconfig_mutex = PTHREAD_MUTEX_INITIALIZER;
		pthread_mutex_lock(&reconfig_mutex);
		_restore_job_accounting();
		g_soak.fw.reconfig(true);
		pthread_mutex_unlock(&reconfig_mutex);
	}
}

/* assoc_mgr's notification after it removed an association (outside its
 * locks): slurmctld's job_hold_by_assoc_id(). */
static void _soak_remove_assoc_notify(slurmdb_assoc_rec_t *rec)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	ListIterator it;
	job_record_t *j;

	lock_slurmctld(job_write);
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if (j->assoc_id != rec->id)
			continue;
		if (IS_JOB_PENDING(j) && j->details) {
			j->state_reason = FAIL_ACCOUNT;
			j->details->accrue_time = 0;
			j->details->begin_time = 0;
		}
		if (!IS_JOB_FINISHED(j)) {
			j->assoc_ptr = NULL;
			g_soak.held_by_removal++;
		}
		j->assoc_id = 0;
	}
	list_iterator_destroy(it);
	unlock_slurmctld(job_write);
}

static void _op_assoc_add(void)
{
	assoc_mgr_lock_t read = { .assoc = READ_LOCK };
	slurmdb_update_object_t update;
	slurmdb_assoc_rec_t *a, *found = NULL;
	added_assoc_t n;
	const sc_assoc_t *parent = NULL;
	ListIterator it;

	memset(&n, 0, sizeof(n));
	while (!parent || parent->user[0] || (parent->id == 1))
		parent = &g_soak.s->a[_pick(g_soak.s->nassoc)];
	n.sc.id = g_soak.next_assoc_id++;
	n.sc.parent = parent->id;
	n.sc.shares = 1 + _pick(10);
	snprintf(n.sc.acct, sizeof(n.sc.acct), "%s", parent->acct);
	snprintf(n.sc.user, sizeof(n.sc.user), "soak%u", n.sc.id);

	a = xmalloc(sizeof(*a));
	slurmdb_init_assoc_rec(a, 0);
	a->cluster = xstrdup(slurm_conf.cluster_name);
	a->usage = slurmdb_create_assoc_usage(g_tres_count);
	a->id = n.sc.id;
	a->parent_id = n.sc.parent;
	a->shares_raw = n.sc.shares;
	a->acct = xstrdup(n.sc.acct);
	a->user = xstrdup(n.sc.user);
	a->uid = 5000 + (n.sc.id % 1000);
	memset(&update, 0, sizeof(update));
	update.type = SLURMDB_ADD_ASSOC;
	update.objects = list_create(slurmdb_destroy_assoc_rec);
	list_append(update.objects, a);
	if (assoc_mgr_update_assocs(&update, false))
		fatal("soak: assoc_mgr_update_assocs(add) failed");
	FREE_NULL_LIST(update.objects);

	assoc_mgr_lock(&read);
	it = list_iterator_create(assoc_mgr_assoc_list);
	while (!found && (a = list_next(it)))
		if (a->id == n.sc.id)
			found = a;
	list_iterator_destroy(it);
	assoc_mgr_unlock(&read);
	if (!found)
		fatal("soak: added association %u not in assoc_mgr", n.sc.id);
	n.rec = found;

	lock_slurmctld(g_soak_job_write);
	g_soak.added[g_soak.nadded++] = n;
	unlock_slurmctld(g_soak_job_write);
}

static void _op_assoc_del(void)
{
	slurmdb_update_object_t update;
	slurmdb_assoc_rec_t *a;
	added_assoc_t gone;
	int k;

	/* No new job may use it from here on (submits hold the job lock). */
	lock_slurmctld(g_soak_job_write);
	k = _pick(g_soak.nadded);
	gone = g_soak.added[k];
	g_soak.added[k] = g_soak.added[--g_soak.nadded];
	unlock_slurmctld(g_soak_job_write);

	a = xmalloc(sizeof(*a));
	slurmdb_init_assoc_rec(a, 0);
	a->cluster = xstrdup(slurm_conf.cluster_name);
	a->id = gone.sc.id;
	a->acct = xstrdup(gone.sc.acct);
	a->user = xstrdup(gone.sc.user);
	memset(&update, 0, sizeof(update));
	update.type = SLURMDB_REMOVE_ASSOC;
	update.objects = list_create(slurmdb_destroy_assoc_rec);
	list_append(update.objects, a);
	if (assoc_mgr_update_assocs(&update, false))
		fatal("soak: assoc_mgr_update_assocs(remove) failed");
	FREE_NULL_LIST(update.objects);
}

typedef struct {
	int idx;
	uint64_t seed;
	lat_t lat[SOAK_OPS];
	uint64_t items[SOAK_OPS];
} soak_worker_t;

/* Only worker 0 changes associations (slurmctld applies database updates from
 * one thread too). */
static void *_soak_worker(void *arg)
{
	soak_worker_t *w = arg;

	g_rng = w->seed;
	while (_now_ms() < g_soak.deadline) {
		uint32_t r = _pick(1000), n = 0;
		time_t now = time(NULL);
		double t0 = _now_ms();
		int op;

		if (r < 350)
			op = OP_Q_JOBS;
		else if (r < 400)
			op = OP_Q_USER;
		else if (r < 420)
			op = OP_Q_PART;
		else if (r < 425)
			op = OP_Q_ALL;
		else if (r < 700)
			op = OP_SUBMIT;
		else if (r < 985)
			op = OP_TURNOVER;
		else if (r < 990)
			op = OP_RECONFIG;
		else if (w->idx)
			op = OP_SUBMIT;
		else if ((g_soak.nadded < SOAK_MAX_ADDED) &&
			 (!g_soak.nadded || _chance(55)))
			op = OP_ASSOC_ADD;
		else
			op = OP_ASSOC_DEL;

		if (((op == OP_RECONFIG) && g_soak.no_reconfig) ||
		    (((op == OP_ASSOC_ADD) || (op == OP_ASSOC_DEL)) &&
		     g_soak.no_assoc) ||
		    ((op == OP_ASSOC_DEL) && g_soak.no_assoc_del) ||
		    ((op == OP_ASSOC_ADD) &&
		     (g_soak.nadded >= SOAK_MAX_ADDED)))
			op = OP_SUBMIT;
		switch (op) {
		case OP_SUBMIT: _op_submit(now); break;
		case OP_TURNOVER: _op_turnover(now); break;
		case OP_RECONFIG: _op_reconfig(); break;
		case OP_ASSOC_ADD: _op_assoc_add(); break;
		case OP_ASSOC_DEL: _op_assoc_del(); break;
		default: _query(op, &n); break;
		}
		_lat_add(&w->lat[op], _now_ms() - t0);
		w->items[op] += n;
	}
	return NULL;
}

/* Calculation periods back to back (the plugin's own thread runs too, at
 * PriorityCalcPeriod=1, serialized with these by the plugin). */
static void *_soak_cycler(void *arg)
{
	lat_t *lat = arg;

	while (!__atomic_load_n(&g_soak.stop, __ATOMIC_ACQUIRE)) {
		double t0 = _now_ms();
		if (g_soak.fw.cycle(time(NULL)) != SLURM_SUCCESS)
			__atomic_fetch_add(&g_soak.cycle_errors, 1,
					   __ATOMIC_RELAXED);
		_lat_add(lat, _now_ms() - t0);
	}
	return NULL;
}


static double _pct(lat_t *l, double p)
{
	if (!l->n)
		return 0;
	return l->v[(size_t) ((l->n - 1) * p)];
}

static double _rss_mb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (double) sysconf(_SC_PAGESIZE) / 1048576.0;
}

static int _run_soak(const char *arg)
{
	static scenario_t s;
	static soak_worker_t w[SOAK_WORKERS];
	pthread_t tw[SOAK_WORKERS], tc;
	lat_t cyc = { 0 }, purge = { 0 }, all[SOAK_OPS];
	uint64_t items[SOAK_OPS] = { 0 };
	int secs = 60, assocs = 1000, pending = 10000, running = 500;
	double t_start, heap_q = 0, heap_end, rss_q = 0, rss_end, rss_max = 0;
	size_t checked = 0, held = 0, bad = 0, nassoc = 0;
	time_t now = time(NULL);
	bool heap_known;
	int rc = 0;

	if (!g_plugin_path) {
		fprintf(stderr, "fw_diff: no plugin: pass -p first or set FAIRWAY_PLUGIN\n");
		return 2;
	}
	sscanf(arg, "%d,%d,%d,%d", &secs, &assocs, &pending, &running);
	g_rng = 11;
	g_bench = true;
	g_conf_extra = "PriorityCalcPeriod=1\n"
		"AccountingStorageEnforce=associations,limits\n";
	g_remove_assoc_notify = _soak_remove_assoc_notify;
	_gen_bench(&s, assocs, pending + running, running);
	if (getenv("FW_SOAK_FLAGS"))	/* PriorityFlags, e.g. NO_FAIR_TREE */
		snprintf(s.flags, sizeof(s.flags), "%s", getenv("FW_SOAK_FLAGS"));
	g_scenario = s.name;
	_setup_world(&s, 0, now, "fw_soak");
	accounting_enforce = ACCOUNTING_ENFORCE_LIMITS;
	_write_last_ran(now - 30);

	if (getenv("FW_SOAK_SKIP")) {	/* to tell which operation matters */
		g_soak.no_reconfig = strstr(getenv("FW_SOAK_SKIP"), "reconfig");
		g_soak.no_assoc = strstr(getenv("FW_SOAK_SKIP"), "assoc");
		g_soak.no_assoc_del = strstr(getenv("FW_SOAK_SKIP"), "del");
	}
	g_soak.s = &s;
	g_soak.users = xcalloc(s.nassoc, sizeof(int));
	for (int i = 0; i < s.nassoc; i++)
		if (s.a[i].user[0])
			g_soak.users[g_soak.nusers++] = i;
	g_soak.next_job_id = 100 + s.njobs;
	g_soak.next_assoc_id = 1000000;
	{
		ListIterator it = list_iterator_create(job_list);
		job_record_t *j;
		while ((j = list_next(it)))
			if (IS_JOB_RUNNING(j)) {
				/* Within its time limit, with an hour left. */
				if ((j->time_limit == NO_VAL) ||
				    (j->time_limit < 120))
					j->time_limit = 120 + _pick(2880);
				xfree(j->tres_alloc_cnt);
				_start_job(j, now - 1 -
					   _pick((j->time_limit - 60) * 60));
				_reserve_run_secs(j);
				_soak_push_running(j);
			}
		list_iterator_destroy(it);
	}

	/* As slurmctld: real locks, cluster known, the plugin's thread on. */
	g_real_locks = true;
	_load_fairway(&g_soak.fw);
	cluster_cpus = 64;
	if (g_soak.fw.init() != SLURM_SUCCESS)
		fatal("fairway init failed");

	printf("soak: PriorityFlags=%s\n", s.flags);
	printf("soak: %d associations, %d pending + %d running jobs, %d s: %d threads (sprio queries, submits, job ends/starts, reconfigures, associations added/removed), periods back to back, the plugin's own thread, a purge every second\n",
	       s.nassoc, pending, running, secs, SOAK_WORKERS);
	fflush(stdout);
	t_start = _now_ms();
	g_soak.deadline = t_start + secs * 1000.0;
	pthread_create(&tc, NULL, _soak_cycler, &cyc);
	for (int i = 0; i < SOAK_WORKERS; i++) {
		w[i].idx = i;
		w[i].seed = 0x9E3779B97F4A7C15ULL * (i + 3);
		pthread_create(&tw[i], NULL, _soak_worker, &w[i]);
	}
	while (_now_ms() < g_soak.deadline) {
		double t0, rss;
		usleep(1000000);
		t0 = _now_ms();
		_op_purge();
		_lat_add(&purge, _now_ms() - t0);
		rss = _rss_mb();
		if (rss > rss_max)
			rss_max = rss;
		if (!heap_q && (_now_ms() - t_start >= secs * 250.0)) {
			heap_q = _heap() / 1048576.0;
			rss_q = rss;
		}
	}
	for (int i = 0; i < SOAK_WORKERS; i++)
		pthread_join(tw[i], NULL);
	__atomic_store_n(&g_soak.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tc, NULL);
	_op_purge();
	heap_end = _heap() / 1048576.0;
	rss_end = _rss_mb();
	g_soak.fw.fini();
	g_real_locks = false;

	/* Priorities sane, no NaN in the associations. */
	{
		ListIterator it = list_iterator_create(job_list);
		slurmdb_assoc_rec_t *a;
		job_record_t *j;
		while ((j = list_next(it))) {
			if (!IS_JOB_PENDING(j))
				continue;
			checked++;
			if (!xstrcmp(j->comment, "held")) {
				held++;
				if (j->priority != 0) {
					bad++;
					printf("FAIL: held job %u has priority %u\n",
					       j->job_id, j->priority);
				}
			} else if (j->priority < 1) {
				bad++;
				printf("FAIL: pending job %u has priority 0\n",
				       j->job_id);
			}
		}
		list_iterator_destroy(it);
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it))) {
			nassoc++;
			if (!isfinite((double) a->usage->usage_raw) ||
			    (a->usage->usage_raw < 0) ||
			    isnan(a->usage->fs_factor) ||
			    (a->usage->fs_factor < 0) ||
			    (a->usage->fs_factor > 1)) {
				bad++;
				printf("FAIL: association %u: usage %Lg, fs_factor %g\n",
				       a->id, a->usage->usage_raw,
				       a->usage->fs_factor);
			}
		}
		list_iterator_destroy(it);
	}

	memset(all, 0, sizeof(all));
	for (int i = 0; i < SOAK_WORKERS; i++)
		for (int op = 0; op < SOAK_OPS; op++) {
			for (size_t k = 0; k < w[i].lat[op].n; k++)
				_lat_add(&all[op], w[i].lat[op].v[k]);
			items[op] += w[i].items[op];
		}
	for (size_t k = 0; k < purge.n; k++)
		_lat_add(&all[OP_PURGE], purge.v[k]);
	for (size_t k = 0; k < cyc.n; k++)
		_lat_add(&all[OP_PERIOD], cyc.v[k]);
	printf("  %-38s %8s %10s %10s %10s %10s\n", "operation", "count",
	       "p50 ms", "p99 ms", "max ms", "items/op");
	for (int op = 0; op < SOAK_OPS; op++) {
		lat_t *l = &all[op];
		if (!l->n)
			continue;
		qsort(l->v, l->n, sizeof(double), _cmp_double);
		printf("  %-38s %8zu %10.3f %10.3f %10.3f", g_op_name[op], l->n,
		       _pct(l, 0.5), _pct(l, 0.99), l->v[l->n - 1]);
		if (op <= OP_Q_ALL)
			printf(" %10.0f", (double) items[op] / l->n);
		printf("\n");
	}
	printf("  job write lock held at most %.1f ms; %ld calculation errors; %ld jobs lost their association\n",
	       g_job_lock_max_ns / 1e6, g_soak.cycle_errors,
	       g_soak.held_by_removal);
	heap_known = (heap_q > 0) && (heap_end > 0);
	if (heap_known)
		printf("  heap in use: %.1f MB after %d s, %.1f MB at the end (%+.2f%%); RSS %.1f MB after %d s, %.1f MB at the end, %.1f MB at most\n",
		       heap_q, secs / 4, heap_end,
		       100.0 * (heap_end - heap_q) / heap_q, rss_q, secs / 4,
		       rss_end, rss_max);
	else
		printf("  heap in use: not measurable with this allocator; RSS %.1f MB after %d s, %.1f MB at the end, %.1f MB at most\n",
		       rss_q, secs / 4, rss_end, rss_max);
	printf("  checked %zu pending jobs (%zu held, at 0) and %zu associations at the end\n",
	       checked, held, nassoc);
	if (heap_known && (heap_end > heap_q * 1.05 + 8)) {
		printf("FAIL: the heap grew by more than 5%% + 8 MB\n");
		rc = 1;
	}
	if (g_soak.cycle_errors || bad)
		rc = 1;
	printf("soak: %s\n", rc ? "FAILED" : "ok");
	for (int op = 0; op < SOAK_OPS; op++) {
		xfree(all[op].v);
		for (int i = 0; i < SOAK_WORKERS; i++)
			xfree(w[i].lat[op].v);
	}
	xfree(cyc.v);
	xfree(purge.v);
	unlink(g_conf_path);
	_remove_state_files();
	rmdir(g_state_dir);
	return rc;
}

static void _bench_header(void)
{
	printf("# Full recalculation (fair-share + every job) per PriorityCalcPeriod, median of N runs after a warm-up;\n"
	       "# multifactor = Debian's priority_multifactor.so (fair_tree_decay), fairway = priority_fairway_cycle.\n"
	       "# extra: heap fairway keeps beyond multifactor's after the same periods, divided by the\n"
	       "# associations and by the jobs: each an upper bound of the memory per association and per job.\n"
	       "#   assocs      jobs  running |     mf ms     fw ms   speed | mf ns/j fw ns/j | mf lock ms fw lock ms   ratio | set ns mf/fw | extra B/assoc B/job\n");
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
		{ "soak", required_argument, NULL, 'K' },
		{ "decay-thread", no_argument, NULL, 'T' },
		{ "reconfig-switch", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 } };

	g_plugin_path = getenv("FAIRWAY_PLUGIN");
	while ((opt = getopt_long(argc, argv, "vp:n:s:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': g_verbose = 1; break;
		case 'p': g_plugin_path = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 10); break;
		case 's': first = strtoul(optarg, NULL, 10); break;
		case 'S': sites = true; break;
		case 'T': g_thread_mode = true; break;
		case 'W': g_switch_mode = true; break;
		case 'B': bench = optarg; break;
		case 'R': reps = atoi(optarg); break;
		case 'C': return _run_cycles_main(optarg);
		case 'K': return _run_soak(optarg);
		default:
			fprintf(stderr, "usage: %s [-v] [-p plugin.so] [-n count] [-s first-seed] [--sites] [--decay-thread | --reconfig-switch]\n",
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
		if (g_thread_mode) {
			g_rng = (1000000 + w) * 0x9E3779B97F4A7C15ULL + 1;
			_gen_thread_params(&s);
		}
		total++;
		failed += _fork_scenario(&s, 1000000 + w);
	}
	for (uint32_t seed = first; seed < first + count; seed++) {
		g_rng = seed * 0x9E3779B97F4A7C15ULL + 1;
		_gen_random(&s, seed);
		if (g_thread_mode)
			_gen_thread_params(&s);
		total++;
		failed += _fork_scenario(&s, seed);
	}
	printf("%d of %d scenarios compared sprio rows of a job in a partition that lacks a TRES count its first partition has (GPUs, no nodes)\n",
	       g_kept_tres_scenarios, total);
	printf("%d scenarios, %d mismatches\n", total, failed);
	return failed ? 1 : 0;
}
