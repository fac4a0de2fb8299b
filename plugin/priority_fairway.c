/*****************************************************************************\
 *  priority_fairway.c - priority/fairway: a drop-in replacement for Slurm's
 *  priority/multifactor plugin.
 *
 *  This file is the only code of Fairway that sees Slurm's internal headers.  It
 *  copies what the core needs out of slurmctld (jobs, associations, settings)
 *  under Slurm's locks, calls the C API of lib/fairway.h and writes the results
 *  back where sshare and sprio read them (assoc->usage, job->priority,
 *  job->prio_factors).
 *
 *  Entry points: init, fini and the priority_p_* functions the loader of this
 *  Slurm version requires (see slurm_priority.c), guarded by
 *  SLURM_VERSION_NUMBER as the loader's list changed: 23.02 added
 *  priority_p_recover and gave get_priority_factors_list only the uid, 24.05
 *  added priority_p_thread_start, 25.11 dropped priority_p_calc_fs_factor.
 *  Only the 22.05 branch is built and tested here (Debian 12's Slurm); the
 *  rest of the file uses 22.05's internal API, which later releases changed
 *  in places too, so a later Slurm needs a port beyond these guards.
 *
 *  Documented test hooks (exported; see priority_fairway(8)):
 *    int priority_fairway_recalc(time_t now)
 *	With the current association usage (no decay, no new usage), recompute
 *	the fair-share values of every association and the priority of every
 *	pending job in job_list, synchronously, taking the same locks as the
 *	calculation thread.  Returns SLURM_SUCCESS or SLURM_ERROR.
 *    int priority_fairway_cycle(time_t now)
 *	One full calculation period ending at `now`, synchronously: usage
 *	reset if due, decay of stored usage, running jobs' new usage charged,
 *	fair-share and every pending job's priority recomputed, the state file
 *	written -- what the calculation thread does every PriorityCalcPeriod.
 *
 *  Fallback definitions of slurmctld's globals (job_list, cluster_cpus, ...) are
 *  exported too, as multifactor's are: client commands such as sshare load the
 *  priority plugin (for priority_g_calc_fs_factor) in processes that do not
 *  define them.  Inside slurmctld the executable's definitions take precedence.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <inttypes.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/site_factor.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fairway.h"

/* Fallbacks for slurmctld's globals, interposed by slurmctld's own (see above). */
void *acct_db_conn = NULL;
uint32_t cluster_cpus = NO_VAL;
List job_list = NULL;
time_t last_job_update = (time_t) 0;
int slurmctld_tres_cnt = 0;
uint16_t accounting_enforce = 0;

const char plugin_name[] = "Priority FAIRWAY plugin";
const char plugin_type[] = "priority/fairway";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Our special values must be Slurm's (fairway.h does not include Slurm). */
_Static_assert(FAIRWAY_NO_VAL == NO_VAL, "NO_VAL");
_Static_assert(FAIRWAY_INFINITE == INFINITE, "INFINITE");
_Static_assert(FAIRWAY_NICE_OFFSET == NICE_OFFSET, "NICE_OFFSET");

/*
 * Settings read from slurm.conf by _read_settings().  priority_p_reconfig runs
 * without slurmctld's locks (after a reconfigure) while the calculation thread,
 * submits and sprio read them, so a settings object is immutable once
 * published: readers hold a reference (_cfg_get/_cfg_put) for as long as they
 * use it, and a reconfigure publishes a new object.  g_cfg_lock is a leaf lock
 * (nothing else is taken while holding it).
 */
typedef struct {
	int refs;			/* under g_cfg_lock */
	fairway_weights_t weights;	/* weights.tres == tres */
	double *tres;			/* xmalloc'ed, NULL without TRES weights */
	fairway_algorithm_t algo;
	double damp;			/* FairShareDampeningFactor, >= 1 */
	uint32_t slurm_flags;		/* slurm_conf.priority_flags */
} fw_cfg_t;
static fw_cfg_t *g_cfg = NULL;
static pthread_mutex_t g_cfg_lock = PTHREAD_MUTEX_INITIALIZER;
/* Before init and after fini: no weights. */
static fw_cfg_t g_cfg_none = { .algo = FAIRWAY_ALGO_FAIR_TREE, .damp = 1.0 };
static bool g_calc_fairshare = true;	/* false without slurmdbd; set by init */

/*
 * The calculation ("decay") thread and the state of the periods.  g_calc_lock
 * serializes periods (the thread, priority_fairway_cycle) and protects the
 * fields below, except g_charged_to (job write lock) and the two set from
 * other threads (g_reconfig, g_decay_factor: atomic).
 */
static pthread_t g_calc_thread;
static bool g_calc_thread_started = false;
static pthread_mutex_t g_calc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_calc_cond = PTHREAD_COND_INITIALIZER;
static bool g_shutdown = false;
static bool g_reconfig = false;		/* re-read decay settings next period (atomic) */
static bool g_state_loaded = false;	/* state file read (first period) */
static time_t g_last_ran = 0;		/* end of the last completed period */
static time_t g_last_reset = 0;
static time_t g_next_reset = 0;
static uint16_t g_reset_period = PRIORITY_RESET_NONE;
static double g_decay_factor = 1.0;	/* per second (atomic: read by job end) */
/*
 * Running jobs are charged up to this time: set in the same job write lock as
 * the charging pass of a period, read by priority_p_job_end under the job write
 * lock.  (multifactor reads its g_last_ran there, which the period sets only
 * after releasing the lock: a job ending in between is charged that stretch
 * twice.  doc/differences.md.)
 */
static time_t g_charged_to = 0;

/*
 * Restart safety (lib/usage_store.h): the usage file written at the end of
 * every period, and the journal of job ends since.  g_epoch is the period the
 * journal lines belong to; it and the journal are changed under the assoc
 * write lock, the journal's descriptor under g_journal_lock too.
 */
static time_t g_epoch = 0;
static int g_journal_fd = -1;
static pthread_mutex_t g_journal_lock = PTHREAD_MUTEX_INITIALIZER;
/* Jobs whose end was replayed from the journal at start: never charged again
 * (slurmctld may have recovered them as still running). Sorted. */
static uint32_t *g_ended_ids = NULL;
static size_t g_ended_n = 0;

extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc);
static bool _ended_before_restart(uint32_t job_id);
static void _restore_usage(void);
static void _journal_open(void);
static void _journal_job_end(job_record_t *job_ptr,
			     const fairway_job_charge_t *c,
			     slurmdb_qos_rec_t *qos);

static uint32_t _translate_flags(uint32_t slurm_flags)
{
	uint32_t f = 0;

	if (slurm_flags & PRIORITY_FLAGS_ACCRUE_ALWAYS)
		f |= FAIRWAY_FLAG_ACCRUE_ALWAYS;
	if (slurm_flags & PRIORITY_FLAGS_SIZE_RELATIVE)
		f |= FAIRWAY_FLAG_SMALL_RELATIVE;
	if (slurm_flags & PRIORITY_FLAGS_CALCULATE_RUNNING)
		f |= FAIRWAY_FLAG_CALCULATE_RUNNING;
	if (slurm_flags & PRIORITY_FLAGS_DEPTH_OBLIVIOUS)
		f |= FAIRWAY_FLAG_DEPTH_OBLIVIOUS;
	if (!(slurm_flags & PRIORITY_FLAGS_FAIR_TREE))
		f |= FAIRWAY_FLAG_NO_FAIR_TREE;
	if (slurm_flags & PRIORITY_FLAGS_INCR_ONLY)
		f |= FAIRWAY_FLAG_INCR_ONLY;
	if (slurm_flags & PRIORITY_FLAGS_MAX_TRES)
		f |= FAIRWAY_FLAG_MAX_TRES;
	if (slurm_flags & PRIORITY_FLAGS_NO_NORMAL_ASSOC)
		f |= FAIRWAY_FLAG_NO_NORMAL_ASSOC;
	if (slurm_flags & PRIORITY_FLAGS_NO_NORMAL_PART)
		f |= FAIRWAY_FLAG_NO_NORMAL_PART;
	if (slurm_flags & PRIORITY_FLAGS_NO_NORMAL_QOS)
		f |= FAIRWAY_FLAG_NO_NORMAL_QOS;
	if (slurm_flags & PRIORITY_FLAGS_NO_NORMAL_TRES)
		f |= FAIRWAY_FLAG_NO_NORMAL_TRES;
	return f;
}

/* (Re)read the Priority* settings of slurm.conf, as multifactor's setup does. */
static const fw_cfg_t *_cfg_get(void)
{
	fw_cfg_t *c;

	slurm_mutex_lock(&g_cfg_lock);
	if ((c = g_cfg))
		c->refs++;
	slurm_mutex_unlock(&g_cfg_lock);
	return c ? c : &g_cfg_none;
}

static void _cfg_put(const fw_cfg_t *cfg)
{
	fw_cfg_t *c = (fw_cfg_t *) cfg;
	bool last;

	if (!c || (c == &g_cfg_none))
		return;
	slurm_mutex_lock(&g_cfg_lock);
	last = (--c->refs == 0);
	slurm_mutex_unlock(&g_cfg_lock);
	if (last) {
		xfree(c->tres);
		xfree(c);
	}
}

/* Publish `c` (NULL: none) as the current settings. */
static void _cfg_publish(fw_cfg_t *c)
{
	fw_cfg_t *old;

	if (c)
		c->refs = 1;
	slurm_mutex_lock(&g_cfg_lock);
	old = g_cfg;
	g_cfg = c;
	slurm_mutex_unlock(&g_cfg_lock);
	_cfg_put(old);
}

static void _read_settings(void)
{
	fw_cfg_t *c = xmalloc(sizeof(*c));
	fairway_weights_t *w = &c->weights;

	c->slurm_flags = slurm_conf.priority_flags;
	c->damp = (double) slurm_conf.fs_dampening_factor;
	if (c->damp < 1)
		c->damp = 1;

	w->age = slurm_conf.priority_weight_age;
	w->assoc = slurm_conf.priority_weight_assoc;
	w->fairshare = slurm_conf.priority_weight_fs;
	w->job_size = slurm_conf.priority_weight_js;
	w->partition = slurm_conf.priority_weight_part;
	w->qos = slurm_conf.priority_weight_qos;
	w->max_age = slurm_conf.priority_max_age;
	w->favor_small = slurm_conf.priority_favor_small;
	w->flags = _translate_flags(c->slurm_flags);

	c->tres = slurm_get_tres_weight_array(slurm_conf.priority_weight_tres,
					      slurmctld_tres_cnt, true);
	w->tres = c->tres;
	w->tres_count = c->tres ? slurmctld_tres_cnt : 0;

	if (w->flags & FAIRWAY_FLAG_DEPTH_OBLIVIOUS)
		c->algo = FAIRWAY_ALGO_DEPTH_OBLIVIOUS;
	else if (w->flags & FAIRWAY_FLAG_NO_FAIR_TREE)
		c->algo = FAIRWAY_ALGO_CLASSIC;
	else
		c->algo = FAIRWAY_ALGO_FAIR_TREE;

	if (!g_calc_fairshare) {
		w->age = 0;
		w->fairshare = 0;
	}

	log_flag(PRIO, "%s: weights age=%u assoc=%u fairshare=%u jobsize=%u partition=%u qos=%u maxage=%u flags=0x%x algorithm=%d",
		 plugin_type, w->age, w->assoc, w->fairshare, w->job_size,
		 w->partition, w->qos, w->max_age, c->slurm_flags, c->algo);
	_cfg_publish(c);
}

/*
 * Fair Tree: every association's fs_factor after the last calculation, by
 * association id (open addressing, linear probing, load at most 0.8), so that
 * weighing a job reads this compact table instead of two scattered records
 * (the association and its usage: a quarter of the weighing pass at 1,000,000
 * jobs).  Keyed by id, not pointer: ids are never reused.  Built under the
 * assoc write lock at the end of a successful calculation, read by the
 * weighing threads under the assoc read lock; invalid until then and after a
 * failed one (jobs then read their association, as before).
 */
