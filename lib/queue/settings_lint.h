// settings_lint.h - the priority settings of a slurm.conf checked before they go live
// (fairway lint): what makes priorities tie, saturate, overflow or contradict each other,
// each finding with the setting, the evidence and what to change.  From slurm.conf alone:
//   * PriorityWeightFairshare too small to separate fair-share factors 0.001 apart (Slurm's
//     documentation asks weights to resolve differences of about that);
//   * the weights' sum above 4294967295 (priorities clamp there, the jobs at the top tie);
//   * a weight at most 1/1000 of another's: it orders only jobs whose larger factor ties to
//     within 0.001;
//   * the age factor full for every job within one period (PriorityMaxAge 0 or shorter than
//     PriorityCalcPeriod, with an age weight);
//   * PriorityDecayHalfLife shorter than PriorityCalcPeriod;
//   * PriorityWeightTRES or fairway_fairshare_tres naming a TRES that is not tracked (the
//     defaults and AccountingStorageTRES): its factor or its usage is always 0;
//   * fairway_fairshare_tres with PriorityWeightFairshare 0 (every factor it makes is weighed
//     0), and each PriorityParameters option the plugin would refuse;
//   * two partitions on the same nodes whose PriorityTier and PriorityJobFactor order them
//     oppositely, with a partition weight (the tier decides first, the factor never).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fairway {

struct LintFinding {
  std::string setting;   // KEY=VALUE as slurm.conf has it (or its default)
  std::string evidence;  // why it is a problem, with the numbers
  std::string change;    // what to change
};

// The findings for slurm.conf's text, in the order above.  Throws fairway::Error (kInvalid)
// naming the line or setting: text that is not slurm.conf, a value of a setting checked here
// that slurm.conf would not take.
std::vector<LintFinding> lint_slurm_conf(std::string_view text);

}  // namespace fairway
