/*****************************************************************************\
 *  fw_soak.c - priority/fairway alone, as slurmctld runs it, for a long time.
 *
 *  Usage: fw_soak [-p PLUGIN.so] --soak SECONDS[,ASSOCS,PENDING,RUNNING]
 *	priority/fairway loaded as slurmctld loads it (its calculation thread
 *	started, real read/write locks), with another thread running
 *	calculation periods back to back and four threads playing slurmctld's
 *	RPC and job threads for SECONDS seconds (soak_ops.c): sprio-style
 *	queries (by job ids, user, partition, all), submits
 *	(priority_p_set), job ends (priority_p_job_end) and starts,
 *	reconfigures (with and without slurmctld's locks, the dampening factor
 *	changed), and associations added and removed through assoc_mgr with
 *	jobs pending and running under them (removal handled as slurmctld
 *	does: the jobs lose their association).  The main thread purges
 *	finished jobs every second, as slurmctld's background thread does,
 *	and samples the heap and RSS.
 *	Checks: no crash (and, under ThreadSanitizer, no report), no
 *	calculation error, the heap in use flat from the first quarter to the
 *	end (within 5% + 8 MB: the job count moves a little), every pending
 *	job's priority in [1, 2^32-1] unless held (0) or set by an
 *	administrator, no NaN in any association.  Prints per-operation
 *	latency (p50, p99, max) and the figures; the last line is
 *	"soak: ok" or "soak: FAILED".
 *	Environment: FW_SOAK_FLAGS (PriorityFlags), FW_SOAK_SKIP (operations
 *	left out: reconfig, assoc, del); FW_SOAK_USAGE=1: decay off and no
 *	usage lost (soak_usage.c: every association's usage and the root's
 *	equal what the jobs ran, counted by the harness); FW_SOAK_CHECK_RSS=1:
 *	RSS flat too (SOAK_RSS_PCT % + SOAK_RSS_MB from the first quarter to
 *	the end).
 *  Usage: fw_soak [-p PLUGIN.so] --cycles N
 *	priority/fairway alone on one scenario: load, N calculation periods
 *	(one PriorityCalcPeriod apart, running jobs charged, usage and state
 *	files written), sprio-style queries, unload; twice.  For valgrind
 *	(test/differential/run-valgrind).
 *  The plugin is FAIRWAY_PLUGIN without -p.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const char *g_op_name[SOAK_OPS] = {
	"sprio -j (5 jobs)",
	"sprio -u (1 user)",
	"sprio -p (1 partition)",
	"sprio (all)",
	"submit (priority_p_set)",
	"job end + start (priority_p_job_end)",
	"reconfigure",
	"association added",
	"association removed",
	"purge finished jobs",
	"calculation period"
};

/* Latencies of one operation, in ms. */
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

/* The p-quantile of sorted latencies. */
static double _pct(lat_t *l, double p)
{
	if (!l->n)
		return 0;
	return l->v[(size_t) ((l->n - 1) * p)];
}

typedef struct {
	int idx;
	uint64_t seed;
	lat_t lat[SOAK_OPS];
	uint64_t items[SOAK_OPS];
} soak_worker_t;

/* The operation a worker does next: mostly queries, submits and job
 * turnover.  Only worker 0 changes associations (slurmctld applies database
 * updates from one thread too). */
