/*****************************************************************************\
 *  fw_bench.c - Slurm's priority_multifactor.so and priority/fairway timed side
 *  by side on the same synthetic clusters, in one process per size, over the
 *  differential harness (test/differential/harness.h).
 *
 *  Usage: fw_bench [-p PLUGIN.so] [--reps N] --bench "A,J,R;A,J,R;..."
 *	For each size (A associations: root -> accounts -> 100 users each;
 *	J jobs, R of them running; FW_BENCH_PARTS partitions), one row of
 *	medians over N runs after a warm-up: a whole period of multifactor
 *	(fair_tree_decay, what its thread runs) and of priority/fairway
 *	(priority_fairway_cycle), the job write lock's hold time in each, a
 *	priority_p_set per job, and the heap fairway keeps beyond
 *	multifactor's; before it, the floors of any exact per-period pass on
 *	this machine, and fairway's period and job lock with publishing on
 *	and off in alternate periods, caches evicted before each, with the
 *	median and quartiles of the job lock's difference per pair: once
 *	with the default settings (PriorityParameters fairway_metrics_dir
 *	alone), once with every option (fairway_history_days,
 *	fairway_starvation_minutes, fairway_shadow with a changed weight)
 *	(FW_BENCH_NO_PUBLISH skips both, FW_BENCH_QUEUE_JOBS=N sets
 *	fairway_queue_jobs, FW_BENCH_PUBLISH_PAIRS=N the pairs, default the
 *	reps but at least 21).
 *	bench/side-by-side runs it and fits the memory.
 *	Environment: FAIRWAY_PLUGIN (the plugin without -p); for profiling:
 *	FW_BENCH_ONLY_FAIRWAY (no multifactor run), FW_BENCH_PERIODS_ONLY (no
 *	priority_p_set timing), FW_BENCH_SPLIT (fairway's recalculation alone
 *	too), FW_BENCH_HEAP (the heap each kept), FW_BENCH_NO_SPRIO (no sprio
 *	rows).  The sprio rows: the factors list of every pending job, of one
 *	user's and of one job's, as slurmctld asks each plugin for it after its
 *	periods, with the time (the job read lock's hold) and the list's size,
 *	and the floor of the first (a walk of job_list reading what sprio
 *	checks).  The thread rows: fairway's period with
 *	PriorityParameters=fairway_weigh_threads=N for each N of
 *	FW_BENCH_THREADS (default "1,2,4,8"; FW_BENCH_NO_THREADS: none), and
 *	each against the walk of job_list alone.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static void _evict_caches(void);

/* Time fn(now) `reps` times after one warm-up; medians of the time and of the
 * job write lock's hold time. */
