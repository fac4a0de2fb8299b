// Classic and depth-oblivious fair share (Slurm 22.05 priority_multifactor.c), our implementation.
//
// Per association below the root, with un = usage_norm, UE = usage_efctv, S = shares_norm (the
// classic product of raw/level shares down the path), f = fs parent:
//   un = usage_raw / root usage_raw, capped at 1, 0 if the root has none (set_assoc_usage_norm)
//   UE (_set_assoc_usage_efctv, first matching rule):
//     f is the root               -> UE = un   (tier 1; also a Fairshare=parent assoc there)
//     Fairshare=parent            -> UE = UE(f)
//     depth-oblivious             -> _depth_oblivious_set_usage_efctv, see below
//     classic                     -> UE = un + (UE(f) - un) * (S_raw / level_shares),
//                                    UE(f) if level_shares == 0              (_set_usage_efctv)
// Slurm computes accounts in the decay thread and users lazily (their usage_efctv is reset to
// NO_VAL and recomputed by assoc_mgr_get_shares / _get_fairshare_priority before use); both
// only read the fs parent's value of the same period, so computing everyone eagerly in
// preorder gives what every reader sees.
//
// Depth-oblivious: if S, S(f), UE(f) and un are all non-zero:
//   ratio_p = UE(f) / S(f); ratio_s = (sum of un over f's children_list, Fairshare=parent ones
//   skipped, in list order) / S(f); ratio_l = (un / S) / ratio_s;
//   k = 1 if ratio_p or ratio_l is 0 or logl(ratio_p)*logl(ratio_l) >= 0,
//       else 1 / (1 + powl(5 * logl(ratio_p), 2));
//   UE = ratio_p * pow(ratio_l, k) * S   (pow is <math.h>'s double pow, as in Slurm)
// else UE = un. Slurm reads the siblings' usage_norm as currently stored, which for users is the
// value of their last lazy recomputation (possibly an earlier period); we use this period's
// values for every sibling, i.e. the state Slurm converges to when usage stops changing.
#include <cmath>

#include "fair_share.h"

namespace fairway {

long double depth_oblivious_usage_efctv(long double un, double s, long double ue_f, double s_f,
                                        long double siblings_un) {
  if (s == 0 || s_f == 0 || ue_f == 0 || un == 0) return un;
  const long double ratio_p = ue_f / s_f;
  const long double ratio_s = siblings_un / s_f;
  const long double ratio_l = (un / s) / ratio_s;
  long double k;
  if (ratio_p == 0 || ratio_l == 0 || std::log(ratio_p) * std::log(ratio_l) >= 0) {
    k = 1;
  } else {
    const long double f5 = 5.0L;
    k = 1 / (1 + powl(f5 * std::log(ratio_p), 2));
  }
  const double p = std::pow(static_cast<double>(ratio_l), static_cast<double>(k));
  return ratio_p * p * s;
}

long double usage_norm(long double usage_raw, long double root_usage_raw) {
  if (root_usage_raw == 0) return 0.0L;
  const long double un = usage_raw / root_usage_raw;
  return (un > 1.0L) ? 1.0L : un;
}

long double classic_usage_efctv(long double un, long double parent_usage_efctv, uint32_t shares_raw,
                                uint32_t level_shares) {
  if (level_shares == 0) return parent_usage_efctv;
  return un + (parent_usage_efctv - un) * (shares_raw / static_cast<long double>(level_shares));
}

namespace detail {

void compute_classic(const AssocTree& t, bool depth_oblivious, double dampening_factor,
                     FairShareResult& out) {
  const uint32_t n = static_cast<uint32_t>(t.size());
  const uint32_t root = t.root();
  const long double no_val = static_cast<long double>(kNoVal);
  const long double root_raw = t.usage_raw(root);

  for (uint32_t i = 0; i < n; ++i) {
    out.shares_norm[i] = t.shares_norm_classic(i);
    out.level_fs[i] = 0.0L;  // classic never writes level_fs
    out.set[i] = kSharesNorm;
    if (i == root) {
      out.usage_norm[i] = no_val;
      out.usage_efctv[i] = 1.0L;  // init()
      out.set[i] |= kUsageEfctv;
      continue;
    }
    out.usage_norm[i] = usage_norm(t.usage_raw(i), root_raw);
    out.set[i] |= kUsageNorm | kUsageEfctv;
  }

  if (depth_oblivious) {  // sum of the siblings' usage_norm, per children_list, in list order
    for (uint32_t i = 0; i < n; ++i) {
      long double sum = 0;
      for (uint32_t c : t.fs_children(i))
        if (!t.uses_parent_shares(c)) sum += out.usage_norm[c];
      out.work_sum[i] = sum;
    }
  }

  for (uint32_t v : t.preorder()) {  // fs parents (ancestors) before their children
    if (v == root) continue;
    const uint32_t f = t.fs_parent(v);
    const long double un = out.usage_norm[v];
    long double ue;
    if (f == root) {
      ue = un;
    } else if (t.uses_parent_shares(v)) {
      ue = out.usage_efctv[f];
    } else if (depth_oblivious) {
      ue = depth_oblivious_usage_efctv(un, out.shares_norm[v], out.usage_efctv[f],
                                       out.shares_norm[f], out.work_sum[f]);
    } else {
      ue = classic_usage_efctv(un, out.usage_efctv[f], t.shares_raw(v), t.level_shares(v));
    }
    out.usage_efctv[v] = ue;
  }

  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t src = (t.is_user(i) && t.uses_parent_shares(i) && t.fs_parent(i) != kNoIndex)
                             ? t.fs_parent(i)
                             : i;
    out.fs_factor[i] = classic_fs_factor(
        out.usage_efctv[src], static_cast<long double>(out.shares_norm[src]), dampening_factor);
  }
}

}  // namespace detail
}  // namespace fairway
