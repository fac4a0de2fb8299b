/*****************************************************************************\
 *  scenario.c - the scenarios the harness runs: an association tree with usage,
 *  priority weights and flags, a job count; drawn at random from a seed (every
 *  draw from fw_rng, so a seed gives the same scenario on any machine), or the
 *  regular tree of the bench and soak.  sites.c has the published site trees.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

__thread uint64_t fw_rng; /* per thread (soak) */

/* Ids and user names of the tree being generated. */
static uint32_t g_next_id;
static int g_user_no;

void sc_clear(scenario_t *s)
{
	sc_assoc_t *a = s->a;
	int cap = s->cap;

	memset(s, 0, sizeof(*s));
	s->a = a;
	s->cap = cap;
}

void sc_add(scenario_t *s, uint32_t id, uint32_t parent, const char *acct,
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

/* Random subtree below account `parent` (id), depth levels left: some
 * shares 0 or Fairshare=parent, some usage 0 or huge, and now and then a
 * level whose children all tie (same shares, same usage). */
static void _subtree(scenario_t *s, uint32_t parent, const char *pacct,
		     int depth, int max_assocs, long double usage_scale,
		     bool tie_usage)
{
	int nchildren = 1 + fw_pick(depth > 1 ? 4 : 5);
	long double tie_value = (long double) fw_pick(1000);
	uint32_t tie_shares = 1 + fw_pick(50);

	for (int c = 0; c < nchildren && s->nassoc < max_assocs; c++) {
		bool user = (depth <= 1) || fw_chance(35);
		uint32_t shares;
		long double usage;

		if (fw_chance(8))
			shares = 0;
		else if (fw_chance(10))
			shares = SLURMDB_FS_USE_PARENT;
		else if (tie_usage)
			shares = tie_shares;
		else
			shares = 1 + fw_pick(100);
		if (tie_usage)
			usage = tie_value;
		else if (fw_chance(20))
			usage = 0;
		else if (fw_chance(5))
			usage = 1e15L * (1 + fw_pick(1000));
		else
			usage = usage_scale * (long double) fw_pick(100000) / 7;
		if (user) {
			char name[32];
			snprintf(name, sizeof(name), "u%d", g_user_no++);
			sc_add(s, g_next_id++, parent, pacct, name, shares,
			       usage);
		} else {
			char acct[32];
			uint32_t id = g_next_id++;
			snprintf(acct, sizeof(acct), "a%u", id);
			sc_add(s, id, parent, acct, NULL, shares, 0);
			_subtree(s, id, acct, depth - 1, max_assocs,
				 usage_scale, fw_chance(15));
		}
	}
}

static const char *g_flag_names[] = {
	"ACCRUE_ALWAYS",
	"SMALL_RELATIVE_TO_TIME",
	"CALCULATE_RUNNING",
	"INCR_ONLY",
	"MAX_TRES",
	"NO_NORMAL_ASSOC",
	"NO_NORMAL_PART",
	"NO_NORMAL_QOS",
	"NO_NORMAL_TRES",
#ifdef PRIORITY_FLAGS_MAX_TRES_GRES
	/* 25.05 on: billing counts GRES like MAX_TRES counts the rest; slurmctld
	 * computes billing, so both plugins must leave the flag's bit alone. */
	"MAX_TRES_GRES",
#endif
};
static const uint32_t g_weights[] = { 0,     1,	    1000,  1000,    10000,
				      30000, 60000, 70000, 1000000, 10000000 };

static uint32_t _weight(void)
{
	return g_weights[fw_pick(sizeof(g_weights) / sizeof(g_weights[0]))];
}

void sc_random(scenario_t *s, uint32_t seed)
{
	int algo = fw_pick(3);

	sc_clear(s);
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
		if (!fw_chance(15))
			continue;
		if (s->flags[0])
			strcat(s->flags, ",");
		strcat(s->flags, g_flag_names[i]);
	}
	s->w_age = _weight();
	s->w_assoc = fw_chance(30) ? _weight() : 0;
	s->w_fs = _weight();
	s->w_js = _weight();
	s->w_part = _weight();
	s->w_qos = _weight();
	if (fw_chance(45))
		snprintf(s->w_tres, sizeof(s->w_tres), "CPU=%u,Mem=%u%s%u",
			 _weight(), _weight(),
			 fw_chance(70) ? ",GRES/gpu=" : ",Node=", _weight());
	s->max_age = fw_chance(20) ? 0 : 60 * (1 + fw_pick(10000));
	s->damp = 1 + fw_pick(5);
	s->favor_small = fw_chance(30);

	sc_add(s, 1, 0, "root", NULL, 1, 0);
	if (fw_chance(30)) /* a user directly under root */
		sc_add(s, g_next_id++, 1, "root", "root", 1,
		       (long double) fw_pick(5000));
	_subtree(s, 1, "root", 1 + fw_pick(6), 40 + fw_pick(400),
		 fw_chance(50) ? 1.0L : 1000.0L, fw_chance(10));
	s->njobs = 20 + fw_pick(200);
}

void sc_thread_params(scenario_t *s)
{
	static const char *hl[] = { "0", "60", "1-0", "7-0", "90-0" };
	static const char *reset[] = { "NONE",	 "NOW",	    "DAILY",
				       "WEEKLY", "MONTHLY", "QUARTERLY",
				       "YEARLY" };
	size_t len = strlen(s->name);

	s->decay_hl = hl[fw_pick(5)];
	s->reset_period = reset[fw_pick(7)];
	s->enforce_limits = fw_chance(50);
	s->since_last_ran = 1 + fw_pick(fw_chance(20) ? 300 : 100000);
	/* 0: never reset (the thread counts from its start); else up to 400
	 * days ago, so that every period's reset is sometimes due. */
	s->last_reset_ago = fw_chance(20) ? 0 : 1 + fw_pick(400 * 86400);
	snprintf(s->name + len, sizeof(s->name) - len,
		 " [thread: hl %s, reset %s, %lds since last]", s->decay_hl,
		 s->reset_period, (long) s->since_last_ran);
}

void sc_bench(scenario_t *s, int assocs, int jobs, int running)
{
	int accounts = assocs / 101 > 0 ? assocs / 101 : 1;
	int users = (assocs - 1 - accounts) / accounts;
	char name[32];

	sc_clear(s);
	snprintf(s->name, sizeof(s->name), "bench %d/%d/%d", assocs, jobs,
		 running);
	s->w_age = 1000;
	s->w_fs = 100000;
	s->w_js = 1000;
	s->w_part = 1000;
	s->w_qos = 1000;
	s->max_age = 7 * 86400;
	s->damp = 1;
	s->njobs = jobs;
	s->nrunning = running;
	/* PriorityFlags of the bench's clusters (NO_FAIR_TREE, DEPTH_OBLIVIOUS) */
	if (getenv("FW_BENCH_FLAGS"))
		snprintf(s->flags, sizeof(s->flags), "%s",
			 getenv("FW_BENCH_FLAGS"));
	g_next_id = 2;
	sc_add(s, 1, 0, "root", NULL, 1, 0);
	for (int k = 0; k < accounts; k++) {
		uint32_t aid = g_next_id++;
		char acct[32];
		snprintf(acct, sizeof(acct), "acct%d", k);
		sc_add(s, aid, 1, acct, NULL, 1 + fw_pick(100), 0);
		for (int u = 0; u < users; u++) {
			snprintf(name, sizeof(name), "user%d_%d", k, u);
			sc_add(s, g_next_id++, aid, acct, name, 1 + fw_pick(10),
			       (long double) fw_pick(100000));
		}
	}
}