static void _time_period(void (*fn)(time_t), time_t now, int reps, double *ms,
			 double *lock_ms)
{
	double t[64], l[64];
	struct timespec a, b;

	fn(now);
	for (int r = 0; r < reps && r < 64; r++) {
		fw_locks.sum_ns = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		fn(now + 1 + r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = ns_between(a, b) / 1e6;
		l[r] = fw_locks.sum_ns / 1e6;
	}
	*ms = median(t, reps);
	*lock_ms = median(l, reps);
}

static off_t _file_size(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : st.st_size;
}

static int _remove_one(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

/* The published files, the history and the directory. */
static void _remove_published(const char *dir)
{
	nftw(dir, _remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* Bytes of the history kept (the day files and the names). */
static off_t g_history_bytes;
static int _add_size(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void) path;
	(void) ftw;
	if (flag == FTW_F)
		g_history_bytes += st->st_size;
	return 0;
}

/* Evict the caches between two periods (a sweep, not timed), as the seconds
 * or minutes of other work between two periods of slurmctld do.  The sweep is
 * twice the last-level cache, 256 MiB at least: some machines' L3 alone is
 * larger than 256 MiB (480 MiB on a 2-core VM of this project, 2026-11-25),
 * and what one period leaves there must not be found by the next. */
static void _evict_caches(void)
{
	static volatile unsigned char *buf;
	static size_t n;

	if (!buf) {
		long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);

		n = (size_t) 256 << 20;
		if ((l3 > 0) && ((size_t) l3 * 2 > n))
			n = (size_t) l3 * 2;
		if (!(buf = calloc(n, 1)))
			return;
	}
	for (size_t i = 0; i < n; i += 64)
		buf[i]++;
}

static mf_plugin_t g_mf;
static int (*g_fw_cycle)(time_t);
static int (*g_fw_recalc)(time_t);
/* Multifactor's period for the clusters' algorithm: Fair Tree's
 * fair_tree_decay, or classic's accounts, then each job charged and weighed
 * (plugin_mf_period, as the differential harness runs it). */
static void _mf_period(time_t now)
{
	/* fair_tree_decay takes the job write lock itself; multifactor's
	 * thread holds it around the classic pass. */
	slurmctld_lock_t job_write = { .job = WRITE_LOCK,
				       .node = READ_LOCK,
				       .part = READ_LOCK };
	bool classic = !(slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE);

	if (classic)
		lock_slurmctld(job_write);
	plugin_mf_period(&g_mf, now);
	if (classic)
		unlock_slurmctld(job_write);
}
static void _fw_period(time_t now)
{
	(void) g_fw_cycle(now);
}
static void _fw_recalc_only(time_t now)
{
	(void) g_fw_recalc(now);
}

/* The floor of any exact per-period pass: walk job_list and, per job, read
 * only its state, priority, accrue time, its association's fair-share factor
 * and its partition's factor, and write the priority -- what every exact
 * recalculation must touch at least, since Slurm changes these fields without
 * telling the priority plugin. */
static int getenv_full; /* the second floor: every field fairway reads */
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
	if (getenv_full) { /* every field fairway reads, and prio_factors written */
		p += j->details->min_cpus + j->details->max_cpus +
			j->details->min_nodes + j->details->nice +
			j->site_factor + j->time_limit + j->total_cpus +
			j->direct_set_prio;
		if (j->qos_ptr)
			p += j->qos_ptr->priority +
				j->qos_ptr->usage->norm_priority;
		if (j->part_ptr)
			p += j->part_ptr->priority_job_factor +
				j->part_ptr->max_time;
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
		t[r] = ns_between(a, b) / list_count(job_list);
	}
	return median(t, 5);
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
			__builtin_prefetch(
				&g_floor_jobs[i + 6]->details->accrue_time);
		if (!IS_JOB_PENDING(j) || !j->priority || !j->details)
			continue;
		p = (double) (r->now - j->details->accrue_time);
		if (j->part_ptr)
			p += j->part_ptr->norm_priority;
		p += j->assoc_id; /* the fair-share factor from a table */
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
		tw[r] = ns_between(a, b) / n;
		tk[r] = ns_between(b, c) / n;
	}
	xfree(g_floor_jobs);
	*walk_ns = median(tw, 5);
	*work_ns = median(tk, 5);
}

/* ns per priority_p_set call over every job */
static volatile uint64_t g_set_sink;

static double _time_set(uint32_t (*set)(uint32_t, job_record_t *))
{
	struct timespec a, b;
	job_record_t *j;
	list_itr_t *it = list_iterator_create(job_list);
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
	return n ? ns_between(a, b) / n : 0;
}

/* priority_p_set at submit: both plugins in turn, `reps` times, medians
 * (alternating, so that both see the same machine). */
static void _time_sets(uint32_t (*fw_set)(uint32_t, job_record_t *), int reps,
		       double *mf_ns, double *fw_ns)
{
	double t_mf[64], t_fw[64];
	/* FW_BENCH_PERIODS_ONLY: no priority_p_set timing (profiling the
	 * periods alone) */
	int n = getenv("FW_BENCH_PERIODS_ONLY") ? 1 : ((reps < 64) ? reps : 64);

	for (int r = 0; r < n; r++) {
		if (getenv("FW_BENCH_PERIODS_ONLY")) {
			t_mf[r] = t_fw[r] = 1;
			continue;
		}
		t_mf[r] = getenv("FW_BENCH_ONLY_FAIRWAY") ?
			1 :
			_time_set(priority_g_set);
		t_fw[r] = _time_set(fw_set);
	}
	*mf_ns = median(t_mf, n);
	*fw_ns = median(t_fw, n);
}

