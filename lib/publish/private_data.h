// private_data.h - what fairway.prom may say of users under slurm.conf's PrivateData.
//
// fairway.prom is written mode 0644 for node_exporter, whose scrapes anyone on the network may
// read.  Where PrivateData hides users or usage from sshare (PrivateData=users or =usage), the
// file keeps the accounts' samples only: no sample names a user or carries a user's usage,
// unless PriorityParameters asks for them anyway (fairway_publish_users).  The 0600 files
// (fairway.json, the shadow policy's, the history) are readable by SlurmUser alone and keep
// everything.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <optional>
#include <string>

namespace fairway {

// What slurm.conf's PrivateData hides, of what the metrics publish.
struct PrivateData {
  bool usage = false;  // PrivateData=usage
  bool users = false;  // PrivateData=users
};

// Whether fairway.prom carries the samples of users: PrivateData hides neither users nor
// usage, or fairway_publish_users asks for them.
bool publish_user_samples(const PrivateData& hidden, bool publish_users);

// The line slurmctld logs once at start and at each reconfigure when PrivateData hides users
// or usage and metrics are written (metrics_on): which samples fairway.prom leaves out, or
// that fairway_publish_users keeps them.  No line otherwise.
std::optional<std::string> private_data_line(const PrivateData& hidden, bool publish_users,
                                             bool metrics_on);

}  // namespace fairway