typedef struct {
	uint32_t id;		/* 0: empty (association ids start at 1) */
	double fs_factor;
} fs_slot_t;
static fs_slot_t *g_fs_slots = NULL;
static size_t g_fs_mask = 0;
static bool g_fs_slots_valid = false;

static inline size_t _fs_slot_hash(uint32_t id)
{
	return (size_t) ((id * 0x9E3779B1u) >> 7);
}

/* The fs_factor of association `id` after the last calculation, or NULL. */
static inline const double *_fs_slot(uint32_t id)
{
	size_t h;

	if (!g_fs_slots_valid || !id)
		return NULL;
	for (h = _fs_slot_hash(id) & g_fs_mask; g_fs_slots[h].id;
	     h = (h + 1) & g_fs_mask)
		if (g_fs_slots[h].id == id)
			return &g_fs_slots[h].fs_factor;
	return NULL;
}

/*
 * The fair-share factor of a job's association, as multifactor's
 * _get_fairshare_priority(): Fair Tree uses the association's own fs_factor;
 * classic computes 2^(-UE/S/d) from the association it shares with
 * (its parent for Fairshare=parent).  Caller holds the assoc read lock.
 */
static double _job_fs_factor(const fw_cfg_t *cfg, job_record_t *job_ptr)
{
	slurmdb_assoc_rec_t *assoc = job_ptr->assoc_ptr;
	slurmdb_assoc_rec_t *fs_assoc;

	if (!g_calc_fairshare)
		return 0.0;
	if (!assoc || !assoc->usage) {
		error("%s: %pJ has no association, fair-share factor 0",
		      plugin_type, job_ptr);
		return 0.0;
	}
	fs_assoc = assoc;
	if ((assoc->shares_raw == SLURMDB_FS_USE_PARENT) &&
	    assoc->usage->fs_assoc_ptr)
		fs_assoc = assoc->usage->fs_assoc_ptr;

	if (cfg->algo == FAIRWAY_ALGO_FAIR_TREE)
		return assoc->usage->fs_factor;

	if (fuzzy_equal(fs_assoc->usage->usage_efctv, NO_VAL))
		priority_p_set_assoc_usage(fs_assoc);
	return fairway_classic_fs_factor(fs_assoc->usage->usage_efctv,
					 fs_assoc->usage->shares_norm, cfg->damp);
}

/* Copy what the job-factor computation needs out of a job.  Caller holds the
 * job lock and the assoc read lock. */
static void _job_input(const fw_cfg_t *cfg, job_record_t *job_ptr,
		       fairway_job_input_t *in, bool fs_slots)
{
	struct job_details *details = job_ptr->details;
	const double *fs;

	memset(in, 0, sizeof(*in));
	in->has_details = (details != NULL);
	if (details) {
		in->accrue_time = details->accrue_time;
		in->max_cpus = details->max_cpus;
		in->min_cpus = details->min_cpus;
		in->min_nodes = details->min_nodes;
		in->nice = details->nice;
	} else {
		in->max_cpus = NO_VAL;
		in->nice = NICE_OFFSET;
	}
	in->total_cpus = job_ptr->total_cpus;
	in->time_limit = job_ptr->time_limit;
	/* Only what a nonzero weight uses: the records of associations, QOS
	 * and partitions are scattered too, and the core ignores the rest. */
	if (fs_slots && job_ptr->assoc_ptr && !cfg->weights.assoc &&
	    (fs = _fs_slot(job_ptr->assoc_id))) {
		/* Fair Tree weighing pass: the association's fs_factor from
		 * the table built with it (see _fs_slots_build). */
		in->has_assoc = 1;
		if (cfg->weights.fairshare && g_calc_fairshare)
			in->fs_factor = *fs;
	} else if (job_ptr->assoc_ptr && job_ptr->assoc_ptr->usage) {
		in->has_assoc = 1;
		if (cfg->weights.fairshare)
			in->fs_factor = _job_fs_factor(cfg, job_ptr);
		if (cfg->weights.assoc) {
			in->assoc_priority = job_ptr->assoc_ptr->priority;
			in->assoc_priority_norm =
				job_ptr->assoc_ptr->usage->priority_norm;
		}
	}
	if (job_ptr->part_ptr) {
		in->has_part = 1;
		if (cfg->weights.partition) {
			in->part_priority_job_factor =
				job_ptr->part_ptr->priority_job_factor;
			in->part_norm_priority =
				job_ptr->part_ptr->norm_priority;
		}
		if (cfg->weights.job_size &&
		    (cfg->weights.flags & FAIRWAY_FLAG_SMALL_RELATIVE))
			in->part_max_time = job_ptr->part_ptr->max_time;
	}
	if (job_ptr->qos_ptr && job_ptr->qos_ptr->usage && cfg->weights.qos) {
		in->has_qos = 1;
		in->qos_priority = job_ptr->qos_ptr->priority;
		in->qos_norm_priority = job_ptr->qos_ptr->usage->norm_priority;
	}
	in->site_factor = job_ptr->site_factor;
}

static void _clear_prio_factors(job_record_t *job_ptr)
{
	if (!job_ptr->prio_factors)
		return;
	xfree(job_ptr->prio_factors->tres_weights);
	xfree(job_ptr->prio_factors->priority_tres);
	memset(job_ptr->prio_factors, 0, sizeof(priority_factors_object_t));
}

/* Sum of a job's weighted TRES factors in one partition (0 without weights). */
static double _part_tres_weighted(const fw_cfg_t *cfg, job_record_t *job_ptr,
				  part_record_t *part_ptr, double *buf)
{
	if (!cfg->weights.tres)
		return 0.0;
	fairway_tres_factors(&cfg->weights, job_ptr->tres_alloc_cnt,
			     job_ptr->tres_req_cnt,
			     part_ptr ? part_ptr->tres_cnt : NULL, buf);
	return fairway_tres_weighted(&cfg->weights, buf);
}

/* A multi-partition job's partitions, read without an iterator. */
#define MAX_JOB_PARTS 64
struct part_array {
	int n;
	part_record_t *p[MAX_JOB_PARTS];
};

static int _foreach_part(void *x, void *arg)
{
	struct part_array *a = arg;

	if (a->n < MAX_JOB_PARTS)
		a->p[a->n++] = x;
	return 0;
}

static bool _parts_in_tier_order(const struct part_array *a)
{
	for (int i = 1; i < a->n; i++)
		if (a->p[i - 1]->priority_tier < a->p[i]->priority_tier)
			return false;
	return true;
}

/* The priority of an already weighted job in its i-th partition. */
static void _part_priority(const fw_cfg_t *cfg, job_record_t *job_ptr,
			   fairway_job_factors_t *f, part_record_t *part_ptr,
			   int i)
{
	double part_tres = 0.0;
	int clamped = 0;
	uint32_t p;

	if (cfg->weights.tres) {
		double buf[slurmctld_tres_cnt];
		part_tres = _part_tres_weighted(cfg, job_ptr, part_ptr, buf);
	}
	p = fairway_job_priority_in_partition(&cfg->weights, f,
					      part_ptr->priority_job_factor,
					      part_ptr->norm_priority,
					      part_tres, &clamped);
	if (clamped)
		error("%s: %pJ priority in partition %s exceeds 32 bits. Reducing it to 4294967295 (2^32 - 1)",
		      plugin_type, job_ptr, part_ptr->name);
	if (!(cfg->weights.flags & FAIRWAY_FLAG_INCR_ONLY) ||
	    (job_ptr->priority_array[i] < p))
		job_ptr->priority_array[i] = p;
}

/*
 * Compute a job's factors and priority at `now`, store the weighted factors in
 * job_ptr->prio_factors (for sprio) and the per-partition priorities in
 * job_ptr->priority_array, and return the priority.  Caller holds the job
 * write lock and the assoc read lock (assoc_locked) or neither assoc lock.
 */
static uint32_t _job_priority(const fw_cfg_t *cfg, job_record_t *job_ptr,
			      time_t now, bool assoc_locked, bool fs_slots)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	fairway_cluster_t cluster = { cluster_cpus, node_record_count };
	fairway_job_input_t in;
	fairway_job_factors_t f;
	priority_factors_object_t *pf;
	double tres_sum = 0.0;
	uint32_t prio;
	int clamped = 0;

	if (job_ptr->direct_set_prio && (job_ptr->priority > 0)) {
		_clear_prio_factors(job_ptr);
		return job_ptr->priority;
	}
	if (!job_ptr->details) {
		error("%s: %pJ has no details, can't set its priority",
		      plugin_type, job_ptr);
		_clear_prio_factors(job_ptr);
		return 0;
	}

	if (!assoc_locked)
		assoc_mgr_lock(&locks);
	_job_input(cfg, job_ptr, &in, fs_slots);
	if (!assoc_locked)
		assoc_mgr_unlock(&locks);

	fairway_job_factors(&cfg->weights, &cluster, &in, now, &f);

	if (!job_ptr->prio_factors)
		job_ptr->prio_factors =
			xmalloc(sizeof(priority_factors_object_t));
	else
		_clear_prio_factors(job_ptr);
	pf = job_ptr->prio_factors;

	if (cfg->weights.tres) {
		pf->priority_tres = xcalloc(slurmctld_tres_cnt, sizeof(double));
		pf->tres_weights = xcalloc(slurmctld_tres_cnt, sizeof(double));
		memcpy(pf->tres_weights, cfg->weights.tres,
		       sizeof(double) * slurmctld_tres_cnt);
		pf->tres_cnt = slurmctld_tres_cnt;
		tres_sum = _part_tres_weighted(cfg, job_ptr, job_ptr->part_ptr,
					       pf->priority_tres);
	}

	prio = fairway_job_priority(&cfg->weights, &f, tres_sum, &clamped);
	if (clamped)
		error("%s: %pJ priority exceeds 32 bits. Reducing it to 4294967295 (2^32 - 1)",
		      plugin_type, job_ptr);

	pf->priority_age = f.age;
	pf->priority_assoc = f.assoc;
	pf->priority_fs = f.fairshare;
	pf->priority_js = f.job_size;
	pf->priority_part = f.partition;
	pf->priority_qos = f.qos;
	pf->priority_site = f.site;
	pf->nice = f.nice;

	if (job_ptr->part_ptr_list) {
		struct part_array parts = { .n = 0 };
		int cnt = list_count(job_ptr->part_ptr_list);

		if (!job_ptr->priority_array)
			job_ptr->priority_array = xcalloc(cnt + 1,
							  sizeof(uint32_t));
		/*
		 * One priority per partition, in PriorityTier order.  multifactor
		 * sorts the job's list every time; glibc's qsort (which
		 * list_sort uses) is a stable merge sort, so sorting a list that
		 * is already in tier order changes nothing: skip it then, and
		 * read the partitions without an iterator.
		 */
		if (cnt <= MAX_JOB_PARTS)
			list_for_each(job_ptr->part_ptr_list, _foreach_part, &parts);
		if ((cnt > MAX_JOB_PARTS) || !_parts_in_tier_order(&parts)) {
			list_sort(job_ptr->part_ptr_list, priority_sort_part_tier);
			parts.n = 0;
			if (cnt <= MAX_JOB_PARTS)
				list_for_each(job_ptr->part_ptr_list,
					      _foreach_part, &parts);
		}
		if (cnt > MAX_JOB_PARTS) {
			part_record_t *part_ptr;
			ListIterator it;
			int i = 0;

			it = list_iterator_create(job_ptr->part_ptr_list);
			while ((part_ptr = list_next(it)))
				_part_priority(cfg, job_ptr, &f, part_ptr, i++);
			list_iterator_destroy(it);
		} else {
			for (int i = 0; i < parts.n; i++)
				_part_priority(cfg, job_ptr, &f, parts.p[i], i);
		}
	}
	return prio;
}

/* Recompute one job in the periodic pass (multifactor's
 * decay_apply_weighted_factors).  Caller holds the job write lock, and the
 * assoc read lock if assoc_locked. */
