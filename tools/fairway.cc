// fairway - the administrator's command line for Fairway.
//
//   fairway shares [--json] [--algorithm A] [--dampening D] [--tres TRES] FILE
//       The fair-share table `sshare -a -l -P` would print for the tree in snapshot FILE
//       ("-" for standard input), computed by Fairway's core; with --tres, the table of the
//       usage of a TRES listed in fairway_fairshare_tres (the factors of the jobs it judged).
//   fairway snapshot [-o FILE] [--algorithm A] [--dampening D]
//       Save the live cluster's association tree (shares and raw usage, through libslurm's
//       public API: the same data `scontrol show assoc_mgr` reads) as a snapshot.
//   fairway explain|compare|weights ...
//       The pending queue explained (queue_commands.h).
//   fairway forecast [--snapshot FILE] [--forecast FILE]
//       When each pending job may start, from the model the plugin publishes
//       (forecast_command.h).
//   fairway lint [SLURM_CONF] [--snapshot FILE | --live]
//       slurm.conf's priority settings checked before they go live, with --snapshot FILE
//       or --live the pending queue's fair-share gaps and ages too (lint_command.h).
//   fairway help [COMMAND]
//       The help of fairway or of one command (as --help).
//
// Exit status (doc/fairway.1): 0 success; 1 cannot reach Slurm or write the output (standard
// output included: a full disk or a closed descriptor is an error, not a silent success); 2
// malformed input, an input that cannot be read, or bad usage. Every error is one line on
// stderr naming the problem.
//
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assoc_tree.h"
#include "cli_io.h"
#include "fair_share.h"
#include "fairway-config.h"
#include "forecast_command.h"
#include "history_command.h"
#include "lint_command.h"
#include "live.h"
#include "output_file.h"
#include "plot_command.h"
#include "priority_flags.h"
#include "queue_commands.h"
#include "snapshot.h"
#include "sshare_format.h"
#include "whatif.h"

extern "C" {
#include "slurm_api.h"
}

