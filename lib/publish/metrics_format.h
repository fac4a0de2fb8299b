// metrics_format.h - one period of Fairway as a Prometheus text exposition (format 0.0.4), for
// node_exporter's textfile collector: every association's fair-share values (the ones sshare
// shows, from the same rows as `fairway shares`), the pending queue per partition and QOS, and
// the period itself.  doc/metrics.md lists the metrics.
//
// Conventions: names are fairway_<what>[_<unit>] in snake case, seconds for durations and ages;
// each family has one # HELP and one # TYPE line; label values escape backslash, double quote
// and newline; +Inf, -Inf and NaN are written as the format spells them.  A value sshare prints
// empty (the root's normalized usage, Level FS outside Fair Tree, ...) has no sample.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"
#include "forecast.h"
#include "held_usage.h"
#include "pending_stats.h"
#include "starvation.h"
#include "whatif.h"

namespace fairway {

struct MetricsInput {
  const AssocTree* tree = nullptr;  // usage_raw: historical usage (sshare's RawUsage)
  const FairShareResult* result = nullptr;
  // The tree whose usage fair-share compared (delivered shares come from it): `tree` itself,
  // or under fairway_usage=allocated|committed the same tree with held usage; nullptr: `tree`.
  const AssocTree* compared = nullptr;
  UsageBasis usage_basis = UsageBasis::kHistorical;
  Algorithm algorithm = Algorithm::kFairTree;
  double dampening_factor = 1;
  SiblingOrder sibling_order = SiblingOrder::kUsersThenName;
  std::string version;        // Fairway's
  std::string slurm_release;  // "24.11.5"
  bool decay_exact = false;   // fairway_decay=exact
  // fairway_fairshare_tres: for each listed TRES, the tree whose usage fair-share compared for
  // the jobs judged by it (its usage, historical or held, summed up the tree) and its values.
  struct TresFairShare {
    std::string name;
    const AssocTree* compared = nullptr;
    const FairShareResult* result = nullptr;
  };
  std::vector<TresFairShare> fairshare_tres;
  // The pending queue.
  std::vector<std::string> partitions, qos;
  PendingStats pending;  // indexed like partitions and qos
  // The period.
  int64_t period_end = 0;       // Unix time
  double period_seconds = 0;    // wall time of the whole period
  double job_lock_seconds = 0;  // slurmctld's job write lock held by the period
  uint64_t jobs_weighed = 0;
  // Starvation alerts (fairway_starvation_minutes), or nullptr when off.
  const StarvationReport* starvation = nullptr;
  uint32_t starvation_minutes = 0;
  // The shadow policy (fairway_shadow): whether one is set, and the queue weighed under it
  // (nullptr when it could not be).
  bool shadow_on = false;
  const WhatIf* shadow = nullptr;
  // Whether samples of users are written (private_data.h's publish_user_samples).  false: the
  // associations' families, starvation and the shadow policy's factor changes keep the
  // accounts' samples only (their label user="" stays), and no sample names a user.
  bool user_samples = true;
  // Per association (tree index) with an eligible job pending, the seconds since its oldest
  // such job (its descendants' included) became eligible.
  std::vector<std::pair<uint32_t, double>> oldest_pending;
  // The forecast (fairway_history_days with fairway_metrics_dir; lib/queue/forecast.h), or
  // nullptr: per partition (indexed like partitions), and per association (tree index) the
  // forecast of its oldest eligible pending job, its users' included.
  const ForecastModel* forecast = nullptr;
  const std::vector<LineForecast>* line_forecast = nullptr;
  std::vector<std::pair<uint32_t, double>> oldest_forecast;
};

// The exposition text, ending in '\n'.  Throws std::invalid_argument when tree or result is
// missing or they do not match.
std::string format_metrics(const MetricsInput& in);

// A label value with backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view v);
// A sample value: shortest exact decimal, or +Inf, -Inf, NaN.
std::string metric_value(double v);

}  // namespace fairway
