/*
 * fake_slurm.c - libslurmfull's functions and globals for the shim under test, and the
 * watcher of the locks the shim takes; see fake_slurm.h.  The fixtures and the calls of
 * the shim's entry points are in fake_slurm_fixtures.c.  What slurmctld itself defines
 * (its locks, job_list, find_part_record, ...) is test/slurmctld/fake_slurmctld.c, whose
 * hooks lead here.  Compiled against Slurm's real headers so the structures the shim
 * reads and writes are the real ones.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slurm's headers through plugin/slurm_compat.h, and the names of the
 * functions mocked here that differ between releases. */
#include "fake_slurmctld.h"
#include "fake_slurm.h"
#include "fake_slurm_watch.h"

/* ---- libslurmfull's globals ---- */
slurm_conf_t slurm_conf;
list_t *assoc_mgr_assoc_list = NULL;
list_t *assoc_mgr_qos_list = NULL;
slurmdb_assoc_rec_t *assoc_mgr_root_assoc = NULL;
char **assoc_mgr_tres_name_array = NULL;
uint32_t g_tres_count = 0;
int node_record_count = 0;
int active_node_record_count = 0; /* 23.11 on */

static fake_hooks_t g_hooks;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------------- */
/* Violations and the lock tracker                                           */
/* ------------------------------------------------------------------------- */

void fake_violation(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (g_hooks.violation)
		g_hooks.violation(g_hooks.ctx, buf);
	else
		fprintf(stderr, "VIOLATION: %s\n", buf);
}

/* Held locks, by everyone (the shim's thread included). */
static int g_job_readers, g_job_writers, g_assoc_readers, g_assoc_writers;
static int g_qos_held, g_lock_calls;
static uint64_t g_jobs_sum, g_assocs_sum; /* fields when last unlocked */

static uint64_t _mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/* What the shim computes for jobs, hashed (read without locks on purpose: it
 * is the watcher). */
static uint64_t _jobs_checksum(void)
{
	extern void **fake_list_items(list_t *, int *);
	uint64_t h = 14695981039346656037ULL;
	void **items;
	int n;

	if (!job_list)
		return h;
	items = fake_list_items(job_list, &n);
	for (int i = 0; i < n; i++) {
		job_record_t *j = items[i];
		h = _mix(h, &j->priority, sizeof(j->priority));
		if (j->prio_factors) {
			fw_prio_factors_t *f = j->prio_factors;
			double v[6] = { f->priority_age,  f->priority_assoc,
					f->priority_fs,	  f->priority_js,
					f->priority_part, f->priority_qos };
			h = _mix(h, v, sizeof(v));
			h = _mix(h, &f->priority_site, sizeof(uint32_t));
		}
	}
	return h;
}

static uint64_t _assocs_checksum(void)
{
	extern void **fake_list_items(list_t *, int *);
	uint64_t h = 14695981039346656037ULL;
	int n;
	void **items;

	if (!assoc_mgr_assoc_list)
		return h;
	items = fake_list_items(assoc_mgr_assoc_list, &n);
	for (int i = 0; i < n; i++) {
		slurmdb_assoc_rec_t *a = items[i];
		slurmdb_assoc_usage_t *u = a->usage;
		h = _mix(h, &u->usage_raw, sizeof(u->usage_raw));
		h = _mix(h, &u->usage_norm, sizeof(u->usage_norm));
		h = _mix(h, &u->usage_efctv, sizeof(u->usage_efctv));
		h = _mix(h, &u->level_fs, sizeof(u->level_fs));
		h = _mix(h, &u->fs_factor, sizeof(u->fs_factor));
		h = _mix(h, &u->shares_norm, sizeof(u->shares_norm));
	}
	return h;
}

/* Baselines after a change made by the test itself (or by the caller that
 * holds the lock, e.g. slurmctld around priority_p_set). */