/* Whether the periodic pass weighs this job: held jobs (priority 0) keep 0;
 * only pending jobs unless CALCULATE_RUNNING. */
static bool _weighable(const fw_cfg_t *cfg, const job_record_t *job_ptr)
{
	return (job_ptr->priority != 0) && !IS_JOB_POWER_UP_NODE(job_ptr) &&
	       (IS_JOB_PENDING(job_ptr) ||
		(cfg->weights.flags & FAIRWAY_FLAG_CALCULATE_RUNNING));
}

/* Weigh one weighable job; true if its priority changed (the caller then
 * sets last_job_update). */
static bool _weigh_job(const fw_cfg_t *cfg, job_record_t *job_ptr, time_t now,
		       bool assoc_locked, bool fs_slots)
{
	uint32_t prio = _job_priority(cfg, job_ptr, now, assoc_locked,
				      fs_slots);

	if (!(cfg->weights.flags & FAIRWAY_FLAG_INCR_ONLY) ||
	    (job_ptr->priority < prio)) {
		job_ptr->priority = prio;
		return true;
	}
	return false;
}

static void _recalc_job(const fw_cfg_t *cfg, job_record_t *job_ptr, time_t now,
			bool assoc_locked)
{
	if (_weighable(cfg, job_ptr) &&
	    _weigh_job(cfg, job_ptr, now, assoc_locked, false))
		last_job_update = time(NULL);
}


/*
 * Recompute the fair-share values of every association from its current raw
 * usage and write them back into assoc->usage.  Caller holds the assoc write
 * lock.  On a malformed tree nothing is written and the reason is logged.
 *
 * users_lazy: classic multifactor computes only the accounts in the period and
 * marks users' effective usage NO_VAL, to be computed on demand (by a job's
 * fair-share factor or sshare) from the usage of that moment; do the same.
 */
/*
 * The association tree of the last calculation, kept while the associations
 * keep their shape (same records, ids, parents, shares), so that a period only
 * updates usage and recomputes, allocating nothing.  Protected by the assoc
 * write lock (only used inside _recalc_fairshare).
 */
static fairway_fair_share_t *g_fs = NULL;
static slurmdb_assoc_rec_t **g_fs_ptrs = NULL;
/* What the cached tree was built from, to tell whether the shape changed (the
 * full fairway_assoc_t input only exists while a tree is built: 16 bytes per
 * association kept instead of 48). */
typedef struct {
	uint32_t id, parent_id, shares_raw;
	uint8_t shares_parent, is_user;
} fs_shape_t;
static fs_shape_t *g_fs_shape = NULL;
static size_t g_fs_n = 0, g_fs_cap = 0;

static void _fs_slots_build(void)
{
	size_t want = 1024;

	while (want * 4 < g_fs_n * 5)
		want <<= 1;
	if (want - 1 != g_fs_mask) {
		xfree(g_fs_slots);
		g_fs_slots = xcalloc(want, sizeof(*g_fs_slots));
		g_fs_mask = want - 1;
	} else {
		memset(g_fs_slots, 0, want * sizeof(*g_fs_slots));
	}
	for (size_t i = 0; i < g_fs_n; i++) {
		uint32_t id = g_fs_ptrs[i]->id;
		size_t h = _fs_slot_hash(id) & g_fs_mask;

		if (!id)
			continue;
		while (g_fs_slots[h].id && (g_fs_slots[h].id != id))
			h = (h + 1) & g_fs_mask;
		g_fs_slots[h].id = id;
		g_fs_slots[h].fs_factor = g_fs_ptrs[i]->usage->fs_factor;
	}
	g_fs_slots_valid = true;
}


static void _fs_cache_free(void)
{
	g_fs_slots_valid = false;
	xfree(g_fs_slots);
	g_fs_mask = 0;
	fairway_fair_share_destroy(&g_fs);
	xfree(g_fs_ptrs);
	xfree(g_fs_shape);
	g_fs_n = g_fs_cap = 0;
}

/* Record the current associations in g_fs_shape/g_fs_ptrs; true if their shape
 * is what the cached tree was built from. */
static bool _fs_snapshot(void)
{
	slurmdb_assoc_rec_t *assoc;
	size_t cnt = list_count(assoc_mgr_assoc_list), n = 0;
	bool same = (g_fs != NULL);
	ListIterator it;

	if (cnt > g_fs_cap) {
		g_fs_cap = cnt + cnt / 8 + 16;
		xrecalloc(g_fs_ptrs, g_fs_cap, sizeof(*g_fs_ptrs));
		xrecalloc(g_fs_shape, g_fs_cap, sizeof(*g_fs_shape));
		same = false;
	}
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(it)) && (n < g_fs_cap)) {
		fs_shape_t *in = &g_fs_shape[n];
		uint32_t parent = (assoc == assoc_mgr_root_assoc) ?
			0 : assoc->parent_id;
		uint8_t sp = (assoc->shares_raw == SLURMDB_FS_USE_PARENT);
		uint32_t shares = sp ? 0 : assoc->shares_raw;
		uint8_t user = (assoc->user != NULL);

		if (!assoc->usage)
			continue;
		if (same && ((g_fs_ptrs[n] != assoc) || (in->id != assoc->id) ||
			     (in->parent_id != parent) ||
			     (in->shares_parent != sp) ||
			     (in->shares_raw != shares) ||
			     (in->is_user != user)))
			same = false;
		g_fs_ptrs[n] = assoc;
		in->id = assoc->id;
		in->parent_id = parent;
		in->shares_parent = sp;
		in->shares_raw = shares;
		in->is_user = user;
		n++;
	}
	list_iterator_destroy(it);
	if (n != g_fs_n)
		same = false;
	g_fs_n = n;
	return same;
}

/* Build g_fs from the associations _fs_snapshot() recorded. */
static fairway_error_t _fs_build(void)
{
	fairway_assoc_t *in = xcalloc(g_fs_n + 1, sizeof(*in));
	fairway_error_t err;

	for (size_t i = 0; i < g_fs_n; i++) {
		const slurmdb_assoc_rec_t *a = g_fs_ptrs[i];

		in[i].id = g_fs_shape[i].id;
		in[i].parent_id = g_fs_shape[i].parent_id;
		in[i].account = a->acct;
		in[i].user = a->user;
		in[i].shares_parent = g_fs_shape[i].shares_parent;
		in[i].shares_raw = g_fs_shape[i].shares_raw;
		in[i].usage_raw = a->usage->usage_raw;
	}
	err = fairway_fair_share_new(in, g_fs_n, &g_fs);
	xfree(in);
	return err;
}

static int _recalc_fairshare(const fw_cfg_t *cfg, bool users_lazy)
{
	fairway_error_t err = FAIRWAY_OK;

	g_fs_slots_valid = false;
	if (!assoc_mgr_assoc_list || !assoc_mgr_root_assoc)
		return SLURM_SUCCESS;

	if (_fs_snapshot()) {
		for (size_t i = 0; (i < g_fs_n) && (err == FAIRWAY_OK); i++)
			err = fairway_fair_share_set_usage(
				g_fs, i, g_fs_ptrs[i]->usage->usage_raw);
	} else {
		fairway_fair_share_destroy(&g_fs);
		err = _fs_build();
	}
	if (err != FAIRWAY_OK) {
		error("%s: association tree rejected, fair-share values left unchanged: %s: %s",
		      plugin_type, fairway_strerror(err), fairway_last_error());
		fairway_fair_share_destroy(&g_fs);
		return SLURM_ERROR;
	}
	if ((err = fairway_fair_share_compute(g_fs, cfg->algo, cfg->damp)) !=
	    FAIRWAY_OK) {
		error("%s: fair-share calculation failed: %s: %s",
		      plugin_type, fairway_strerror(err), fairway_last_error());
		return SLURM_ERROR;
	}
	for (size_t i = 0; i < g_fs_n; i++) {
		fairway_assoc_result_t r;
		slurmdb_assoc_usage_t *u = g_fs_ptrs[i]->usage;

		if (users_lazy && g_fs_ptrs[i]->user) {
			u->usage_efctv = (long double) NO_VAL;
			continue;
		}
		if (fairway_fair_share_result(g_fs, i, &r) != FAIRWAY_OK)
			continue;
		if (r.set & FAIRWAY_SET_SHARES_NORM)
			u->shares_norm = r.shares_norm;
		if (r.set & FAIRWAY_SET_USAGE_NORM)
			u->usage_norm = r.usage_norm;
		if (r.set & FAIRWAY_SET_USAGE_EFCTV)
			u->usage_efctv = r.usage_efctv;
		if (r.set & FAIRWAY_SET_LEVEL_FS)
			u->level_fs = r.level_fs;
		if (r.set & FAIRWAY_SET_FS_FACTOR)
			u->fs_factor = r.fs_factor;
	}
	if (cfg->algo == FAIRWAY_ALGO_FAIR_TREE)
		_fs_slots_build();
	return SLURM_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Usage accrual (multifactor's _apply_new_usage and its helpers)            */
/* ------------------------------------------------------------------------- */

/* Add decayed TRES usage to a QOS or association and release TRES run seconds
 * reserved at job start (only when limits are enforced, as Slurm does). */
static void _charge_tres(long double *usage_tres_raw, uint64_t *run_secs,
			 const long double *tres_usage,
			 const uint64_t *tres_run_delta, uint32_t job_id,
			 const char *what, const char *name, uint32_t id)
{
	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
		return;
	for (int i = 0; i < slurmctld_tres_cnt; i++) {
		if (i == TRES_ARRAY_ENERGY)
			continue;
		if (tres_usage)
			usage_tres_raw[i] += tres_usage[i];
		if (tres_run_delta[i] > run_secs[i]) {
			error("%s: job %u: %s %s(%u) TRES %s grp_used_tres_run_secs underflow, tried to remove %"PRIu64" seconds when only %"PRIu64" remained.",
			      plugin_type, job_id, what, name ? name : "",
			      id, assoc_mgr_tres_name_array[i],
			      tres_run_delta[i], run_secs[i]);
			run_secs[i] = 0;
		} else
			run_secs[i] -= tres_run_delta[i];
	}
}

static void _charge_qos(slurmdb_qos_rec_t *qos, const fairway_job_charge_t *c,
			const long double *tres_decay,
			const long double *tres_nodecay,
			const uint64_t *tres_run_delta, uint32_t job_id)
{
	if (!qos || !qos->usage)
		return;
	if (qos->flags & QOS_FLAG_NO_DECAY) {
		qos->usage->grp_used_wall += c->run_nodecay;
		qos->usage->usage_raw += (long double) c->real_nodecay;
		_charge_tres(qos->usage->usage_tres_raw,
			     qos->usage->grp_used_tres_run_secs, tres_nodecay,
			     tres_run_delta, job_id, "QOS", qos->name, qos->id);
	} else {
		qos->usage->grp_used_wall += c->run_decay;
		qos->usage->usage_raw += (long double) c->real_decay;
		_charge_tres(qos->usage->usage_tres_raw,
			     qos->usage->grp_used_tres_run_secs, tres_decay,
			     tres_run_delta, job_id, "QOS", qos->name, qos->id);
	}
}

/*
 * Charge a job's usage between start_period and end_period to its QOS, its
 * partition's QOS and its association and every ancestor up to root.  at_end:
 * the job ended; charge once and mark it done (end_time_exp = NO_VAL).  Caller
 * holds the job write lock.  Returns false when there is nothing to do.
 */
static bool _apply_new_usage(job_record_t *job_ptr, time_t start_period,
			     time_t end_period, bool at_end, bool assoc_locked)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				   .tres = READ_LOCK };
	int cnt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1;
	uint64_t tres_run_delta[cnt];
	long double tres_decay[cnt], tres_nodecay[cnt];
	fairway_job_times_t times;
	fairway_job_charge_t c;
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	double usage_factor = -1.0, billable, decay_factor;

	/* The job's end was charged already. */
	if (job_ptr->end_time_exp == (time_t) NO_VAL)
		return false;
	if (g_ended_n && _ended_before_restart(job_ptr->job_id)) {
		if (at_end)
			job_ptr->end_time_exp = (time_t) NO_VAL;
		log_flag(PRIO, "%s: %pJ ended before the restart and was charged then",
			 plugin_type, job_ptr);
		return false;
	}

	memset(&times, 0, sizeof(times));
	times.start_time = job_ptr->start_time;
	times.end_time = job_ptr->end_time;
	times.end_time_exp = job_ptr->end_time_exp;
	times.time_limit = job_ptr->time_limit;
	times.finished = IS_JOB_FINISHED(job_ptr) ||
		IS_JOB_COMPLETING(job_ptr) || IS_JOB_RESIZING(job_ptr);
	if (job_ptr->start_time > start_period)
		start_period = job_ptr->start_time;
	if (at_end)
		job_ptr->end_time_exp = (time_t) NO_VAL;

	memset(tres_run_delta, 0, sizeof(tres_run_delta));
	memset(tres_decay, 0, sizeof(tres_decay));
	memset(tres_nodecay, 0, sizeof(tres_nodecay));

	if (!assoc_locked)
		assoc_mgr_lock(&locks);
	billable = calc_job_billable_tres(job_ptr, start_period, true);
	qos = job_ptr->qos_ptr;
	if (qos && (qos->usage_factor >= 0))
		usage_factor = qos->usage_factor;
	__atomic_load(&g_decay_factor, &decay_factor, __ATOMIC_RELAXED);
	fairway_job_charge(&times, start_period, end_period, at_end,
			   decay_factor, billable, usage_factor, &c);
	if (job_ptr->tres_alloc_cnt) {
		for (int i = 0; i < slurmctld_tres_cnt; i++) {
			uint64_t cnt_i = job_ptr->tres_alloc_cnt[i];
			if (!cnt_i || (cnt_i == NO_CONSUME_VAL64))
				continue;
			tres_run_delta[i] = c.tres_time_delta * cnt_i;
			tres_decay[i] = (long double) c.run_decay *
				(long double) cnt_i;
			tres_nodecay[i] = (long double) c.run_nodecay *
				(long double) cnt_i;
		}
	}

	_charge_qos(qos, &c, tres_decay, tres_nodecay, tres_run_delta,
		    job_ptr->job_id);
	/* The partition's QOS too, unless it is the job's (usage factor of the
	 * job's QOS only). */
	if (job_ptr->part_ptr && (job_ptr->part_ptr->qos_ptr != qos))
		_charge_qos(job_ptr->part_ptr->qos_ptr, &c, tres_decay,
			    tres_nodecay, tres_run_delta, job_ptr->job_id);

	/* Up to and including root: root's usage normalizes everyone's. */
	for (assoc = job_ptr->assoc_ptr; assoc && assoc->usage;
	     assoc = assoc->usage->parent_assoc_ptr) {
		assoc->usage->grp_used_wall += c.run_decay;
		assoc->usage->usage_raw += (long double) c.real_decay;
		_charge_tres(assoc->usage->usage_tres_raw,
			     assoc->usage->grp_used_tres_run_secs, tres_decay,
			     tres_run_delta, job_ptr->job_id, "assoc",
			     assoc->acct, assoc->id);
	}
	if (at_end)
		_journal_job_end(job_ptr, &c, qos);
	if (!assoc_locked)
		assoc_mgr_unlock(&locks);
	log_flag(PRIO, "%s: %pJ charged %f (%g s x %f billable TRES)",
		 plugin_type, job_ptr, c.real_decay, c.run_delta, billable);
	return true;
}

