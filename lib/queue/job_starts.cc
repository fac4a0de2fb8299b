// job_starts.cc - see job_starts.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "job_starts.h"

#include <algorithm>
#include <tuple>

namespace fairway {

PeriodOrder period_order(std::span<const OrderRow> rows, const std::vector<std::string>& partitions,
                         int64_t time) {
  PeriodOrder o;
  o.time = time;
  o.partitions = partitions;
  std::vector<std::vector<OrderRow>> by(partitions.size());
  for (const OrderRow& r : rows)
    if (r.partition < partitions.size()) by[r.partition].push_back(r);
  o.jobs.resize(partitions.size());
  o.submits.resize(partitions.size());
  for (size_t p = 0; p < by.size(); p++) {
    std::sort(by[p].begin(), by[p].end(), [](const OrderRow& a, const OrderRow& b) {
      return std::make_tuple(-static_cast<int64_t>(a.priority), a.submit_time, a.job_id) <
             std::make_tuple(-static_cast<int64_t>(b.priority), b.submit_time, b.job_id);
    });
    for (const OrderRow& r : by[p]) {
      o.jobs[p].push_back(r.job_id);
      o.submits[p].push_back(r.submit_time);
    }
  }
  return o;
}

void note_first_places(const PeriodOrder& o, FirstPlaces& fp) {
  for (size_t p = 0; p < o.partitions.size(); p++) {
    uint32_t index = UINT32_MAX;
    for (size_t k = 0; k < o.jobs[p].size(); k++) {
      auto [it, fresh] = fp.jobs.try_emplace(o.jobs[p][k]);
      if (fresh) {
        if (index == UINT32_MAX) {
          auto named = std::find(fp.partitions.begin(), fp.partitions.end(), o.partitions[p]);
          index = static_cast<uint32_t>(named - fp.partitions.begin());
          if (named == fp.partitions.end()) fp.partitions.push_back(o.partitions[p]);
        }
        it->second = {o.time, index, static_cast<uint32_t>(k + 1), o.time};
      } else {
        it->second.last = o.time;
      }
    }
  }
  std::erase_if(fp.jobs, [&](const auto& j) { return j.second.last != o.time; });
}

StartRecord explain_start(const StartedJob& job, const PeriodOrder& last,
                          const std::unordered_set<uint32_t>& pending_now,
                          const FirstPlaces* first) {
  StartRecord out;
  out.job = job;
  if (first) {
    auto it = first->jobs.find(job.job_id);
    if (it != first->jobs.end() && it->second.partition < first->partitions.size()) {
      out.seen_time = it->second.time;
      out.seen_partition = first->partitions[it->second.partition];
      out.seen_place = it->second.place;
    }
  }
  // The partition it started in, else the first that listed it.
  size_t part = last.partitions.size(), at = 0;
  for (size_t p = 0; p < last.partitions.size(); p++) {
    auto it = std::find(last.jobs[p].begin(), last.jobs[p].end(), job.job_id);
    if (it == last.jobs[p].end()) continue;
    if (part == last.partitions.size() || last.partitions[p] == job.partition) {
      part = p;
      at = static_cast<size_t>(it - last.jobs[p].begin());
    }
    if (last.partitions[p] == job.partition) break;
  }
  if (part == last.partitions.size()) return out;
  out.order_time = last.time;
  out.order_partition = last.partitions[part];
  out.place = static_cast<uint32_t>(at + 1);
  out.of = static_cast<uint32_t>(last.jobs[part].size());
  for (size_t k = 0; k < at; k++)
    if (pending_now.count(last.jobs[part][k])) {
      out.passed++;
      if (out.passed_jobs.size() < kMaxPassedListed) out.passed_jobs.push_back(last.jobs[part][k]);
    }
  for (size_t k = 0; k < last.jobs[part].size(); k++)
    if (last.submits[part][k] < job.submit_time && pending_now.count(last.jobs[part][k]))
      out.earlier_waiting++;
  return out;
}

}  // namespace fairway
