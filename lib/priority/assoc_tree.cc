// Association tree: validation, flat arrays, level shares and normalized shares.
// See assoc_tree.h for the contract; Slurm references are to src/common/assoc_mgr.c (22.05).
#include "assoc_tree.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

namespace fairway {
namespace {

std::string describe(uint32_t id, const std::string& account, const std::string& user) {
  std::string s = "association id " + std::to_string(id) + " (account '" + account + "'";
  if (!user.empty()) s += ", user '" + user + "'";
  return s + ")";
}

[[noreturn]] void fail(const std::string& problem, const AssocRecord& r) {
  throw TreeError(problem, r.id, r.account, r.user);
}

bool valid_usage(long double u) { return std::isfinite(u) && u >= 0; }

// strcmp(a.c_str(), b.c_str()) < 0: compares up to the first NUL, as unsigned char.
bool c_string_less(std::string_view a, std::string_view b) {
  a = a.substr(0, a.find('\0'));
  b = b.substr(0, b.find('\0'));
  return a.compare(b) < 0;
}

}  // namespace

TreeError::TreeError(const std::string& problem, uint32_t id, std::string account, std::string user)
    : std::runtime_error(problem + ": " + describe(id, account, user)),
      id_(id),
      account_(std::move(account)),
      user_(std::move(user)) {}

AssocTree AssocTree::build(std::vector<AssocRecord> records) {
  const size_t n = records.size();
  if (n == 0) throw TreeError("no root association: the tree is empty", 0, "", "");
  if (n >= kNoIndex) fail("too many associations", records.back());

  AssocTree t;
  const auto& rec = records;
  t.ids_.resize(n);
  t.is_user_.resize(n);
  t.name_off_.resize(2 * n + 1);
  {
    size_t chars = 0;
    for (const AssocRecord& r : rec) chars += r.account.size() + r.user.size();
    if (chars >= UINT32_MAX) fail("association names too long (4 GiB in all)", rec.back());
    t.names_.reserve(chars);
  }
  for (uint32_t i = 0; i < n; ++i) {
    t.ids_[i] = rec[i].id;
    t.is_user_[i] = !rec[i].user.empty();
    t.name_off_[2 * i] = static_cast<uint32_t>(t.names_.size());
    t.names_ += rec[i].account;
    t.name_off_[2 * i + 1] = static_cast<uint32_t>(t.names_.size());
    t.names_ += rec[i].user;
  }
  t.name_off_[2 * n] = static_cast<uint32_t>(t.names_.size());

  // Validate values and find the root.
  t.shares_raw_.resize(n);
  t.usage_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const AssocRecord& r = rec[i];
    if (!valid_usage(r.usage_raw)) {
      fail(std::isnan(r.usage_raw)   ? "usage is NaN"
           : std::isinf(r.usage_raw) ? "usage is infinite"
                                     : "usage is negative",
           r);
    }
    t.usage_[i] = r.usage_raw;
    // Slurm cannot tell a raw value of 0x7FFFFFFF from Fairshare=parent; neither do we.
    t.shares_raw_[i] = r.shares_parent ? kSharesUseParent : r.shares_raw;
    if (!r.user.empty()) ++t.user_count_;
    if (r.parent_id == 0) {
      if (t.root_ != kNoIndex) fail("second root association (parent 0)", r);
      // Slurm's root is always the cluster's root account; a user there has no level to rank.
      if (!r.user.empty()) fail("root association is a user association (parent 0)", r);
      t.root_ = i;
    }
  }
  if (t.root_ == kNoIndex) fail("no root association (every association has a parent)", rec[0]);

  // Id lookup.
  t.by_id_.resize(n);
  std::iota(t.by_id_.begin(), t.by_id_.end(), 0U);
  std::sort(t.by_id_.begin(), t.by_id_.end(), [&](uint32_t a, uint32_t b) {
    return t.ids_[a] != t.ids_[b] ? t.ids_[a] < t.ids_[b] : a < b;
  });
  for (size_t k = 1; k < n; ++k) {
    if (t.ids_[t.by_id_[k]] == t.ids_[t.by_id_[k - 1]]) {
      fail("duplicate association id", rec[std::max(t.by_id_[k], t.by_id_[k - 1])]);
    }
  }

  // Parents.
  t.parent_.assign(n, kNoIndex);
  for (uint32_t i = 0; i < n; ++i) {
    if (i == t.root_) continue;
    const uint32_t p = t.find(rec[i].parent_id);
    if (p == kNoIndex) fail("unknown parent id " + std::to_string(rec[i].parent_id), rec[i]);
    if (p == i) fail("cycle: association is its own parent", rec[i]);
    if (!rec[p].user.empty()) fail("user association has children", rec[p]);
    t.parent_[i] = p;
  }

