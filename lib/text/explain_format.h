// explain_format.h - `fairway explain` in words: aligned tables and sentences, sshare-style
// parsable lines (-P), or JSON.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "explain.h"
#include "queue.h"
#include "words.h"

namespace fairway {

// The explanation as text for people: first the job's place and what it waits for (squeue's
// Reason where known), then its factors, the job ahead, and its fair-share; `verbose` adds the
// numbers of each fair-share level (norm shares, effective usage, Level FS, the root).
std::string format_explain(const Queue& q, const FairShareInput& fs, const Explanation& e,
                           bool verbose = false);
// Parsable: "factor|weighted|share" rows, then "partition|tier|position|of|ahead|separated_by|
// difference|age_passes|fair_share_passes" rows, then "level|account|user|shares_norm|
// usage_efctv|level_fs|rank|siblings|fs_factor" rows, each block after a header line. A value
// Slurm leaves unset (NO_VAL, ...) is an empty field, and null in JSON.
std::string format_explain_parsable(const Queue& q, const Explanation& e);
// One JSON object (no newline at the end).
std::string format_explain_json(const Queue& q, const FairShareInput& fs, const Explanation& e);

}  // namespace fairway
