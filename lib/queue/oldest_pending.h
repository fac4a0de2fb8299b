// oldest_pending.h - each association's oldest eligible pending job, its descendants' jobs
// included: how long it has waited (fairway_association_oldest_pending_seconds) and its
// forecast (fairway_association_oldest_pending_forecast_seconds).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "assoc_tree.h"
#include "forecast.h"
#include "starvation.h"

namespace fairway {

// Per association (tree index), its oldest eligible pending job: (eligible time, job id), or
// (INT64_MAX, 0) where it has none.  A job not yet eligible counts nowhere.
std::vector<std::pair<int64_t, uint32_t>> oldest_pending(const AssocTree& t,
                                                         std::span<const PendingJobNote> jobs);

// (tree index, seconds) of each association with one: how long it has been eligible at `now`
// (at least 0).
std::vector<std::pair<uint32_t, double>> oldest_waits(
    std::span<const std::pair<int64_t, uint32_t>> oldest, int64_t now);

// (tree index, seconds) of each association whose oldest job has a forecast in `o` (its
// earliest over its partitions).
std::vector<std::pair<uint32_t, double>> oldest_forecasts(
    const ForecastModel& m, const PeriodOrder& o,
    std::span<const std::pair<int64_t, uint32_t>> oldest);

}  // namespace fairway