/*
 * sprio as slurmctld serves it (fake_ctld_sprio: 22.05 hands the request to
 * the plugin, which takes the job read lock itself; from 23.02 slurmctld holds
 * it around the call): the factors list of every pending job (kind 0), of one
 * user's (1) and of one job's (2), asked by root.  Per kind the median time
 * of `reps` calls after a warm-up, the rows and the bytes the list holds when
 * it is returned (heap grown by the warm-up call, the list not yet freed).
 */
typedef struct {
	double ms[3], mb[3];
	int rows[3];
} sprio_time_t;

static void _time_sprio(fake_sprio_f *factors, int reps, uint32_t job_id,
			uint32_t user_id, sprio_time_t *out)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK,
					   .node = READ_LOCK,
					   .part = READ_LOCK };
	assoc_mgr_lock_t qos_read_lock = { .qos = READ_LOCK };
	int n = (reps < 64) ? reps : 64;

	for (int kind = 0; kind < 3; kind++) {
		fake_sprio_req_t req;
		double t[64];

		memset(&req, 0, sizeof(req));
		if (kind == 1) {
			req.user_ids = list_create(NULL);
			list_append(req.user_ids, &user_id);
		} else if (kind == 2) {
			req.job_ids = list_create(NULL);
			list_append(req.job_ids, &job_id);
		}
		for (int r = -1; r < n; r++) { /* -1: warm-up */
			struct timespec a, b;
			size_t h = heap_bytes();
			list_t *l;

			clock_gettime(CLOCK_MONOTONIC, &a);
			if (FW_SPRIO_CALLER_LOCKS) {
				lock_slurmctld(job_read_lock);
				assoc_mgr_lock(&qos_read_lock);
			}
			l = fake_ctld_sprio(factors, &req, 0);
			if (FW_SPRIO_CALLER_LOCKS) {
				assoc_mgr_unlock(&qos_read_lock);
				unlock_slurmctld(job_read_lock);
			}
			clock_gettime(CLOCK_MONOTONIC, &b);
			/* The heap the first call grew by (fairway's later
			 * calls reuse the row blocks earlier ones gave back). */
			if (r == -1) {
				out->rows[kind] = l ? list_count(l) : 0;
				out->mb[kind] = ((double) heap_bytes() - h) /
					1e6;
			}
			FREE_NULL_LIST(l);
			if (r >= 0)
				t[r] = ns_between(a, b) / 1e6;
		}
		out->ms[kind] = median(t, n);
		FREE_NULL_LIST(req.job_ids);
		FREE_NULL_LIST(req.user_ids);
	}
}

/* A pending job that a period weighed, and its user, for sprio -j and -u. */
static void _sprio_subject(uint32_t *job_id, uint32_t *user_id)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *j;

	*job_id = *user_id = 0;
	while ((j = list_next(it)))
		if (IS_JOB_PENDING(j) && j->prio_factors && j->priority) {
			*job_id = j->job_id;
			*user_id = j->user_id;
			break;
		}
	list_iterator_destroy(it);
}

static void _print_sprio(const sprio_time_t *mf, const sprio_time_t *fw)
{
	static const char *what[] = { "all pending jobs", "one user's jobs",
				      "one job" };

	for (int k = 0; k < 3; k++)
		printf("# sprio, %s (%d rows): multifactor %.3f ms, %.1f MB; fairway %.3f ms, %.1f MB; %.1fx\n",
		       what[k], fw->rows[k], mf->ms[k], mf->mb[k], fw->ms[k],
		       fw->mb[k], fw->ms[k] > 0 ? mf->ms[k] / fw->ms[k] : 0);
	if (!getenv("FW_BENCH_ONLY_FAIRWAY") &&
	    (mf->rows[0] != fw->rows[0] || mf->rows[1] != fw->rows[1] ||
	     mf->rows[2] != fw->rows[2]))
		printf("FAIL: sprio rows differ: multifactor %d/%d/%d, fairway %d/%d/%d\n",
		       mf->rows[0], mf->rows[1], mf->rows[2], fw->rows[0],
		       fw->rows[1], fw->rows[2]);
}