  // Direct children (CSR, input order).
  t.child_begin_.assign(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (t.parent_[i] != kNoIndex) ++t.child_begin_[t.parent_[i] + 1];
  std::partial_sum(t.child_begin_.begin(), t.child_begin_.end(), t.child_begin_.begin());
  t.child_idx_.resize(n ? n - 1 : 0);
  {
    std::vector<uint32_t> fill(t.child_begin_.begin(), t.child_begin_.end() - 1);
    for (uint32_t i = 0; i < n; ++i)
      if (t.parent_[i] != kNoIndex) t.child_idx_[fill[t.parent_[i]]++] = i;
  }

  // Preorder from the root; whatever is not reached sits on a cycle (or hangs below one).
  t.preorder_.clear();
  t.preorder_.reserve(n);
  t.depth_.assign(n, 0);
  {
    std::vector<uint32_t> stack{t.root_};
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      t.preorder_.push_back(v);
      const auto ch = t.children(v);
      for (size_t k = ch.size(); k-- > 0;) {
        t.depth_[ch[k]] = t.depth_[v] + 1;
        t.max_depth_ = std::max(t.max_depth_, t.depth_[ch[k]]);
        stack.push_back(ch[k]);
      }
    }
  }
  if (t.preorder_.size() != n) {
    std::vector<char> seen(n, 0);
    for (uint32_t v : t.preorder_) seen[v] = 1;
    // Report an association that is itself on the cycle: walk up from an unreached one.
    uint32_t v = 0;
    while (seen[v]) ++v;
    std::vector<char> on_path(n, 0);
    while (!on_path[v]) {
      on_path[v] = 1;
      v = t.parent_[v];
    }
    fail("cycle in parent links", rec[v]);
  }

  // Fair-share parent (_find_assoc_parent with direct == false, as _set_assoc_parent_and_user
  // uses it): the first proper ancestor that is not Fairshare=parent, or the root.
  t.fs_parent_.assign(n, kNoIndex);
  for (uint32_t v : t.preorder_) {
    const uint32_t p = t.parent_[v];
    if (p == kNoIndex) continue;
    t.fs_parent_[v] = (p == t.root_ || !t.uses_parent_shares(p)) ? p : t.fs_parent_[p];
  }

