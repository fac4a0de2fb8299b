// shadow_policy.cc - see shadow_policy.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "shadow_policy.h"

#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "conf_values.h"
#include "error.h"
#include "quoted_text.h"
#include "slurm_conf_text.h"

namespace fairway {
namespace {

std::string shown(std::string_view s) { return quoted_text(s, 60); }

// The settings a shadow policy weighs, as slurm.conf names them.
std::string settings_weighed() {
  std::string names;
  for (Factor f : kFactors)
    if (has_weight(f)) names += std::string(factor_info(f).weight_key) + ", ";
  return names + "PriorityWeightTRES, PriorityMaxAge, PriorityFlags";
}

}  // namespace

WhatIfChange parse_shadow_policy(std::string_view text, const PrioritySettings& live) {
  if (text.size() > kMaxShadowPolicyBytes)
    invalid("the shadow policy is larger than 64 KiB; it holds a few slurm.conf lines");
  WhatIfChange c;
  std::set<std::string> seen;
  for (const auto& line : slurm_conf_lines(text, "line")) {
    for (const ConfPair& kv : line) {
      const std::string at = "line " + std::to_string(kv.line) + ": ";
      const std::string& key = kv.key;
      const std::string_view value = kv.value;
      const std::string_view pair_key = kv.name;
      if (!seen.insert(key).second) invalid(at + shown(pair_key) + " is given twice");
      bool done = false;
      for (Factor f : kFactors) {
        if (!has_weight(f) || key != ascii_lower(factor_info(f).weight_key)) continue;
        const auto v = plain_number(value);
        if (!v || *v != std::floor(*v) || *v > 4294967295.0)
          invalid(at + shown(pair_key) + "=" + shown(value) +
                  " is not a whole number from 0 to 4294967295");
        c.weights.emplace_back(factor_name(f), *v);
        done = true;
      }
      if (done) continue;
      if (key == "priorityweighttres") {
        std::string bad;
        const auto tres = parse_tres_weights(value, bad);
        if (!tres)
          invalid(at + "PriorityWeightTRES: " + shown(bad) +
                  " is not TRES=WEIGHT (a TRES name such as CPU or GRES/gpu, a number)");
        std::set<std::string> named;
        for (const auto& [name, weight] : *tres) {
          c.weights.emplace_back(name, weight);
          named.insert(ascii_lower(name));
        }
        // As in slurm.conf, the list replaces the live one: a TRES it leaves out weighs 0.
        for (const auto& [name, weight] : live.weight_tres)
          if (!named.count(ascii_lower(name)) && weight != 0) c.weights.emplace_back(name, 0.0);
        continue;
      }
      if (key == "prioritymaxage") {
        c.max_age = parse_max_age(value);
        if (!c.max_age)
          invalid(at + "PriorityMaxAge=" + shown(value) +
                  " is not a time as slurm.conf takes it (minutes, or "
                  "[DAYS-]HOURS:MINUTES[:SECONDS])");
        continue;
      }
      if (key == "priorityflags") {
        std::string unknown;
        c.flags = parse_priority_flags(value, unknown);
        if (!c.flags) invalid(at + "PriorityFlags: unknown flag " + shown(unknown));
        continue;
      }
      invalid(at + shown(pair_key) + " is not a setting a shadow policy weighs (" +
              settings_weighed() + ")");
    }
  }
  return c;
}

}  // namespace fairway
