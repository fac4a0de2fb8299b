// held_usage.h - the usage fair-share compares with shares under fairway_usage=allocated or
// committed: what each association holds now, from its running jobs, in place of its decayed
// historical usage.  BMRC's stated target is "the ratio of currently allocated resources for
// each project/group the same as the ratio of the number of shares"; with this usage, Fair
// Tree and classic rank associations by exactly that ratio.  Historical usage (RawUsage,
// usage_tres_raw, the usage GrpTRESMins limits read) is charged and decayed as before; only
// the fair-share computation reads held usage.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "assoc_tree.h"

namespace fairway {

enum class UsageBasis : uint8_t {
  kHistorical,  // multifactor's: decayed usage charged over time (the default)
  kAllocated,   // what running jobs are charged per second now
  kCommitted,   // that, times the seconds left to each job's end (its time limit)
};

// "historical", "allocated", "committed".
const char* usage_basis_name(UsageBasis b) noexcept;
// The inverse of usage_basis_name; nullopt for anything else.
std::optional<UsageBasis> parse_usage_basis(std::string_view name) noexcept;

// One running job, as the fair-share computation sees it under a held basis.
struct RunningJob {
  uint32_t assoc_id = 0;         // the association its usage is charged to
  double charge_rate = 0;        // billable TRES x QOS UsageFactor: usage charged per second
  double remaining_seconds = 0;  // from now to its end time (start + time limit); 0 if past
};

// What one running job holds: its charge rate (allocated) or charge rate x remaining seconds
// (committed); 0 under kHistorical, or for a negative, NaN or infinite input.
long double held_by_job(UsageBasis basis, const RunningJob& job) noexcept;

// Every association's held usage charged directly to it (its own jobs, not its subtree's),
// indexed like the tree.  Jobs are summed in the order given.  A job whose association is not in
// the tree (deleted since the job was copied) holds nothing; the count of such jobs is returned
// through `unknown` when it is given.
std::vector<long double> held_direct(const AssocTree& tree, UsageBasis basis,
                                     std::span<const RunningJob> jobs, size_t* unknown = nullptr);

// Sets every association's usage in `tree` to its held total (subtree_totals, as a snapshot's
// direct usage is summed), so that the plugin and a snapshot of what it held compute the same
// bits.  `direct` is indexed like
// the tree (throws std::invalid_argument on a size mismatch; TreeError for a negative, NaN or
// infinite value).
void hold_usage(AssocTree& tree, std::span<const long double> direct);

}  // namespace fairway
