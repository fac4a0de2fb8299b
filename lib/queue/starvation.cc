// starvation.cc - see starvation.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "starvation.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace fairway {

std::vector<uint32_t> next_for_resources(std::span<const LineRow> rows, size_t partitions,
                                         int64_t now) {
  std::vector<const LineRow*> first(partitions, nullptr);
  auto before = [](const LineRow& a, const LineRow& b) {
    return std::make_tuple(-static_cast<int64_t>(a.priority), a.submit_time, a.job_id) <
           std::make_tuple(-static_cast<int64_t>(b.priority), b.submit_time, b.job_id);
  };
  for (const LineRow& r : rows) {
    if (r.partition >= partitions || r.eligible <= 0 || r.eligible > now) continue;
    const LineRow*& f = first[r.partition];
    if (!f || before(r, *f)) f = &r;
  }
  std::vector<uint32_t> out;
  for (const LineRow* f : first)
    if (f && f->waits_for_resources) out.push_back(f->job_id);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

StarvationReport find_starved(std::span<const PendingJobNote> jobs, const AssocTree& tree,
                              const FairShareResult& result, int64_t now,
                              const StarvationSettings& settings) {
  StarvationReport out;
  struct Oldest {
    int64_t eligible = INT64_MAX;
    uint32_t job = 0, count = 0;
    bool next = false;  // a job of it is next in line, waiting for resources only
  };
  std::vector<Oldest> oldest(tree.size());
  for (const PendingJobNote& j : jobs) {
    if (j.eligible <= 0 || j.eligible > now) continue;
    const uint32_t i = tree.find(j.assoc_id);
    if (i == kNoIndex) continue;
    Oldest& o = oldest[i];
    o.count++;
    o.next |= j.next_for_resources;
    if (j.eligible < o.eligible || (j.eligible == o.eligible && j.job_id < o.job)) {
      o.eligible = j.eligible;
      o.job = j.job_id;
    }
  }
  std::vector<double> factors;
  for (uint32_t i = 0; i < tree.size(); i++)
    if (oldest[i].count) {
      out.with_pending.push_back(i);
      factors.push_back(result.fs_factor.at(i));
    }
  if (factors.empty()) return out;
  const double q = std::clamp(settings.quantile, 0.0, 1.0);
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(factors.size())));
  const size_t at = rank == 0 ? 0 : rank - 1;
  std::nth_element(factors.begin(), factors.begin() + static_cast<ptrdiff_t>(at), factors.end());
  out.threshold = factors[at];
  if (!settings.minutes) return out;
  const int64_t limit = int64_t{settings.minutes} * 60;
  for (uint32_t i : out.with_pending) {
    const Oldest& o = oldest[i];
    const double f = result.fs_factor[i];
    if (now - o.eligible >= limit && f > 0 && f >= out.threshold && !o.next)
      out.starved.push_back({i, o.job, now - o.eligible, o.count, f});
  }
  return out;
}

}  // namespace fairway
