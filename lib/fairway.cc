// fairway.cc - the C API of fairway.h: errors, version and job factors.  The fair-share
// part of the API is in fairway_fairshare.cc.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "fairway-config.h"
#include "fairway.h"

#include <string>

#include "api_guard.h"
#include "job_factors.h"

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

fairway_error_t fairway_job_factors(const fairway_weights_t* w, const fairway_cluster_t* c,
                                    const fairway_job_input_t* job, time_t now,
                                    fairway_job_factors_t* out) {
  return fairway::guard([&] {
    if (!w || !c || !job || !out) fairway::invalid("fairway_job_factors: NULL argument");
    *out = fairway::job_factors(*w, *c, *job, now);
  });
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

}  // extern "C"
