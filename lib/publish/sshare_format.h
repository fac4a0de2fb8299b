// What `sshare -a -l -P` (Slurm 22.05) prints for a tree and its fair-share result, and the same
// rows as JSON.
//
// Mirrors assoc_mgr_get_shares() (which values, converted to double) and src/sshare/process.c
// with print_fields.c (columns, formats):
//   * rows in assoc_mgr_assoc_list order: depth-first from the root, users before accounts among
//     siblings, then by name (hierarchical_order());
//   * Account: account rows show their account, user rows their account, indented by one space
//     per level below the root (slurmdb_tree_name_get);
//   * columns Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|
//     [LevelFS|]GrpTRESMins|TRESRunMins — LevelFS only for Fair Tree;
//   * doubles print as %f ("inf" for infinity); a value equal to NO_VAL, INFINITE, NO_VAL64 or
//     INFINITE64 prints empty (so the root's NormUsage and LevelFS are empty);
//   * RawShares: empty for the root, "parent" for Fairshare=parent; RawUsage: the usage truncated
//     to an unsigned 64-bit integer;
//   * FairShare: Fair Tree prints the users' fs_factor and nothing for accounts; classic and
//     depth-oblivious print priority_g_calc_fs_factor() of the row's double-rounded usage_efctv
//     and shares_norm, computed by sshare itself;
//   * LevelFS: empty for Fairshare=parent rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"

namespace fairway {

struct SshareOptions {
  // FairShareDampeningFactor, for the classic FairShare column (sshare computes it).
  double dampening_factor = 1;
  // '|'-separated fields (sshare -P), or sshare's table of fixed widths (sshare without -P:
  // each field padded to its width and followed by a space, a header underlined by dashes,
  // a value too wide cut with '+' or a double shown in %e).
  bool parsable = true;
  // -p (a '|' after every field) instead of -P (no '|' after the last field).
  bool parsable_trailing = false;
  bool header = true;  // -n / -h suppress it
  // The row order of the Slurm release whose sshare is imitated (assoc_tree.h).
  SiblingOrder sibling_order = SiblingOrder::kUsersThenName;
  // GrpTRESMins/TRESRunMins. A snapshot has no TRES data; we print what sshare prints for an
  // association without TRES-minute limits and without running jobs: GrpTRESMins holds only
  // INFINITE64 entries, which slurmdb_make_tres_string_from_arrays(TRES_STR_FLAG_REMOVE) drops
  // (empty column), and TRESRunMins lists every TRES with 0. The names are the cluster's TRES in
  // id order; the default is what slurmctld always tracks.
  std::vector<std::string> tres_names = {"cpu",     "mem",     "energy", "node",
                                         "billing", "fs/disk", "vmem",   "pages"};
};

// One row as sshare receives it from slurmctld: nullopt where sshare prints nothing.
struct SshareRow {
  uint32_t index = 0;          // the association's index in the tree
  std::string account_column;  // indented
  std::string account, user;
  bool parent_shares = false;
  std::optional<uint32_t> raw_shares;  // nullopt: empty, unless parent_shares
  std::optional<double> norm_shares, norm_usage, effective_usage, fairshare, level_fs;
  std::optional<uint64_t> raw_usage;
};

// The rows in sshare's order.  Throws std::invalid_argument when the result does not match the
// tree.
std::vector<SshareRow> sshare_rows(const AssocTree& tree, const FairShareResult& result,
                                   Algorithm algorithm, const SshareOptions& options = {});

// The header line (two in a table) and one line per association, each ending in '\n'.
std::string format_sshare(const AssocTree& tree, const FairShareResult& result, Algorithm algorithm,
                          const SshareOptions& options = {});

// The same rows as a JSON array of objects with keys account, user, raw_shares, norm_shares,
// raw_usage, norm_usage, effective_usage, fairshare, level_fs. Values are the doubles sshare
// receives (full precision, not %f), raw_shares an integer or "parent", raw_usage an integer;
// a value sshare prints empty is null (user of an account row, level_fs outside Fair Tree,
// ...); +infinity is the string "inf"; the root's norm_shares under Fair Tree (its shares over
// NO_VAL, 0.000000 in sshare's text) is null. "account" is the plain account name (no
// indentation).
std::string format_sshare_json(const AssocTree& tree, const FairShareResult& result,
                               Algorithm algorithm, const SshareOptions& options = {});

}  // namespace fairway
