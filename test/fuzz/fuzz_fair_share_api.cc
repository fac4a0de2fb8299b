// fuzz_fair_share_api.cc - libFuzzer target: the C API's fair-share table
// (fairway_fair_share_table_*, fairway_fair_share_table.h), fed with flat association records
// as the plugin copies them out of assoc_mgr -- except that the fuzzer chooses them: duplicate
// ids, unknown parents, cycles, several or no roots, users with children, NULL names,
// Fairshare=parent everywhere, NaN / infinite / negative / huge / subnormal usage, odd
// dampening factors.
//
// Contract (fairway_fair_share_table.h): fairway_fair_share_table_load() either keeps a tree
// of `count` associations or fails with FAIRWAY_ETREE (a message in fairway_last_error(), no
// tree kept); compute/result never crash, reject bad arguments with FAIRWAY_EINVAL, a load
// with new usage is refused with FAIRWAY_ETREE exactly when a usage is negative, NaN or
// infinite, and the fair-share factors they return are in [0, 1].  The same records through
// the C++ core also format as sshare output.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"
#include "fairway.h"
#include "fairway_fair_share_table.h"
#include "fuzz_common.h"
#include "sshare_format.h"

namespace {

constexpr size_t kMaxAssocs = 96;

// Ids from a small range collide and form cycles often; sometimes any 32-bit value.
uint32_t pick_id(fuzz::Bytes& in) {
  const uint8_t b = in.u8();
  if (b < 0xf0) return b % 24;  // 0 = "no parent" as parent_id, an id of 0 otherwise
  return in.u32();
}

long double pick_usage(fuzz::Bytes& in) {
  const uint8_t b = in.u8();
  switch (b % 16) {
    case 0:
      return 0;
    case 1:
      return -0.0L;
    case 2:
      return std::numeric_limits<long double>::quiet_NaN();
    case 3:
      return std::numeric_limits<long double>::infinity();
    case 4:
      return -1;
    case 5:
      return std::numeric_limits<long double>::denorm_min();
    case 6:
      return LDBL_MAX;
    case 7:
      return LDBL_MAX / 3;
    case 8:
      return DBL_MAX;
    case 9:
      return static_cast<long double>(in.u32());
    case 10:
      return static_cast<long double>(in.u64());
    case 11:
      return static_cast<long double>(in.raw<double>());  // any double, NaN included
    case 12:
      return ldexpl(1.0L, static_cast<int8_t>(in.u8()) * 64);  // 2^-8192 .. 2^8128
    case 13:
      return 0x1p64L;
    default:
      return static_cast<long double>(b);
  }
}

uint32_t pick_shares(fuzz::Bytes& in) {
  const uint8_t b = in.u8();
  switch (b % 8) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return fairway::kSharesUseParent;  // the raw marker value
    case 3:
      return UINT32_MAX;
    case 4:
      return UINT32_MAX - 1;
    case 5:
      return in.u32();
    default:
      return b;
  }
}

const char* const kNames[] = {"root", "a", "b", "A", "bb", "a", "", "x\xff", "zzz"};

double pick_dampening(uint8_t b) {
  switch (b % 8) {
    case 0:
      return 1;
    case 1:
      return 2;
    case 2:
      return 65535;
    case 3:
      return 0.5;  // invalid
    case 4:
      return std::numeric_limits<double>::quiet_NaN();
    case 5:
      return std::numeric_limits<double>::infinity();
    case 6:
      return 1.5;
    default:
      return 3;
  }
}

