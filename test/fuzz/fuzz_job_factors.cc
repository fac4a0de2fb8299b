// fuzz_job_factors.cc - libFuzzer target: every numeric input of the core's job factors
// (lib/priority/job_factors.h) and of the C API's weighing and usage charge
// (lib/capi/fairway.h), as the plugin passes them from slurm.conf (weights,
// flags, PriorityWeightTRES values), from job records (times, CPUs, nodes, limits, nice,
// site factor, partition/QOS/association priorities) and from the cluster size.
//
// For any input (no sanitizer report, no crash):
//   * the core's job_factors(): the age factor is in [0, 1]; with a non-empty cluster the
//     job-size factor is too; with finite inputs no factor is NaN;
//   * fairway_job_weigh() succeeds with a priority of at least 1, NULL arguments give
//     FAIRWAY_EINVAL;
//   * the core's job_priority() and job_priority_in_partition() are in [1, 2^32-1],
//     2^32-1 exactly when they report clamping, and the same when computed again;
//   * with finite weights the core's TRES factors (tres_factors) are finite and, normalized,
//     not negative;
//   * fairway_job_charge() succeeds; with a decay factor in (0, 1] and billable TRES,
//     usage factor and time within any real cluster's magnitudes, what it charges is
//     finite and not negative (and never more with decay than without).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "fairway.h"
#include "fuzz_common.h"
#include "job_factors.h"
#include "slurm_values.h"

namespace {

constexpr size_t kMaxTres = 8;
constexpr uint32_t kAllFlags = 0x07ff;

// A double from the input: mostly ordinary values, sometimes any bit pattern.
double number(fuzz::Bytes& in) {
  const uint8_t kind = in.u8();
  switch (kind % 4) {
    case 0:
      return in.u32() / 4294967295.0;  // [0, 1]
    case 1:
      return static_cast<double>(in.u32());
    case 2:
      return static_cast<double>(static_cast<int32_t>(in.u32())) / 1000.0;
    default:
      return in.raw<double>();
  }
}

bool is_finite(double d) { return std::isfinite(d); }

void check_factors(const fairway::JobInput& job, const fairway::Cluster& c,
                   const fairway::JobFactors& f) {
  using fairway::Factor;
  FUZZ_CHECK(f[Factor::kAge] >= 0 && f[Factor::kAge] <= 1);
  if (c.cpus && c.nodes) FUZZ_CHECK(f[Factor::kJobSize] >= 0 && f[Factor::kJobSize] <= 1);
  if (is_finite(job.fs_factor)) FUZZ_CHECK(!std::isnan(f[Factor::kFairshare]));
  if (is_finite(job.assoc_priority_norm)) FUZZ_CHECK(!std::isnan(f[Factor::kAssoc]));
  if (is_finite(job.part_norm_priority)) FUZZ_CHECK(!std::isnan(f[Factor::kPartition]));
  if (is_finite(job.qos_norm_priority)) FUZZ_CHECK(!std::isnan(f[Factor::kQos]));
}

// The core's settings and job as the C API's, for fairway_job_weigh.
fairway_weights_t c_weights(const fairway::PrioritySettings& w) {
  fairway_weights_t c;
  std::memset(&c, 0, sizeof(c));
  for (size_t k = 0; k < fairway::kFactorCount; k++) c.weight[k] = w.weight.v[k];
  c.max_age = w.max_age;
  c.flags = w.flags;
  c.favor_small = w.favor_small;
  c.tres = w.tres;
  c.tres_count = w.tres_count;
  c.slurm_release = w.slurm_release;
  return c;
}

fairway_job_input_t c_job(const fairway::JobInput& j) {
  fairway_job_input_t c;
  std::memset(&c, 0, sizeof(c));
  c.has_details = j.has_details;
  c.accrue_time = j.accrue_time;
  c.total_cpus = j.total_cpus;
  c.max_cpus = j.max_cpus;
  c.min_cpus = j.min_cpus;
  c.min_nodes = j.min_nodes;
  c.time_limit = j.time_limit;
  c.has_assoc = j.has_assoc;
  c.fs_factor = j.fs_factor;
  c.assoc_priority = j.assoc_priority;
  c.assoc_priority_norm = j.assoc_priority_norm;
  c.has_part = j.has_part;
  c.part_priority_job_factor = j.part_priority_job_factor;
  c.part_norm_priority = j.part_norm_priority;
  c.part_max_time = j.part_max_time;
  c.has_qos = j.has_qos;
  c.qos_priority = j.qos_priority;
  c.qos_norm_priority = j.qos_norm_priority;
  c.site_factor = j.site_factor;
  c.nice = j.nice;
  return c;
}

void check_priority(uint32_t prio, int clamped) {
  FUZZ_CHECK(prio >= 1);
  if (clamped) FUZZ_CHECK(prio == UINT32_MAX);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);

