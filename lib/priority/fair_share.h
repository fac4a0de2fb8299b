// Fair-share algorithms of Slurm 22.05's priority/multifactor, bit for bit.
//
// compute_fair_share() fills, for every association of an AssocTree, the five values Slurm keeps
// in assoc->usage (shares_norm, usage_norm, usage_efctv, level_fs, fs_factor) with Slurm's own
// floating types and order of operations, so results are identical to the last bit:
//   * Fair Tree (fair_tree.c: _apply_priority_fs, _calc_tree_fs, _calc_assoc_fs),
//   * classic (priority_multifactor.c: _set_children_usage_efctv, priority_p_set_assoc_usage,
//     _set_usage_efctv, priority_p_calc_fs_factor),
//   * depth-oblivious (_depth_oblivious_set_usage_efctv).
// `set` records which of the fields multifactor itself stores on that association; the others
// hold the value an untouched Slurm association has (slurmdb_create_assoc_usage defaults:
// usage_norm = NO_VAL, usage_efctv = 0, level_fs = 0, fs_factor = 0), except fs_factor under
// classic/depth-oblivious, see FairShareResult.
#pragma once

#include <cstdint>
#include <vector>

#include "assoc_tree.h"
#include "slurm_values.h"

namespace fairway {

enum class Algorithm { kFairTree, kClassic, kDepthOblivious };

enum FieldMask : uint8_t {
  kSharesNorm = 1,
  kUsageNorm = 2,
  kUsageEfctv = 4,
  kLevelFs = 8,
  kFsFactor = 16,
};

struct FairShareResult {  // one entry per association, indexed like the tree
  std::vector<double> shares_norm;
  std::vector<long double> usage_norm, usage_efctv, level_fs;
  // Fair Tree: the rank-based factor of users (set), 0 for accounts (not set).
  // Classic/depth-oblivious: multifactor never stores fs_factor on an association; it computes
  // priority_p_calc_fs_factor() on demand. We hold that on-demand value (never marked set):
  // for a user, the factor its jobs get (a Fairshare=parent user uses its fs parent's usage and
  // shares, as _get_fairshare_priority does); for accounts and the root, the same formula on
  // their own values. (sshare recomputes its FairShare column from double-rounded values; see
  // sshare_format.h.)
  std::vector<double> fs_factor;
  std::vector<uint8_t> set;  // FieldMask bits: which fields multifactor writes for that association

  // Internal workspace of compute_fair_share (Fair Tree: sibling order per level and the
  // traversal stack; depth-oblivious: sibling usage sums), sized on the first computation with
  // that algorithm and kept, so that repeated calls on the same tree do not allocate; an
  // algorithm that does not need a vector leaves it empty (memory per association counts: the
  // plugin keeps this between periods). Unspecified contents.
  struct Frame {
    uint32_t begin, end, next;
    bool account_tied;
    long double prev_level_fs;
  };
  std::vector<uint32_t> work_order;
  std::vector<long double> work_sum;
  std::vector<Frame> work_stack;

