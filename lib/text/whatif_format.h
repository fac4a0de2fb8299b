// whatif_format.h - `fairway whatif` in words: per partition how many jobs change place, the
// rank correlation of the two orders and the top movers; per association the change of its
// fair-share factor; -P rows; JSON.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>

#include "whatif.h"
#include "whatif_json.h"  // format_whatif_json

namespace fairway {

// At most `top` movers per partition and associations.
std::string format_whatif(const WhatIf& w, size_t top = 10);
// "Partition|Job|User|Account|PriorityBefore|PriorityAfter|PlaceBefore|PlaceAfter" rows for
// every job, then "Account|User|FairShareBefore|FairShareAfter" rows for every association whose
// factor changes, each block after a header line.
std::string format_whatif_parsable(const WhatIf& w);

}  // namespace fairway
