// Association tree of Fairway: Slurm's association hierarchy as flat arrays.
//
// Contract: AssocTree::build() takes the associations as slurmctld's assoc_mgr holds them and
// derives, once, everything that only depends on the tree's shape and raw shares:
//   * the direct parent (Slurm's parent_assoc_ptr) and depth of every association,
//   * the "fair-share parent" (Slurm's fs_assoc_ptr): the first proper ancestor that is not
//     Fairshare=parent, or the root; the fair-share algorithms work on the tree of fs parents,
//     where the children of a Fairshare=parent account are hoisted to that ancestor,
//   * the fair-share children of every association (Slurm's usage->children_list), in input
//     order, because assoc_mgr appends each association to its fs parent's children_list while
//     iterating assoc_mgr_assoc_list (_set_assoc_parent_and_user) and the order matters for ties,
//   * level_shares (sum of the raw shares in the fs parent's children_list, uint32_t arithmetic
//     like Slurm's _get_children_level_shares, including its wrap-around on overflow),
//   * normalized shares as assoc_mgr_normalize_assoc_shares() computes them: within-level for
//     Fair Tree, product down the path for classic/depth-oblivious.
// Indexes are positions in the input vector. Usage can be replaced between calculation periods
// with set_usage() without rebuilding; nothing allocates after build().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "slurm_values.h"

namespace fairway {

// Slurm's SLURMDB_FS_USE_PARENT: the value shares_raw holds for Fairshare=parent.
inline constexpr uint32_t kSharesUseParent = 0x7FFFFFFF;
// "No association" in index arrays.
inline constexpr uint32_t kNoIndex = UINT32_MAX;

struct AssocRecord {
  uint32_t id = 0;
  uint32_t parent_id = 0;  // 0 = none: this is the root association
  std::string account;
  std::string user;            // empty: an account association
  bool shares_parent = false;  // Fairshare=parent (SLURMDB_FS_USE_PARENT)
  uint32_t shares_raw = 1;     // ignored when shares_parent; kSharesUseParent also means "parent"
  // TOTAL usage as slurmctld keeps it (an account's includes its subtree, and can exceed the
  // sum of its children: usage of deleted children stays with the parent).
  long double usage_raw = 0;
};

// A malformed tree or usage value; names the offending association.
class TreeError : public std::runtime_error {
 public:
  TreeError(const std::string& problem, uint32_t id, std::string account, std::string user);
  uint32_t id() const noexcept { return id_; }
  const std::string& account() const noexcept { return account_; }
  const std::string& user() const noexcept { return user_; }

 private:
  uint32_t id_;
  std::string account_;
  std::string user_;
};

class AssocTree {
 public:
  // Validates and builds. Throws TreeError for: no association / no root, two roots, duplicate
  // id, unknown parent, a cycle (including an association that is its own parent), a user
  // association with children, usage that is NaN, infinite or negative.
  // Cost: O(A log A) for the id lookup plus O(A * depth) for the classic normalized shares,
  // which Slurm multiplies bottom-up (leaf factor first); we keep that order so that the
  // double rounding is the same (a top-down product would differ in the last bit).
  static AssocTree build(std::vector<AssocRecord> records);

  size_t size() const noexcept { return ids_.size(); }
  uint32_t root() const noexcept { return root_; }
  uint32_t id(uint32_t i) const { return ids_[i]; }
  // Names as given to build() (the tree keeps them in one pool, not one record each: the
  // plugin keeps a tree per cluster between periods, and memory per association counts).
  std::string_view account(uint32_t i) const {
    return std::string_view(names_).substr(name_off_[2 * i],
                                           name_off_[2 * i + 1] - name_off_[2 * i]);
  }
  std::string_view user(uint32_t i) const {
    return std::string_view(names_).substr(name_off_[2 * i + 1],
                                           name_off_[2 * i + 2] - name_off_[2 * i + 1]);
  }
  // The record association i was built from, with its usage as the tree holds it now and
  // shares_raw as shares_raw(i) (kSharesUseParent for Fairshare=parent).
  AssocRecord record(uint32_t i) const;
  bool is_user(uint32_t i) const { return is_user_[i] != 0; }
  // Fairshare=parent (either flag or the raw marker value).
  bool uses_parent_shares(uint32_t i) const { return shares_raw_[i] == kSharesUseParent; }
  // Raw shares as Slurm stores them: kSharesUseParent for Fairshare=parent.
  uint32_t shares_raw(uint32_t i) const { return shares_raw_[i]; }
  uint32_t parent(uint32_t i) const { return parent_[i]; }        // kNoIndex for the root
  uint32_t fs_parent(uint32_t i) const { return fs_parent_[i]; }  // kNoIndex for the root
  uint32_t depth(uint32_t i) const { return depth_[i]; }          // root: 0
  uint32_t max_depth() const noexcept { return max_depth_; }
  // Direct children, in input order.
  std::span<const uint32_t> children(uint32_t i) const {
    return {child_idx_.data() + child_begin_[i], child_begin_[i + 1] - child_begin_[i]};
  }
  // Slurm's children_list: associations whose fs parent is i, in input order.
  std::span<const uint32_t> fs_children(uint32_t i) const {
    return {fs_child_idx_.data() + fs_child_begin_[i], fs_child_begin_[i + 1] - fs_child_begin_[i]};
  }
  // All children_lists back to back (fs_children(i) starts at fs_child_offset(i)).
  std::span<const uint32_t> fs_child_array() const { return fs_child_idx_; }
  uint32_t fs_child_offset(uint32_t i) const { return fs_child_begin_[i]; }
  // Position of i in its fs parent's children_list (0 for the root).
  uint32_t fs_position(uint32_t i) const { return fs_pos_[i]; }
  // All associations, parents before children (depth-first, children in input order).
  std::span<const uint32_t> preorder() const { return preorder_; }
  // Slurm's usage->level_shares: kNoVal for the root (never set there).
  uint32_t level_shares(uint32_t i) const { return level_shares_[i]; }
  // assoc_mgr's shares_norm for Fair Tree (_normalize_assoc_shares_fair_tree).
  double shares_norm_fair_tree(uint32_t i) const { return shares_norm_ft_[i]; }
  // assoc_mgr's shares_norm for classic / depth-oblivious (_normalize_assoc_shares_traditional).
  double shares_norm_classic(uint32_t i) const { return shares_norm_classic_[i]; }
  // Number of user associations (Slurm's g_user_assoc_count).
  uint32_t user_count() const noexcept { return user_count_; }
  // Index of the association with this id, or kNoIndex. O(log A).
  uint32_t find(uint32_t id) const;