// wrapped: the raw shares may add up to more than 32 bits.  Slurm sums level shares in
// uint32_t and wraps (assoc_tree.h keeps that on purpose), which can make a normalized share
// exceed 1, an effective usage negative and a classic factor exceed 1: faithful, not a bug.
void check_results(const fairway_fair_share_table_t* t, size_t n, fairway_algorithm_t algo,
                   bool wrapped) {
  for (size_t i = 0; i < n; ++i) {
    fairway_assoc_result_t r;
    FUZZ_CHECK(fairway_fair_share_table_result(t, i, &r) == FAIRWAY_OK);
    FUZZ_CHECK(!std::isnan(r.fs_factor) && r.fs_factor >= 0);
    if (!wrapped) FUZZ_CHECK(r.fs_factor <= 1);
    FUZZ_CHECK(!std::isnan(r.shares_norm) && r.shares_norm >= 0);
    FUZZ_CHECK(r.set & FAIRWAY_SET_SHARES_NORM);
    if (algo == FAIRWAY_ALGO_FAIR_TREE) FUZZ_CHECK(!std::isnan(r.level_fs));
  }
  fairway_assoc_result_t r;
  FUZZ_CHECK(fairway_fair_share_table_result(t, n, &r) == FAIRWAY_EINVAL);
  FUZZ_CHECK(fairway_last_error()[0] != '\0');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const size_t n = in.u8() % (kMaxAssocs + 1);
  std::vector<std::string> names;  // owns fuzzer-made names
  names.reserve(2 * n);
  std::vector<fairway_assoc_t> assocs(n);
  uint64_t total_shares = 0;
  for (size_t i = 0; i < n; ++i) {
    fairway_assoc_t& a = assocs[i];
    a.id = pick_id(in);
    a.parent_id = pick_id(in);
    const uint8_t flags = in.u8();
    a.shares_parent = (flags & 1) ? 1 : 0;
    a.shares_raw = pick_shares(in);
    if (!a.shares_parent && a.shares_raw != fairway::kSharesUseParent) total_shares += a.shares_raw;
    a.usage_raw = pick_usage(in);
    auto name = [&](uint8_t sel) -> const char* {
      if (sel == 0) return nullptr;
      if (sel < 0xf0) return kNames[sel % (sizeof kNames / sizeof kNames[0])];
      names.push_back(in.str(8));
      return names.back().c_str();
    };
    a.account = name(in.u8());
    a.user = (flags & 2) ? name(in.u8()) : nullptr;
  }

  const fairway_assoc_t* given = n ? assocs.data() : nullptr;
  fairway_fair_share_table_t* t = nullptr;
  FUZZ_CHECK(fairway_fair_share_table_new(&t) == FAIRWAY_OK);
  const fairway_error_t err =
      fairway_fair_share_table_load(t, given, n, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr);
  if (err != FAIRWAY_OK) {
    FUZZ_CHECK(err == FAIRWAY_ETREE);
    FUZZ_CHECK(fairway_last_error()[0] != '\0');
    // No tree kept: nothing to compute.
    FUZZ_CHECK(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0) == FAIRWAY_EINVAL);
  } else {
    FUZZ_CHECK(fairway_last_error()[0] == '\0');
    // Result before any computation: refused.
    fairway_assoc_result_t r;
    FUZZ_CHECK(fairway_fair_share_table_result(t, 0, &r) == FAIRWAY_EINVAL);
    // A few computation periods, usage replaced in between (as the plugin does: each period
    // loads every association again, and the kept tree takes the new usage).
    std::vector<fairway_assoc_t> period = assocs;
    const int rounds = 1 + in.u8() % 4;
    for (int round = 0; round < rounds; ++round) {
      const auto algo = static_cast<fairway_algorithm_t>(in.u8() % 4);  // 3: invalid
      const double damp = pick_dampening(in.u8());
      const fairway_error_t ce = fairway_fair_share_table_compute(t, algo, damp, 0);
      if (algo > FAIRWAY_ALGO_DEPTH_OBLIVIOUS || !(damp >= 1) || !std::isfinite(damp)) {
        FUZZ_CHECK(ce == FAIRWAY_EINVAL);
      } else {
        FUZZ_CHECK(ce == FAIRWAY_OK);
        check_results(t, n, algo, total_shares > UINT32_MAX);
      }
      const std::vector<fairway_assoc_t> kept = period;
      const int updates = in.u8() % 4;
      for (int k = 0; k < updates; ++k) {
        const size_t idx = in.u8() % (n + 1);  // n: none
        const long double u = pick_usage(in);
        if (idx < n) period[idx].usage_raw = u;
      }
      bool bad_usage = false;  // the last value given to an association counts
      for (const fairway_assoc_t& a : period)
        bad_usage = bad_usage || !std::isfinite(a.usage_raw) || a.usage_raw < 0;
      const fairway_error_t ue = fairway_fair_share_table_load(
          t, period.data(), n, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr);
      FUZZ_CHECK(ue == (bad_usage ? FAIRWAY_ETREE : FAIRWAY_OK));
      if (ue != FAIRWAY_OK) {  // the tree was forgotten: the last good usage builds it again
        period = kept;
        FUZZ_CHECK(fairway_fair_share_table_load(t, period.data(), n, FAIRWAY_USAGE_HISTORICAL,
                                                 nullptr, 0, nullptr) == FAIRWAY_OK);
      }
    }
  }
  fairway_fair_share_table_destroy(&t);
  FUZZ_CHECK(t == nullptr);
  fairway_fair_share_table_destroy(&t);  // no-op

  // The same records through the plugin's fair-share table: refused alike; when accepted,
  // every association's Fair Tree factor looked up by id is its result's (users) or none.
  fairway_fair_share_table_t* table = nullptr;
  FUZZ_CHECK(fairway_fair_share_table_new(&table) == FAIRWAY_OK);
  for (int load = 0; load < 2; ++load) {  // the second keeps the tree (same shape)
    const fairway_error_t le = fairway_fair_share_table_load(
        table, given, n, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr);
    FUZZ_CHECK(le == err);
    if (le != FAIRWAY_OK) {
      FUZZ_CHECK(fairway_fair_share_table_compute(table, FAIRWAY_ALGO_FAIR_TREE, 1, 1) ==
                 FAIRWAY_EINVAL);
      break;
    }
    FUZZ_CHECK(fairway_fair_share_table_compute(table, FAIRWAY_ALGO_FAIR_TREE, 1, 1) == FAIRWAY_OK);
    for (size_t i = 0; i < n; ++i) {
      fairway_assoc_result_t r;
      FUZZ_CHECK(fairway_fair_share_table_result(table, i, &r) == FAIRWAY_OK);
      if (!assocs[i].id) continue;  // ids start at 1: 0 is never looked up
      const double* f = fairway_fair_share_table_factor(table, assocs[i].id);
      FUZZ_CHECK((f != nullptr) == ((r.set & FAIRWAY_SET_FS_FACTOR) != 0));
      if (f) FUZZ_CHECK(*f == r.fs_factor);
    }
    FUZZ_CHECK(fairway_fair_share_table_factor(table, 0) == nullptr);
  }
  fairway_fair_share_table_destroy(&table);
  FUZZ_CHECK(table == nullptr);

  // The same records through the C++ core, as the CLI's live mode uses it: sshare output.
  std::vector<fairway::AssocRecord> records(n);
  for (size_t i = 0; i < n; ++i) {
    records[i].id = assocs[i].id;
    records[i].parent_id = assocs[i].parent_id;
    records[i].account = assocs[i].account ? assocs[i].account : "";
    records[i].user = assocs[i].user ? assocs[i].user : "";
    records[i].shares_parent = assocs[i].shares_parent != 0;
    records[i].shares_raw = assocs[i].shares_raw;
    records[i].usage_raw = assocs[i].usage_raw;
  }
  try {
    fairway::sort_hierarchical(records);
  } catch (const fairway::TreeError&) {
    FUZZ_CHECK(err == FAIRWAY_ETREE);  // the C API refused the same tree
    return 0;
  }
  FUZZ_CHECK(err == FAIRWAY_OK);
  const fairway::AssocTree tree = fairway::AssocTree::build(records);
  fairway::FairShareResult result;
  for (auto algo : {fairway::Algorithm::kFairTree, fairway::Algorithm::kClassic,
                    fairway::Algorithm::kDepthOblivious}) {
    fairway::compute_fair_share(tree, algo, 1, result);
    const std::string table = fairway::format_sshare(tree, result, algo);
    FUZZ_CHECK(!table.empty());
  }
  return 0;
}
