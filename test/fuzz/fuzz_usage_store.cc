// fuzz_usage_store.cc - libFuzzer target: Fairway's usage file and job-end journal
// (StateSaveLocation/fairway_usage, fairway_usage.journal), which the plugin reads when
// slurmctld starts.  Contract (usage_store.h): either Error(Errc::kParse) with a one-line
// message, or entries that are finite and non-negative and survive a format/parse round
// trip exactly; a journal's torn last line is skipped, never an error.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cmath>
#include <string>
#include <string_view>

#include "error.h"
#include "fuzz_common.h"
#include "usage_store.h"

namespace {

void check_error(const fairway::Error& e) {
  FUZZ_CHECK(e.code() == fairway::Errc::kParse);
  FUZZ_CHECK(std::string_view(e.what()).find('\n') == std::string_view::npos);
}

void usage_file(std::string_view text) {
  fairway::UsageSnapshot s;
  try {
    s = fairway::parse_usage(text);
  } catch (const fairway::Error& e) {
    check_error(e);
    return;
  }
  for (const auto* v : {&s.assocs, &s.qos})
    for (const auto& e : *v)
      FUZZ_CHECK(std::isfinite(e.usage_raw) && e.usage_raw >= 0 && std::isfinite(e.grp_used_wall) &&
                 e.grp_used_wall >= 0);
  const fairway::UsageSnapshot again = fairway::parse_usage(fairway::format_usage(s));
  FUZZ_CHECK(again.period == s.period && again.assocs.size() == s.assocs.size() &&
             again.qos.size() == s.qos.size());
  for (size_t i = 0; i < s.assocs.size(); i++)
    FUZZ_CHECK(again.assocs[i].id == s.assocs[i].id &&
               again.assocs[i].usage_raw == s.assocs[i].usage_raw &&
               again.assocs[i].grp_used_wall == s.assocs[i].grp_used_wall);
}

void journal(std::string_view text) {
  std::vector<fairway::JournalEntry> v;
  try {
    v = fairway::parse_journal(text);
  } catch (const fairway::Error& e) {
    check_error(e);
    return;
  }
  std::string out;
  for (const auto& e : v) out += fairway::format_journal_line(e);
  const auto again = fairway::parse_journal(out);
  FUZZ_CHECK(again.size() == v.size());
  for (size_t i = 0; i < v.size(); i++)
    FUZZ_CHECK(again[i].job_id == v[i].job_id && again[i].real == v[i].real &&
               again[i].qos_usage == v[i].qos_usage && again[i].ended == v[i].ended);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  usage_file(text);
  journal(text);
  return 0;
}
