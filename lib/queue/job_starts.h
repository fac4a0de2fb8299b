// job_starts.h - why a job started: the place it had in the last order the plugin computed
// before it started, and the jobs it passed (ahead of it then, still waiting after it started).
// The plugin notes the jobs that started since the last period (under the job lock, from the
// walk it makes anyway); the publisher keeps each period's order to explain the next period's
// starts, and lib/publish/job_starts_file.h keeps the answers in a journal beside the history.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "job_factors.h"
#include "pending_stats.h"

namespace fairway {

// A job that started since the last period, as the plugin copied it.
struct StartedJob {
  uint32_t job_id = 0;
  std::string user, account, partition;
  int64_t submit_time = 0, start_time = 0;
  uint32_t priority = 0;
  bool has_factors = false;
  // Its weighted factors as sprio shows them, by Factor; kTres unused, site and nice without
  // Slurm's offset.
  FactorValues factors;
};

// The pending queue of one period: per partition, the jobs in the order slurmctld's scheduler
// considers them (higher priority first, then earlier submission, then lower job id).
struct PeriodOrder {
  int64_t time = 0;  // 0: no period yet
  std::vector<std::string> partitions;
  std::vector<std::vector<uint32_t>> jobs;    // per partition, in order
  std::vector<std::vector<int64_t>> submits;  // the same jobs' submit times
};

// Rows need job ids (PendingRow::job_id) for this.
struct OrderRow {
  uint32_t partition = 0;
  uint32_t job_id = 0;
  uint32_t priority = 0;
  int64_t submit_time = 0;
};
PeriodOrder period_order(std::span<const OrderRow> rows, const std::vector<std::string>& partitions,
                         int64_t time);

struct StartRecord {
  StartedJob job;
  int64_t order_time = 0;       // the period whose order is used; 0: the job was in none
  std::string order_partition;  // the partition of that order: where it started, else the first
  uint32_t place = 0;           // 1-based place in its partition then (0: not there)
  uint32_t of = 0;              // jobs pending in that partition then
  uint32_t passed = 0;          // of the jobs ahead of it then, those still pending now
  std::vector<uint32_t> passed_jobs;  // the first kMaxPassedListed of them, in order
  uint32_t earlier_waiting = 0;       // jobs submitted before it, in that order, still pending
  // The first period that weighed it pending, its partition then (the first of the period's
  // partitions that listed it) and its place there; 0 and empty when none did.  The
  // forecast's sample (forecast.h).
  int64_t seen_time = 0;
  std::string seen_partition;
  uint32_t seen_place = 0;
};
inline constexpr size_t kMaxPassedListed = 20;

// Each pending job's first period, partition and place, kept from period to period.
struct FirstPlace {
  int64_t time = 0;        // the first period that weighed it pending
  uint32_t partition = 0;  // index into FirstPlaces::partitions
  uint32_t place = 0;      // 1-based
  int64_t last = 0;        // the last period that listed it
};
struct FirstPlaces {
  std::vector<std::string> partitions;  // every partition name noted, in order of first note
  std::unordered_map<uint32_t, FirstPlace> jobs;
};

// Notes the jobs of `o` that `fp` does not hold yet (in the first of o's partitions that lists
// each) and forgets those `o` no longer lists.  O(jobs listed + jobs held).
void note_first_places(const PeriodOrder& o, FirstPlaces& fp);

// The record of a started job against the last order and the jobs pending now; with `first`,
// its seen_* fields from there.
StartRecord explain_start(const StartedJob& job, const PeriodOrder& last,
                          const std::unordered_set<uint32_t>& pending_now,
                          const FirstPlaces* first = nullptr);

}  // namespace fairway
