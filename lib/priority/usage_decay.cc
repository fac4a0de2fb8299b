// usage_decay.cc - see usage_decay.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "usage_decay.h"

#include <cfloat>
#include <cmath>
#include <cstdint>

namespace fairway {

double decay_factor(double half_life_seconds) noexcept {
  if (half_life_seconds > 0) return 1 - (0.693 / half_life_seconds);
  return 1;
}

double exact_decay_factor(double half_life_seconds) noexcept {
  if (half_life_seconds > 0) return std::exp2(-1 / half_life_seconds);
  return 1;
}

double period_decay(double factor, double seconds) noexcept {
  double d = std::pow(factor, seconds);
  if (d < DBL_MIN) d = DBL_MIN;
  return d;
}

namespace {
constexpr time_t kDay = 86400;

// double -> uint64_t as Slurm converts in range; NaN and negatives give 0 and values
// from 2^64 up give 2^64-1 (undefined in C, so no result of Slurm's to match).
uint64_t to_u64(double d) {
  if (!(d > 0)) return 0;
  if (d >= 18446744073709551616.0) return UINT64_MAX;
  return static_cast<uint64_t>(d);
}
constexpr time_t kWeek = 7 * kDay;

// Slurm's slurm_mktime(): mktime() letting the C library decide daylight saving time.
time_t local_mktime(struct tm* tm) {
  tm->tm_isdst = -1;
  return std::mktime(tm);
}
}  // namespace

bool ResetSchedule::due(time_t now) noexcept {
  switch (period) {
    case ResetPeriod::kNone:
      return false;
    case ResetPeriod::kNow:  // once
      period = ResetPeriod::kNone;
      last_reset = now;
      return true;
    default:
      if (!next_reset) next_reset = fairway::next_reset(period, last_reset, now);
      if (!next_reset || now < next_reset) return false;
      last_reset = next_reset;
      next_reset = fairway::next_reset(period, last_reset, now);
      return true;
  }
}

time_t next_reset(ResetPeriod period, time_t last_reset, time_t now) noexcept {
  struct tm tm {};
  if (!localtime_r(&last_reset, &tm)) return 0;
  tm.tm_sec = 0;
  tm.tm_min = 0;
  tm.tm_hour = 0;
  time_t t;
  switch (period) {
    case ResetPeriod::kDaily:
      t = local_mktime(&tm) + kDay;
      while (t + kDay < now) t += kDay;
      return t;
    case ResetPeriod::kWeekly:
      t = local_mktime(&tm) + kDay * (7 - tm.tm_wday);
      while (t + kWeek < now) t += kWeek;
      return t;
    case ResetPeriod::kMonthly:
      tm.tm_mday = 1;
      if (tm.tm_mon < 11) {
        tm.tm_mon++;
      } else {
        tm.tm_mon = 0;
        tm.tm_year++;
      }
      break;
    case ResetPeriod::kQuarterly:
      tm.tm_mday = 1;
      if (tm.tm_mon < 3) {
        tm.tm_mon = 3;
      } else if (tm.tm_mon < 6) {
        tm.tm_mon = 6;
      } else if (tm.tm_mon < 9) {
        tm.tm_mon = 9;
      } else {
        tm.tm_mon = 0;
        tm.tm_year++;
      }
      break;
    case ResetPeriod::kYearly:
      tm.tm_mday = 1;
      tm.tm_mon = 0;
      tm.tm_year++;
      break;
    default:
      return 0;
  }
  return local_mktime(&tm);
}

JobCharge job_charge(const JobTimes& job, time_t start_period, time_t end_period, bool at_end,
                     double factor, double billable_tres, double usage_factor) noexcept {
  JobCharge c;
  if (job.start_time > start_period) start_period = job.start_time;
  // A job running past its time limit has an end time in the past: only at its end.
  if (job.end_time && at_end && end_period > job.end_time) end_period = job.end_time;
  c.run_delta = std::difftime(end_period, start_period);
  if (c.run_delta < 0) c.run_delta = 0;

  // TRES run seconds were reserved up to start + time limit when the job started.
  const uint64_t limit_ends =
      static_cast<uint64_t>(job.start_time) + static_cast<uint64_t>(job.time_limit) * 60;
  if (static_cast<uint64_t>(start_period) >= limit_ends) {
    c.tres_time_delta = 0;
  } else if (job.finished) {
    c.tres_time_delta = limit_ends - static_cast<uint64_t>(start_period);
  } else if (end_period > job.end_time_exp) {
    // Slurm stores this difference in an int; a difference beyond its range (an expected
    // end 68 years away) is undefined there and on x86-64 becomes INT_MIN: nothing is
    // released.  Same result here, defined.
    const double end_exp = std::difftime(job.end_time_exp, start_period);
    if (end_exp >= 1 && end_exp < 2147483648.0)
      c.tres_time_delta = static_cast<uint64_t>(static_cast<int>(end_exp));
  } else {
    c.tres_time_delta = to_u64(c.run_delta);
  }

  c.run_decay = c.run_delta * std::pow(factor, c.run_delta);
  c.real_decay = c.run_decay * billable_tres;
  c.real_nodecay = c.run_delta * billable_tres;
  c.run_nodecay = c.run_delta;
  if (usage_factor >= 0) {
    c.real_decay *= usage_factor;
    c.run_decay *= usage_factor;
    c.real_nodecay *= usage_factor;
    c.run_nodecay *= usage_factor;
    // Slurm multiplies the uint64_t in place by a double (truncating back).
    c.tres_time_delta = to_u64(static_cast<double>(c.tres_time_delta) * usage_factor);
  }
  return c;
}

}  // namespace fairway
