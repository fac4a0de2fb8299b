// whatif_json.h - a what-if (whatif.h) as JSON: what `fairway whatif --json` prints and the
// shadow policy's file holds.
//   {"partitions": [{"partition": "debug", "jobs": 120, "moved": 14, "spearman": 0.93,
//                    "jobs_by_move": [{"job": 12, "user": "u1", "account": "a",
//                                      "priority_before": 1140, "priority_after": 2210,
//                                      "place_before": 9, "place_after": 1}, ...]}],
//    "associations": [{"account": "a", "user": "u1" | null,
//                      "fs_factor_before": 0.5, "fs_factor_after": 0.75}, ...]}
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "whatif.h"

namespace fairway {

// At most `top` jobs per partition in "jobs_by_move" (the largest moves; "moved" counts all).
std::string format_whatif_json(const WhatIf& w, size_t top = SIZE_MAX);

// The shadow policy's file (fairway_shadow.json): {"fairway_shadow": 1, "policy": FILE,
// "taken_at": T, "partitions": ..., "associations": ...} with at most `top` movers per
// partition.
std::string format_shadow_json(const WhatIf& w, const std::string& policy_file, int64_t taken_at,
                               size_t top);

}  // namespace fairway