static int _next_op(const soak_worker_t *w)
{
	/* Per mille of the draws below each bound; the rest changes
	 * associations. */
	static const struct {
		uint32_t below;
		int op;
	} mix[] = {
		{ 350, OP_Q_JOBS },   { 400, OP_Q_USER }, { 420, OP_Q_PART },
		{ 425, OP_Q_ALL },    { 700, OP_SUBMIT }, { 985, OP_TURNOVER },
		{ 990, OP_RECONFIG },
	};
	size_t n = sizeof(mix) / sizeof(mix[0]), i = 0;
	uint32_t r = fw_pick(1000);
	int op;

	while ((i < n) && (r >= mix[i].below))
		i++;
	if (i < n)
		op = mix[i].op;
	else if (w->idx)
		op = OP_SUBMIT;
	else if ((soak_state.nadded < SOAK_MAX_ADDED) &&
		 (!soak_state.nadded || fw_chance(55)))
		op = OP_ASSOC_ADD;
	else
		op = OP_ASSOC_DEL;

	if (((op == OP_RECONFIG) && soak_state.no_reconfig) ||
	    (((op == OP_ASSOC_ADD) || (op == OP_ASSOC_DEL)) &&
	     soak_state.no_assoc) ||
	    ((op == OP_ASSOC_DEL) && soak_state.no_assoc_del) ||
	    ((op == OP_ASSOC_ADD) && (soak_state.nadded >= SOAK_MAX_ADDED)))
		op = OP_SUBMIT;
	return op;
}

static void *_soak_worker(void *arg)
{
	soak_worker_t *w = arg;

	fw_rng = w->seed;
	while (now_ms() < soak_state.deadline) {
		int op = _next_op(w);
		uint32_t n = 0;
		time_t now = time(NULL);
		double t0 = now_ms();

		soak_op(op, now, &n);
		_lat_add(&w->lat[op], now_ms() - t0);
		w->items[op] += n;
	}
	return NULL;
}

/* Calculation periods back to back (the plugin's own thread runs too, at
 * PriorityCalcPeriod=1, serialized with these by the plugin). */
static void *_soak_cycler(void *arg)
{
	lat_t *lat = arg;

	while (!__atomic_load_n(&soak_state.stop, __ATOMIC_ACQUIRE)) {
		double t0 = now_ms();
		if (soak_state.fw.cycle(time(NULL)) != SLURM_SUCCESS)
			__atomic_fetch_add(&soak_state.cycle_errors, 1,
					   __ATOMIC_RELAXED);
		_lat_add(lat, now_ms() - t0);
	}
	return NULL;
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

/* Heap and RSS: after the first quarter, at the end, the largest RSS. */
typedef struct {
	double heap_q, heap_end, rss_q, rss_end, rss_max;
} soak_mem_t;

/* FW_SOAK_CHECK_RSS: RSS at the end no more than this above RSS after the
 * first quarter.  glibc keeps freed memory mapped in its arenas, so RSS moves
 * with the peak of what the threads held at once (the quarter's sample can
 * fall between two periods' peaks, the end's after one), not with what is in
 * use: doc/reliability.md has the measurements this is taken from. */
#define SOAK_RSS_PCT 10
#define SOAK_RSS_MB 32

/* After the threads stopped: one last period, which charges every running
 * job up to now; then the usage counted by soak_usage.c compared. */
static bool _last_period_and_usage(void)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	time_t now = time(NULL);
	bool ok;

	if (soak_state.fw.cycle(now) != SLURM_SUCCESS)
		soak_state.cycle_errors++;
	lock_slurmctld(job_write);
	ok = soak_usage_check(now);
	unlock_slurmctld(job_write);
	return ok;
}

