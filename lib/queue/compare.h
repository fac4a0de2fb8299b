// compare.h - why one pending job is ahead of another: factor by factor in each partition
// both wait in, and where their fair-share paths part (the answer of `fairway compare`, as
// numbers; the words are lib/text/compare_format's).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "explain.h"
#include "queue.h"

namespace fairway {

// The two jobs in one partition's order.
struct PairPlace {
  std::string partition;
  const FactorRow* row_a = nullptr;
  const FactorRow* row_b = nullptr;
  size_t position_a = 0, position_b = 0;  // 1: first to be considered (0: held)
  size_t of = 0;                          // weighed pending jobs in that partition
  bool a_first = false;
  Separation separation;  // what puts the first of the two ahead of the other
};

// One side of the fair-share decision: an association on a job's path (fs_parent chain).
struct FairShareSide {
  std::string account, user;  // user empty for an account
  double shares_norm = 0;     // within its siblings (Fair Tree), or of the whole tree (classic)
  long double usage_efctv = 0;
  long double level_fs = 0;  // Fair Tree (kNoVal: unset, as Slurm leaves it: a
                             // Fairshare=parent account, or classic)
  size_t rank = 0;           // Fair Tree: 1 = first among its siblings in Fair Tree's order
  size_t siblings = 0;
  bool uses_parent = false;  // Fairshare=parent
};

// Where the fair-share factors of the two jobs' associations are decided.
struct FairShareDecision {
  Algorithm algorithm = Algorithm::kFairTree;
  bool same_association = false;
  // Fair Tree: the deepest association both paths pass (following Fairshare=parent, as the
  // children_lists do), and its two children on the paths, whose order among their siblings
  // orders every user below them. Classic and depth-oblivious: the two users themselves.
  std::string ancestor;
  std::optional<FairShareSide> a, b;
  double fs_factor_a = 0, fs_factor_b = 0;  // the users' factors
  bool a_ranks_first = false;               // Fair Tree: side a sorts before side b
  bool tied = false;  // Fair Tree: the two sides have the same Level FS (decided by order)
  // fairway_fairshare_tres: the listed TRES whose usage judged each job ("": billing). Jobs
  // judged on different TRES get their factors from different trees: then only the factors
  // are set (each from its own tree), no sides or ancestor.
  std::string tres_a, tres_b;
};

struct Comparison {
  const PendingJob* a = nullptr;
  const PendingJob* b = nullptr;
  std::vector<PairPlace> places;  // the partitions both jobs were submitted to, in a's order
  FairShareDecision fair_share;   // absent sides when an association is not in the tree
};

// Throws fairway::Error (kInvalid) when either job is not pending, or both ids are the same.
Comparison compare_jobs(const Queue& q, const FairShareInput& fs, uint32_t job_a, uint32_t job_b);

// The fair-share decision between two associations (by id).
FairShareDecision fair_share_decision(const FairShareInput& fs, uint32_t assoc_a, uint32_t assoc_b);

}  // namespace fairway
