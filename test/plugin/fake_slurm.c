/*
 * fake_slurm.c - libslurmfull's functions and globals for the shim under test, and the
 * watcher of the locks the shim takes; see fake_slurm.h.  What slurmctld itself defines
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

/* ---- libslurmfull's globals ---- */
slurm_conf_t slurm_conf;
list_t *assoc_mgr_assoc_list = NULL;
list_t *assoc_mgr_qos_list = NULL;
slurmdb_assoc_rec_t *assoc_mgr_root_assoc = NULL;
char **assoc_mgr_tres_name_array = NULL;
uint32_t g_tres_count = 0;
int node_record_count = 0;
int active_node_record_count = 0;	/* 24.11 on */

/* the shim's entry points; weak: those of some releases only */
extern int init(void);
extern int fini(void);
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr);
extern void priority_p_reconfig(bool assoc_clear);
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc);
extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
	__attribute__((weak));			/* before 25.11 */
extern fake_sprio_f priority_p_get_priority_factors_list;
extern void priority_p_thread_start(void) __attribute__((weak));/* 24.05 on */
extern uint32_t priority_p_recover(uint32_t prio_boost)
	__attribute__((weak));			/* 23.02 on */
extern void priority_p_job_end(job_record_t *job_ptr);
extern int priority_fairway_recalc(time_t now);
extern int priority_fairway_cycle(time_t now);

static fake_hooks_t g_hooks;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------------- */
/* Violations and the lock tracker                                           */
/* ------------------------------------------------------------------------- */

static void _violation(const char *fmt, ...)
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
static uint64_t g_jobs_sum, g_assocs_sum;	/* fields when last unlocked */

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
			double v[6] = { f->priority_age, f->priority_assoc,
					f->priority_fs, f->priority_js,
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
static void _rebase(void)
{
	g_jobs_sum = _jobs_checksum();
	g_assocs_sum = _assocs_checksum();
}

/* Did a job or association change since it was last unlocked? */
static void _check_unlocked_writes(const char *when)
{
	if (!g_job_writers && (_jobs_checksum() != g_jobs_sum))
		_violation("job fields changed without the job write lock (noticed %s)",
			   when);
	if (!g_assoc_writers && !g_assoc_readers &&
	    (_assocs_checksum() != g_assocs_sum))
		_violation("association fields changed without an assoc_mgr lock (noticed %s)",
			   when);
}

/* lock_slurmctld and unlock_slurmctld (fake_slurmctld.c) report here. */
static void _ctld_locked(void *ctx, slurmctld_lock_t l)
{
	pthread_mutex_lock(&g_mutex);
	g_lock_calls++;
	if (g_assoc_readers || g_assoc_writers || g_qos_held)
		_violation("lock_slurmctld while holding an assoc_mgr lock (slurmctld takes its own locks first)");
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
			_violation("unlock_slurmctld: job write lock not held");
	} else if (l.job == READ_LOCK) {
		if (!g_job_readers--)
			_violation("unlock_slurmctld: job read lock not held");
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
			_violation("assoc_mgr_unlock: assoc write lock not held");
	} else if (l->assoc == READ_LOCK) {
		if (!g_assoc_readers--)
			_violation("assoc_mgr_unlock: assoc read lock not held");
	}
	if (l->qos && !g_qos_held--)
		_violation("assoc_mgr_unlock: qos lock not held");
	if (!g_assoc_writers && !g_assoc_readers)
		g_assocs_sum = _assocs_checksum();
	pthread_mutex_unlock(&g_mutex);
	if (g_hooks.assoc_unlock)
		g_hooks.assoc_unlock(g_hooks.ctx, l->assoc, l->qos, l->tres);
}

int fake_locks_held(void)
{
	return g_job_readers + g_job_writers + g_assoc_readers +
		g_assoc_writers + g_qos_held;
}

int fake_lock_calls(void)
{
	return g_lock_calls;
}

/* ------------------------------------------------------------------------- */
/* Lists (a small array list; the tracker knows job_list and the assoc list)  */
/* ------------------------------------------------------------------------- */

