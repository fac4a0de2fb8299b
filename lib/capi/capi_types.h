// capi_types.h - the C API's structs as the core's types, for the files of lib/capi.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "assoc_tree.h"
#include "error.h"
#include "fair_share.h"
#include "fairway.h"
#include "held_usage.h"

namespace fairway {

// Takes the raw value: a C caller may pass any int, and loading an out-of-range value as the
// C++ enum type is undefined (UBSan -fsanitize=enum).
inline Algorithm to_algorithm(int algo) {
  switch (algo) {
    case FAIRWAY_ALGO_FAIR_TREE:
      return Algorithm::kFairTree;
    case FAIRWAY_ALGO_CLASSIC:
      return Algorithm::kClassic;
    case FAIRWAY_ALGO_DEPTH_OBLIVIOUS:
      return Algorithm::kDepthOblivious;
  }
  invalid("unknown fair-share algorithm " + std::to_string(algo));
}

inline UsageBasis to_usage_basis(uint32_t basis) {
  switch (basis) {
    case FAIRWAY_USAGE_HISTORICAL:
      return UsageBasis::kHistorical;
    case FAIRWAY_USAGE_ALLOCATED:
      return UsageBasis::kAllocated;
    case FAIRWAY_USAGE_COMMITTED:
      return UsageBasis::kCommitted;
  }
  invalid("unknown usage basis " + std::to_string(basis));
}

inline uint32_t from_usage_basis(UsageBasis b) {
  return b == UsageBasis::kAllocated   ? FAIRWAY_USAGE_ALLOCATED
         : b == UsageBasis::kCommitted ? FAIRWAY_USAGE_COMMITTED
                                       : FAIRWAY_USAGE_HISTORICAL;
}

// The running jobs of a C array (NULL with count 0: none).
inline std::vector<RunningJob> to_running_jobs(const fairway_running_job_t* jobs, size_t count) {
  if (!jobs && count) invalid("NULL running jobs");
  std::vector<RunningJob> out(count);
  for (size_t i = 0; i < count; i++)
    out[i] = {jobs[i].assoc_id, jobs[i].charge_rate, jobs[i].remaining_seconds};
  return out;
}

// The records of count associations, in the caller's order.
inline std::vector<AssocRecord> to_records(const fairway_assoc_t* assocs, size_t count) {
  std::vector<AssocRecord> records(count);
  for (size_t i = 0; i < count; i++) {
    const fairway_assoc_t& a = assocs[i];
    AssocRecord& r = records[i];
    r.id = a.id;
    r.parent_id = a.parent_id;
    r.account = a.account ? a.account : "";
    r.user = a.user ? a.user : "";
    r.shares_parent = a.shares_parent != 0;
    r.shares_raw = a.shares_raw;
    r.usage_raw = a.usage_raw;
  }
  return records;
}

}  // namespace fairway
