/*
 * fairway_fair_share_table.h - the C API of the fair-share state the plugin keeps between
 * periods: the association tree of the last calculation (kept while the associations keep
 * their shape), its results, every association's fair-share factor by id for the weighing
 * of jobs, and the per-TRES trees of PriorityParameters fairway_fairshare_tres.
 *
 * Writers (every function but the lookups) must not run at the same time as any other call
 * on the same table; the lookups (fairway_fair_share_table_factor,
 * fairway_fair_share_table_tres_factor) allocate nothing and take no lock, and any number
 * of threads may call them between two writers.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_FAIR_SHARE_TABLE_H
#define FAIRWAY_FAIR_SHARE_TABLE_H

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fairway_fair_share_table fairway_fair_share_table_t;

/* An empty table.  Errors: FAIRWAY_EINVAL (NULL out), FAIRWAY_ENOMEM. */
fairway_error_t fairway_fair_share_table_new(fairway_fair_share_table_t** out);

/* Free *t and set it to NULL; a NULL t or *t is a no-op.  Errors: none. */
void fairway_fair_share_table_destroy(fairway_fair_share_table_t** t);

/*
 * The associations of this period (indexes in the other calls are positions here) and what
 * fair-share compares.  The tree is built again when their shape (ids, parents, shares,
 * which are users) differs from the kept tree's.  Under FAIRWAY_USAGE_HISTORICAL each
 * association's usage is its usage_raw (jobs are not read); under ALLOCATED or COMMITTED it
 * is what the count_jobs running jobs of its subtree hold (lib/priority/held_usage.h: the
 * jobs' charge rates under ALLOCATED, rates times remaining seconds under COMMITTED, summed up
 * the tree; jobs of associations not in the tree are counted in *unknown, which may be NULL).
 * Forgets the lookups; on an error, the tree too.
 * Errors: FAIRWAY_EINVAL (NULL t, assocs NULL with count > 0, jobs NULL with count_jobs > 0,
 *         unknown basis), FAIRWAY_ETREE (unknown parent, cycle, no or two roots, duplicate
 *         id, a negative, NaN or infinite usage; fairway_last_error() names it),
 *         FAIRWAY_ENOMEM, FAIRWAY_EINTERNAL.
 */
fairway_error_t fairway_fair_share_table_load(fairway_fair_share_table_t* t,
                                              const fairway_assoc_t* assocs, size_t count,
                                              uint32_t basis, const fairway_running_job_t* jobs,
                                              size_t count_jobs, size_t* unknown);

/*
 * Normalized shares, usage and the fair-share factor of every association of the kept tree,
 * exactly as Slurm's priority/multifactor computes them for `algo` (dampening is
 * FairShareDampeningFactor: classic only; >= 1); then, under Fair Tree, every association's
 * factor indexed by id for fairway_fair_share_table_factor (the weighing of jobs reads it),
 * and with tres_count > 0 the ids for the TRES trees that follow.
 * Errors: FAIRWAY_EINVAL (NULL t, no tree loaded, bad algo, dampening < 1),
 *         FAIRWAY_ENOMEM, FAIRWAY_EINTERNAL.
 */
fairway_error_t fairway_fair_share_table_compute(fairway_fair_share_table_t* t,
                                                 fairway_algorithm_t algo, double dampening,
                                                 size_t tres_count);

/*
 * The result for association `index` of the last fairway_fair_share_table_compute.
 * Errors: FAIRWAY_EINVAL (NULL argument, index out of range, nothing computed).
 */
fairway_error_t fairway_fair_share_table_result(const fairway_fair_share_table_t* t, size_t index,
                                                fairway_assoc_result_t* out);

/*
 * fairway_fairshare_tres: count TRES follow (fairway_fair_share_table_tres for k = 0 to
 * count - 1 in turn); their factors are looked up once the last has been computed.  count
 * 0 forgets every TRES's factors.
 * Errors: FAIRWAY_EINVAL (NULL t, count > 0 with no tree, count > FAIRWAY_MAX_FAIRSHARE_TRES).
 */
fairway_error_t fairway_fair_share_table_tres_begin(fairway_fair_share_table_t* t, size_t count);

