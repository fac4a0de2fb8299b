// tres_charge.cc - a job's charge added to a QOS's or an association's usage.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "tres_charge.h"

#include "slurm_values.h"

namespace fairway {

namespace {

bool consumed(uint64_t cnt) noexcept { return cnt && cnt != kNoConsume64; }

}  // namespace

uint64_t TresAmounts::run_delta(size_t i) const noexcept {
  if (!alloc || i >= count) return 0;
  if (!charge) {
    // Released at start for every counted TRES, even 0 (as multifactor).
    if (alloc[i] == kNoConsume64) return 0;
    return static_cast<uint64_t>(static_cast<double>(alloc[i]) * started_seconds);
  }
  return consumed(alloc[i]) ? charge->tres_time_delta * alloc[i] : 0;
}

long double TresAmounts::usage(size_t i, bool nodecay) const noexcept {
  if (!charge || !alloc || i >= count || !consumed(alloc[i])) return 0;
  const double seconds = nodecay ? charge->run_nodecay : charge->run_decay;
  return static_cast<long double>(seconds) * static_cast<long double>(alloc[i]);
}

void charge_usage(const JobCharge& c, bool nodecay, long double* usage_raw,
                  double* grp_used_wall) noexcept {
  if (grp_used_wall) *grp_used_wall += nodecay ? c.run_nodecay : c.run_decay;
  if (usage_raw) *usage_raw += static_cast<long double>(nodecay ? c.real_nodecay : c.real_decay);
}

void charge_tres(const TresAmounts& a, bool nodecay, long double* usage_tres_raw,
                 uint64_t* run_secs, UnderflowFn fn, void* arg) {
  for (size_t i = 0; i < a.count; i++) {
    if (i == a.skip) continue;
    if (usage_tres_raw && a.charge) usage_tres_raw[i] += a.usage(i, nodecay);
    if (!run_secs) continue;
    const uint64_t delta = a.run_delta(i);
    if (delta > run_secs[i]) {
      if (fn) fn(arg, i, delta, run_secs[i]);
      run_secs[i] = 0;
    } else {
      run_secs[i] -= delta;
    }
  }
}

}  // namespace fairway
