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
  std::string algorithm;             // "" = slurmctld's
  std::optional<uint16_t> dampening;  // nullopt = slurmctld's
};

// The snapshot, or nullopt with `why` set to one line naming what failed. libslurm must be
// initialised (slurm_init) and slurm.conf readable.
std::optional<fairway::Snapshot> live_snapshot(const LiveRequest& req, std::string& why);

// Where the plugin keeps its history (PriorityParameters: fairway_metrics_dir, else
// StateSaveLocation; then /fairway_history), from slurmctld's configuration; nullopt with `why`.
std::optional<std::string> live_history_dir(std::string& why);

}  // namespace fairway_cli
