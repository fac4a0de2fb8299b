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

double classic_fs_factor(long double usage_efctv, long double shares_norm,
                         double dampening_factor) {
  // fuzzy_equal(usage_efctv, NO_VAL) from Slurm's macros.h (epsilon 0.00001).
  const long double d = usage_efctv - static_cast<long double>(kNoVal);
  if (d > -0.00001 && d < 0.00001) return 0.0;
  if (shares_norm <= 0) return 0.0;
  // Slurm: pow(2.0, -((usage_efctv/shares_norm) / damp_factor)) with <math.h> pow(): the long
  // double quotient is converted to double. (std::pow would pick the long double overload.)
  const long double r = (usage_efctv / shares_norm) / static_cast<long double>(dampening_factor);
  return std::pow(2.0, static_cast<double>(-r));
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
