// fuzz_snapshot.cc - libFuzzer target: the snapshot JSON reader and everything the fairway
// CLI does with what it accepts.  Snapshot files are untrusted input.
//
// For any input: parse_snapshot() either throws SnapshotError with a one-line message in
// printable ASCII (text that is not JSON placed by line and column), or
// returns a snapshot that
//   * builds a tree (snapshot_tree does not throw),
//   * writes back and re-reads to the same snapshot (snapshot.h's round-trip contract),
//   * computes under all three algorithms with fair-share values in range,
//   * formats as sshare text and as JSON that parses again,
//   * can be re-snapshotted from the tree (snapshot_from_tree) and read back,
//   * version 2: writes back to the same text, and `fairway explain` answers for its jobs.
// Any other exception, a crash, or a sanitizer report is a bug.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "compare.h"
#include "compare_format.h"
#include "explain.h"
#include "explain_format.h"
#include "fair_share.h"
#include "fuzz_common.h"
#include "snapshot.h"
#include "sshare_format.h"
#include "weights.h"
#include "weights_format.h"
#include "whatif.h"

namespace {

using fairway::Algorithm;

bool same_record(const fairway::AssocRecord& a, const fairway::AssocRecord& b) {
  const bool pa = a.shares_parent || a.shares_raw == fairway::kSharesUseParent;
  const bool pb = b.shares_parent || b.shares_raw == fairway::kSharesUseParent;
  return a.id == b.id && a.parent_id == b.parent_id && a.account == b.account && a.user == b.user &&
         pa == pb && (pa || a.shares_raw == b.shares_raw) && a.usage_raw == b.usage_raw;
}

// Slurm sums level shares in uint32_t and wraps (kept on purpose, assoc_tree.h): with raw
// shares adding up to more than 32 bits a classic factor can exceed 1.  Faithful, not a bug.
bool shares_may_wrap(const fairway::AssocTree& t) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < t.size(); ++i)
    if (!t.uses_parent_shares(i)) total += t.shares_raw(i);
  return total > UINT32_MAX;
}

void check_result(const fairway::AssocTree& t, const fairway::FairShareResult& r, Algorithm a) {
  const long double no_val = static_cast<long double>(fairway::kNoVal);
  const bool wrapped = shares_may_wrap(t);
  for (uint32_t i = 0; i < t.size(); ++i) {
    const double fs = r.fs_factor[i];
    FUZZ_CHECK(!std::isnan(fs) && fs >= 0);
    if (!wrapped) FUZZ_CHECK(fs <= 1);
    FUZZ_CHECK(!std::isnan(r.shares_norm[i]) && r.shares_norm[i] >= 0);
    if (i == t.root()) {
      FUZZ_CHECK(r.usage_norm[i] == no_val);
    } else {
      FUZZ_CHECK(r.usage_norm[i] >= 0 && r.usage_norm[i] <= 1);
      FUZZ_CHECK(!std::isnan(r.usage_efctv[i]));
    }
    if (a == Algorithm::kFairTree) {
      if (t.is_user(i))
        FUZZ_CHECK(fs > 0);
      else
        FUZZ_CHECK(fs == 0);
      FUZZ_CHECK(!std::isnan(r.level_fs[i]));
    }
  }
}

