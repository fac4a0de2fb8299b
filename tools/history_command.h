// history_command.h - `fairway history --account A [--user U] [--since T] [--dir DIR]`: an
// association's fair-share over time (raw usage, delivered and entitled share, fair-share
// factor) from the history the plugin keeps with PriorityParameters=fairway_history_days=N;
// `fairway history --job ID`: why that job started when it did (its journal of job starts).
// Returns the exit status (cli_io.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history_format.h"

namespace fairway_cli {

struct HistoryArgs {
  std::string job;  // --job: why that job started when it did (instead of --account)
  std::string account, user;
  std::string since;  // "" = everything kept
  std::string dir;    // "" = where slurm.conf's PriorityParameters put it
  bool json = false, parsable = false;
};
int cmd_history(const HistoryArgs& a);

// The series of a.account/a.user from the history (a.json and a.parsable unused), or nullopt
// after saying why, with rc set.
std::optional<std::vector<fairway::HistorySeries>> load_history(const HistoryArgs& a, int& rc);

// --since: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS]" (local time), or "N" followed by d, h or m
// (that long before now).  nullopt for anything else.
std::optional<int64_t> parse_since(const std::string& text, int64_t now);

}  // namespace fairway_cli
