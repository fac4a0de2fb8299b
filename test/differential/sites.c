/*****************************************************************************\
 *  sites.c - scenarios of real sites' association trees, as the sites publish
 *  them (doc/differences.md names the pages): DKRZ, BMRC, Limoges, and a
 *  two-level A-F tree with usage on every user (Slurm's classic fair-share
 *  page, and the integration testbed's).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <stdio.h>

#include "harness.h"

/* One association of a published tree: id, parent, account, user (NULL: an
 * account), raw shares, own usage. */
typedef struct {
	uint32_t id, parent;
	const char *acct, *user;
	uint32_t shares;
	long double usage;
} site_assoc_t;

/* A(40){B(30):u1, C(10):u2,u3} D(60){E(25):u4, F(35):u5}, a user under root;
 * a line per account and its users. */
static const site_assoc_t g_a_to_f[] = {
	{ 2, 1, "a", NULL, 40, 0 },
	{ 21, 2, "b", NULL, 30, 0 },
	{ 211, 21, "b", "u1", 1, 1256.73L },
	{ 22, 2, "c", NULL, 10, 0 },
	{ 221, 22, "c", "u2", 1, 199.49L },
	{ 222, 22, "c", "u3", 1, 89.91L },
	{ 3, 1, "d", NULL, 60, 0 },
	{ 31, 3, "e", NULL, 25, 0 },
	{ 311, 31, "e", "u4", 1, 1104.63L },
	{ 32, 3, "f", NULL, 35, 0 },
	{ 321, 32, "f", "u5", 1, 135.75L },
	{ 4, 1, "root", "root", 1, 4917.10L },
};

/* DKRZ: two levels of projects, CPU-seconds usage */
static const site_assoc_t g_dkrz[] = {
	{ 2, 1, "bm0146", NULL, 10, 0 },
	{ 21, 2, "bm0146", "k202101", 1, 3.2e6L },
	{ 22, 2, "bm0146", "k202102", 1, 0 },
	{ 3, 1, "bb1153", NULL, 25, 0 },
	{ 31, 3, "bb1153", "b381001", 1, 9.7e6L },
	{ 32, 3, "bb1153", "b381002", 1, 1.1e6L },
	{ 33, 3, "bb1153", "b381003", 1, 1.1e6L },
	{ 4, 1, "mh0033", NULL, 65, 0 },
	{ 41, 4, "mh0033", "m300001", 1, 2.5e7L },
};

/* Limoges: three levels, partition + fair-share only */
static const site_assoc_t g_limoges[] = {
	{ 2, 1, "xlim", NULL, 60, 0 },
	{ 21, 2, "xlim-gc", NULL, 40, 0 },
	{ 211, 21, "xlim-gc", "pierre", 1, 5000 },
	{ 212, 21, "xlim-gc", "marie", 2, 200 },
	{ 22, 2, "xlim-rf", NULL, 60, 0 },
	{ 221, 22, "xlim-rf", "jean", 1, 0 },
	{ 3, 1, "ircer", NULL, 40, 0 },
	{ 31, 3, "ircer-ms", NULL, 1, 0 },
	{ 311, 31, "ircer-ms", "luc", 1, 12000 },
	{ 312, 31, "ircer-ms", "anne", 1, 12000 },
};

static void _add_tree(scenario_t *s, const site_assoc_t *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sc_add(s, t[i].id, t[i].parent, t[i].acct, t[i].user,
		       t[i].shares, t[i].usage);
}

#define ADD_TREE(s, t) _add_tree((s), (t), sizeof(t) / sizeof((t)[0]))

/* BMRC: groups, each with projects .prj.high, .prj (users at Fairshare=parent)
 * and .prj.low. */
static void _add_bmrc(scenario_t *s)
{
	for (int g = 0; g < 3; g++) {
		uint32_t gid = 10 + g * 10;
		char grp[16], high[32], prj[32], low[32];

		snprintf(grp, sizeof(grp), "grp%d", g);
		snprintf(high, sizeof(high), "%s.prj.high", grp);
		snprintf(prj, sizeof(prj), "%s.prj", grp);
		snprintf(low, sizeof(low), "%s.prj.low", grp);
		sc_add(s, gid, 1, grp, NULL, 100 * (g + 1), 0);
		sc_add(s, gid + 1, gid, high, NULL, 50, 0);
		sc_add(s, gid * 100 + 1, gid + 1, high, "alice",
		       SLURMDB_FS_USE_PARENT, 4000.0L * g);
		sc_add(s, gid + 2, gid, prj, NULL, 30, 0);
		sc_add(s, gid * 100 + 2, gid + 2, prj, "bob",
		       SLURMDB_FS_USE_PARENT, 100.0L * (g + 3));
		sc_add(s, gid * 100 + 3, gid + 2, prj, "carol",
		       SLURMDB_FS_USE_PARENT, 0);
		sc_add(s, gid + 3, gid, low, NULL, 20, 0);
		sc_add(s, gid * 100 + 4, gid + 3, low, "dave", 1, 777.0L);
	}
}

int sc_site(scenario_t *s, int which)
{
	const char *names[] = { "testbed A-F", "DKRZ", "BMRC", "Limoges" };

	if ((which < 0) || (which > 3))
		return 0;
	sc_clear(s);
	snprintf(s->name, sizeof(s->name), "site: %s", names[which]);
	s->w_age = 1000;
	s->w_fs = 10000;
	s->w_js = 1000;
	s->w_part = 1000;
	s->w_qos = 1000;
	s->max_age = 600;
	s->damp = 1;
	s->njobs = 60;
	sc_add(s, 1, 0, "root", NULL, 1, 0);
	switch (which) {
	case 0:
		ADD_TREE(s, g_a_to_f);
		break;
	case 1:
		s->w_fs = 1000;
		ADD_TREE(s, g_dkrz);
		break;
	case 2:
		s->w_age = 10000000;
		s->w_fs = 100000000;
		_add_bmrc(s);
		break;
	case 3:
		s->w_age = 0;
		s->w_js = 0;
		s->w_qos = 0;
		s->w_part = 30000;
		s->w_fs = 70000;
		ADD_TREE(s, g_limoges);
		break;
	}
	return 1;
}
