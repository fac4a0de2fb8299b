// forecast_file.cc - see forecast_file.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "forecast_file.h"

#include <nlohmann/json.hpp>

#include "error.h"

namespace fairway {
namespace {

using json = nlohmann::ordered_json;

}  // namespace

std::string forecast_model_json(const ForecastModel& m) {
  json j;
  j["version"] = 1;
  j["time"] = m.time;
  json& parts = j["partitions"] = json::array();
  for (const PartitionForecast& p : m.partitions) {
    json e;
    e["name"] = p.partition;
    e["starts"] = p.starts;
    e["since"] = p.since;
    if (p.usable())
      e["seconds_per_place"] = {
          {"p10", p.per_place_p10}, {"p50", p.per_place_p50}, {"p90", p.per_place_p90}};
    else
      e["seconds_per_place"] = nullptr;
    e["passed_share"] = p.passed_share;
    e["overtaken_share"] = p.overtaken_share;
    parts.push_back(std::move(e));
  }
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

ForecastModel parse_forecast_model(std::string_view text) {
  try {
    const json j = json::parse(text);
    if (j.at("version").get<int>() != 1)
      throw Error(Errc::kParse, "forecast: version " + j.at("version").dump() + " is not 1");
    ForecastModel m;
    m.time = j.at("time").get<int64_t>();
    for (const json& e : j.at("partitions")) {
      PartitionForecast p;
      p.partition = e.at("name").get<std::string>();
      p.starts = e.at("starts").get<uint32_t>();
      p.since = e.at("since").get<int64_t>();
      p.passed_share = e.at("passed_share").get<double>();
      p.overtaken_share = e.value("overtaken_share", 0.0);  // (absent from older files)
      const json& s = e.at("seconds_per_place");
      if (!s.is_null()) {
        p.per_place_p10 = s.at("p10").get<double>();
        p.per_place_p50 = s.at("p50").get<double>();
        p.per_place_p90 = s.at("p90").get<double>();
      }
      if (p.usable() && !(p.per_place_p10 >= 0 && p.per_place_p10 <= p.per_place_p50 &&
                          p.per_place_p50 <= p.per_place_p90))
        throw Error(Errc::kParse, "forecast: partition " + p.partition +
                                      ": seconds_per_place are not 0 <= p10 <= p50 <= p90");
      if (p.usable() && s.is_null())
        throw Error(Errc::kParse, "forecast: partition " + p.partition +
                                      ": no seconds_per_place for " + std::to_string(p.starts) +
                                      " starts");
      m.partitions.push_back(std::move(p));
    }
    return m;
  } catch (const json::exception& e) {
    throw Error(Errc::kParse, std::string("forecast: ") + e.what());
  }
}

}  // namespace fairway
