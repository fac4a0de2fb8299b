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

int sc_site(scenario_t *s, int which)
{
	sc_clear(s);
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
	case 0:	/* A(40){B(30):u1, C(10):u2,u3} D(60){E(25):u4, F(35):u5} */
		snprintf(s->name, sizeof(s->name), "site: testbed A-F");
		sc_add(s, 2, 1, "a", NULL, 40, 0);
		sc_add(s, 21, 2, "b", NULL, 30, 0);
		sc_add(s, 211, 21, "b", "u1", 1, 1256.73L);
		sc_add(s, 22, 2, "c", NULL, 10, 0);
		sc_add(s, 221, 22, "c", "u2", 1, 199.49L);
		sc_add(s, 222, 22, "c", "u3", 1, 89.91L);
		sc_add(s, 3, 1, "d", NULL, 60, 0);
		sc_add(s, 31, 3, "e", NULL, 25, 0);
		sc_add(s, 311, 31, "e", "u4", 1, 1104.63L);
		sc_add(s, 32, 3, "f", NULL, 35, 0);
		sc_add(s, 321, 32, "f", "u5", 1, 135.75L);
		sc_add(s, 4, 1, "root", "root", 1, 4917.10L);
		return 1;
	case 1:	/* DKRZ: two levels of projects, CPU-seconds usage */
		snprintf(s->name, sizeof(s->name), "site: DKRZ");
		s->w_fs = 1000;
		s->w_age = 1000;
		s->w_qos = 1000;
		sc_add(s, 2, 1, "bm0146", NULL, 10, 0);
		sc_add(s, 21, 2, "bm0146", "k202101", 1, 3.2e6L);
		sc_add(s, 22, 2, "bm0146", "k202102", 1, 0);
		sc_add(s, 3, 1, "bb1153", NULL, 25, 0);
		sc_add(s, 31, 3, "bb1153", "b381001", 1, 9.7e6L);
		sc_add(s, 32, 3, "bb1153", "b381002", 1, 1.1e6L);
		sc_add(s, 33, 3, "bb1153", "b381003", 1, 1.1e6L);
		sc_add(s, 4, 1, "mh0033", NULL, 65, 0);
		sc_add(s, 41, 4, "mh0033", "m300001", 1, 2.5e7L);
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
			sc_add(s, gid, 1, grp, NULL, 100 * (g + 1), 0);
			snprintf(sub, sizeof(sub), "%s.prj.high", grp);
			sc_add(s, gid + 1, gid, sub, NULL, 50, 0);
			sc_add(s, gid * 100 + 1, gid + 1, sub, "alice", SLURMDB_FS_USE_PARENT, 4000.0L * g);
			snprintf(sub, sizeof(sub), "%s.prj", grp);
			sc_add(s, gid + 2, gid, sub, NULL, 30, 0);
			sc_add(s, gid * 100 + 2, gid + 2, sub, "bob", SLURMDB_FS_USE_PARENT, 100.0L * (g + 3));
			sc_add(s, gid * 100 + 3, gid + 2, sub, "carol", SLURMDB_FS_USE_PARENT, 0);
			snprintf(sub, sizeof(sub), "%s.prj.low", grp);
			sc_add(s, gid + 3, gid, sub, NULL, 20, 0);
			sc_add(s, gid * 100 + 4, gid + 3, sub, "dave", 1, 777.0L);
		}
		return 1;
	case 3:	/* Limoges: three levels, partition + fair-share only */
		snprintf(s->name, sizeof(s->name), "site: Limoges");
		s->w_age = 0;
		s->w_js = 0;
		s->w_qos = 0;
		s->w_part = 30000;
		s->w_fs = 70000;
		sc_add(s, 2, 1, "xlim", NULL, 60, 0);
		sc_add(s, 21, 2, "xlim-gc", NULL, 40, 0);
		sc_add(s, 211, 21, "xlim-gc", "pierre", 1, 5000);
		sc_add(s, 212, 21, "xlim-gc", "marie", 2, 200);
		sc_add(s, 22, 2, "xlim-rf", NULL, 60, 0);
		sc_add(s, 221, 22, "xlim-rf", "jean", 1, 0);
		sc_add(s, 3, 1, "ircer", NULL, 40, 0);
		sc_add(s, 31, 3, "ircer-ms", NULL, 1, 0);
		sc_add(s, 311, 31, "ircer-ms", "luc", 1, 12000);
		sc_add(s, 312, 31, "ircer-ms", "anne", 1, 12000);
		return 1;
	}
	return 0;
}
