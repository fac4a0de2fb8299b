// published_queue.h - the pending queue the plugin copied under slurmctld's locks
// (fairway_publication_t's jobs, rows, partitions and QOS) as the core's Queue: what the
// per-period snapshot holds and the shadow policy weighs.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "fairway.h"
#include "fairway_publish.h"
#include "queue.h"

namespace fairway {

// The queue of P (which must have jobs).  PARTITIONS and QOS are P's names.  A job is listed
// with its rows in the order they were noted (PriorityTier order); one whose association is
// not in TREE is left out and counted in *left_out.  Throws fairway::Error (kInvalid) for an
// index out of range.
Queue published_queue(const fairway_publication_t& p, const AssocTree& tree,
                      const std::vector<std::string>& partitions,
                      const std::vector<std::string>& qos, size_t* left_out);

}  // namespace fairway
