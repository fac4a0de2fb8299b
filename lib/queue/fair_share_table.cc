// fair_share_table.cc - the kept tree, its id lookups and the per-TRES trees (fair_share_table.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "fair_share_table.h"

#include <algorithm>
#include <utility>

#include "error.h"

namespace fairway {

void FactorIndex::build(const AssocTree& tree, std::span<const double> factors,
                        std::span<const uint8_t> set) {
  if (tree.size() >= kHasFactor) invalid("too many associations to index");
  size_t want = 1024;
  while (want * 4 < tree.size() * 5) want <<= 1;
  if (want != slots_.size()) {
    slots_.assign(want, Slot{});
    mask_ = want - 1;
  } else {
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }
  for (uint32_t i = 0; i < tree.size(); i++) {
    const uint32_t id = tree.id(i);
    if (!id) continue;
    size_t h = hash(id) & mask_;
    while (slots_[h].id && slots_[h].id != id) h = (h + 1) & mask_;
    const bool has = i < set.size() && (set[i] & kFsFactor);
    slots_[h] = Slot{id, has ? i | kHasFactor : i, has ? factors[i] : 0.0};
  }
  valid_ = true;
}

void FairShareTable::rebuild(std::vector<AssocRecord> records) {
  forget();
  tree_.reset();
  shape_.clear();
  computed_ = false;
  std::vector<AssocShape> shape(records.size());
  for (size_t i = 0; i < records.size(); i++)
    shape[i] = {records[i].id, records[i].parent_id, records[i].shares_raw,
                records[i].shares_parent, !records[i].user.empty()};
  tree_.emplace(AssocTree::build(std::move(records)));
  shape_ = std::move(shape);
  result_.resize(tree_->size());
  generation_++;
}

void FairShareTable::set_usage(uint32_t i, long double usage_raw) {
  if (!tree_) invalid("no association tree loaded");
  try {
    tree_->set_usage(i, usage_raw);
  } catch (...) {
    drop();
    throw;
  }
}

void FairShareTable::hold(UsageBasis basis, std::span<const RunningJob> jobs, size_t* unknown) {
  if (!tree_) invalid("no association tree loaded");
  if (basis == UsageBasis::kHistorical) invalid("the historical basis holds nothing");
  try {
    hold_usage(*tree_, held_direct(*tree_, basis, jobs, unknown));
  } catch (...) {
    drop();
    throw;
  }
}

void FairShareTable::compute(Algorithm algorithm, double dampening, bool by_id, bool index_ids) {
  forget();
  if (!tree_) invalid("no association tree loaded");
  compute_fair_share(*tree_, algorithm, dampening, result_);
  computed_ = true;
  if (by_id || index_ids) {
    if (by_id)
      index_.build(*tree_, result_.fs_factor, result_.set);
    else
      index_.build(*tree_, {}, {});
  }
  factors_by_id_ = by_id;
}

void FairShareTable::begin_tres(size_t count) {
  if (count > tres_.size()) invalid("more TRES than fairway_fairshare_tres takes");
  tres_n_ = 0;
  tres_done_ = 0;
  tres_pending_ = count;
  for (size_t k = count; k < tres_.size(); k++) tres_[k] = TresTree{};
  if (count) {
    if (!tree_) invalid("no association tree loaded");
    tres_factors_.resize(count * size());
  }
}

void FairShareTable::compute_tres(size_t k, int pos, std::span<const long double> usage,
                                  UsageBasis basis, std::span<const RunningJob> jobs,
                                  Algorithm algorithm, double dampening) {
  const size_t n = size();
  try {
    if (!tree_) invalid("no association tree loaded");
    if (k != tres_done_ || k >= tres_pending_) invalid("TRES out of turn");
    if (!usage.empty() && usage.size() != n) invalid("TRES usage of the wrong size");
    if (usage.empty() && basis == UsageBasis::kHistorical)
      invalid("the historical basis holds nothing");
    TresTree& t = tres_[k];
    tres_pos_[k] = pos;
    if (!t.tree || t.generation != generation_ || t.tree->size() != n) {
      t.tree.reset();
      t.tree.emplace(*tree_);
      t.result.resize(n);
      t.generation = generation_;
    }
    if (usage.empty())
      hold_usage(*t.tree, held_direct(*t.tree, basis, jobs, nullptr));
    else
      for (uint32_t i = 0; i < n; i++) t.tree->set_usage(i, usage[i]);
    compute_fair_share(*t.tree, algorithm, dampening, t.result);
    for (size_t i = 0; i < n; i++) tres_factors_[k * n + i] = t.result.fs_factor[i];
  } catch (...) {
    tres_pending_ = tres_done_ = 0;
    for (TresTree& t : tres_) t = TresTree{};
    throw;
  }
  if (++tres_done_ == tres_pending_) tres_n_ = tres_pending_;
}

void FairShareTable::forget() noexcept {
  index_.clear();
  forget_noted();
  factors_by_id_ = false;
  tres_n_ = tres_pending_ = tres_done_ = 0;
}

void FairShareTable::drop() noexcept {
  forget();
  tree_.reset();
  shape_.clear();
  computed_ = false;
}

std::optional<double> FairShareTable::tres_factor(uint32_t id, int pos) const noexcept {
  size_t k = 0;
  while (k < tres_n_ && tres_pos_[k] != pos) k++;
  if (k == tres_n_) return std::nullopt;
  const FactorIndex::Slot* s = index_.find(id);
  if (!s) return std::nullopt;
  return tres_factors_[k * size() + (s->index & ~FactorIndex::kHasFactor)];
}

}  // namespace fairway
