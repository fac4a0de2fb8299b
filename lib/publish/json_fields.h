// json_fields.h - reading the fields of a snapshot's JSON: each error a SnapshotError whose
// one-line message names the field.  Private to lib/publish (snapshot.cc, snapshot_queue.cc).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "snapshot.h"

namespace fairway::json_fields {

using nlohmann::json;

[[noreturn]] inline void error(const std::string& msg) { throw SnapshotError("snapshot: " + msg); }

inline std::string quoted(const std::string& s) {
  return json(s).dump(-1, ' ', true, json::error_handler_t::replace);
}

inline const char* type_name(const json& v) { return v.type_name(); }

inline const json& require(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) error(fmt::format("{}: missing key \"{}\"", where, key));
  return *it;
}

inline void reject_unknown_keys(const json& obj, std::initializer_list<const char*> known,
                                const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) error(fmt::format("{}: unknown key {}", where, quoted(it.key())));
  }
}

// An object, or an error naming what it is instead.
inline const json& require_object(const json& v, const std::string& what) {
  if (!v.is_object()) error(fmt::format("{} must be an object, not {}", what, type_name(v)));
  return v;
}

inline const json& require_array(const json& v, const std::string& what) {
  if (!v.is_array()) error(fmt::format("{} must be an array, not {}", what, type_name(v)));
  return v;
}

// A JSON integer in [lo, hi] (integer tokens only: 1.0 is not accepted).
inline uint64_t get_uint(const json& v, uint64_t lo, uint64_t hi, const std::string& what) {
  if (!v.is_number_integer())
    error(fmt::format("{} must be an integer, not {}", what, type_name(v)));
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x >= lo && x <= hi) return x;
    error(fmt::format("{} is {}, must be in [{}, {}]", what, x, lo, hi));
  }
  error(fmt::format("{} is {}, must be in [{}, {}]", what, v.get<int64_t>(), lo, hi));
}

// A JSON integer in [lo, hi], negative ones included.
inline int64_t get_int(const json& v, int64_t lo, int64_t hi, const std::string& what) {
  if (!v.is_number_integer())
    error(fmt::format("{} must be an integer, not {}", what, type_name(v)));
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
    error(fmt::format("{} is {}, must be in [{}, {}]", what, v.get<uint64_t>(), lo, hi));
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) error(fmt::format("{} is {}, must be in [{}, {}]", what, x, lo, hi));
  return x;
}

// A finite JSON number.
inline double get_double(const json& v, const std::string& what) {
  if (!v.is_number()) error(fmt::format("{} must be a number, not {}", what, type_name(v)));
  const double d = v.get<double>();
  if (!(d == d) || d - d != 0) error(fmt::format("{} is not finite", what));
  return d;
}

inline bool get_bool(const json& v, const std::string& what) {
  if (!v.is_boolean()) error(fmt::format("{} must be true or false, not {}", what, type_name(v)));
  return v.get<bool>();
}

inline std::string get_name(const json& v, const std::string& what) {
  if (!v.is_string()) error(fmt::format("{} must be a string, not {}", what, type_name(v)));
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty()) error(fmt::format("{} must not be empty", what));
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) error(fmt::format("{} contains a control character", what));
  return s;
}

// Version 2's keys (snapshot_queue.cc): read from the top-level object into s.slurm_release
// and s.queue; written as the text of those keys, each line starting with ",\n ".
void parse_queue_keys(const json& doc, Snapshot& s);
std::string write_queue_keys(const Snapshot& s);

}  // namespace fairway::json_fields
