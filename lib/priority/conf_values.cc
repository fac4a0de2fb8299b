// conf_values.cc - see conf_values.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "conf_values.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "priority_flag_names.h"

namespace fairway {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<double> plain_number(std::string_view text) {
  if (text.empty() || text.size() > 40) return std::nullopt;
  size_t dots = 0;
  for (char c : text) {
    if (c == '.')
      ++dots;
    else if (c < '0' || c > '9')
      return std::nullopt;
  }
  if (dots > 1 || text == ".") return std::nullopt;
  return std::strtod(std::string(text).c_str(), nullptr);
}

std::optional<uint32_t> parse_max_age(std::string_view text) {
  std::vector<uint64_t> f;
  uint64_t days = 0;
  bool has_days = false;
  std::string_view rest = text;
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) {
    const auto d = plain_number(text.substr(0, dash));
    if (!d || *d != std::floor(*d) || *d > 49710) return std::nullopt;  // 2^32 s
    days = static_cast<uint64_t>(*d);
    has_days = true;
    rest = text.substr(dash + 1);
  }
  size_t start = 0;
  while (true) {
    const size_t colon = rest.find(':', start);
    const auto v = plain_number(rest.substr(
        start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (!v || *v != std::floor(*v) || *v > 1e9) return std::nullopt;
    f.push_back(static_cast<uint64_t>(*v));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  uint64_t seconds = 0;
  if (has_days) {
    if (f.size() > 3) return std::nullopt;
    seconds =
        days * 86400 + f[0] * 3600 + (f.size() > 1 ? f[1] * 60 : 0) + (f.size() > 2 ? f[2] : 0);
  } else if (f.size() == 1) {
    seconds = f[0] * 60;
  } else if (f.size() == 2) {
    seconds = f[0] * 60 + f[1];
  } else if (f.size() == 3) {
    seconds = f[0] * 3600 + f[1] * 60 + f[2];
  } else {
    return std::nullopt;
  }
  // slurm.conf keeps PriorityMaxAge in whole minutes, a part of one counting as one.
  seconds = (seconds + 59) / 60 * 60;
  if (seconds > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(seconds);
}

std::optional<uint32_t> parse_priority_flags(std::string_view text, std::string& unknown) {
  std::string list(text);
  for (char& ch : list) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (list.empty() || list == "NONE") return 0u;
  uint32_t bits = 0;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma == std::string::npos ? comma : comma - start);
    const uint32_t bit = priority_flag_bit(name);
    if (!bit && name != "FAIR_TREE") {
      unknown = name;
      return std::nullopt;
    }
    bits |= bit;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bits;
}

std::optional<std::vector<std::pair<std::string, double>>> parse_tres_weights(std::string_view text,
                                                                              std::string& bad) {
  std::vector<std::pair<std::string, double>> out;
  size_t start = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',', start);
    const std::string_view item =
        text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    const size_t eq = item.find('=');
    const auto w = eq == std::string_view::npos ? std::nullopt : plain_number(item.substr(eq + 1));
    if (eq == std::string_view::npos || eq == 0 || !w) {
      bad = std::string(item);
      return std::nullopt;
    }
    out.emplace_back(std::string(item.substr(0, eq)), *w);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace fairway
