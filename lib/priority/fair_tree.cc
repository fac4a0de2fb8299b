// Fair Tree (Slurm 22.05 src/plugins/priority/multifactor/fair_tree.c), our implementation.
//
// Per association (every one below the root is reached through the children_lists):
//   usage_efctv = usage_raw / fs parent's usage_raw, 0 if that is 0   (_ft_set_assoc_usage_efctv)
//   usage_norm  = usage_raw / root's usage_raw, capped at 1, 0 if root has none
//                                                                      (set_assoc_usage_norm)
//   level_fs    = S / U with S = shares_norm (within-level), U = usage_efctv; 0 if S == 0,
//                 +inf if U == 0 ("NOT A BUG: U can be 0"); Fairshare=parent: users +inf,
//                 accounts NO_VAL                                       (_calc_assoc_fs)
// Ranking (_calc_tree_fs): depth-first from the root; each children_list is sorted by level_fs
// descending, users before accounts on equal level_fs, otherwise in list order (glibc's qsort
// is a merge sort, i.e. stable, for arrays of pointers; we get the same total order from
// std::sort with the list position as last key). Walking the sorted list, a user is "tied" if
// its level_fs equals the previous sibling's (exact long double equality, as Slurm compares),
// or if it is the first of a list whose account was itself tied. A tied user keeps the current
// rank, an untied one takes rank = rnt (rank if there were no ties); rnt decreases per user.
// fs_factor = rank / number of user associations.
//
// Tied sibling accounts: Slurm's documentation says their children are merged before sorting,
// but in 22.05 _count_tied_accounts() stops at the first following sibling that is an account,
// and accounts come after users with the same level_fs, so it always returns 0 and nothing is
// ever merged: tied accounts are descended one after the other, the later one starting "tied"
// (its first user takes the rank the previous tied subtree ended on). We reproduce that.
#include <algorithm>
#include <limits>

#include "fair_share.h"

namespace fairway::detail {

void compute_fair_tree(const AssocTree& t, FairShareResult& out) {
  const uint32_t n = static_cast<uint32_t>(t.size());
  const uint32_t root = t.root();
  const long double no_val = static_cast<long double>(kNoVal);
  const long double root_raw = t.usage_raw(root);

  for (uint32_t i = 0; i < n; ++i) {
    out.shares_norm[i] = t.shares_norm_fair_tree(i);  // assoc_mgr computes it for everyone
    out.fs_factor[i] = 0;
    out.set[i] = kSharesNorm;
    if (i == root) {
      out.usage_norm[i] = no_val;  // never touched by multifactor
      out.usage_efctv[i] = 1.0L;   // init() sets the root's to 1.0
      out.level_fs[i] = no_val;    // _apply_priority_fs
      out.set[i] |= kUsageEfctv | kLevelFs;
      continue;
    }
    const long double raw = t.usage_raw(i);
    const long double parent_raw = t.usage_raw(t.fs_parent(i));
    const long double ue = (parent_raw == 0) ? 0.0L : raw / parent_raw;
    long double un = 0.0L;
    if (root_raw != 0) {
      un = raw / root_raw;
      if (un > 1.0L) un = 1.0L;
    }
    long double lf;
    if (t.uses_parent_shares(i)) {
      lf = t.is_user(i) ? std::numeric_limits<long double>::infinity() : no_val;
    } else {
      const long double s = out.shares_norm[i];
      lf = (s == 0.0L) ? 0.0L : s / ue;
    }
    out.usage_efctv[i] = ue;
    out.usage_norm[i] = un;
    out.level_fs[i] = lf;
    out.set[i] |= kUsageNorm | kUsageEfctv | kLevelFs;
  }

  // Ranking. work_order holds every children_list at the tree's CSR offsets, sorted on visit.
  const auto lists = t.fs_child_array();
  std::copy(lists.begin(), lists.end(), out.work_order.begin());
  const auto& lf = out.level_fs;
  auto sort_list = [&](uint32_t begin, uint32_t end) {
    std::sort(out.work_order.begin() + begin, out.work_order.begin() + end,
              [&](uint32_t a, uint32_t b) {
                if (lf[a] != lf[b]) return lf[a] > lf[b];
                const bool ua = t.is_user(a), ub = t.is_user(b);
                if (ua != ub) return ua;
                return t.fs_position(a) < t.fs_position(b);
              });
  };

  const uint32_t users = t.user_count();
  uint32_t rank = users, rnt = users;
  size_t top = 0;
  auto push = [&](uint32_t account, bool tied) {
    const uint32_t b = t.fs_child_offset(account);
    const uint32_t e = b + static_cast<uint32_t>(t.fs_children(account).size());
    sort_list(b, e);
    out.work_stack[top++] = FairShareResult::Frame{b, e, b, tied, no_val};
  };
  push(root, false);
  while (top > 0) {
    FairShareResult::Frame& f = out.work_stack[top - 1];
    if (f.next == f.end) {
      --top;
      continue;
    }
    const uint32_t pos = f.next++;
    const uint32_t a = out.work_order[pos];
    // Exact comparison on purpose: Slurm's tie test is `prev_level_fs == level_fs` on long
    // doubles, so only bit-identical level_fs values tie.
    const bool tied = (pos == f.begin && f.account_tied) ? true : (f.prev_level_fs == lf[a]);
    f.prev_level_fs = lf[a];
    if (t.is_user(a)) {
      if (!tied) rank = rnt;
      out.fs_factor[a] = rank / static_cast<double>(users);
      out.set[a] |= kFsFactor;
      --rnt;
    } else {
      push(a, tied);  // f is not used after this point (stack is pre-sized, but be strict)
    }
  }
}

}  // namespace fairway::detail
