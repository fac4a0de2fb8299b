// plugin_options.h - Fairway's own settings, read from slurm.conf's PriorityParameters (which
// slurmctld hands to the priority plugin untouched): comma-separated NAME=VALUE options named
// fairway_*.  A bad option never stops slurmctld: each unknown or malformed one yields one
// message naming it and is ignored, the others still apply.  doc/priority_fairway.8 lists them.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fair_share.h"
#include "held_usage.h"

namespace fairway {

// fairway_queue_jobs by default.  Each job of the queue is copied under slurmctld's job write
// lock while it is weighed (doc/metrics.md): a site with more jobs pending asks for the queue.
inline constexpr uint32_t kDefaultQueueJobs = 10000;
// The most threads fairway_weigh_threads may name.
inline constexpr uint32_t kMaxWeighThreads = 64;

struct PluginOptions {
  // fairway_metrics_dir: where each period writes fairway.prom and fairway.json; empty: off.
  std::string metrics_dir;
  // fairway_history_days: days of fair-share history to keep (1 to 3650); 0: none.
  uint32_t history_days = 0;
  // fairway_starvation_minutes: alert on users waiting this long while entitled (1 to 525600);
  // 0: off.  fairway_starvation_quantile: "among the highest" factors, in (0, 1].
  uint32_t starvation_minutes = 0;
  double starvation_quantile = 0.75;
  // fairway_shadow: a file of candidate Priority* settings weighed beside the live ones every
  // period (lib/queue/shadow_policy.h); empty: off.  Needs fairway_metrics_dir.
  std::string shadow_file;
  // fairway_queue_jobs: the most pending jobs the per-period snapshot holds and the shadow
  // policy weighs (0 to 10,000,000); above it the snapshot holds the association tree only.
  uint32_t queue_jobs = kDefaultQueueJobs;
  // fairway_decay: "slurm" (the default: multifactor's per-second 1 - 0.693/half-life) or
  // "exact" (2^(-t/half-life)).
  bool decay_exact = false;
  // fairway_usage: what fair-share compares with shares: "historical" (the default: decayed
  // usage, as multifactor), "allocated" (what running jobs hold now) or "committed" (that,
  // times the time they have left); lib/priority/held_usage.h.
  UsageBasis usage_basis = UsageBasis::kHistorical;
  // fairway_rerank_interval: with a held usage basis, fair-share and every pending job's
  // priority are also recomputed from what is held every this many seconds between periods
  // (1 to 3600); 0: at periods only.
  uint32_t rerank_interval = 0;
  // fairway_fairshare_tres: TRES whose usage judges the jobs that mostly ask for them
  // (lib/queue/fairshare_tres.h), in the order given; empty: every job by billing.  The list is
  // comma-separated like the options: an item without '=' after it continues it
  // (fairway_fairshare_tres=gres/gpu,license/matlab).
  std::vector<std::string> fairshare_tres;
  // fairway_weigh_threads: threads that weigh the pending jobs of a Fair Tree period (1 to
  // kMaxWeighThreads); 0: not given (the plugin's default: the CPUs slurmctld may run on, at
  // most 16).
  uint32_t weigh_threads = 0;
  // fairway_publish_users (or =yes; =no: the default): fairway.prom keeps its samples of users
  // even where slurm.conf's PrivateData hides users or usage (lib/publish/private_data.h).
  bool publish_users = false;
};

// Longest accepted path (PATH_MAX less room for the file names written there).
inline constexpr size_t kMaxOptionPath = 4000;

// Parses TEXT (NULL-free; empty or all blanks: the defaults).  Appends one message per problem
// to `problems`, each naming the option ("PriorityParameters: ...").
PluginOptions parse_priority_parameters(std::string_view text, std::vector<std::string>& problems);

// What the plugin last logged about fairway_usage and fairway_fairshare_tres (a reconfigure logs
// only a change): the basis, and the list in force, comma-separated ("": none).
struct OptionsSaid {
  UsageBasis usage_basis = UsageBasis::kHistorical;
  std::string fairshare_tres;
};

// A line to log: an error (an option refused) or information (a setting in force).
struct OptionsLine {
  bool error = false;
  std::string text;
};

// Settles fairway_usage and fairway_fairshare_tres for `algo` and the TRES slurmctld tracks
// (`tracked`, slurmctld's TRES arrays' names in order; matched without regard to case):
//  - fairway_usage other than historical is refused under depth-oblivious, which walks
//    assoc_mgr's own tree (the basis becomes historical and fairway_rerank_interval 0);
//  - fairway_fairshare_tres is refused whole under depth-oblivious, and a listed TRES that is not
//    tracked is dropped; the others keep their order, `positions` gets each one's index in
//    `tracked`.
// Returns the lines to log: each refusal, then one line when the basis in force differs from
// said.usage_basis and one when the list in force differs from said.fairshare_tres; `said` is
// updated to what the lines say.
std::vector<OptionsLine> settle_options(PluginOptions& o, Algorithm algo,
                                        const std::vector<std::string>& tracked, OptionsSaid& said,
                                        std::vector<int>& positions);

}  // namespace fairway