/* Priorities sane, no NaN in the associations; the failures printed. */
static size_t _check_end(size_t *checked, size_t *held, size_t *nassoc)
{
	list_itr_t *it = list_iterator_create(job_list);
	slurmdb_assoc_rec_t *a;
	job_record_t *j;
	size_t bad = 0;

	while ((j = list_next(it))) {
		if (!IS_JOB_PENDING(j))
			continue;
		(*checked)++;
		if (!xstrcmp(j->comment, "held")) {
			(*held)++;
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
		(*nassoc)++;
		if (!isfinite((double) a->usage->usage_raw) ||
		    (a->usage->usage_raw < 0) || isnan(a->usage->fs_factor) ||
		    (a->usage->fs_factor < 0) || (a->usage->fs_factor > 1)) {
			bad++;
			printf("FAIL: association %u: usage %Lg, fs_factor %g\n",
			       a->id, a->usage->usage_raw, a->usage->fs_factor);
		}
	}
	list_iterator_destroy(it);
	return bad;
}

/* Every operation's count and latencies, all threads together. */
static void _report_ops(soak_worker_t *w, lat_t *purge, lat_t *cyc)
{
	lat_t all[SOAK_OPS];
	uint64_t items[SOAK_OPS] = { 0 };

	memset(all, 0, sizeof(all));
	for (int i = 0; i < SOAK_WORKERS; i++)
		for (int op = 0; op < SOAK_OPS; op++) {
			for (size_t k = 0; k < w[i].lat[op].n; k++)
				_lat_add(&all[op], w[i].lat[op].v[k]);
			items[op] += w[i].items[op];
		}
	for (size_t k = 0; k < purge->n; k++)
		_lat_add(&all[OP_PURGE], purge->v[k]);
	for (size_t k = 0; k < cyc->n; k++)
		_lat_add(&all[OP_PERIOD], cyc->v[k]);
	printf("  %-38s %8s %10s %10s %10s %10s\n", "operation", "count",
	       "p50 ms", "p99 ms", "max ms", "items/op");
	for (int op = 0; op < SOAK_OPS; op++) {
		lat_t *l = &all[op];
		if (!l->n)
			continue;
		qsort(l->v, l->n, sizeof(double), cmp_double);
		printf("  %-38s %8zu %10.3f %10.3f %10.3f", g_op_name[op], l->n,
		       _pct(l, 0.5), _pct(l, 0.99), l->v[l->n - 1]);
		if (op <= OP_Q_ALL)
			printf(" %10.0f", (double) items[op] / l->n);
		printf("\n");
	}
	for (int op = 0; op < SOAK_OPS; op++)
		xfree(all[op].v);
}

/* The scenario, its running jobs started, priority/fairway loaded as
 * slurmctld loads it: real locks, cluster known, the plugin's thread on. */
static scenario_t *_soak_setup(int assocs, int pending, int running, time_t now)
{
	static scenario_t s;

	fw_rng = 11;
	fw_opts.bench = true;
	soak_state.usage = getenv("FW_SOAK_USAGE") &&
		xstrcmp(getenv("FW_SOAK_USAGE"), "0");
	/* Counting usage: the cycler is the only source of periods after the
	 * plugin thread's first one (a day to its next), as slurmctld's
	 * thread is: the two read the clock outside the plugin's lock, so a
	 * period of one could end before the last of the other and move the
	 * point charges start from back. */
	fw_opts.conf_extra = soak_state.usage ?
		"PriorityCalcPeriod=1440\n"
		"AccountingStorageEnforce=associations,limits\n" :
		"PriorityCalcPeriod=1\n"
		"AccountingStorageEnforce=associations,limits\n";
	fw_opts.remove_assoc_notify = soak_remove_assoc_notify;
	sc_bench(&s, assocs, pending + running, running);
	if (soak_state.usage)
		s.decay_hl = "0";    /* usage only grows: it can be counted */
	if (getenv("FW_SOAK_FLAGS")) /* PriorityFlags, e.g. NO_FAIR_TREE */
		snprintf(s.flags, sizeof(s.flags), "%s",
			 getenv("FW_SOAK_FLAGS"));
	fw_world.scenario = s.name;
	world_setup(&s, 0, now, "fw_soak");
	accounting_enforce = ACCOUNTING_ENFORCE_LIMITS;
	world_write_state_file(now - 30, 0);

	if (getenv("FW_SOAK_SKIP")) { /* to tell which operation matters */
		soak_state.no_reconfig = strstr(getenv("FW_SOAK_SKIP"),
						"reconfig");
		soak_state.no_assoc = strstr(getenv("FW_SOAK_SKIP"), "assoc");
		soak_state.no_assoc_del = strstr(getenv("FW_SOAK_SKIP"), "del");
	}
	soak_state.s = &s;
	soak_state.users = xcalloc(s.nassoc, sizeof(int));
	for (int i = 0; i < s.nassoc; i++)
		if (s.a[i].user[0])
			soak_state.users[soak_state.nusers++] = i;
	soak_state.next_job_id = 100 + s.njobs;
	soak_state.next_assoc_id = SOAK_FIRST_ADDED_ID;
	soak_start_running(now);
	if (soak_state.usage)
		soak_usage_start(now - 30);

	measure_use_rwlocks(true);
	plugin_load_fairway(&soak_state.fw);
	plugin_start_in_slurmctld(&soak_state.fw);
	/* The plugin thread's first period, before the cycler's (a file
	 * caught while written reads 0). */
	for (int i = 0; soak_state.usage && (world_last_period() <= now - 30);
	     i++) {
		if (i == 30000)
			fatal("soak: no period of the plugin's thread in 30 s");
		usleep(1000);
	}
	return &s;
}

static int _run_soak(const char *arg)
{
	static soak_worker_t w[SOAK_WORKERS];
	pthread_t tw[SOAK_WORKERS], tc;
	lat_t cyc = { 0 }, purge = { 0 };
	int secs = 60, assocs = 1000, pending = 10000, running = 500;
	soak_mem_t m = { 0 };
	double t_start;
	size_t checked = 0, held = 0, bad, nassoc = 0;
	scenario_t *s;
	bool heap_known, usage_ok = true;
	bool check_rss = getenv("FW_SOAK_CHECK_RSS") &&
		xstrcmp(getenv("FW_SOAK_CHECK_RSS"), "0");
	int rc = 0;

	sscanf(arg, "%d,%d,%d,%d", &secs, &assocs, &pending, &running);
	s = _soak_setup(assocs, pending, running, time(NULL));
	printf("soak: PriorityFlags=%s\n", s->flags);
	printf("soak: %d associations, %d pending + %d running jobs, %d s: %d threads (sprio queries, submits, job ends/starts, reconfigures, associations added/removed), periods back to back, the plugin's own thread, a purge every second%s\n",
	       s->nassoc, pending, running, secs, SOAK_WORKERS,
	       soak_state.usage ?
		       "; decay off, usage counted (the plugin's thread: its first period only)" :
		       "");
	fflush(stdout);
	t_start = now_ms();
	soak_state.deadline = t_start + secs * 1000.0;
	pthread_create(&tc, NULL, _soak_cycler, &cyc);
	for (int i = 0; i < SOAK_WORKERS; i++) {
		w[i].idx = i;
		w[i].seed = 0x9E3779B97F4A7C15ULL * (i + 3);
		pthread_create(&tw[i], NULL, _soak_worker, &w[i]);
	}
	while (now_ms() < soak_state.deadline) {
		double t0, rss;
		usleep(1000000);
		t0 = now_ms();
		soak_purge();
		_lat_add(&purge, now_ms() - t0);
		rss = _rss_mb();
		if (rss > m.rss_max)
			m.rss_max = rss;
		if (!m.heap_q && (now_ms() - t_start >= secs * 250.0)) {
			m.heap_q = heap_bytes() / 1048576.0;
			m.rss_q = rss;
		}
	}
	for (int i = 0; i < SOAK_WORKERS; i++)
		pthread_join(tw[i], NULL);
	__atomic_store_n(&soak_state.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tc, NULL);
	if (soak_state.usage)
		usage_ok = _last_period_and_usage();
	soak_purge();
	m.heap_end = heap_bytes() / 1048576.0;
	m.rss_end = _rss_mb();
	soak_state.fw.fini();
	measure_use_rwlocks(false);

	bad = _check_end(&checked, &held, &nassoc);
	_report_ops(w, &purge, &cyc);
	printf("  job write lock held at most %.1f ms; %ld calculation errors; %ld jobs lost their association\n",
	       fw_locks.max_ns / 1e6, soak_state.cycle_errors,
	       soak_state.held_by_removal);
	heap_known = (m.heap_q > 0) && (m.heap_end > 0);
	if (heap_known)
		printf("  heap in use: %.1f MB after %d s, %.1f MB at the end (%+.2f%%); RSS %.1f MB after %d s, %.1f MB at the end, %.1f MB at most\n",
		       m.heap_q, secs / 4, m.heap_end,
		       100.0 * (m.heap_end - m.heap_q) / m.heap_q, m.rss_q,
		       secs / 4, m.rss_end, m.rss_max);
	else
		printf("  heap in use: not measurable with this allocator; RSS %.1f MB after %d s, %.1f MB at the end, %.1f MB at most\n",
		       m.rss_q, secs / 4, m.rss_end, m.rss_max);
	printf("  checked %zu pending jobs (%zu held, at 0) and %zu associations at the end\n",
	       checked, held, nassoc);
	if (heap_known && (m.heap_end > m.heap_q * 1.05 + 8)) {
		printf("FAIL: the heap grew by more than 5%% + 8 MB\n");
		rc = 1;
	}
	if (check_rss &&
	    (m.rss_end > m.rss_q * (1 + SOAK_RSS_PCT / 100.0) + SOAK_RSS_MB)) {
		printf("FAIL: RSS grew by more than %d%% + %d MB\n",
		       SOAK_RSS_PCT, SOAK_RSS_MB);
		rc = 1;
	}
	if (soak_state.cycle_errors || bad || !usage_ok)
		rc = 1;
	printf("soak: %s\n", rc ? "FAILED" : "ok");
	for (int op = 0; op < SOAK_OPS; op++)
		for (int i = 0; i < SOAK_WORKERS; i++)
			xfree(w[i].lat[op].v);
	xfree(cyc.v);
	xfree(purge.v);
	world_remove_files();
	return rc;
}

static int _run_cycles(int cycles)
{
	static scenario_t s;
	time_t now = FW_NOW;
	fake_sprio_req_t req = { 0 };
	fw_plugin_t fw;
	int rc = 0;

	fw_rng = 7;
	fw_opts.bench = true;
	sc_bench(&s, 300, 600, 150);
	fw_world.scenario = s.name;
	world_setup(&s, 0, now, "fw_cycles");
	accounting_enforce = ACCOUNTING_ENFORCE_LIMITS;

	plugin_load_fairway(&fw);
	for (int round = 0; round < 2;
	     round++) { /* load twice: init after fini */
		fw.init();
		cluster_cpus = 64;
		fw.reconfig(false);
		for (int c = 0; c < cycles / 2; c++) {
			list_t *l;
			now += 60;
			if (fw.cycle(now) != SLURM_SUCCESS)
				rc = 1;
			if ((c % 50) == 0) {
				l = fake_ctld_sprio(fw.factors, &req, 0);
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
	world_remove_files();
	return rc;
}

static const char *g_soak, *g_cycles;
static const struct option g_longopts[] = {
	{ "soak", required_argument, NULL, 'K' },
	{ "cycles", required_argument, NULL, 'C' },
	{ NULL, 0, NULL, 0 }
};
static const char g_usage[] =
	"[-p plugin.so] --soak SECONDS[,ASSOCS,PENDING,RUNNING] | --cycles N";

static bool _option(int opt, char *arg)
{
	if (opt == 'K')
		g_soak = arg;
	else if (opt == 'C')
		g_cycles = arg;
	else
		return false;
	return true;
}

int main(int argc, char **argv)
{
	harness_options(argc, argv, "", g_longopts, _option, g_usage);
	if (!g_soak == !g_cycles) /* one of the two */
		harness_usage(argv[0], g_usage);
	return g_soak ? _run_soak(g_soak) : _run_cycles(atoi(g_cycles));
}
