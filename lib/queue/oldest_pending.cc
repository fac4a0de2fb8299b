// oldest_pending.cc - see oldest_pending.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "oldest_pending.h"

#include <algorithm>
#include <optional>

namespace fairway {

std::vector<std::pair<int64_t, uint32_t>> oldest_pending(const AssocTree& t,
                                                         std::span<const PendingJobNote> jobs) {
  std::vector<std::pair<int64_t, uint32_t>> oldest(t.size(), {INT64_MAX, 0});
  for (const PendingJobNote& j : jobs) {
    if (!j.eligible) continue;
    for (uint32_t i = t.find(j.assoc_id); i != kNoIndex; i = t.parent(i)) {
      if (j.eligible >= oldest[i].first) break;  // its ancestors hold one as old
      oldest[i] = {j.eligible, j.job_id};
    }
  }
  return oldest;
}

std::vector<std::pair<uint32_t, double>> oldest_waits(
    std::span<const std::pair<int64_t, uint32_t>> oldest, int64_t now) {
  std::vector<std::pair<uint32_t, double>> out;
  for (uint32_t i = 0; i < oldest.size(); i++)
    if (oldest[i].first != INT64_MAX)
      out.emplace_back(i, static_cast<double>(std::max<int64_t>(0, now - oldest[i].first)));
  return out;
}

std::vector<std::pair<uint32_t, double>> oldest_forecasts(
    const ForecastModel& m, const PeriodOrder& o,
    std::span<const std::pair<int64_t, uint32_t>> oldest) {
  std::vector<uint32_t> ids;
  std::vector<uint32_t> at;
  for (uint32_t i = 0; i < oldest.size(); i++)
    if (oldest[i].first != INT64_MAX) {
      ids.push_back(oldest[i].second);
      at.push_back(i);
    }
  const std::vector<std::optional<double>> f = job_forecasts(m, o, ids);
  std::vector<std::pair<uint32_t, double>> out;
  for (size_t k = 0; k < ids.size(); k++)
    if (f[k]) out.emplace_back(at[k], *f[k]);
  return out;
}

}  // namespace fairway
