// cli_io.h - what every fairway command shares: its exit codes, its one-line messages,
// standard output that reports a failed write, the Slurm configuration check, and reading a
// snapshot named on the command line.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "snapshot.h"

namespace fairway_cli {

// Exit status (doc/fairway.1): 0 success; 1 cannot reach Slurm or write the output; 2
// malformed input, an input that cannot be read, or bad usage.
inline constexpr int kExitRuntime = 1;
inline constexpr int kExitInput = 2;

// S in double quotes, with quotes, backslashes and bytes outside printable ASCII escaped.
std::string quote(std::string_view s);
// An argument as typed where it is plain (printable ASCII, no spaces or quotes), else quoted.
std::string shown(std::string_view s);
// One line on stderr: "fairway: MESSAGE".
void say(std::string_view message);
// A SnapshotError without its "snapshot: " prefix (the CLI's messages name the file instead).
std::string_view snapshot_message(const std::exception& e);

// Writes to standard output; a failure is reported by close_stdout.
void put(std::string_view s);
// As coreutils' close_stdout: flush and close standard output at exit, and make a write that
// failed (a full disk, a closed descriptor) exit 1 with the reason instead of rc.
int close_stdout(int rc);
// Holds each closed standard descriptor with /dev/null (see cli_io.cc).
void hold_closed_standard_fds();

// Why libslurm could not find a readable slurm.conf, in one line ("" where it can go on).
std::string slurm_conf_problem();

// The snapshot in FILE ("-": standard input), or nullopt after saying why, with rc set:
// kExitInput for a file that cannot be read or is no snapshot, kExitRuntime out of memory.
std::optional<fairway::Snapshot> read_input(const std::string& file, int& rc);

}  // namespace fairway_cli
