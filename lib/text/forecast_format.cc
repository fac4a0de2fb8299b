// forecast_format.cc - see forecast_format.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "forecast_format.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "words.h"

namespace fairway {
namespace {

using json = nlohmann::ordered_json;

std::string when(int64_t t, int64_t now) {
  const int64_t in = t - now;
  return local_time_text(t, "%Y-%m-%d %H:%M") +
         (in >= 0 ? " (in " + duration_words(static_cast<double>(in)) + ")"
                  : " (" + duration_words(static_cast<double>(-in)) + " ago)");
}

int64_t at(int64_t now, double seconds) { return now + std::llround(seconds); }

json forecast_object(const JobForecast& f, int64_t planned_start, int64_t now) {
  json o;
  o["estimated"] = f.estimated;
  o["partition"] = f.partition;
  o["place"] = f.place;
  o["of"] = f.of;
  if (f.estimated) {
    o["seconds"] = std::llround(f.central);
    o["low"] = std::llround(f.low);
    o["high"] = std::llround(f.high);
    o["start"] = at(now, f.central);
    o["no_estimate"] = nullptr;
  } else {
    o["seconds"] = o["low"] = o["high"] = o["start"] = nullptr;
    o["no_estimate"] = f.why_not;
  }
  o["backfill_start"] = planned_start ? json(planned_start) : json();
  if (f.model) {
    json& e = o["evidence"];
    e["starts"] = f.model->starts;
    e["since"] = f.model->since;
    if (f.model->usable())
      e["seconds_per_place"] = {{"p10", f.model->per_place_p10},
                                {"p50", f.model->per_place_p50},
                                {"p90", f.model->per_place_p90}};
    else
      e["seconds_per_place"] = nullptr;
    e["passed_share"] = f.model->passed_share;
    e["overtaken_share"] = f.model->overtaken_share;
  } else {
    o["evidence"] = nullptr;
  }
  return o;
}

}  // namespace

std::string format_forecast(const JobForecast& f, int64_t planned_start, int64_t now) {
  std::string out = "\nWhen it may start: ";
  if (!f.estimated) {
    out += "no estimate, because " + f.why_not + ".";
  } else {
    out += fmt::format(
        "most likely within {} ({}); 8 in 10 jobs at such a place start between {} and {} "
        "from now.",
        duration_words(f.central), local_time_text(at(now, f.central), "%Y-%m-%d %H:%M"),
        duration_words(f.low), duration_words(f.high));
    const PartitionForecast& m = *f.model;
    out += fmt::format(
        "\nEvidence: it is {} of {} in {}; the last {} jobs to start in {} (since {}) waited a "
        "median {} per place ahead of them in line (8 in 10: {} to {}); {:.0f}% of them were "
        "overtaken by jobs that joined the line after them, and {:.0f}% passed jobs that were "
        "ahead of them.",
        ordinal(f.place), f.of, f.partition, m.starts, f.partition,
        local_time_text(m.since, "%Y-%m-%d %H:%M"), duration_words(m.per_place_p50),
        duration_words(m.per_place_p10), duration_words(m.per_place_p90), 100.0 * m.overtaken_share,
        100.0 * m.passed_share);
  }
  if (planned_start)
    out += " Backfill plans its start for " + when(planned_start, now) +
           ", from the time limits of the jobs running and ahead.";
  return wrap(out + "\n");
}

std::string format_forecast_parsable(const JobForecast& f, int64_t planned_start, int64_t now) {
  (void)now;
  std::string out = "Forecast|Partition|Place|Of|Seconds|Low|High|Backfill|NoEstimate\n";
  out += fmt::format("forecast|{}|{}|{}|{}|{}|{}|{}|{}\n", f.partition, f.place, f.of,
                     f.estimated ? std::to_string(std::llround(f.central)) : "",
                     f.estimated ? std::to_string(std::llround(f.low)) : "",
                     f.estimated ? std::to_string(std::llround(f.high)) : "",
                     planned_start ? std::to_string(planned_start) : "", f.why_not);
  return out;
}

std::string format_forecast_json(const JobForecast& f, int64_t planned_start, int64_t now) {
  return forecast_object(f, planned_start, now)
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string format_forecast_table(const Queue& q, const std::vector<JobForecast>& forecasts,
                                  int64_t now, bool parsable) {
  std::string out = parsable ? "JobID|Partition|Place|Of|Seconds|Low|High|Backfill|NoEstimate\n"
                             : fmt::format("{:>10} {:<12} {:>9} {:>12} {:>24} {:<16}  {}\n",
                                           "JOBID", "PARTITION", "PLACE", "LIKELY IN",
                                           "8 IN 10 WITHIN", "BACKFILL", "NO ESTIMATE BECAUSE");
  for (size_t i = 0; i < q.jobs.size() && i < forecasts.size(); i++) {
    const PendingJob& j = q.jobs[i];
    const JobForecast& f = forecasts[i];
    const std::string id = std::to_string(j.id);
    if (parsable) {
      out += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}\n", id, f.partition, f.place, f.of,
                         f.estimated ? std::to_string(std::llround(f.central)) : "",
                         f.estimated ? std::to_string(std::llround(f.low)) : "",
                         f.estimated ? std::to_string(std::llround(f.high)) : "",
                         j.planned_start ? std::to_string(j.planned_start) : "", f.why_not);
      continue;
    }
    const std::string place = f.place ? fmt::format("{}/{}", f.place, f.of) : "-";
    out += fmt::format("{:>10} {:<12} {:>9} {:>12} {:>24} {:<16}  {}\n", id, f.partition, place,
                       f.estimated ? duration_words(f.central) : "-",
                       f.estimated ? duration_words(f.low) + " to " + duration_words(f.high) : "-",
                       j.planned_start ? local_time_text(j.planned_start, "%m-%d %H:%M") : "-",
                       f.why_not);
  }
  (void)now;
  return out;
}

std::string format_forecast_table_json(const Queue& q, const std::vector<JobForecast>& forecasts,
                                       int64_t now) {
  json out = json::array();
  for (size_t i = 0; i < q.jobs.size() && i < forecasts.size(); i++) {
    json o = forecast_object(forecasts[i], q.jobs[i].planned_start, now);
    o["job"] = q.jobs[i].id;
    out.push_back(std::move(o));
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace fairway