/* The floor of sprio's list of every pending job: one walk of job_list
 * reading what decides whether a job is shown (state, priority, eligibility,
 * partitions) and one sum per shown job of what its rows copy (the weighted
 * factors), no row written.  Median of `reps` walks, ms. */
static int _sprio_floor_cb(void *x, void *arg)
{
	job_record_t *j = x;
	double *sum = arg;

	if (!IS_JOB_PENDING(j) || !j->priority || !j->details ||
	    !j->details->begin_time || !(j->part_ptr || j->part_ptr_list) ||
	    !j->prio_factors)
		return 0;
	*sum += j->prio_factors->priority_age + j->prio_factors->priority_fs +
		j->prio_factors->priority_js + j->prio_factors->priority_part +
		j->prio_factors->priority_qos;
	return 0;
}

static double _time_sprio_floor(int reps)
{
	double t[64], sum = 0;
	int n = (reps < 64) ? reps : 64;

	for (int r = -1; r < n; r++) { /* -1: warm-up */
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		list_for_each(job_list, _sprio_floor_cb, &sum);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (r >= 0)
			t[r] = ns_between(a, b) / 1e6;
	}
	g_set_sink += (uint64_t) sum;
	return median(t, n);
}

/*
 * The period at each thread count of FW_BENCH_THREADS (default "1,2,4,8"),
 * set as slurm.conf's PriorityParameters=fairway_weigh_threads=N and a
 * reconfigure: medians of `reps` periods after a warm-up, as the table's.
 */
#define MAX_THREAD_ROWS 16
typedef struct {
	int n;
	int threads[MAX_THREAD_ROWS];
	double ms[MAX_THREAD_ROWS], lock[MAX_THREAD_ROWS];
} thread_rows_t;

static void _time_threads(const fw_plugin_t *fw, time_t now, int reps,
			  thread_rows_t *t)
{
	const char *list = getenv("FW_BENCH_THREADS");
	char *copy = strdup(list ? list : "1,2,4,8"), *save = NULL, opt[64];
	char *old = slurm_conf.priority_params;

	t->n = 0;
	for (char *tok = strtok_r(copy, ",", &save);
	     tok && (t->n < MAX_THREAD_ROWS);
	     tok = strtok_r(NULL, ",", &save)) {
		int k = atoi(tok);

		if ((k < 1) || (k > 64))
			continue;
		snprintf(opt, sizeof(opt), "fairway_weigh_threads=%d", k);
		slurm_conf.priority_params = opt;
		fw->reconfig(false);
		t->threads[t->n] = k;
		_time_period(_fw_period, now + 1000 + 100 * t->n, reps,
			     &t->ms[t->n], &t->lock[t->n]);
		t->n++;
	}
	slurm_conf.priority_params = old;
	fw->reconfig(false);
	free(copy);
}

static void _print_threads(const thread_rows_t *t, double mf_ms, double walk_ms)
{
	for (int i = 0; i < t->n; i++)
		printf("# threads %2d: fairway period %.2f ms (%.1fx multifactor), job lock %.2f ms; %.2fx the walk of job_list alone (%.2f ms)\n",
		       t->threads[i], t->ms[i],
		       (getenv("FW_BENCH_ONLY_FAIRWAY") || !t->ms[i]) ?
			       0 :
			       mf_ms / t->ms[i],
		       t->lock[i], walk_ms > 0 ? t->ms[i] / walk_ms : 0,
		       walk_ms);
}

/* The floors of an exact pass on this machine, as comment lines. */
static double _print_floors(time_t now, double mf_ms, int jobs)
{
	double walk, work;

	printf("# memory floor of an exact pass (read state, priority, accrue time, fs factor, partition; write priority): %.0f ns/job\n",
	       _time_floor(now));
	getenv_full = 1;
	printf("# same, reading every field fairway reads and writing prio_factors: %.0f ns/job\n",
	       _time_floor(now));
	_time_floor_parallel(now, &walk, &work);
	printf("# floor at its best (one walk collecting the jobs, then the minimal pass in two threads with prefetch): %.0f + %.0f = %.0f ns/job; 10x multifactor needs %.0f\n",
	       walk, work, walk + work,
	       getenv("FW_BENCH_ONLY_FAIRWAY") ? 0 : mf_ms * 1e5 / jobs);
	return walk;
}

