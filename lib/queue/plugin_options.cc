// plugin_options.cc - see plugin_options.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "plugin_options.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "fairshare_tres.h"
#include "quoted_text.h"

namespace fairway {
namespace {

constexpr std::string_view kPrefix = "fairway_";
constexpr const char* kKnown =
    "fairway_metrics_dir, fairway_history_days, fairway_starvation_minutes, "
    "fairway_starvation_quantile, fairway_shadow, fairway_queue_jobs, fairway_decay, "
    "fairway_usage, fairway_rerank_interval, fairway_fairshare_tres, fairway_weigh_threads, "
    "fairway_publish_users";

// A whole number from lo to hi written in decimal digits only.
bool whole(std::string_view v, unsigned long lo, unsigned long hi, unsigned long& out) {
  if (v.empty() || v.size() > 9) return false;
  unsigned long n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<unsigned long>(c - '0');
  }
  out = n;
  return n >= lo && n <= hi;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string shown(std::string_view s) { return quoted_text(s, 80); }

}  // namespace

PluginOptions parse_priority_parameters(std::string_view text, std::vector<std::string>& problems) {
  PluginOptions o;
  bool metrics_seen = false;
  bool in_tres_list = false;  // the last option was fairway_fairshare_tres: bare items continue it
  bool tres_seen = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string_view name = trim(item.substr(0, eq));
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view() : trim(item.substr(eq + 1));
    const bool continues_list =
        in_tres_list && eq == std::string_view::npos && name.substr(0, kPrefix.size()) != kPrefix;
    if (!continues_list) in_tres_list = false;
    if (continues_list || name == "fairway_fairshare_tres") {
      if (!continues_list) {
        if (tres_seen)
          problems.push_back(
              "PriorityParameters: fairway_fairshare_tres is given more than "
              "once; the last one is used");
        tres_seen = in_tres_list = true;
        o.fairshare_tres.clear();
      }
      const std::string_view tres = continues_list ? item : value;
      if (const auto why = fairshare_tres_name_problem(tres)) {
        problems.push_back("PriorityParameters: fairway_fairshare_tres: " + shown(tres) + " is " +
                           *why + ", ignored");
        continue;
      }
      bool dup = false;
      for (const std::string& t : o.fairshare_tres)
        if (t.size() == tres.size() &&
            std::equal(t.begin(), t.end(), tres.begin(), [](char a, char b) {
              return std::tolower(static_cast<unsigned char>(a)) ==
                     std::tolower(static_cast<unsigned char>(b));
            }))
          dup = true;
      if (dup) {
        problems.push_back("PriorityParameters: fairway_fairshare_tres lists " + shown(tres) +
                           " twice; listed once");
        continue;
      }
      if (o.fairshare_tres.size() == kMaxFairShareTres) {
        problems.push_back("PriorityParameters: fairway_fairshare_tres lists more than " +
                           std::to_string(kMaxFairShareTres) + " TRES; " + shown(tres) +
                           " ignored");
        continue;
      }
      o.fairshare_tres.emplace_back(tres);
      continue;
    }
    if (name.substr(0, kPrefix.size()) != kPrefix) {
      problems.push_back("PriorityParameters: " + shown(item) +
                         " is not a Fairway option (those begin with fairway_), ignored");
      continue;
    }
    if (name == "fairway_history_days") {
      unsigned long days = 0;
      if (!whole(value, 1, 3650, days)) {
        problems.push_back("PriorityParameters: fairway_history_days=" + shown(value) +
                           " is not a whole number of days from 1 to 3650, ignored");
        continue;
      }
      o.history_days = static_cast<uint32_t>(days);
      continue;
    }
    if (name == "fairway_starvation_minutes") {
      unsigned long minutes = 0;
      if (!whole(value, 1, 525600, minutes)) {
        problems.push_back("PriorityParameters: fairway_starvation_minutes=" + shown(value) +
                           " is not a whole number of minutes from 1 to 525600, ignored");
        continue;
      }
      o.starvation_minutes = static_cast<uint32_t>(minutes);
      continue;
    }
    if (name == "fairway_starvation_quantile") {
      const std::string v(value);
      char* end = nullptr;
      const double q = v.empty() ? 0 : std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(q > 0 && q <= 1)) {
        problems.push_back("PriorityParameters: fairway_starvation_quantile=" + shown(value) +
                           " is not a number above 0 and at most 1, ignored");
        continue;
      }
      o.starvation_quantile = q;
      continue;
    }
    if (name == "fairway_queue_jobs") {
      unsigned long jobs = 0;
      if (!whole(value, 0, 10000000, jobs)) {
        problems.push_back("PriorityParameters: fairway_queue_jobs=" + shown(value) +
                           " is not a whole number of jobs from 0 to 10000000, ignored");
        continue;
      }
      o.queue_jobs = static_cast<uint32_t>(jobs);
      continue;
    }
    if (name == "fairway_decay") {
      if (value == "exact" || value == "slurm") {
        o.decay_exact = value == "exact";
        continue;
      }
      problems.push_back("PriorityParameters: fairway_decay=" + shown(value) +
                         " is not slurm or exact, ignored (usage decays as multifactor's does)");
      continue;
    }
    if (name == "fairway_publish_users") {
      if (eq == std::string_view::npos || value == "yes" || value == "no") {
        o.publish_users = value != "no";
        continue;
      }
      problems.push_back("PriorityParameters: fairway_publish_users=" + shown(value) +
                         " is not yes or no, ignored (users are published as PrivateData "
                         "allows)");
      continue;
    }
    if (name == "fairway_rerank_interval") {
      unsigned long secs = 0;
      if (!whole(value, 0, 3600, secs)) {
        problems.push_back("PriorityParameters: fairway_rerank_interval=" + shown(value) +
                           " is not a whole number of seconds from 0 to 3600, ignored");
        continue;
      }
      o.rerank_interval = static_cast<uint32_t>(secs);
      continue;
    }
    if (name == "fairway_weigh_threads") {
      unsigned long n = 0;
      if (!whole(value, 1, kMaxWeighThreads, n)) {
        problems.push_back("PriorityParameters: fairway_weigh_threads=" + shown(value) +
                           " is not a whole number of threads from 1 to " +
                           std::to_string(kMaxWeighThreads) + ", ignored");
        continue;
      }
      o.weigh_threads = static_cast<uint32_t>(n);
      continue;
    }
    if (name == "fairway_usage") {
      if (const auto b = parse_usage_basis(value)) {
        o.usage_basis = *b;
        continue;
      }
      problems.push_back("PriorityParameters: fairway_usage=" + shown(value) +
                         " is not historical, allocated or committed, ignored (fair-share "
                         "compares historical usage, as multifactor's does)");
      continue;
    }
    if (name != "fairway_metrics_dir" && name != "fairway_shadow") {
      problems.push_back("PriorityParameters: unknown option " + shown(name) +
                         ", ignored (the options are: " + kKnown + ")");
      continue;
    }
    const bool metrics = name == "fairway_metrics_dir";
    const std::string opt(name);
    if (eq == std::string_view::npos || value.empty()) {
      problems.push_back(
          "PriorityParameters: " + opt + " needs " +
          (metrics ? "a directory (fairway_metrics_dir=/path)" : "a file (fairway_shadow=/path)") +
          ", ignored");
      continue;
    }
    if (value.front() != '/' || value.size() > kMaxOptionPath ||
        value.find('\0') != std::string_view::npos) {
      problems.push_back(
          "PriorityParameters: " + opt + "=" + shown(value) + " is not an absolute path" +
          (value.size() > kMaxOptionPath ? " of at most 4000 bytes" : "") + ", ignored");
      continue;
    }
    if (!metrics) {
      if (!o.shadow_file.empty())
        problems.push_back(
            "PriorityParameters: fairway_shadow is given more than once; the "
            "last one is used");
      o.shadow_file = std::string(value);
      continue;
    }
    if (metrics_seen)
      problems.push_back(
          "PriorityParameters: fairway_metrics_dir is given more than once; the "
          "last one is used");
    metrics_seen = true;
    o.metrics_dir = std::string(value);
    while (o.metrics_dir.size() > 1 && o.metrics_dir.back() == '/') o.metrics_dir.pop_back();
  }
  if (!o.shadow_file.empty() && o.metrics_dir.empty()) {
    problems.push_back("PriorityParameters: fairway_shadow=" + shown(o.shadow_file) +
                       " needs fairway_metrics_dir (where its results are published), ignored");
    o.shadow_file.clear();
  }
  if (o.rerank_interval && o.usage_basis == UsageBasis::kHistorical) {
    problems.push_back(
        "PriorityParameters: fairway_rerank_interval needs fairway_usage=allocated "
        "or committed (historical usage changes only at periods), ignored");
    o.rerank_interval = 0;
  }
  return o;
}

}  // namespace fairway

