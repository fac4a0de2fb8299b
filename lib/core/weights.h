// weights.h - which factor decides the order of the pending queue: for every pair of
// neighbouring jobs in a partition's order, what puts the first ahead; per factor, how many
// pairs it decides, and whether it is saturated, never decides, or is drowned by another (the
// answer of `fairway weights`, as numbers; the words are lib/io/weights_format's).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "queue.h"

namespace fairway {

struct FactorUse {
  Factor factor = Factor::kAge;
  double weight = 0;  // PriorityWeight* (TRES: the sum of PriorityWeightTRES); 0 for site, nice
  double min = 0, max = 0;  // its part across the partition's weighed jobs
  size_t at_weight = 0;     // jobs whose part is the whole weight
  size_t decides = 0;       // neighbour pairs whose largest difference is this factor's
  enum class Verdict {
    kDecides,       // decides at least one pair
    kSaturated,     // every job at its weight (e.g. all at PriorityMaxAge): separates no one
    kConstant,      // the same part for every job, below its weight
    kDrowned,       // varies, decides no pair, and `by` varies 100 times as much or more
    kNeverDecides,  // varies, decides no pair
    kUnused,        // weight 0 and no part
  } verdict = Verdict::kUnused;
  Factor by = Factor::kAge;  // kDrowned: the factor that drowns it
};

struct PartitionDecisions {
  std::string partition;
  uint32_t tier = 0;
  size_t jobs = 0;   // weighed pending jobs
  size_t pairs = 0;  // neighbour pairs (jobs - 1)
  // Pairs not decided by a factor: the first job's partition tier (never within one
  // partition, kept for a queue read across tiers), equal priorities (submit time, then job
  // id), an administrator-set priority.
  size_t by_tier = 0, by_submit_time = 0, by_job_id = 0, by_admin = 0;
  std::vector<FactorUse> factors;  // in kFactors order
};

// A factor drowns another when its spread is at least this many times the other's.
inline constexpr double kDrownedRatio = 100;

std::vector<PartitionDecisions> queue_decisions(const Queue& q);

}  // namespace fairway
