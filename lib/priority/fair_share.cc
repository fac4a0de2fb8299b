// Dispatch and shared helpers of the fair-share algorithms (see fair_share.h).
#include "fair_share.h"

#include <cmath>
#include <stdexcept>

namespace fairway {

void FairShareResult::resize(size_t n) {
  shares_norm.resize(n);
  usage_norm.resize(n);
  usage_efctv.resize(n);
  level_fs.resize(n);
  fs_factor.resize(n);
  set.resize(n);
}

void FairShareResult::reserve_work(const AssocTree& tree, Algorithm algorithm) {
  if (algorithm == Algorithm::kFairTree) {
    work_order.resize(tree.size());
    // One frame per account on the path being ranked: at most the depth plus the root's.
    work_stack.resize(size_t{tree.max_depth()} + 2);
  } else if (algorithm == Algorithm::kDepthOblivious) {
    work_sum.resize(tree.size());
  }
}

void compute_fair_share(const AssocTree& tree, Algorithm algorithm, double dampening_factor,
                        FairShareResult& out) {
  if (!(dampening_factor >= 1.0) || !std::isfinite(dampening_factor))
    throw std::invalid_argument("FairShareDampeningFactor must be a number >= 1");
  out.resize(tree.size());
  out.reserve_work(tree, algorithm);
  switch (algorithm) {
    case Algorithm::kFairTree:
      detail::compute_fair_tree(tree, out);
      return;
    case Algorithm::kClassic:
      detail::compute_classic(tree, false, dampening_factor, out);
      return;
    case Algorithm::kDepthOblivious:
      detail::compute_classic(tree, true, dampening_factor, out);
      return;
  }
  throw std::invalid_argument("unknown fair-share algorithm");
}

Algorithm algorithm_from_flags(uint32_t priority_flags) {
  if (priority_flags & kDepthOblivious) return Algorithm::kDepthOblivious;
  return (priority_flags & kNoFairTree) ? Algorithm::kClassic : Algorithm::kFairTree;
}

namespace {

// fuzzy_equal(v, NO_VAL) from Slurm's macros.h (epsilon 0.00001).
bool fuzzy_no_val(long double v) {
  const long double d = v - static_cast<long double>(kNoVal);
  return d > -0.00001 && d < 0.00001;
}

}  // namespace

double classic_fs_factor(long double usage_efctv, long double shares_norm,
                         double dampening_factor) {
  if (fuzzy_no_val(usage_efctv)) return 0.0;
  if (shares_norm <= 0) return 0.0;
  // Slurm: pow(2.0, -((usage_efctv/shares_norm) / damp_factor)) with <math.h> pow(): the long
  // double quotient is converted to double. (std::pow would pick the long double overload.)
  const long double r = (usage_efctv / shares_norm) / static_cast<long double>(dampening_factor);
  return std::pow(2.0, static_cast<double>(-r));
}

uint8_t switch_clears(Algorithm to, uint32_t slurm_release) noexcept {
  if (to != Algorithm::kFairTree) return kLevelFs | kFsFactor;
  return slurm_release >= kSlurm2511 ? kFsFactor : 0;
}

double job_fs_factor(Algorithm algorithm, uint32_t slurm_release, const AssocValues& own,
                     const AssocValues& shared, double dampening_factor,
                     ComputeFirst* compute_first) noexcept {
  if (compute_first) *compute_first = ComputeFirst::kNothing;
  if (algorithm == Algorithm::kFairTree) return own.fs_factor;
  if (slurm_release >= kSlurm2511) {
    if (compute_first && fuzzy_no_val(own.usage_efctv)) *compute_first = ComputeFirst::kOwn;
    return own.fs_factor;
  }
  if (compute_first && fuzzy_no_val(shared.usage_efctv)) *compute_first = ComputeFirst::kShared;
  return classic_fs_factor(shared.usage_efctv, shared.shares_norm, dampening_factor);
}

uint32_t job_fs_reads(Algorithm algorithm, uint32_t slurm_release) noexcept {
  if (algorithm == Algorithm::kFairTree) return kReadsOwnFsFactor;
  if (slurm_release >= kSlurm2511) return kReadsOwnFsFactor | kReadsOwnUsageEfctv;
  return kReadsShared;
}

long double on_demand_usage_efctv(Algorithm algorithm, const AssocValues& self, uint32_t shares_raw,
                                  uint32_t level_shares, const AssocValues* fs_parent,
                                  long double (*siblings_usage_norm)(void* arg),
                                  void* arg) noexcept {
  if (!fs_parent) return self.usage_norm;
  if (shares_raw == kSharesUseParent) return fs_parent->usage_efctv;
  if (algorithm == Algorithm::kDepthOblivious) {
    // The siblings' sum (a walk of the parent's children) only where the formula reads it:
    // it returns the association's own usage_norm when any of these is zero.
    const bool reads_siblings = self.shares_norm != 0 && fs_parent->shares_norm != 0 &&
                                fs_parent->usage_efctv != 0 && self.usage_norm != 0;
    return depth_oblivious_usage_efctv(
        self.usage_norm, self.shares_norm, fs_parent->usage_efctv, fs_parent->shares_norm,
        reads_siblings && siblings_usage_norm ? siblings_usage_norm(arg) : 0.0L);
  }
  return classic_usage_efctv(self.usage_norm, fs_parent->usage_efctv, shares_raw, level_shares);
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::kFairTree:
      return "fair_tree";
    case Algorithm::kClassic:
      return "classic";
    case Algorithm::kDepthOblivious:
      return "depth_oblivious";
  }
  return "unknown";
}

}  // namespace fairway