/* Charge a running job for the period (multifactor's decay_apply_new_usage);
 * false for jobs that are done.  assoc_locked: the caller holds the assoc and
 * QOS write locks and the TRES read lock. */
static bool _charge_running_job(const fw_cfg_t *cfg, job_record_t *job_ptr,
				time_t now, bool assoc_locked)
{
	if (IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return false;
	if (((cfg->weights.flags & FAIRWAY_FLAG_CALCULATE_RUNNING) ||
	     !IS_JOB_PENDING(job_ptr)) &&
	    !IS_JOB_POWER_UP_NODE(job_ptr) && job_ptr->start_time &&
	    job_ptr->assoc_ptr) {
		if (!_apply_new_usage(job_ptr, g_charged_to, now, false,
				      assoc_locked))
			return false;
	}
	return true;
}

/*
 * At start (and reconfigure with assoc_clear), slurmctld reserves every running
 * job's whole TRES x time limit in grp_used_tres_run_secs; release what was
 * already used up to the last period (multifactor's _init_grp_used_tres_run_secs).
 */
static void _init_grp_used_tres_run_secs(void)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK };
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				   .tres = READ_LOCK };
	int cnt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1;
	uint64_t delta[cnt];
	job_record_t *job_ptr;
	ListIterator it;
	time_t last_ran;

	if (!(slurm_conf.accounting_storage_enforce &
	      ACCOUNTING_ENFORCE_LIMITS))
		return;
	if (!job_list)
		return;

	lock_slurmctld(job_read_lock);
	if (!list_count(job_list)) {
		unlock_slurmctld(job_read_lock);
		return;
	}
	last_ran = g_charged_to;
	assoc_mgr_lock(&locks);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		double usage_factor = 1.0;
		slurmdb_assoc_rec_t *assoc;

		if ((job_ptr->end_time_exp == (time_t) NO_VAL) ||
		    !IS_JOB_RUNNING(job_ptr) ||
		    (job_ptr->start_time > last_ran) ||
		    !job_ptr->tres_alloc_cnt)
			continue;
		if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0))
			usage_factor = job_ptr->qos_ptr->usage_factor;
		usage_factor *= (double) (last_ran - job_ptr->start_time);
		memset(delta, 0, sizeof(delta));
		for (int i = 0; i < slurmctld_tres_cnt; i++) {
			if (job_ptr->tres_alloc_cnt[i] == NO_CONSUME_VAL64)
				continue;
			delta[i] = job_ptr->tres_alloc_cnt[i] * usage_factor;
		}
		if (job_ptr->qos_ptr && job_ptr->qos_ptr->usage)
			_charge_tres(NULL, job_ptr->qos_ptr->usage->
				     grp_used_tres_run_secs, NULL, delta,
				     job_ptr->job_id, "QOS",
				     job_ptr->qos_ptr->name,
				     job_ptr->qos_ptr->id);
		if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr &&
		    (job_ptr->part_ptr->qos_ptr != job_ptr->qos_ptr) &&
		    job_ptr->part_ptr->qos_ptr->usage)
			_charge_tres(NULL, job_ptr->part_ptr->qos_ptr->usage->
				     grp_used_tres_run_secs, NULL, delta,
				     job_ptr->job_id, "QOS",
				     job_ptr->part_ptr->qos_ptr->name,
				     job_ptr->part_ptr->qos_ptr->id);
		for (assoc = job_ptr->assoc_ptr; assoc && assoc->usage;
		     assoc = assoc->usage->parent_assoc_ptr)
			_charge_tres(NULL, assoc->usage->grp_used_tres_run_secs,
				     NULL, delta, job_ptr->job_id, "assoc",
				     assoc->acct, assoc->id);
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	unlock_slurmctld(job_read_lock);
}

/* Multiply all stored usage by real_decay (QOS with NoDecay excepted). */
static void _apply_decay(double real_decay)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	ListIterator it;

	if (!g_calc_fairshare || (real_decay == 1))
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			slurmdb_assoc_usage_t *u = assoc->usage, *leaf;
			if (!u)
				continue;
			u->usage_raw *= real_decay;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				u->usage_tres_raw[i] *= real_decay;
			u->grp_used_wall *= real_decay;
			leaf = assoc->leaf_usage;
			if (leaf && (leaf != u)) {
				leaf->usage_raw *= real_decay;
				for (int i = 0; i < slurmctld_tres_cnt; i++)
					leaf->usage_tres_raw[i] *= real_decay;
				leaf->grp_used_wall *= real_decay;
			}
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it))) {
			if ((qos->flags & QOS_FLAG_NO_DECAY) || !qos->usage)
				continue;
			qos->usage->usage_raw *= real_decay;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				qos->usage->usage_tres_raw[i] *= real_decay;
			qos->usage->grp_used_wall *= real_decay;
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
}

/* PriorityUsageResetPeriod: forget all usage. */
static void _reset_usage(void)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	ListIterator it;

	if (!g_calc_fairshare)
		return;
	info("%s: resetting all usage (PriorityUsageResetPeriod)",
	     plugin_type);
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			if (!assoc->usage)
				continue;
			assoc->usage->usage_raw = 0;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				assoc->usage->usage_tres_raw[i] = 0;
			assoc->usage->grp_used_wall = 0;
			if (assoc->leaf_usage &&
			    (assoc->leaf_usage != assoc->usage)) {
				slurmdb_destroy_assoc_usage(assoc->leaf_usage);
				assoc->leaf_usage = NULL;
			}
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it))) {
			if (!qos->usage)
				continue;
			qos->usage->usage_raw = 0;
			for (int i = 0; i < slurmctld_tres_cnt; i++)
				qos->usage->usage_tres_raw[i] = 0;
			qos->usage->grp_used_wall = 0;
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
}

/* ------------------------------------------------------------------------- */
/* The state file (multifactor's priority_last_decay_ran, same format)        */
/* ------------------------------------------------------------------------- */

static char *_state_path(const char *suffix)
{
	return xstrdup_printf("%s/priority_last_decay_ran%s",
			      slurm_conf.state_save_location, suffix);
}

/*
 * Read when the last period ran.  Missing: 0 (as multifactor: running jobs
 * are charged from their start).  Corrupt: the previous copy (.old) if it is
 * sound, else now -- never a crash, and never charging running jobs twice for
 * time an earlier period already charged.
 */
static void _read_state(time_t now)
{
	char *path = _state_path(""), *old = _state_path(".old");
	int found = 0;
	fairway_error_t err;

	g_last_ran = g_last_reset = 0;
	lock_state_files();
	err = fairway_decay_state_read(path, now, &found, &g_last_ran,
				       &g_last_reset);
	if (err == FAIRWAY_OK && !found)
		info("%s: no last decay state (%s) to recover", plugin_type,
		     path);
	if (err != FAIRWAY_OK) {
		error("%s: decay state unusable: %s", plugin_type,
		      fairway_last_error());
		err = fairway_decay_state_read(old, now, &found, &g_last_ran,
					       &g_last_reset);
		if ((err == FAIRWAY_OK) && found) {
			error("%s: using the previous decay state %s (last period %ld)",
			      plugin_type, old, (long) g_last_ran);
		} else {
			error("%s: no usable decay state: counting periods from now; usage of running jobs since the last saved period is not charged",
			      plugin_type);
			g_last_ran = now;
			g_last_reset = 0;
		}
	}
	unlock_state_files();
	log_flag(PRIO, "%s: last period ran at %ld", plugin_type,
		 (long) g_last_ran);
	xfree(path);
	xfree(old);
}

static void _write_state(void)
{
	char *path;

	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null")) {
		error("%s: can not save priority state information, StateSaveLocation is /dev/null",
		      plugin_type);
		return;
	}
	path = _state_path("");
	lock_state_files();
	if (fairway_decay_state_write(path, g_last_ran, g_last_reset) !=
	    FAIRWAY_OK)
		error("%s: can't save decay state: %s", plugin_type,
		      fairway_last_error());
	unlock_state_files();
	xfree(path);
}

/* Decay settings and the state file, before the first period.  Caller holds
 * g_calc_lock. */
static void _load_period_state(time_t now)
{
	slurmctld_lock_t job_write_lock = { .job = WRITE_LOCK };
	double decay = fairway_decay_factor((double) slurm_conf.priority_decay_hl);

	__atomic_store(&g_decay_factor, &decay, __ATOMIC_RELAXED);
	g_reset_period = slurm_conf.priority_reset_period;
	g_next_reset = 0;
	_read_state(now);
	if (!g_last_reset)
		g_last_reset = now;
	if (xstrcmp(slurm_conf.state_save_location, "/dev/null")) {
		_restore_usage();
		_journal_open();
	}
	lock_slurmctld(job_write_lock);
	g_charged_to = g_last_ran;
	unlock_slurmctld(job_write_lock);
	g_state_loaded = true;
}

