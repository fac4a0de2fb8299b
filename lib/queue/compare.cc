// Why one pending job is ahead of another (see compare.h).
#include "compare.h"

#include <algorithm>

#include "error.h"
#include "fairshare_tres.h"
#include "slurm_values.h"

namespace fairway {
namespace {

// The associations from i up to the root along the children_lists (fs parents), i first.
std::vector<uint32_t> fs_chain(const AssocTree& t, uint32_t i) {
  std::vector<uint32_t> chain;
  for (; i != kNoIndex; i = t.fs_parent(i)) chain.push_back(i);
  return chain;
}

// Fair Tree's order within one children_list (fair_tree.cc): Level FS descending, users
// before accounts, then list position.
bool sorts_before(const FairShareState& s, uint32_t x, uint32_t y) {
  const auto& lf = s.result.level_fs;
  if (lf[x] != lf[y]) return lf[x] > lf[y];
  if (s.tree.is_user(x) != s.tree.is_user(y)) return s.tree.is_user(x);
  return s.tree.fs_position(x) < s.tree.fs_position(y);
}

FairShareSide side(const FairShareState& s, uint32_t i, bool fair_tree) {
  const AssocTree& t = s.tree;
  FairShareSide out;
  out.account = std::string(t.account(i));
  out.user = std::string(t.user(i));
  out.shares_norm = s.result.shares_norm[i];
  out.usage_efctv = s.result.usage_efctv[i];
  // Classic and depth-oblivious have no Level FS: unset (kNoVal), as the root's.
  out.level_fs = fair_tree ? s.result.level_fs[i] : static_cast<long double>(kNoVal);
  out.uses_parent = t.uses_parent_shares(i);
  const uint32_t p = t.fs_parent(i);
  if (p == kNoIndex) {
    out.rank = out.siblings = 1;
    return out;
  }
  const auto sib = t.fs_children(p);
  out.siblings = sib.size();
  out.rank = 1;
  for (uint32_t x : sib)
    if (x != i &&
        (fair_tree ? sorts_before(s, x, i) : s.result.usage_efctv[x] < s.result.usage_efctv[i]))
      ++out.rank;
  return out;
}

// The place of a job's row in one partition's order (0 if it is not there). From Slurm 24.11
// a job has a row per (partition, QOS) pair, so it can stand in one queue more than once.
size_t position_of(const std::vector<QueueEntry>& queue, const FactorRow* row) {
  for (size_t i = 0; i < queue.size(); ++i)
    if (queue[i].row == row) return i + 1;
  return 0;
}

}  // namespace

FairShareDecision fair_share_decision(const FairShareInput& fs, uint32_t assoc_a,
                                      uint32_t assoc_b) {
  FairShareDecision d;
  d.algorithm = fs.algorithm;
  d.same_association = assoc_a == assoc_b;
  if (fs.associations.empty()) return d;
  const FairShareState s = fair_share_state(fs);
  const AssocTree& t = s.tree;
  const uint32_t ia = t.find(assoc_a), ib = t.find(assoc_b);
  const bool fair_tree = fs.algorithm == Algorithm::kFairTree;
  if (ia != kNoIndex) d.fs_factor_a = s.result.fs_factor[ia];
  if (ib != kNoIndex) d.fs_factor_b = s.result.fs_factor[ib];
  if (ia == kNoIndex || ib == kNoIndex) return d;
  if (!fair_tree || d.same_association) {
    d.a = side(s, ia, fair_tree);
    d.b = side(s, ib, fair_tree);
    d.a_ranks_first = !d.same_association && d.fs_factor_a > d.fs_factor_b;
    return d;
  }
  // The deepest common association of the two chains, and the chains' steps below it.
  const auto ca = fs_chain(t, ia), cb = fs_chain(t, ib);
  size_t ka = ca.size(), kb = cb.size();  // walk down from the root while the chains agree
  while (ka > 0 && kb > 0 && ca[ka - 1] == cb[kb - 1]) {
    --ka;
    --kb;
  }
  // ca[ka] is the common association; ca[ka - 1] and cb[kb - 1] the two sides below it. One
  // chain ending there (ka or kb 0) happens only when one association is an fs ancestor of
  // the other, which two users never are.
  if (ka == ca.size() || ka == 0 || kb == 0) return d;
  const uint32_t common = ca[ka];
  const uint32_t xa = ca[ka - 1], xb = cb[kb - 1];
  d.ancestor = std::string(t.account(common));
  d.a = side(s, xa, true);
  d.b = side(s, xb, true);
  d.a_ranks_first = sorts_before(s, xa, xb);
  d.tied = s.result.level_fs[xa] == s.result.level_fs[xb];
  return d;
}

Comparison compare_jobs(const Queue& q, const FairShareInput& fs, uint32_t job_a, uint32_t job_b) {
  if (job_a == job_b) invalid("compare needs two different jobs");
  Comparison c;
  c.a = q.job(job_a);
  c.b = q.job(job_b);
  if (!c.a) invalid("job " + std::to_string(job_a) + " is not pending");
  if (!c.b) invalid("job " + std::to_string(job_b) + " is not pending");
  // Each partition once: its first row of each job (the pair of rows slurmctld considers
  // first when a job has several QOS).
  std::vector<std::string> done;
  for (const FactorRow& ra : c.a->rows) {
    if (std::find(done.begin(), done.end(), ra.partition) != done.end()) continue;
    done.push_back(ra.partition);
    const auto rb = std::find_if(c.b->rows.begin(), c.b->rows.end(),
                                 [&](const FactorRow& r) { return r.partition == ra.partition; });
    if (rb == c.b->rows.end()) continue;
    PairPlace p;
    p.partition = ra.partition;
    p.row_a = &ra;
    p.row_b = &*rb;
    const auto queue = partition_queue(q, ra.partition);
    p.of = queue.size();
    p.position_a = position_of(queue, p.row_a);
    p.position_b = position_of(queue, p.row_b);
    const PartitionInfo* info = q.partition(ra.partition);
    const uint32_t tier = info ? info->priority_tier : 0;
    const QueueEntry ea{c.a, p.row_a, tier}, eb{c.b, p.row_b, tier};
    p.a_first = runs_before(ea, eb);
    p.separation = p.a_first ? separation(ea, eb) : separation(eb, ea);
    c.places.push_back(std::move(p));
  }
  // Each job's factor comes from the tree of the TRES that judged it (fairway_fairshare_tres):
  // on one tree the paths part somewhere; on two, each factor is its own tree's.
  if (c.a->fairshare_tres == c.b->fairshare_tres) {
    c.fair_share =
        fair_share_decision(judged_fair_share_input(fs, *c.a), c.a->assoc_id, c.b->assoc_id);
  } else {
    const FairShareDecision da =
        fair_share_decision(judged_fair_share_input(fs, *c.a), c.a->assoc_id, c.a->assoc_id);
    const FairShareDecision db =
        fair_share_decision(judged_fair_share_input(fs, *c.b), c.b->assoc_id, c.b->assoc_id);
    c.fair_share.algorithm = fs.algorithm;
    c.fair_share.fs_factor_a = da.fs_factor_a;
    c.fair_share.fs_factor_b = db.fs_factor_b;
  }
  c.fair_share.tres_a = c.a->fairshare_tres;
  c.fair_share.tres_b = c.b->fairshare_tres;
  return c;
}

}  // namespace fairway