void fake_rebase(void)
{
	/* What a lock holder may be writing now (the calculation thread,
	 * once started) is taken as the base when its lock is released. */
	pthread_mutex_lock(&g_mutex);
	if (!g_job_writers)
		g_jobs_sum = _jobs_checksum();
	if (!g_assoc_writers && !g_assoc_readers)
		g_assocs_sum = _assocs_checksum();
	pthread_mutex_unlock(&g_mutex);
}

/* Did a job or association change since it was last unlocked? */
static void _check_unlocked_writes(const char *when)
{
	if (!g_job_writers && (_jobs_checksum() != g_jobs_sum))
		fake_violation(
			"job fields changed without the job write lock (noticed %s)",
			when);
	if (!g_assoc_writers && !g_assoc_readers &&
	    (_assocs_checksum() != g_assocs_sum))
		fake_violation(
			"association fields changed without an assoc_mgr lock (noticed %s)",
			when);
}

/* lock_slurmctld and unlock_slurmctld (fake_slurmctld.c) report here. */
static void _ctld_locked(void *ctx, slurmctld_lock_t l)
{
	pthread_mutex_lock(&g_mutex);
	g_lock_calls++;
	if (g_assoc_readers || g_assoc_writers || g_qos_held)
		fake_violation(
			"lock_slurmctld while holding an assoc_mgr lock (slurmctld takes its own locks first)");
	_check_unlocked_writes("at lock_slurmctld");
	if (l.job == WRITE_LOCK)
		g_job_writers++;
	else if (l.job == READ_LOCK)
		g_job_readers++;
	pthread_mutex_unlock(&g_mutex);
	if (g_hooks.ctld_lock)
		g_hooks.ctld_lock(g_hooks.ctx, l.job, l.node, l.part);
}

static void _ctld_unlocking(void *ctx, slurmctld_lock_t l)
{
	pthread_mutex_lock(&g_mutex);
	if (l.job == WRITE_LOCK) {
		if (!g_job_writers--)
			fake_violation(
				"unlock_slurmctld: job write lock not held");
	} else if (l.job == READ_LOCK) {
		if (!g_job_readers--)
			fake_violation(
				"unlock_slurmctld: job read lock not held");
	}
	if (!g_job_writers)
		g_jobs_sum = _jobs_checksum();
	pthread_mutex_unlock(&g_mutex);
	if (g_hooks.ctld_unlock)
		g_hooks.ctld_unlock(g_hooks.ctx, l.job, l.node, l.part);
}

void assoc_mgr_lock(assoc_mgr_lock_t *l)
{
	pthread_mutex_lock(&g_mutex);
	g_lock_calls++;
	_check_unlocked_writes("at assoc_mgr_lock");
	if (l->assoc == WRITE_LOCK)
		g_assoc_writers++;
	else if (l->assoc == READ_LOCK)
		g_assoc_readers++;
	if (l->qos)
		g_qos_held++;
	pthread_mutex_unlock(&g_mutex);
	if (g_hooks.assoc_lock)
		g_hooks.assoc_lock(g_hooks.ctx, l->assoc, l->qos, l->tres);
}

void assoc_mgr_unlock(assoc_mgr_lock_t *l)
{
	pthread_mutex_lock(&g_mutex);
	if (l->assoc == WRITE_LOCK) {
		if (!g_assoc_writers--)
			fake_violation(
				"assoc_mgr_unlock: assoc write lock not held");
	} else if (l->assoc == READ_LOCK) {
		if (!g_assoc_readers--)
			fake_violation(
				"assoc_mgr_unlock: assoc read lock not held");
	}
	if (l->qos && !g_qos_held--)
		fake_violation("assoc_mgr_unlock: qos lock not held");
	if (!g_assoc_writers && !g_assoc_readers)
		g_assocs_sum = _assocs_checksum();
	pthread_mutex_unlock(&g_mutex);
	if (g_hooks.assoc_unlock)
		g_hooks.assoc_unlock(g_hooks.ctx, l->assoc, l->qos, l->tres);
}

