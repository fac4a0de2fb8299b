// forecast.cc - see forecast.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "forecast.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

namespace fairway {
namespace {

constexpr int64_t kDay = 86400;

// The q-quantile of sorted values, interpolated linearly between order statistics.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

// Of the samples of one partition, those overtaken: a job first seen later started earlier.
// One sweep from the latest first-seen time back, keeping the earliest start seen so far.
uint32_t overtaken(const std::vector<const WaitSample*>& list) {
  std::vector<std::pair<int64_t, int64_t>> seen_start;  // (first seen, start)
  for (const WaitSample* s : list) seen_start.emplace_back(s->start - s->waited, s->start);
  std::sort(seen_start.begin(), seen_start.end(), std::greater<>());
  uint32_t n = 0;
  int64_t earliest_later = INT64_MAX;  // earliest start of the jobs first seen strictly later
  for (size_t i = 0; i < seen_start.size();) {
    size_t k = i;  // the jobs first seen at the same time pass none of each other
    for (; k < seen_start.size() && seen_start[k].first == seen_start[i].first; k++)
      n += seen_start[k].second > earliest_later;
    for (; i < k; i++) earliest_later = std::min(earliest_later, seen_start[i].second);
  }
  return n;
}

}  // namespace

std::optional<WaitSample> wait_sample(const StartRecord& r) {
  if (!r.seen_time || !r.seen_place || r.seen_partition.empty()) return std::nullopt;
  WaitSample s;
  s.partition = r.seen_partition;
  s.start = r.job.start_time;
  s.place = r.seen_place;
  s.waited = std::max<int64_t>(0, r.job.start_time - r.seen_time);
  s.passed = r.passed > 0;
  return s;
}

void trim_samples(std::vector<WaitSample>& samples, int64_t now) {
  std::stable_sort(samples.begin(), samples.end(),
                   [](const WaitSample& a, const WaitSample& b) { return a.start < b.start; });
  std::map<std::string, uint32_t, std::less<>> kept;  // per partition, counted from the newest
  std::vector<bool> keep(samples.size());
  for (size_t i = samples.size(); i-- > 0;) {
    const WaitSample& s = samples[i];
    uint32_t& n = kept[s.partition];
    keep[i] = s.start > now - kForecastDays * kDay && n < kForecastStarts;
    if (keep[i]) n++;
  }
  size_t out = 0;
  for (size_t i = 0; i < samples.size(); i++) {
    if (!keep[i]) continue;
    if (out != i) samples[out] = std::move(samples[i]);
    out++;
  }
  samples.resize(out);
}

const PartitionForecast* ForecastModel::find(std::string_view partition) const {
  for (const PartitionForecast& p : partitions)
    if (p.partition == partition) return &p;
  return nullptr;
}

ForecastModel forecast_model(std::span<const WaitSample> samples, int64_t now) {
  std::vector<WaitSample> window(samples.begin(), samples.end());
  trim_samples(window, now);
  std::map<std::string, std::vector<const WaitSample*>, std::less<>> by;
  for (const WaitSample& s : window) by[s.partition].push_back(&s);
  ForecastModel m;
  m.time = now;
  for (const auto& [name, list] : by) {
    PartitionForecast p;
    p.partition = name;
    p.starts = static_cast<uint32_t>(list.size());
    p.since = list.front()->start;
    std::vector<double> per_place;
    uint32_t passed = 0;
    for (const WaitSample* s : list) {
      per_place.push_back(static_cast<double>(s->waited) / s->place);
      passed += s->passed;
    }
    p.passed_share = static_cast<double>(passed) / p.starts;
    p.overtaken_share = static_cast<double>(overtaken(list)) / p.starts;
    if (p.usable()) {
      std::sort(per_place.begin(), per_place.end());
      p.per_place_p10 = quantile(per_place, 0.1);
      p.per_place_p50 = quantile(per_place, 0.5);
      p.per_place_p90 = quantile(per_place, 0.9);
    }
    m.partitions.push_back(std::move(p));
  }
  return m;
}

std::string forecast_blocker(std::string_view reason, bool held, std::string_view reservation) {
  if (held) return "it is held";
  if (!reservation.empty())
    return "it runs in reservation " + std::string(reservation) +
           ", whose nodes its partition's line does not govern";
  if (reason.empty() || reason == "None" || reason == "Priority" || reason == "Resources")
    return "";
  if (reason == "Dependency" || reason == "DependencyNeverSatisfied")
    return "it waits for another job (Dependency)";
  if (reason == "BeginTime") return "it may not start before its begin time (BeginTime)";
  if (reason.find("Resv") != std::string_view::npos ||
      reason.find("Reservation") != std::string_view::npos)
    return "it waits for a reservation (" + std::string(reason) + ")";
  if (reason.find("Limit") != std::string_view::npos || reason.rfind("Assoc", 0) == 0 ||
      reason.rfind("QOS", 0) == 0)
    return "a limit holds it (" + std::string(reason) + ")";
  if (reason.rfind("JobHeld", 0) == 0) return "it is held (" + std::string(reason) + ")";
  return "it waits for something other than its place (" + std::string(reason) + ")";
}

JobForecast forecast_job(const ForecastModel& m, std::string_view partition, uint32_t place,
                         uint32_t of, const std::string& blocker) {
  JobForecast f;
  f.partition = std::string(partition);
  f.place = place;
  f.of = of;
  f.model = m.find(partition);
  if (!blocker.empty()) {
    f.why_not = blocker;
  } else if (!m.time) {
    f.why_not = m.missing.empty() ? "the plugin has published no forecast" : m.missing;
  } else if (!place) {
    f.why_not = "its place in " + f.partition + " is not known";
  } else if (!f.model || !f.model->usable()) {
    const uint32_t n = f.model ? f.model->starts : 0;
    f.why_not = std::to_string(n) + (n == 1 ? " job" : " jobs") + " started in " + f.partition +
                " in the last " + std::to_string(kForecastDays) + " days, too few (under " +
                std::to_string(kForecastMinStarts) + ")";
  } else {
    f.estimated = true;
    f.central = place * f.model->per_place_p50;
    f.low = place * f.model->per_place_p10;
    f.high = place * f.model->per_place_p90;
  }
  return f;
}

JobForecast forecast_pending(const ForecastModel& m, const Queue& q, const PendingJob& j,
                             std::span<const PlaceInLine> places) {
  std::string blocker = forecast_blocker(j.reason, j.held, j.reservation);
  if (blocker.empty() && q.jobs_private)
    blocker = "PrivateData=jobs hides the other users' jobs from you, so its place is not known";
  if (places.empty()) {
    JobForecast f =
        forecast_job(m, j.partitions.empty() ? "" : j.partitions.front(), 0, 0, blocker);
    return f;
  }
  std::optional<JobForecast> best;
  for (const PlaceInLine& p : places) {
    JobForecast f = forecast_job(m, p.partition, p.place, p.of, blocker);
    if (!best || (f.estimated && (!best->estimated || f.central < best->central)))
      best = std::move(f);
  }
  return *best;
}

std::vector<LineForecast> line_forecasts(const ForecastModel& m, const PeriodOrder& o) {
  std::vector<LineForecast> out(o.partitions.size());
  for (size_t p = 0; p < o.partitions.size(); p++) {
    const PartitionForecast* f = m.find(o.partitions[p]);
    const size_t n = o.jobs[p].size();
    if (!f || !f->usable()) {
      out[p].without_estimate = n;
      continue;
    }
    if (!n) continue;
    out[p].head = f->per_place_p50;
    out[p].median_place = static_cast<double>((n + 1) / 2) * f->per_place_p50;
  }
  return out;
}

std::vector<std::optional<double>> job_forecasts(const ForecastModel& m, const PeriodOrder& o,
                                                 std::span<const uint32_t> jobs) {
  std::unordered_map<uint32_t, size_t> at;
  for (size_t i = 0; i < jobs.size(); i++) at.emplace(jobs[i], i);
  std::vector<std::optional<double>> out(jobs.size());
  for (size_t p = 0; p < o.partitions.size(); p++) {
    const PartitionForecast* f = m.find(o.partitions[p]);
    if (!f || !f->usable()) continue;
    for (size_t k = 0; k < o.jobs[p].size(); k++) {
      auto it = at.find(o.jobs[p][k]);
      if (it == at.end()) continue;
      const double s = static_cast<double>(k + 1) * f->per_place_p50;
      std::optional<double>& best = out[it->second];
      if (!best || s < *best) best = s;
    }
  }
  return out;
}

std::vector<JobForecast> forecast_queue(const ForecastModel& m, const Queue& q) {
  std::unordered_map<const PendingJob*, std::vector<PlaceInLine>> places;
  for (const PartitionInfo& part : q.partitions) {
    const std::vector<QueueEntry> line = partition_queue(q, part.name);
    for (size_t i = 0; i < line.size(); i++)
      places[line[i].job].push_back(
          {part.name, static_cast<uint32_t>(i + 1), static_cast<uint32_t>(line.size())});
  }
  std::vector<JobForecast> out;
  out.reserve(q.jobs.size());
  for (const PendingJob& j : q.jobs) {
    auto it = places.find(&j);
    out.push_back(it == places.end() ? forecast_pending(m, q, j, {})
                                     : forecast_pending(m, q, j, it->second));
  }
  return out;
}

}  // namespace fairway
