// queue_commands.h - the fairway commands that read the pending queue, live (through
// libslurm's public API, so that slurmctld applies PrivateData) or from a version 2 snapshot:
//   explain JOBID | --account A | --user U   why a job has its place; an association's path
//   compare JOB1 JOB2                        why one job is ahead of the other
//   weights                                  which factor decides the order of the queue
//   whatif [SNAPSHOT] --weight/--shares/...  who moves under other settings
// Each returns the exit status (cli_io.h) after printing text, -P rows or JSON.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fairway_cli {

struct ExplainArgs {
  std::string snapshot;  // "" = live
  std::string forecast;  // the forecast model (forecast_command.h); "" = the published one
  std::string job, account, user;
  bool json = false, parsable = false;
  bool verbose = false;  // every fair-share level's numbers
};
int cmd_explain(const ExplainArgs& a);

struct CompareArgs {
  std::string snapshot;  // "" = live
  std::string job_a, job_b;
  bool json = false, parsable = false;
};
int cmd_compare(const CompareArgs& a);

struct WeightsArgs {
  std::string snapshot;  // "" = live
  bool json = false, parsable = false;
};
int cmd_weights(const WeightsArgs& a);

struct WhatIfArgs {
  std::string snapshot;                             // "" = live
  std::vector<std::string> weights, shares, usage;  // NAME=V, ACCOUNT[:USER]=N as typed
  std::string max_age, algorithm, flags;            // "" = unchanged
  size_t top = 10;
  bool json = false, parsable = false;
};
int cmd_whatif(const WhatIfArgs& a);

}  // namespace fairway_cli
