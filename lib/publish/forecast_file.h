// forecast_file.h - the forecast model as each period publishes it, in fairway_forecast.json
// beside fairway.prom (mode 0644: it names partitions only, no job, user or account), for
// `fairway explain` and `fairway forecast` run by any user:
//   {"version": 1, "time": T, "partitions": [{"name": "debug", "starts": 120, "since": T,
//     "seconds_per_place": {"p10": 3.5, "p50": 20, "p90": 75} or null,
//     "passed_share": 0.12, "overtaken_share": 0.3}, ...]}
// seconds_per_place is null for a partition with too few starts (forecast.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <string_view>

#include "forecast.h"

namespace fairway {

inline constexpr const char* kForecastFile = "fairway_forecast.json";

std::string forecast_model_json(const ForecastModel& m);
// Throws Error(Errc::kParse) naming what is wrong.
ForecastModel parse_forecast_model(std::string_view text);

}  // namespace fairway
