// forecast.h - when a pending job will start, from how long the jobs that started recently in
// its partition waited per place ahead of them in line.
//
// The plugin notes, for every job it weighs pending, its place in its partition's order the
// first period it saw it (StartRecord::seen_*, job_starts.h).  When the job starts, that gives
// one sample: the seconds it waited from then, divided by that place ("seconds per place").
// Per partition, the model keeps the last kForecastStarts samples of the last kForecastDays
// and their 10th, 50th and 90th percentiles.  A job at place k now is forecast to start in
// k x the median, and 8 in 10 such jobs within k x the 10th and k x the 90th percentile.
// doc/forecast.md explains the model and gives its calibration against backfill's StartTime.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "job_starts.h"
#include "queue.h"

namespace fairway {

inline constexpr uint32_t kForecastStarts = 200;    // the samples kept per partition
inline constexpr uint32_t kForecastMinStarts = 20;  // fewer: no estimate
inline constexpr int64_t kForecastDays = 7;         // older samples are dropped

// One job that started: where it was first seen, and how long it waited from then.
struct WaitSample {
  std::string partition;
  int64_t start = 0;    // when it started
  uint32_t place = 0;   // its place when first seen (1-based)
  int64_t waited = 0;   // seconds from then to its start
  bool passed = false;  // it passed jobs that were ahead of it in the last order
};

// The sample of a start record; nullopt when the job was never seen pending.
std::optional<WaitSample> wait_sample(const StartRecord& r);

// Keeps the newest kForecastStarts samples per partition, none older than kForecastDays
// before `now`, in the order of their starts.
void trim_samples(std::vector<WaitSample>& samples, int64_t now);

struct PartitionForecast {
  std::string partition;
  uint32_t starts = 0;         // samples in the window
  int64_t since = 0;           // the oldest sample's start; 0 with none
  double per_place_p10 = 0;    // seconds per place: 10th, 50th, 90th percentile (linear
  double per_place_p50 = 0;    // interpolation between order statistics); 0 when starts is
  double per_place_p90 = 0;    // under kForecastMinStarts
  double passed_share = 0;     // of the starts, those that passed jobs ahead of them
  double overtaken_share = 0;  // of the starts, those that jobs first seen after them passed
  bool usable() const { return starts >= kForecastMinStarts; }
};

struct ForecastModel {
  int64_t time = 0;                           // the period it was built at; 0: no model
  std::string missing;                        // with no model: why (one clause), else empty
  std::vector<PartitionForecast> partitions;  // by name
  const PartitionForecast* find(std::string_view partition) const;
};

// The model of the samples at `now` (samples as trim_samples leaves them, or any).
ForecastModel forecast_model(std::span<const WaitSample> samples, int64_t now);

// A pending job's forecast.
struct JobForecast {
  bool estimated = false;
  std::string why_not;  // without an estimate: one clause ("it is held")
  std::string partition;
  uint32_t place = 0, of = 0;
  double central = 0, low = 0, high = 0;     // seconds from the model's time
  const PartitionForecast* model = nullptr;  // into the ForecastModel it was made from
};

// What stops a forecast for a job with squeue's Reason `reason`: an empty string when nothing
// does (Priority, Resources, none), else one clause naming it.  A job in a reservation waits
// for the reservation's nodes, not for its place in the partition's line.
std::string forecast_blocker(std::string_view reason, bool held, std::string_view reservation = {});

// The forecast of a job at `place` (1-based) of `of` in `partition`.  `blocker` is
// forecast_blocker's answer.
JobForecast forecast_job(const ForecastModel& m, std::string_view partition, uint32_t place,
                         uint32_t of, const std::string& blocker);

// A job's place in one of its partitions (1-based, of `of`).
struct PlaceInLine {
  std::string partition;
  uint32_t place = 0, of = 0;
};

// The forecast of a pending job of `q` at these places: the earliest estimate among them, else
// the first one's reason (held, a blocking Reason, no place, jobs hidden by PrivateData=jobs).
JobForecast forecast_pending(const ForecastModel& m, const Queue& q, const PendingJob& j,
                             std::span<const PlaceInLine> places);

// What the metrics publish per partition of a period's order (the partitions of `o`): the
// forecast at the head of the line and at its median place (nullopt without a usable model or
// with no job pending), and the jobs without an estimate for want of recent starts.
struct LineForecast {
  std::optional<double> head, median_place;
  uint64_t without_estimate = 0;
};
std::vector<LineForecast> line_forecasts(const ForecastModel& m, const PeriodOrder& o);

// The forecast of each job of `jobs` (its earliest over its partitions in `o`), nullopt where
// none has a usable model or the job is not in `o`.  O(jobs listed in o).
std::vector<std::optional<double>> job_forecasts(const ForecastModel& m, const PeriodOrder& o,
                                                 std::span<const uint32_t> jobs);

// Every pending job's forecast, in q.jobs' order (places from partition_queue).
std::vector<JobForecast> forecast_queue(const ForecastModel& m, const Queue& q);

}  // namespace fairway
