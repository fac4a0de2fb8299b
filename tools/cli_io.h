// cli_io.h - what every fairway command shares: its exit codes, its one-line messages,
// standard output that reports a failed write, the Slurm configuration check, and reading a
// snapshot named on the command line.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
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

// A job as squeue names it: JOBID, an array task ARRAYID_TASK (27_3) or a heterogeneous job's
// component HETID+OFFSET (30+1).
struct JobRef {
  enum class Kind { kJob, kArrayTask, kHetComponent } kind = Kind::kJob;
  uint32_t id = 0;     // the job's, the array's or the heterogeneous job's id
  uint32_t index = 0;  // the task's index or the component's offset
};
// nullopt unless TEXT is one of the three forms (decimal digits only, ids from 1).
std::optional<JobRef> parse_job_ref(std::string_view text);
// The words every command says for a JOBID that is none of the three forms.
inline constexpr char kJobIdForms[] = "a number, ARRAYID_TASK or HETJOBID+OFFSET";
// Whether TASKS, a pending array's tasks as squeue prints them between brackets ("1-5",
// "1,3,7-11:2", "0-99%4"), include TASK.
bool array_tasks_hold(std::string_view tasks, uint32_t task);

// Why libslurm could not find a readable slurm.conf, in one line ("" where it can go on).
std::string slurm_conf_problem();

// The snapshot in FILE ("-": standard input), or nullopt after saying why, with rc set:
// kExitInput for a file that cannot be read or is no snapshot, kExitRuntime out of memory.
std::optional<fairway::Snapshot> read_input(const std::string& file, int& rc);
// Why the snapshot in FILE, a version 1 snapshot, holds no jobs, and where they are: the
// plugin's fairway.json leaves the queue out above fairway_queue_jobs pending jobs.
std::string no_queue_message(const std::string& file);

}  // namespace fairway_cli