struct xlist {
	void **items;
	int n, cap;
	ListDelF del;
};

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
		_violation("%s on job_list without the job lock", op);
	if (l && (l == assoc_mgr_assoc_list) && !g_assoc_readers &&
	    !g_assoc_writers)
		_violation("%s on the association list without the assoc lock",
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
	qsort(l->items, l->n, sizeof(void *), (int (*)(const void *, const void *)) f);
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
} *g_blocks;
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
	_block_forget(p);	/* freed with free() since */
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
		_violation("xsize of memory xmalloc did not allocate");
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
	_violation("fatal() called: the plugin must never stop slurmctld");
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
	_violation("fatal_abort() called");
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
	return g_hooks.with_slurmdbd ? g_hooks.with_slurmdbd(g_hooks.ctx) : true;
}

static bool _is_operator(void *ctx, uid_t uid)
{
	return g_hooks.validate_operator ?
		g_hooks.validate_operator(g_hooks.ctx, uid) : (uid == 0);
}

bool assoc_mgr_is_user_acct_coord(void *db_conn, uint32_t uid,
				  char *acct FAKE_COORD_IS_LOCKED_PARAM)
{
	return g_hooks.is_coord ? g_hooks.is_coord(g_hooks.ctx, uid, acct) : false;
}

int slurm_mcs_get_privatedata(void) { return 0; }
int mcs_g_check_mcs_label(uint32_t user_id, char *mcs_label, bool assoc_locked)
{
	return 1;
}

/* site_factor_plugin_init/fini and site_factor_g_reconfig before 24.11,
 * site_factor_g_init/fini from 24.11 on */
int site_factor_plugin_init(void) { return SLURM_SUCCESS; }
int site_factor_plugin_fini(void) { return SLURM_SUCCESS; }
void site_factor_g_reconfig(void) {}
int site_factor_g_init(void) { return SLURM_SUCCESS; }
int site_factor_g_fini(void) { return SLURM_SUCCESS; }
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
	return (a->priority_tier > b->priority_tier) ? -1 :
		(a->priority_tier < b->priority_tier) ? 1 : 0;
}

/* slurm_copy_priority_factors_object before 24.11, slurm_copy_priority_factors
 * from 24.11 on */
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

/* 24.11 on: a row's factors (copied by the mock above: no arrays). */
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
		_violation("calc_job_billable_tres without the assoc lock");
}

/* ------------------------------------------------------------------------- */
/* Fixtures                                                                  */
/* ------------------------------------------------------------------------- */

#define MAX_PARTS 8
#define MAX_QOS 8
static part_record_t g_parts[MAX_PARTS];
static int g_nparts;
static slurmdb_qos_rec_t *g_qos[MAX_QOS];
static int g_nqos;

static void _free_assoc(void *x)
{
	slurmdb_assoc_rec_t *a = x;
	if (a->usage) {
		list_destroy(a->usage->children_list);
		slurmdb_destroy_assoc_usage(a->usage);
	}
	free(a->acct);
	free(a->user);
	free(a);
}

static void _free_qos(void *x)
{
	slurmdb_qos_rec_t *q = x;
	if (q->usage) {
		list_destroy(q->usage->acct_limit_list);
		list_destroy(q->usage->user_limit_list);
		free(q->usage->usage_tres_raw);
		free(q->usage->grp_used_tres_run_secs);
		free(q->usage);
	}
	free(q->name);
	free(q);
}

void fake_teardown(void)
{
	list_destroy(job_list);
	job_list = NULL;
	list_destroy(assoc_mgr_assoc_list);
	assoc_mgr_assoc_list = NULL;
	list_destroy(assoc_mgr_qos_list);
	assoc_mgr_qos_list = NULL;
	list_destroy(part_list);
	part_list = NULL;
	assoc_mgr_root_assoc = NULL;
	for (int i = 0; i < g_nparts; i++) {
		free(g_parts[i].name);
		free(g_parts[i].tres_cnt);
	}
	g_nparts = 0;
	g_nqos = 0;
	free(slurm_conf.state_save_location);
	slurm_conf.state_save_location = NULL;
	free(slurm_conf.priority_params);
	slurm_conf.priority_params = NULL;
	free(slurm_conf.priority_weight_tres);
	slurm_conf.priority_weight_tres = NULL;
	free(assoc_mgr_tres_name_array);
	assoc_mgr_tres_name_array = NULL;
}

