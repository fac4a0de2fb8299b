// plugin_options.cc - see plugin_options.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "plugin_options.h"

#include <cstdlib>

namespace fairway {
namespace {

constexpr std::string_view kPrefix = "fairway_";
constexpr const char* kKnown =
    "fairway_metrics_dir, fairway_history_days, fairway_starvation_minutes, "
    "fairway_starvation_quantile";

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

// The option as the message quotes it: printable ASCII, anything else as \xNN, at most 80.
std::string shown(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (char ch : s.substr(0, 80)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      out += ch;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > 80) out += "...";
  return "'" + out + "'";
}

}  // namespace

PluginOptions parse_priority_parameters(std::string_view text, std::vector<std::string>& problems) {
  PluginOptions o;
  bool metrics_seen = false;
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
    if (name != "fairway_metrics_dir") {
      problems.push_back("PriorityParameters: unknown option " + shown(name) +
                         ", ignored (the options are: " + kKnown + ")");
      continue;
    }
    if (eq == std::string_view::npos || value.empty()) {
      problems.push_back("PriorityParameters: fairway_metrics_dir needs a directory "
                         "(fairway_metrics_dir=/path), ignored");
      continue;
    }
    if (value.front() != '/' || value.size() > kMaxOptionPath ||
        value.find('\0') != std::string_view::npos) {
      problems.push_back("PriorityParameters: fairway_metrics_dir=" + shown(value) +
                         " is not an absolute path" +
                         (value.size() > kMaxOptionPath ? " of at most 4000 bytes" : "") +
                         ", ignored");
      continue;
    }
    if (metrics_seen)
      problems.push_back("PriorityParameters: fairway_metrics_dir is given more than once; the "
                         "last one is used");
    metrics_seen = true;
    o.metrics_dir = std::string(value);
    while (o.metrics_dir.size() > 1 && o.metrics_dir.back() == '/') o.metrics_dir.pop_back();
  }
  return o;
}

}  // namespace fairway