/* One size: one row of the table (a process of its own). */
/*
 * fairway's periods with publishing on and off, in alternate periods, which
 * side goes first swapped every pair: drift of a busy machine falls on both
 * sides alike.  On: fairway_metrics_dir with every other option at its
 * default (the queue in fairway.json up to fairway_queue_jobs), or with
 * `every` option (the history with the journal of starts, starvation alerts,
 * a shadow policy that changes a weight).  FW_BENCH_QUEUE_JOBS=N sets
 * fairway_queue_jobs in both.  Caches are evicted before each period, as the
 * seconds between two periods of slurmctld do; without that, the work
 * publishing does after the locks would count against the next period's.
 * The job lock's growth is set against one sprio of every pending job
 * (fw_sprio, mf_sprio ms; 0: not timed), which publishing replaces.  At least
 * 21 pairs (FW_BENCH_PUBLISH_PAIRS=N sets them, 1 to 63): on a 2-core VM at
 * 100,000 jobs the medians of 5 pairs ranged from -10 to +16 ms over three
 * runs, those of 31 pairs from -0.8 to +1.3 ms over nine.
 */
static void _time_publishing(const fw_plugin_t *fw, time_t now, int reps,
			     bool every, double fw_sprio, double mf_sprio)
{
	char dir[] = "/tmp/fw-bench-metrics.XXXXXX", opt[512];
	const char *queue = getenv("FW_BENCH_QUEUE_JOBS");
	FILE *shadow;
	char *old = slurm_conf.priority_params;
	double on_ms[64], on_lock[64], off_ms[64], off_lock[64];
	double d_lock[64];
	const char *pairs = getenv("FW_BENCH_PUBLISH_PAIRS");
	int n = pairs ? atoi(pairs) : (reps > 21 ? reps : 21);
	double p_ms, b_ms, p_lock, b_lock, d;

	if (n < 1)
		n = 21;
	if (n > 63)
		n = 63;
	if (!mkdtemp(dir))
		return;
	snprintf(opt, sizeof(opt), "%s/shadow.conf", dir);
	if (every && (shadow = fopen(opt, "w"))) {
		fputs("PriorityWeightFairshare=123457\n", shadow);
		fclose(shadow);
	}
	snprintf(
		opt, sizeof(opt), "fairway_metrics_dir=%s%s%s%s%s%s", dir,
		every ? ",fairway_history_days=1,fairway_starvation_minutes=60,fairway_shadow=" :
			"",
		every ? dir : "", every ? "/shadow.conf" : "",
		queue ? ",fairway_queue_jobs=" : "", queue ? queue : "");
	for (int r = -1; r < n; r++) { /* -1: warm-up */
		for (int k = 0; k < 2; k++) {
			bool on = ((r & 1) == k);
			struct timespec a, b;
			time_t t = now + 200 + 2 * (r + 1) + k;

			slurm_conf.priority_params = on ? opt : old;
			fw->reconfig(false);
			_evict_caches();
			fw_locks.sum_ns = 0;
			clock_gettime(CLOCK_MONOTONIC, &a);
			_fw_period(t);
			clock_gettime(CLOCK_MONOTONIC, &b);
			if (r < 0)
				continue;
			(on ? on_ms : off_ms)[r] = ns_between(a, b) / 1e6;
			(on ? on_lock : off_lock)[r] = fw_locks.sum_ns / 1e6;
		}
		if (r >= 0)
			d_lock[r] = on_lock[r] - off_lock[r];
	}
	slurm_conf.priority_params = old;
	fw->reconfig(false);
	g_history_bytes = 0;
	snprintf(opt, sizeof(opt), "%s/fairway_history", dir);
	nftw(opt, _add_size, 8, FTW_PHYS);
	p_ms = median(on_ms, n);
	b_ms = median(off_ms, n);
	p_lock = median(on_lock, n);
	b_lock = median(off_lock, n);
	d = median(d_lock, n);
	/* d_lock sorted by median(): its quartiles. */
	printf("# publishing (%s), %d pairs of periods, caches evicted before each: period %.2f ms against %.2f without (%+.1f%%), job lock %.2f ms against %.2f (%+.1f%%; per pair %+.2f ms, quartiles %+.2f to %+.2f); fairway.prom %.1f MB, fairway.json %.1f MB",
	       every ? "every option: metrics, queue snapshot, shadow policy, history, starvation" :
		       "default settings: fairway_metrics_dir alone",
	       n, p_ms, b_ms, 100 * (p_ms - b_ms) / b_ms, p_lock, b_lock,
	       100 * (p_lock - b_lock) / b_lock, d, d_lock[n / 4],
	       d_lock[(3 * n) / 4], _file_size(dir, "fairway.prom") / 1e6,
	       _file_size(dir, "fairway.json") / 1e6);
	if (every)
		printf(", fairway_shadow.json %.2f MB, history %.2f MB after %d periods",
		       _file_size(dir, "fairway_shadow.json") < 0 ?
			       0 :
			       _file_size(dir, "fairway_shadow.json") / 1e6,
		       g_history_bytes / 1e6, n + 1);
	printf("\n");
	/* What publishing replaces: exporters that run sprio, each holding
	 * the job read lock while every pending job's factors are listed. */
	if (fw_sprio > 0)
		printf("# publishing's job write lock per period, %+.2f ms, against one sprio of every pending job, which holds the job read lock %.2f ms under fairway (%.1f%% of it)",
		       d, fw_sprio, 100 * d / fw_sprio);
	if ((fw_sprio > 0) && (mf_sprio > 0))
		printf(" and %.2f ms under multifactor (%.1f%%)", mf_sprio,
		       100 * d / mf_sprio);
	if (fw_sprio > 0)
		printf("\n");
	_remove_published(dir);
}