/* Under g_mutex: a calculation thread may be taking or dropping a lock meanwhile. */
int fake_locks_held(void)
{
	pthread_mutex_lock(&g_mutex);
	int n = g_job_readers + g_job_writers + g_assoc_readers +
		g_assoc_writers + g_qos_held;
	pthread_mutex_unlock(&g_mutex);
	return n;
}

int fake_lock_calls(void)
{
	pthread_mutex_lock(&g_mutex);
	int n = g_lock_calls;
	pthread_mutex_unlock(&g_mutex);
	return n;
}

/* ------------------------------------------------------------------------- */
/* Lists (a small array list; the tracker knows job_list and the assoc list)  */
/* ------------------------------------------------------------------------- */

struct listIterator {
	struct xlist *l;
	int pos;
};

void **fake_list_items(list_t *l, int *n)
{
	*n = l ? l->n : 0;
	return l ? l->items : NULL;
}

static void _check_list_access(list_t *l, const char *op)
{
	if (l && (l == job_list) && !g_job_readers && !g_job_writers)
		fake_violation("%s on job_list without the job lock", op);
	if (l && (l == assoc_mgr_assoc_list) && !g_assoc_readers &&
	    !g_assoc_writers)
		fake_violation(
			"%s on the association list without the assoc lock",
			op);
}

list_t *list_create(ListDelF f)
{
	struct xlist *l = calloc(1, sizeof(*l));
	l->del = f;
	return l;
}

void list_destroy(list_t *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++)
		if (l->del)
			l->del(l->items[i]);
	free(l->items);
	free(l);
}

fake_list_append_ret_t list_append(list_t *l, void *x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->items = realloc(l->items, sizeof(void *) * l->cap);
	}
	l->items[l->n++] = x;
	FAKE_LIST_APPEND_RETURN(x);
}

int list_delete_all(list_t *l, ListFindF f, void *key)
{
	int kept = 0, deleted = 0;

	_check_list_access(l, "list_delete_all");
	for (int i = 0; i < l->n; i++) {
		if (f(l->items[i], key)) {
			if (l->del)
				l->del(l->items[i]);
			deleted++;
		} else {
			l->items[kept++] = l->items[i];
		}
	}
	l->n = kept;
	return deleted;
}

int list_count(list_t *l)
{
	return l ? l->n : 0;
}

void *list_find_first(list_t *l, ListFindF f, void *key)
{
	_check_list_access(l, "list_find_first");
	for (int i = 0; l && i < l->n; i++)
		if (f(l->items[i], key))
			return l->items[i];
	return NULL;
}

int list_for_each(list_t *l, ListForF f, void *arg)
{
	int n = 0;
	_check_list_access(l, "list_for_each");
	for (int i = 0; l && i < l->n; i++, n++)
		if (f(l->items[i], arg) < 0)
			return -(n + 1);
	return n;
}

/* Up to *max items (-1: all); *max becomes the number left, as Slurm's. */
int list_for_each_max(list_t *l, int *max, ListForF f, void *arg,
		      int break_on_fail, int write_lock)
{
	int n = 0;
	bool failed = false;

	(void) write_lock;
	_check_list_access(l, "list_for_each_max");
	for (int i = 0; l && i < l->n && (*max == -1 || n < *max); i++) {
		n++;
		if (f(l->items[i], arg) < 0) {
			failed = true;
			if (break_on_fail)
				break;
		}
	}
	*max = (l ? l->n : 0) - n;
	return failed ? -n : n;
}

void list_sort(list_t *l, ListCmpF f)
{
	qsort(l->items, l->n, sizeof(void *),
	      (int (*)(const void *, const void *)) f);
}