  // Slurm's children_list (CSR keyed by fs parent, input order).
  t.fs_child_begin_.assign(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (t.fs_parent_[i] != kNoIndex) ++t.fs_child_begin_[t.fs_parent_[i] + 1];
  std::partial_sum(t.fs_child_begin_.begin(), t.fs_child_begin_.end(), t.fs_child_begin_.begin());
  t.fs_child_idx_.resize(n - 1);
  t.fs_pos_.assign(n, 0);
  {
    std::vector<uint32_t> fill(t.fs_child_begin_.begin(), t.fs_child_begin_.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t f = t.fs_parent_[i];
      if (f == kNoIndex) continue;
      t.fs_pos_[i] = fill[f] - t.fs_child_begin_[f];
      t.fs_child_idx_[fill[f]++] = i;
    }
  }

  // level_shares (_get_children_level_shares / _set_children_level_shares): the sum over the
  // children_list, where a Fairshare=parent child contributes the sum of its own children_list
  // (empty unless it is the root's) instead of its raw shares. uint32_t like Slurm: wraps.
  {
    std::vector<uint32_t> child_sum(n, 0);
    for (size_t k = n; k-- > 0;) {  // reverse preorder: fs children before fs parents
      const uint32_t v = t.preorder_[k];
      uint32_t sum = 0;
      for (uint32_t c : t.fs_children(v))
        sum += t.uses_parent_shares(c) ? child_sum[c] : t.shares_raw_[c];
      child_sum[v] = sum;
    }
    t.level_shares_.assign(n, kNoVal);  // slurmdb_create_assoc_usage() default; stays for root
    for (uint32_t i = 0; i < n; ++i)
      if (t.fs_parent_[i] != kNoIndex) t.level_shares_[i] = child_sum[t.fs_parent_[i]];
  }

  // Normalized shares, both flavours (assoc_mgr_normalize_assoc_shares picks one by flag).
  t.shares_norm_ft_.assign(n, 0.0);
  t.shares_norm_classic_.assign(n, 0.0);
  for (uint32_t v : t.preorder_) {
    // Fair Tree: own raw / own level shares; Fairshare=parent takes its fs parent's values.
    const uint32_t fs =
        (t.uses_parent_shares(v) && t.fs_parent_[v] != kNoIndex) ? t.fs_parent_[v] : v;
    if (t.level_shares_[fs] != 0)
      t.shares_norm_ft_[v] =
          static_cast<double>(t.shares_raw_[fs]) / static_cast<double>(t.level_shares_[fs]);

    // Classic: Fairshare=parent copies the fs parent's value (already computed: preorder, the
    // order assoc_mgr normalizes in since its list is hierarchical); otherwise the product of
    // raw/level over the path, skipping Fairshare=parent ancestors, multiplied bottom-up.
    if (t.uses_parent_shares(v) && t.fs_parent_[v] != kNoIndex) {
      t.shares_norm_classic_[v] = t.shares_norm_classic_[t.fs_parent_[v]];
      continue;
    }
    double s = 1.0;
    for (uint32_t a = v; t.parent_[a] != kNoIndex; a = t.parent_[a]) {
      if (t.uses_parent_shares(a)) continue;
      if (t.level_shares_[a] == 0)
        s = 0;
      else
        s *= static_cast<double>(t.shares_raw_[a]) / static_cast<double>(t.level_shares_[a]);
    }
    t.shares_norm_classic_[v] = s;
  }
  return t;
}

uint32_t AssocTree::find(uint32_t id) const {
  auto it = std::lower_bound(by_id_.begin(), by_id_.end(), id,
                             [&](uint32_t idx, uint32_t want) { return ids_[idx] < want; });
  return (it != by_id_.end() && ids_[*it] == id) ? *it : kNoIndex;
}

AssocRecord AssocTree::record(uint32_t i) const {
  AssocRecord r;
  r.id = ids_[i];
  r.parent_id = parent_[i] == kNoIndex ? 0 : ids_[parent_[i]];
  r.account = account(i);
  r.user = user(i);
  r.shares_parent = uses_parent_shares(i);
  r.shares_raw = shares_raw_[i];
  r.usage_raw = usage_[i];
  return r;
}

void AssocTree::set_usage(uint32_t i, long double usage_raw) {
  if (i >= usage_.size()) throw std::out_of_range("association index out of range");
  if (!valid_usage(usage_raw)) {
    fail(std::isnan(usage_raw)   ? "usage is NaN"
         : std::isinf(usage_raw) ? "usage is infinite"
                                 : "usage is negative",
         record(i));
  }
  usage_[i] = usage_raw;
}

std::vector<long double> subtree_totals(const AssocTree& t, std::span<const long double> direct) {
  if (direct.size() != t.size())
    throw std::invalid_argument("subtree totals: " + std::to_string(direct.size()) +
                                " values for " + std::to_string(t.size()) + " associations");
  std::vector<long double> total(t.size());
  const auto order = t.preorder();
  for (size_t k = order.size(); k-- > 0;) {
    const uint32_t v = order[k];
    long double sum = direct[v];
    for (uint32_t c : t.children(v)) sum += total[c];
    total[v] = sum;
  }
  return total;
}

std::vector<long double> direct_usage(const AssocTree& t) {
  std::vector<long double> direct(t.size());
  for (uint32_t i = 0; i < t.size(); ++i) {
    long double d = t.usage_raw(i);
    for (uint32_t c : t.children(i)) d -= t.usage_raw(c);
    direct[i] = d > 0 ? d : 0.0L;
  }
  return direct;
}

void accumulate_direct_usage(std::vector<AssocRecord>& records) {
  const AssocTree t = AssocTree::build(records);  // validates (and copies: snapshots only)
  std::vector<long double> direct(records.size());
  for (size_t i = 0; i < records.size(); ++i) direct[i] = records[i].usage_raw;
  const std::vector<long double> total = subtree_totals(t, direct);
  for (size_t i = 0; i < records.size(); ++i) records[i].usage_raw = total[i];
}

namespace {

// A child's own step of its lineage path (as_mysql_assoc.c's _set_lineage): "0-USER/" for a
// user, "ACCOUNT/" for an account.
std::string lineage_step(const AssocTree& t, uint32_t v) {
  return t.is_user(v) ? "0-" + std::string(t.user(v)) + "/" : std::string(t.account(v)) + "/";
}

}  // namespace

std::vector<uint32_t> hierarchical_order(const AssocTree& t, SiblingOrder order) {
  std::vector<uint32_t> out;
  out.reserve(t.size());
  std::vector<uint32_t> kids;
  std::vector<std::string> keys;  // kLineage: lineage_step of each child of the current parent
  // Depth-first; children sorted like slurmdb's _sort_children_list (users first, then strcmp of
  // the name), or by their lineage step; stable.
  std::vector<uint32_t> stack{t.root()};
  while (!stack.empty()) {
    const uint32_t v = stack.back();
    stack.pop_back();
    out.push_back(v);
    const auto ch = t.children(v);
    if (order == SiblingOrder::kLineage) {
      // sort positions 0..n-1 by their step, then map back to the children
      keys.clear();
      for (uint32_t c : ch) keys.push_back(lineage_step(t, c));
      kids.resize(ch.size());
      for (uint32_t k = 0; k < kids.size(); ++k) kids[k] = k;
      std::stable_sort(kids.begin(), kids.end(),
                       [&](uint32_t a, uint32_t b) { return c_string_less(keys[a], keys[b]); });
      for (uint32_t& k : kids) k = ch[k];
    } else {
      kids.assign(ch.begin(), ch.end());
      std::stable_sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
        const bool ua = t.is_user(a), ub = t.is_user(b);
        if (ua != ub) return ua;
        return c_string_less(ua ? t.user(a) : t.account(a), ub ? t.user(b) : t.account(b));
      });
    }
    for (size_t k = kids.size(); k-- > 0;) stack.push_back(kids[k]);
  }
  return out;
}

void sort_hierarchical(std::vector<AssocRecord>& records, SiblingOrder sibling_order) {
  const std::vector<uint32_t> order = hierarchical_order(AssocTree::build(records), sibling_order);
  std::vector<AssocRecord> sorted;
  sorted.reserve(records.size());
  for (uint32_t v : order) sorted.push_back(std::move(records[v]));
  records = std::move(sorted);
}

}  // namespace fairway
