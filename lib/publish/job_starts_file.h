// job_starts_file.h - the journal of job starts (PriorityParameters fairway_history_days):
// one JSON line per job that started, in a file per UTC day beside the history
// ("starts-YYYYMMDD.jsonl", mode 0600), removed with the history's day files.
// job_starts_format.h words `fairway history --job ID`'s answer from a record.
//
// A line: {"job": 12, "user": "u1", "account": "a", "partition": "debug", "submit": T,
//          "start": T, "priority": 1140, "factors": {"age": .., "assoc": .., "fairshare": ..,
//          "jobsize": .., "partition": .., "qos": .., "site": .., "nice": ..} or null,
//          "order_time": T or null, "order_partition": "debug", "place": 3, "of": 40,
//          "passed": 1, "passed_jobs": [9], "earlier_waiting": 2,
//          "seen": T or null, "seen_partition": "debug", "seen_place": 7}
// (seen_*: the first period that weighed it pending, and its partition and place then;
// absent in records written before the forecast.)
// Each period's lines are one append, so a killed slurmctld leaves at most a torn last line,
// which readers skip and the next append ends first.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "job_starts.h"

namespace fairway {

std::string start_record_json(const StartRecord& r);  // one line, no newline
// nullopt for a line that is not a whole record.
std::optional<StartRecord> parse_start_record(std::string_view line);

// "starts-20261125.jsonl" for a time in that UTC day; the day start of such a name.
std::string starts_file_name(int64_t time);
std::optional<int64_t> starts_file_day(std::string_view name);

// Appends the records (none: nothing) to DIR's file of that day (DIR made 0700 if missing) and
// removes the starts files whose day ended `days` days before `time`.  Throws Error(Errc::kIo).
void append_starts(const std::string& dir, int64_t time, const std::vector<StartRecord>& records,
                   uint32_t days);

// Every whole record in DIR's starts files of jobs that started at `since` or later, oldest
// file first.  Throws Error(Errc::kIo) when DIR or a file cannot be read.
std::vector<StartRecord> read_starts(const std::string& dir, int64_t since);

// The last record of JOB in DIR's starts files, newest file first; nullopt if none.  Throws
// Error(Errc::kIo) when DIR cannot be read.
std::optional<StartRecord> find_start(const std::string& dir, uint32_t job);

}  // namespace fairway