void fake_reset(const fake_hooks_t *hooks)
{
	fake_ctld_hooks_t ctld = { .locked = _ctld_locked,
				   .unlocking = _ctld_unlocking,
				   .is_operator = _is_operator,
				   .billable_tres = _billable_tres };

	fake_teardown();
	memset(&g_hooks, 0, sizeof(g_hooks));
	if (hooks)
		g_hooks = *hooks;
	fake_ctld_set_hooks(&ctld);
	fake_ctld_use_rwlocks(true);
	memset(&slurm_conf, 0, sizeof(slurm_conf));
	slurm_conf.priority_flags = PRIORITY_FLAGS_FAIR_TREE;
	slurm_conf.fs_dampening_factor = 1;
	slurm_conf.priority_calc_period = 300;
	slurm_conf.priority_max_age = 7 * 86400;
	slurm_conf.state_save_location = strdup("/nonexistent/fairway-test");
	cluster_cpus = NO_VAL;
	fake_ctld_set_node_count(4);
	/* Slurm's five fixed TRES, then a GPU (AccountingStorageTRES=gres/gpu). */
	slurmctld_tres_cnt = FAKE_TRES_GPU + 1;
	accounting_enforce = 0;
	assoc_mgr_tres_name_array = calloc(FAKE_TRES_GPU + 1, sizeof(char *));
	assoc_mgr_tres_name_array[TRES_ARRAY_CPU] = (char *) "cpu";
	assoc_mgr_tres_name_array[TRES_ARRAY_MEM] = (char *) "mem";
	assoc_mgr_tres_name_array[TRES_ARRAY_ENERGY] = (char *) "energy";
	assoc_mgr_tres_name_array[TRES_ARRAY_NODE] = (char *) "node";
	assoc_mgr_tres_name_array[TRES_ARRAY_BILLING] = (char *) "billing";
	assoc_mgr_tres_name_array[FAKE_TRES_GPU] = (char *) "gres/gpu";
	g_tres_count = FAKE_TRES_GPU + 1;
	job_list = list_create(fake_ctld_free_job);
	part_list = list_create(NULL);
	assoc_mgr_assoc_list = list_create(_free_assoc);
	assoc_mgr_qos_list = list_create(_free_qos);
	g_job_readers = g_job_writers = g_assoc_readers = g_assoc_writers = 0;
	g_qos_held = g_lock_calls = 0;
	_rebase();
}

void fake_conf_weights(uint32_t age, uint32_t assoc, uint32_t fs, uint32_t js,
		       uint32_t part, uint32_t qos, uint32_t max_age_secs)
{
	slurm_conf.priority_weight_age = age;
	slurm_conf.priority_weight_assoc = assoc;
	slurm_conf.priority_weight_fs = fs;
	slurm_conf.priority_weight_js = js;
	slurm_conf.priority_weight_part = part;
	slurm_conf.priority_weight_qos = qos;
	slurm_conf.priority_max_age = max_age_secs;
}

void fake_conf_classic(int classic)
{
	if (classic)
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_FAIR_TREE;
	else
		slurm_conf.priority_flags |= PRIORITY_FLAGS_FAIR_TREE;
}

void fake_conf_flag_calculate_running(int on)
{
	if (on)
		slurm_conf.priority_flags |= PRIORITY_FLAGS_CALCULATE_RUNNING;
	else
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_CALCULATE_RUNNING;
}

void fake_conf_flag_incr_only(int on)
{
	if (on)
		slurm_conf.priority_flags |= PRIORITY_FLAGS_INCR_ONLY;
	else
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_INCR_ONLY;
}

void fake_conf_private_jobs(int on)
{
	slurm_conf.private_data = on ? PRIVATE_DATA_JOBS : 0;
}

void fake_conf_state_dir(const char *dir)
{
	free(slurm_conf.state_save_location);
	slurm_conf.state_save_location = strdup(dir);
}

void fake_conf_priority_params(const char *params)
{
	free(slurm_conf.priority_params);
	slurm_conf.priority_params = params ? strdup(params) : NULL;
}

void fake_conf_decay_half_life(uint32_t secs)
{
	slurm_conf.priority_decay_hl = secs;
}

void fake_conf_debug_priority(int on)
{
	if (on)
		slurm_conf.debug_flags |= DEBUG_FLAG_PRIO;
	else
		slurm_conf.debug_flags &= ~DEBUG_FLAG_PRIO;
}

void fake_set_cluster(uint32_t cpus, uint32_t nodes)
{
	cluster_cpus = cpus;
	fake_ctld_set_node_count(nodes);
}

void fake_set_enforce_limits(int on)
{
	accounting_enforce = on ? ACCOUNTING_ENFORCE_LIMITS : 0;
}

