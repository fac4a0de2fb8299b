// live.h - the live cluster as a snapshot, read through libslurm's public API: the association
// tree and usage (what `scontrol show assoc_mgr` reads), and the pending queue (the RPCs of
// `scontrol show config`, `scontrol show partition`, `squeue` and `sprio`), so that slurmctld
// applies PrivateData as it does for those commands.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "snapshot.h"

namespace fairway_cli {

// What to read: the association tree only (version 1) or the queue too (version 2).
struct LiveRequest {
  bool queue = true;
  std::string algorithm;              // "" = slurmctld's
  std::optional<uint16_t> dampening;  // nullopt = slurmctld's
};

// What slurmctld kept from the caller (PrivateData).
struct LiveVisibility {
  // Associations shown without their parent (PrivateData=usage): the snapshot then holds only
  // what the caller may see, which is no whole tree (snapshot_tree refuses it) and carries
  // none of the site's fair-share policy.
  size_t hidden_associations = 0;
  // Other users' jobs are hidden (PrivateData=jobs, and the caller is not root or SlurmUser).
  bool jobs_private = false;
};

// The snapshot, or nullopt with `why` set to one line naming what failed. libslurm must be
// initialised (slurm_init) and slurm.conf readable. The snapshot carries the site's
// fair-share policy (live_fair_share.h): what fair-share compares and each job's judged TRES.
// Without `seen`, a tree with hidden parts is an error; with it, it is returned as seen.
std::optional<fairway::Snapshot> live_snapshot(const LiveRequest& req, std::string& why,
                                               LiveVisibility* seen = nullptr);

// Where the plugin keeps its history (PriorityParameters: fairway_metrics_dir, else
// StateSaveLocation; then /fairway_history), from slurmctld's configuration; nullopt with `why`.
std::optional<std::string> live_history_dir(std::string& why);

// Where the plugin publishes each period (PriorityParameters fairway_metrics_dir), from
// slurmctld's configuration; nullopt with `why` when it publishes nothing.
std::optional<std::string> live_metrics_dir(std::string& why);

}  // namespace fairway_cli