namespace fairway {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::vector<OptionsLine> settle_options(PluginOptions& o, Algorithm algo,
                                        const std::vector<std::string>& tracked, OptionsSaid& said,
                                        std::vector<int>& positions) {
  std::vector<OptionsLine> lines;
  const bool depth_oblivious = algo == Algorithm::kDepthOblivious;

  // fairway_usage: one line when read other than historical, one whenever it changes.
  if (o.usage_basis != UsageBasis::kHistorical && depth_oblivious) {
    lines.push_back({true, std::string("PriorityParameters: fairway_usage=") +
                               usage_basis_name(o.usage_basis) +
                               " applies to Fair Tree and classic fair-share, not "
                               "depth-oblivious; ignored (fair-share compares historical usage)"});
    o.usage_basis = UsageBasis::kHistorical;
    o.rerank_interval = 0;
  }
  if (o.usage_basis != said.usage_basis) {
    switch (o.usage_basis) {
      case UsageBasis::kAllocated:
        lines.push_back({false,
                         "fair-share compares the billable TRES running jobs hold now with shares "
                         "(fairway_usage=allocated); RawUsage stays historical usage"});
        break;
      case UsageBasis::kCommitted:
        lines.push_back({false,
                         "fair-share compares the billable TRES running jobs hold, times the time "
                         "left to their time limits, with shares (fairway_usage=committed); "
                         "RawUsage stays historical usage"});
        break;
      case UsageBasis::kHistorical:
        lines.push_back(
            {false, "fair-share compares historical usage with shares, as multifactor's does"});
        break;
    }
    said.usage_basis = o.usage_basis;
  }

  // fairway_fairshare_tres: the listed TRES slurmctld tracks, one line when the list changes.
  if (!o.fairshare_tres.empty() && depth_oblivious) {
    lines.push_back({true,
                     "PriorityParameters: fairway_fairshare_tres applies to Fair Tree and classic "
                     "fair-share, not depth-oblivious; ignored (every job's fair-share compares "
                     "billing)"});
    o.fairshare_tres.clear();
  }
  std::vector<std::string> kept;
  std::string list;
  positions.clear();
  for (std::string& name : o.fairshare_tres) {
    const auto at = std::find_if(tracked.begin(), tracked.end(),
                                 [&](const std::string& t) { return same_name(t, name); });
    if (at == tracked.end()) {
      lines.push_back({true, "PriorityParameters: fairway_fairshare_tres: " + name +
                                 " is not a TRES slurmctld tracks (AccountingStorageTRES), "
                                 "ignored"});
      continue;
    }
    positions.push_back(static_cast<int>(at - tracked.begin()));
    if (!list.empty()) list += ',';
    list += name;
    kept.push_back(std::move(name));
  }
  o.fairshare_tres = std::move(kept);
  if (list != said.fairshare_tres) {
    if (!list.empty())
      lines.push_back({false, "a job that mostly asks for one of " + list +
                                  " gets the fair-share factor of its association's usage of it, "
                                  "every other job billing's (fairway_fairshare_tres)"});
    else
      lines.push_back(
          {false, "every job's fair-share factor compares billing, as multifactor's does"});
    said.fairshare_tres = list;
  }
  return lines;
}

}  // namespace fairway