static slurmdb_assoc_rec_t *_assoc(uint32_t id)
{
	for (int i = 0; i < assoc_mgr_assoc_list->n; i++) {
		slurmdb_assoc_rec_t *a = assoc_mgr_assoc_list->items[i];
		if (a->id == id)
			return a;
	}
	return NULL;
}

void fake_add_assoc(uint32_t id, uint32_t parent_id, const char *acct,
		    const char *user, uint32_t shares, double usage_raw)
{
	slurmdb_assoc_rec_t *a = calloc(1, sizeof(*a));
	a->id = id;
	a->parent_id = parent_id;
	a->acct = strdup(acct);
	a->user = user ? strdup(user) : NULL;
	a->shares_raw = shares;
	a->usage = calloc(1, sizeof(*a->usage));
	a->usage->tres_cnt = slurmctld_tres_cnt;
	a->usage->usage_tres_raw = calloc(slurmctld_tres_cnt, sizeof(long double));
	a->usage->grp_used_tres_run_secs = calloc(slurmctld_tres_cnt,
						  sizeof(uint64_t));
	a->usage->usage_raw = usage_raw;
	a->usage->usage_norm = (long double) NO_VAL;
	a->usage->children_list = list_create(NULL);
	list_append(assoc_mgr_assoc_list, a);
	if (!parent_id)
		assoc_mgr_root_assoc = a;
	_rebase();
}

/* Parent pointers, children lists, the fair-share parent, level_shares and
 * classic normalized shares, as assoc_mgr would set them. */
void fake_link_tree(void)
{
	for (int i = 0; i < assoc_mgr_assoc_list->n; i++) {
		slurmdb_assoc_rec_t *a = assoc_mgr_assoc_list->items[i];
		slurmdb_assoc_rec_t *p = a->parent_id ? _assoc(a->parent_id) : NULL;
		a->usage->parent_assoc_ptr = p;
		a->usage->fs_assoc_ptr = p;
		while (a->usage->fs_assoc_ptr &&
		       (a->usage->fs_assoc_ptr->shares_raw == SLURMDB_FS_USE_PARENT) &&
		       a->usage->fs_assoc_ptr->usage->parent_assoc_ptr)
			a->usage->fs_assoc_ptr =
				a->usage->fs_assoc_ptr->usage->parent_assoc_ptr;
		if (a->usage->fs_assoc_ptr)
			list_append(a->usage->fs_assoc_ptr->usage->children_list, a);
	}
	for (int i = 0; i < assoc_mgr_assoc_list->n; i++) {
		slurmdb_assoc_rec_t *a = assoc_mgr_assoc_list->items[i];
		slurmdb_assoc_rec_t *p = a->usage->fs_assoc_ptr;
		uint32_t level = 0;
		if (!p) {
			a->usage->shares_norm = 1.0;
			continue;
		}
		for (int k = 0; k < p->usage->children_list->n; k++) {
			slurmdb_assoc_rec_t *s = p->usage->children_list->items[k];
			if (s->shares_raw != SLURMDB_FS_USE_PARENT)
				level += s->shares_raw;
		}
		a->usage->level_shares = level;
		a->usage->shares_norm = level ?
			(double) a->shares_raw / level : 0;
	}
	_rebase();
}

/* assoc_mgr's normalization of one association's shares, by the PriorityFlags
 * in slurm_conf: under Fair Tree its raw shares over its level's (those of the
 * association it shares with, for Fairshare=parent); otherwise the product of
 * that ratio at every level up to the root, or the fair-share parent's value
 * for Fairshare=parent. */
void assoc_mgr_normalize_assoc_shares(slurmdb_assoc_rec_t *assoc)
{
	slurmdb_assoc_rec_t *a = assoc;
	double norm = 1.0;

	if (slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE) {
		if ((a->shares_raw == SLURMDB_FS_USE_PARENT) &&
		    a->usage->fs_assoc_ptr)
			a = a->usage->fs_assoc_ptr;
		assoc->usage->shares_norm = a->usage->level_shares ?
			(double) a->shares_raw / a->usage->level_shares : 0.0;
		return;
	}
	if ((a->shares_raw == SLURMDB_FS_USE_PARENT) && a->usage->fs_assoc_ptr) {
		assoc->usage->shares_norm =
			a->usage->fs_assoc_ptr->usage->shares_norm;
		return;
	}
	for (; a->usage->parent_assoc_ptr; a = a->usage->parent_assoc_ptr) {
		if (a->shares_raw == SLURMDB_FS_USE_PARENT)
			continue;
		norm = a->usage->level_shares ?
			norm * a->shares_raw / a->usage->level_shares : 0.0;
	}
	assoc->usage->shares_norm = norm;
}

