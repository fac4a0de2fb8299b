// Why a pending job has its place (see explain.h).
#include "explain.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "error.h"
#include "fairshare_tres.h"
#include "slurm_values.h"

namespace fairway {
namespace {

using Computed = FairShareState;

// The tree and its fair-share values, after `change` edited the records' direct usage.
Computed compute(const FairShareInput& fs,
                 const std::function<void(std::vector<AssocRecord>&)>& change = {}) {
  std::vector<AssocRecord> records = fs.associations;
  if (change) change(records);
  accumulate_direct_usage(records);
  Computed c{AssocTree::build(std::move(records)), {}};
  compute_fair_share(c.tree, fs.algorithm, fs.dampening_factor, c.result);
  return c;
}

double fs_of(const Computed& c, uint32_t id) {
  const uint32_t i = c.tree.find(id);
  return i == kNoIndex ? 0 : c.result.fs_factor[i];
}

// The users of an account (direct children that are users).
std::vector<uint32_t> users_of(const AssocTree& t, uint32_t i) {
  std::vector<uint32_t> out;
  for (uint32_t c : t.children(i))
    if (t.is_user(c)) out.push_back(t.id(c));
  return out;
}

// The factor `usage_halving_fs_factor` halves: the association's own for a user, the highest
// of its users' for an account.
double measured_factor(const Computed& c, uint32_t id) {
  const uint32_t i = c.tree.find(id);
  if (i == kNoIndex) return 0;
  if (c.tree.is_user(i)) return c.result.fs_factor[i];
  double best = 0;
  for (uint32_t u : users_of(c.tree, i)) best = std::max(best, fs_of(c, u));
  return best;
}

}  // namespace

FairShareState fair_share_state(const FairShareInput& fs) { return compute(fs); }

std::vector<bool> in_subtree(const std::vector<AssocRecord>& records, uint32_t root_id) {
  std::unordered_map<uint32_t, size_t> index;
  for (size_t i = 0; i < records.size(); ++i) index[records[i].id] = i;
  std::vector<bool> in(records.size(), false);
  for (size_t i = 0; i < records.size(); ++i) {
    size_t at = i;
    for (size_t steps = 0; steps <= records.size(); ++steps) {
      if (records[at].id == root_id) {
        in[i] = true;
        break;
      }
      auto p = index.find(records[at].parent_id);
      if (!records[at].parent_id || p == index.end()) break;
      at = p->second;
    }
  }
  return in;
}

std::vector<FairShareLevel> fair_share_path(const FairShareInput& fs, uint32_t assoc_id) {
  std::vector<FairShareLevel> path;
  if (fs.associations.empty()) return path;
  const Computed c = compute(fs);
  const AssocTree& t = c.tree;
  uint32_t i = t.find(assoc_id);
  if (i == kNoIndex) return path;
  const bool fair_tree = fs.algorithm == Algorithm::kFairTree;
  for (; i != kNoIndex; i = t.parent(i)) {
    FairShareLevel l;
    l.account = std::string(t.account(i));
    l.user = std::string(t.user(i));
    l.shares_norm = c.result.shares_norm[i];
    l.usage_norm = c.result.usage_norm[i];
    l.usage_efctv = c.result.usage_efctv[i];
    l.level_fs = fair_tree ? c.result.level_fs[i] : static_cast<long double>(kNoVal);
    const uint32_t p = t.fs_parent(i);
    // Fair Tree's root shares_norm is its raw shares over NO_VAL (its level_shares, never
    // set): nothing to show.
    if (fair_tree && p == kNoIndex) l.shares_norm = kNoVal;
    const double factor = measured_factor(c, t.id(i));
    l.fs_factor = t.is_user(i)                                ? factor
                  : (i == t.root() || users_of(t, i).empty()) ? static_cast<double>(kNoVal)
                                                              : factor;
    if (p != kNoIndex) {
      const auto sib = t.fs_children(p);
      l.siblings = sib.size();
      l.rank = 1;
      for (uint32_t s : sib)
        if (fair_tree ? c.result.level_fs[s] > l.level_fs : c.result.usage_efctv[s] < l.usage_efctv)
          ++l.rank;
    } else {
      l.siblings = 1;
      l.rank = 1;
    }
    path.push_back(std::move(l));
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<double> fs_factors_after_decay(const FairShareInput& fs, uint32_t subtree_id,
                                           double seconds, double half_life) {
  const long double d =
      half_life > 0 ? std::pow(0.5L, static_cast<long double>(seconds / half_life)) : 1.0L;
  const Computed c = compute(fs, [&](std::vector<AssocRecord>& r) {
    const auto in = in_subtree(r, subtree_id);
    for (size_t i = 0; i < r.size(); ++i)
      if (in[i]) r[i].usage_raw *= d;
  });
  std::vector<double> out(fs.associations.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = fs_of(c, fs.associations[i].id);
  return out;
}

std::optional<long double> usage_halving_fs_factor(const FairShareInput& fs, uint32_t assoc_id) {
  const double f0 = measured_factor(compute(fs), assoc_id);
  if (!(f0 > 0)) return std::nullopt;
  auto factor_with = [&](long double extra) {
    return measured_factor(compute(fs,
                                   [&](std::vector<AssocRecord>& r) {
                                     for (auto& a : r)
                                       if (a.id == assoc_id) a.usage_raw += extra;
                                   }),
                           assoc_id);
  };
  long double lo = 0, hi = 1;
  for (const auto& a : fs.associations) hi = std::max(hi, a.usage_raw);
  // A tie broken by the least usage (Fair Tree ranks): any usage at all halves it.
  if (!(factor_with(1e-9L * hi) > f0 / 2)) return 0;
  while (factor_with(hi) > f0 / 2) {
    lo = hi;
    hi *= 2;
    if (hi > 0x1p60L) return std::nullopt;
  }
  for (int i = 0; i < 80 && (hi - lo) > 1e-6L * hi; ++i) {
    const long double mid = (lo + hi) / 2;
    (factor_with(mid) > f0 / 2 ? lo : hi) = mid;
  }
  return hi;
}

Explanation explain_job(const Queue& q, const FairShareInput& all, uint32_t job_id) {
  Explanation e;
  e.job = q.job(job_id);
  if (!e.job) invalid("job " + std::to_string(job_id) + " is not pending");
  const PendingJob& job = *e.job;
  // The tree the job's factor came from: billing's, or its TRES's (fairway_fairshare_tres).
  // The listed TRES's name as the settings spell it (the job's may differ in case).
  const int judged = judged_tres_index(all, job);
  e.fairshare_tres = judged < 0 ? std::string() : all.fairshare_tres[static_cast<size_t>(judged)];
  const FairShareInput fs = judged_fair_share_input(all, job);
  e.path = fair_share_path(fs, job.assoc_id);
  if (!e.path.empty()) e.halving_usage = usage_halving_fs_factor(fs, job.assoc_id);

  // The account whose usage decays in the fair-share recovery estimate: the job's user
  // association's parent.
  uint32_t account_id = 0;
  for (const auto& a : fs.associations)
    if (a.id == job.assoc_id) account_id = a.parent_id;
  auto index_of = [&](uint32_t id) -> std::optional<size_t> {
    for (size_t i = 0; i < fs.associations.size(); ++i)
      if (fs.associations[i].id == id) return i;
    return std::nullopt;
  };

  for (const auto& row : job.rows) {
    QueuePlace p;
    p.partition = row.partition;
    p.priority = row.priority;
    const auto queue = partition_queue(q, row.partition);
    p.of = queue.size();
    for (size_t i = 0; i < queue.size(); ++i) {
      if (queue[i].job != &job) continue;
      p.tier = queue[i].tier;
      p.position = i + 1;
      if (i == 0) break;
      const QueueEntry& ahead = queue[i - 1];
      p.ahead = ahead.job->id;
      p.separation = separation(ahead, queue[i]);
      if (p.separation.by != Separation::By::kPriority) break;
      p.age_passes = seconds_until_age_passes(q.settings, *ahead.row, row);
      p.age_saturates = seconds_until_age_saturates(q.settings, *ahead.row, row);
      // Fair-share recovery: the account runs nothing more, its usage decays; the rest of
      // the tree and every other factor stay as they are.
      const auto mine = index_of(job.assoc_id), theirs = index_of(ahead.job->assoc_id);
      const double w = q.settings.weight[Factor::kFairshare], hl = q.settings.decay_half_life;
      // One association, one tree: both get the same factor whatever the usage.
      p.same_association =
          ahead.job->assoc_id == job.assoc_id && ahead.job->fairshare_tres == job.fairshare_tres;
      if (p.same_association) break;
      if (!mine || !account_id || !w || !(hl > 0) || row.admin || ahead.row->admin) break;
      // The job ahead may be judged on another TRES's tree: the account's usage of every
      // TRES decays alike.
      const bool same_tree = ahead.job->fairshare_tres == job.fairshare_tres;
      const FairShareInput theirs_fs =
          same_tree ? FairShareInput{} : judged_fair_share_input(all, *ahead.job);
      auto passes_after = [&](double t) {
        const auto f = fs_factors_after_decay(fs, account_id, t, hl);
        const auto g = same_tree ? f : fs_factors_after_decay(theirs_fs, account_id, t, hl);
        const double me = row.priority - row.factor[Factor::kFairshare] + w * f[*mine];
        const double them = ahead.row->priority - ahead.row->factor[Factor::kFairshare] +
                            (theirs ? w * g[*theirs] : ahead.row->factor[Factor::kFairshare]);
        return me > them;
      };
      double lo = 0, hi = -1;
      for (int k = 1; k <= 80; ++k) {
        const double t = k * hl / 4;
        if (passes_after(t)) {
          hi = t;
          break;
        }
        lo = t;
      }
      if (hi < 0) break;
      while (hi - lo > 60) {
        const double mid = (lo + hi) / 2;
        (passes_after(mid) ? hi : lo) = mid;
      }
      p.fair_share_passes = hi;
      break;
    }
    e.places.push_back(std::move(p));
  }
  return e;
}

}  // namespace fairway