  // slurm.conf
  double tres_w[kMaxTres];
  fairway::PrioritySettings w;
  w.weight[fairway::Factor::kAge] = in.u32();
  w.weight[fairway::Factor::kAssoc] = in.u32();
  w.weight[fairway::Factor::kFairshare] = in.u32();
  w.weight[fairway::Factor::kJobSize] = in.u32();
  w.weight[fairway::Factor::kPartition] = in.u32();
  w.weight[fairway::Factor::kQos] = in.u32();
  w.max_age = in.u32();
  w.flags = in.u32() & kAllFlags;
  w.favor_small = in.u8() & 1;
  w.tres_count = in.u8() % (kMaxTres + 1);
  bool tres_sane = true;  // finite and not negative, as Slurm's parser gives them
  for (size_t i = 0; i < w.tres_count; ++i) {
    tres_w[i] = number(in);
    tres_sane = tres_sane && is_finite(tres_w[i]) && tres_w[i] >= 0;
  }
  w.tres = (w.tres_count && (in.u8() & 1)) ? tres_w : nullptr;

  const fairway::Cluster c{in.u32(), in.u32()};

  // The job
  fairway::JobInput job;
  job.has_details = true;
  job.accrue_time = in.raw<int64_t>();
  job.total_cpus = in.u32();
  job.max_cpus = in.u32();
  job.min_cpus = in.u32();
  job.min_nodes = in.u32();
  job.time_limit = in.u32();
  job.has_assoc = in.u8() & 1;
  job.fs_factor = number(in);
  job.assoc_priority = in.u32();
  job.assoc_priority_norm = number(in);
  job.has_part = in.u8() & 1;
  job.part_priority_job_factor = in.u32();
  job.part_norm_priority = number(in);
  job.part_max_time = in.u32();
  job.has_qos = in.u8() & 1;
  job.qos_priority = in.u32();
  job.qos_norm_priority = number(in);
  job.site_factor = in.u32();
  job.nice = in.u32();
  const time_t now = in.raw<int64_t>();

  const fairway::JobFactors f = fairway::job_factors(w, c, job, now);
  check_factors(job, c, f);

  // The same job through the C API the plugin calls (its TRES counts not given).
  const fairway_weights_t cw = c_weights(w);
  const fairway_cluster_t cc{c.cpus, c.nodes};
  const fairway_job_input_t cj = c_job(job);
  fairway_job_weighed_t r;
  FUZZ_CHECK(fairway_job_weigh(&cw, &cc, &cj, now, nullptr, nullptr, 0, &r) == FAIRWAY_OK);
  check_priority(r.priority, r.clamped);
  fairway::JobFactors no_tres = f;  // without TRES counts, the core's priority of the job
  FUZZ_CHECK(r.priority == fairway::job_priority(w, no_tres, 0.0, nullptr));
  FUZZ_CHECK(fairway_job_weigh(nullptr, &cc, &cj, now, nullptr, nullptr, 0, &r) == FAIRWAY_EINVAL);
  FUZZ_CHECK(fairway_job_weigh(&cw, nullptr, &cj, now, nullptr, nullptr, 0, &r) == FAIRWAY_EINVAL);
  FUZZ_CHECK(fairway_job_weigh(&cw, &cc, nullptr, now, nullptr, nullptr, 0, &r) == FAIRWAY_EINVAL);
  FUZZ_CHECK(fairway_job_weigh(&cw, &cc, &cj, now, nullptr, nullptr, 0, nullptr) == FAIRWAY_EINVAL);

