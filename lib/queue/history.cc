// history.cc - see history.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "history.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <set>

#include "atomic_file.h"
#include "error.h"

namespace fairway {
namespace {

constexpr char kMagic[4] = {'F', 'W', 'H', '1'};
constexpr size_t kHeader = 16, kRecord = 24, kTrailer = 4;
constexpr int64_t kDay = 86400;

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // the build's targets are little-endian (x86-64, aarch64)
  out.append(b, sizeof(T));
}

template <typename T>
T get(std::string_view b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

uint32_t fnv1a(std::string_view b) {
  uint32_t h = 2166136261u;
  for (unsigned char c : b) h = (h ^ c) * 16777619u;
  return h;
}

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw Error(Errc::kIo, what + " " + path + ": " + std::strerror(errno));
}

// A history file: at most 16 GiB (a day of 50,000 associations every minute is 1.7 GB).
std::string read_file(const std::string& path, bool missing_ok) {
  bool exists = false;
  std::string data = read_whole_file(path, &exists, size_t{1} << 34);
  if (!exists && !missing_ok) {
    errno = ENOENT;
    io_error("cannot open", path);
  }
  return data;
}

}  // namespace

std::string encode_history_period(const HistoryPeriod& p) {
  std::string out;
  out.reserve(kHeader + p.records.size() * kRecord + kTrailer);
  out.append(kMagic, 4);
  put<uint32_t>(out, static_cast<uint32_t>(p.records.size()));
  put<int64_t>(out, p.time);
  for (const HistoryRecord& r : p.records) {
    put<uint32_t>(out, r.id);
    put<double>(out, r.usage_raw);
    put<float>(out, r.delivered);
    put<float>(out, r.entitled);
    put<float>(out, r.fs_factor);
  }
  put<uint32_t>(out, fnv1a(out));
  return out;
}

std::vector<HistoryPeriod> parse_history(std::string_view b, size_t* skipped) {
  std::vector<HistoryPeriod> out;
  size_t pos = 0, lost = 0;
  while (pos < b.size()) {
    bool ok = false;
    size_t size = 0;
    if (b.size() - pos >= kHeader + kTrailer && std::memcmp(b.data() + pos, kMagic, 4) == 0) {
      const uint32_t count = get<uint32_t>(b, pos + 4);
      if (count <= (b.size() - pos - kHeader - kTrailer) / kRecord) {
        size = kHeader + size_t{count} * kRecord + kTrailer;
        ok = fnv1a(b.substr(pos, size - kTrailer)) == get<uint32_t>(b, pos + size - kTrailer);
      }
    }
    if (!ok) {
      // Resynchronize on the next magic.
      const size_t next = b.find(std::string_view(kMagic, 4), pos + 1);
      const size_t to = next == std::string_view::npos ? b.size() : next;
      lost += to - pos;
      pos = to;
      continue;
    }
    HistoryPeriod p;
    p.time = get<int64_t>(b, pos + 8);
    const uint32_t count = get<uint32_t>(b, pos + 4);
    p.records.resize(count);
    for (uint32_t i = 0; i < count; i++) {
      const size_t at = pos + kHeader + size_t{i} * kRecord;
      HistoryRecord& r = p.records[i];
      r.id = get<uint32_t>(b, at);
      r.usage_raw = get<double>(b, at + 4);
      r.delivered = get<float>(b, at + 12);
      r.entitled = get<float>(b, at + 16);
      r.fs_factor = get<float>(b, at + 20);
    }
    out.push_back(std::move(p));
    pos += size;
  }
  if (skipped) *skipped = lost;
  return out;
}

std::string day_file_name(std::string_view prefix, std::string_view suffix, int64_t time) {
  const time_t t = static_cast<time_t>(time);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
  return std::string(prefix) + buf + std::string(suffix);
}

std::optional<int64_t> day_file_day(std::string_view name, std::string_view prefix,
                                    std::string_view suffix) {
  if (name.size() != prefix.size() + 8 + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return std::nullopt;
  const std::string_view digits = name.substr(prefix.size(), 8);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  struct tm tm {};
  tm.tm_year = std::stoi(std::string(digits.substr(0, 4))) - 1900;
  tm.tm_mon = std::stoi(std::string(digits.substr(4, 2))) - 1;
  tm.tm_mday = std::stoi(std::string(digits.substr(6, 2)));
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

std::string history_file_name(int64_t time) { return day_file_name("history-", ".fwh", time); }

std::optional<int64_t> history_file_day(std::string_view name) {
  return day_file_day(name, "history-", ".fwh");
}

std::vector<std::string> expired_history_files(const std::vector<std::string>& names, int64_t now,
                                               uint32_t days) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    const std::optional<int64_t> day = history_file_day(n);
    if (day && *day + kDay <= now - int64_t{days} * kDay) out.push_back(n);
  }
  return out;
}

std::string format_history_names(const std::vector<HistoryName>& names) {
  std::string out;
  for (const HistoryName& n : names)
    out += std::to_string(n.id) + "\t" + n.account + "\t" + n.user + "\n";
  return out;
}

std::vector<HistoryName> parse_history_names(std::string_view text) {
  std::vector<HistoryName> out;
  size_t pos = 0, line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) break;  // a torn last line
    line++;
    const std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t t1 = l.find('\t'), t2 = t1 == std::string_view::npos ? t1 : l.find('\t', t1 + 1);
    char* stop = nullptr;
    const std::string id(l.substr(0, t1));
    errno = 0;
    const unsigned long v = std::strtoul(id.c_str(), &stop, 10);
    if (t2 == std::string_view::npos || id.empty() || *stop || errno || v > UINT32_MAX)
      throw Error(Errc::kParse, "history names, line " + std::to_string(line) +
                                    ": not 'id<TAB>account<TAB>user'");
    out.push_back({static_cast<uint32_t>(v), std::string(l.substr(t1 + 1, t2 - t1 - 1)),
                   std::string(l.substr(t2 + 1))});
  }
  return out;
}

void append_history(const std::string& dir, const HistoryPeriod& period,
                    const std::vector<HistoryName>& names, uint32_t days) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) io_error("cannot create", dir);
  // New names first, so that a reader never finds a record without its name.
  const std::string names_path = dir + "/names";
  std::vector<HistoryName> known = parse_history_names(read_file(names_path, true));
  std::set<uint32_t> ids;
  for (const HistoryName& n : known) ids.insert(n.id);
  bool grew = false;
  for (const HistoryName& n : names)
    if (ids.insert(n.id).second) {
      known.push_back(n);
      grew = true;
    }
  if (grew) write_file_atomically(names_path, format_history_names(known), {.mode = 0600});

  append_to_file(dir + "/" + history_file_name(period.time), encode_history_period(period));
  for (const std::string& old : expired_history_files(list_directory(dir), period.time, days))
    ::unlink((dir + "/" + old).c_str());
}

HistoryData read_history(const std::string& dir, int64_t since) {
  HistoryData out;
  out.names = parse_history_names(read_file(dir + "/names", true));
  for (const std::string& n : list_directory(dir)) {
    const std::optional<int64_t> day = history_file_day(n);
    if (!day || *day + kDay <= since) continue;
    size_t skipped = 0;
    for (HistoryPeriod& p : parse_history(read_file(dir + "/" + n, false), &skipped))
      if (p.time >= since) out.periods.push_back(std::move(p));
    out.skipped_bytes += skipped;
  }
  return out;
}

}  // namespace fairway
