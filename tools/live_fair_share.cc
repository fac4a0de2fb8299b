// What fair-share compared on the live cluster (see live_fair_share.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "live_fair_share.h"

#include <map>
#include <optional>

#include "conf_values.h"
#include "fair_share.h"
#include "fairshare_tres.h"
#include "held_usage.h"
#include "slurm_values.h"

namespace fairway_cli {
namespace {

std::optional<uint64_t> count_of(const TresCounts& counts, const std::string& name) {
  for (const auto& [n, v] : counts)
    if (fairway::ascii_lower(n) == fairway::ascii_lower(name)) return v;
  return std::nullopt;
}

// A running job's QOS UsageFactor, as the plugin applies it (a negative factor: 1).
double usage_factor(const fairway::Snapshot& snap, const std::string& qos) {
  if (!snap.queue || qos.empty()) return 1.0;
  for (const auto& q : snap.queue->qos)
    if (q.name == qos) return q.usage_factor >= 0 ? q.usage_factor : 1.0;
  return 1.0;
}

// The association's usage totals made direct (total minus the children's totals, clamped at 0),
// as live.cc does for RawUsage.
std::vector<long double> direct_usage(const std::vector<fairway::AssocRecord>& recs,
                                      const std::vector<long double>& totals) {
  std::map<uint32_t, long double> children;
  for (size_t i = 0; i < recs.size(); ++i)
    if (recs[i].parent_id) children[recs[i].parent_id] += totals[i];
  std::vector<long double> out(recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    const long double d = totals[i] - children[recs[i].id];
    out[i] = d > 0 ? d : 0;
  }
  return out;
}

// The partition a pending job's TRES are judged in: its first of the highest PriorityTier
// (where slurmctld's record of the job points).
const fairway::PartitionInfo* judged_partition(const fairway::Queue& q,
                                               const fairway::PendingJob& job) {
  const fairway::PartitionInfo* best = nullptr;
  for (const auto& name : job.partitions)
    if (const auto* p = q.partition(name); p && (!best || p->priority_tier > best->priority_tier))
      best = p;
  return best;
}

}  // namespace

void apply_live_policy(fairway::Snapshot& snap, const LivePolicyInput& in) {
  const fairway::UsageBasis basis = in.options.usage_basis;
  snap.usage_basis = basis;
  snap.held.clear();
  snap.fairshare_tres.clear();
  snap.tres_usage.clear();
  const bool held = basis != fairway::UsageBasis::kHistorical;
  const bool fair_share_weighed =
      snap.queue && snap.queue->settings.weight[fairway::Factor::kFairshare] != 0;
  // The listed TRES the plugin applies: those slurmctld tracks, not under depth-oblivious.
  std::vector<std::string> listed;
  std::vector<size_t> tracked_at;
  if (snap.algorithm != fairway::Algorithm::kDepthOblivious && fair_share_weighed)
    for (const std::string& name : in.options.fairshare_tres)
      for (size_t t = 0; t < in.tracked_tres.size(); ++t)
        if (fairway::ascii_lower(in.tracked_tres[t]) == fairway::ascii_lower(name)) {
          listed.push_back(in.tracked_tres[t]);
          tracked_at.push_back(t);
          break;
        }
  if (!held && listed.empty()) return;

  const fairway::AssocTree tree = fairway::snapshot_tree(snap);
  std::vector<fairway::RunningJob> running;
  std::vector<double> factors;
  for (const auto& j : in.running) {
    if (!j.assoc_id) continue;
    const double f = usage_factor(snap, j.qos);
    fairway::RunningJob r;
    r.assoc_id = j.assoc_id;
    r.charge_rate = j.billable_tres * f;
    r.remaining_seconds = j.end_time > in.now ? static_cast<double>(j.end_time - in.now) : 0.0;
    running.push_back(r);
    factors.push_back(f);
  }
  if (held) snap.held = fairway::held_direct(tree, basis, running);

  for (size_t k = 0; k < listed.size(); ++k) {
    snap.fairshare_tres.push_back(listed[k]);
    if (held) {
      // What each running job was allocated of the TRES, times its QOS's UsageFactor.
      std::vector<fairway::RunningJob> of_tres;
      size_t r = 0;
      for (const auto& j : in.running) {
        if (!j.assoc_id) continue;
        fairway::RunningJob x = running[r];
        x.charge_rate = static_cast<double>(count_of(j.alloc, listed[k]).value_or(0)) * factors[r];
        of_tres.push_back(x);
        ++r;
      }
      snap.tres_usage.push_back(fairway::held_direct(tree, basis, of_tres));
    } else {
      std::vector<long double> totals(snap.associations.size(), 0);
      for (size_t i = 0; i < totals.size() && i < in.tres_totals.size(); ++i)
        if (tracked_at[k] < in.tres_totals[i].size()) totals[i] = in.tres_totals[i][tracked_at[k]];
      snap.tres_usage.push_back(direct_usage(snap.associations, totals));
    }
  }

  if (!snap.queue || listed.empty()) return;
  fairway::Queue& q = *snap.queue;
  for (auto& job : q.jobs) {
    job.fairshare_tres.clear();
    const fairway::PartitionInfo* part = judged_partition(q, job);
    const auto pt = part ? in.partition_tres.find(part->name) : in.partition_tres.end();
    if (pt == in.partition_tres.end()) continue;
    std::vector<uint64_t> asked, available;
    for (const auto& name : listed) {
      asked.push_back(count_of(job.tres_req, name).value_or(0));
      available.push_back(count_of(pt->second, name).value_or(0));
    }
    const int k =
        fairway::job_fairshare_tres(asked, available, count_of(job.tres_req, "cpu").value_or(0),
                                    count_of(pt->second, "cpu").value_or(0));
    if (k >= 0) job.fairshare_tres = listed[static_cast<size_t>(k)];
  }
}

}  // namespace fairway_cli
