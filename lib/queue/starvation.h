// starvation.h - associations that are entitled but not served: a user whose oldest eligible
// pending job has waited longer than fairway_starvation_minutes while its fair-share factor is
// among the highest of the users with jobs pending (at least the fairway_starvation_quantile
// of their factors, nearest rank).  Such a user is owed service that fair-share alone cannot
// give it: a limit, a higher PriorityTier or a weight that drowns fair-share holds it back.
// A user with a job first in line in its partition that waits only for resources (slurmctld's
// state reason Resources) is not starved: nothing but a full cluster holds it back, and it
// starts next.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"

namespace fairway {

// A pending job the period weighed.
struct PendingJobNote {
  uint32_t assoc_id = 0;
  uint32_t job_id = 0;
  int64_t eligible = 0;             // when it became eligible (accrue or begin time); 0: not yet
  bool next_for_resources = false;  // first in line in a partition, waiting only for resources
};

// A pending job in one of its partitions, as the queue holds it.
struct LineRow {
  uint32_t partition = 0;
  uint32_t job_id = 0;
  uint32_t priority = 0;
  int64_t submit_time = 0;
  int64_t eligible = 0;              // 0: not eligible yet
  bool waits_for_resources = false;  // its state reason is Resources
};

// The jobs first in line in one of their partitions that wait only for resources: in
// slurmctld's order (higher priority, then earlier submission, then lower job id) no eligible
// job of that partition comes before them, and their state reason is Resources.  Rows of
// partitions not below `partitions` are ignored.  Sorted job ids.  O(R).
std::vector<uint32_t> next_for_resources(std::span<const LineRow> rows, size_t partitions,
                                         int64_t now);

struct StarvationSettings {
  uint32_t minutes = 0;    // 0: off
  double quantile = 0.75;  // in (0, 1]
};

struct Starved {
  uint32_t index = 0;    // the association, in the tree
  uint32_t job_id = 0;   // its oldest eligible pending job
  int64_t waited = 0;    // seconds since that job became eligible
  uint32_t pending = 0;  // its eligible pending jobs
  double factor = 0;     // its fair-share factor
};

struct StarvationReport {
  double threshold = 0;                // the quantile of the factors; 0 with no job pending
  std::vector<uint32_t> with_pending;  // associations with eligible pending jobs (tree indexes)
  std::vector<Starved> starved;        // in tree order
};

// The jobs' associations are looked up in the tree (unknown ones are left out); a factor is the
// one the association's jobs get (FairShareResult::fs_factor).  Nothing is starved when
// settings.minutes is 0, nor an association with a job next_for_resources.  O(J + A log A).
StarvationReport find_starved(std::span<const PendingJobNote> jobs, const AssocTree& tree,
                              const FairShareResult& result, int64_t now,
                              const StarvationSettings& settings);

}  // namespace fairway
