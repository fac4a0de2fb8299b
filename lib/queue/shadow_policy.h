// shadow_policy.h - a shadow policy: candidate Priority* settings, written as slurm.conf lines,
// that a period weighs beside the live ones (PriorityParameters=fairway_shadow=FILE) so that an
// administrator sees how the queue's order would change before changing slurm.conf.
//
// The file holds KEY=VALUE pairs as slurm.conf does (keys in any case, several pairs on a line
// separated by blanks, '#' to the end of a line a comment).  The keys are the settings a
// what-if can weigh (whatif.h):
//   PriorityWeightAge, PriorityWeightFairshare, ... (each factor's weight_key in
//   kFactorInfo, job_factors.h)   a whole number
//   PriorityWeightTRES   TRES=WEIGHT,...; as in slurm.conf, a TRES it does not name weighs 0
//   PriorityMaxAge       a time as slurm.conf takes it
//   PriorityFlags        a list as slurm.conf takes it (the algorithm: NO_FAIR_TREE,
//                        DEPTH_OBLIVIOUS)
// A setting the file does not name keeps its live value.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string_view>

#include "queue.h"
#include "whatif.h"

namespace fairway {

inline constexpr size_t kMaxShadowPolicyBytes = 64 * 1024;

// The change from the live settings that the file asks for.  Throws fairway::Error (kInvalid)
// naming the line and the problem: an unknown key, a malformed value, a key given twice, a
// file over kMaxShadowPolicyBytes.
WhatIfChange parse_shadow_policy(std::string_view text, const PrioritySettings& live);

}  // namespace fairway
