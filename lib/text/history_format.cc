// history_format.cc - see history_format.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "history_format.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "words.h"

namespace fairway {
namespace {

std::string ratio(const HistoryRecord& r) {
  if (r.entitled <= 0) return "";
  return fmt::format("{:.3f}", static_cast<double>(r.delivered) / r.entitled);
}

// The factor, empty when there is none (an account without users' records).
std::string factor(float f) { return std::isnan(f) ? std::string() : fmt::format("{:.6f}", f); }

// Raw usage without decimals, in scientific notation past kScientificFrom.
std::string usage(double u) {
  return std::fabs(u) >= kScientificFrom ? fmt::format("{:.6e}", u) : fmt::format("{:.0f}", u);
}

std::string who(const HistorySeries& s) {
  return s.user.empty() ? "account " + s.account : "user " + s.user + " in account " + s.account;
}

}  // namespace

std::vector<HistorySeries> history_series(const HistoryData& data, const std::string& account,
                                          const std::string& user) {
  std::map<uint32_t, HistorySeries> by_id;
  for (const HistoryName& n : data.names)
    if (n.account == account && n.user == user) by_id[n.id] = {n.id, n.account, n.user, {}, {}};
  for (const HistoryPeriod& p : data.periods)
    for (const HistoryRecord& r : p.records) {
      auto it = by_id.find(r.id);
      if (it == by_id.end()) continue;
      it->second.times.push_back(p.time);
      it->second.records.push_back(r);
    }
  // An account's factor is the highest among the users directly under it (fairway(1)), what
  // its users' jobs get at best; NaN in a period where none of them has a record.
  if (user.empty() && !by_id.empty()) {
    std::map<uint32_t, bool> users;
    for (const HistoryName& n : data.names)
      if (n.account == account && !n.user.empty()) users[n.id] = true;
    for (auto& [id, s] : by_id)
      for (size_t i = 0; i < s.times.size(); ++i) {
        float best = std::numeric_limits<float>::quiet_NaN();
        for (const HistoryPeriod& p : data.periods) {
          if (p.time != s.times[i]) continue;
          for (const HistoryRecord& r : p.records)
            if (users.count(r.id) && !(r.fs_factor <= best)) best = r.fs_factor;
          break;
        }
        s.records[i].fs_factor = best;
      }
  }
  std::vector<HistorySeries> out;
  for (auto& [id, s] : by_id) out.push_back(std::move(s));
  return out;
}

std::string format_history(const std::vector<HistorySeries>& series) {
  std::string out;
  for (const HistorySeries& s : series) {
    if (!out.empty()) out += "\n";
    out += fmt::format("Fair-share of {} (association {}): {} period{}\n", who(s), s.id,
                       s.times.size(), s.times.size() == 1 ? "" : "s");
    if (s.times.empty()) continue;
    out += fmt::format("{:<19}  {:>14}  {:>9}  {:>9}  {:>6}  {:>9}\n", "Time", "RawUsage",
                       "Delivered", "Entitled", "Ratio", "FairShare");
    for (size_t i = 0; i < s.times.size(); i++) {
      const HistoryRecord& r = s.records[i];
      out += fmt::format("{:<19}  {:>14}  {:>9.6f}  {:>9.6f}  {:>6}  {:>9}\n",
                         local_time_text(s.times[i]), usage(r.usage_raw), r.delivered, r.entitled,
                         ratio(r), factor(r.fs_factor));
    }
  }
  return out;
}

std::string format_history_parsable(const std::vector<HistorySeries>& series) {
  std::string out = "Account|User|Time|RawUsage|Delivered|Entitled|Ratio|FairShare\n";
  for (const HistorySeries& s : series)
    for (size_t i = 0; i < s.times.size(); i++) {
      const HistoryRecord& r = s.records[i];
      out += fmt::format("{}|{}|{}|{:.0f}|{:.6f}|{:.6f}|{}|{}\n", s.account, s.user,
                         local_time_text(s.times[i]), r.usage_raw, r.delivered, r.entitled,
                         ratio(r), factor(r.fs_factor));
    }
  return out;
}

std::string format_history_json(const std::vector<HistorySeries>& series) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const HistorySeries& s : series) {
    nlohmann::ordered_json j;
    j["id"] = s.id;
    j["account"] = s.account;
    j["user"] = s.user.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.user);
    j["periods"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < s.times.size(); i++) {
      const HistoryRecord& r = s.records[i];
      nlohmann::ordered_json p;
      p["time"] = s.times[i];
      p["raw_usage"] = r.usage_raw;
      p["delivered"] = r.delivered;
      p["entitled"] = r.entitled;
      p["ratio"] = r.entitled > 0
                       ? nlohmann::ordered_json(static_cast<double>(r.delivered) / r.entitled)
                       : nlohmann::ordered_json();
      p["fairshare"] =
          std::isnan(r.fs_factor) ? nlohmann::ordered_json() : nlohmann::ordered_json(r.fs_factor);
      j["periods"].push_back(std::move(p));
    }
    out.push_back(std::move(j));
  }
  return out.dump();
}

}  // namespace fairway
