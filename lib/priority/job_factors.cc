// job_factors.cc - see job_factors.h.  Every branch mirrors a decision of Slurm 22.05's
// multifactor plugin; integer types and conversions are kept where they change results
// (e.g. the age difference is a uint32_t, node/CPU differences wrap as unsigned).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "job_factors.h"

#include <cstdint>
#include <cstring>

namespace fairway {
namespace {

double age_factor(const PrioritySettings& w, const JobInput& job, time_t now) {
  if (!w.weight[Factor::kAge] || !job.accrue_time) return 0.0;
  // Slurm keeps the difference in 32 bits; a job accruing in the future has age 0.
  uint32_t diff = 0;
  // (Unsigned arithmetic: the same low 32 bits, defined for any two times.)
  if (now > job.accrue_time)
    diff =
        static_cast<uint32_t>(static_cast<uint64_t>(now) - static_cast<uint64_t>(job.accrue_time));
  if (diff < w.max_age) return static_cast<double>(diff) / static_cast<double>(w.max_age);
  return 1.0;
}

double job_size_factor(const PrioritySettings& w, const Cluster& c, const JobInput& job) {
  // 23.11 on: no factor before the cluster has nodes and CPUs (22.05 divided by zero).
  const bool rules_2311 = w.slurm_release >= kSlurm2311;
  if (rules_2311 && (!c.cpus || !c.nodes)) return 0.0;
  // Before the job has run, total_cpus is 0: use the request instead.
  uint32_t cpu_cnt = 0;
  if (job.total_cpus)
    cpu_cnt = job.total_cpus;
  else if (job.max_cpus != kNoVal)
    cpu_cnt = job.max_cpus;
  else if (job.min_cpus)
    cpu_cnt = job.min_cpus;
  const uint32_t min_nodes = job.min_nodes;

  double js;
  if (w.flags & kSmallRelativeToTime) {
    // CPUs (at least the nodes' average share of CPUs) per minute of time limit.
    js =
        static_cast<double>(min_nodes) * static_cast<double>(c.cpus) / static_cast<double>(c.nodes);
    if (cpu_cnt > js) js = static_cast<double>(cpu_cnt);
    uint32_t time_limit = 1;
    if (job.time_limit != kNoVal)
      time_limit = job.time_limit;
    else if (job.has_part)
      time_limit = job.part_max_time;
    js /= time_limit;
    js /= c.cpus;
    if (w.favor_small) js = 1.0 - js;
  } else if (w.favor_small) {
    // 22.05 subtracts in 32 bits (a job asking for more nodes than exist wraps around and
    // is clamped to 1 below); 23.11 on gives such a job 0 for its nodes.
    if (!rules_2311 || c.nodes > min_nodes)
      js = static_cast<double>(c.nodes - min_nodes) / static_cast<double>(c.nodes);
    else
      js = 0;
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

// A value Slurm keeps with kNiceOffset added (site factor, nice), as a signed number.
double without_offset(uint32_t v) {
  return static_cast<double>(static_cast<int64_t>(v) - kNiceOffset);
}

}  // namespace

FactorValues job_factors(const PrioritySettings& w, const Cluster& c, const JobInput& job,
                         time_t now) noexcept {
  FactorValues f;
  f[Factor::kAge] = age_factor(w, job, now);
  if (job.has_assoc && w.weight[Factor::kFairshare]) f[Factor::kFairshare] = job.fs_factor;
  if (w.weight[Factor::kJobSize]) f[Factor::kJobSize] = job_size_factor(w, c, job);
  if (job.has_part && job.part_priority_job_factor && w.weight[Factor::kPartition])
    f[Factor::kPartition] = (w.flags & kNoNormalPart)
                                ? static_cast<double>(job.part_priority_job_factor)
                                : job.part_norm_priority;
  f[Factor::kSite] = without_offset(job.site_factor);
  if (job.has_assoc && w.weight[Factor::kAssoc])
    f[Factor::kAssoc] = (w.flags & kNoNormalAssoc) ? static_cast<double>(job.assoc_priority)
                                                   : job.assoc_priority_norm;
  if (job.has_qos && job.qos_priority && w.weight[Factor::kQos])
    f[Factor::kQos] =
        (w.flags & kNoNormalQos) ? static_cast<double>(job.qos_priority) : job.qos_norm_priority;
  f[Factor::kNice] = without_offset(job.has_details ? job.nice : kNiceOffset);
  return f;
}

void tres_factors_over(uint32_t flags, size_t count, const uint64_t* alloc, const uint64_t* req,
                       const uint64_t* part_tres, double* inout) noexcept {
  for (size_t i = 0; i < count; i++) {
    uint64_t value = 0;
    if (alloc && alloc[i] != kNoConsume64)
      value = alloc[i];
    else if (req)
      value = req[i];
    if (flags & kNoNormalTres)
      inout[i] = static_cast<double>(value);
    else if (value && part_tres && part_tres[i])
      inout[i] = value / static_cast<double>(part_tres[i]);
    // else: left as it was (see the header)
  }
}

void tres_factors(const PrioritySettings& w, const uint64_t* alloc, const uint64_t* req,
                  const uint64_t* part_tres, double* out) noexcept {
  std::memset(out, 0, sizeof(double) * w.tres_count);
  tres_factors_over(w, alloc, req, part_tres, out);
}

double tres_weighted(const double* weights, size_t count, double* factors) noexcept {
  double sum = 0.0;
  if (!weights) return sum;
  for (size_t i = 0; i < count; i++) {
    factors[i] *= weights[i];
    sum += factors[i];
  }
  return sum;
}

uint32_t job_priority(const PrioritySettings& w, FactorValues& f, double tres_w,
                      bool* clamped) noexcept {
  // The factors before kTres have a PriorityWeight* (a loop of constant count: unrolled).
  for (size_t i = 0; i < static_cast<size_t>(Factor::kTres); i++)
    f.v[i] *= static_cast<double>(w.weight.v[i]);
  f[Factor::kTres] = tres_w;
  return priority_sum(f, SumOrder::kJob, clamped);
}

uint32_t job_priority_in_partition(const PrioritySettings& w, const FactorValues& weighted,
                                   uint32_t part_priority_job_factor, double part_norm_priority,
                                   double part_tres_w, bool* clamped) noexcept {
  FactorValues f = weighted;
  f[Factor::kPartition] = ((w.flags & kNoNormalPart) ? static_cast<double>(part_priority_job_factor)
                                                     : part_norm_priority) *
                          static_cast<double>(w.weight[Factor::kPartition]);
  f[Factor::kTres] = part_tres_w;
  return priority_sum(f, SumOrder::kPartitionFirst, clamped);
}

namespace {

// The weighted sum of a job's TRES factors in one partition: tres_factors then
// tres_weighted, without the array (each term is computed and added in the same order).
double partition_tres_weighted(const PrioritySettings& w, const JobInput& job,
                               const uint64_t* part_tres) {
  double sum = 0.0;
  for (size_t i = 0; i < w.tres_count; i++) {
    uint64_t value = 0;
    if (job.tres_alloc && job.tres_alloc[i] != kNoConsume64)
      value = job.tres_alloc[i];
    else if (job.tres_req)
      value = job.tres_req[i];
    double f = 0.0;
    if (w.flags & kNoNormalTres)
      f = static_cast<double>(value);
    else if (value && part_tres && part_tres[i])
      f = value / static_cast<double>(part_tres[i]);
    f *= w.tres[i];
    sum += f;
  }
  return sum;
}

}  // namespace

JobPriority weigh_job(const PrioritySettings& w, const Cluster& c, const JobInput& job, time_t now,
                      double* tres_out, PartitionSlot* parts, size_t nparts) noexcept {
  JobPriority r;
  r.weighted = job_factors(w, c, job, now);
  double tres_sum = 0.0;
  if (w.tres && tres_out) {
    tres_factors(w, job.tres_alloc, job.tres_req, job.part_tres, tres_out);
    tres_sum = tres_weighted(w, tres_out);
  }
  r.priority = job_priority(w, r.weighted, tres_sum, &r.clamped);
  for (size_t i = 0; i < nparts; i++) {
    PartitionSlot& p = parts[i];
    const double part_tres = w.tres ? partition_tres_weighted(w, job, p.tres_cnt) : 0.0;
    uint32_t prio;
    if (p.has_qos && p.qos_priority && w.weight[Factor::kQos]) {
      // A pair with one of the job's several QOS: that QOS's factor instead of the job's.
      FactorValues f = r.weighted;
      f[Factor::kQos] =
          ((w.flags & kNoNormalQos) ? static_cast<double>(p.qos_priority) : p.qos_norm_priority) *
          static_cast<double>(w.weight[Factor::kQos]);
      prio = job_priority_in_partition(w, f, p.priority_job_factor, p.norm_priority, part_tres,
                                       &p.clamped);
    } else {
      prio = job_priority_in_partition(w, r.weighted, p.priority_job_factor, p.norm_priority,
                                       part_tres, &p.clamped);
    }
    if (!(w.flags & kIncrOnly) || p.priority < prio) p.priority = prio;
  }
  return r;
}

}  // namespace fairway
