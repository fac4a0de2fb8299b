// fairway.cc - the C API of fairway.h: errors, version, settings, job priorities, usage
// arithmetic and the reset schedule.  Fair-share trees are in fair_share_api.cc, the files
// (decay state, usage file, journal) in usage_files.cc.  Each function converts between
// the C structures and the core's own types (lib/priority/).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "fairway.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "api_guard.h"
#include "fair_share.h"
#include "fairway-config.h"
#include "job_factors.h"
#include "usage_decay.h"

static_assert(FAIRWAY_NO_VAL == fairway::kNoVal);
static_assert(FAIRWAY_INFINITE == fairway::kInfinite);
static_assert(FAIRWAY_NICE_OFFSET == fairway::kNiceOffset);
static_assert(FAIRWAY_FACTOR_COUNT == fairway::kFactorCount);
static_assert(FAIRWAY_FACTOR_AGE == static_cast<int>(fairway::Factor::kAge));
static_assert(FAIRWAY_FACTOR_ASSOC == static_cast<int>(fairway::Factor::kAssoc));
static_assert(FAIRWAY_FACTOR_FAIRSHARE == static_cast<int>(fairway::Factor::kFairshare));
static_assert(FAIRWAY_FACTOR_JOB_SIZE == static_cast<int>(fairway::Factor::kJobSize));
static_assert(FAIRWAY_FACTOR_PARTITION == static_cast<int>(fairway::Factor::kPartition));
static_assert(FAIRWAY_FACTOR_QOS == static_cast<int>(fairway::Factor::kQos));
static_assert(FAIRWAY_FACTOR_TRES == static_cast<int>(fairway::Factor::kTres));
static_assert(FAIRWAY_FACTOR_SITE == static_cast<int>(fairway::Factor::kSite));
static_assert(FAIRWAY_FACTOR_NICE == static_cast<int>(fairway::Factor::kNice));
static_assert(FAIRWAY_FLAG_ACCRUE_ALWAYS == fairway::kAccrueAlways);
static_assert(FAIRWAY_FLAG_SMALL_RELATIVE == fairway::kSmallRelativeToTime);
static_assert(FAIRWAY_FLAG_CALCULATE_RUNNING == fairway::kCalculateRunning);
static_assert(FAIRWAY_FLAG_DEPTH_OBLIVIOUS == fairway::kDepthOblivious);
static_assert(FAIRWAY_FLAG_NO_FAIR_TREE == fairway::kNoFairTree);
static_assert(FAIRWAY_FLAG_INCR_ONLY == fairway::kIncrOnly);
static_assert(FAIRWAY_FLAG_MAX_TRES == fairway::kMaxTres);
static_assert(FAIRWAY_FLAG_NO_NORMAL_ASSOC == fairway::kNoNormalAssoc);
static_assert(FAIRWAY_FLAG_NO_NORMAL_PART == fairway::kNoNormalPart);
static_assert(FAIRWAY_FLAG_NO_NORMAL_QOS == fairway::kNoNormalQos);
static_assert(FAIRWAY_FLAG_NO_NORMAL_TRES == fairway::kNoNormalTres);
static_assert(FAIRWAY_RESET_YEARLY == static_cast<int>(fairway::ResetPeriod::kYearly));

