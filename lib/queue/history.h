// history.h - the fair-share history a period appends (PriorityParameters fairway_history_days):
// one record per association per period, in one file per UTC day, removed once older than the
// configured number of days.  `fairway history` reads it.
//
// Files, in one directory (mode 0700; files 0600):
//   history-YYYYMMDD.fwh   the periods of that UTC day, appended one block per period:
//       "FWH1" | u32 count | i64 time | count x record | u32 FNV-1a of all the bytes before it
//     record (24 bytes): u32 id | f64 raw usage | f32 delivered share | f32 entitled share |
//                        f32 fair-share factor
//     little-endian.  A block is written with one write() to a file opened O_APPEND, so a
//     killed slurmctld can leave at most a torn last block: readers skip whatever is not a
//     whole block with a matching checksum and resynchronize on the next "FWH1".
//   names                  "id<TAB>account<TAB>user" lines for every association ever
//                          recorded, rewritten whole when a new one appears.
// Size: 24 bytes per association per period plus 20 per period: 50,000 associations every 5
// minutes are 345 MB a day.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fairway {

struct HistoryRecord {
  uint32_t id = 0;
  double usage_raw = 0;  // decayed usage, billing-TRES-seconds
  float delivered = 0;   // its share of the root's usage
  float entitled = 0;    // the share of the cluster its shares entitle it to
  float fs_factor = 0;   // its fair-share factor (what its jobs get)
};

struct HistoryPeriod {
  int64_t time = 0;
  std::vector<HistoryRecord> records;
};

struct HistoryName {
  uint32_t id = 0;
  std::string account, user;
};

// One block.
std::string encode_history_period(const HistoryPeriod& p);
// Every whole block of a day file, in order; `skipped` counts the bytes that were not.
std::vector<HistoryPeriod> parse_history(std::string_view bytes, size_t* skipped = nullptr);

// "history-20261125.fwh" for a time in that UTC day.
std::string history_file_name(int64_t time);
// The start (00:00 UTC) of the day a file name holds, nullopt for any other name.
std::optional<int64_t> history_file_day(std::string_view name);
// PREFIX + the UTC day of TIME as YYYYMMDD + SUFFIX, and back: the day's start (00:00 UTC) of
// such a name, nullopt for any other name.  The history's and the journal of starts' files.
std::string day_file_name(std::string_view prefix, std::string_view suffix, int64_t time);
std::optional<int64_t> day_file_day(std::string_view name, std::string_view prefix,
                                    std::string_view suffix);
// Of these names, the day files whose whole day ended `days` days or more before now.
std::vector<std::string> expired_history_files(const std::vector<std::string>& names, int64_t now,
                                               uint32_t days);

std::string format_history_names(const std::vector<HistoryName>& names);
// Throws Error(Errc::kParse) naming the line.
std::vector<HistoryName> parse_history_names(std::string_view text);

// Appends one period to DIR (created, mode 0700, if missing; its parent must exist): the block to
// the day file, new names to the names file, then removes the day files expired for `days`.
// Throws Error(Errc::kIo) naming the file.
void append_history(const std::string& dir, const HistoryPeriod& period,
                    const std::vector<HistoryName>& names, uint32_t days);

// Every period in DIR from `since` on (day files in order).  Throws Error(Errc::kIo) when DIR
// cannot be read.
struct HistoryData {
  std::vector<HistoryName> names;
  std::vector<HistoryPeriod> periods;
  size_t skipped_bytes = 0;
};
HistoryData read_history(const std::string& dir, int64_t since);

}  // namespace fairway
