/*****************************************************************************\
 *  decay_state.c - the decay state file, StateSaveLocation/priority_last_decay_ran
 *  (multifactor's, same format: a site can switch plugins without charging
 *  usage twice): when the last period ran and usage was last reset; read with
 *  the decay settings before the first period, written after each.
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "fairway_plugin.h"
#include "fairway_usage_state.h"

/*
 * Read when the last period ran.  Missing: 0 (as multifactor: running jobs
 * are charged from their start).  Corrupt: the previous copy (.old) if it is
 * sound, else now -- never a crash, and never charging running jobs twice for
 * time an earlier period already charged.
 */
static void _read_state(fw_state_t *st, time_t now)
{
	fairway_decay_recovery_t r;

	lock_state_files();
	(void) fairway_decay_state_recover_in(slurm_conf.state_save_location,
					      now, &r);
	unlock_state_files();
	st->last_ran = r.last_ran;
	st->reset.last_reset = r.last_reset;
	if (r.info_line[0])
		info("%s: %s", plugin_type, r.info_line);
	for (int i = 0; i < 2; i++)
		if (r.error_lines[i][0])
			error("%s: %s", plugin_type, r.error_lines[i]);
	log_flag(PRIO, "%s: last period ran at %ld", plugin_type,
		 (long) st->last_ran);
}

extern void fw_decay_state_write(const fw_state_t *st)
{
	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null")) {
		error("%s: can not save priority state information, StateSaveLocation is /dev/null",
		      plugin_type);
		return;
	}
	lock_state_files();
	if (fairway_decay_state_save(slurm_conf.state_save_location,
				     st->last_ran,
				     st->reset.last_reset) != FAIRWAY_OK)
		error("%s: can't save decay state: %s", plugin_type,
		      fairway_last_error());
	unlock_state_files();
}

/* PriorityDecayHalfLife as a per-second factor: multifactor's first-order
 * 1 - 0.693/half-life, or with fairway_decay=exact 2^(-1/half-life), so that
 * usage is halved after exactly one half-life however the periods fall.  One
 * line when the exact mode is read, and one whenever the mode changes at a
 * reconfigure; the default alone logs nothing. */
extern void fw_decay_settings_read(fw_state_t *st)
{
	const fw_cfg_t *cfg = fw_cfg_get();
	bool exact = cfg->opt.decay_exact;
	double hl = (double) slurm_conf.priority_decay_hl;
	double decay = exact ? fairway_exact_decay_factor(hl) :
			       fairway_decay_factor(hl);

	fw_cfg_put(cfg);
	if (st->decay_logged_exact != exact) {
		info("%s: usage decays %s", plugin_type,
		     exact ? "exactly, by 2^(-t/PriorityDecayHalfLife) (fairway_decay=exact)" :
			     "as multifactor's does, by (1 - 0.693/PriorityDecayHalfLife) per second");
		st->decay_logged_exact = exact;
	}
	__atomic_store(&st->decay_factor, &decay, __ATOMIC_RELAXED);
	st->reset.period = slurm_conf.priority_reset_period;
	st->reset.next_reset = 0;
}

extern void fw_period_state_load(fw_state_t *st, time_t now, bool job_locked)
{
	slurmctld_lock_t job_write_lock = { .job = WRITE_LOCK };

	fw_decay_settings_read(st);
	_read_state(st, now);
	if (!st->reset.last_reset)
		st->reset.last_reset = now;
	if (!st->journal)
		st->journal = fairway_usage_journal_new();
	if (xstrcmp(slurm_conf.state_save_location, "/dev/null")) {
		fw_usage_restore(st);
		fw_journal_open(st, false);
	}
	if (!job_locked)
		lock_slurmctld(job_write_lock);
	st->charged_to = st->last_ran;
	if (!job_locked)
		unlock_slurmctld(job_write_lock);
	st->loaded = true;
}
