// history_format.h - `fairway history`: one association's fair-share over time, from the history
// the plugin keeps (history.h), as text, -P rows or JSON.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history.h"

namespace fairway {

struct HistorySeries {
  uint32_t id = 0;
  std::string account, user;
  std::vector<int64_t> times;
  std::vector<HistoryRecord> records;  // one per time
};

// The series of every association with this account and user ("" = the account's own
// association), in id order; empty when none matches. An account's fs_factor in each period
// is the highest among the users directly under it (NaN when none of them has a record then):
// the history records 0 for accounts, whose factor Slurm does not keep.
std::vector<HistorySeries> history_series(const HistoryData& data, const std::string& account,
                                          const std::string& user);

// Text: a heading per association, then Time, RawUsage, Delivered, Entitled, Ratio, FairShare
// (times local, "YYYY-MM-DD HH:MM:SS").  -P: the same columns with '|' and the account and user
// first.  JSON: an array of {"id", "account", "user", "periods": [{"time" (Unix), "raw_usage",
// "delivered", "entitled", "ratio" (null without entitlement), "fairshare" (null when NaN)}]}.
// RawUsage in the text is in scientific notation from kScientificFrom (words.h) on.
std::string format_history(const std::vector<HistorySeries>& series);
std::string format_history_parsable(const std::vector<HistorySeries>& series);
std::string format_history_json(const std::vector<HistorySeries>& series);

}  // namespace fairway