/* ------------------------------------------------------------------------- */
/* Restart safety: the usage file and the journal                            */
/* ------------------------------------------------------------------------- */

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
	return (x > y) - (x < y);
}

static bool _ended_before_restart(uint32_t job_id)
{
	return bsearch(&job_id, g_ended_ids, g_ended_n, sizeof(uint32_t),
		       _cmp_u32) != NULL;
}

static char *_usage_path(const char *suffix)
{
	return xstrdup_printf("%s/fairway_usage%s",
			      slurm_conf.state_save_location, suffix);
}

/* The QOS charge of a job end, as _charge_qos made it. */
static void _qos_charge(slurmdb_qos_rec_t *qos, const fairway_job_charge_t *c,
			uint32_t *id, double *usage, double *wall)
{
	if (!qos || !qos->usage)
		return;
	*id = qos->id;
	*usage = (qos->flags & QOS_FLAG_NO_DECAY) ? c->real_nodecay :
		c->real_decay;
	*wall = (qos->flags & QOS_FLAG_NO_DECAY) ? c->run_nodecay :
		c->run_decay;
}

/* Append what a job's end charged to the journal.  Caller holds the assoc
 * write lock. */
static void _journal_job_end(job_record_t *job_ptr,
			     const fairway_job_charge_t *c,
			     slurmdb_qos_rec_t *qos)
{
	fairway_journal_entry_t e = { 0 };
	char line[512];
	size_t len;

	if (!job_ptr->assoc_ptr)
		return;
	e.epoch = g_epoch;
	e.job_id = job_ptr->job_id;
	e.assoc_id = job_ptr->assoc_ptr->id;
	e.real = c->real_decay;
	e.run = c->run_decay;
	_qos_charge(qos, c, &e.qos_id, &e.qos_usage, &e.qos_wall);
	if (job_ptr->part_ptr && (job_ptr->part_ptr->qos_ptr != qos))
		_qos_charge(job_ptr->part_ptr->qos_ptr, c, &e.part_qos_id,
			    &e.part_qos_usage, &e.part_qos_wall);
	if (!(len = fairway_journal_format(&e, line, sizeof(line))))
		return;
	slurm_mutex_lock(&g_journal_lock);
	/* One write(): a killed slurmctld leaves whole lines (the page cache
	 * outlives the process) or a torn last one, which is skipped. */
	if ((g_journal_fd >= 0) && (write(g_journal_fd, line, len) != len))
		error("%s: cannot append to the usage journal: %m", plugin_type);
	slurm_mutex_unlock(&g_journal_lock);
}

/* Open the journal for appending (mode 0600), closing the previous one. */
static void _journal_open(void)
{
	char *path = _usage_path(".journal");

	slurm_mutex_lock(&g_journal_lock);
	if (g_journal_fd >= 0)
		close(g_journal_fd);
	g_journal_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
			    O_NOFOLLOW, 0600);
	if (g_journal_fd < 0)
		error("%s: cannot open the usage journal %s: %m", plugin_type,
		      path);
	slurm_mutex_unlock(&g_journal_lock);
	xfree(path);
}

/* The previous journal becomes .old (read at start too), a new one begins. */
static void _journal_rotate(void)
{
	char *path = _usage_path(".journal"), *old = _usage_path(".journal.old");

	slurm_mutex_lock(&g_journal_lock);
	(void) rename(path, old);
	slurm_mutex_unlock(&g_journal_lock);
	_journal_open();
	xfree(path);
	xfree(old);
}

static int _foreach_usage_entry(void *x, void *arg)
{
	fairway_usage_entry_t **cursor = arg;
	slurmdb_assoc_rec_t *a = x;

	if (a->usage) {
		(*cursor)->id = a->id;
		(*cursor)->usage_raw = a->usage->usage_raw;
		(*cursor)->grp_used_wall = a->usage->grp_used_wall;
		(*cursor)++;
	}
	return 0;
}

static int _foreach_qos_usage_entry(void *x, void *arg)
{
	fairway_usage_entry_t **cursor = arg;
	slurmdb_qos_rec_t *q = x;

	if (q->usage) {
		(*cursor)->id = q->id;
		(*cursor)->usage_raw = q->usage->usage_raw;
		(*cursor)->grp_used_wall = q->usage->grp_used_wall;
		(*cursor)++;
	}
	return 0;
}

/*
 * At the end of a period: the usage of every association and QOS as of `now`
 * to the usage file, and a new journal for the job ends that follow.  The
 * copy and the new epoch are taken under the assoc write lock, so every job
 * end is either in the file or in the journal of the new epoch.
 */
static void _save_usage(time_t now)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = READ_LOCK };
	fairway_usage_entry_t *assocs = NULL, *qos = NULL, *cur;
	size_t na = 0, nq = 0;
	char *path;

	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null"))
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		assocs = xcalloc(list_count(assoc_mgr_assoc_list) + 1,
				 sizeof(*assocs));
		cur = assocs;
		list_for_each(assoc_mgr_assoc_list, _foreach_usage_entry, &cur);
		na = cur - assocs;
	}
	if (assoc_mgr_qos_list) {
		qos = xcalloc(list_count(assoc_mgr_qos_list) + 1, sizeof(*qos));
		cur = qos;
		list_for_each(assoc_mgr_qos_list, _foreach_qos_usage_entry,
			      &cur);
		nq = cur - qos;
	}
	g_epoch = now;
	assoc_mgr_unlock(&locks);

	path = _usage_path("");
	if (fairway_usage_write(path, now, assocs, na, qos, nq) != FAIRWAY_OK)
		error("%s: cannot save the usage file: %s", plugin_type,
		      fairway_last_error());
	else
		_journal_rotate();
	xfree(path);
	xfree(assocs);
	xfree(qos);
}

static slurmdb_qos_rec_t *_find_qos(uint32_t id)
{
	slurmdb_qos_rec_t *q;
	ListIterator it;

	if (!id || !assoc_mgr_qos_list)
		return NULL;
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it)) && (q->id != id))
		;
	list_iterator_destroy(it);
	return q;
}

static int _cmp_assoc_id(const void *a, const void *b)
{
	uint32_t x = (*(slurmdb_assoc_rec_t *const *) a)->id;
	uint32_t y = (*(slurmdb_assoc_rec_t *const *) b)->id;
	return (x > y) - (x < y);
}

static slurmdb_assoc_rec_t *_find_assoc_sorted(slurmdb_assoc_rec_t **v, size_t n,
					       uint32_t id)
{
	slurmdb_assoc_rec_t key = { .id = id }, *kp = &key, **hit;

	hit = bsearch(&kp, v, n, sizeof(*v), _cmp_assoc_id);
	return hit ? *hit : NULL;
}

static void _add_journal(fairway_journal_entry_t *e, size_t n, time_t epoch,
			 slurmdb_assoc_rec_t **byid, size_t nbyid,
			 size_t *applied)
{
	for (size_t i = 0; i < n; i++) {
		slurmdb_assoc_rec_t *a;
		slurmdb_qos_rec_t *q;

		if ((e[i].epoch != epoch) ||
		    (g_ended_n && _ended_before_restart(e[i].job_id)))
			continue;
		for (a = _find_assoc_sorted(byid, nbyid, e[i].assoc_id);
		     a && a->usage; a = a->usage->parent_assoc_ptr) {
			a->usage->usage_raw += (long double) e[i].real;
			a->usage->grp_used_wall += e[i].run;
		}
		if ((q = _find_qos(e[i].qos_id)) && q->usage) {
			q->usage->usage_raw += (long double) e[i].qos_usage;
			q->usage->grp_used_wall += e[i].qos_wall;
		}
		if ((q = _find_qos(e[i].part_qos_id)) && q->usage) {
			q->usage->usage_raw += (long double) e[i].part_qos_usage;
			q->usage->grp_used_wall += e[i].part_qos_wall;
		}
		xrecalloc(g_ended_ids, g_ended_n + 1, sizeof(uint32_t));
		g_ended_ids[g_ended_n++] = e[i].job_id;
		qsort(g_ended_ids, g_ended_n, sizeof(uint32_t), _cmp_u32);
		(*applied)++;
	}
}

/*
 * At start, after slurmctld loaded its own usage checkpoint (up to 5 minutes
 * old after a crash): if Fairway's usage file belongs to the last period the
 * decay state records, it and the journal of the job ends after it replace the
 * checkpointed usage, so nothing charged before a kill -9 is lost, and the
 * jobs whose end was replayed are never charged again.  Anything inconsistent
 * (another plugin ran since, a damaged file) leaves slurmctld's usage as it
 * is, with one log line.  Caller holds g_calc_lock.
 */
static void _restore_usage(void)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	char *path = _usage_path(""), *jpath = _usage_path(".journal"),
		*jold = _usage_path(".journal.old");
	fairway_usage_file_t *f = NULL;
	fairway_journal_entry_t *e1 = NULL, *e2 = NULL;
	size_t n1 = 0, n2 = 0, restored = 0, applied = 0, nbyid = 0;
	slurmdb_assoc_rec_t **byid = NULL;

	if (fairway_usage_read(path, &f) != FAIRWAY_OK) {
		error("%s: usage file unusable, keeping slurmctld's usage: %s",
		      plugin_type, fairway_last_error());
		goto done;
	}
	if (!f)
		goto done;
	if (fairway_usage_period(f) != g_last_ran) {
		info("%s: usage file is of %ld, the last period of %ld: keeping slurmctld's usage",
		     plugin_type, (long) fairway_usage_period(f),
		     (long) g_last_ran);
		goto done;
	}
	if ((fairway_journal_read(jold, &e1, &n1) != FAIRWAY_OK) ||
	    (fairway_journal_read(jpath, &e2, &n2) != FAIRWAY_OK)) {
		error("%s: usage journal unusable, keeping slurmctld's usage: %s",
		      plugin_type, fairway_last_error());
		goto done;
	}

	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		slurmdb_assoc_rec_t *a;
		ListIterator it;

		byid = xcalloc(list_count(assoc_mgr_assoc_list) + 1,
			       sizeof(*byid));
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)))
			if (a->usage)
				byid[nbyid++] = a;
		list_iterator_destroy(it);
		qsort(byid, nbyid, sizeof(*byid), _cmp_assoc_id);
	}
	for (size_t i = 0; i < fairway_usage_count(f, 0); i++) {
		const fairway_usage_entry_t *u = fairway_usage_entry(f, 0, i);
		slurmdb_assoc_rec_t *a = _find_assoc_sorted(byid, nbyid, u->id);

		if (!a)
			continue;	/* deleted since */
		a->usage->usage_raw = u->usage_raw;
		a->usage->grp_used_wall = u->grp_used_wall;
		restored++;
	}
	for (size_t i = 0; i < fairway_usage_count(f, 1); i++) {
		const fairway_usage_entry_t *u = fairway_usage_entry(f, 1, i);
		slurmdb_qos_rec_t *q = _find_qos(u->id);

		if (!q || !q->usage)
			continue;
		q->usage->usage_raw = u->usage_raw;
		q->usage->grp_used_wall = u->grp_used_wall;
	}
	_add_journal(e1, n1, g_last_ran, byid, nbyid, &applied);
	_add_journal(e2, n2, g_last_ran, byid, nbyid, &applied);
	assoc_mgr_unlock(&locks);
	info("%s: usage of %zu associations restored from the period at %ld, plus %zu job ends after it",
	     plugin_type, restored, (long) g_last_ran, applied);
done:
	g_epoch = g_last_ran;
	fairway_usage_destroy(&f);
	free(e1);
	free(e2);
	xfree(byid);
	xfree(path);
	xfree(jpath);
	xfree(jold);
}

/* ------------------------------------------------------------------------- */
/* One calculation period                                                    */
/* ------------------------------------------------------------------------- */

