// weights.h - which factor decides the order of the pending queue: for every pair of
// neighbouring jobs in a partition's order, what puts the first ahead; per factor, how many
// pairs it decides, and whether it is saturated, never decides, or is drowned by another (the
// answer of `fairway weights`, as numbers; the words are lib/text/weights_format's).
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
  // Of those, the pairs of two associations (a user's own jobs side by side excluded), and
  // the sum of their priority gaps: what the headline weighs (gap_share).
  size_t decides_between = 0;
  double gap = 0;
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
  // The priority gaps of the pairs of two associations decided by a factor, summed: the
  // factors' `gap`s add up to it.
  double gap_total = 0;
  size_t pairs_between = 0;  // pairs of two associations decided by a factor
};

// A factor's part of the order that a site can act on: its share of the priority gaps between
// neighbours of different associations (0 when no such pair is decided by a factor).
double gap_share(const PartitionDecisions& d, const FactorUse& u);

// A factor drowns another when its spread is at least this many times the other's.
inline constexpr double kDrownedRatio = 100;

std::vector<PartitionDecisions> queue_decisions(const Queue& q);

}  // namespace fairway