namespace {

using namespace fairway_cli;

const char* const kCommands[] = {"shares",  "snapshot", "explain", "compare",  "weights", "whatif",
                                 "history", "plot",     "lint",    "forecast", "help"};

// ---------------------------------------------------------------------------------------------
// Messages

// ---------------------------------------------------------------------------------------------
// Standard streams

// ---------------------------------------------------------------------------------------------
// Arguments

std::optional<fairway::Algorithm> parse_algorithm(const std::string& s) {
  if (s == "fair_tree") return fairway::Algorithm::kFairTree;
  if (s == "classic") return fairway::Algorithm::kClassic;
  if (s == "depth_oblivious") return fairway::Algorithm::kDepthOblivious;
  return std::nullopt;
}

// --dampening: Slurm's rule (snapshot.h), with that rule's sentence when it is broken.
std::optional<uint16_t> parse_dampening(const CLI::Option* option, const std::string& text,
                                        bool& bad) {
  bad = false;
  if (!option->count()) return std::nullopt;
  const auto d = fairway::parse_dampening_factor(text);
  if (!d) {
    say("--dampening " + shown(text) + ": " + fairway::kDampeningFactorRule);
    bad = true;
  }
  return d;
}

// Edit distance counting a swap of neighbours as one edit (optimal string alignment).
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The command WORD was probably meant to be: the only one it begins (two letters or more), or
// the closest within two edits; "" for none.
std::string near_miss(std::string_view word) {
  std::string prefix_of;
  int prefixes = 0;
  for (const char* c : kCommands)
    if (word.size() >= 2 && std::string_view(c).substr(0, word.size()) == word) {
      prefix_of = c;
      ++prefixes;
    }
  if (prefixes == 1) return prefix_of;
  std::string best;
  size_t best_distance = 3;
  if (word.size() > 64) return best;
  for (const char* c : kCommands) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance && d < std::string_view(c).size()) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

bool is_command(std::string_view word) {
  return std::any_of(std::begin(kCommands), std::end(kCommands),
                     [&](const char* c) { return word == c; });
}

// "unknown command 'share'; did you mean 'shares'?"
std::string unknown_command(std::string_view word) {
  const std::string guess = near_miss(word);
  std::string m =
      "unknown command " + (shown(word) == word ? "'" + std::string(word) + "'" : shown(word));
  if (!guess.empty()) return m + "; did you mean '" + guess + "'?";
  return m +
         " (the commands are shares, snapshot, explain, compare, weights, whatif, history, plot, "
         "lint, forecast and help; see 'fairway --help')";
}

// ---------------------------------------------------------------------------------------------
// fairway shares

// sshare's row order in the Slurm release this command is built for: 23.11 sorts the association
// list by lineage.
constexpr fairway::SiblingOrder kSiblingOrder =
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
    fairway::SiblingOrder::kLineage;
#else
    fairway::SiblingOrder::kUsersThenName;
#endif

int cmd_shares(const std::string& file, bool json, bool parsable, const std::string& algo_name,
               std::optional<uint16_t> dampening, const std::string& tres) {
  const std::string name = file == "-" ? "standard input" : quote(file);
  int rc = 0;
  std::optional<fairway::Snapshot> input = read_input(file, rc);
  if (!input) return rc;
  fairway::Snapshot& snap = *input;
  if (!algo_name.empty()) snap.algorithm = *parse_algorithm(algo_name);
  if (dampening) snap.dampening_factor = *dampening;
  try {
    // RawUsage from the historical usage, the other columns from what fair-share compared
    // (the same tree unless the snapshot has a held usage basis), as the live sshare shows.
    // --tres: what fair-share compared for the jobs judged by that TRES
    // (fairway_fairshare_tres), RawUsage being the usage of it.
    const fairway::AssocTree tree =
        tres.empty() ? fairway::snapshot_tree(snap) : fairway::snapshot_tres_tree(snap, tres);
    fairway::FairShareResult result;
    fairway::compute_fair_share(tres.empty() ? fairway::snapshot_compared_tree(snap) : tree,
                                snap.algorithm, snap.dampening_factor, result);
    fairway::SshareOptions opt;
    opt.dampening_factor = snap.dampening_factor;
    opt.sibling_order = kSiblingOrder;
    opt.parsable = parsable;
    put(json ? fairway::format_sshare_json(tree, result, snap.algorithm, opt) + "\n"
             : fairway::format_sshare(tree, result, snap.algorithm, opt));
  } catch (const std::exception& e) {
    say(name + ": " + std::string(snapshot_message(e)));
    return kExitInput;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// fairway snapshot

int cmd_snapshot(const std::string& out, const std::string& algo_name,
                 std::optional<uint16_t> dampening) {
  const OutputFile file(out);
  if (const std::string why = file.check(); !why.empty()) {
    say(why);
    return kExitRuntime;
  }
  if (const std::string why = slurm_conf_problem(); !why.empty()) {
    say(why);
    return kExitRuntime;
  }
  slurm_init(nullptr);
  std::string why;
  LiveRequest req;
  req.algorithm = algo_name;
  req.dampening = dampening;
  auto live = live_snapshot(req, why);
  if (!live) {
    say(why);
    return kExitRuntime;
  }
  fairway::Snapshot snap = std::move(*live);
  std::string text;
  try {
    (void)fairway::snapshot_tree(snap);  // refuse to save a tree we could not replay
    text = fairway::write_snapshot(snap);
  } catch (const std::exception& e) {
    say("the live association tree is not usable: " + std::string(snapshot_message(e)));
    return kExitRuntime;
  }
  if (const std::string why = file.write(text); !why.empty()) {
    say(why);
    return kExitRuntime;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// fairway explain

// ---------------------------------------------------------------------------------------------

int run(int argc, char** argv) {
  CLI::App app{"fairway: why a Slurm job waits, and how fair-share orders the queue"};
  app.name("fairway");
  app.set_version_flag("--version", std::string("fairway ") + PACKAGE_VERSION);
  app.require_subcommand(1);

  const auto algo_check = CLI::IsMember({"fair_tree", "classic", "depth_oblivious"});
  std::string algo, file, out, damp_shares, damp_snapshot, topic, shares_tres;
  bool json = false;

  auto* shares = app.add_subcommand(
      "shares", "print the fair-share table (as sshare -a -l) of a snapshot file");
  bool shares_parsable = false;
  shares->add_flag("-P,--parsable", shares_parsable, "'|'-separated rows, as sshare -a -l -P");
  shares->add_flag("--json", json, "JSON array of rows instead of sshare's text");
  shares->add_option("--algorithm", algo, "override the snapshot's algorithm")->check(algo_check);
  auto* shares_damp = shares
                          ->add_option("--dampening", damp_shares,
                                       "override FairShareDampeningFactor (an integer, 1 to 65535)")
                          ->type_name("INT");
  shares
      ->add_option("--tres", shares_tres,
                   "the table of the usage of this TRES (one the snapshot's "
                   "fairway_fairshare_tres lists): the factors of the jobs asking mostly for it")
      ->type_name("TRES");
  shares->add_option("FILE", file, "snapshot file, or - for standard input")->required();

  auto* snapshot = app.add_subcommand(
      "snapshot", "save the live cluster's association tree and usage as a snapshot");
  snapshot
      ->add_option("-o,--output", out,
                   "file to write, replaced only once written whole (default: standard output)")
      ->type_name("FILE");
  snapshot->add_option("--algorithm", algo, "algorithm to record (default: slurmctld's)")
      ->check(algo_check);
  auto* snapshot_damp =
      snapshot
          ->add_option("--dampening", damp_snapshot,
                       "FairShareDampeningFactor to record (an integer, 1 to 65535)")
          ->type_name("INT");

  ExplainArgs ex;
  auto* explain = app.add_subcommand(
      "explain", "why a pending job has its place in the queue, and what would change it");
  explain->add_option("JOBID", ex.job, "the pending job");
  explain
      ->add_option("--snapshot", ex.snapshot,
                   "read this snapshot (version 2) instead of the live cluster")
      ->type_name("FILE");
  explain->add_option("--account", ex.account,
                      "without JOBID: the account's fair-share path and the usage that halves "
                      "its users' factor");
  explain->add_option("--user", ex.user,
                      "without JOBID: the user's fair-share path and the usage that halves its "
                      "factor");
  explain->add_flag("--json", ex.json, "one JSON object");
  explain->add_flag("-P,--parsable", ex.parsable, "'|'-separated rows, as sshare -P");
  explain->add_flag("-v,--verbose", ex.verbose, "every fair-share level's numbers, the root's too");
  explain
      ->add_option("--forecast", ex.forecast,
                   "the forecast model to use (default: the one the plugin publishes, or the "
                   "one beside --snapshot's file)")
      ->type_name("FILE");

  CompareArgs cmp;
  auto* compare = app.add_subcommand("compare", "why one pending job is ahead of another");
  compare->add_option("JOB1", cmp.job_a, "a pending job")->required();
  compare->add_option("JOB2", cmp.job_b, "another pending job")->required();
  compare
      ->add_option("--snapshot", cmp.snapshot,
                   "read this snapshot (version 2) instead of the live cluster")
      ->type_name("FILE");
  compare->add_flag("--json", cmp.json, "one JSON object");
  compare->add_flag("-P,--parsable", cmp.parsable, "'|'-separated rows, as sshare -P");

  WeightsArgs wt;
  auto* weights = app.add_subcommand(
      "weights", "which priority factor decides the order of the pending queue, per partition");
  weights
      ->add_option("--snapshot", wt.snapshot,
                   "read this snapshot (version 2) instead of the live cluster")
      ->type_name("FILE");
  weights->add_flag("--json", wt.json, "one JSON array, one object per partition");
  weights->add_flag("-P,--parsable", wt.parsable, "'|'-separated rows, as sshare -P");

  WhatIfArgs wi;
  auto* whatif =
      app.add_subcommand("whatif",
                         "every pending job's priority again under other weights, shares, usage, "
                         "PriorityMaxAge or algorithm: who moves, and whose fair-share changes");
  whatif->add_option("SNAPSHOT", wi.snapshot, "a version 2 snapshot (default: the live cluster)");
  whatif
      ->add_option("--weight", wi.weights,
                   "NAME=V: PriorityWeightNAME (" + fairway::weighted_factor_names() +
                       ") or a TRES's PriorityWeightTRES (CPU, Mem, GRES/gpu) set to V")
      ->type_name("NAME=V");
  whatif
      ->add_option("--shares", wi.shares,
                   "ACCOUNT[:USER]=N: that association's Fairshare set to N (or 'parent')")
      ->type_name("A[:U]=N");
  whatif
      ->add_option("--usage", wi.usage,
                   "ACCOUNT[:USER]=N: that association's raw usage set to N (an account's "
                   "subtree scaled to it)")
      ->type_name("A[:U]=N");
  whatif
      ->add_option("--max-age", wi.max_age,
                   "PriorityMaxAge, as slurm.conf takes it (minutes, or [D-]HH:MM[:SS])")
      ->type_name("TIME");
  whatif->add_option("--algorithm", wi.algorithm, "the fair-share algorithm")->check(algo_check);
  whatif
      ->add_option("--flags", wi.flags,
                   "PriorityFlags, the whole new list as slurm.conf takes it (or NONE); "
                   "NO_NORMAL_PART, NO_NORMAL_QOS, NO_FAIR_TREE and DEPTH_OBLIVIOUS can change")
      ->type_name("LIST");
  whatif->add_option("--top", wi.top, "movers and associations listed (default 10)")
      ->type_name("N");
  whatif->add_flag("--json", wi.json, "one JSON object: every job and changed association");
  whatif->add_flag("-P,--parsable", wi.parsable, "'|'-separated rows, as sshare -P");

  HistoryArgs hi;
  auto* history = app.add_subcommand(
      "history",
      "an association's fair-share over time: usage, delivered and entitled share, "
      "factor (PriorityParameters=fairway_history_days=N)");
  history->add_option("--job", hi.job, "why this job started when it did (instead of --account)")
      ->type_name("ID");
  history->add_option("--account", hi.account, "the account");
  history->add_option("--user", hi.user, "a user of that account (default: the account itself)");
  history
      ->add_option("--since", hi.since,
                   "from this time on: YYYY-MM-DD[THH:MM[:SS]] or an age (7d, 12h, 30m)")
      ->type_name("TIME");
  history
      ->add_option("--dir", hi.dir,
                   "the history directory (default: from slurmctld's PriorityParameters)")
      ->type_name("DIR");
  history->add_flag("--json", hi.json, "one JSON array, one object per association");
  history->add_flag("-P,--parsable", hi.parsable, "'|'-separated rows, as sshare -P");

  std::string plot_out, plot_snapshot;
  HistoryArgs ph;
  auto* plot =
      app.add_subcommand("plot", "pictures as SVG: the share tree, an association's history");
  plot->require_subcommand(1);
  auto* plot_tree = plot->add_subcommand(
      "tree",
      "the share tree: each association's entitled share against its delivered usage, "
      "coloured by fair-share factor");
  plot_tree->add_option("SNAPSHOT", plot_snapshot, "a snapshot file, or - for standard input")
      ->required();
  plot_tree->add_option("-o,--output", plot_out, "SVG file to write (default: standard output)")
      ->type_name("FILE");
  auto* plot_history = plot->add_subcommand(
      "history", "an association's delivered and entitled share and fair-share factor over time");
  plot_history->add_option("--account", ph.account, "the account")->required();
  plot_history->add_option("--user", ph.user, "a user of that account");
  plot_history->add_option("--since", ph.since, "from this time on (as fairway history)")
      ->type_name("TIME");
  plot_history->add_option("--dir", ph.dir, "the history directory")->type_name("DIR");
  plot_history->add_option("-o,--output", plot_out, "SVG file to write (default: standard output)")
      ->type_name("FILE");

  std::string lint_file, lint_snapshot;
  auto* lint = app.add_subcommand(
      "lint", "check slurm.conf's priority settings before they go live (exit 1: findings)");
  lint->add_option("SLURM_CONF", lint_file,
                   "the slurm.conf to check (default: $SLURM_CONF, else /etc/slurm/slurm.conf)")
      ->type_name("FILE");
  auto* lint_snapshot_opt = lint->add_option("--snapshot", lint_snapshot,
                                             "check the pending queue of this snapshot (version "
                                             "2) too")
                                ->type_name("FILE");
  bool lint_live = false;
  lint->add_flag("--live", lint_live, "check the live cluster's pending queue too")
      ->excludes(lint_snapshot_opt);

  ForecastArgs fc;
  auto* forecast = app.add_subcommand("forecast", "when each pending job may start");
  forecast
      ->add_option("--snapshot", fc.snapshot,
                   "read this snapshot (version 2) instead of the live cluster")
      ->type_name("FILE");
  forecast
      ->add_option("--forecast", fc.forecast,
                   "the forecast model to use (default: the one the plugin publishes, or the "
                   "one beside --snapshot's file)")
      ->type_name("FILE");
  forecast->add_flag("--json", fc.json, "one JSON array");
  forecast->add_flag("-P,--parsable", fc.parsable, "'|'-separated rows, as sshare -P");

  auto* help = app.add_subcommand("help", "print this help, or a command's (fairway help shares)");
  help->add_option("COMMAND", topic,
                   "shares, snapshot, explain, compare, weights, whatif, history, plot, lint, "
                   "forecast or help");

  // Commands are checked here: CLI11 would answer an unknown word with "A subcommand is
  // required".
  if (argc < 2) {
    say("a command is required: shares, snapshot, explain, compare, weights, whatif, history, "
        "plot, lint, forecast or help (see 'fairway --help')");
    return kExitInput;
  }
  if (argv[1][0] != '-' && !is_command(argv[1])) {
    say(unknown_command(argv[1]));
    return kExitInput;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e);
      return 0;
    }
    std::string where = "fairway";
    if (argc > 1 && is_command(argv[1])) where += std::string(" ") + argv[1];
    say(std::string(e.what()) + " (see '" + where + " --help')");
    return kExitInput;
  }

  if (*help) {
    if (!topic.empty() && !is_command(topic)) {
      say(unknown_command(topic));
      return kExitInput;
    }
    // What --help prints (App::help() would describe the help command itself).
    put(topic.empty() || topic == "help"
            ? app.get_formatter()->make_help(&app, "fairway", CLI::AppFormatMode::Normal)
            : app.get_subcommand(topic)->help("fairway"));
    return 0;
  }
  if (*explain) {
    if (ex.job.empty() == (ex.account.empty() && ex.user.empty())) {
      say(ex.job.empty() ? "explain needs a JOBID, or --account or --user (see 'fairway explain "
                           "--help')"
                         : "explain takes a JOBID or --account/--user, not both");
      return kExitInput;
    }
    if (ex.json && ex.parsable) {
      say("explain: --json and --parsable exclude each other");
      return kExitInput;
    }
    return cmd_explain(ex);
  }
  if (*compare) {
    if (cmp.json && cmp.parsable) {
      say("compare: --json and --parsable exclude each other");
      return kExitInput;
    }
    return cmd_compare(cmp);
  }
  if (*weights) {
    if (wt.json && wt.parsable) {
      say("weights: --json and --parsable exclude each other");
      return kExitInput;
    }
    return cmd_weights(wt);
  }
  if (*whatif) {
    if (wi.json && wi.parsable) {
      say("whatif: --json and --parsable exclude each other");
      return kExitInput;
    }
    return cmd_whatif(wi);
  }
  if (*lint) return cmd_lint(lint_file, lint_snapshot, lint_live);
  if (*forecast) {
    if (fc.json && fc.parsable) {
      say("forecast: --json and --parsable exclude each other");
      return kExitInput;
    }
    return cmd_forecast(fc);
  }
  if (*plot) {
    if (*plot_tree) return cmd_plot_tree(plot_snapshot, plot_out);
    return cmd_plot_history(ph, plot_out);
  }
  if (*history) {
    if (hi.job.empty() == hi.account.empty()) {
      say(hi.job.empty() ? "history needs --account or --job (see 'fairway history --help')"
                         : "history takes --account or --job, not both");
      return kExitInput;
    }
    if (hi.json && hi.parsable) {
      say("history: --json and --parsable exclude each other");
      return kExitInput;
    }
    return cmd_history(hi);
  }
  bool bad = false;
  if (*shares) {
    const auto d = parse_dampening(shares_damp, damp_shares, bad);
    return bad ? kExitInput : cmd_shares(file, json, shares_parsable, algo, d, shares_tres);
  }
  const auto d = parse_dampening(snapshot_damp, damp_snapshot, bad);
  return bad ? kExitInput : cmd_snapshot(out, algo, d);
}

}  // namespace

// No command ends by an exception: whatever a command did not catch is one line and status 1.
int main(int argc, char** argv) {
  hold_closed_standard_fds();
  int rc;
  try {
    rc = run(argc, argv);
  } catch (const std::bad_alloc&) {
    say("out of memory");
    rc = kExitRuntime;
  } catch (const std::exception& e) {
    say(e.what());
    rc = kExitRuntime;
  } catch (...) {
    say("an unexpected error (not a standard exception)");
    rc = kExitRuntime;
  }
  return close_stdout(rc);
}
