// published_queue.cc - see published_queue.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "published_queue.h"

#include <cstdint>
#include <unordered_map>

#include "conf_values.h"
#include "error.h"
#include "slurm_values.h"

namespace fairway {
namespace {

// The name of TRES index i, as sprio's rows and the snapshot write it (lower case).
std::string tres_name(const fairway_publication_t& p, size_t i) {
  return ascii_lower(p.tres_names[i] ? p.tres_names[i] : "");
}

}  // namespace

Queue published_queue(const fairway_publication_t& p, const AssocTree& tree,
                      const std::vector<std::string>& partitions,
                      const std::vector<std::string>& qos, size_t* left_out) {
  if (!p.jobs || !p.weights) invalid("fairway_publish: the queue needs jobs and weights");
  if (!p.partition_info && p.partition_count) invalid("fairway_publish: NULL partition_info");
  if (!p.qos_info && p.qos_count) invalid("fairway_publish: NULL qos_info");
  const fairway_weights_t& w = *p.weights;
  if (w.tres_count && (!w.tres || !p.tres_names))
    invalid("fairway_publish: TRES weights without TRES or names");
  Queue q;
  q.taken_at = p.period_end;
  q.cluster_cpus = p.cluster_cpus;
  q.cluster_nodes = p.cluster_nodes;
  PrioritySettings& s = q.settings;
  for (size_t k = 0; k < kFactorCount; k++) s.weight.v[k] = w.weight[k];
  for (size_t i = 0; i < w.tres_count; i++)
    if (w.tres[i] != 0) s.weight_tres.emplace_back(tres_name(p, i), w.tres[i]);
  s.flags = w.flags;
  s.max_age = w.max_age;
  s.favor_small = w.favor_small != 0;
  s.decay_half_life = p.decay_half_life;
  s.calc_period = p.calc_period;
  s.decay_exact = p.decay_exact != 0;
  for (size_t i = 0; i < p.partition_count; i++) {
    const fairway_partition_info_t& pi = p.partition_info[i];
    q.partitions.push_back(
        {partitions[i], pi.priority_job_factor, pi.priority_tier, pi.total_cpus, pi.total_nodes});
  }
  for (size_t i = 0; i < p.qos_count; i++)
    q.qos.push_back({qos[i], p.qos_info[i].priority, p.qos_info[i].usage_factor});

  std::unordered_map<uint32_t, size_t> at;  // job index -> place in q.jobs
  size_t skipped = 0;
  uint32_t skipped_job = UINT32_MAX;
  for (size_t i = 0; i < p.row_count; i++) {
    const fairway_pending_row_t& r = p.rows[i];
    if (r.job == UINT32_MAX) continue;
    if (r.job >= p.job_count || r.partition >= p.partition_count)
      invalid("fairway_publish: a pending row's job or partition is out of range");
    const fairway_pending_job_t& j = p.jobs[r.job];
    auto found = at.find(r.job);
    if (found == at.end()) {
      const uint32_t a = tree.find(r.assoc_id);
      if (a == kNoIndex) {
        if (skipped_job != r.job) ++skipped;
        skipped_job = r.job;
        continue;
      }
      PendingJob job;
      job.id = r.job_id;
      job.array_job_id = j.array_job_id;
      job.assoc_id = r.assoc_id;
      job.user = std::string(tree.user(a));
      job.account = std::string(tree.account(a));
      if (r.qos != UINT32_MAX && r.qos < qos.size()) job.qos = qos[r.qos];
      job.submit_time = r.submit_time;
      job.eligible_time = r.eligible_time;
      job.accrue_time = j.accrue_time;
      job.min_cpus = j.min_cpus;
      job.max_cpus = j.max_cpus;
      job.min_nodes = j.min_nodes;
      job.time_limit =
          (j.time_limit == kNoVal || j.time_limit == kInfinite) ? kInfinite : j.time_limit;
      job.nice = static_cast<int64_t>(j.factors[FAIRWAY_FACTOR_NICE]);
      job.priority = j.priority;
      job.held = j.priority == 0;
      job.admin_priority = j.admin != 0;
      if (j.fairshare_tres) {
        const size_t k = j.fairshare_tres - 1;
        if (k >= p.fairshare_tres_count || !p.fairshare_tres || !p.fairshare_tres[k])
          invalid("fairway_publish: a job's fair-share TRES is out of range");
        job.fairshare_tres = p.fairshare_tres[k];
      }
      found = at.emplace(r.job, q.jobs.size()).first;
      q.jobs.push_back(std::move(job));
    }
    PendingJob& job = q.jobs[found->second];
    const std::string& part = partitions[r.partition];
    job.partitions.push_back(part);
    if (job.held) continue;
    FactorRow row;
    row.partition = part;
    row.priority = r.priority;
    row.admin = j.admin != 0;
    if (!row.admin) {
      const fairway_partition_info_t& pi = p.partition_info[r.partition];
      row.set_factors(j.factors);
      // As sprio shows a partition's row: that partition's factor, weighted.
      row.factor[Factor::kPartition] =
          ((w.flags & FAIRWAY_FLAG_NO_NORMAL_PART) ? static_cast<double>(pi.priority_job_factor)
                                                   : pi.norm_priority) *
          static_cast<double>(w.weight[FAIRWAY_FACTOR_PARTITION]);
      if (j.tres_at != SIZE_MAX) {
        if (!p.tres_values || j.tres_at + w.tres_count > p.tres_value_count)
          invalid("fairway_publish: a job's TRES factors are out of range");
        for (size_t t = 0; t < w.tres_count; t++)
          if (p.tres_values[j.tres_at + t] != 0)
            row.tres.emplace_back(tres_name(p, t), p.tres_values[j.tres_at + t]);
      }
    }
    job.rows.push_back(std::move(row));
  }
  if (left_out) *left_out = skipped;
  return q;
}

}  // namespace fairway