  // Sizes every result vector for n associations (allocates only if the size changes).
  void resize(size_t n);
  // Sizes the workspace the algorithm needs on this tree (allocates only if it grows).
  void reserve_work(const AssocTree& tree, Algorithm algorithm);
};

// Computes the fair-share values of every association. dampening_factor is
// FairShareDampeningFactor (classic and depth-oblivious only; Slurm's uint16_t, so use integral
// values >= 1 to match it). Throws std::invalid_argument for dampening < 1 or NaN.
// O(A log A) (Fair Tree sorts each level), allocation-free when `out` is already sized.
void compute_fair_share(const AssocTree& tree, Algorithm algorithm, double dampening_factor,
                        FairShareResult& out);

// PriorityFlags (PriorityFlag bits) to algorithm: DEPTH_OBLIVIOUS wins (Slurm's read_config
// turns it into NO_FAIR_TREE as well), then NO_FAIR_TREE, else Fair Tree (the default since
// 19.05).  The one place that decides it, for the plugin and the fairway command alike.
Algorithm algorithm_from_flags(uint32_t priority_flags);

// A user's or account's normalized usage on demand, as multifactor's set_assoc_usage_norm():
// usage_raw / root's usage_raw, at most 1; 0 when the root has none.
long double usage_norm(long double usage_raw, long double root_usage_raw);

// Classic effective usage (multifactor's _set_usage_efctv): un + (UE(f) - un) * S_raw /
// level_shares, UE(f) when level_shares is 0.  The period's computation and the plugin's
// on-demand priority_p_set_assoc_usage both use it.
long double classic_usage_efctv(long double un, long double parent_usage_efctv, uint32_t shares_raw,
                                uint32_t level_shares);

// What a reconfigure that switches fair-share to `to` clears in every association (FieldMask
// bits kLevelFs, kFsFactor), for what a controller started with the new PriorityFlags has:
// leaving Fair Tree, its Level FS and fair-share factor (the other algorithms never store
// Level FS, and from 25.11 store their own factor from the next period on); going to Fair Tree
// from 25.11 on, classic's factors (Fair Tree stores users' again, accounts have none).
uint8_t switch_clears(Algorithm to, uint32_t slurm_release) noexcept;

// priority_p_calc_fs_factor(): 2^(-(usage_efctv/shares_norm)/dampening) computed with Slurm's
// types (long double quotient, converted to double for pow()); 0 when shares_norm <= 0 or
// usage_efctv is NO_VAL (within Slurm's fuzzy epsilon 1e-5).
double classic_fs_factor(long double usage_efctv, long double shares_norm, double dampening_factor);

const char* algorithm_name(Algorithm a);

// One association's depth-oblivious effective usage (_depth_oblivious_set_usage_efctv): un and
// s its usage_norm and shares_norm, ue_f and s_f its fs parent's usage_efctv and shares_norm,
// siblings_un the sum of usage_norm over the parent's children_list (Fairshare=parent ones
// skipped).  un itself when any of un, s, ue_f, s_f is zero.
long double depth_oblivious_usage_efctv(
    long double un, double s, long double ue_f, double s_f,
    long double siblings_un);  // "fair_tree", "classic", "depth_oblivious"

// One association's fair-share values as multifactor keeps them in assoc->usage.
struct AssocValues {
  double shares_norm = 0;
  long double usage_norm = 0;
  long double usage_efctv = 0;
  double fs_factor = 0;
};

// Whose effective usage a caller computes on demand (on_demand_usage_efctv) before a job's
// fair-share factor can be read.
enum class ComputeFirst { kNothing, kOwn, kShared };

// A job's fair-share factor, as multifactor's _get_fairshare_priority() of `slurm_release`
// (SLURM_VERSION_NUMBER) does for `algorithm`.  `own` is the job's association, `shared` the
// one it shares with (its fair-share parent for Fairshare=parent, else `own` again).  Fair
// Tree: own's stored factor.  Classic and depth-oblivious from 25.11: own's stored factor,
// once own's effective usage is computed.  Before 25.11: classic_fs_factor() of shared's
// effective usage and normalized shares, once that usage is computed.  When the usage read is
// still NO_VAL and compute_first is not null, *compute_first names the association whose
// effective usage the caller computes (and stores) before asking again; else kNothing.
double job_fs_factor(Algorithm algorithm, uint32_t slurm_release, const AssocValues& own,
                     const AssocValues& shared, double dampening_factor,
                     ComputeFirst* compute_first) noexcept;

// The values job_fs_factor() reads for `algorithm` and `slurm_release` (FsReads bits), so
// that a caller copies only those out of records scattered in memory: the job's weighing
// reads them once per job.
enum FsReads : uint32_t {
  kReadsOwnFsFactor = 1,    // own.fs_factor
  kReadsOwnUsageEfctv = 2,  // own.usage_efctv (whether to compute it first)
  kReadsShared = 4,         // shared.usage_efctv and shared.shares_norm
};
uint32_t job_fs_reads(Algorithm algorithm, uint32_t slurm_release) noexcept;

// One association's effective usage on demand, as multifactor's priority_p_set_assoc_usage
// sets it for `algorithm` once usage_norm is set: its own usage_norm without a fair-share
// parent (fs_parent null: the root, or a child of the root); the parent's usage_efctv for
// Fairshare=parent (shares_raw kSharesUseParent); depth-oblivious's formula, which calls
// siblings_usage_norm(arg) for the sum of usage_norm over the parent's children (Fairshare=
// parent ones skipped); else classic's (shares_raw, level_shares).
long double on_demand_usage_efctv(Algorithm algorithm, const AssocValues& self, uint32_t shares_raw,
                                  uint32_t level_shares, const AssocValues* fs_parent,
                                  long double (*siblings_usage_norm)(void* arg),
                                  void* arg) noexcept;

namespace detail {
// The algorithms behind compute_fair_share (out already sized and validated).
void compute_fair_tree(const AssocTree& tree, FairShareResult& out);
void compute_classic(const AssocTree& tree, bool depth_oblivious, double dampening_factor,
                     FairShareResult& out);
}  // namespace detail

}  // namespace fairway
