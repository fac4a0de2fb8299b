// job_factors.h - a job's priority factors, its priority and its priority in each of its
// partitions, with the exact semantics (and floating-point order of operations) of Slurm
// 22.05's multifactor set_priority_factors(), _get_priority_internal() and the
// per-partition loop of priority_p_set/_set_priority_factors.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "slurm_values.h"

namespace fairway {

// The factors, as sprio shows them, that make up a job's priority, in the order multifactor
// adds them (site added and nice subtracted last).
enum class Factor { kAge, kAssoc, kFairshare, kJobSize, kPartition, kQos, kTres, kSite, kNice };
inline constexpr size_t kFactorCount = 9;
inline constexpr Factor kFactors[kFactorCount] = {
    Factor::kAge, Factor::kAssoc, Factor::kFairshare, Factor::kJobSize, Factor::kPartition,
    Factor::kQos, Factor::kTres,  Factor::kSite,      Factor::kNice};
// What each factor is called, wherever it is named: the one table a new factor adds a row to.
struct FactorInfo {
  // sprio's column name, and the factor's key in snapshots, journals and JSON output.
  const char* name;
  const char* words;  // in sentences: "association priority", "job size"
  const char* term;   // as a term of a sum: "association", "job size"
  // Its weight's slurm.conf key; nullptr for kTres (PriorityWeightTRES is per TRES), kSite
  // and kNice (never weighted).
  const char* weight_key;
  bool whole;  // a whole number (kSite and kNice: written as integers)
};
inline constexpr FactorInfo kFactorInfo[kFactorCount] = {
    {"age", "age", "age", "PriorityWeightAge", false},
    {"assoc", "association priority", "association", "PriorityWeightAssoc", false},
    {"fairshare", "fair-share", "fair-share", "PriorityWeightFairshare", false},
    {"jobsize", "job size", "job size", "PriorityWeightJobSize", false},
    {"partition", "partition priority", "partition", "PriorityWeightPartition", false},
    {"qos", "QOS priority", "QOS", "PriorityWeightQOS", false},
    {"tres", "TRES", "TRES", nullptr, false},
    {"site", "site factor", "site", nullptr, true},
    {"nice", "nice", "nice", nullptr, true}};
inline const FactorInfo& factor_info(Factor f) { return kFactorInfo[static_cast<size_t>(f)]; }
// sprio's column name: "age", "assoc", "fairshare", "jobsize", "partition", "qos", "tres",
// "site", "nice".
inline const char* factor_name(Factor f) { return factor_info(f).name; }
// A factor with a PriorityWeight* of its own (not kTres, kSite, kNice).
inline bool has_weight(Factor f) { return factor_info(f).weight_key != nullptr; }

// One value per factor, indexed by Factor.
template <typename T>
struct ByFactor {
  std::array<T, kFactorCount> v{};
  T& operator[](Factor f) { return v[static_cast<size_t>(f)]; }
  const T& operator[](Factor f) const { return v[static_cast<size_t>(f)]; }
};

// A job's factors: normalized, or weighted (each times its weight).  kTres is the weighted
// sum of the TRES factors; kSite is PrioritySiteFactor and kNice the job's nice, both
// without Slurm's offset (kNiceOffset) and never weighted: the site factor is added to the
// priority, nice subtracted.
using FactorValues = ByFactor<double>;

// The Priority* settings of slurm.conf (what `scontrol show config` prints) that job
// priorities depend on.
struct PrioritySettings {
  // PriorityWeightAge, Assoc, Fairshare, JobSize, Partition, QOS by factor; kTres, kSite and
  // kNice have none here (PriorityWeightTRES is per TRES, below).
  ByFactor<uint32_t> weight;
  // PriorityWeightTRES as configured, by TRES name (what a snapshot holds).
  std::vector<std::pair<std::string, double>> weight_tres;
  // PriorityWeightTRES by TRES index, as the job's TRES counts are (what weighing a live job
  // reads), or nullptr.
  const double* tres = nullptr;
  size_t tres_count = 0;
  uint32_t flags = 0;            // PriorityFlag bits (slurm_values.h)
  uint32_t max_age = 0;          // PriorityMaxAge, seconds
  bool favor_small = false;      // PriorityFavorSmall
  uint32_t decay_half_life = 0;  // PriorityDecayHalfLife, seconds
  uint32_t calc_period = 0;      // PriorityCalcPeriod, seconds
  bool decay_exact = false;      // fairway_decay=exact: usage decayed by 2^(-t/half-life)
  // The Slurm release whose multifactor to match (SLURM_VERSION_NUMBER; 0: 22.05).  From
  // 23.11 (kSlurm2311) the job-size factor is 0 on a cluster without nodes or CPUs, and
  // its node term for PriorityFavorSmall is 0 when the job asks for all nodes or more.
  uint32_t slurm_release = 0;
};

// How priority_sum adds the weighted factors.
enum class SumOrder {
  kJob,             // in Factor order (multifactor's _get_priority_internal)
  kPartitionFirst,  // the partition term, then the others (its per-partition loop)
};

// A priority from weighted factors: their sum in `order`, the site factor added and nice
// subtracted, as doubles in multifactor's order (bit-identical results); then at least 1
// (NaN too: priority 0 is a held job's) and at most 2^32-1, truncated.  *clamped (if not
// null) tells whether the sum reached 2^32 (Slurm logs it).
// Inline: called once per job and once per partition of it in the weighing pass, where
// the order is known and the loop unrolls.
inline uint32_t priority_sum(const FactorValues& f, SumOrder order, bool* clamped) noexcept {
  if (clamped) *clamped = false;
  // The factors before the site factor one by one in Factor order, as multifactor writes its
  // sum (the same double result); without the partition term for kPartitionFirst.
  const size_t site = static_cast<size_t>(Factor::kSite);
  const size_t skip =
      order == SumOrder::kPartitionFirst ? static_cast<size_t>(Factor::kPartition) : site;
  double sum = f.v[0];
  for (size_t i = 1; i < site; i++)
    if (i != skip) sum += f.v[i];
  sum = sum + f[Factor::kSite] - f[Factor::kNice];
  // Slurm sums the other weighted factors first, then adds them to the partition term.
  if (order == SumOrder::kPartitionFirst) sum = f[Factor::kPartition] + sum;
  // Priority 0 is reserved for held jobs; more than 32 bits is clamped (Slurm logs it).
  // Compared as doubles before any conversion: Slurm's (uint64_t) cast of a sum >= 2^64 is
  // undefined (0 on x86-64, i.e. a "held" job) and so is that of NaN; here NaN counts as < 1.
  if (!(sum >= 1)) sum = 1;
  if (sum >= 4294967296.0) {
    if (clamped) *clamped = true;
    return 0xffffffffU;
  }
  return static_cast<uint32_t>(sum);
}

// The cluster size the job-size factor is relative to.
struct Cluster {
  uint32_t cpus = 0;   // cluster_cpus
  uint32_t nodes = 0;  // node_record_count (22.05), active_node_record_count (24.11 on)
};

// What the computation reads from a job (the shim copies it out of the job record).
struct JobInput {
  bool has_details = false;  // false: no details (the shim never weighs such a job)
  time_t accrue_time = 0;    // 0: not accruing age
  uint32_t total_cpus = 0;   // 0 until the job has run
  uint32_t max_cpus = kNoVal;
  uint32_t min_cpus = 0;
  uint32_t min_nodes = 0;
  uint32_t time_limit = kNoVal;  // minutes
  bool has_assoc = false;
  double fs_factor = 0;  // the association's fair-share factor
  uint32_t assoc_priority = 0;
  double assoc_priority_norm = 0;
  bool has_part = false;
  uint32_t part_priority_job_factor = 0;
  double part_norm_priority = 0;
  uint32_t part_max_time = 0;  // minutes
  bool has_qos = false;
  uint32_t qos_priority = 0;
  double qos_norm_priority = 0;
  uint32_t site_factor = kNiceOffset;
  uint32_t nice = kNiceOffset;
  // TRES (read only with TRES weights): allocated (where known) or requested counts, and
  // the TRES counts of the job's partition; each has PrioritySettings::tres_count entries or is
  // null.
  const uint64_t* tres_alloc = nullptr;
  const uint64_t* tres_req = nullptr;
  const uint64_t* part_tres = nullptr;
};

// Normalized (after job_priority, weighted) factors of a job.
using JobFactors = FactorValues;

// One partition of a job submitted to several, in PriorityTier order; from Slurm 24.11 one
// (partition, QOS) pair of a job submitted to several partitions or several QOS.
struct PartitionSlot {
  uint32_t priority_job_factor = 0;
  double norm_priority = 0;
  const uint64_t* tres_cnt = nullptr;  // the partition's TRES counts, or null
  // The pair's QOS, one of the job's several (24.11 on).  Without one (has_qos false), or
  // when that QOS has priority 0 or PriorityWeightQOS is 0, the job's own weighted QOS
  // factor counts, as in multifactor's _priority_each_qos().
  bool has_qos = false;
  uint32_t qos_priority = 0;
  double qos_norm_priority = 0;
  uint32_t priority = 0;  // in: the job's previous priority there; out: the new one
  bool clamped = false;   // out: the sum exceeded 32 bits
};

// The result of weigh_job.
struct JobPriority {
  JobFactors weighted;  // what sprio shows
  uint32_t priority = 1;
  bool clamped = false;  // the sum exceeded 32 bits (clamped to 2^32-1)
};

// Normalized factors of a job at `now` (no weights applied yet).
JobFactors job_factors(const PrioritySettings& w, const Cluster& c, const JobInput& job,
                       time_t now) noexcept;

// Per-TRES factors (out has w.tres_count entries and is zeroed first).
void tres_factors(const PrioritySettings& w, const uint64_t* alloc, const uint64_t* req,
                  const uint64_t* part_tres, double* out) noexcept;

// The same over values already in `inout`: a TRES the job does not use or the partition
// does not count (part_tres null or 0) keeps its value, as in multifactor's
// _get_tres_factors(), which sprio's per-partition rows call on a copy of the job's
// weighted factors.
// `count` entries, under PriorityFlags `flags` (sprio's rows give the count of their copy).
void tres_factors_over(uint32_t flags, size_t count, const uint64_t* alloc, const uint64_t* req,
                       const uint64_t* part_tres, double* inout) noexcept;
inline void tres_factors_over(const PrioritySettings& w, const uint64_t* alloc, const uint64_t* req,
                              const uint64_t* part_tres, double* inout) noexcept {
  tres_factors_over(w.flags, w.tres_count, alloc, req, part_tres, inout);
}

// Weight each of `count` TRES factors in place by `weights` (none: nothing); return their sum.
double tres_weighted(const double* weights, size_t count, double* factors) noexcept;
inline double tres_weighted(const PrioritySettings& w, double* factors) noexcept {
  return tres_weighted(w.tres, w.tres_count, factors);
}

// Weight f in place and return the clamped priority.
uint32_t job_priority(const PrioritySettings& w, JobFactors& f, double tres_weighted,
                      bool* clamped) noexcept;

// Priority of an already weighted job in one partition of a multi-partition job.
uint32_t job_priority_in_partition(const PrioritySettings& w, const JobFactors& weighted,
                                   uint32_t part_priority_job_factor, double part_norm_priority,
                                   double part_tres_weighted, bool* clamped) noexcept;

// A whole job at `now`: its weighted factors and priority; with TRES weights its weighted
// TRES factors in tres_out (w.tres_count entries); and its priority in each of nparts
// partitions (parts[i].priority keeps its previous value when PriorityFlags=INCR_ONLY and
// the new one is not higher).
JobPriority weigh_job(const PrioritySettings& w, const Cluster& c, const JobInput& job, time_t now,
                      double* tres_out, PartitionSlot* parts, size_t nparts) noexcept;

}  // namespace fairway
