// usage_replay.cc - the usage file and the journal replayed over the loaded usage.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "usage_replay.h"

#include <algorithm>
#include <numeric>

namespace fairway {

bool EndedJobs::contains(uint32_t job_id) const noexcept {
  return std::binary_search(ids_.begin(), ids_.end(), job_id);
}

bool EndedJobs::insert(uint32_t job_id) {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), job_id);
  if (it != ids_.end() && *it == job_id) return false;
  ids_.insert(it, job_id);
  return true;
}

namespace {

// The associations' indexes sorted by id, and a lookup.
class AssocIndex {
 public:
  explicit AssocIndex(std::span<const ReplayAssoc> assocs)
      : assocs_(assocs), order_(assocs.size()) {
    std::iota(order_.begin(), order_.end(), size_t{0});
    std::stable_sort(order_.begin(), order_.end(),
                     [&](size_t a, size_t b) { return assocs_[a].usage.id < assocs_[b].usage.id; });
  }
  // The index of the association with this id, or assocs.size().
  size_t find(uint32_t id) const {
    const auto it = std::lower_bound(order_.begin(), order_.end(), id,
                                     [&](size_t k, uint32_t v) { return assocs_[k].usage.id < v; });
    return (it != order_.end() && assocs_[*it].usage.id == id) ? *it : assocs_.size();
  }

 private:
  std::span<const ReplayAssoc> assocs_;
  std::vector<size_t> order_;
};

UsageEntry* first_qos(std::span<UsageEntry> qos, uint32_t id) {
  if (!id) return nullptr;
  for (auto& q : qos)
    if (q.id == id) return &q;
  return nullptr;
}

void add(UsageEntry* to, double usage, double wall) {
  if (!to) return;
  to->usage_raw += static_cast<long double>(usage);
  to->grp_used_wall += wall;
}

}  // namespace

ReplayCounts replay_usage(const UsageSnapshot& file, std::span<const JournalEntry> journal,
                          time_t epoch, std::span<ReplayAssoc> assocs, std::span<UsageEntry> qos,
                          EndedJobs& ended) {
  ReplayCounts n;
  const AssocIndex index(assocs);
  std::vector<bool> in_file(assocs.size(), false);
  for (const auto& u : file.assocs) {
    const size_t k = index.find(u.id);
    if (k == assocs.size()) continue;  // deleted since
    assocs[k].usage.usage_raw = u.usage_raw;
    assocs[k].usage.grp_used_wall = u.grp_used_wall;
    in_file[k] = true;
    n.restored++;
  }
  for (size_t k = 0; k < assocs.size(); k++) {
    if (in_file[k]) continue;  // else created since the period
    assocs[k].usage.usage_raw = 0;
    assocs[k].usage.grp_used_wall = 0;
    n.fresh++;
  }
  for (auto& q : qos) {
    const auto it = std::find_if(file.qos.begin(), file.qos.end(),
                                 [&](const UsageEntry& u) { return u.id == q.id; });
    q.usage_raw = (it != file.qos.end()) ? it->usage_raw : 0;
    q.grp_used_wall = (it != file.qos.end()) ? it->grp_used_wall : 0;
  }
  for (const auto& e : journal) {
    if (e.epoch != epoch || (e.ended && ended.contains(e.job_id))) continue;
    // Up the tree; at most one step per association, whatever the parents say.
    size_t k = index.find(e.assoc_id);
    for (size_t steps = 0; k < assocs.size() && steps < assocs.size(); steps++) {
      add(&assocs[k].usage, e.real, e.run);
      k = assocs[k].has_parent ? index.find(assocs[k].parent_id) : assocs.size();
    }
    add(first_qos(qos, e.qos_id), e.qos_usage, e.qos_wall);
    add(first_qos(qos, e.part_qos_id), e.part_qos_usage, e.part_qos_wall);
    n.applied++;
    if (e.ended) ended.insert(e.job_id);  // else charged, but the job goes on
  }
  return n;
}

}  // namespace fairway
