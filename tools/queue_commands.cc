// The commands that read the pending queue: explain, compare and weights (see
// queue_commands.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "queue_commands.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_io.h"
#include "compare.h"
#include "compare_format.h"
#include "conf_values.h"
#include "explain.h"
#include "explain_format.h"
#include "forecast_command.h"
#include "forecast_format.h"
#include "live.h"
#include "snapshot.h"
#include "weights.h"
#include "weights_format.h"
#include "whatif.h"
#include "whatif_format.h"

extern "C" {
#include "slurm_api.h"
}

namespace fairway_cli {
namespace {

// The snapshot in FILE, or the live cluster's (version 2) when FILE is empty; nullopt after
// saying why, with rc set. With `seen`, the live cluster's is returned even where slurmctld hid
// part of the tree (PrivateData=usage), and `seen` says what it hid; without it that is an error.
std::optional<fairway::Snapshot> load_snapshot(const std::string& file, int& rc,
                                               LiveVisibility* seen = nullptr) {
  if (!file.empty()) return read_input(file, rc);
  if (const std::string why = slurm_conf_problem(); !why.empty()) {
    say(why);
    rc = kExitRuntime;
    return std::nullopt;
  }
  slurm_init(nullptr);
  std::string why;
  std::optional<fairway::Snapshot> snap = live_snapshot(LiveRequest{}, why, seen);
  if (!snap) {
    say(why);
    rc = kExitRuntime;
  }
  return snap;
}

// Whether the snapshot holds the queue (version 2); says why not.
bool has_queue(const fairway::Snapshot& snap, const std::string& file) {
  if (snap.queue) return true;
  say(no_queue_message(file));
  return false;
}

// Whether the job named by R is J (a job record, one of an array's tasks, a heterogeneous
// job's component).
template <typename Job>
bool names(const JobRef& r, const Job& j) {
  switch (r.kind) {
    case JobRef::Kind::kJob:
      return j.id == r.id;
    case JobRef::Kind::kArrayTask:
      return j.array_job_id == r.id && j.array_task_id == r.index;
    case JobRef::Kind::kHetComponent:
      return j.het_job_id == r.id && j.het_job_offset == r.index;
  }
  return false;
}

// TEXT (JOBID, ARRAYID_TASK or HETJOBID+OFFSET) as the id of a job record pending in the
// queue; nullopt after saying why, with rc set: kExitInput for text that names no job,
// kExitRuntime for a job that is not pending or that slurmctld does not show.
std::optional<uint32_t> pending_job_id(const fairway::Queue& q, const std::string& text,
                                       const std::string& file, int& rc) {
  const std::optional<JobRef> ref = parse_job_ref(text);
  if (!ref) {
    say("JOBID " + shown(text) + " is not a job id (" + kJobIdForms + ")");
    rc = kExitInput;
    return std::nullopt;
  }
  for (const auto& j : q.jobs)
    if (names(*ref, j)) return j.id;
  // A pending array whose tasks are still one record.
  if (ref->kind == JobRef::Kind::kArrayTask)
    for (const auto& j : q.jobs)
      if (j.array_job_id == ref->id && j.array_task_id == fairway::kNoArrayTask &&
          array_tasks_hold(j.array_tasks, ref->index))
        return j.id;
  rc = kExitRuntime;
  for (const auto& o : q.other_jobs)
    if (names(*ref, o)) {
      say("job " + text + " is " + (o.state.empty() ? "not pending" : o.state));
      return std::nullopt;
    }
  if (!file.empty())
    say("job " + text + " is not pending in the snapshot");
  else
    say("no job " + text + (q.jobs_private ? " (or not visible to you: PrivateData)" : ""));
  return std::nullopt;
}

// What fair-share compared, as the explanations read it; none where slurmctld hid part of
// the tree (the explanations then have no fair-share path to show).
fairway::FairShareInput fair_share_input(const fairway::Snapshot& s,
                                         const LiveVisibility& seen = {}) {
  if (seen.hidden_associations) {
    fairway::FairShareInput none;
    none.algorithm = s.algorithm;
    none.dampening_factor = s.dampening_factor;
    return none;
  }
  return fairway::snapshot_fair_share_input(s);
}

// The sentence that says which part of the tree slurmctld keeps private (PrivateData=usage).
std::string private_tree_words(const fairway::Snapshot& snap, const LiveVisibility& seen) {
  std::string mine;
  for (const auto& r : snap.associations)
    if (!r.user.empty()) mine += (mine.empty() ? "" : ", ") + r.user + " in " + r.account;
  return "\nThe association tree is private (PrivateData=usage): slurmctld shows you only your own "
         "association" +
         std::string(snap.associations.size() == 1 ? "" : "s") +
         (mine.empty() ? "" : " (" + mine + ")") + ", not the accounts above " +
         (snap.associations.size() == 1 ? "it" : "them") +
         " or the other users. So the fair-share path, and the usage that would change the "
         "factor, cannot be worked out here; the fair-share factor above is slurmctld's own, "
         "as sprio shows it.\n";
}

// TEXT (one JSON object) with `key` set to `value`.
std::string with_json_key(const std::string& text, const char* key, bool value) {
  nlohmann::json doc = nlohmann::json::parse(text);
  doc[key] = value;
  return doc.dump();
}

// --account A / --user U: the association's fair-share path and the usage that halves its
// factor.
std::string fmt_association_seen(const std::string& what, const fairway::AssocRecord& r) {
  char usage[64];
  std::snprintf(usage, sizeof usage, "%.0Lf", r.usage_raw);
  return what + ": Fairshare " +
         (r.shares_parent ? std::string("parent") : std::to_string(r.shares_raw)) + ", raw usage " +
         usage + " (charged to it directly).\n";
}

int explain_association(const fairway::Snapshot& snap, const ExplainArgs& a,
                        const LiveVisibility& seen) {
  std::vector<const fairway::AssocRecord*> found;
  for (const auto& r : snap.associations)
    if (a.user.empty() ? (r.user.empty() && r.account == a.account)
                       : (r.user == a.user && (a.account.empty() || r.account == a.account)))
      found.push_back(&r);
  const std::string what =
      a.user.empty()
          ? "account " + shown(a.account)
          : "user " + shown(a.user) + (a.account.empty() ? "" : " in account " + shown(a.account));
  if (found.empty()) {
    say(seen.hidden_associations ? "slurmctld shows you no association of " + what +
                                       " (PrivateData=usage: you see only your own)"
        : a.snapshot.empty() ? "slurmctld has no association of " + what
                             : "no association of " + what + " in the snapshot");
    return kExitRuntime;
  }
  if (found.size() > 1) {
    std::string accounts;
    for (const auto* r : found) accounts += (accounts.empty() ? "" : ", ") + r->account;
    say(what + " has associations in several accounts (" + accounts + "): name one with --account");
    return kExitInput;
  }
  if (seen.hidden_associations) {
    // What slurmctld shows the user of the association: its shares and raw usage.
    const fairway::AssocRecord& r = *found[0];
    if (a.json || a.parsable) {
      say(what +
          ": the association tree is private (PrivateData=usage): its fair-share path "
          "cannot be worked out (sshare shows you your own rows)");
      return kExitRuntime;
    }
    put(fmt_association_seen(what, r) + private_tree_words(snap, seen));
    return 0;
  }
  const auto fs = fair_share_input(snap);
  fairway::Explanation e;
  try {
    e.path = fairway::fair_share_path(fs, found[0]->id);
    e.halving_usage = fairway::usage_halving_fs_factor(fs, found[0]->id);
  } catch (const std::exception& x) {
    // A tree without its root (the part slurmctld shows a user under PrivateData=usage).
    say("cannot work out the fair-share of " + what + ": " + x.what());
    return a.snapshot.empty() ? kExitRuntime : kExitInput;
  }
  fairway::PendingJob none;
  none.id = 0;
  e.job = &none;
  const fairway::Queue empty;
  if (a.json) {
    put(fairway::format_explain_json(empty, fs, e) + "\n");
  } else if (a.parsable) {
    put(fairway::format_explain_parsable(empty, e));
  } else {
    std::string text = fairway::format_explain(empty, fs, e, a.verbose);
    // Only the fair-share part applies to an association.
    const size_t at = text.find("\nFair-share (");
    put(what + ":" + (at == std::string::npos ? text : text.substr(at)));
  }
  return 0;
}

}  // namespace

int cmd_explain(const ExplainArgs& a) {
  int rc = 0;
  LiveVisibility seen;
  std::optional<fairway::Snapshot> snap = load_snapshot(a.snapshot, rc, &seen);
  if (!snap) return rc;
  if (a.job.empty()) return explain_association(*snap, a, seen);
  if (!has_queue(*snap, a.snapshot)) return kExitInput;
  const auto id = pending_job_id(*snap->queue, a.job, a.snapshot, rc);
  if (!id) return rc;
  const fairway::Queue& q = *snap->queue;
  const auto fs = fair_share_input(*snap, seen);
  try {
    const auto e = fairway::explain_job(q, fs, *id);
    const bool hidden = seen.hidden_associations != 0;
    // When it may start: the earliest forecast among its places.
    std::vector<fairway::PlaceInLine> places;
    for (const fairway::QueuePlace& p : e.places)
      places.push_back(
          {p.partition, static_cast<uint32_t>(p.position), static_cast<uint32_t>(p.of)});
    const fairway::ForecastModel model = load_forecast_model(a.snapshot, a.forecast);
    const fairway::JobForecast f = fairway::forecast_pending(model, q, *e.job, places);
    const int64_t now = q.taken_at ? q.taken_at : std::time(nullptr);
    const int64_t planned = e.job->planned_start;
    if (a.json) {
      nlohmann::json doc = nlohmann::json::parse(with_json_key(
          fairway::format_explain_json(q, fs, e), "association_tree_private", hidden));
      doc["forecast"] = nlohmann::json::parse(fairway::format_forecast_json(f, planned, now));
      put(doc.dump() + "\n");
    } else if (a.parsable) {
      put(fairway::format_explain_parsable(q, e) +
          fairway::format_forecast_parsable(f, planned, now));
    } else {
      put(fairway::format_explain(q, fs, e, a.verbose) +
          (e.job->held ? std::string() : fairway::format_forecast(f, planned, now)) +
          (hidden ? private_tree_words(*snap, seen) : std::string()));
    }
  } catch (const std::exception& e) {
    say(std::string("cannot explain job ") + std::to_string(*id) + ": " + e.what());
    return kExitInput;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// fairway compare

int cmd_compare(const CompareArgs& a) {
  int rc = 0;
  LiveVisibility seen;
  std::optional<fairway::Snapshot> snap = load_snapshot(a.snapshot, rc, &seen);
  if (!snap) return rc;
  if (!has_queue(*snap, a.snapshot)) return kExitInput;
  const fairway::Queue& q = *snap->queue;
  const auto ja = pending_job_id(q, a.job_a, a.snapshot, rc);
  if (!ja) return rc;
  const auto jb = pending_job_id(q, a.job_b, a.snapshot, rc);
  if (!jb) return rc;
  if (*ja == *jb) {
    say("compare needs two different jobs");
    return kExitInput;
  }
  try {
    const auto c = fairway::compare_jobs(q, fair_share_input(*snap, seen), *ja, *jb);
    const bool hidden = seen.hidden_associations != 0;
    put(a.json
            ? with_json_key(fairway::format_compare_json(c), "association_tree_private", hidden) +
                  "\n"
        : a.parsable ? fairway::format_compare_parsable(c)
                     : fairway::format_compare(c) +
                           (hidden ? private_tree_words(*snap, seen) : std::string()));
  } catch (const std::exception& e) {
    say("cannot compare jobs " + std::to_string(*ja) + " and " + std::to_string(*jb) + ": " +
        e.what());
    return kExitInput;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// fairway weights

int cmd_weights(const WeightsArgs& a) {
  int rc = 0;
  LiveVisibility seen;  // the order needs no tree: sprio's factors are enough
  std::optional<fairway::Snapshot> snap = load_snapshot(a.snapshot, rc, &seen);
  if (!snap) return rc;
  if (!has_queue(*snap, a.snapshot)) return kExitInput;
  const auto d = fairway::queue_decisions(*snap->queue);
  put(a.json       ? fairway::format_weights_json(d) + "\n"
      : a.parsable ? fairway::format_weights_parsable(d)
                   : fairway::format_weights(d));
  return 0;
}

// ---------------------------------------------------------------------------------------------
// fairway whatif

namespace {

// "ACCOUNT[:USER]=VALUE" split; false if there is no '=' or no account.
bool split_assignment(const std::string& text, std::string& account, std::string& user,
                      std::string& value) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) return false;
  const std::string who = text.substr(0, eq);
  value = text.substr(eq + 1);
  const size_t colon = who.find(':');
  account = who.substr(0, colon);
  user = colon == std::string::npos ? "" : who.substr(colon + 1);
  return !account.empty() && (colon == std::string::npos || !user.empty());
}

using fairway::parse_max_age;
using fairway::plain_number;

// The change the arguments ask for; nullopt after saying what is wrong.
std::optional<fairway::WhatIfChange> parse_change(const WhatIfArgs& a) {
  fairway::WhatIfChange c;
  for (const std::string& w : a.weights) {
    const size_t eq = w.find('=');
    const auto v = eq == std::string::npos ? std::nullopt : plain_number(w.substr(eq + 1));
    if (eq == std::string::npos || eq == 0 || !v) {
      say("--weight " + shown(w) + ": expected NAME=VALUE (" + fairway::weighted_factor_names() +
          " or a TRES name such as CPU or GRES/gpu; VALUE a number, 0 or more)");
      return std::nullopt;
    }
    c.weights.emplace_back(w.substr(0, eq), *v);
  }
  for (const std::string& t : a.shares) {
    fairway::WhatIfChange::Shares sh;
    std::string value;
    const bool ok = split_assignment(t, sh.account, sh.user, value);
    const auto v = plain_number(value);
    sh.parent = value == "parent";
    if (!ok || (!sh.parent && (!v || *v != std::floor(*v) || *v < 1 || *v >= 2147483647))) {
      say("--shares " + shown(t) +
          ": expected ACCOUNT[:USER]=N (N a whole number from 1, or "
          "'parent')");
      return std::nullopt;
    }
    if (v) sh.shares = static_cast<uint32_t>(*v);
    c.shares.push_back(sh);
  }
  for (const std::string& t : a.usage) {
    fairway::WhatIfChange::Usage u;
    std::string value;
    const bool ok = split_assignment(t, u.account, u.user, value);
    const auto v = plain_number(value);
    if (!ok || !v) {
      say("--usage " + shown(t) +
          ": expected ACCOUNT[:USER]=N (N the raw usage, as sshare's "
          "RawUsage, 0 or more)");
      return std::nullopt;
    }
    u.usage = *v;
    c.usage.push_back(u);
  }
  if (!a.max_age.empty()) {
    c.max_age = parse_max_age(a.max_age);
    if (!c.max_age) {
      say("--max-age " + shown(a.max_age) +
          ": expected a time as slurm.conf's PriorityMaxAge "
          "takes it (minutes, or [DAYS-]HOURS:MINUTES[:SECONDS])");
      return std::nullopt;
    }
  }
  if (!a.flags.empty()) {
    std::string unknown;
    const auto bits = fairway::parse_priority_flags(a.flags, unknown);
    if (!bits) {
      say("--flags " + shown(a.flags) + ": unknown PriorityFlag " + shown(unknown) +
          " (a comma-separated list as slurm.conf's PriorityFlags, or NONE)");
      return std::nullopt;
    }
    c.flags = *bits;
  }
  if (a.algorithm == "fair_tree") c.algorithm = fairway::Algorithm::kFairTree;
  if (a.algorithm == "classic") c.algorithm = fairway::Algorithm::kClassic;
  if (a.algorithm == "depth_oblivious") c.algorithm = fairway::Algorithm::kDepthOblivious;
  return c;
}

}  // namespace

int cmd_whatif(const WhatIfArgs& a) {
  const auto change = parse_change(a);
  if (!change) return kExitInput;
  int rc = 0;
  std::optional<fairway::Snapshot> snap = load_snapshot(a.snapshot, rc);
  if (!snap) return rc;
  if (!has_queue(*snap, a.snapshot)) return kExitInput;
  try {
    const auto w = fairway::what_if(*snap->queue, fair_share_input(*snap), *change);
    put(a.json       ? fairway::format_whatif_json(w) + "\n"
        : a.parsable ? fairway::format_whatif_parsable(w)
                     : fairway::format_whatif(w, a.top));
  } catch (const std::exception& e) {
    say(std::string("whatif: ") + e.what());
    return kExitInput;
  }
  return 0;
}

}  // namespace fairway_cli
