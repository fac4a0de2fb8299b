// lint_command.h - `fairway lint [SLURM_CONF] [--snapshot FILE | --live]`: the priority
// settings of a slurm.conf checked before they go live (lib/queue/settings_lint.h), and with a
// snapshot or the live cluster its pending queue (lib/queue/queue_lint.h), one line per
// finding on standard output.
// Without a file: the one SLURM_CONF names, else /etc/slurm/slurm.conf.  Returns the exit
// status: 0 no finding, 1 findings (or standard output cannot be written), 2 a file that
// cannot be read or is not slurm.conf (or a snapshot).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

namespace fairway_cli {

inline constexpr int kExitFindings = 1;

// snapshot: a version 2 snapshot whose queue is checked too (queue_lint.h); "" none.  live:
// the live cluster's queue instead (exit 1 when slurmctld cannot be asked).
int cmd_lint(const std::string& file, const std::string& snapshot = "", bool live = false);

}  // namespace fairway_cli
