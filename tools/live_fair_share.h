// live_fair_share.h - what fair-share compared on the live cluster, as the plugin computed it:
// the site's PriorityParameters (fairway_usage, fairway_fairshare_tres, fairway_decay) applied
// to what slurmctld shows through its public API (the associations' usage of each TRES, the
// running jobs, the partitions' TRES), so that `fairway explain`, `compare` and `whatif` of the
// live cluster use the tree each job's factor came from, as they do with the plugin's own
// snapshot file.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "plugin_options.h"
#include "snapshot.h"

namespace fairway_cli {

using TresCounts = std::vector<std::pair<std::string, uint64_t>>;

// A running job as squeue shows it.
struct LiveRunningJob {
  uint32_t assoc_id = 0;
  double billable_tres = 0;  // slurmctld's billable TRES of the job
  std::string qos;
  time_t end_time = 0;
  TresCounts alloc;  // tres_alloc_str (memory in MB)
};

// What slurmctld showed besides the snapshot's associations and queue.
struct LivePolicyInput {
  fairway::PluginOptions options;  // PriorityParameters
  // The TRES slurmctld tracks, in its order, and each association's usage of each (totals,
  // as slurmctld keeps them: the association's own and its children's), parallel to the
  // snapshot's associations.
  std::vector<std::string> tracked_tres;
  std::vector<std::vector<long double>> tres_totals;
  std::vector<LiveRunningJob> running;
  std::map<std::string, TresCounts> partition_tres;  // each partition's configured TRES
  time_t now = 0;
};

// Sets the snapshot's usage basis and held usage, its listed TRES with their usage, and each
// pending job's judged TRES as the plugin does (plugin/held_usage.c, plugin/job_weigh.c):
//  * fairway_usage=allocated|committed: each running job holds its billable TRES times its
//    QOS's UsageFactor (committed: times the seconds to its end time, from `now`);
//  * fairway_fairshare_tres: the listed TRES slurmctld tracks (none under depth-oblivious, or
//    without a fair-share weight), their usage charged directly to each association (held
//    usage under a held basis), and each pending job judged by the TRES it mostly asks for in
//    its first partition of the highest PriorityTier.
// The snapshot's associations must form a whole tree. Throws fairway::SnapshotError or
// TreeError for a tree that does not.
void apply_live_policy(fairway::Snapshot& snap, const LivePolicyInput& in);

}  // namespace fairway_cli
