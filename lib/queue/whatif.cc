// The pending queue under other settings (see whatif.h).
#include "whatif.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "conf_values.h"
#include "error.h"
#include "fairshare_tres.h"
#include "slurm_values.h"

namespace fairway {
namespace {

// The PriorityWeight* setting named as sprio's column ("age", ..., "qos"), or null.
uint32_t* weight_field(PrioritySettings& s, const std::string& name) {
  for (Factor f : kFactors)
    if (has_weight(f) && name == factor_name(f)) return &s.weight[f];
  return nullptr;
}

// A factor's term as the modifier of a noun: "job-size factors".
std::string modifier(std::string term) {
  std::replace(term.begin(), term.end(), ' ', '-');
  return term;
}

double tres_weight(const PrioritySettings& s, const std::string& name) {
  for (const auto& [n, w] : s.weight_tres)
    if (ascii_lower(n) == ascii_lower(name)) return w;
  return 0;
}

std::string who(const std::string& account, const std::string& user) {
  return user.empty() ? "account " + account : "user " + user + " in account " + account;
}

size_t find_assoc(const std::vector<AssocRecord>& r, const std::string& account,
                  const std::string& user) {
  for (size_t i = 0; i < r.size(); ++i)
    if (r[i].account == account && r[i].user == user) return i;
  invalid("no association of " + who(account, user) + " in the snapshot");
}

// The fair-share factor of every association by id: a user's own, an account's the highest of
// its users'.
std::unordered_map<uint32_t, double> factors_by_id(const FairShareInput& fs) {
  std::unordered_map<uint32_t, double> out;
  if (fs.associations.empty()) return out;
  const FairShareState s = fair_share_state(fs);
  const AssocTree& t = s.tree;
  for (uint32_t i = 0; i < t.size(); ++i) {
    double f = s.result.fs_factor[i];
    if (!t.is_user(i)) {
      f = 0;
      for (uint32_t c : t.children(i))
        if (t.is_user(c)) f = std::max(f, s.result.fs_factor[c]);
    }
    out[t.id(i)] = f;
  }
  return out;
}

// part, taken with weight `before`, under weight `after`: unchanged when the weight is; else
// its normalized value (part / before, or `normalized` where the snapshot tells it) times
// `after`. nullopt: not known.
std::optional<double> reweigh(double part, double before, double after,
                              std::optional<double> normalized = std::nullopt) {
  if (before == after && !normalized) return part;
  if (normalized) return *normalized * after;
  if (before > 0) return part / before * after;
  if (after == 0) return 0.0;
  return std::nullopt;
}

double spearman(const std::vector<JobMove>& moves) {
  const double n = static_cast<double>(moves.size());
  if (moves.size() < 2) return 1;
  double d2 = 0;
  for (const JobMove& m : moves) {
    const double d = static_cast<double>(m.place_before) - static_cast<double>(m.place_after);
    d2 += d * d;
  }
  return 1 - 6 * d2 / (n * (n * n - 1));
}

}  // namespace

std::string weighted_factor_names() {
  std::string names;
  for (Factor f : kFactors)
    if (has_weight(f)) names += (names.empty() ? "" : ", ") + std::string(factor_name(f));
  return names;
}

WhatIf what_if(const Queue& q, const FairShareInput& fs, const WhatIfChange& change) {
  WhatIf w;
  w.after = q;
  PrioritySettings& s = w.after.settings;
  const PrioritySettings& s0 = q.settings;
  // The TRES named by --weight that are not PriorityWeight* names.
  std::vector<std::pair<std::string, double>> tres_changes;
  for (const auto& [name, value] : change.weights) {
    if (!(value >= 0) || !std::isfinite(value))
      invalid("weight " + name + ": " + std::to_string(value) + " is not a weight (0 or more)");
    if (uint32_t* f = weight_field(s, ascii_lower(name))) {
      if (value != std::floor(value) || value > 4294967295.0)
        invalid("weight " + name + " must be a whole number below 2^32");
      *f = static_cast<uint32_t>(value);
      continue;
    }
    bool known = false;
    for (const auto& t : s0.weight_tres) known = known || ascii_lower(t.first) == ascii_lower(name);
    for (const PendingJob& j : q.jobs) {
      for (const auto& t : j.tres_req) known = known || ascii_lower(t.first) == ascii_lower(name);
      for (const FactorRow& r : j.rows)
        for (const auto& t : r.tres) known = known || ascii_lower(t.first) == ascii_lower(name);
    }
    if (!known)
      invalid("unknown weight " + name +
              ": neither age, assoc, fairshare, jobsize, partition, "
              "qos nor a TRES of the snapshot (its PriorityWeightTRES or a job's request)");
    tres_changes.emplace_back(name, value);
    bool found = false;
    for (auto& [n, v] : s.weight_tres)
      if (ascii_lower(n) == ascii_lower(name)) {
        v = value;
        found = true;
      }
    if (!found) s.weight_tres.emplace_back(name, value);
  }
  if (change.max_age) s.max_age = *change.max_age;
  uint32_t flags_changed = 0;
  if (change.flags) {
    flags_changed = s0.flags ^ *change.flags;
    constexpr uint32_t kRecomputable = kNoNormalPart | kNoNormalQos | kNoFairTree | kDepthOblivious;
    for (uint32_t bit : kPriorityFlagBits)
      if ((flags_changed & bit) && !(kRecomputable & bit))
        invalid(std::string("PriorityFlags ") + priority_flag_name(bit) +
                ": its effect cannot be computed from a snapshot (only NO_NORMAL_PART, "
                "NO_NORMAL_QOS, NO_FAIR_TREE and DEPTH_OBLIVIOUS can be changed)");
    s.flags = *change.flags;
  }

  FairShareInput fs2 = fs;
  if (change.algorithm) {
    fs2.algorithm = *change.algorithm;
  } else if (flags_changed & (kNoFairTree | kDepthOblivious)) {
    // As slurmctld reads PriorityFlags: DEPTH_OBLIVIOUS, else NO_FAIR_TREE (classic), else
    // Fair Tree.
    fs2.algorithm = (s.flags & kDepthOblivious) ? Algorithm::kDepthOblivious
                    : (s.flags & kNoFairTree)   ? Algorithm::kClassic
                                                : Algorithm::kFairTree;
  }
  for (const auto& c : change.shares) {
    AssocRecord& r = fs2.associations[find_assoc(fs2.associations, c.account, c.user)];
    r.shares_parent = c.parent;
    r.shares_raw = c.parent ? kSharesUseParent : c.shares;
  }
  for (const auto& c : change.usage) {
    auto& recs = fs2.associations;
    const size_t at = find_assoc(recs, c.account, c.user);
    if (!(c.usage >= 0) || !std::isfinite(static_cast<double>(c.usage)))
      invalid("usage of " + who(c.account, c.user) + " must be 0 or more");
    if (!c.user.empty()) {
      recs[at].usage_raw = c.usage;
      continue;
    }
    // An account: its subtree's usage scaled so that its total is the new value.
    const std::vector<bool> in = in_subtree(recs, recs[at].id);
    long double total = 0;
    for (size_t i = 0; i < recs.size(); ++i)
      if (in[i]) total += recs[i].usage_raw;
    if (total > 0) {
      for (size_t i = 0; i < recs.size(); ++i)
        if (in[i]) recs[i].usage_raw *= c.usage / total;
    } else {
      recs[at].usage_raw = c.usage;
    }
  }
  const bool fs_changed =
      !change.shares.empty() || !change.usage.empty() || fs2.algorithm != fs.algorithm;
  const auto f_before = factors_by_id(fs);
  const auto f_after = fs_changed ? factors_by_id(fs2) : f_before;
  // fairway_fairshare_tres: a job judged by a listed TRES takes its factor from that TRES's
  // tree, with the new shares and algorithm (usage changes are billing's, sshare's RawUsage).
  const bool fs_needed =
      fs_changed || s0.weight[Factor::kFairshare] != s.weight[Factor::kFairshare];
  std::vector<std::unordered_map<uint32_t, double>> tres_after(fs2.fairshare_tres.size());
  std::vector<bool> tres_used(fs2.fairshare_tres.size(), false);
  for (const PendingJob& j : q.jobs)
    if (const int k = judged_tres_index(fs2, j); k >= 0) tres_used[static_cast<size_t>(k)] = true;
  for (size_t k = 0; fs_needed && k < tres_after.size(); ++k)
    if (tres_used[k]) tres_after[k] = factors_by_id(tres_fair_share_input(fs2, k));
  // The job's factor after the change, where the tree tells it.
  auto factor_after = [&](const PendingJob& j) -> std::optional<double> {
    const int k = judged_tres_index(fs2, j);
    const auto& from = k < 0 ? f_after : tres_after[static_cast<size_t>(k)];
    const auto it = from.find(j.assoc_id);
    if (it == from.end()) return std::nullopt;
    return it->second;
  };

  // What the snapshot tells of the partition and QOS factors without their weights.
  uint32_t max_part = 0, max_qos = 0;
  for (const auto& p : q.partitions) max_part = std::max(max_part, p.priority_job_factor);
  for (const auto& x : q.qos) max_qos = std::max(max_qos, x.priority);
  auto part_norm = [&](const std::string& name) -> double {
    const PartitionInfo* p = q.partition(name);
    if (!p) return 0;
    if (s.flags & kNoNormalPart) return p->priority_job_factor;
    return max_part ? static_cast<double>(p->priority_job_factor) / max_part : 0.0;
  };
  // nullopt for a QOS the snapshot does not list (no QOS, or several): then the part is
  // scaled.
  auto qos_norm = [&](const std::string& name) -> std::optional<double> {
    for (const auto& x : q.qos)
      if (x.name == name) {
        if (s.flags & kNoNormalQos) return x.priority;
        return max_qos ? static_cast<double>(x.priority) / max_qos : 0.0;
      }
    return std::nullopt;
  };

  auto need = [](std::optional<double> v, const std::string& factor, const char* weight) {
    if (!v)
      invalid("the snapshot holds no " + factor + " factors to weigh (" + weight +
              " was 0 when it was taken): take a snapshot with a nonzero weight");
    return *v;
  };
  for (PendingJob& j : w.after.jobs) {
    const std::optional<double> after_fs = fs_needed ? factor_after(j) : std::nullopt;
    for (FactorRow& r : j.rows) {
      if (r.admin) continue;
      const FactorRow old = r;
      // The factor itself where the snapshot or the tree tells it, rather than part / weight,
      // which can lose the last bit.
      ByFactor<std::optional<double>> norm;
      if (change.max_age || (s0.weight[Factor::kAge] == 0 && s.weight[Factor::kAge] > 0)) {
        const double waited =
            j.accrue_time ? std::max(0.0, std::difftime(q.taken_at, j.accrue_time)) : 0.0;
        // As multifactor: PriorityMaxAge 0 makes every accruing job's age factor 1.
        norm[Factor::kAge] = !j.accrue_time ? 0.0
                             : s.max_age    ? std::min(1.0, waited / s.max_age)
                                            : 1.0;
      }
      norm[Factor::kFairshare] = after_fs;
      if (s0.weight[Factor::kPartition] != s.weight[Factor::kPartition] ||
          (flags_changed & kNoNormalPart))
        norm[Factor::kPartition] = part_norm(r.partition);
      if (s0.weight[Factor::kQos] != s.weight[Factor::kQos] || (flags_changed & kNoNormalQos))
        norm[Factor::kQos] = qos_norm(j.qos);
      for (Factor f : kFactors)
        if (has_weight(f))
          r.factor[f] = need(reweigh(old.factor[f], s0.weight[f], s.weight[f], norm[f]),
                             modifier(factor_info(f).term), factor_info(f).weight_key);
      for (const auto& [name, value] : tres_changes) {
        const double before = tres_weight(s0, name);
        bool found = false;
        for (auto& [n, v] : r.tres)
          if (ascii_lower(n) == ascii_lower(name)) {
            v = need(reweigh(v, before, value), "TRES", "its PriorityWeightTRES");
            found = true;
          }
        if (!found && value > 0 && before == 0)
          invalid("the snapshot holds no " + name +
                  " factors to weigh (its PriorityWeightTRES "
                  "was 0 when it was taken): take a snapshot with a nonzero weight");
      }
      bool same = true;
      for (Factor f : kFactors) same = same && r.part(f) == old.part(f);
      if (same) continue;
      // The parts added in multifactor's order (job_factors.h): one sum for a job in one
      // partition, the partition term first for a job in several.
      FactorValues parts;
      for (Factor f : kFactors) parts[f] = r.part(f);
      parts[Factor::kNice] = r.factor[Factor::kNice];
      const SumOrder order = j.rows.size() == 1 ? SumOrder::kJob : SumOrder::kPartitionFirst;
      const uint32_t before_priority = r.priority;
      r.priority = priority_sum(parts, order, nullptr);
      // PriorityFlags=INCR_ONLY: a priority never goes down.
      if ((s.flags & kIncrOnly) && r.priority < before_priority) r.priority = before_priority;
      if (j.priority == before_priority) j.priority = r.priority;
    }
  }

  for (const PartitionInfo& info : q.partitions) {
    const auto before = partition_queue(q, info.name);
    if (before.empty()) continue;
    const auto after = partition_queue(w.after, info.name);
    // An entry is a job's row: from Slurm 24.11 a job has one per (partition, QOS) pair, so
    // it can stand in one partition's queue more than once.
    auto key = [](const QueueEntry& e) {
      return (static_cast<uint64_t>(e.job->id) << 32) |
             static_cast<uint64_t>(e.row - e.job->rows.data());
    };
    std::unordered_map<uint64_t, size_t> place_after;
    for (size_t i = 0; i < after.size(); ++i) place_after[key(after[i])] = i + 1;
    PartitionMoves m;
    m.partition = info.name;
    m.jobs = before.size();
    for (size_t i = 0; i < before.size(); ++i) {
      JobMove mv;
      mv.priority_before = before[i].row->priority;
      mv.place_before = i + 1;
      mv.place_after = place_after[key(before[i])];
      mv.job = after[mv.place_after - 1].job;  // owned by the result, as its jobs are
      mv.priority_after = after[mv.place_after - 1].row->priority;
      if (mv.place_after != mv.place_before) ++m.moved;
      m.jobs_by_move.push_back(mv);
    }
    m.spearman = spearman(m.jobs_by_move);
    std::stable_sort(m.jobs_by_move.begin(), m.jobs_by_move.end(),
                     [](const JobMove& a, const JobMove& b) {
                       const auto da = std::llabs(static_cast<long long>(a.place_before) -
                                                  static_cast<long long>(a.place_after));
                       const auto db = std::llabs(static_cast<long long>(b.place_before) -
                                                  static_cast<long long>(b.place_after));
                       if (da != db) return da > db;
                       return a.place_after < b.place_after;
                     });
    w.partitions.push_back(std::move(m));
  }

  for (const AssocRecord& r : fs.associations) {
    const auto b = f_before.find(r.id), a = f_after.find(r.id);
    if (b == f_before.end() || a == f_after.end() || a->second == b->second) continue;
    w.associations.push_back({r.account, r.user, b->second, a->second});
  }
  std::stable_sort(w.associations.begin(), w.associations.end(),
                   [](const AssocChange& x, const AssocChange& y) {
                     return std::fabs(x.after - x.before) > std::fabs(y.after - y.before);
                   });
  return w;
}

}  // namespace fairway