/*
 * TRES k, at position pos of the TRES arrays: a copy of the kept tree (made again when the
 * tree was built again) given usage[i] as association i's usage (usage has an entry for
 * each association of the last fairway_fair_share_table_load), or when usage is NULL what
 * the count_jobs jobs hold under basis; fair-share computed with algo and every
 * association's factor kept for fairway_fair_share_table_tres_factor.  On an error no TRES
 * has factors.
 * Errors: FAIRWAY_EINVAL (NULL t, no tree, k out of turn, jobs NULL with count_jobs > 0,
 *         a NULL usage under FAIRWAY_USAGE_HISTORICAL, bad algo or dampening),
 *         FAIRWAY_ETREE (a negative or NaN usage), FAIRWAY_ENOMEM, FAIRWAY_EINTERNAL.
 */
fairway_error_t fairway_fair_share_table_tres(fairway_fair_share_table_t* t, size_t k, int pos,
                                              const long double* usage, uint32_t basis,
                                              const fairway_running_job_t* jobs, size_t count_jobs,
                                              fairway_algorithm_t algo, double dampening);

/* Forget the lookups (the associations changed); the tree stays.  Errors: none. */
void fairway_fair_share_table_forget(fairway_fair_share_table_t* t);

/*
 * Classic and depth-oblivious: the fair-share factor every job of association `id` gets for
 * the rest of this pass, noted by the walk of job_list when it has computed the first one's
 * on demand (the effective usage it reads is then not computed again in the pass), so that
 * the weighing threads look it up with fairway_fair_share_table_factor as they look up Fair
 * Tree's.  fairway_fair_share_table_forget_noted forgets them at the end of the pass;
 * fairway_fair_share_table_forget and _compute forget them too.
 * Errors: FAIRWAY_EINVAL (NULL t), FAIRWAY_ENOMEM (nothing noted: the job is weighed from its
 *         association).
 */
fairway_error_t fairway_fair_share_table_note_factor(fairway_fair_share_table_t* t, uint32_t id,
                                                     double factor);
/*
 * Depth-oblivious, in the same pass: the sum of usage_norm over the children of association
 * `parent` that are not Fairshare=parent, the same additions in the same order as
 * multifactor's walk of the children list, from a copy of their values made once per parent
 * and pass (fairway_fair_share_table_copy_children: ids and values in the list's order) and
 * kept current by fairway_fair_share_table_set_usage_norm for every usage_norm the pass
 * writes.  fairway_fair_share_table_sibling_sum: 1 and *sum when the parent's children were
 * copied this pass, else 0 (errors: none; a NULL argument: 0).
 * copy_children's errors: FAIRWAY_EINVAL (NULL t, NULL ids or values with count > 0, the
 * parent copied already, a child copied twice), FAIRWAY_ENOMEM (nothing copied: the caller
 * sums the list).  set_usage_norm's: none (NULL t: a no-op).
 */
int fairway_fair_share_table_sibling_sum(const fairway_fair_share_table_t* t, uint32_t parent,
                                         long double* sum);
fairway_error_t fairway_fair_share_table_copy_children(fairway_fair_share_table_t* t,
                                                       uint32_t parent, const uint32_t* ids,
                                                       const long double* values, size_t count);
void fairway_fair_share_table_set_usage_norm(fairway_fair_share_table_t* t, uint32_t id,
                                             long double value);

/* The end of a pass: the factors noted and the children's copies forgotten.  Errors: none
 * (NULL t: a no-op). */
void fairway_fair_share_table_forget_noted(fairway_fair_share_table_t* t);

/*
 * The fair-share factor of association `id` after the last computation with
 * Fair Tree, or else the one noted this pass, or NULL (none, or an association
 * the algorithm gave none: read it from the association).  Valid until the next
 * writer.  Errors: none (NULL t: NULL).
 */
const double* fairway_fair_share_table_factor(const fairway_fair_share_table_t* t, uint32_t id);

/*
 * The fair-share factor association `id` has when fair-share compares its usage of the TRES
 * at position pos, from the last fairway_fair_share_table_tres, in *out: 1; 0 when there is
 * none (then *out is unchanged).  Errors: none (a NULL argument: 0).
 */
int fairway_fair_share_table_tres_factor(const fairway_fair_share_table_t* t, uint32_t id, int pos,
                                         double* out);

/*
 * What a reconfigure that switches fair-share to `to` clears in every association of Slurm
 * release slurm_release (SLURM_VERSION_NUMBER), as FAIRWAY_SET_LEVEL_FS and
 * FAIRWAY_SET_FS_FACTOR bits (lib/priority/fair_share.h, switch_clears).  Errors: none (an
 * unknown algorithm clears both).
 */
unsigned fairway_fair_share_switch_clears(fairway_algorithm_t to, uint32_t slurm_release);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_FAIR_SHARE_TABLE_H */