static int _run_bench(int assocs, int jobs, int running, int reps)
{
	static scenario_t s;
	time_t now = FW_NOW;
	double mf_ms, mf_lock, fw_ms, fw_lock, mf_set, fw_set;
	size_t h0, h_mf, h1, h_fw;
	int mf_weighed = -1, fw_weighed;
	sprio_time_t mf_sprio = { { 0 } }, fw_sprio = { { 0 } };
	uint32_t sprio_job = 0, sprio_user = 0;
	bool sprio = !getenv("FW_BENCH_NO_SPRIO");
	double extra, sprio_floor, walk_ns;
	thread_rows_t threads = { 0 };
	fw_plugin_t fw;
	mf_plugin_t mf;

	fw_rng = 42;
	fw_opts.bench = true;
	sc_bench(&s, assocs, jobs, running);
	fw_world.scenario = s.name;
	world_setup(&s, 0, now, "fw_bench");

	plugin_start_mf();
	plugin_find_mf(&mf);
	g_mf = mf;
	h0 = heap_bytes();
	if (getenv("FW_BENCH_ONLY_FAIRWAY")) { /* for profiling fairway alone */
		mf_ms = mf_lock = mf_set = 1;
		h_mf = h0;
	} else {
		_time_period(_mf_period, now, reps, &mf_ms, &mf_lock);
		h_mf = heap_bytes();
		mf_weighed = jobs_weighed();
		/* sprio of the factors multifactor's periods stored. */
		_sprio_subject(&sprio_job, &sprio_user);
		if (sprio)
			_time_sprio(priority_g_get_priority_factors_list, reps,
				    sprio_job, sprio_user, &mf_sprio);
	}
	capture_initial();
	state_reset();

	plugin_start_fairway(&fw);
	g_fw_cycle = fw.cycle;
	g_fw_recalc = fw.recalc;
	world_write_state_file(now - 50000, 0);
	h1 = heap_bytes();
	_time_period(_fw_period, now, reps, &fw_ms, &fw_lock);
	h_fw = heap_bytes();
	fw_weighed = jobs_weighed();
	if (sprio) {
		if (!sprio_job)
			_sprio_subject(&sprio_job, &sprio_user);
		_time_sprio(fw.factors, reps, sprio_job, sprio_user, &fw_sprio);
		_print_sprio(&mf_sprio, &fw_sprio);
		sprio_floor = _time_sprio_floor(reps);
		if (sprio_floor > 0)
			printf("# sprio floor (one walk of job_list reading what decides whether a job is shown and summing its factors, no row built): %.3f ms; fairway %.2fx it, multifactor %.2fx\n",
			       sprio_floor, fw_sprio.ms[0] / sprio_floor,
			       mf_sprio.ms[0] / sprio_floor);
	}
	if (!getenv("FW_BENCH_NO_PUBLISH")) {
		_time_publishing(&fw, now, reps, false, fw_sprio.ms[0],
				 mf_sprio.ms[0]);
		_time_publishing(&fw, now, reps, true, fw_sprio.ms[0],
				 mf_sprio.ms[0]);
	}
	if (!getenv("FW_BENCH_NO_THREADS"))
		_time_threads(&fw, now, reps, &threads);
	if (getenv("FW_BENCH_SPLIT")) {
		double r_ms, r_lock;
		_time_period(_fw_recalc_only, now + 100, reps, &r_ms, &r_lock);
		printf("# fairway recalc only (no accrual): %.2f ms, job lock %.2f ms\n",
		       r_ms, r_lock);
	}
	_time_sets(fw.set, reps, &mf_set, &fw_set);
	if (getenv("FW_BENCH_HEAP"))
		printf("# heap kept by the periods: multifactor %+.0f B, fairway %+.0f B\n",
		       (double) h_mf - h0, (double) h_fw - h1);
	if ((mf_weighed >= 0) && (mf_weighed != fw_weighed)) {
		printf("FAIL: multifactor weighed %d jobs, fairway %d: not the same work\n",
		       mf_weighed, fw_weighed);
		return 1;
	}
	fw.fini();
	walk_ns = _print_floors(now, mf_ms, jobs);
	_print_threads(&threads, mf_ms, walk_ns * jobs / 1e6);

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
	world_remove_files();
	return 0;
}

