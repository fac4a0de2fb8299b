// capi_types.h - the C API's structs as the core's types, for the files of lib/capi.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "assoc_tree.h"
#include "error.h"
#include "fair_share.h"
#include "fairway.h"

namespace fairway {

// Takes the raw value: a C caller may pass any int, and loading an out-of-range value as the
// C++ enum type is undefined (UBSan -fsanitize=enum).
inline Algorithm to_algorithm(int algo) {
  switch (algo) {
    case FAIRWAY_ALGO_FAIR_TREE:
      return Algorithm::kFairTree;
    case FAIRWAY_ALGO_CLASSIC:
      return Algorithm::kClassic;
    case FAIRWAY_ALGO_DEPTH_OBLIVIOUS:
      return Algorithm::kDepthOblivious;
  }
  invalid("unknown fair-share algorithm " + std::to_string(algo));
}

// The records of count associations, in the caller's order.
inline std::vector<AssocRecord> to_records(const fairway_assoc_t* assocs, size_t count) {
  std::vector<AssocRecord> records(count);
  for (size_t i = 0; i < count; i++) {
    const fairway_assoc_t& a = assocs[i];
    AssocRecord& r = records[i];
    r.id = a.id;
    r.parent_id = a.parent_id;
    r.account = a.account ? a.account : "";
    r.user = a.user ? a.user : "";
    r.shares_parent = a.shares_parent != 0;
    r.shares_raw = a.shares_raw;
    r.usage_raw = a.usage_raw;
  }
  return records;
}

}  // namespace fairway
