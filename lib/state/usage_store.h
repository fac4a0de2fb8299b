// usage_store.h - Fairway's own record of association and QOS usage, so that a slurmctld
// killed between its 5-minute usage checkpoints loses nothing:
//
//  * the usage file (StateSaveLocation/fairway_usage), rewritten atomically at the end of
//    every calculation period: the period's time and every association's and QOS's
//    usage_raw and grp_used_wall, as hexadecimal floats (exact round trip);
//  * the journal (fairway_usage.journal, fairway_usage.journal.old): one line appended per
//    job end between periods, with what that end charged ("e"), or per charge that did not
//    end the job ("c": Slurm 26.05 charges a pending heterogeneous job component when it is
//    submitted, through the same priority_p_job_end).
//
// Text formats, parsed as untrusted input: a malformed file is an error naming the line; a
// torn last journal line (a crash mid-write) is skipped, not an error.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fairway {

struct UsageEntry {
  uint32_t id = 0;
  long double usage_raw = 0;
  double grp_used_wall = 0;
};

struct UsageSnapshot {
  time_t period = 0;
  std::vector<UsageEntry> assocs, qos;
};

std::string format_usage(const UsageSnapshot& s);
// The same text a line at a time, for a file written in pieces: the header of `period`, a line
// per association ('a') or QOS ('q'), then the end line after `count` of them; each appended
// to out.
void append_usage_header(std::string& out, time_t period);
void append_usage_line(std::string& out, char kind, const UsageEntry& e);
void append_usage_end(std::string& out, size_t count);
// Throws Error(Errc::kParse) naming the line.
UsageSnapshot parse_usage(std::string_view text);
// std::nullopt when the file does not exist; Error(Errc::kIo / Errc::kParse) otherwise.
std::optional<UsageSnapshot> read_usage_file(const std::string& path);
// Atomic (path.new, fsync, rename), mode 0600.  Error(Errc::kIo) on failure.
void write_usage_file(const std::string& path, const UsageSnapshot& s);

// What one job end charged (see priority_p_job_end).
struct JournalEntry {
  bool ended = true;  // false ("c"): the job goes on and may be charged again
  time_t epoch = 0;   // the period before the job ended
  uint32_t job_id = 0;
  uint32_t assoc_id = 0;  // charged with (real, run) up to the root
  double real = 0, run = 0;
  uint32_t qos_id = 0;  // 0: none
  double qos_usage = 0, qos_wall = 0;
  uint32_t part_qos_id = 0;  // 0: none
  double part_qos_usage = 0, part_qos_wall = 0;
};

std::string format_journal_line(const JournalEntry& e);  // ends with '\n'
// Every complete, well-formed line; a last line without '\n' is ignored (torn write).
// Throws Error(Errc::kParse) naming the line for any other malformed line.
std::vector<JournalEntry> parse_journal(std::string_view text);
// Empty when the file does not exist.
std::vector<JournalEntry> read_journal_file(const std::string& path);

}  // namespace fairway
