// Snapshot files: an association tree with usage, as JSON; version 2 adds the pending queue.
// Version 1:
//
//   {"fairway_snapshot": 1, "algorithm": "fair_tree" | "classic" | "depth_oblivious",
//    "dampening_factor": 1,
//    "associations": [
//      {"id": 1, "parent": null, "account": "root", "user": null, "shares": 1, "usage": 0},
//      {"id": 211, "parent": 21, "account": "b", "user": "u1", "shares": 1, "usage": 20.0},
//      {"id": 51, "parent": 5, "account": "hta", "user": null, "shares": "parent", "usage": 0}]}
//
// All keys are required and no others are allowed. "usage" is the raw usage charged directly to
// that association (an account's own usage, e.g. left by deleted children); totals are derived
// with accumulate_direct_usage(). It is a JSON number, or a string holding a C floating literal
// (decimal or hex, e.g. "0x1.8p+3") for long double values a double cannot hold exactly.
// "shares" is an integer in [0, 4294967294] other than 2147483647 (Slurm's own marker for
// Fairshare=parent: write "parent"), or "parent". "dampening_factor" is an integer in [1, 65535]
// (Slurm's uint16_t FairShareDampeningFactor). The order of "associations" is the order of
// Slurm's association list (it decides children_list order, which matters for Fair Tree ties).
// Files are untrusted: size and nesting depth are limited, every error is a SnapshotError with
// a one-line message naming the problem and, where there is one, the association; text that is
// not JSON is described by line and column, what was expected and what was found (bytes outside
// printable ASCII by their value, never raw).
//
// Either version may have "usage_basis": "allocated" or "committed" (PriorityParameters
// fairway_usage; absent means "historical"); then every association has "held_usage", the usage
// its own running jobs held (lib/priority/held_usage.h), in the form of "usage", and fair-share is
// computed from the held usage while "usage" keeps the historical usage sshare's RawUsage shows.
//
// Either version may have "fairshare_tres": ["gres/gpu", ...] (PriorityParameters
// fairway_fairshare_tres, lib/queue/fairshare_tres.h: the listed TRES the cluster tracks, as it
// spells them); then every association has "tres_usage": {"gres/gpu": 12.5, ...}, its usage of
// each listed TRES in the form of "usage" (charged directly; under a held basis what its own
// running jobs held of it), and a job of version 2 judged by a listed TRES names it in its
// "fairshare_tres"; a job without one was judged by billing.
//
// Version 2 ("fairway_snapshot": 2, what `fairway snapshot` writes) has the keys of version 1
// and these, all required (doc/fairway.1, SNAPSHOT FILES, shows a whole file):
//   "slurm_release": "24.11.5"   the release of the slurmctld it was taken from
//   "taken_at": 1763900000       when the jobs were read (Unix time)
//   "cluster": {"cpus": 64, "nodes": 4}
//   "priority": {"weights": {"age": 1000, "fairshare": 10000, ...: a key per weighted
//                factor, kFactorInfo's name}, "tres_weights": {"cpu": 0.5},
//                "flags": ["ACCRUE_ALWAYS", ...], "max_age": 604800, "favor_small": false,
//                "decay_half_life": 604800, "calc_period": 300}
//   "partitions": [{"name": "debug", "priority_job_factor": 1, "priority_tier": 1,
//                   "total_cpus": 64, "total_nodes": 4}]
//   "qos": [{"name": "normal", "priority": 0, "usage_factor": 1}]
//   "jobs": [{"id": 12, "array_job_id": 0, "assoc_id": 211, "user": "u1", "account": "b",
//             "qos": "normal", "partitions": ["debug"], "submit_time": T, "eligible_time": T,
//             "accrue_time": T, "min_cpus": 1, "max_cpus": 1, "min_nodes": 1,
//             "time_limit": 60 (minutes, null for none), "nice": 0, "held": false,
//             "admin_priority": false, "priority": 1140, "tres_req": {"cpu": 1, "node": 1},
//             "rows": [{"partition": "debug", "priority": 1140, "admin": false,
//                       "factors": {"age": 140.2, "fairshare": 1000, ..., "site": 0,
//                                   "nice": 0: a key per factor but tres, site and nice
//                                   integers},
//                       "tres": {"cpu": 0}}]}]
// "rows" are sprio's rows (weighted factors) with the job's priority in that partition; a held
// job has none. Names follow the same rules as an association's account.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "assoc_tree.h"
#include "explain.h"
#include "fair_share.h"
#include "held_usage.h"
#include "queue.h"

