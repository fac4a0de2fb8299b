// pending_stats.h - the pending queue of one period in figures, per partition and per QOS: how
// many jobs wait, the quantiles of their priorities, and how long the oldest has waited.  The
// plugin notes one row per pending job and partition while it weighs them (under slurmctld's job
// lock: a few words per row) and the figures are computed after the locks are released.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fairway {

inline constexpr uint32_t kNoQos = UINT32_MAX;

// One pending job in one of its partitions.
struct PendingRow {
  uint32_t partition = 0;  // index into the period's partition names
  uint32_t qos = kNoQos;   // index into the period's QOS names, kNoQos: none
  uint32_t priority = 0;   // the job's priority in that partition
  int64_t submit_time = 0;
  bool first = true;  // the job's first row: the one that counts it for its QOS
};

// The quantiles published: the lowest, the median, the 90th and 99th percentiles, the highest.
inline constexpr std::array<double, 5> kPriorityQuantiles = {0, 0.5, 0.9, 0.99, 1};

struct PendingFigures {
  uint64_t jobs = 0;
  double priority_sum = 0;
  // Nearest rank: the smallest priority with at least q of the jobs at or below it (the lowest
  // for q = 0).  All 0 when no job waits.
  std::array<uint32_t, kPriorityQuantiles.size()> quantiles{};
  int64_t oldest_wait = 0;  // seconds since the oldest job's submission, at least 0
};

struct PendingStats {
  std::vector<PendingFigures> partitions;  // one per partition name, empty ones included
  std::vector<PendingFigures> qos;         // one per QOS name
};

// Figures of the rows at `now`.  A row whose partition or QOS index is out of range is not
// counted there.  O(R) time (selection, not sorting) and O(R) extra memory.
PendingStats pending_stats(std::span<const PendingRow> rows, size_t partition_count,
                           size_t qos_count, int64_t now);

}  // namespace fairway