  // TRES: allocated or requested counts against the partition's.
  uint64_t alloc[kMaxTres], req[kMaxTres], part[kMaxTres];
  for (size_t i = 0; i < kMaxTres; ++i) {
    alloc[i] = (in.u8() & 3) ? in.u64() % 100000 : in.u64();
    req[i] = in.u64();
    part[i] = (in.u8() & 3) ? in.u64() % 1000 : in.u64();
  }
  double tf[kMaxTres];
  const uint8_t which = in.u8();
  fairway::tres_factors(w, (which & 1) ? alloc : nullptr, (which & 2) ? req : nullptr,
                        (which & 4) ? part : nullptr, tf);
  for (size_t i = 0; i < w.tres_count; ++i) {
    FUZZ_CHECK(is_finite(tf[i]));
    FUZZ_CHECK(tf[i] >= 0);
  }
  const double tres_sum = fairway::tres_weighted(w, tf);
  if (!w.tres) FUZZ_CHECK(tres_sum == 0);
  if (w.tres && tres_sane) FUZZ_CHECK(tres_sum >= 0);  // +inf at most, never NaN

  fairway::JobFactors weighted = f;
  bool clamped = false;
  const uint32_t prio = fairway::job_priority(w, weighted, tres_sum, &clamped);
  check_priority(prio, clamped);
  fairway::JobFactors again = f;
  FUZZ_CHECK(fairway::job_priority(w, again, tres_sum, nullptr) == prio);

  for (int k = in.u8() % 4; k > 0; --k) {
    const uint32_t pf = in.u32();
    const double pn = number(in);
    const double pt = number(in);
    bool cl = false;
    check_priority(fairway::job_priority_in_partition(w, weighted, pf, pn, pt, &cl), cl);
  }

  // Usage charged for a stretch of a job's run.
  fairway_job_times_t t;
  std::memset(&t, 0, sizeof(t));
  t.start_time = in.raw<int64_t>();
  t.end_time = in.raw<int64_t>();
  t.end_time_exp = in.raw<int64_t>();
  t.time_limit = in.u32();
  t.finished = in.u8() & 1;
  const time_t start_period = in.raw<int64_t>();
  const time_t end_period = in.raw<int64_t>();
  const int at_end = in.u8() & 1;
  const double decay = (in.u8() & 1) ? number(in) : fairway_decay_factor(number(in) * 1e6);
  const double billable = number(in);
  const double usage_factor = (in.u8() & 1) ? -1.0 : number(in);
  fairway_job_charge_t ch;
  FUZZ_CHECK(fairway_job_charge(&t, start_period, end_period, at_end, decay, billable, usage_factor,
                                &ch) == FAIRWAY_OK);
  FUZZ_CHECK(ch.run_delta >= 0 && is_finite(ch.run_delta));
  // Within any real cluster's magnitudes (300 centuries, 10^15 billable TRES, a usage
  // factor up to 10^6) the charge is finite; beyond them products may overflow to inf
  // exactly as in Slurm, which the tree then rejects (the plugin keeps its last values).
  if (decay > 0 && decay <= 1 && billable >= 0 && billable <= 1e15 && usage_factor <= 1e6 &&
      ch.run_delta <= 1e12) {
    FUZZ_CHECK(is_finite(ch.real_decay) && ch.real_decay >= 0);
    FUZZ_CHECK(is_finite(ch.run_decay) && ch.run_decay >= 0);
    FUZZ_CHECK(ch.real_decay <= ch.real_nodecay || ch.real_nodecay == 0 ||
               std::isinf(ch.real_nodecay));
  }
  FUZZ_CHECK(fairway_job_charge(nullptr, start_period, end_period, at_end, decay, billable,
                                usage_factor, &ch) == FAIRWAY_EINVAL);
  return 0;
}
