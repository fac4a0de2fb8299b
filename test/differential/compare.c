/*****************************************************************************\
 *  compare.c - the captures of multifactor and priority/fairway compared field
 *  by field: every association's shares_norm, usage_norm, usage_efctv,
 *  level_fs, fs_factor and usage (as sshare reads them), the QOS usage (from
 *  24.11 with the run seconds reserved per account and user), every
 *  job's priority, its priorities per partition (22.05) or per (partition,
 *  QOS) pair with their partition names (24.11 on) and prio_factors, sprio's
 *  rows (with account and QOS from 24.11 on), the priorities of submits, and
 *  the usage job ends charged.  Floating-point values agree to 1e-9 relative;
 *  integers exactly.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int g_mismatches;

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

/* Counted; the first 20 of a scenario printed. */
static void _mismatch(const char *what, int idx, const char *field,
		      long double mf, long double fw)
{
	g_mismatches++;
	if (g_mismatches <= 20)
		printf("MISMATCH %s: %s %d %s: multifactor %.17Lg fairway %.17Lg\n",
		       fw_world.scenario, what, idx, field, mf, fw);
}

#define CMP(what, i, field, x, y) \
	do { \
		if (!_same((x), (y))) \
			_mismatch(what, i, field, (x), (y)); \
	} while (0)
#define CMPI(what, i, field, x, y) \
	do { \
		if ((x) != (y)) \
			_mismatch(what, i, field, (x), (y)); \
	} while (0)

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
		if ((v[i] != v[i - 1]) && (v[i] - v[i - 1] <= 1e-12L * v[i]))
			near++;
	if (near)
		printf("NEAR-TIE %s: fs_factor differs, and %d pairs of level_fs values are equal up to rounding but not exactly (Slurm does not tie them): if the differing ranks are among these, Fairway's arithmetic is not bit-identical to Slurm's there (a mismatch all the same)\n",
		       fw_world.scenario, near);
	xfree(v);
}

/* Every field of two priority_factors objects (a job's, or a row of sprio's),
 * with their TRES factors. */
static void _cmp_factors(const char *what, int i, const fw_prio_factors_t *a,
			 const double *ta, const fw_prio_factors_t *b,
			 const double *tb)
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
	for (int t = 0; t < slurmctld_tres_cnt && t < MAX_TRES; t++)
		CMP(what, i, "tres", ta[t], tb[t]);
}

/* An association's or a QOS's usage; `wall` false: no grp_used_wall nor
 * TRES usage (a QOS after job ends). */
static void _cmp_usage(const char *what, int i, const usage_out_t *a,
		       const usage_out_t *b, bool wall)
{
	CMP(what, i, "usage_raw", a->usage_raw, b->usage_raw);
	if (wall)
		CMP(what, i, "grp_used_wall", a->grp_used_wall,
		    b->grp_used_wall);
	for (int t = 0; t < MAX_TRES; t++) {
		CMPI(what, i, "grp_used_tres_run_secs", a->run_secs[t],
		     b->run_secs[t]);
		if (wall)
			CMP(what, i, "usage_tres_raw", a->tres_raw[t],
			    b->tres_raw[t]);
	}
}

static void _cmp_assoc(int i, const assoc_out_t *a, const assoc_out_t *b)
{
	CMP("assoc", i, "shares_norm", a->shares_norm, b->shares_norm);
	CMP("assoc", i, "usage_norm", a->usage_norm, b->usage_norm);
	CMP("assoc", i, "usage_efctv", a->usage_efctv, b->usage_efctv);
	CMP("assoc", i, "level_fs", a->level_fs, b->level_fs);
	CMP("assoc", i, "fs_factor", a->fs_factor, b->fs_factor);
	_cmp_usage("assoc", i, &a->u, &b->u, true);
}

static void _cmp_job(int i, const job_out_t *a, const job_out_t *b)
{
	CMPI("job", i, "priority", a->priority, b->priority);
	CMPI("job", i, "priority_array entries", a->nprio, b->nprio);
	for (int p = 0; p < MAX_PRIO; p++)
		CMPI("job", i, "priority_array", a->prio_array[p],
		     b->prio_array[p]);
	CMPI("job", i, "priority_array_names",
	     strcmp(a->prio_names, b->prio_names), 0);
	CMPI("job", i, "has_factors", a->has_factors, b->has_factors);
	if (a->has_factors && b->has_factors)
		_cmp_factors("job", i, &a->f, a->tres, &b->f, b->tres);
}