namespace fairway {

class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Snapshot {
  Algorithm algorithm = Algorithm::kFairTree;
  double dampening_factor = 1;
  std::vector<AssocRecord> associations;  // usage_raw = usage charged directly (as in the file)
  // Version 2: the release it was taken from and the pending queue (written as version 2
  // when `queue` is set, else as version 1).
  std::string slurm_release;
  std::optional<Queue> queue;
  // What fair-share compared (PriorityParameters fairway_usage): under allocated or committed,
  // `held` is the usage each association's own running jobs held, parallel to `associations`
  // (whose usage stays the historical usage sshare shows as RawUsage).
  UsageBasis usage_basis = UsageBasis::kHistorical;
  std::vector<long double> held;
  // fairway_fairshare_tres: the listed TRES, and for each the usage of it charged directly to
  // each association (tres_usage[k][i], parallel to `associations`, in the usage basis).
  std::vector<std::string> fairshare_tres;
  std::vector<std::vector<long double>> tres_usage;
};

inline constexpr int kSnapshotVersion = 2;                    // the newest; version 1 is read too
inline constexpr size_t kMaxSnapshotBytes = size_t{1} << 30;  // 1 GiB

// Slurm's FairShareDampeningFactor is a uint16_t: an integer from 1 to 65535. One rule for the
// "dampening_factor" of a snapshot, what write_snapshot writes and the CLI's --dampening; the
// messages refusing anything else end with this sentence.
inline constexpr char kDampeningFactorRule[] =
    "FairShareDampeningFactor is an integer in Slurm, from 1 to 65535";
bool valid_dampening_factor(double d);
// Decimal digits only ("3"; not "3.0", "+3", " 3" or "1.5"); nullopt unless valid.
std::optional<uint16_t> parse_dampening_factor(std::string_view text);

// Parses and validates, including the tree's shape (no associations, unknown parent, cycle,
// roots, duplicate ids, user with children). Throws SnapshotError.
Snapshot parse_snapshot(std::string_view json_text);
// Reads FD to its end (not closing it) and parses what it read. Reads in chunks of at most
// 1 MiB into a buffer that never exceeds kMaxSnapshotBytes + 1 bytes, and refuses the input as
// soon as it passes kMaxSnapshotBytes (a regular file larger than that before reading it).
// A snapshot is a JSON object: input whose first byte past blanks (and a byte order mark) is
// not '{' is refused as soon as that byte is read, and so is more than 1 MiB of blanks alone.
// NAME names the input in messages ("standard input", a quoted path). Throws SnapshotError:
// "snapshot: cannot read NAME: REASON", "snapshot: NAME is larger than ...", or
// "snapshot: NAME: " and what parse_snapshot says.
Snapshot read_snapshot_fd(int fd, const std::string& name);
// Opens PATH and reads it with read_snapshot_fd; NAME is PATH in double quotes. Throws
// SnapshotError ("snapshot: cannot open NAME: REASON" and the above).
Snapshot read_snapshot_file(const std::string& path);

// Serializes (one association per line). Usage is written as a number when the long double is
// a double exactly, else as a hex string, so parse_snapshot(write_snapshot(s)) == s. Throws
// SnapshotError for a dampening factor that is not valid_dampening_factor.
std::string write_snapshot(const Snapshot& snapshot);

// The tree of a snapshot, with total usage (accumulate_direct_usage). Throws SnapshotError
// ("snapshot: the snapshot has no associations" for an empty list, else the tree's problem).
AssocTree snapshot_tree(const Snapshot& snapshot);

// The tree whose usage fair-share compares: snapshot_tree's, or under a usage basis other than
// historical, with the held usage totals (hold_usage). Throws SnapshotError.
AssocTree snapshot_compared_tree(const Snapshot& snapshot);
// The tree whose usage fair-share compares for jobs judged by the listed TRES `tres` (ASCII
// case ignored): the usage of that TRES (tres_usage) summed up the tree.  Throws SnapshotError
// when the snapshot does not list it.
AssocTree snapshot_tres_tree(const Snapshot& snapshot, std::string_view tres);
// The associations, algorithm and dampening of a snapshot as the explanations' input, each
// association's usage being what fair-share compares (its held usage under a held basis),
// with the listed TRES and their usage.
FairShareInput snapshot_fair_share_input(const Snapshot& snapshot);

// A snapshot of a built tree (whose usage is total usage): direct usage = total minus the
// children's totals, clamped at 0 (rounding); so the totals read back can differ from the tree's
// in the last bits where an account's total is not the exact sum of its parts.
Snapshot snapshot_from_tree(const AssocTree& tree, Algorithm algorithm, double dampening_factor);

}  // namespace fairway