double fake_assoc_shares_norm(uint32_t id) { return _assoc(id)->usage->shares_norm; }
double fake_assoc_fs_factor(uint32_t id) { return _assoc(id)->usage->fs_factor; }
long double fake_assoc_level_fs(uint32_t id) { return _assoc(id)->usage->level_fs; }
long double fake_assoc_usage_raw(uint32_t id) { return _assoc(id)->usage->usage_raw; }
long double fake_assoc_usage_efctv(uint32_t id) { return _assoc(id)->usage->usage_efctv; }

void fake_assoc_poison(uint32_t id)
{
	slurmdb_assoc_rec_t *a = _assoc(id);
	a->usage->fs_factor = 12345.0;
	a->usage->level_fs = 12345.0L;
	_rebase();
}

void fake_assoc_set_usage(uint32_t id, double usage_raw)
{
	_assoc(id)->usage->usage_raw = usage_raw;
	_rebase();
}

void fake_add_user_linked(uint32_t id, uint32_t parent_id, const char *user,
			  uint32_t shares, double usage_raw)
{
	slurmdb_assoc_rec_t *p = _assoc(parent_id), *a;
	fake_add_assoc(id, parent_id, p->acct, user, shares, usage_raw);
	a = _assoc(id);
	a->usage->parent_assoc_ptr = p;
	a->usage->fs_assoc_ptr = p;
	list_append(p->usage->children_list, a);
	_rebase();
}

void fake_make_cycle(uint32_t id, uint32_t new_parent_id)
{
	_assoc(id)->parent_id = new_parent_id;
	_rebase();
}

void fake_add_part(const char *name, uint32_t priority_job_factor, double norm)
{
	part_record_t *p = &g_parts[g_nparts++];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	p->priority_job_factor = priority_job_factor;
	p->norm_priority = norm;
	p->max_time = INFINITE;
	p->tres_cnt = calloc(slurmctld_tres_cnt, sizeof(uint64_t));
	list_append(part_list, p);
}

void fake_add_qos(uint32_t id, const char *name, uint32_t priority, double norm)
{
	slurmdb_qos_rec_t *q = calloc(1, sizeof(*q));
	q->id = id;
	q->name = strdup(name);
	q->priority = priority;
	q->usage_factor = 1.0;
	q->usage = calloc(1, sizeof(*q->usage));
	q->usage->norm_priority = norm;
	q->usage->usage_tres_raw = calloc(slurmctld_tres_cnt, sizeof(long double));
	q->usage->grp_used_tres_run_secs = calloc(slurmctld_tres_cnt,
						  sizeof(uint64_t));
	list_append(assoc_mgr_qos_list, q);
	g_qos[g_nqos++] = q;
}

static job_record_t *_job(uint32_t job_id)
{
	for (int i = 0; i < job_list->n; i++) {
		job_record_t *j = job_list->items[i];
		if (j->job_id == job_id)
			return j;
	}
	fprintf(stderr, "fake: no job %u\n", job_id);
	abort();
}

void fake_add_job(uint32_t job_id, uint32_t assoc_id, const char *part,
		  const char *qos, int state, uint32_t cpus, uint32_t nodes,
		  uint32_t user_id)
{
	job_record_t *j = calloc(1, sizeof(*j));
	j->magic = JOB_MAGIC;
	fake_ctld_job_set_id(j, job_id);
	j->job_state = (state == 0) ? JOB_PENDING :
		(state == 1) ? JOB_RUNNING : JOB_COMPLETE;
	j->assoc_id = assoc_id;
	j->assoc_ptr = _assoc(assoc_id);
	j->account = j->assoc_ptr ? strdup(j->assoc_ptr->acct) : NULL;
	j->user_id = user_id;
	j->part_ptr = part ? find_part_record((char *) part) : NULL;
	j->partition = part ? strdup(part) : NULL;
	for (int i = 0; qos && i < g_nqos; i++)
		if (!strcmp(g_qos[i]->name, qos))
			j->qos_ptr = g_qos[i];
	j->priority = 1;
	j->site_factor = NICE_OFFSET;
	j->time_limit = 60;
	j->details = calloc(1, sizeof(*j->details));
	j->details->min_cpus = cpus;
	j->details->max_cpus = NO_VAL;
	j->details->min_nodes = nodes;
	j->details->nice = NICE_OFFSET;
	j->details->submit_time = 1000;
	j->details->begin_time = 1000;
	j->details->accrue_time = 1000;
	j->tres_alloc_cnt = calloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_alloc_cnt[TRES_ARRAY_CPU] = cpus;
	j->tres_req_cnt = calloc(slurmctld_tres_cnt, sizeof(uint64_t));
	j->tres_req_cnt[TRES_ARRAY_CPU] = cpus;
	if (state) {
		j->total_cpus = cpus;
		j->start_time = 1000;
		j->end_time_exp = 1000 + 3600;
	}
	list_append(job_list, j);
	_rebase();
}

