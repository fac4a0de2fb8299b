// forecast_command.h - `fairway forecast [--snapshot FILE] [--forecast FILE]`: when each
// pending job may start (lib/queue/forecast.h), one line per job, and the model `fairway
// explain JOBID` reads for its "When it may start" paragraph.
//
// The model is the fairway_forecast.json the plugin writes each period beside fairway.prom
// (PriorityParameters fairway_metrics_dir, with fairway_history_days): live, the one in
// slurmctld's fairway_metrics_dir; with --snapshot FILE, the one beside FILE; --forecast FILE
// names another.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "forecast.h"

namespace fairway_cli {

// The model for a snapshot file ("" live) or the file given; a model with time 0 and
// `missing` set (one clause) when there is none or it cannot be read.  Needs slurm_init for
// the live case.
fairway::ForecastModel load_forecast_model(const std::string& snapshot,
                                           const std::string& forecast_file);

struct ForecastArgs {
  std::string snapshot;  // "" = live
  std::string forecast;  // "" = the published one
  bool json = false, parsable = false;
};
int cmd_forecast(const ForecastArgs& a);

}  // namespace fairway_cli