static void _cmp_sprio_row(int i, const sprio_row_t *a, const sprio_row_t *b)
{
	CMPI("sprio row", i, "job_id", a->job_id, b->job_id);
	CMPI("sprio row", i, "user_id", a->user_id, b->user_id);
	CMPI("sprio row", i, "direct_prio", a->direct_prio, b->direct_prio);
	CMPI("sprio row", i, "partition", strcmp(a->partition, b->partition),
	     0);
	CMPI("sprio row", i, "account", strcmp(a->account, b->account), 0);
	CMPI("sprio row", i, "qos", strcmp(a->qos, b->qos), 0);
	CMPI("sprio row", i, "has_factors", a->has_factors, b->has_factors);
	if (a->has_factors && b->has_factors)
		_cmp_factors("sprio row", i, &a->f, a->tres, &b->f, b->tres);
}

/* 24.11 on: the run seconds per account and per user under each QOS, by
 * key; an entry only one plugin created counts as none reserved. */
static void _cmp_used(const char *what, const used_out_t *a, int na,
		      const used_out_t *b, int nb)
{
	static const used_out_t zero;
	int i = 0, k = 0;

	while ((i < na) || (k < nb)) {
		const used_out_t *x = &zero, *y = &zero, *key;
		int c = (i >= na)	       ? 1 :
			(k >= nb)	       ? -1 :
			(a[i].qos != b[k].qos) ? a[i].qos - b[k].qos :
			(a[i].user != b[k].user) ?
						 a[i].user - b[k].user :
			strcmp(a[i].acct, b[k].acct) ?
						 strcmp(a[i].acct, b[k].acct) :
						 (a[i].uid > b[k].uid) -
				(a[i].uid < b[k].uid);

		if (c <= 0)
			x = &a[i++];
		if (c >= 0)
			y = &b[k++];
		key = (c <= 0) ? x : y;
		for (int t = 0; t < MAX_TRES; t++)
			if (x->run_secs[t] != y->run_secs[t]) {
				char field[96];

				snprintf(field, sizeof(field),
					 "%s %s%s%u tres_run_secs[%d]",
					 key->user ? "user" : "account",
					 key->acct, key->user ? " uid " : "",
					 key->user ? key->uid : 0, t);
				_mismatch(what, key->qos, field, x->run_secs[t],
					  y->run_secs[t]);
			}
	}
}

int compare_results(const result_t *mf, const result_t *fw)
{
	bool fs_differs = false;

	for (int i = 0; i < mf->na; i++)
		if (!_same(mf->a[i].fs_factor, fw->a[i].fs_factor))
			fs_differs = true;
	if (fs_differs)
		_report_near_ties(mf);
	for (int i = 0; i < mf->na; i++)
		_cmp_assoc(i, &mf->a[i], &fw->a[i]);
	for (int q = 0; q < MAX_QOS; q++)
		_cmp_usage("qos", q, &mf->q[q], &fw->q[q], true);
	_cmp_used("qos", mf->used, mf->nused, fw->used, fw->nused);
	for (int i = 0; i < mf->nj; i++)
		_cmp_job(i, &mf->j[i], &fw->j[i]);
	for (int i = 0; i < mf->nj; i++)
		CMPI("job", i, "priority_p_set", mf->set_prio[i],
		     fw->set_prio[i]);
	if (mf->a_end && fw->a_end) {
		for (int i = 0; i < mf->na; i++)
			_cmp_usage("assoc after job ends", i, &mf->a_end[i].u,
				   &fw->a_end[i].u, true);
		for (int q = 0; q < MAX_QOS; q++)
			_cmp_usage("qos after job ends", q, &mf->q_end[q],
				   &fw->q_end[q], false);
		_cmp_used("qos after job ends", mf->used_end, mf->nused_end,
			  fw->used_end, fw->nused_end);
	}
	CMPI("sprio", 0, "rows", mf->nrows, fw->nrows);
	for (int i = 0; i < mf->nrows && i < fw->nrows; i++)
		_cmp_sprio_row(i, &mf->rows[i], &fw->rows[i]);
	return g_mismatches;
}