void exercise(const fairway::Snapshot& s) {
  fairway::AssocTree tree = fairway::snapshot_tree(s);  // must not throw: parse validated it
  FUZZ_CHECK(tree.size() == s.associations.size());

  // Round trip: parse(write(s)) == s.
  const std::string text = fairway::write_snapshot(s);
  const fairway::Snapshot back = fairway::parse_snapshot(text);
  FUZZ_CHECK(back.algorithm == s.algorithm);
  FUZZ_CHECK(back.dampening_factor == s.dampening_factor);
  FUZZ_CHECK(back.associations.size() == s.associations.size());
  for (size_t i = 0; i < s.associations.size(); ++i)
    FUZZ_CHECK(same_record(back.associations[i], s.associations[i]));

  fairway::FairShareResult result;
  for (Algorithm a : {Algorithm::kFairTree, Algorithm::kClassic, Algorithm::kDepthOblivious}) {
    fairway::compute_fair_share(tree, a, s.dampening_factor, result);
    check_result(tree, result, a);
    fairway::SshareOptions opt;
    opt.dampening_factor = s.dampening_factor;
    const std::string table = fairway::format_sshare(tree, result, a, opt);
    FUZZ_CHECK(!table.empty() && table.back() == '\n');
    const std::string js = fairway::format_sshare_json(tree, result, a, opt);
    const auto parsed = nlohmann::json::parse(js, nullptr, /*allow_exceptions=*/false);
    FUZZ_CHECK(parsed.is_array() && parsed.size() == tree.size());
  }

  // Version 2: the queue writes back to the same text, and `fairway explain` answers for its
  // first jobs (with fair-share searches, so only a few).
  if (s.queue) {
    FUZZ_CHECK(back.queue.has_value());
    FUZZ_CHECK(fairway::write_snapshot(back) == text);
    const fairway::FairShareInput fs{s.associations, s.algorithm, s.dampening_factor};
    for (size_t i = 0; i < s.queue->jobs.size() && i < 3; ++i) {
      const auto e = fairway::explain_job(*s.queue, fs, s.queue->jobs[i].id);
      FUZZ_CHECK(!fairway::format_explain(*s.queue, fs, e).empty());
      const auto js = nlohmann::json::parse(fairway::format_explain_json(*s.queue, fs, e), nullptr,
                                            /*allow_exceptions=*/false);
      FUZZ_CHECK(js.is_object());
    }
    // compare of the first two, weights of the whole queue, and whatif without a change,
    // which moves no job and changes no priority.
    if (s.queue->jobs.size() >= 2 && s.queue->jobs[0].id != s.queue->jobs[1].id) {
      const auto c = fairway::compare_jobs(*s.queue, fs, s.queue->jobs[0].id, s.queue->jobs[1].id);
      FUZZ_CHECK(!fairway::format_compare(c).empty());
    }
    FUZZ_CHECK(!fairway::format_weights(fairway::queue_decisions(*s.queue)).empty());
    const auto w = fairway::what_if(*s.queue, fs, fairway::WhatIfChange{});
    for (const auto& p : w.partitions) {
      FUZZ_CHECK(p.moved == 0);
      for (const auto& m : p.jobs_by_move) FUZZ_CHECK(m.priority_before == m.priority_after);
    }
    FUZZ_CHECK(w.associations.empty());
  }

  // What `fairway snapshot` would write from a live tree must be readable again.
  const fairway::Snapshot again =
      fairway::snapshot_from_tree(tree, s.algorithm, s.dampening_factor);
  (void)fairway::parse_snapshot(fairway::write_snapshot(again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fairway::Snapshot s;
  try {
    s = fairway::parse_snapshot(text);
  } catch (const fairway::SnapshotError& e) {
    const std::string_view msg = e.what();
    FUZZ_CHECK(msg.substr(0, 10) == "snapshot: ");
    FUZZ_CHECK(msg.find('\n') == std::string_view::npos);  // one line (snapshot.h)
    for (char c : msg) FUZZ_CHECK(c >= 0x20 && c < 0x7f);  // no raw bytes of the input
    // Text the JSON parser refuses is always placed by the syntax checker (line, column,
    // what was expected), never by the fallback for a disagreement between the two.
    const std::string_view fallback = ": not valid JSON";
    FUZZ_CHECK(msg.size() < fallback.size() ||
               msg.substr(msg.size() - fallback.size()) != fallback);
    return 0;
  }
  // Anything thrown from here on escapes and aborts: a bug.
  exercise(s);
  return 0;
}
