// starvation.h - associations that are entitled but not served: a user whose oldest eligible
// pending job has waited longer than fairway_starvation_minutes while its fair-share factor is
// among the highest of the users with jobs pending (at least the fairway_starvation_quantile
// of their factors, nearest rank).  Such a user is owed service that fair-share alone cannot
// give it: a limit, a higher PriorityTier or a weight that drowns fair-share holds it back.
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
  int64_t eligible = 0;  // when it became eligible (accrue or begin time); 0: not yet
};

struct StarvationSettings {
  uint32_t minutes = 0;    // 0: off
  double quantile = 0.75;  // in (0, 1]
};

struct Starved {
  uint32_t index = 0;   // the association, in the tree
  uint32_t job_id = 0;  // its oldest eligible pending job
  int64_t waited = 0;   // seconds since that job became eligible
  uint32_t pending = 0; // its eligible pending jobs
  double factor = 0;    // its fair-share factor
};

struct StarvationReport {
  double threshold = 0;                // the quantile of the factors; 0 with no job pending
  std::vector<uint32_t> with_pending;  // associations with eligible pending jobs (tree indexes)
  std::vector<Starved> starved;        // in tree order
};

// The jobs' associations are looked up in the tree (unknown ones are left out); a factor is the
// one the association's jobs get (FairShareResult::fs_factor).  Nothing is starved when
// settings.minutes is 0.  O(J + A log A).
StarvationReport find_starved(std::span<const PendingJobNote> jobs, const AssocTree& tree,
                              const FairShareResult& result, int64_t now,
                              const StarvationSettings& settings);

}  // namespace fairway
