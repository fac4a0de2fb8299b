// queue.h - the pending queue as slurmctld holds it: the priority settings, partitions, QOS
// and pending jobs with the factors slurmctld gave them; the order in which slurmctld's
// scheduler considers the jobs of one partition; and which factor separates two neighbours.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "job_factors.h"
#include "priority_flag_names.h"

namespace fairway {

struct PartitionInfo {
  std::string name;
  uint32_t priority_job_factor = 0;
  uint32_t priority_tier = 0;
  uint32_t total_cpus = 0;
  uint32_t total_nodes = 0;
};

struct QosInfo {
  std::string name;
  uint32_t priority = 0;
  double usage_factor = 1;
};

// One row of sprio: a job's weighted factors in one of its partitions (its priority there).
struct FactorRow {
  std::string partition;
  uint32_t priority = 0;  // the job's priority in that partition, as the scheduler uses it
  bool admin = false;     // administrator-set priority: no factors (sprio's direct_prio)
  // The weighted factors by Factor, as sprio shows them; kSite (PrioritySiteFactor, added)
  // and kNice (the job's nice, subtracted) are whole numbers; kTres is unused: the TRES
  // factors are `tres`.
  FactorValues factor;
  std::vector<std::pair<std::string, double>> tres;  // weighted TRES factors by TRES name
  // A factor's contribution to the priority (nice is negative when positive).
  double part(Factor f) const;
  // Sets the factors but kTres from an array by Factor (fairway_factor_t), site and nice
  // truncated to whole numbers.
  void set_factors(const double* by_factor);
};

inline constexpr uint32_t kNoArrayTask = UINT32_MAX;

// A pending job: what its priority is computed from, and what slurmctld computed.
struct PendingJob {
  uint32_t id = 0;
  uint32_t array_job_id = 0;  // 0: not an array task
  // The task's index (squeue's 27_3) when the job is one task of an array; kNoArrayTask for
  // none, and for a pending array whose tasks are not yet split into records of their own,
  // whose tasks are then array_tasks (squeue's 27_[1-5%2]: "1-5%2").
  uint32_t array_task_id = kNoArrayTask;
  std::string array_tasks;
  uint32_t het_job_id = 0, het_job_offset = 0;  // a heterogeneous job's component (squeue's 30+1)
  uint32_t assoc_id = 0;
  std::string user, account, qos;
  std::vector<std::string> partitions;
  time_t submit_time = 0, eligible_time = 0, accrue_time = 0;
  uint32_t min_cpus = 0, max_cpus = 0, min_nodes = 0;
  uint32_t time_limit = 0;  // minutes; kInfinite (slurm_values.h) for none
  int64_t nice = 0;
  bool held = false;            // priority 0: never scheduled until released
  bool admin_priority = false;  // priority set by an administrator
  uint32_t priority = 0;        // the job's priority (squeue)
  std::vector<std::pair<std::string, uint64_t>> tres_req;  // requested TRES by name
  // fairway_fairshare_tres: the listed TRES whose usage gave the job its fair-share factor
  // (lib/queue/fairshare_tres.h); empty: billing's.
  std::string fairshare_tres;
  // squeue's Reason ("Priority", "Resources", "Dependency", ...); empty when unknown.
  std::string reason;
  // Backfill's planned start (squeue --start's START_TIME); 0: none.  Read live only (not
  // kept in snapshot files).
  int64_t planned_start = 0;
  std::string reservation;      // the reservation it asked for; read live only
  std::vector<FactorRow> rows;  // sprio's rows, one per partition
};

// Everything `fairway explain`, `compare`, `whatif` and `weights` read about the queue.
struct Queue {
  time_t taken_at = 0;  // when the jobs were read
  uint32_t cluster_cpus = 0, cluster_nodes = 0;
  PrioritySettings settings;
  std::vector<PartitionInfo> partitions;
  std::vector<QosInfo> qos;
  std::vector<PendingJob> jobs;
  // Read live by a user from whom slurmctld hides other users' jobs (PrivateData=jobs): the
  // places are among the jobs the user can see.
  bool jobs_private = false;
  // Read live only (not kept in snapshot files): every other job slurmctld showed, with its
  // state in squeue's words ("running", "completed"), so that a job that is not pending is
  // told from one that does not exist.
  struct OtherJob {
    uint32_t id = 0, array_job_id = 0, array_task_id = kNoArrayTask;
    uint32_t het_job_id = 0, het_job_offset = 0;
    std::string state;
  };
  std::vector<OtherJob> other_jobs;
  std::string cluster_name;  // slurm.conf's ClusterName ("" where unknown)

  const PartitionInfo* partition(const std::string& name) const;
  const PendingJob* job(uint32_t id) const;
};

// One job in one partition's queue.
struct QueueEntry {
  const PendingJob* job = nullptr;
  const FactorRow* row = nullptr;
  uint32_t tier = 0;  // the partition's PriorityTier
};

// slurmctld's order (sort_job_queue2, without reservations and preemption): higher
// PriorityTier first, then higher priority, then earlier submission, then lower job id (an
// array task by its array's id).
bool runs_before(const QueueEntry& a, const QueueEntry& b);

// The weighed pending jobs of one partition in that order (held jobs have no row there).
std::vector<QueueEntry> partition_queue(const Queue& q, const std::string& partition);

// What puts `ahead` before `behind`.
struct Separation {
  enum class By { kTier, kPriority, kSubmitTime, kJobId } by = By::kPriority;
  // kPriority: the factor whose difference in ahead's favour is largest, and that difference;
  // admin is set when either job's priority was set by an administrator.
  Factor factor = Factor::kAge;
  double difference = 0;
  bool admin = false;
};
Separation separation(const QueueEntry& ahead, const QueueEntry& behind);

// How the two jobs' priorities evolve while both wait and nothing else changes: each one's
// age part grows by PriorityWeightAge / max_age per second until it reaches PriorityWeightAge.
// The seconds until `behind` has a priority above `ahead`'s (ties go by submission), or -1 if
// age alone never does that. 0 when it already does.
double seconds_until_age_passes(const PrioritySettings& s, const FactorRow& ahead,
                                const FactorRow& behind);
// Seconds until age stops separating the two (both at PriorityMaxAge): 0 if it already does
// not, -1 without an age weight or PriorityMaxAge.
double seconds_until_age_saturates(const PrioritySettings& s, const FactorRow& a,
                                   const FactorRow& b);

}  // namespace fairway
