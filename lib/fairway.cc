// fairway.cc - the C API of fairway.h: errors, version and job factors.  The fair-share
// part of the API is in fairway_fairshare.cc.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "fairway.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_guard.h"
#include "fairway-config.h"
#include "job_factors.h"
#include "state_file.h"
#include "usage_decay.h"
#include "usage_store.h"

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
                                     const uint64_t* req, const uint64_t* part_tres, double* out) {
  return fairway::guard([&] {
    if (!w || (!out && w->tres_count)) fairway::invalid("fairway_tres_factors: NULL argument");
    fairway::tres_factors(*w, alloc, req, part_tres, out);
  });
}

double fairway_tres_weighted(const fairway_weights_t* w, double* factors) {
  if (!w || !factors) return 0.0;
  return fairway::tres_weighted(*w, factors);
}

double fairway_sprio_row_tres(const fairway_weights_t* w, const uint64_t* alloc,
                              const uint64_t* req, const uint64_t* part_tres, double* row) {
  if (!w || !row) return 0.0;
  fairway::tres_factors_over(*w, alloc, req, part_tres, row);
  return fairway::tres_weighted(*w, row);
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
  const uint32_t p = fairway::job_priority_in_partition(*w, *weighted, part_priority_job_factor,
                                                        part_norm_priority, part_tres_weighted, &c);
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

fairway_error_t fairway_decay_state_read(const char* path, time_t now, int* found, time_t* last_ran,
                                         time_t* last_reset) {
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

fairway_error_t fairway_usage_write(const char* path, time_t period,
                                    const fairway_usage_entry_t* assocs, size_t nassocs,
                                    const fairway_usage_entry_t* qos, size_t nqos) {
  return fairway::guard([&] {
    if (!path || (!assocs && nassocs) || (!qos && nqos))
      fairway::invalid("fairway_usage_write: NULL argument");
    fairway::UsageSnapshot s;
    s.period = period;
    s.assocs.reserve(nassocs);
    for (size_t i = 0; i < nassocs; i++)
      s.assocs.push_back({assocs[i].id, assocs[i].usage_raw, assocs[i].grp_used_wall});
    s.qos.reserve(nqos);
    for (size_t i = 0; i < nqos; i++)
      s.qos.push_back({qos[i].id, qos[i].usage_raw, qos[i].grp_used_wall});
    fairway::write_usage_file(path, s);
  });
}

}  // extern "C"

struct fairway_usage_file {
  fairway::UsageSnapshot s;
  std::vector<fairway_usage_entry_t> assocs, qos;
};

extern "C" {

fairway_error_t fairway_usage_read(const char* path, fairway_usage_file_t** out) {
  return fairway::guard([&] {
    if (!path || !out) fairway::invalid("fairway_usage_read: NULL argument");
    *out = nullptr;
    auto s = fairway::read_usage_file(path);
    if (!s) return;
    auto f = std::make_unique<fairway_usage_file>();
    for (const auto& e : s->assocs) f->assocs.push_back({e.id, e.usage_raw, e.grp_used_wall});
    for (const auto& e : s->qos) f->qos.push_back({e.id, e.usage_raw, e.grp_used_wall});
    f->s = std::move(*s);
    *out = f.release();
  });
}

time_t fairway_usage_period(const fairway_usage_file_t* f) { return f ? f->s.period : 0; }

size_t fairway_usage_count(const fairway_usage_file_t* f, int qos) {
  return f ? (qos ? f->qos.size() : f->assocs.size()) : 0;
}

const fairway_usage_entry_t* fairway_usage_entry(const fairway_usage_file_t* f, int qos,
                                                 size_t index) {
  if (!f) return nullptr;
  const auto& v = qos ? f->qos : f->assocs;
  return index < v.size() ? &v[index] : nullptr;
}

void fairway_usage_destroy(fairway_usage_file_t** f) {
  if (!f || !*f) return;
  delete *f;
  *f = nullptr;
}

size_t fairway_journal_format(const fairway_journal_entry_t* e, char* buf, size_t len) {
  if (!e || !buf) return 0;
  try {
    fairway::JournalEntry j;
    j.epoch = e->epoch;
    j.job_id = e->job_id;
    j.assoc_id = e->assoc_id;
    j.real = e->real;
    j.run = e->run;
    j.qos_id = e->qos_id;
    j.qos_usage = e->qos_usage;
    j.qos_wall = e->qos_wall;
    j.part_qos_id = e->part_qos_id;
    j.part_qos_usage = e->part_qos_usage;
    j.part_qos_wall = e->part_qos_wall;
    const std::string line = fairway::format_journal_line(j);
    if (line.size() + 1 > len) return 0;
    std::memcpy(buf, line.c_str(), line.size() + 1);
    return line.size();
  } catch (...) {
    return 0;
  }
}

fairway_error_t fairway_journal_read(const char* path, fairway_journal_entry_t** entries,
                                     size_t* count) {
  return fairway::guard([&] {
    if (!path || !entries || !count) fairway::invalid("fairway_journal_read: NULL argument");
    *entries = nullptr;
    *count = 0;
    const auto v = fairway::read_journal_file(path);
    if (v.empty()) return;
    auto* out = static_cast<fairway_journal_entry_t*>(
        std::calloc(v.size(), sizeof(fairway_journal_entry_t)));
    if (!out) throw std::bad_alloc();
    for (size_t i = 0; i < v.size(); i++) {
      out[i].epoch = v[i].epoch;
      out[i].job_id = v[i].job_id;
      out[i].assoc_id = v[i].assoc_id;
      out[i].real = v[i].real;
      out[i].run = v[i].run;
      out[i].qos_id = v[i].qos_id;
      out[i].qos_usage = v[i].qos_usage;
      out[i].qos_wall = v[i].qos_wall;
      out[i].part_qos_id = v[i].part_qos_id;
      out[i].part_qos_usage = v[i].part_qos_usage;
      out[i].part_qos_wall = v[i].part_qos_wall;
    }
    *entries = out;
    *count = v.size();
  });
}

}  // extern "C"