/* Classic: charge a job, then weigh it with the usage charged so far.  The
 * caller holds the job write lock and the assoc and QOS write locks for the
 * whole pass (multifactor takes them per job; one lock around the pass is the
 * same sequence of values, and keeps one lock order for every pass over
 * job_list: assoc_mgr's locks, then the list's). */
/* The assoc_mgr locks of a charging pass (inside the job write lock). */
static assoc_mgr_lock_t g_charge_locks = { .assoc = WRITE_LOCK,
					   .qos = WRITE_LOCK,
					   .tres = READ_LOCK };

/* What a pass over job_list needs. */
struct pass {
	time_t now;
	const fw_cfg_t *cfg;
};

static int _foreach_charge_and_weigh(void *x, void *arg)
{
	struct pass *p = arg;

	if (_charge_running_job(p->cfg, x, p->now, true))
		_recalc_job(p->cfg, x, p->now, true);
	return 0;
}

static int _foreach_weigh(void *x, void *arg)
{
	struct pass *p = arg;

	_recalc_job(p->cfg, x, p->now, true);
	return 0;
}

/*
 * Parallel weighing (Fair Tree only).  Weighing a job reads its record, its
 * association, QOS and partitions and writes only the job's own priority,
 * prio_factors and priority_array, so jobs can be weighed by several threads
 * at once while the calculation thread holds the job write lock and the assoc
 * read lock on their behalf (nobody else can change what they read).  Not in
 * classic mode: there a job's fair-share factor may first compute and store
 * its association's effective usage (multifactor's on-demand
 * priority_p_set_assoc_usage), a write shared between jobs.
 *
 * The calculation thread collects the weighable jobs into g_weigh_jobs (which
 * only grows), hands the second half to a helper thread and weighs the first
 * half itself.  FAIRWAY_WEIGH_THREADS=1 in slurmctld's environment turns it
 * off (default: 2 when more than one CPU is online); passes with fewer than
 * FAIRWAY_PARALLEL_MIN_JOBS weighable jobs (default 4096) stay serial.
 */
static int g_weigh_threads = 1;
static size_t g_parallel_min_jobs = 4096;
static job_record_t **g_weigh_jobs = NULL;
static size_t g_weigh_cap = 0;

static pthread_mutex_t g_helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_helper_cond = PTHREAD_COND_INITIALIZER;
static pthread_t g_helper_thread;
static bool g_helper_started = false, g_helper_stop = false;
static struct {
	uint64_t posted, done;	/* tasks handed out / finished */
	const fw_cfg_t *cfg;
	time_t now;
	size_t begin, end;	/* range of g_weigh_jobs */
	bool changed;
} g_helper;

/*
 * Software prefetch for the weighing pass.  The pass is bound by memory: per
 * job about a dozen cache lines of records scattered over the heap (the job
 * record, its details, its association and usage, its prio_factors).  Walking
 * an array of job pointers lets the loop ask for them ahead of use, in two
 * stages: the job record's lines PF_RECORD jobs ahead; the records it points
 * to (details, prio_factors) PF_POINTED ahead, once the pointers are in cache.
 * The association's fair-share factor comes from g_fs_slots.
 */
#define PF_RECORD 12
#define PF_POINTED 6

static inline void _prefetch_record(const job_record_t *j)
{
	__builtin_prefetch(&j->assoc_ptr);
	__builtin_prefetch(&j->details);
	__builtin_prefetch(&j->job_state);
	__builtin_prefetch(&j->part_ptr_list);
	__builtin_prefetch(&j->qos_ptr);
	__builtin_prefetch(&j->site_factor);
	__builtin_prefetch(&j->total_cpus);
}

static inline void _prefetch_pointed(const job_record_t *j)
{
	if (j->details) {
		__builtin_prefetch(&j->details->accrue_time);
		__builtin_prefetch(&j->details->min_cpus);
	}
	if (j->prio_factors) {
		const char *pf = (const char *) j->prio_factors;
		__builtin_prefetch(pf, 1);
		__builtin_prefetch(pf + 64, 1);
		__builtin_prefetch(pf + sizeof(*j->prio_factors) - 1, 1);
	}
}


static bool _weigh_range(const fw_cfg_t *cfg, time_t now, size_t begin,
			 size_t end)
{
	bool changed = false;

	for (size_t i = begin; i < end; i++) {
		if (i + PF_RECORD < end)
			_prefetch_record(g_weigh_jobs[i + PF_RECORD]);
		if (i + PF_POINTED < end)
			_prefetch_pointed(g_weigh_jobs[i + PF_POINTED]);
		if (_weigh_job(cfg, g_weigh_jobs[i], now, true, true))
			changed = true;
	}
	return changed;
}

static void *_helper_main(void *arg)
{
	uint64_t seen = 0;

	(void) prctl(PR_SET_NAME, "fw_weigh", NULL, NULL, NULL);
	slurm_mutex_lock(&g_helper_lock);
	while (!g_helper_stop) {
		const fw_cfg_t *cfg;
		time_t now;
		size_t begin, end;
		bool changed;

		if (g_helper.posted == seen) {
			slurm_cond_wait(&g_helper_cond, &g_helper_lock);
			continue;
		}
		seen = g_helper.posted;
		cfg = g_helper.cfg;
		now = g_helper.now;
		begin = g_helper.begin;
		end = g_helper.end;
		slurm_mutex_unlock(&g_helper_lock);

		changed = _weigh_range(cfg, now, begin, end);

		slurm_mutex_lock(&g_helper_lock);
		g_helper.changed = changed;
		g_helper.done = seen;
		slurm_cond_broadcast(&g_helper_cond);
	}
	slurm_mutex_unlock(&g_helper_lock);
	return NULL;
}

/* Start the helper once; false (serial passes) if it cannot be started. */
static bool _helper_start(void)
{
	if (g_helper_started)
		return true;
	g_helper_stop = false;
	if (pthread_create(&g_helper_thread, NULL, _helper_main, NULL)) {
		error("%s: cannot start the weighing helper thread (%m), weighing jobs in one thread",
		      plugin_type);
		g_weigh_threads = 1;
		return false;
	}
	g_helper_started = true;
	return true;
}

static void _helper_stop(void)
{
	if (!g_helper_started)
		return;
	slurm_mutex_lock(&g_helper_lock);
	g_helper_stop = true;
	slurm_cond_broadcast(&g_helper_cond);
	slurm_mutex_unlock(&g_helper_lock);
	pthread_join(g_helper_thread, NULL);
	g_helper_started = false;
}

/* A pass over job_list that collects the weighable jobs into g_weigh_jobs,
 * in list order; with `charge`, it first charges each running job for the
 * period (Fair Tree's charging pass, so that one walk serves both). */
struct collect {
	const fw_cfg_t *cfg;
	time_t now;
	bool charge;
	size_t n;
};

static int _foreach_collect(void *x, void *arg)
{
	struct collect *c = arg;

	if (c->charge)
		(void) _charge_running_job(c->cfg, x, c->now, true);
	if (!_weighable(c->cfg, x))
		return 0;
	if (c->n == g_weigh_cap) {	/* grows with the queue, never shrinks */
		g_weigh_cap += g_weigh_cap / 4 + 1024;
		xrecalloc(g_weigh_jobs, g_weigh_cap, sizeof(*g_weigh_jobs));
	}
	g_weigh_jobs[c->n++] = x;
	return 0;
}

/* Weigh the n jobs collected in g_weigh_jobs (Fair Tree only: see above), in
 * two threads from g_parallel_min_jobs on.  Caller holds the job write lock
 * and the assoc and QOS read locks. */
static void _weigh_collected(const fw_cfg_t *cfg, time_t now, size_t n)
{
	size_t half;
	bool changed;

	if ((g_weigh_threads < 2) || (n < g_parallel_min_jobs) ||
	    !_helper_start()) {
		if (_weigh_range(cfg, now, 0, n))
			last_job_update = time(NULL);
		return;
	}

	half = n / 2;
	slurm_mutex_lock(&g_helper_lock);
	g_helper.cfg = cfg;
	g_helper.now = now;
	g_helper.begin = half;
	g_helper.end = n;
	g_helper.posted++;
	slurm_cond_broadcast(&g_helper_cond);
	slurm_mutex_unlock(&g_helper_lock);

	changed = _weigh_range(cfg, now, 0, half);

	slurm_mutex_lock(&g_helper_lock);
	while (g_helper.done != g_helper.posted)
		slurm_cond_wait(&g_helper_cond, &g_helper_lock);
	changed |= g_helper.changed;
	slurm_mutex_unlock(&g_helper_lock);
	if (changed)
		last_job_update = time(NULL);
	log_flag(PRIO, "%s: weighed %zu jobs in two threads", plugin_type, n);
}

/* FAIRWAY_WEIGH_THREADS and FAIRWAY_PARALLEL_MIN_JOBS from the environment. */
static void _read_weigh_env(void)
{
	const char *v;
	char *end;
	long n;

	g_weigh_threads = (sysconf(_SC_NPROCESSORS_ONLN) > 1) ? 2 : 1;
	g_parallel_min_jobs = 4096;
	if ((v = getenv("FAIRWAY_WEIGH_THREADS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 1) || (n > 2))
			error("%s: FAIRWAY_WEIGH_THREADS='%s' is not 1 or 2, using %d",
			      plugin_type, v, g_weigh_threads);
		else
			g_weigh_threads = n;
	}
	if ((v = getenv("FAIRWAY_PARALLEL_MIN_JOBS"))) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || (end == v) || *end || (n < 2))
			error("%s: FAIRWAY_PARALLEL_MIN_JOBS='%s' is not a number of at least 2, using %zu",
			      plugin_type, v, g_parallel_min_jobs);
		else
			g_parallel_min_jobs = n;
	}
}

/* Every job's priority, under the job write lock (assoc read lock inside it,
 * the order slurmctld uses). */
