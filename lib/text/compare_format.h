// compare_format.h - `fairway compare` in words: aligned tables and sentences, sshare-style
// parsable lines (-P), or JSON.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "compare.h"

namespace fairway {

std::string format_compare(const Comparison& c);
// "Partition|Factor|JobA|JobB|Difference" rows (Difference = JobA - JobB; the last rows of a
// partition are "priority" and "place"), then "Side|Job|Ancestor|Account|User|NormShares|
// EffectvUsage|LevelFS|Rank|Siblings|FairShare" rows, each block after a header line.
std::string format_compare_parsable(const Comparison& c);
// One JSON object (no newline at the end).
std::string format_compare_json(const Comparison& c);

}  // namespace fairway
