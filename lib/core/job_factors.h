// job_factors.h - a job's priority factors, its priority and its priority in each of its
// partitions, with the exact semantics (and floating-point order of operations) of Slurm
// 22.05's multifactor set_priority_factors(), _get_priority_internal() and the
// per-partition loop of priority_p_set/_set_priority_factors.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>

#include "slurm_values.h"

namespace fairway {

// The Priority* settings of slurm.conf that job priorities depend on.  (Field names follow
// Slurm's: PriorityWeightFairshare is `fairshare`.)
struct Weights {
  uint32_t age = 0;        // PriorityWeightAge
  uint32_t assoc = 0;      // PriorityWeightAssoc
  uint32_t fairshare = 0;  // PriorityWeightFairshare
  uint32_t job_size = 0;   // PriorityWeightJobSize
  uint32_t partition = 0;  // PriorityWeightPartition
  uint32_t qos = 0;        // PriorityWeightQOS
  uint32_t max_age = 0;    // PriorityMaxAge, seconds
  uint32_t flags = 0;      // PriorityFlag bits
  int favor_small = 0;     // PriorityFavorSmall
  const double* tres = nullptr;  // PriorityWeightTRES per TRES index, or nullptr
  size_t tres_count = 0;
  // The Slurm release whose multifactor to match (SLURM_VERSION_NUMBER; 0: 22.05).  From
  // 24.11 (kSlurm2411) the job-size factor is 0 on a cluster without nodes or CPUs, and
  // its node term for PriorityFavorSmall is 0 when the job asks for all nodes or more.
  uint32_t slurm_release = 0;
};

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
  // the TRES counts of the job's partition; each has Weights::tres_count entries or is null.
  const uint64_t* tres_alloc = nullptr;
  const uint64_t* tres_req = nullptr;
  const uint64_t* part_tres = nullptr;
};

// Normalized (after job_priority, weighted) factors of a job.
struct JobFactors {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  uint32_t site = kNiceOffset;
  uint32_t nice = kNiceOffset;
};

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
JobFactors job_factors(const Weights& w, const Cluster& c, const JobInput& job,
                       time_t now) noexcept;

// Per-TRES factors (out has w.tres_count entries and is zeroed first).
void tres_factors(const Weights& w, const uint64_t* alloc, const uint64_t* req,
                  const uint64_t* part_tres, double* out) noexcept;

// The same over values already in `inout`: a TRES the job does not use or the partition
// does not count (part_tres null or 0) keeps its value, as in multifactor's
// _get_tres_factors(), which sprio's per-partition rows call on a copy of the job's
// weighted factors.
void tres_factors_over(const Weights& w, const uint64_t* alloc, const uint64_t* req,
                       const uint64_t* part_tres, double* inout) noexcept;

// Weight each TRES factor in place; return their sum.
double tres_weighted(const Weights& w, double* factors) noexcept;

// Weight f in place and return the clamped priority.
uint32_t job_priority(const Weights& w, JobFactors& f, double tres_weighted,
                      bool* clamped) noexcept;

// Priority of an already weighted job in one partition of a multi-partition job.
uint32_t job_priority_in_partition(const Weights& w, const JobFactors& weighted,
                                   uint32_t part_priority_job_factor, double part_norm_priority,
                                   double part_tres_weighted, bool* clamped) noexcept;

// A whole job at `now`: its weighted factors and priority; with TRES weights its weighted
// TRES factors in tres_out (w.tres_count entries); and its priority in each of nparts
// partitions (parts[i].priority keeps its previous value when PriorityFlags=INCR_ONLY and
// the new one is not higher).
JobPriority weigh_job(const Weights& w, const Cluster& c, const JobInput& job, time_t now,
                      double* tres_out, PartitionSlot* parts, size_t nparts) noexcept;

}  // namespace fairway
