// fairway.cc - the C API of fairway.h: errors, version and job factors.  The fair-share
// part of the API is in fairway_fairshare.cc.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "fairway-config.h"
#include "fairway.h"

#include <string>

#include "api_guard.h"
#include "job_factors.h"
#include "state_file.h"
#include "usage_decay.h"

namespace fairway {

namespace {
thread_local std::string last_error;
}

void set_last_error(const char* message) noexcept {
  try {
    last_error = message;
  } catch (...) {
    // Keep the previous message rather than throw out of a noexcept function.
  }
}

}  // namespace fairway

extern "C" {

const char* fairway_strerror(fairway_error_t err) {
  switch (err) {
    case FAIRWAY_OK:
      return "success";
    case FAIRWAY_EINVAL:
      return "invalid argument";
    case FAIRWAY_ENOMEM:
      return "out of memory";
    case FAIRWAY_ETREE:
      return "malformed association tree";
    case FAIRWAY_EPARSE:
      return "malformed input";
    case FAIRWAY_EIO:
      return "input/output error";
    case FAIRWAY_EINTERNAL:
      return "internal error in the Fairway core";
  }
  return "unknown error";
}

const char* fairway_last_error(void) { return fairway::last_error.c_str(); }

const char* fairway_version(void) { return PACKAGE_VERSION; }

// Called once per job per period: no exception can occur, so no guard (and no
// thread-local error bookkeeping) on this path.
fairway_error_t fairway_job_factors(const fairway_weights_t* w, const fairway_cluster_t* c,
                                    const fairway_job_input_t* job, time_t now,
                                    fairway_job_factors_t* out) {
  if (!w || !c || !job || !out) {
    fairway::set_last_error("fairway_job_factors: NULL argument");
    return FAIRWAY_EINVAL;
  }
  *out = fairway::job_factors(*w, *c, *job, now);
  return FAIRWAY_OK;
}

fairway_error_t fairway_tres_factors(const fairway_weights_t* w, const uint64_t* alloc,
                                     const uint64_t* req, const uint64_t* part_tres,
                                     double* out) {
  return fairway::guard([&] {
    if (!w || (!out && w->tres_count)) fairway::invalid("fairway_tres_factors: NULL argument");
    fairway::tres_factors(*w, alloc, req, part_tres, out);
  });
}

double fairway_tres_weighted(const fairway_weights_t* w, double* factors) {
  if (!w || !factors) return 0.0;
  return fairway::tres_weighted(*w, factors);
}

uint32_t fairway_job_priority(const fairway_weights_t* w, fairway_job_factors_t* f,
                              double tres_weighted, int* clamped) {
  if (!w || !f) return 1;
  bool c = false;
  const uint32_t p = fairway::job_priority(*w, *f, tres_weighted, &c);
  if (clamped) *clamped = c;
  return p;
}

uint32_t fairway_job_priority_in_partition(const fairway_weights_t* w,
                                           const fairway_job_factors_t* weighted,
                                           uint32_t part_priority_job_factor,
                                           double part_norm_priority, double part_tres_weighted,
                                           int* clamped) {
  if (!w || !weighted) return 1;
  bool c = false;
  const uint32_t p = fairway::job_priority_in_partition(
      *w, *weighted, part_priority_job_factor, part_norm_priority, part_tres_weighted, &c);
  if (clamped) *clamped = c;
  return p;
}

double fairway_decay_factor(double half_life_seconds) {
  return fairway::decay_factor(half_life_seconds);
}

double fairway_period_decay(double decay_factor, double seconds) {
  return fairway::period_decay(decay_factor, seconds);
}

time_t fairway_next_reset(fairway_reset_period_t period, time_t last_reset, time_t now) {
  return fairway::next_reset(static_cast<fairway::ResetPeriod>(period), last_reset, now);
}

// Once per running job per period: nothing here can throw, so no guard.
fairway_error_t fairway_job_charge(const fairway_job_times_t* job, time_t start_period,
                                   time_t end_period, int at_end, double decay_factor,
                                   double billable_tres, double usage_factor,
                                   fairway_job_charge_t* out) {
  if (!job || !out) {
    fairway::set_last_error("fairway_job_charge: NULL argument");
    return FAIRWAY_EINVAL;
  }
  fairway::JobTimes t;
  t.start_time = job->start_time;
  t.end_time = job->end_time;
  t.end_time_exp = job->end_time_exp;
  t.time_limit = job->time_limit;
  t.finished = job->finished != 0;
  const fairway::JobCharge c = fairway::job_charge(t, start_period, end_period, at_end != 0,
                                                   decay_factor, billable_tres, usage_factor);
  out->run_delta = c.run_delta;
  out->run_decay = c.run_decay;
  out->run_nodecay = c.run_nodecay;
  out->real_decay = c.real_decay;
  out->real_nodecay = c.real_nodecay;
  out->tres_time_delta = c.tres_time_delta;
  return FAIRWAY_OK;
}

fairway_error_t fairway_decay_state_read(const char* path, time_t now, int* found,
                                         time_t* last_ran, time_t* last_reset) {
  return fairway::guard([&] {
    if (!path || !found || !last_ran || !last_reset)
      fairway::invalid("fairway_decay_state_read: NULL argument");
    *found = 0;
    *last_ran = 0;
    *last_reset = 0;
    if (auto s = fairway::read_decay_state(path, now)) {
      *found = 1;
      *last_ran = s->last_ran;
      *last_reset = s->last_reset;
    }
  });
}

fairway_error_t fairway_decay_state_write(const char* path, time_t last_ran, time_t last_reset) {
  return fairway::guard([&] {
    if (!path) fairway::invalid("fairway_decay_state_write: NULL path");
    fairway::write_decay_state(path, fairway::DecayState{last_ran, last_reset});
  });
}

}  // extern "C"