static void _weigh_all_jobs(const fw_cfg_t *cfg, time_t now)
{
	struct pass pass = { now, cfg };
	slurmctld_lock_t job_write_lock =
		{ NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	assoc_mgr_lock_t assoc_read = { .assoc = READ_LOCK, .qos = READ_LOCK };

	lock_slurmctld(job_write_lock);
	if (job_list) {
		assoc_mgr_lock(&assoc_read);
		if (cfg->algo == FAIRWAY_ALGO_FAIR_TREE) {
			struct collect c = { cfg, now, false, 0 };
			list_for_each(job_list, _foreach_collect, &c);
			_weigh_collected(cfg, now, c.n);
		} else {
			list_for_each(job_list, _foreach_weigh, &pass);
		}
		assoc_mgr_unlock(&assoc_read);
	}
	unlock_slurmctld(job_write_lock);
}

/*
 * Depth-oblivious, as multifactor walks it: accounts top-down, each from its
 * siblings' usage as stored at that moment (so the result depends on the
 * order and on earlier periods, which Fairway reproduces rather than "fixes");
 * users marked NO_VAL and computed when needed.  Caller holds the assoc write
 * lock.
 */
static void _depth_oblivious_children(List children)
{
	slurmdb_assoc_rec_t *assoc;
	ListIterator it;

	if (!children)
		return;
	it = list_iterator_create(children);
	while ((assoc = list_next(it))) {
		if (assoc->user) {
			assoc->usage->usage_efctv = (long double) NO_VAL;
			continue;
		}
		priority_p_set_assoc_usage(assoc);
		_depth_oblivious_children(assoc->usage->children_list);
	}
	list_iterator_destroy(it);
}

/* Fair-share under the assoc write lock. */
static int _fairshare_locked(const fw_cfg_t *cfg, bool users_lazy)
{
	assoc_mgr_lock_t assoc_write = { .assoc = WRITE_LOCK };
	int rc = SLURM_SUCCESS;

	assoc_mgr_lock(&assoc_write);
	if (cfg->algo == FAIRWAY_ALGO_DEPTH_OBLIVIOUS) {
		if (assoc_mgr_root_assoc)
			_depth_oblivious_children(
				assoc_mgr_root_assoc->usage->children_list);
	} else {
		rc = _recalc_fairshare(cfg, users_lazy);
	}
	assoc_mgr_unlock(&assoc_write);
	return rc;
}

static double _ms(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}

/*
 * One period at `now`, in multifactor's order: usage reset if due; (classic)
 * account fair-share; decay of stored usage; then either (classic) each job
 * charged and weighed in one pass, or (Fair Tree) all jobs charged, the tree
 * computed, all jobs weighed; finally the state file.  Caller holds
 * g_calc_lock.
 */
static int _period(time_t now)
{
	slurmctld_lock_t job_write_lock =
		{ NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	const fw_cfg_t *cfg = _cfg_get();
	bool fair_tree = (cfg->algo == FAIRWAY_ALGO_FAIR_TREE);
	struct pass pass = { now, cfg };
	double decay;
	int rc = SLURM_SUCCESS;

	if (!g_state_loaded)
		_load_period_state(now);
	if (__atomic_exchange_n(&g_reconfig, false, __ATOMIC_ACQ_REL)) {
		g_reset_period = slurm_conf.priority_reset_period;
		g_next_reset = 0;
		decay = fairway_decay_factor(
			(double) slurm_conf.priority_decay_hl);
		__atomic_store(&g_decay_factor, &decay, __ATOMIC_RELAXED);
	}

	switch (g_reset_period) {
	case PRIORITY_RESET_NONE:
		break;
	case PRIORITY_RESET_NOW:	/* once */
		_reset_usage();
		g_reset_period = PRIORITY_RESET_NONE;
		g_last_reset = now;
		break;
	default:
		if (!g_next_reset)
			g_next_reset = fairway_next_reset(g_reset_period,
							  g_last_reset, now);
		if (g_next_reset && (now >= g_next_reset)) {
			_reset_usage();
			g_last_reset = g_next_reset;
			g_next_reset = fairway_next_reset(g_reset_period,
							  g_last_reset, now);
		}
	}

	if (!fair_tree && g_calc_fairshare)
		rc = _fairshare_locked(cfg, true);

	if (g_last_ran && (difftime(now, g_last_ran) > 0)) {
		double run_delta = difftime(now, g_last_ran);
#ifdef FAIRWAY_MUTANT_DECAY	/* test/differential/run-mutant must catch it */
		run_delta += 1;
#endif

		__atomic_load(&g_decay_factor, &decay, __ATOMIC_RELAXED);
		_apply_decay(fairway_period_decay(decay, run_delta));
		lock_slurmctld(job_write_lock);
		site_factor_g_update();
		if (!fair_tree && job_list) {
			assoc_mgr_lock(&g_charge_locks);
			list_for_each(job_list, _foreach_charge_and_weigh,
				      &pass);
			assoc_mgr_unlock(&g_charge_locks);
		}
		if (!fair_tree)
			g_charged_to = now;
		unlock_slurmctld(job_write_lock);
	}

	if (fair_tree) {
		/*
		 * One walk over job_list charges the running jobs and collects
		 * the weighable ones; the tree is computed and the collected jobs
		 * weighed without letting go of the job lock, so that the list is
		 * walked once (multifactor walks it twice and takes the job write
		 * lock twice, for longer in all).  Assoc locks inside the job
		 * lock: slurmctld's order.
		 */
		struct collect c = { cfg, now, true, 0 };
		assoc_mgr_lock_t assoc_read = { .assoc = READ_LOCK,
						.qos = READ_LOCK };
		struct timespec t0, t1, t2, t3;

		lock_slurmctld(job_write_lock);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (job_list) {
			assoc_mgr_lock(&g_charge_locks);
			list_for_each(job_list, _foreach_collect, &c);
			assoc_mgr_unlock(&g_charge_locks);
		}
		g_charged_to = now;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (g_calc_fairshare)
			rc = _fairshare_locked(cfg, false);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		if (c.n) {
			assoc_mgr_lock(&assoc_read);
			_weigh_collected(cfg, now, c.n);
			assoc_mgr_unlock(&assoc_read);
		}
		clock_gettime(CLOCK_MONOTONIC, &t3);
		log_flag(PRIO, "%s: period %ld: job list walk (charging, collecting) %.3f ms, fair-share %.3f ms, weighing %zu jobs %.3f ms",
			 plugin_type, (long) now, _ms(t0, t1), _ms(t1, t2),
			 c.n, _ms(t2, t3));
		unlock_slurmctld(job_write_lock);
	}

	/* No charging pass ran (classic, first period or clock not moved):
	 * job ends charge from here on.  Written only by periods (g_calc_lock
	 * held), so reading it here needs no job lock. */
	if (g_charged_to != now) {
		lock_slurmctld(job_write_lock);
		g_charged_to = now;
		unlock_slurmctld(job_write_lock);
	}
	g_last_ran = now;
	_save_usage(now);
	_write_state();
	_cfg_put(cfg);
	return rc;
}

extern int priority_fairway_recalc(time_t now)
{
	int rc = SLURM_SUCCESS;

	const fw_cfg_t *cfg = _cfg_get();

	slurm_mutex_lock(&g_calc_lock);
	if (g_calc_fairshare)
		rc = _fairshare_locked(cfg, false);
	_weigh_all_jobs(cfg, now);
	slurm_mutex_unlock(&g_calc_lock);
	_cfg_put(cfg);
	return rc;
}

extern int priority_fairway_cycle(time_t now)
{
	int rc;

	slurm_mutex_lock(&g_calc_lock);
	rc = _period(now);
	slurm_mutex_unlock(&g_calc_lock);
	return rc;
}

static void *_calc_thread(void *arg)
{
	struct timespec next;
	time_t start = time(NULL);

	(void) prctl(PR_SET_NAME, "fairway", NULL, NULL, NULL);
	clock_gettime(CLOCK_REALTIME, &next);
	slurm_mutex_lock(&g_calc_lock);
	/* Release the TRES run seconds running jobs used before the last
	 * period (slurmctld reserved their whole time limit at start); before
	 * any period charges them again. */
	_init_grp_used_tres_run_secs();
	while (!g_shutdown) {
		(void) _period(start);

		next.tv_sec += slurm_conf.priority_calc_period;
		while (!g_shutdown) {
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			if (now.tv_sec >= next.tv_sec)
				break;
			pthread_cond_timedwait(&g_calc_cond, &g_calc_lock,
					       &next);
		}
		start = time(NULL);
	}
	slurm_mutex_unlock(&g_calc_lock);
	return NULL;
}

/* The calculation thread; slurmctld calls init, and from 24.05 on
 * priority_p_thread_start once it is ready for threads. */
static bool g_calc_thread_wanted = false;

static void _start_calc_thread(void)
{
	if (g_calc_thread_started)
		return;
	slurm_thread_create(&g_calc_thread, _calc_thread, NULL);
	g_calc_thread_started = true;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
extern void priority_p_thread_start(void)
{
	if (g_calc_thread_wanted)
		_start_calc_thread();
}
#endif

extern int init(void)
{
	slurmctld_lock_t job_write_lock =
		{ NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };

	g_calc_fairshare = true;
	g_calc_thread_wanted = false;
	g_shutdown = false;
	_read_weigh_env();

	/* Loaded outside slurmctld (sshare, a test harness): no thread. */
	if (cluster_cpus == NO_VAL) {
		_read_settings();
		debug("%s: loaded outside slurmctld, no calculation thread",
		      plugin_type);
		return SLURM_SUCCESS;
	}

	if (!slurm_with_slurmdbd()) {
		time_t now = time(NULL);

		if (slurm_conf.priority_weight_age)
			error("PriorityWeightAge can only be used with SlurmDBD, ignoring");
		if (slurm_conf.priority_weight_fs)
			error("PriorityWeightFairshare can only be used with SlurmDBD, ignoring");
		struct pass pass = { now, NULL };

		g_calc_fairshare = false;
		_read_settings();
		pass.cfg = _cfg_get();
		lock_slurmctld(job_write_lock);
		if (job_list) {
			assoc_mgr_lock(&g_charge_locks);
			list_for_each(job_list, _foreach_charge_and_weigh,
				      &pass);
			assoc_mgr_unlock(&g_charge_locks);
		}
		unlock_slurmctld(job_write_lock);
		_cfg_put(pass.cfg);
	} else if (assoc_mgr_root_assoc) {
		assoc_mgr_lock_t assoc_write = { .assoc = WRITE_LOCK };

		_read_settings();
		assoc_mgr_lock(&assoc_write);
		assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
		assoc_mgr_unlock(&assoc_write);
		/* Before any job can end: priority_p_job_end charges from the
		 * last period, so it must be known (as multifactor waits for
		 * its thread to read it). */
		slurm_mutex_lock(&g_calc_lock);
		_load_period_state(time(NULL));
		slurm_mutex_unlock(&g_calc_lock);
		g_shutdown = false;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
		g_calc_thread_wanted = true;	/* priority_p_thread_start */
#else
		_start_calc_thread();
#endif
	} else {
		/*
		 * multifactor calls fatal() here when PriorityWeightFairshare
		 * is set; Fairway never stops slurmctld: it disables the
		 * fair-share factor and says why.
		 */
		if (slurm_conf.priority_weight_fs)
			error("%s: no association data from the database: the fair-share factor is disabled until slurmctld restarts with a working slurmdbd",
			      plugin_type);
		g_calc_fairshare = false;
		_read_settings();
	}

	site_factor_plugin_init();
	info("%s: %s %s loaded (fairway %s, %s)", plugin_type, plugin_name,
	     SLURM_VERSION_STRING, fairway_version(),
	     (g_cfg->algo == FAIRWAY_ALGO_FAIR_TREE) ? "fair tree" :
	     (g_cfg->algo == FAIRWAY_ALGO_CLASSIC) ? "classic fair-share" :
	     "depth-oblivious fair-share");
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	slurm_mutex_lock(&g_calc_lock);
	g_shutdown = true;
	slurm_cond_signal(&g_calc_cond);
	slurm_mutex_unlock(&g_calc_lock);

	if (g_calc_thread_started) {
		pthread_join(g_calc_thread, NULL);
		g_calc_thread_started = false;
	}
	/* No period runs now (the thread is gone; a test's synchronous call
	 * has returned). */
	_helper_stop();
	xfree(g_weigh_jobs);
	g_weigh_cap = 0;
	_cfg_publish(NULL);
	_fs_cache_free();
	slurm_mutex_lock(&g_journal_lock);
	if (g_journal_fd >= 0)
		close(g_journal_fd);
	g_journal_fd = -1;
	slurm_mutex_unlock(&g_journal_lock);
	xfree(g_ended_ids);
	g_ended_n = 0;
	g_epoch = 0;
	/* A later init (the plugin reloaded) starts from the state file again. */
	slurm_mutex_lock(&g_calc_lock);
	g_state_loaded = false;
	g_last_ran = g_last_reset = g_next_reset = 0;
	g_charged_to = 0;	/* job ends charge from the state file's period */
	__atomic_store_n(&g_reconfig, false, __ATOMIC_RELEASE);
	slurm_mutex_unlock(&g_calc_lock);
	site_factor_plugin_fini();
	return SLURM_SUCCESS;
}

extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	const fw_cfg_t *cfg = _cfg_get();
	uint32_t prio;

	/* First, so a new site factor is part of the sum. */
	site_factor_g_set(job_ptr);
	prio = _job_priority(cfg, job_ptr, time(NULL), false, false);
	_cfg_put(cfg);
	debug2("%s: initial priority for %pJ is %u", plugin_type, job_ptr,
	       prio);
	return prio;
}

static fairway_algorithm_t _cfg_algo(void)
{
	const fw_cfg_t *cfg = _cfg_get();
	fairway_algorithm_t a = cfg->algo;

	_cfg_put(cfg);
	return a;
}

/*
 * The fair-share algorithm changed by reconfigure: give every association what
 * a controller started with the new PriorityFlags has.  assoc_mgr normalizes
 * shares by the flags when it loads the associations (Fair Tree among
 * siblings, the others down the whole path); the classic period never writes
 * users' shares_norm, so without this they would keep Fair Tree's until a
 * restart.  Leaving Fair Tree, its Level FS and fair-share factor go too: the
 * other algorithms never store them.  Users of Fairshare=parent copy their
 * account's normalized shares, hence the second pass.  multifactor 22.05
 * tests for the switch after taking the new flags and keeps the old
 * algorithm's shares (doc/differences.md).  Caller holds g_calc_lock.
 */
static void _algorithm_switched(fairway_algorithm_t algo)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	slurmdb_assoc_rec_t *assoc;
	ListIterator it;

	assoc_mgr_lock(&locks);
	if (!assoc_mgr_assoc_list) {
		assoc_mgr_unlock(&locks);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it))) {
			bool parent = (assoc->shares_raw ==
				       SLURMDB_FS_USE_PARENT);

			if (!assoc->usage || (parent != (pass == 1)))
				continue;
			assoc_mgr_normalize_assoc_shares(assoc);
			if (algo != FAIRWAY_ALGO_FAIR_TREE) {
				assoc->usage->level_fs = 0;
				assoc->usage->fs_factor = 0;
			}
		}
		list_iterator_destroy(it);
	}
	g_fs_slots_valid = false;
	assoc_mgr_unlock(&locks);
	info("%s: fair-share algorithm changed by reconfigure: associations' normalized shares recomputed for the new one",
	     plugin_type);
}