void fake_job_set(uint32_t job_id, const char *field, long long v)
{
	job_record_t *j = _job(job_id);
	if (!strcmp(field, "priority"))
		j->priority = v;
	else if (!strcmp(field, "direct_set_prio"))
		j->direct_set_prio = v;
	else if (!strcmp(field, "nice"))
		j->details->nice = NICE_OFFSET + v;
	else if (!strcmp(field, "site_factor"))
		j->site_factor = NICE_OFFSET + v;
	else if (!strcmp(field, "nodes"))	/* nonzero: given node n1 */
		j->nodes = v ? (char *) "n1" : NULL;
	else if (!strcmp(field, "waits_for_resources"))
		j->state_reason = v ? WAIT_RESOURCES : WAIT_PRIORITY;
	else if (!strcmp(field, "start_time"))
		j->start_time = v;
	else if (!strcmp(field, "end_time"))
		j->end_time = v;
	else if (!strcmp(field, "end_time_exp"))
		j->end_time_exp = v;
	else if (!strcmp(field, "total_cpus"))
		j->total_cpus = v;
	else if (!strcmp(field, "time_limit"))
		j->time_limit = v;
	else if (!strcmp(field, "accrue_time"))
		j->details->accrue_time = v;
	else if (!strcmp(field, "begin_time"))
		j->details->begin_time = v;
	else if (!strcmp(field, "state"))
		j->job_state = (v == 0) ? JOB_PENDING : (v == 1) ? JOB_RUNNING :
			JOB_COMPLETE;
	else if (!strcmp(field, "no_details")) {
		free(j->details);
		j->details = NULL;
	} else if (!strcmp(field, "no_assoc"))
		j->assoc_ptr = NULL;
	else if (!strcmp(field, "no_part"))
		j->part_ptr = NULL;
	else if (!strcmp(field, "no_qos"))
		j->qos_ptr = NULL;
	else {
		fprintf(stderr, "fake_job_set: unknown field %s\n", field);
		abort();
	}
	_rebase();
}

uint32_t fake_job_priority(uint32_t job_id) { return _job(job_id)->priority; }
int fake_job_has_factors(uint32_t job_id) { return _job(job_id)->prio_factors != NULL; }

/* The same under the job read lock (no hooks), for a test that asks while the
 * calculation thread may be weighing. */
int fake_job_has_factors_locked(uint32_t job_id)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	int has;

	fake_ctld_caller_locks(job_read, true);
	has = _job(job_id)->prio_factors != NULL;
	fake_ctld_caller_locks(job_read, false);
	return has;
}

double fake_job_factor(uint32_t job_id, const char *name)
{
	fw_prio_factors_t *f = _job(job_id)->prio_factors;
	if (!f)
		return NAN;
	if (!strcmp(name, "fs")) return f->priority_fs;
	if (!strcmp(name, "age")) return f->priority_age;
	if (!strcmp(name, "js")) return f->priority_js;
	if (!strcmp(name, "part")) return f->priority_part;
	if (!strcmp(name, "qos")) return f->priority_qos;
	return NAN;
}

/* ------------------------------------------------------------------------- */
/* Entry points, called as slurmctld calls them                              */
/* ------------------------------------------------------------------------- */

/* After an entry point: every lock released, nothing written unlocked. */
static void _after(const char *what)
{
	pthread_mutex_lock(&g_mutex);
	_check_unlocked_writes(what);
	pthread_mutex_unlock(&g_mutex);
}

/* The job write lock, as slurmctld holds it around an entry point: the
 * plugin's calculation thread waits for it.  Job fields written under it are
 * the caller's to store, so its release takes them as the new base. */
