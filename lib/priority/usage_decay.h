// usage_decay.h - the arithmetic of usage accrual, half-life decay and usage reset periods,
// exactly as Slurm 22.05's multifactor decay thread does it (the shim applies the results
// to associations and QOS under Slurm's locks).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <ctime>

namespace fairway {

// Per-second decay factor for PriorityDecayHalfLife in seconds: Slurm's first-order
// approximation 1 - 0.693/half_life (not exactly 2^(-1/h)); 1 (no decay) for half_life <= 0.
double decay_factor(double half_life_seconds) noexcept;

// The exact per-second factor 2^(-1/half_life) (fairway_decay=exact): usage is halved after
// exactly one half-life, however the time is cut into periods; 1 for half_life <= 0.
double exact_decay_factor(double half_life_seconds) noexcept;

// The decay applied to stored usage after `seconds`: decay_factor^seconds, at least DBL_MIN.
double period_decay(double decay_factor, double seconds) noexcept;

// PriorityUsageResetPeriod values (Slurm's PRIORITY_RESET_* numbering).
enum class ResetPeriod : uint16_t {
  kNone = 0,
  kNow,
  kDaily,
  kWeekly,
  kMonthly,
  kQuarterly,
  kYearly
};

// When the next usage reset after last_reset happens (local time, as Slurm computes it);
// 0 for kNone/kNow or an unconvertible time.  Daily and weekly resets skip periods that
// already passed before `now`.
time_t next_reset(ResetPeriod period, time_t last_reset, time_t now) noexcept;

// PriorityUsageResetPeriod across periods: when usage is forgotten.  NOW resets once, at
// the first period after it is set; the others at each next_reset() from the last reset.
struct ResetSchedule {
  ResetPeriod period = ResetPeriod::kNone;
  time_t last_reset = 0;  // when usage was last reset (the decay state file keeps it)
  time_t next_reset = 0;  // 0: to be computed at the next period

  // A (re)read PriorityUsageResetPeriod: the next reset is computed again.
  void set_period(ResetPeriod p) noexcept {
    period = p;
    next_reset = 0;
  }
  // Whether the period ending at `now` resets usage; moves the schedule on if it does.
  bool due(time_t now) noexcept;
};

// What one job is charged for one stretch of time, before the shim adds it up the tree.
struct JobCharge {
  double run_delta = 0;          // seconds of the stretch that count (>= 0)
  double run_decay = 0;          // seconds, decayed, times the QOS UsageFactor
  double run_nodecay = 0;        // seconds times the QOS UsageFactor
  double real_decay = 0;         // billable TRES x decayed seconds x UsageFactor
  double real_nodecay = 0;       // billable TRES x seconds x UsageFactor
  uint64_t tres_time_delta = 0;  // seconds to remove from grp_used_tres_run_secs
};

struct JobTimes {
  time_t start_time = 0;    // job_ptr->start_time
  time_t end_time = 0;      // job_ptr->end_time
  time_t end_time_exp = 0;  // job_ptr->end_time_exp
  uint32_t time_limit = 0;  // minutes
  bool finished = false;    // finished, completing or resizing
};

// The charge of a job between start_period and end_period (the last period and now, or
// the job's end when at_end).  usage_factor < 0 means "no QOS factor".  Mirrors
// multifactor's _apply_new_usage() arithmetic, including its double/uint64 conversions.
JobCharge job_charge(const JobTimes& job, time_t start_period, time_t end_period, bool at_end,
                     double decay_factor, double billable_tres, double usage_factor) noexcept;

}  // namespace fairway