static void _bench_header(void)
{
	printf("# Full recalculation (fair-share + every job) per PriorityCalcPeriod, median of N runs after a warm-up;\n"
	       "# multifactor = Slurm " SLURM_VERSION_STRING
	       "'s own priority_multifactor.so (fair_tree_decay), fairway = priority_fairway_cycle.\n"
	       "# extra: heap fairway keeps beyond multifactor's after the same periods, divided by the\n"
	       "# associations and by the jobs: each an upper bound of the memory per association and per job.\n"
	       "#   assocs      jobs  running |     mf ms     fw ms   speed | mf ns/j fw ns/j | mf lock ms fw lock ms   ratio | set ns mf/fw | extra B/assoc B/job\n");
}

static char *g_sizes; /* --bench */
static int g_reps = 5;
static const char g_usage[] =
	"[-v] [-p plugin.so] [--reps N] --bench \"assocs,jobs,running;...\"";
static const struct option g_longopts[] = {
	{ "bench", required_argument, NULL, 'B' },
	{ "reps", required_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 }
};

static bool _option(int opt, char *arg)
{
	switch (opt) {
	case 'B':
		g_sizes = arg;
		return true;
	case 'R':
		g_reps = atoi(arg);
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	char *save = NULL;

	harness_options(argc, argv, "", g_longopts, _option, g_usage);
	if (!g_sizes)
		harness_usage(argv[0], g_usage);
	_bench_header();
	for (char *tok = strtok_r(g_sizes, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		int a = 0, j = 0, r = 0, status;
		pid_t pid;

		sscanf(tok, "%d,%d,%d", &a, &j, &r);
		fflush(stdout);
		if ((pid = fork()) == 0)
			exit(_run_bench(a, j, r, g_reps));
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			printf("# size %s failed (status 0x%x)\n", tok, status);
	}
	return 0;
}