static void _caller_job_lock(bool take)
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

/*
 * As slurmctld starts the plugin: init, then (24.05 on) priority_p_thread_start
 * once the nodes are read, both holding the config write lock from 24.11 on;
 * then (23.02 on) priority_p_recover once the jobs are loaded, no lock held.
 * Outside slurmctld (cluster_cpus NO_VAL: sshare) init alone, no lock.
 */
int fake_call_init(void)
{
	bool in_slurmctld = (cluster_cpus != NO_VAL);
	bool caller_locks = in_slurmctld && FW_INIT_CALLER_LOCKS;
	int rc;

	_rebase();
	if (caller_locks)
		_caller_job_lock(true);
	rc = init();
	if (in_slurmctld && priority_p_thread_start)
		priority_p_thread_start();
	if (caller_locks)
		_caller_job_lock(false);
	_after("after init");
	if ((rc == SLURM_SUCCESS) && in_slurmctld && priority_p_recover) {
		_rebase();
		(void) priority_p_recover(0);
		_after("after priority_p_recover");
	}
	return rc;
}

int fake_call_fini(void)
{
	int rc = fini();
	_after("after fini");
	if (fake_locks_held())
		_violation("locks still held after fini");
	return rc;
}

uint32_t fake_call_set(uint32_t job_id)
{
	uint32_t p;
	_rebase();
	_caller_job_lock(true);
	p = priority_p_set(0, _job(job_id));
	_caller_job_lock(false);
	_rebase();	/* the caller stores the result under its lock */
	if (fake_locks_held())
		_violation("locks still held after priority_p_set");
	return p;
}

void fake_call_reconfig(int assoc_clear)
{
	_rebase();
	priority_p_reconfig(assoc_clear);
	_after("after priority_p_reconfig");
	if (fake_locks_held())
		_violation("locks still held after priority_p_reconfig");
}

void fake_call_job_end(uint32_t job_id)
{
	_rebase();
	_caller_job_lock(true);
	priority_p_job_end(_job(job_id));
	_caller_job_lock(false);
	_rebase();
	if (fake_locks_held())
		_violation("locks still held after priority_p_job_end");
}

void fake_call_set_assoc_usage(uint32_t id)
{
	/* Callers (sshare's RPC, a job's fair-share) hold the assoc lock. */
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	if (!id) {
		priority_p_set_assoc_usage(NULL);
		return;
	}
	assoc_mgr_lock(&locks);
	priority_p_set_assoc_usage(_assoc(id));
	assoc_mgr_unlock(&locks);
}

double fake_call_calc_fs_factor(long double usage_efctv, long double shares_norm)
{
	if (!priority_p_calc_fs_factor)
		return NAN;
	return priority_p_calc_fs_factor(usage_efctv, shares_norm);
}

int fake_has_calc_fs_factor(void)
{
	return priority_p_calc_fs_factor != NULL;
}

int fake_classic_stores_fs_factor(void)
{
	return FW_CLASSIC_STORES_FS_FACTOR;
}

int fake_thread_without_fair_share(void)
{
	return FW_THREAD_WITHOUT_FAIR_SHARE;
}

int fake_sprio_caller_locks(void)
{
	return FW_SPRIO_CALLER_LOCKS;
}

/* sprio's list as slurmctld asks for it, with the locks it holds around it. */
static list_t *_sprio(fake_sprio_req_t *req, unsigned uid)
{
	list_t *ret;

	_rebase();
	/* From 24.11 slurmctld holds its job, node and partition read locks
	 * and assoc_mgr's QOS read lock around the call (and the packing of
	 * the rows, which point into its records). */
	if (FW_SPRIO_CALLER_LOCKS) {
		pthread_mutex_lock(&g_mutex);
		g_job_readers++;
		g_qos_held++;
		pthread_mutex_unlock(&g_mutex);
	}
	ret = fake_ctld_sprio(priority_p_get_priority_factors_list, req, uid);
	if (FW_SPRIO_CALLER_LOCKS) {
		pthread_mutex_lock(&g_mutex);
		g_job_readers--;
		g_qos_held--;
		pthread_mutex_unlock(&g_mutex);
	}
	_after("after priority_p_get_priority_factors_list");
	if (fake_locks_held())
		_violation("locks still held after priority_p_get_priority_factors_list");
	return ret;
}

