// fairway - the administrator's command line for Fairway.
//
//   fairway shares [--json] [--algorithm A] [--dampening D] FILE
//       The fair-share table `sshare -a -l -P` would print for the tree in snapshot FILE
//       ("-" for standard input), computed by Fairway's core.
//   fairway snapshot [-o FILE] [--algorithm A] [--dampening D]
//       Save the live cluster's association tree (shares and raw usage, through libslurm's
//       public API: the same data `scontrol show assoc_mgr` reads) as a snapshot.
//
// Exit status: 0 success, 1 cannot reach Slurm or write the output, 2 malformed input or
// usage (one line on stderr naming the problem).
//
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"
#include "fairway-config.h"
#include "snapshot.h"
#include "sshare_format.h"

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
}

namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitInput = 2;

std::optional<fairway::Algorithm> parse_algorithm(const std::string& s) {
  if (s == "fair_tree") return fairway::Algorithm::kFairTree;
  if (s == "classic") return fairway::Algorithm::kClassic;
  if (s == "depth_oblivious") return fairway::Algorithm::kDepthOblivious;
  return std::nullopt;
}

std::string read_input(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), {});
  }
  return {};  // files are read by read_snapshot_file (size-checked)
}

int cmd_shares(const std::string& file, bool json, const std::string& algo_name, double dampening) {
  fairway::Snapshot snap;
  try {
    snap = (file == "-") ? fairway::parse_snapshot(read_input(file))
                         : fairway::read_snapshot_file(file);
  } catch (const std::exception& e) {
    std::cerr << "fairway: " << (file == "-" ? "<stdin>" : file) << ": " << e.what() << "\n";
    return kExitInput;
  }
  if (!algo_name.empty()) snap.algorithm = *parse_algorithm(algo_name);
  if (dampening > 0) snap.dampening_factor = dampening;
  try {
    const fairway::AssocTree tree = fairway::snapshot_tree(snap);
    fairway::FairShareResult result;
    fairway::compute_fair_share(tree, snap.algorithm, snap.dampening_factor, result);
    fairway::SshareOptions opt;
    opt.dampening_factor = snap.dampening_factor;
    std::cout << (json ? fairway::format_sshare_json(tree, result, snap.algorithm, opt)
                       : fairway::format_sshare(tree, result, snap.algorithm, opt));
    if (json) std::cout << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fairway: " << (file == "-" ? "<stdin>" : file) << ": " << e.what() << "\n";
    return kExitInput;
  }
  return 0;
}

// The algorithm slurmctld uses, from its PriorityFlags (slurm.h's PRIORITY_FLAGS_*).
fairway::Algorithm algorithm_of(uint16_t flags) {
  return fairway::algorithm_from_flags(!(flags & PRIORITY_FLAGS_FAIR_TREE),
                                       flags & PRIORITY_FLAGS_DEPTH_OBLIVIOUS);
}

int cmd_snapshot(const std::string& out, const std::string& algo_name, double dampening) {
  slurm_init(nullptr);
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf) {
    std::cerr << "fairway: cannot read slurmctld's configuration: "
              << slurm_strerror(slurm_get_errno()) << "\n";
    return kExitRuntime;
  }
  fairway::Snapshot snap;
  snap.algorithm =
      algo_name.empty() ? algorithm_of(conf->priority_flags) : *parse_algorithm(algo_name);
  snap.dampening_factor =
      dampening > 0 ? dampening : (conf->fs_dampening_factor ? conf->fs_dampening_factor : 1);
  slurm_free_ctl_conf(conf);

  assoc_mgr_info_request_msg_t req{};
  req.flags = ASSOC_MGR_INFO_FLAG_ASSOC;
  assoc_mgr_info_msg_t* msg = nullptr;
  if (slurm_load_assoc_mgr_info(&req, &msg) != SLURM_SUCCESS || !msg) {
    std::cerr << "fairway: cannot read the associations from slurmctld: "
              << slurm_strerror(slurm_get_errno()) << "\n";
    return kExitRuntime;
  }
  // Totals as slurmctld keeps them; the snapshot stores what each association was charged
  // directly (its total minus its children's), so usage of deleted children stays with
  // their parent.
  std::vector<fairway::AssocRecord> recs;
  if (msg->assoc_list) {
    ListIterator it = slurm_list_iterator_create(msg->assoc_list);
    while (auto* a = static_cast<slurmdb_assoc_rec_t*>(slurm_list_next(it))) {
      fairway::AssocRecord r;
      r.id = a->id;
      r.parent_id = a->parent_id;
      r.account = a->acct ? a->acct : "";
      r.user = a->user ? a->user : "";
      r.shares_parent = a->shares_raw == SLURMDB_FS_USE_PARENT;
      r.shares_raw = r.shares_parent ? 0 : a->shares_raw;
      r.usage_raw = a->usage ? a->usage->usage_raw : 0;
      recs.push_back(std::move(r));
    }
    slurm_list_iterator_destroy(it);
  }
  slurm_free_assoc_mgr_info_msg(msg);
  if (recs.empty()) {
    std::cerr << "fairway: slurmctld has no associations (is accounting through slurmdbd "
                 "enabled?)\n";
    return kExitRuntime;
  }
  std::map<uint32_t, long double> children_total;
  for (const auto& r : recs)
    if (r.parent_id) children_total[r.parent_id] += r.usage_raw;
  for (auto& r : recs) {
    const long double direct = r.usage_raw - children_total[r.id];
    r.usage_raw = direct > 0 ? direct : 0;
  }
  snap.associations = std::move(recs);
  std::string text;
  try {
    (void)fairway::snapshot_tree(snap);  // refuse to save a tree we could not replay
    text = fairway::write_snapshot(snap);
  } catch (const std::exception& e) {
    std::cerr << "fairway: the live association tree is not usable: " << e.what() << "\n";
    return kExitRuntime;
  }
  if (out.empty() || out == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream f(out, std::ios::trunc);
  f << text;
  f.close();
  if (!f) {
    std::cerr << "fairway: cannot write " << out << "\n";
    return kExitRuntime;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fairway: Fairway's fair-share tools for Slurm administrators"};
  app.set_version_flag("--version", std::string("fairway ") + PACKAGE_VERSION);
  app.require_subcommand(1);

  const auto algo_check = CLI::IsMember({"fair_tree", "classic", "depth_oblivious"});
  std::string algo, file, out;
  double dampening = 0;
  bool json = false;

  auto* shares = app.add_subcommand(
      "shares", "print the fair-share table (as sshare -a -l -P) of a snapshot file");
  shares->add_flag("--json", json, "JSON array of rows instead of sshare's text");
  shares->add_option("--algorithm", algo, "override the snapshot's algorithm")->check(algo_check);
  shares->add_option("--dampening", dampening, "override FairShareDampeningFactor (>= 1)")
      ->check(CLI::Range(1.0, 65535.0));
  shares->add_option("FILE", file, "snapshot file, or - for standard input")->required();

  auto* snapshot = app.add_subcommand(
      "snapshot", "save the live cluster's association tree and usage as a snapshot");
  snapshot->add_option("-o,--output", out, "file to write (default: standard output)");
  snapshot->add_option("--algorithm", algo, "algorithm to record (default: slurmctld's)")
      ->check(algo_check);
  snapshot->add_option("--dampening", dampening, "FairShareDampeningFactor to record")
      ->check(CLI::Range(1.0, 65535.0));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitInput;
  }
  if (*shares) return cmd_shares(file, json, algo, dampening);
  return cmd_snapshot(out, algo, dampening);
}