  long double usage_raw(uint32_t i) const { return usage_[i]; }
  std::span<const long double> usage_raw() const { return usage_; }
  // Replace the total raw usage of association i. Throws TreeError for NaN, infinite or negative
  // usage and std::out_of_range for a bad index. Allocation-free.
  void set_usage(uint32_t i, long double usage_raw);

 private:
  AssocTree() = default;

  std::vector<uint32_t> ids_;
  std::vector<uint8_t> is_user_;
  std::string names_;               // account and user of each association, back to back
  std::vector<uint32_t> name_off_;  // 2 * size() + 1 offsets into names_
  std::vector<uint32_t> shares_raw_;
  std::vector<uint32_t> parent_, fs_parent_, depth_;
  std::vector<uint32_t> child_begin_, child_idx_;
  std::vector<uint32_t> fs_child_begin_, fs_child_idx_, fs_pos_;
  std::vector<uint32_t> preorder_;
  std::vector<uint32_t> level_shares_;
  std::vector<double> shares_norm_ft_, shares_norm_classic_;
  std::vector<long double> usage_;
  std::vector<uint32_t> by_id_;  // indexes, sorted by id
  uint32_t root_ = kNoIndex;
  uint32_t max_depth_ = 0;
  uint32_t user_count_ = 0;
};

// Each association's total of `direct` (indexed like the tree): its own value plus its
// children's totals, summed bottom-up in children order as long double.  One order for every
// caller, so that the same direct values give the same bits.  Throws std::invalid_argument on
// a size mismatch.
std::vector<long double> subtree_totals(const AssocTree& tree, std::span<const long double> direct);

// The other way: each association's usage charged directly to it, its total usage minus its
// children's totals, clamped at 0 (rounding), indexed like the tree.
std::vector<long double> direct_usage(const AssocTree& tree);

// For snapshots, where usage is charged directly to each association: replaces every record's
// usage_raw by its total, i.e. its own usage plus its children's totals (summed in input order,
// as long double). Validates the tree like AssocTree::build (throws TreeError).
void accumulate_direct_usage(std::vector<AssocRecord>& records);

// How slurmdb_sort_hierarchical_assoc_list orders the association list, and therefore the order
// of sshare's rows and of every children_list. Both are depth-first from the root; they differ in
// the order of the children of one parent:
//   kUsersThenName (Slurm 22.05): users before accounts, then by name (user name or account
//     name, strcmp order);
//   kLineage (Slurm 23.11 and later, which sort by each association's lineage path
//     "/root/a/a.b/0-user/"): strcmp order of the child's own step of that path, "NAME/" for an
//     account and "0-USER/" for a user, so that account "a.b" comes before account "a" ('.' is
//     below '/') and users come first unless an account's name sorts below "0-".
// Input order for equal keys.
enum class SiblingOrder { kUsersThenName, kLineage };

// Reorders records that way. Use it to give a tree built from unsorted data Slurm's
// children_list order. Throws TreeError like AssocTree::build.
void sort_hierarchical(std::vector<AssocRecord>& records,
                       SiblingOrder order = SiblingOrder::kUsersThenName);

// The same order as indexes into a built tree (sshare's row order).
std::vector<uint32_t> hierarchical_order(const AssocTree& tree,
                                         SiblingOrder order = SiblingOrder::kUsersThenName);

}  // namespace fairway
