// weights_format.h - `fairway weights` in words: per partition, the share of neighbour pairs
// each factor decides and what is wrong with the others; -P rows; JSON.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "weights.h"

namespace fairway {

std::string format_weights(const std::vector<PartitionDecisions>& d);
// "Partition|Jobs|Pairs|DecidedBy|Decisions|Share|Weight|Min|Max|AtWeight|Verdict" rows: one
// per factor with a weight or a part, then the tier, submit_time, job_id and admin rows.
std::string format_weights_parsable(const std::vector<PartitionDecisions>& d);
std::string format_weights_json(const std::vector<PartitionDecisions>& d);

// The verdict's word: "decides", "saturated", "constant", "drowned", "never_decides",
// "unused".
const char* verdict_name(FactorUse::Verdict v);

}  // namespace fairway
