// forecast_format.h - when a pending job may start, in words (`fairway explain`), as a table
// (`fairway forecast`, text and -P) and as JSON.  The numbers are lib/queue/forecast's.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "forecast.h"
#include "queue.h"

namespace fairway {

// explain's paragraph: the estimate and its interval (or why there is none), the evidence,
// and backfill's StartTime when it has one (`planned_start`, 0: none).  Times from `now`.
std::string format_forecast(const JobForecast& f, int64_t planned_start, int64_t now);
// "Forecast|Partition|Place|Of|Seconds|Low|High|Backfill|NoEstimate" header and one row.
std::string format_forecast_parsable(const JobForecast& f, int64_t planned_start, int64_t now);
// One JSON object: {"estimated": .., "partition": .., "place": .., "of": .., "seconds": ..,
// "low": .., "high": .., "start": T, "no_estimate": "..", "backfill_start": T or null,
// "evidence": {"starts": .., "since": T, "seconds_per_place": {..}, "passed_share": ..,
// "overtaken_share": ..}}.
std::string format_forecast_json(const JobForecast& f, int64_t planned_start, int64_t now);

// `fairway forecast`: one line per pending job (forecasts parallel to q.jobs).
std::string format_forecast_table(const Queue& q, const std::vector<JobForecast>& forecasts,
                                  int64_t now, bool parsable);
std::string format_forecast_table_json(const Queue& q, const std::vector<JobForecast>& forecasts,
                                       int64_t now);

}  // namespace fairway