int fake_call_factors_list(const uint32_t *job_ids, int njob_ids,
			   const uint32_t *uids, int nuids, const char *partitions,
			   unsigned uid, uint32_t *out, int max)
{
	fake_sprio_req_t req = { .partitions = partitions };
	list_t *ret;
	int n = 0;

	if (njob_ids) {
		req.job_ids = list_create(NULL);
		for (int i = 0; i < njob_ids; i++)
			list_append(req.job_ids, (void *) &job_ids[i]);
	}
	if (nuids) {
		req.user_ids = list_create(NULL);
		for (int i = 0; i < nuids; i++)
			list_append(req.user_ids, (void *) &uids[i]);
	}
	ret = _sprio(&req, uid);
	for (int i = 0; ret && i < ret->n && n < max; i++)
		out[n++] = FW_ROW_JOB_ID(
			(priority_factors_object_t *) ret->items[i]);
	list_destroy(req.job_ids);
	list_destroy(req.user_ids);
	if (!ret)
		return -1;
	list_destroy(ret);
	return n;
}

int fake_call_factors_tres(uint32_t job_id, double *out, double *weights,
			   int max)
{
	fake_sprio_req_t req = { 0 };
	list_t *ret = _sprio(&req, 0);
	int n = -1;

	for (int i = 0; ret && i < ret->n; i++) {
		priority_factors_object_t *row = ret->items[i];
		const fw_prio_factors_t *f = FW_ROW_FACTORS(row);

		if (FW_ROW_JOB_ID(row) != job_id)
			continue;
		n = (f && f->priority_tres) ? (int) f->tres_cnt : 0;
		for (int k = 0; k < n && k < max; k++) {
			out[k] = f->priority_tres[k];
			weights[k] = f->tres_weights ? f->tres_weights[k] : 0;
		}
		break;
	}
	if (ret)
		list_destroy(ret);
	return n;
}

/* A period through one of the test hooks, called without any lock held. */
static int _call_period(int (*period)(time_t), time_t now, const char *name)
{
	char when[96];
	int rc;

	_rebase();
	rc = period(now);
	snprintf(when, sizeof(when), "after %s", name);
	_after(when);
	if (fake_locks_held())
		_violation("locks still held after %s", name);
	return rc;
}

int fake_call_recalc(time_t now)
{
	return _call_period(priority_fairway_recalc, now, "priority_fairway_recalc");
}

int fake_call_cycle(time_t now)
{
	return _call_period(priority_fairway_cycle, now, "priority_fairway_cycle");
}

void fake_job_set_tres(uint32_t job_id, int pos, uint64_t count)
{
	job_record_t *j = _job(job_id);

	j->tres_req_cnt[pos] = count;
	j->tres_alloc_cnt[pos] = count;
}

void fake_job_set_partitions(uint32_t job_id, const char *parts)
{
	job_record_t *j = _job(job_id);
	char *copy = strdup(parts), *tok, *save = NULL;

	FREE_NULL_LIST(j->part_ptr_list);
	j->part_ptr_list = list_create(NULL);
	j->part_ptr = NULL;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		part_record_t *p = find_part_record(tok);

		list_append(j->part_ptr_list, p);
		if (!j->part_ptr)
			j->part_ptr = p;
	}
	free(j->partition);
	j->partition = strdup(parts);
	free(copy);
}

void fake_conf_tres_weights(const char *weights)
{
	free(slurm_conf.priority_weight_tres);
	slurm_conf.priority_weight_tres = weights ? strdup(weights) : NULL;
}

void fake_tres_add(const char *name)
{
	int n = slurmctld_tres_cnt + 1;

	assoc_mgr_tres_name_array = realloc(assoc_mgr_tres_name_array,
					    n * sizeof(char *));
	assoc_mgr_tres_name_array[n - 1] = (char *) name;
	for (int i = 0; i < g_nparts; i++) {
		g_parts[i].tres_cnt = realloc(g_parts[i].tres_cnt,
					      n * sizeof(uint64_t));
		g_parts[i].tres_cnt[n - 1] = 0;
	}
	slurmctld_tres_cnt = n;
	g_tres_count = n;
}

void fake_part_set_tres(const char *name, int pos, uint64_t count)
{
	find_part_record((char *) name)->tres_cnt[pos] = count;
}

void fake_assoc_set_tres_usage(uint32_t id, int pos, double usage)
{
	_assoc(id)->usage->usage_tres_raw[pos] = usage;
}
