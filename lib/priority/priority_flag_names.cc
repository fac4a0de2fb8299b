// priority_flag_names.cc - see priority_flag_names.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "priority_flag_names.h"

#include "slurm_values.h"

namespace fairway {

namespace {

struct FlagName {
  uint32_t bit;
  const char* name;
};
constexpr FlagName kFlagNames[] = {
    {kAccrueAlways, "ACCRUE_ALWAYS"},
    {kSmallRelativeToTime, "SMALL_RELATIVE_TO_TIME"},
    {kCalculateRunning, "CALCULATE_RUNNING"},
    {kDepthOblivious, "DEPTH_OBLIVIOUS"},
    {kNoFairTree, "NO_FAIR_TREE"},
    {kIncrOnly, "INCR_ONLY"},
    {kMaxTres, "MAX_TRES"},
    {kNoNormalAssoc, "NO_NORMAL_ASSOC"},
    {kNoNormalPart, "NO_NORMAL_PART"},
    {kNoNormalQos, "NO_NORMAL_QOS"},
    {kNoNormalTres, "NO_NORMAL_TRES"},
};

}  // namespace

const uint32_t kPriorityFlagBits[11] = {kAccrueAlways,   kSmallRelativeToTime, kCalculateRunning,
                                        kDepthOblivious, kNoFairTree,          kIncrOnly,
                                        kMaxTres,        kNoNormalAssoc,       kNoNormalPart,
                                        kNoNormalQos,    kNoNormalTres};

const char* priority_flag_name(uint32_t bit) {
  for (const auto& f : kFlagNames)
    if (f.bit == bit) return f.name;
  return nullptr;
}

uint32_t priority_flag_bit(std::string_view name) {
  for (const auto& f : kFlagNames)
    if (name == f.name) return f.bit;
  return 0;
}

}  // namespace fairway
