// tres_charge.h - adding one job's charge to the usage of a QOS or an association, as
// multifactor's _apply_new_usage does: usage_raw and grp_used_wall, the usage of each TRES,
// and the TRES run seconds slurmctld reserved at the job's start released for what the
// job used (its _init_grp_used_tres_run_secs releases what running jobs used before a
// restart the same way).  The shim passes pointers into the records it holds under the
// assoc and QOS write locks.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>

#include "usage_decay.h"

namespace fairway {

// What each TRES of a job brings to a charge: the job's allocation (count per TRES,
// kNoConsume64 or 0 for none) times the charge's seconds.
struct TresAmounts {
  const uint64_t* alloc = nullptr;  // nullptr: the job has no TRES allocated
  size_t count = 0;
  size_t skip = SIZE_MAX;             // a TRES never charged (energy)
  const JobCharge* charge = nullptr;  // nullptr: release only, alloc x started_seconds
  double started_seconds = 0;         // seconds x UsageFactor used before a restart

  // The run seconds released for TRES i.
  uint64_t run_delta(size_t i) const noexcept;
  // The usage added for TRES i, decayed or not (QOS with NoDecay).
  long double usage(size_t i, bool nodecay) const noexcept;
};

// A TRES whose run seconds would go below 0: the release tried `tried`, only `remained`
// were left (the run seconds are then 0).  Called with `arg` before the value is cleared.
using UnderflowFn = void (*)(void* arg, size_t tres, uint64_t tried, uint64_t remained);

// Add the charge's usage and wall seconds (decayed, or not for nodecay); either may be
// nullptr.
void charge_usage(const JobCharge& c, bool nodecay, long double* usage_raw,
                  double* grp_used_wall) noexcept;

// For every TRES but a.skip: add its usage to usage_tres_raw (unless nullptr or release
// only) and release its run seconds from run_secs (unless nullptr), reporting each
// underflow to fn.
void charge_tres(const TresAmounts& a, bool nodecay, long double* usage_tres_raw,
                 uint64_t* run_secs, UnderflowFn fn, void* arg);

}  // namespace fairway