list_itr_t *list_iterator_create(list_t *l)
{
	struct listIterator *it = calloc(1, sizeof(*it));
	_check_list_access(l, "list_iterator_create");
	it->l = l;
	return it;
}

void *list_next(list_itr_t *it)
{
	_check_list_access(it->l, "list_next");
	if (it->pos >= it->l->n)
		return NULL;
	return it->l->items[it->pos++];
}

void list_iterator_destroy(list_itr_t *it)
{
	free(it);
}

/* ------------------------------------------------------------------------- */
/* xmalloc, xstring, logging                                                 */
/* ------------------------------------------------------------------------- */

/* The size of every block slurm_xcalloc/slurm_xrecalloc returned, for
 * xsize (a pointer the mock did not allocate has none). */
static struct {
	void *p;
	size_t size;
} * g_blocks;
static size_t g_nblocks, g_blocks_cap;
static pthread_mutex_t g_blocks_mutex = PTHREAD_MUTEX_INITIALIZER;

static void _block_forget(void *p)
{
	pthread_mutex_lock(&g_blocks_mutex);
	for (size_t i = 0; i < g_nblocks; i++)
		if (g_blocks[i].p == p) {
			g_blocks[i] = g_blocks[--g_nblocks];
			break;
		}
	pthread_mutex_unlock(&g_blocks_mutex);
}

static void *_block_new(size_t cnt, size_t sz)
{
	void *p = calloc(cnt ? cnt : 1, sz ? sz : 1);

	if (!p)
		abort();
	_block_forget(p); /* freed with free() since */
	pthread_mutex_lock(&g_blocks_mutex);
	if (g_nblocks == g_blocks_cap) {
		g_blocks_cap = g_blocks_cap ? 2 * g_blocks_cap : 256;
		g_blocks = realloc(g_blocks, sizeof(*g_blocks) * g_blocks_cap);
		if (!g_blocks)
			abort();
	}
	g_blocks[g_nblocks].p = p;
	g_blocks[g_nblocks++].size = cnt * sz;
	pthread_mutex_unlock(&g_blocks_mutex);
	return p;
}

void *slurm_xcalloc(size_t cnt, size_t sz, bool clear, bool try_,
		    const char *file, int line, const char *func)
{
	return _block_new(cnt, sz);
}

void *slurm_xrecalloc(void **p, size_t cnt, size_t sz, bool clear, bool try_,
		      const char *file, int line, const char *func)
{
	/* As Slurm's: the old contents kept, the new space zeroed. */
	size_t old = 0;
	void *n = _block_new(cnt, sz);

	if (*p) {
		pthread_mutex_lock(&g_blocks_mutex);
		for (size_t i = 0; i < g_nblocks; i++)
			if (g_blocks[i].p == *p) {
				old = g_blocks[i].size;
				break;
			}
		pthread_mutex_unlock(&g_blocks_mutex);
		memcpy(n, *p, (old < cnt * sz) ? old : cnt * sz);
		_block_forget(*p);
		free(*p);
	}
	*p = n;
	return *p;
}

void slurm_xfree(void **p)
{
	if (p && *p) {
		_block_forget(*p);
		free(*p);
		*p = NULL;
	}
}

size_t xsize(void *p)
{
	size_t size = 0;

	pthread_mutex_lock(&g_blocks_mutex);
	for (size_t i = 0; i < g_nblocks; i++)
		if (g_blocks[i].p == p)
			size = g_blocks[i].size;
	pthread_mutex_unlock(&g_blocks_mutex);
	if (!size)
		fake_violation("xsize of memory xmalloc did not allocate");
	return size;
}

char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *xstrdup_printf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

