// pending_stats.cc - see pending_stats.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "pending_stats.h"

#include <algorithm>
#include <cmath>

namespace fairway {
namespace {

// Fills f from the priorities of one group (reordered in place).
void figures(std::vector<uint32_t>& prio, PendingFigures& f) {
  f.jobs = prio.size();
  if (prio.empty()) return;
  f.priority_sum = 0;
  for (uint32_t p : prio) f.priority_sum += p;
  for (size_t k = 0; k < kPriorityQuantiles.size(); k++) {
    const double q = kPriorityQuantiles[k];
    size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(prio.size())));
    const size_t at = rank == 0 ? 0 : rank - 1;
    std::nth_element(prio.begin(), prio.begin() + static_cast<ptrdiff_t>(at), prio.end());
    f.quantiles[k] = prio[at];
  }
}

}  // namespace

PendingStats pending_stats(std::span<const PendingRow> rows, size_t partition_count,
                           size_t qos_count, int64_t now) {
  PendingStats out;
  out.partitions.resize(partition_count);
  out.qos.resize(qos_count);
  std::vector<std::vector<uint32_t>> by_part(partition_count), by_qos(qos_count);
  std::vector<int64_t> oldest_part(partition_count, INT64_MAX), oldest_qos(qos_count, INT64_MAX);
  for (const PendingRow& r : rows) {
    if (r.partition < partition_count) {
      by_part[r.partition].push_back(r.priority);
      oldest_part[r.partition] = std::min(oldest_part[r.partition], r.submit_time);
    }
    if (r.first && r.qos < qos_count) {
      by_qos[r.qos].push_back(r.priority);
      oldest_qos[r.qos] = std::min(oldest_qos[r.qos], r.submit_time);
    }
  }
  auto wait = [now](int64_t oldest) {
    return oldest == INT64_MAX ? 0 : std::max<int64_t>(0, now - oldest);
  };
  for (size_t i = 0; i < partition_count; i++) {
    figures(by_part[i], out.partitions[i]);
    out.partitions[i].oldest_wait = wait(oldest_part[i]);
  }
  for (size_t i = 0; i < qos_count; i++) {
    figures(by_qos[i], out.qos[i]);
    out.qos[i].oldest_wait = wait(oldest_qos[i]);
  }
  return out;
}

}  // namespace fairway
