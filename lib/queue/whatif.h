// whatif.h - the pending queue under other settings: new weights, shares, usage, PriorityMaxAge
// or fair-share algorithm applied to a snapshot's jobs, every pending job's priority computed
// again, and who moves (the answer of `fairway whatif`, as numbers; the words are
// lib/text/whatif_format's).
//
// How a priority is computed again: a factor whose weight or inputs change is its normalized
// value times the new weight. That value is computed from the snapshot where it can be:
// fair-share from the association tree with the changes applied, partition and QOS from the
// snapshot's partitions and QOS, age from the job's accrue time and the snapshot's time once
// PriorityMaxAge changes; otherwise it is the sprio factor divided by the weight it was taken
// with. A factor whose weight and inputs stay keeps its sprio value. A factor whose weight
// was 0 when the snapshot was taken is known from the snapshot for age, fair-share, partition
// and QOS only; for the association, job-size and TRES factors such a change is refused. The parts
// are added in multifactor's order (job_factors.h), the site factor added and nice subtracted, and
// the sum truncated; with PriorityFlags=INCR_ONLY a priority does not go down. Copyright (C) 2026
// The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "explain.h"
#include "queue.h"

namespace fairway {

// The names a change gives the weights by: "age, assoc, fairshare, jobsize, partition, qos".
std::string weighted_factor_names();

struct WhatIfChange {
  // PriorityWeight*: a weighted factor's name ("age", "fairshare", ...: factor_name), or a
  // TRES name as in PriorityWeightTRES ("CPU", "Mem", "GRES/gpu"; case does not matter).
  std::vector<std::pair<std::string, double>> weights;
  struct Shares {
    std::string account, user;  // user empty: the account's association
    uint32_t shares = 1;
    bool parent = false;  // Fairshare=parent
  };
  std::vector<Shares> shares;
  struct Usage {
    std::string account, user;  // user empty: the account, its subtree scaled to `usage`
    long double usage = 0;      // raw usage (as sshare's RawUsage)
  };
  std::vector<Usage> usage;
  std::optional<uint32_t> max_age;     // PriorityMaxAge, seconds
  std::optional<Algorithm> algorithm;  // the fair-share algorithm
  // PriorityFlags, the whole new set (slurm_values.h bits). Of the flags that change a
  // number, NO_NORMAL_PART and NO_NORMAL_QOS are recomputed from the snapshot's partitions
  // and QOS, NO_FAIR_TREE and DEPTH_OBLIVIOUS change the algorithm (unless `algorithm` is
  // given); changing any other is refused, as the snapshot does not hold what it needs.
  std::optional<uint32_t> flags;
  bool empty() const {
    return weights.empty() && shares.empty() && usage.empty() && !max_age && !algorithm && !flags;
  }
};

// One job in one partition, before and after.
struct JobMove {
  const PendingJob* job = nullptr;  // in WhatIf::after
  uint32_t priority_before = 0, priority_after = 0;
  size_t place_before = 0, place_after = 0;  // 1: first
};

struct PartitionMoves {
  std::string partition;
  size_t jobs = 0;
  size_t moved = 0;                   // jobs whose place changes
  double spearman = 1;                // rank correlation of the two orders (1: the same order)
  std::vector<JobMove> jobs_by_move;  // every job, the largest change of place first
};

struct AssocChange {
  std::string account, user;     // user empty for an account
  double before = 0, after = 0;  // fair-share factor (an account: the highest of its users')
};

struct WhatIf {
  WhatIf() = default;
  WhatIf(const WhatIf&) = delete;  // its moves point into its own `after`
  WhatIf& operator=(const WhatIf&) = delete;
  WhatIf(WhatIf&&) = default;
  WhatIf& operator=(WhatIf&&) = default;

  Queue after;  // the queue with the new settings, factors and priorities
  std::vector<PartitionMoves> partitions;
  std::vector<AssocChange> associations;  // those whose factor changes, largest change first
};

// Throws fairway::Error (kInvalid) naming the problem: an unknown weight name or association,
// a weight that the snapshot cannot scale, an account's usage that cannot be scaled.
WhatIf what_if(const Queue& q, const FairShareInput& fs, const WhatIfChange& change);

}  // namespace fairway