int xstrcmp(const char *a, const char *b)
{
	if (!a && !b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

static void _log(int level, const char *fmt, va_list ap)
{
	char buf[1024];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (g_hooks.log)
		g_hooks.log(g_hooks.ctx, level, buf);
}

int get_log_level(void)
{
	return LOG_LEVEL_DEBUG5;
}

void log_var(const log_level_t level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_log(level, fmt, ap);
	va_end(ap);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_log(LOG_LEVEL_ERROR, fmt, ap);
	va_end(ap);
	return SLURM_ERROR;
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_log(LOG_LEVEL_FATAL, fmt, ap);
	va_end(ap);
	fake_violation("fatal() called: the plugin must never stop slurmctld");
	abort();
}

/* slurm_thread_create from 26.05 on: a thread of its own (Slurm 26.05's pool
 * is disabled, and so joinable with pthread_join). */
int threadpool_create(void *(*func)(void *), const char *func_name, void *arg,
		      const bool detached, const char *thread_name,
		      pthread_t *id_ptr, const char *caller)
{
	pthread_t id;
	int rc = pthread_create(&id, NULL, func, arg);

	if (!rc && detached)
		pthread_detach(id);
	if (id_ptr)
		*id_ptr = rc ? 0 : id;
	return rc;
}

/* What slurm_mutex_lock and the like call on failure (24.11 on). */
void fatal_abort(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_log(LOG_LEVEL_FATAL, fmt, ap);
	va_end(ap);
	fake_violation("fatal_abort() called");
	abort();
}

/* ------------------------------------------------------------------------- */
/* Other Slurm functions the shim calls                                      */
/* ------------------------------------------------------------------------- */

/* slurm_thread_create's failure message (26.05) names the error with it. */
char *slurm_strerror(int errnum)
{
	return strerror(errnum);
}

bool slurm_with_slurmdbd(void)
{
	return g_hooks.with_slurmdbd ? g_hooks.with_slurmdbd(g_hooks.ctx) :
				       true;
}

static bool _is_operator(void *ctx, uid_t uid)
{
	return g_hooks.validate_operator ?
		g_hooks.validate_operator(g_hooks.ctx, uid) :
		(uid == 0);
}

bool assoc_mgr_is_user_acct_coord(void *db_conn, uint32_t uid,
				  char *acct FAKE_COORD_IS_LOCKED_PARAM)
{
	return g_hooks.is_coord ? g_hooks.is_coord(g_hooks.ctx, uid, acct) :
				  false;
}

int slurm_mcs_get_privatedata(void)
{
	return 0;
}
int mcs_g_check_mcs_label(uint32_t user_id, char *mcs_label, bool assoc_locked)
{
	return 1;
}

/* site_factor_plugin_init/fini before 23.11, site_factor_g_init/fini from
 * 23.11 on, site_factor_g_reconfig before 24.11 */
int site_factor_plugin_init(void)
{
	return SLURM_SUCCESS;
}
int site_factor_plugin_fini(void)
{
	return SLURM_SUCCESS;
}
void site_factor_g_reconfig(void) {}
int site_factor_g_init(void)
{
	return SLURM_SUCCESS;
}
int site_factor_g_fini(void)
{
	return SLURM_SUCCESS;
}
void site_factor_g_set(job_record_t *job_ptr) {}
void site_factor_g_update(void) {}

/* PriorityWeightTRES as Slurm reads it: NAME=WEIGHT pairs, each name matched
 * without regard to case against assoc_mgr's TRES names; NULL without any. */
double *slurm_get_tres_weight_array(char *weights_str, int tres_cnt, bool fail)
{
	char *copy, *tok, *save = NULL;
	double *w;

	if (!weights_str || !*weights_str || (tres_cnt <= 0))
		return NULL;
	w = xcalloc(tres_cnt, sizeof(*w));
	copy = strdup(weights_str);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		for (int i = 0; i < tres_cnt; i++)
			if (assoc_mgr_tres_name_array[i] &&
			    !strcasecmp(assoc_mgr_tres_name_array[i], tok))
				w[i] = strtod(eq + 1, NULL);
	}
	free(copy);
	return w;
}

int priority_sort_part_tier(void *x, void *y)
{
	part_record_t *a = *(part_record_t **) x, *b = *(part_record_t **) y;
	return (a->priority_tier > b->priority_tier)  ? -1 :
		(a->priority_tier < b->priority_tier) ? 1 :
							0;
}

/* slurm_copy_priority_factors_object before 23.11, slurm_copy_priority_factors
 * from 23.11 on */
void fake_copy_prio_factors(fw_prio_factors_t *dest, fw_prio_factors_t *src)
{
	if (!src) {
		memset(dest, 0, sizeof(*dest));
		return;
	}
	*dest = *src;
	dest->priority_tres = NULL;
	dest->tres_weights = NULL;
	dest->tres_names = NULL;
}

void slurm_destroy_priority_factors_object(void *object)
{
	free(object);
}

/* 23.11 on: a row's factors (copied by the mock above: no arrays). */
void slurm_destroy_priority_factors(void *object)
{
	free(object);
}

/* libslurmfull's from 24.11 on, test/slurmctld/fake_slurmctld.c's before. */
__attribute__((weak)) void lock_state_files(void) {}
__attribute__((weak)) void unlock_state_files(void) {}

void slurmdb_destroy_assoc_usage(void *object)
{
	slurmdb_assoc_usage_t *u = object;
	if (!u)
		return;
	free(u->usage_tres_raw);
	free(u->grp_used_tres_run_secs);
	free(u);
}

static void _billable_tres(void *ctx, job_record_t *job, bool assoc_mgr_locked)
{
	if (!assoc_mgr_locked)
		fake_violation("calc_job_billable_tres without the assoc lock");
}

/* ------------------------------------------------------------------------- */
/* The watcher around the calls of fake_slurm_fixtures.c                     */
/* ------------------------------------------------------------------------- */

/* Between fake_teardown and building a new cluster: the test's hooks, and
 * fake_slurmctld.c's locks reporting to the watcher. */
void fake_watch_reset(const fake_hooks_t *hooks)
{
	fake_ctld_hooks_t ctld = { .locked = _ctld_locked,
				   .unlocking = _ctld_unlocking,
				   .is_operator = _is_operator,
				   .billable_tres = _billable_tres };

	memset(&g_hooks, 0, sizeof(g_hooks));
	if (hooks)
		g_hooks = *hooks;
	fake_ctld_set_hooks(&ctld);
	fake_ctld_use_rwlocks(true);
}

/* No lock held, none taken yet. */
void fake_watch_zero(void)
{
	g_job_readers = g_job_writers = g_assoc_readers = g_assoc_writers = 0;
	g_qos_held = g_lock_calls = 0;
}

/* After an entry point: every lock released, nothing written unlocked. */
void fake_after(const char *what)
{
	pthread_mutex_lock(&g_mutex);
	_check_unlocked_writes(what);
	pthread_mutex_unlock(&g_mutex);
}

/* The job write lock, as slurmctld holds it around an entry point: the
 * plugin's calculation thread waits for it.  Job fields written under it are
 * the caller's to store, so its release takes them as the new base. */
void fake_caller_job_lock(bool take)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };

	if (take)
		fake_ctld_caller_locks(job_write, true);
	pthread_mutex_lock(&g_mutex);
	if (take) {
		g_job_writers++;
	} else {
		g_job_writers--;
		if (!g_job_writers)
			g_jobs_sum = _jobs_checksum();
	}
	pthread_mutex_unlock(&g_mutex);
	if (!take)
		fake_ctld_caller_locks(job_write, false);
}

/* The job and QOS read locks slurmctld holds around sprio's call (take), or
 * their release. */
void fake_caller_readers(bool take)
{
	pthread_mutex_lock(&g_mutex);
	if (take) {
		g_job_readers++;
		g_qos_held++;
	} else {
		g_job_readers--;
		g_qos_held--;
	}
	pthread_mutex_unlock(&g_mutex);
}
