// explain.h - why a pending job has its place in the queue, and what would change it: the
// answer of `fairway explain`, as numbers (the words are lib/text/explain_format's).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"
#include "held_usage.h"
#include "queue.h"

namespace fairway {

// The association tree with its usage and the fair-share settings, as a snapshot holds them.
struct FairShareInput {
  std::vector<AssocRecord> associations;  // usage_raw: usage charged directly to each
  Algorithm algorithm = Algorithm::kFairTree;
  double dampening_factor = 1;
  // What that usage is: historical, or (fairway_usage) what running jobs held.
  UsageBasis usage_basis = UsageBasis::kHistorical;
  // PriorityParameters fairway_fairshare_tres (lib/queue/fairshare_tres.h): the listed TRES,
  // and for each the usage of it charged directly to each association (parallel to
  // `associations`, in the same basis); both empty when the option is off.
  std::vector<std::string> fairshare_tres;
  std::vector<std::vector<long double>> tres_usage;
};

// The tree built from a FairShareInput (direct usage accumulated up the tree) and its
// fair-share values. Throws TreeError for a malformed tree.
struct FairShareState {
  AssocTree tree;
  FairShareResult result;
};
FairShareState fair_share_state(const FairShareInput& fs);

// One level of the path from the root to an association. A value that Slurm leaves unset
// there holds kNoVal (slurm_values.h, is_unset), as in slurmctld: the formats print it empty
// or null, never as a number.
struct FairShareLevel {
  std::string account, user;  // user empty for an account
  double shares_norm = 0;     // kNoVal: the root under Fair Tree (its level has no shares)
  long double usage_norm = 0, usage_efctv = 0;  // usage_norm kNoVal: the root
  // Fair Tree: shares_norm / usage_efctv among siblings (kNoVal: the root, a Fairshare=parent
  // account; infinity: a Fairshare=parent user); kNoVal under classic and depth-oblivious.
  long double level_fs = 0;
  size_t rank = 0;      // Fair Tree: 1 = highest Level FS among its siblings
  size_t siblings = 0;  // how many share its parent (itself included)
  // A user's factor; an account's is the highest factor among the users directly under it
  // (what usage_halving_fs_factor halves); kNoVal for the root and for an account without
  // users of its own.
  double fs_factor = 0;
};

// One place of the job in one of its partitions.
struct QueuePlace {
  std::string partition;
  uint32_t tier = 0;
  uint32_t priority = 0;
  size_t position = 0;            // 1: first to be considered
  size_t of = 0;                  // weighed pending jobs in that partition
  std::optional<uint32_t> ahead;  // the job directly ahead
  Separation separation;          // what puts it ahead
  double age_passes = -1;         // seconds_until_age_passes (-1: never)
  double age_saturates = -1;      // seconds_until_age_saturates
  double fair_share_passes = -1;  // seconds of half-life decay of the account until it
                                  // passes the job ahead (-1: not within 20 half-lives)
  // The job ahead has the same association (and is judged on the same tree): fair-share
  // gives both the same factor, so it cannot separate them.
  bool same_association = false;
};

struct Explanation {
  const PendingJob* job = nullptr;
  // The listed TRES whose usage gave the job its fair-share factor (fairway_fairshare_tres):
  // then `path`, `halving_usage` and the fair-share recovery are that TRES's; empty: billing.
  std::string fairshare_tres;
  std::vector<QueuePlace> places;    // in the job's partition order
  std::vector<FairShareLevel> path;  // root first; empty without the association
  // Usage that halves the fs factor (raw units); 0: any usage at all does (the association
  // ties with siblings, and the least usage puts it behind them).
  std::optional<long double> halving_usage;
};

// Throws fairway::Error (kInvalid) when the job is not pending in the queue, and TreeError for
// a malformed tree.
Explanation explain_job(const Queue& q, const FairShareInput& fs, uint32_t job_id);

// Which records lie in the subtree of the association `root_id` (itself included), by
// following parent ids; a loop or a missing parent ends a walk outside it.
std::vector<bool> in_subtree(const std::vector<AssocRecord>& records, uint32_t root_id);

// The path from the root to the association with this id (empty if unknown).
std::vector<FairShareLevel> fair_share_path(const FairShareInput& fs, uint32_t assoc_id);

// The raw usage that, charged directly to the association, halves its fair-share factor
// (a user's; an account's is the highest among its users'), found by bisection to 1e-6
// relative; 0 when the least usage does (a tie that any usage breaks); nullopt if no usage up
// to 2^60 does (a factor of 0, or an account without users).
std::optional<long double> usage_halving_fs_factor(const FairShareInput& fs, uint32_t assoc_id);

// The fair-share factor of every association after the usage of the subtree of `subtree_id`
// decayed for `seconds` at half-life `half_life` (everything else as it is).
std::vector<double> fs_factors_after_decay(const FairShareInput& fs, uint32_t subtree_id,
                                           double seconds, double half_life);

}  // namespace fairway