namespace fairway {

namespace {
thread_local std::string last_error;
}

void set_last_error(const char* message) noexcept {
  // guard() clears the message on every call: nothing to write when it is clear already.
  if (!*message && last_error.empty()) return;
  try {
    last_error = message;
  } catch (...) {
    // Keep the previous message rather than throw out of a noexcept function.
  }
}

namespace {

PrioritySettings to_core(const fairway_weights_t& w) {
  PrioritySettings c;
  for (size_t k = 0; k < kFactorCount; k++) c.weight.v[k] = w.weight[k];
  c.max_age = w.max_age;
  c.flags = w.flags;
  c.favor_small = w.favor_small != 0;
  c.tres = w.tres;
  c.tres_count = w.tres_count;
  c.slurm_release = w.slurm_release;
  return c;
}

Cluster to_core(const fairway_cluster_t& c) { return Cluster{c.cpus, c.nodes}; }

JobInput to_core(const fairway_job_input_t& j) {
  JobInput c;
  c.has_details = j.has_details != 0;
  c.accrue_time = j.accrue_time;
  c.total_cpus = j.total_cpus;
  c.max_cpus = j.max_cpus;
  c.min_cpus = j.min_cpus;
  c.min_nodes = j.min_nodes;
  c.time_limit = j.time_limit;
  c.has_assoc = j.has_assoc != 0;
  c.fs_factor = j.fs_factor;
  c.assoc_priority = j.assoc_priority;
  c.assoc_priority_norm = j.assoc_priority_norm;
  c.has_part = j.has_part != 0;
  c.part_priority_job_factor = j.part_priority_job_factor;
  c.part_norm_priority = j.part_norm_priority;
  c.part_max_time = j.part_max_time;
  c.has_qos = j.has_qos != 0;
  c.qos_priority = j.qos_priority;
  c.qos_norm_priority = j.qos_norm_priority;
  c.site_factor = j.site_factor;
  c.nice = j.nice;
  c.tres_alloc = j.tres_alloc;
  c.tres_req = j.tres_req;
  c.part_tres = j.part_tres;
  return c;
}

// The factors as the C struct's array (the same layout).
static_assert(sizeof(fairway_job_factors_t::factor) == sizeof(FactorValues::v));
fairway_job_factors_t to_c(const FactorValues& f) {
  fairway_job_factors_t c;
  std::memcpy(c.factor, f.v.data(), sizeof(c.factor));
  return c;
}

// A partition array of at most this many entries is converted on the stack.
constexpr size_t kStackParts = 64;

}  // namespace
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

fairway_algorithm_t fairway_algorithm_from_flags(uint32_t flags) {
  switch (fairway::algorithm_from_flags(flags)) {
    case fairway::Algorithm::kClassic:
      return FAIRWAY_ALGO_CLASSIC;
    case fairway::Algorithm::kDepthOblivious:
      return FAIRWAY_ALGO_DEPTH_OBLIVIOUS;
    case fairway::Algorithm::kFairTree:
      break;
  }
  return FAIRWAY_ALGO_FAIR_TREE;
}

// Called once per job per period: nothing in the core can throw here, so no guard (and
// no thread-local error bookkeeping) on this path; a NULL argument is an error all the same.
fairway_error_t fairway_job_weigh(const fairway_weights_t* w, const fairway_cluster_t* c,
                                  const fairway_job_input_t* job, time_t now, double* tres_out,
                                  fairway_job_partition_t* parts, size_t nparts,
                                  fairway_job_weighed_t* out) {
  if (!w || !c || !job || !out || (!parts && nparts)) {
    fairway::set_last_error("fairway_job_weigh: NULL argument");
    return FAIRWAY_EINVAL;
  }
  // Storage left unwritten but for the nparts slots used: a PartitionSlot array would set
  // every member of all 64 slots first, about 500 instructions per job weighed.
  union StackSlots {
    StackSlots() {}
    fairway::PartitionSlot v[fairway::kStackParts];
  } stack;
  std::vector<fairway::PartitionSlot> heap;
  fairway::PartitionSlot* slots = stack.v;
  if (nparts > fairway::kStackParts) {
    try {
      heap.resize(nparts);
    } catch (...) {
      fairway::set_last_error("fairway_job_weigh: out of memory");
      return FAIRWAY_ENOMEM;
    }
    slots = heap.data();
  }
  for (size_t i = 0; i < nparts; i++) {
    ::new (static_cast<void*>(&slots[i])) fairway::PartitionSlot();
    slots[i].priority_job_factor = parts[i].priority_job_factor;
    slots[i].norm_priority = parts[i].norm_priority;
    slots[i].tres_cnt = parts[i].tres_cnt;
    slots[i].priority = parts[i].priority;
    slots[i].has_qos = parts[i].has_qos != 0;
    slots[i].qos_priority = parts[i].qos_priority;
    slots[i].qos_norm_priority = parts[i].qos_norm_priority;
  }
  const fairway::JobPriority r =
      fairway::weigh_job(fairway::to_core(*w), fairway::to_core(*c), fairway::to_core(*job), now,
                         tres_out, slots, nparts);
  for (size_t i = 0; i < nparts; i++) {
    parts[i].priority = slots[i].priority;
    parts[i].clamped = slots[i].clamped;
  }
  out->weighted = fairway::to_c(r.weighted);
  out->priority = r.priority;
  out->clamped = r.clamped;
  return FAIRWAY_OK;
}

double fairway_decay_factor(double half_life_seconds) {
  return fairway::decay_factor(half_life_seconds);
}

double fairway_exact_decay_factor(double half_life_seconds) {
  return fairway::exact_decay_factor(half_life_seconds);
}

double fairway_period_decay(double decay_factor, double seconds) {
  return fairway::period_decay(decay_factor, seconds);
}

int fairway_reset_due(fairway_reset_schedule_t* s, time_t now) {
  if (!s) return 0;
  fairway::ResetSchedule r;
  // Values outside the enumeration are never a reset, as next_reset() gives them none.
  r.period = static_cast<fairway::ResetPeriod>(static_cast<int>(s->period));
  r.last_reset = s->last_reset;
  r.next_reset = s->next_reset;
  const bool due = r.due(now);
  s->period = static_cast<fairway_reset_period_t>(static_cast<int>(r.period));
  s->last_reset = r.last_reset;
  s->next_reset = r.next_reset;
  return due;
}

long double fairway_usage_norm(long double usage_raw, long double root_usage_raw) {
  return fairway::usage_norm(usage_raw, root_usage_raw);
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

}  // extern "C"
