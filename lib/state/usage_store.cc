// usage_store.cc - see usage_store.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "usage_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "atomic_file.h"
#include "error.h"

namespace fairway {
namespace {

constexpr size_t kMaxFile = size_t{1} << 30;

[[noreturn]] void parse_error(const std::string& where, size_t line, const std::string& why) {
  throw Error(Errc::kParse, where + " line " + std::to_string(line) + ": " + why);
}

std::string hex(long double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%La", v);
  return buf;
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return buf;
}

// Split a line on single spaces.
std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= line.size()) {
    const size_t sp = line.find(' ', pos);
    const size_t end = sp == std::string_view::npos ? line.size() : sp;
    out.push_back(line.substr(pos, end - pos));
    if (sp == std::string_view::npos) break;
    pos = sp + 1;
  }
  return out;
}

bool to_u32(std::string_view s, uint32_t* out) {
  if (s.empty() || s.size() > 10) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > UINT32_MAX) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

bool to_time(std::string_view s, time_t* out) {
  if (s.empty() || s.size() > 19) return false;
  // 19 digits can exceed INT64_MAX: accumulate unsigned (no overflow below 20 digits) and
  // range-check before the conversion (found by fuzzing).
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > static_cast<uint64_t>(std::numeric_limits<time_t>::max())) return false;
  *out = static_cast<time_t>(v);
  return true;
}

// A finite, non-negative floating value (usage never goes below zero).
template <typename T>
bool to_float(std::string_view s, T* out) {
  if (s.empty() || s.size() > 48) return false;
  const std::string str(s);
  char* end = nullptr;
  errno = 0;
  const long double v = std::strtold(str.c_str(), &end);
  if (end != str.c_str() + str.size() || errno == ERANGE || !std::isfinite(v) || v < 0)
    return false;
  // A value finite as long double can overflow the field's type (found by fuzzing).
  if (v > static_cast<long double>(std::numeric_limits<T>::max())) return false;
  *out = static_cast<T>(v);
  return true;
}

std::string read_small_file(const std::string& path, bool* exists) {
  return read_whole_file(path, exists, kMaxFile);
}

}  // namespace

void append_usage_header(std::string& out, time_t period) {
  out += "fairway-usage 1 " + std::to_string(static_cast<int64_t>(period)) + "\n";
}

void append_usage_line(std::string& out, char kind, const UsageEntry& e) {
  out += kind;
  out += " " + std::to_string(e.id) + " " + hex(e.usage_raw) + " " + hex(e.grp_used_wall) + "\n";
}

void append_usage_end(std::string& out, size_t count) {
  out += "end " + std::to_string(count) + "\n";
}

std::string format_usage(const UsageSnapshot& s) {
  std::string out;
  append_usage_header(out, s.period);
  for (const auto& e : s.assocs) append_usage_line(out, 'a', e);
  for (const auto& e : s.qos) append_usage_line(out, 'q', e);
  append_usage_end(out, s.assocs.size() + s.qos.size());
  return out;
}

UsageSnapshot parse_usage(std::string_view text) {
  UsageSnapshot s;
  size_t line_no = 0, pos = 0;
  bool header = false, ended = false;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) parse_error("usage file", line_no + 1, "no newline");
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    line_no++;
    if (ended) parse_error("usage file", line_no, "text after the end line");
    const auto f = fields(line);
    if (!header) {
      // Another format version (a newer Fairway's file, after a downgrade) is refused
      // naming the version, so that the log says why this usage was not restored.
      if (f.size() == 3 && f[0] == "fairway-usage" && f[1] != "1")
        parse_error(
            "usage file", line_no,
            "format version " + std::string(f[1].substr(0, 16)) + ", this Fairway reads version 1");
      if (f.size() != 3 || f[0] != "fairway-usage" || f[1] != "1" || !to_time(f[2], &s.period))
        parse_error("usage file", line_no, "not a 'fairway-usage 1 <time>' header");
      header = true;
      continue;
    }
    if (f.size() == 2 && f[0] == "end") {
      uint32_t n;
      if (!to_u32(f[1], &n) || n != s.assocs.size() + s.qos.size())
        parse_error("usage file", line_no, "the end line's count does not match");
      ended = true;
      continue;
    }
    UsageEntry e;
    if (f.size() != 4 || (f[0] != "a" && f[0] != "q") || !to_u32(f[1], &e.id) ||
        !to_float(f[2], &e.usage_raw) || !to_float(f[3], &e.grp_used_wall))
      parse_error("usage file", line_no, "malformed entry");
    (f[0] == "a" ? s.assocs : s.qos).push_back(e);
  }
  if (!header) parse_error("usage file", 1, "empty");
  if (!ended) parse_error("usage file", line_no, "truncated (no end line)");
  return s;
}

std::optional<UsageSnapshot> read_usage_file(const std::string& path) {
  bool exists = false;
  const std::string data = read_small_file(path, &exists);
  if (!exists) return std::nullopt;
  try {
    return parse_usage(data);
  } catch (const Error& e) {
    throw Error(Errc::kParse, path + ": " + e.what());
  }
}

void write_usage_file(const std::string& path, const UsageSnapshot& s) {
  write_file_atomically(path, format_usage(s));
}

std::string format_journal_line(const JournalEntry& e) {
  return std::string(e.ended ? "e " : "c ") + std::to_string(static_cast<int64_t>(e.epoch)) + " " +
         std::to_string(e.job_id) + " " + std::to_string(e.assoc_id) + " " + hex(e.real) + " " +
         hex(e.run) + " " + std::to_string(e.qos_id) + " " + hex(e.qos_usage) + " " +
         hex(e.qos_wall) + " " + std::to_string(e.part_qos_id) + " " + hex(e.part_qos_usage) + " " +
         hex(e.part_qos_wall) + "\n";
}

std::vector<JournalEntry> parse_journal(std::string_view text) {
  std::vector<JournalEntry> out;
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;  // torn last line: ignored
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    line_no++;
    const auto f = fields(line);
    JournalEntry e;
    if (f.size() != 12 || (f[0] != "e" && f[0] != "c") || !to_time(f[1], &e.epoch) ||
        !to_u32(f[2], &e.job_id) || !to_u32(f[3], &e.assoc_id) || !to_float(f[4], &e.real) ||
        !to_float(f[5], &e.run) || !to_u32(f[6], &e.qos_id) || !to_float(f[7], &e.qos_usage) ||
        !to_float(f[8], &e.qos_wall) || !to_u32(f[9], &e.part_qos_id) ||
        !to_float(f[10], &e.part_qos_usage) || !to_float(f[11], &e.part_qos_wall))
      parse_error("journal", line_no, "malformed entry");
    e.ended = f[0] == "e";
    out.push_back(e);
  }
  return out;
}

std::vector<JournalEntry> read_journal_file(const std::string& path) {
  bool exists = false;
  const std::string data = read_small_file(path, &exists);
  if (!exists) return {};
  try {
    return parse_journal(data);
  } catch (const Error& e) {
    throw Error(Errc::kParse, path + ": " + e.what());
  }
}

}  // namespace fairway