extern void priority_p_reconfig(bool assoc_clear)
{
	fairway_algorithm_t was = _cfg_algo(), algo;

	_read_settings();
	if ((algo = _cfg_algo()) != was) {
		/* Not while a period computes (slurmctld holds no lock). */
		slurm_mutex_lock(&g_calc_lock);
		_algorithm_switched(algo);
		slurm_mutex_unlock(&g_calc_lock);
	}
	/* Decay half-life and reset period are re-read by the next period. */
	__atomic_store_n(&g_reconfig, true, __ATOMIC_RELEASE);
	/* slurmctld reset the TRES run seconds: release what was used up to
	 * the last period again. */
	if (assoc_clear) {
		/* Not while a period charges (slurmctld holds no lock here). */
		slurm_mutex_lock(&g_calc_lock);
		_init_grp_used_tres_run_secs();
		slurm_mutex_unlock(&g_calc_lock);
	}
	site_factor_g_reconfig();
	debug2("%s: reconfigured", plugin_type);
}

/* usage_norm = usage_raw / root usage_raw, at most 1 (multifactor's
 * set_assoc_usage_norm()). */
static void _set_usage_norm(slurmdb_assoc_rec_t *assoc)
{
	long double root = assoc_mgr_root_assoc->usage->usage_raw;

	if (!root) {
		assoc->usage->usage_norm = 0L;
		return;
	}
	assoc->usage->usage_norm = assoc->usage->usage_raw / root;
	if (assoc->usage->usage_norm > 1L)
		assoc->usage->usage_norm = 1L;
}

/*
 * Normalized and effective usage of one association, as multifactor sets them
 * on demand (sshare, a job's fair-share factor).  Caller holds the assoc lock.
 */
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	slurmdb_assoc_rec_t *fs_assoc;

	if (!assoc || !assoc->usage || !assoc_mgr_root_assoc) {
		error("%s: %s called without an association", plugin_type,
		      __func__);
		return;
	}
	fs_assoc = assoc->usage->fs_assoc_ptr;
	_set_usage_norm(assoc);
	if (!fs_assoc) {
		/* The root association: its effective usage is its own. */
		assoc->usage->usage_efctv = assoc->usage->usage_norm;
	} else if (fs_assoc == assoc_mgr_root_assoc) {
		assoc->usage->usage_efctv = assoc->usage->usage_norm;
	} else if (assoc->shares_raw == SLURMDB_FS_USE_PARENT) {
		assoc->usage->usage_efctv = fs_assoc->usage->usage_efctv;
	} else if (_cfg_algo() == FAIRWAY_ALGO_DEPTH_OBLIVIOUS) {
		/* From the siblings' usage_norm as stored now, as multifactor
		 * reads them (users' may be from an earlier period). */
		long double siblings = 0;
		slurmdb_assoc_rec_t *sib;
		ListIterator it;

		if (fs_assoc->usage->children_list) {
			it = list_iterator_create(fs_assoc->usage->children_list);
			while ((sib = list_next(it)))
				if (sib->shares_raw != SLURMDB_FS_USE_PARENT)
					siblings += sib->usage->usage_norm;
			list_iterator_destroy(it);
		}
		assoc->usage->usage_efctv = fairway_depth_oblivious_usage_efctv(
			assoc->usage->usage_norm, assoc->usage->shares_norm,
			fs_assoc->usage->usage_efctv,
			fs_assoc->usage->shares_norm, siblings);
	} else {
		long double ua = assoc->usage->usage_norm;
		long double ue_parent = fs_assoc->usage->usage_efctv;
		uint32_t s_all = assoc->usage->level_shares;

		if (!s_all)
			assoc->usage->usage_efctv = ue_parent;
		else
			assoc->usage->usage_efctv = ua + (ue_parent - ua) *
				(assoc->shares_raw / (long double) s_all);
	}
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 11, 0)
/* Slurm 25.11 dropped this hook from the loader's list. */
extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	const fw_cfg_t *cfg = _cfg_get();
	double f = fairway_classic_fs_factor(usage_efctv, shares_norm,
					     cfg->damp);

	_cfg_put(cfg);
	return f;
}
#endif

static int _find_ptr(void *x, void *key)
{
	return x == key;
}

static int _find_uint32(void *x, void *key)
{
	return *(uint32_t *) x == *(uint32_t *) key;
}

/* Does list (of part_record_t *) hold part_ptr? */
static bool _part_in_list(List list, part_record_t *part_ptr)
{
	return list_find_first(list, _find_ptr, part_ptr) != NULL;
}

/* Append sprio's records of one job to ret_list (multifactor's _filter_job). */
static void _append_job_factors(const fw_cfg_t *cfg, job_record_t *job_ptr,
				priority_factors_request_msg_t *req_msg,
				List part_filter, List ret_list)
{
	priority_factors_object_t *obj;
	part_record_t *part_ptr;
	ListIterator it;

	if (req_msg && req_msg->job_id_list &&
	    !list_find_first(req_msg->job_id_list, _find_uint32,
			     &job_ptr->job_id))
		return;
	if (req_msg && req_msg->uid_list &&
	    !list_find_first(req_msg->uid_list, _find_uint32,
			     &job_ptr->user_id))
		return;
	/* A job whose partition was deleted has nothing to show. */
	if (!job_ptr->part_ptr && !job_ptr->part_ptr_list)
		return;

	if (!job_ptr->part_ptr_list) {
		if (part_filter && !_part_in_list(part_filter, job_ptr->part_ptr))
			return;
		obj = xmalloc(sizeof(*obj));
		if (job_ptr->direct_set_prio)
			obj->direct_prio = job_ptr->priority;
		else
			slurm_copy_priority_factors_object(obj,
							   job_ptr->prio_factors);
		obj->job_id = job_ptr->job_id;
		obj->partition = job_ptr->part_ptr->name;
		obj->user_id = job_ptr->user_id;
		list_append(ret_list, obj);
		return;
	}

	it = list_iterator_create(job_ptr->part_ptr_list);
	while ((part_ptr = list_next(it))) {
		if (part_filter && !_part_in_list(part_filter, part_ptr))
			continue;
		obj = xmalloc(sizeof(*obj));
		slurm_copy_priority_factors_object(obj, job_ptr->prio_factors);
		obj->priority_part =
			((cfg->weights.flags & FAIRWAY_FLAG_NO_NORMAL_PART) ?
			 part_ptr->priority_job_factor :
			 part_ptr->norm_priority) * (double) cfg->weights.partition;
		obj->job_id = job_ptr->job_id;
		obj->partition = part_ptr->name;
		obj->user_id = job_ptr->user_id;
		/* Over the copy of the job's weighted factors: a TRES this
		 * partition does not count keeps the copied value and is
		 * weighted again, as multifactor's rows show it. */
		if (obj->priority_tres)
			(void) fairway_sprio_row_tres(&cfg->weights,
						      job_ptr->tres_alloc_cnt,
						      job_ptr->tres_req_cnt,
						      part_ptr->tres_cnt,
						      obj->priority_tres);
		list_append(ret_list, obj);
	}
	list_iterator_destroy(it);
}

/* May uid see this job's factors under PrivateData=jobs? */
static bool _may_see_job(job_record_t *job_ptr, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS))
		return true;
	if ((job_ptr->user_id == uid) || validate_operator(uid))
		return true;
	if (slurm_mcs_get_privatedata() == 0)
		return assoc_mgr_is_user_acct_coord(acct_db_conn, uid,
						    job_ptr->account);
	return mcs_g_check_mcs_label(uid, job_ptr->mcs_label, false) == 0;
}

/* The sprio breakdown of every job uid may see, filtered by req_msg (NULL: no
 * filter, as Slurm 23.02 and later ask for it). */
static List _factors_list(priority_factors_request_msg_t *req_msg, uid_t uid)
{
	slurmctld_lock_t job_read_lock =
		{ NO_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	List ret_list = NULL, part_filter = NULL;
	time_t now = time(NULL);
	const fw_cfg_t *cfg;
	job_record_t *job_ptr;
	ListIterator it;

	cfg = _cfg_get();

	lock_slurmctld(job_read_lock);
	if (req_msg && req_msg->partitions) {
		char *parts = xstrdup(req_msg->partitions), *save = NULL;
		part_record_t *part_ptr;

		part_filter = list_create(NULL);
		for (char *tok = strtok_r(parts, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if ((part_ptr = find_part_record(tok)))
				list_append(part_filter, part_ptr);
		xfree(parts);
	}

	if (job_list && list_count(job_list)) {
		ret_list = list_create(slurm_destroy_priority_factors_object);
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it))) {
			time_t use_time;

			if (!(cfg->weights.flags &
			      FAIRWAY_FLAG_CALCULATE_RUNNING) &&
			    !IS_JOB_PENDING(job_ptr))
				continue;
			if (IS_JOB_REVOKED(job_ptr) || !job_ptr->details)
				continue;
			/* Not eligible yet. */
			use_time = (cfg->weights.flags &
				    FAIRWAY_FLAG_ACCRUE_ALWAYS) ?
				job_ptr->details->submit_time :
				job_ptr->details->begin_time;
			if (!use_time || (use_time > now))
				continue;
			if (job_ptr->priority == 0)	/* held */
				continue;
			if (!_may_see_job(job_ptr, uid))
				continue;
			_append_job_factors(cfg, job_ptr, req_msg,
					    part_filter, ret_list);
		}
		list_iterator_destroy(it);
		if (!list_count(ret_list))
			FREE_NULL_LIST(ret_list);
	}
	unlock_slurmctld(job_read_lock);
	_cfg_put(cfg);
	FREE_NULL_LIST(part_filter);
	return ret_list;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* 23.02 on: slurmctld filters sprio's request itself. */
extern List priority_p_get_priority_factors_list(uid_t uid)
{
	return _factors_list(NULL, uid);
}
#else
extern List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	if (!req_msg)
		return NULL;
	return _factors_list(req_msg, uid);
}
#endif

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/*
 * 23.02 on: called after slurmctld recovered its jobs, with the boost
 * priority/basic adds to keep its decreasing priorities above 0.  Like
 * multifactor, Fairway computes every priority afresh and needs no boost.
 */
extern uint32_t priority_p_recover(uint32_t prio_boost)
{
	(void) prio_boost;
	return 0;
}
#endif

/* A job ended: charge what it used since the last period.  Caller holds the
 * job write lock (acct_policy_job_fini). */
extern void priority_p_job_end(job_record_t *job_ptr)
{
	if (!job_ptr)
		return;
	log_flag(PRIO, "%s: %s called for %pJ", plugin_type, __func__,
		 job_ptr);
	(void) _apply_new_usage(job_ptr, g_charged_to, time(NULL), true, false);
}
