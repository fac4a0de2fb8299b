// job_factors.cc - see job_factors.h.  Every branch mirrors a decision of Slurm 22.05's
// multifactor plugin; integer types and conversions are kept where they change results
// (e.g. the age difference is a uint32_t, node/CPU differences wrap as unsigned).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "job_factors.h"

#include <cstdint>
#include <cstring>

namespace fairway {
namespace {

double age_factor(const fairway_weights_t& w, const fairway_job_input_t& job, time_t now) {
  if (!w.age || !job.accrue_time) return 0.0;
  // Slurm keeps the difference in 32 bits; a job accruing in the future has age 0.
  uint32_t diff = 0;
  // (Unsigned arithmetic: the same low 32 bits, defined for any two times.)
  if (now > job.accrue_time)
    diff = static_cast<uint32_t>(static_cast<uint64_t>(now) -
                                 static_cast<uint64_t>(job.accrue_time));
  if (diff < w.max_age) return static_cast<double>(diff) / static_cast<double>(w.max_age);
  return 1.0;
}

double job_size_factor(const fairway_weights_t& w, const fairway_cluster_t& c,
                       const fairway_job_input_t& job) {
  // Before the job has run, total_cpus is 0: use the request instead.
  uint32_t cpu_cnt = 0;
  if (job.total_cpus)
    cpu_cnt = job.total_cpus;
  else if (job.max_cpus != FAIRWAY_NO_VAL)
    cpu_cnt = job.max_cpus;
  else if (job.min_cpus)
    cpu_cnt = job.min_cpus;
  const uint32_t min_nodes = job.min_nodes;

  double js;
  if (w.flags & FAIRWAY_FLAG_SMALL_RELATIVE) {
    // CPUs (at least the nodes' average share of CPUs) per minute of time limit.
    js =
        static_cast<double>(min_nodes) * static_cast<double>(c.cpus) / static_cast<double>(c.nodes);
    if (cpu_cnt > js) js = static_cast<double>(cpu_cnt);
    uint32_t time_limit = 1;
    if (job.time_limit != FAIRWAY_NO_VAL)
      time_limit = job.time_limit;
    else if (job.has_part)
      time_limit = job.part_max_time;
    js /= time_limit;
    js /= c.cpus;
    if (w.favor_small) js = 1.0 - js;
  } else if (w.favor_small) {
    js = static_cast<double>(c.nodes - min_nodes) / static_cast<double>(c.nodes);
    if (cpu_cnt) {
      js += static_cast<double>(c.cpus - cpu_cnt) / static_cast<double>(c.cpus);
      js /= 2;
    }
  } else {
    js = static_cast<double>(min_nodes) / static_cast<double>(c.nodes);
    if (cpu_cnt) {
      js += static_cast<double>(cpu_cnt) / static_cast<double>(c.cpus);
      js /= 2;
    }
  }
  // NaN (0/0: no nodes, no CPUs and a zero time limit) counts as 0, where Slurm would
  // carry it into the priority.
  if (!(js >= .0))
    js = 0.0;
  else if (js > 1.0)
    js = 1.0;
  return js;
}

}  // namespace

fairway_job_factors_t job_factors(const fairway_weights_t& w, const fairway_cluster_t& c,
                                  const fairway_job_input_t& job, time_t now) noexcept {
  fairway_job_factors_t f{};
  f.age = age_factor(w, job, now);
  if (job.has_assoc && w.fairshare) f.fairshare = job.fs_factor;
  if (w.job_size) f.job_size = job_size_factor(w, c, job);
  if (job.has_part && job.part_priority_job_factor && w.partition)
    f.partition = (w.flags & FAIRWAY_FLAG_NO_NORMAL_PART)
                      ? static_cast<double>(job.part_priority_job_factor)
                      : job.part_norm_priority;
  f.site = job.site_factor;
  if (job.has_assoc && w.assoc)
    f.assoc = (w.flags & FAIRWAY_FLAG_NO_NORMAL_ASSOC) ? static_cast<double>(job.assoc_priority)
                                                       : job.assoc_priority_norm;
  if (job.has_qos && job.qos_priority && w.qos)
    f.qos = (w.flags & FAIRWAY_FLAG_NO_NORMAL_QOS) ? static_cast<double>(job.qos_priority)
                                                   : job.qos_norm_priority;
  f.nice = job.has_details ? job.nice : FAIRWAY_NICE_OFFSET;
  return f;
}

void tres_factors_over(const fairway_weights_t& w, const uint64_t* alloc, const uint64_t* req,
                       const uint64_t* part_tres, double* inout) noexcept {
  constexpr uint64_t kNoConsume = 0xfffffffffffffffdULL;  // Slurm's NO_CONSUME_VAL64
  for (size_t i = 0; i < w.tres_count; i++) {
    uint64_t value = 0;
    if (alloc && alloc[i] != kNoConsume)
      value = alloc[i];
    else if (req)
      value = req[i];
    if (w.flags & FAIRWAY_FLAG_NO_NORMAL_TRES)
      inout[i] = static_cast<double>(value);
    else if (value && part_tres && part_tres[i])
      inout[i] = value / static_cast<double>(part_tres[i]);
    // else: left as it was (see the header)
  }
}

void tres_factors(const fairway_weights_t& w, const uint64_t* alloc, const uint64_t* req,
                  const uint64_t* part_tres, double* out) noexcept {
  std::memset(out, 0, sizeof(double) * w.tres_count);
  tres_factors_over(w, alloc, req, part_tres, out);
}

double tres_weighted(const fairway_weights_t& w, double* factors) noexcept {
  double sum = 0.0;
  if (!w.tres) return sum;
  for (size_t i = 0; i < w.tres_count; i++) {
    factors[i] *= w.tres[i];
    sum += factors[i];
  }
  return sum;
}

namespace {

// Priority 0 is reserved for held jobs; more than 32 bits is clamped (Slurm logs it).
// Compared as doubles before any conversion: Slurm's (uint64_t) cast of a sum >= 2^64 is
// undefined (0 on x86-64, i.e. a "held" job) and so is that of NaN; here NaN counts as < 1.
uint32_t clamp_priority(double priority, bool* clamped) {
  if (!(priority >= 1)) priority = 1;
  if (priority >= 4294967296.0) {
    if (clamped) *clamped = true;
    return 0xffffffffU;
  }
  return static_cast<uint32_t>(priority);
}

double site_minus_nice(const fairway_job_factors_t& f, double sum) {
  return sum + static_cast<double>(static_cast<int64_t>(f.site) - FAIRWAY_NICE_OFFSET) -
         static_cast<double>(static_cast<int64_t>(f.nice) - FAIRWAY_NICE_OFFSET);
}

}  // namespace

uint32_t job_priority(const fairway_weights_t& w, fairway_job_factors_t& f, double tres_w,
                      bool* clamped) noexcept {
  if (clamped) *clamped = false;
  f.age *= static_cast<double>(w.age);
  f.assoc *= static_cast<double>(w.assoc);
  f.fairshare *= static_cast<double>(w.fairshare);
  f.job_size *= static_cast<double>(w.job_size);
  f.partition *= static_cast<double>(w.partition);
  f.qos *= static_cast<double>(w.qos);
  // Same order of additions as Slurm, so the double result is bit-identical.
  const double sum = f.age + f.assoc + f.fairshare + f.job_size + f.partition + f.qos + tres_w;
  return clamp_priority(site_minus_nice(f, sum), clamped);
}

uint32_t job_priority_in_partition(const fairway_weights_t& w, const fairway_job_factors_t& f,
                                   uint32_t part_priority_job_factor, double part_norm_priority,
                                   double part_tres_w, bool* clamped) noexcept {
  if (clamped) *clamped = false;
  double prio =
      ((w.flags & FAIRWAY_FLAG_NO_NORMAL_PART) ? static_cast<double>(part_priority_job_factor)
                                               : part_norm_priority) *
      static_cast<double>(w.partition);
  // Slurm sums the other weighted factors first, then adds them to the partition term.
  prio += site_minus_nice(f, f.age + f.assoc + f.fairshare + f.job_size + f.qos + part_tres_w);
  return clamp_priority(prio, clamped);
}

}  // namespace fairway
