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
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const std::string at = "line " + std::to_string(line_no) + ": ";
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i == line.size()) break;
      size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      const std::string_view pair = line.substr(i, j - i);
      i = j;
      const size_t eq = pair.find('=');
      if (eq == std::string_view::npos || eq == 0) invalid(at + shown(pair) + " is not KEY=VALUE");
      const std::string key = ascii_lower(pair.substr(0, eq));
      const std::string_view value = pair.substr(eq + 1);
      if (!seen.insert(key).second) invalid(at + shown(pair.substr(0, eq)) + " is given twice");
      bool done = false;
      for (Factor f : kFactors) {
        if (!has_weight(f) || key != ascii_lower(factor_info(f).weight_key)) continue;
        const auto v = plain_number(value);
        if (!v || *v != std::floor(*v) || *v > 4294967295.0)
          invalid(at + shown(pair.substr(0, eq)) + "=" + shown(value) +
                  " is not a whole number from 0 to 4294967295");
        c.weights.emplace_back(factor_name(f), *v);
        done = true;
      }
      if (done) continue;
      if (key == "priorityweighttres") {
        std::set<std::string> named;
        size_t start = 0;
        while (!value.empty()) {
          size_t comma = value.find(',', start);
          const std::string_view item =
              value.substr(start, comma == std::string_view::npos ? comma : comma - start);
          const size_t teq = item.find('=');
          const auto v =
              teq == std::string_view::npos ? std::nullopt : plain_number(item.substr(teq + 1));
          if (teq == std::string_view::npos || teq == 0 || !v)
            invalid(at + "PriorityWeightTRES: " + shown(item) +
                    " is not TRES=WEIGHT (a TRES name such as CPU or GRES/gpu, a number)");
          c.weights.emplace_back(std::string(item.substr(0, teq)), *v);
          named.insert(ascii_lower(item.substr(0, teq)));
          if (comma == std::string_view::npos) break;
          start = comma + 1;
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
      invalid(at + shown(pair.substr(0, eq)) + " is not a setting a shadow policy weighs (" +
              settings_weighed() + ")");
    }
  }
  return c;
}

}  // namespace fairway
