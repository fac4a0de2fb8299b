// `fairway explain` in words (see explain_format.h).
#include "explain_format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "words.h"

namespace fairway {
namespace {

using nlohmann::json;

std::string name_of(const FairShareLevel& l) { return l.user.empty() ? l.account : l.user; }

// A -P field: empty for one of Slurm's unset markers (as sshare -P prints them).
std::string field(long double v) {
  return is_unset(v) ? std::string() : fmt::format("{}", static_cast<double>(v));
}

// A JSON value: null for an unset marker, "inf" for infinity (a Fairshare=parent user's
// Level FS).
json value(long double v) {
  if (is_unset(v) || std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return static_cast<double>(v);
}

// What squeue's Reason says the job waits for, when that is not its place in the queue.
std::string reason_words(const std::string& reason) {
  if (reason == "Dependency") return "another job it depends on";
  if (reason == "BeginTime") return "the start time it asked for (--begin)";
  if (reason.rfind("Assoc", 0) == 0 || reason.rfind("QOS", 0) == 0)
    return "a limit of its association or QOS";
  if (reason == "ReqNodeNotAvail" || reason == "PartitionDown" || reason == "PartitionInactive" ||
      reason == "NodeDown")
    return "nodes or a partition that are not available";
  if (reason == "Reservation") return "its reservation";
  if (reason == "Licenses") return "licenses";
  return "";
}

// The opening sentences: the job's place, squeue's Reason where known, what it waits for.
std::string summary(const PendingJob& j, const Explanation& e) {
  std::string out;
  if (e.places.empty()) return out;
  if (e.places.size() == 1) {
    const QueuePlace& p = e.places.front();
    out += fmt::format("It is {} of {} pending job{} in partition {}.", ordinal(p.position), p.of,
                       p.of == 1 ? "" : "s", p.partition);
  } else {
    std::string where;
    for (size_t i = 0; i < e.places.size(); ++i)
      where += fmt::format("{}{} of {} in {}",
                           i == 0                     ? ""
                           : i + 1 == e.places.size() ? " and "
                                                      : ", ",
                           ordinal(e.places[i].position), e.places[i].of, e.places[i].partition);
    out += "It is " + where + ".";
  }
  size_t best = 0;
  for (const QueuePlace& p : e.places)
    if (!best || p.position < best) best = p.position;
  const std::string squeue = j.reason.empty() ? "" : " (squeue: " + j.reason + ")";
  const std::string other = reason_words(j.reason);
  if (!other.empty())
    out += fmt::format(" It waits for {}{}, whatever its priority.", other, squeue);
  else if (best == 1)
    out +=
        fmt::format(" No job is ahead of it: it is next, and waits for free resources{}.", squeue);
  else
    out += fmt::format(" {} job{} {} ahead of it in the scheduler's order{}.", best - 1,
                       best == 2 ? "" : "s", best == 2 ? "is" : "are", squeue);
  return out + "\n";
}

}  // namespace

std::string format_explain(const Queue& q, const FairShareInput& fs, const Explanation& e,
                           bool verbose) {
  const PendingJob& j = *e.job;
  std::string out = fmt::format("Job {} (user {}, account {}{}) is pending", j.id, j.user,
                                j.account, j.qos.empty() ? "" : ", QOS " + j.qos);
  if (j.held) {
    return out +
           " and held (priority 0): it will not start until it is released "
           "(scontrol release " +
           std::to_string(j.id) + ").\n";
  }
  out += fmt::format(" with priority {}.\n", j.priority);
  out += summary(j, e);
  for (const FactorRow& r : j.rows) {
    out += fmt::format("\nIn partition {}, priority {}", r.partition, r.priority);
    if (r.admin) {
      out += ", set by an administrator: no factor counts.\n";
      continue;
    }
    const double total = row_sum(r);
    out += " is the sum of:\n";
    std::vector<std::pair<std::string, double>> parts;
    for (Factor f : kFactors)
      if (r.part(f) != 0) parts.emplace_back(factor_words(f), r.part(f));
    if (parts.empty()) out += "  (no factor: every weight is 0 or every factor is 0)\n";
    for (const auto& [name, v] : parts)
      out += fmt::format("  {:<22}{:>14}  {:>6.1f}%\n", name, number_words(v),
                         total > 0 ? 100.0 * v / total : 0.0);
  }
  for (const QueuePlace& p : e.places) {
    out += fmt::format("\nIn partition {} (PriorityTier {}) it is {} of {} pending job{}{}.",
                       p.partition, p.tier, ordinal(p.position), p.of, p.of == 1 ? "" : "s",
                       q.jobs_private ? " you can see (PrivateData=jobs hides other users' jobs "
                                        "from you)"
                                      : "");
    if (!p.ahead) {
      out += " No job is ahead of it there.\n";
      continue;
    }
    const PendingJob* a = q.job(*p.ahead);
    const FactorRow* ar = nullptr;
    for (const auto& r : a->rows)
      if (r.partition == p.partition) ar = &r;
    out += fmt::format("\nDirectly ahead: job {} (user {}, account {}) with priority {}", a->id,
                       a->user, a->account, ar ? ar->priority : a->priority);
    switch (p.separation.by) {
      case Separation::By::kTier:
        out += "; it is in a partition of a higher PriorityTier.\n";
        continue;
      case Separation::By::kSubmitTime:
        out += ", the same priority: it was submitted earlier.\n";
        continue;
      case Separation::By::kJobId:
        out += ", the same priority and submit time: it has the lower job id.\n";
        continue;
      case Separation::By::kPriority:
        break;
    }
    if (p.separation.admin) {
      out += "; an administrator set one of the two priorities.\n";
      continue;
    }
    out += fmt::format(" ({} more).\nWhat separates them most: {} ({} more for job {}).\n",
                       ar ? ar->priority - p.priority : 0, factor_words(p.separation.factor),
                       number_words(p.separation.difference), a->id);
    out += "What would change that:\n";
    const PrioritySettings& s = q.settings;
    if (p.age_passes > 0)
      out += fmt::format(
          "  - age: if both keep waiting and nothing else changes, it passes job {} in {}.\n",
          a->id, duration_words(p.age_passes));
    else if (s.weight[Factor::kAge] && s.max_age && p.age_saturates == 0)
      out += fmt::format(
          "  - age: does not separate them (both at the same age part), and waiting does not "
          "change that.\n");
    else if (s.weight[Factor::kAge] && s.max_age)
      out += fmt::format(
          "  - age: waiting alone will not put it ahead of job {}: age stops separating them "
          "in {} (PriorityMaxAge {}), and the rest of the difference stays.\n",
          a->id, duration_words(p.age_saturates), duration_words(s.max_age));
    if (s.weight[Factor::kFairshare] && fs.usage_basis != UsageBasis::kHistorical)
      out += fmt::format(
          "  - fair-share: compares what running jobs hold now (fairway_usage={}), not usage "
          "over time: account {}'s factor rises as its running jobs end and falls as others' "
          "end.\n",
          usage_basis_name(fs.usage_basis), j.account);
    else if (p.same_association)
      out += fmt::format(
          "  - fair-share: job {} is of the same association (user {}, account {}): "
          "fair-share cannot separate them.\n",
          a->id, j.user, j.account);
    else if (p.fair_share_passes > 0)
      out += fmt::format(
          "  - fair-share: if account {} ran nothing more (its usage halving every {}) and the "
          "rest of the cluster's usage stayed as it is, it would pass job {} in about {}.\n",
          j.account, duration_words(s.decay_half_life), a->id, duration_words(p.fair_share_passes));
    else if (s.weight[Factor::kFairshare] && !s.decay_half_life)
      out += fmt::format(
          "  - fair-share: usage does not decay (PriorityDecayHalfLife=0): account {}'s "
          "fair-share changes only with the usage it and others add.\n",
          j.account);
    else if (s.weight[Factor::kFairshare])
      out += fmt::format(
          "  - fair-share: the decay of account {}'s usage alone would not put it ahead of "
          "job {} within 20 half-lives.\n",
          j.account, a->id);
  }
  if (!e.path.empty()) {
    // fairway_fairshare_tres: the tree of the TRES the job mostly asks for.
    const std::string& tres = e.fairshare_tres;
    const bool ft = fs.algorithm == Algorithm::kFairTree;
    const FairShareLevel& me = e.path.back();
    const bool account = me.user.empty();
    out += fmt::format("\nFair-share ({}{}), from the root to the {}:\n",
                       algorithm_words(fs.algorithm),
                       tres.empty() ? "" : ", " + tres + " usage: fairway_fairshare_tres",
                       j.id ? "job's association" : "association");
    if (verbose) {
      out += fmt::format("  {:<24}{:>12}{:>16}{:>16}  {}\n", "account/user", "norm shares",
                         "eff. usage", ft ? "Level FS" : "", "rank among siblings");
      for (size_t i = 0; i < e.path.size(); ++i) {
        const FairShareLevel& l = e.path[i];
        const std::string name = std::string(i * 2, ' ') + name_of(l);
        out += fmt::format("  {:<24}{:>12}{:>16}{:>16}  {}\n", name, decimal_words(l.shares_norm),
                           decimal_words(l.usage_efctv), ft && i ? decimal_words(l.level_fs) : "",
                           i ? fmt::format("{} of {}", l.rank, l.siblings) : "");
      }
    } else {
      // Below the root, each level's rank among its siblings (--verbose: the numbers).
      for (size_t i = 1; i < e.path.size(); ++i) {
        const FairShareLevel& l = e.path[i];
        out += fmt::format("  {}{} {}: {} of {} among its siblings\n",
                           std::string((i - 1) * 2, ' '), l.user.empty() ? "account" : "user",
                           name_of(l), ordinal(l.rank), l.siblings);
      }
    }
    const bool held = fs.usage_basis != UsageBasis::kHistorical;
    // What the usage counts: billable TRES, or the listed TRES that judged the job.
    const std::string what = tres.empty() ? "billable TRES" : tres;
    const std::string judged =
        tres.empty() ? ""
                     : fmt::format("; the job asks mostly for {}: fairway_fairshare_tres", tres);
    const std::string basis =
        fs.usage_basis == UsageBasis::kAllocated
            ? fmt::format(
                  " (from the {} running jobs hold now, not historical usage: "
                  "fairway_usage=allocated{})",
                  what, judged)
        : fs.usage_basis == UsageBasis::kCommitted
            ? fmt::format(
                  " (from the {} running jobs hold times the time left to their limits, "
                  "not historical usage: fairway_usage=committed{})",
                  what, judged)
        : !tres.empty()
            ? fmt::format(
                  " (from its usage of {}, the resource the job asks mostly for, not of "
                  "billable TRES: fairway_fairshare_tres{})",
                  tres,
                  q.settings.decay_exact ? "; usage decayed exactly: fairway_decay=exact" : "")
        : q.settings.decay_exact ? " (usage decayed exactly, halving every PriorityDecayHalfLife: "
                                   "fairway_decay=exact)"
                                 : "";
    if (is_unset(me.fs_factor)) {
      out += fmt::format(
          "Account {} has no fair-share factor of its own: no user is directly under it (an "
          "account's factor is the highest among its users').\n",
          me.account);
      return out;
    }
    out += fmt::format("{} fair-share factor is {}{}{}.\n",
                       j.id || !account ? "Its" : "The account's", decimal_words(me.fs_factor),
                       account ? ", the highest among its users'" : "", basis);
    const std::string who = name_of(me);
    if (e.halving_usage && *e.halving_usage == 0) {
      out += fmt::format(
          "Any usage at all charged to {} would halve it: it ties with its siblings, and the "
          "least usage puts it behind them.\n",
          who);
      return out;
    }
    // The CPU-hours a billing of 1 per CPU makes of billable-TRES-seconds (not of a TRES's).
    const std::string cpu_hours =
        !e.halving_usage || !tres.empty()
            ? ""
            : fmt::format(" (about {} CPU-hours at a billing of 1 per CPU)",
                          decimal_words(*e.halving_usage / 3600.0L, 1));
    auto amount = [](long double v) {
      return v < 1 ? number_words(static_cast<double>(v))
                   : number_words(std::round(static_cast<double>(v)));
    };
    if (e.halving_usage && fs.usage_basis == UsageBasis::kAllocated)
      out += fmt::format("Running jobs holding {} more {} in {} would halve it.\n",
                         amount(*e.halving_usage), what, who);
    else if (e.halving_usage && held)
      out += fmt::format(
          "Running jobs holding {} more {}-seconds of remaining time in {} would halve it{}.\n",
          amount(*e.halving_usage), tres.empty() ? "billable-TRES" : tres, who, cpu_hours);
    else if (e.halving_usage)
      out += fmt::format("Usage that would halve it: {} more raw usage{} charged to {}{}.\n",
                         amount(*e.halving_usage),
                         tres.empty() ? "" : " of " + tres + " (" + tres + "-seconds)", who,
                         cpu_hours);
    else if (me.fs_factor > 0)
      out += fmt::format("No amount of usage charged to {} alone would halve it.\n", who);
  }
  return out;
}

std::string format_explain_parsable(const Queue& q, const Explanation& e) {
  (void)q;
  const PendingJob& j = *e.job;
  std::string out = "Factor|Partition|Weighted|Share\n";
  for (const FactorRow& r : j.rows) {
    const double total = row_sum(r);
    for (Factor f : kFactors)
      out += fmt::format("{}|{}|{}|{:.4f}\n", factor_name(f), r.partition, r.part(f),
                         total > 0 ? r.part(f) / total : 0.0);
  }
  out +=
      "Partition|Tier|Priority|Position|Of|Ahead|SeparatedBy|Difference|AgePasses|"
      "FairSharePasses\n";
  for (const QueuePlace& p : e.places)
    out += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n", p.partition, p.tier, p.priority,
                       p.position, p.of, p.ahead ? std::to_string(*p.ahead) : "",
                       p.ahead ? separated_by(p.separation) : "",
                       p.ahead ? fmt::format("{}", p.separation.difference) : "",
                       p.age_passes < 0 ? "" : fmt::format("{:.0f}", p.age_passes),
                       p.fair_share_passes < 0 ? "" : fmt::format("{:.0f}", p.fair_share_passes));
  out += "Level|Account|User|NormShares|EffectvUsage|LevelFS|Rank|Siblings|FairShare\n";
  for (size_t i = 0; i < e.path.size(); ++i) {
    const auto& l = e.path[i];
    out += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}\n", i, l.account, l.user, field(l.shares_norm),
                       field(l.usage_efctv), field(l.level_fs), l.rank, l.siblings,
                       field(l.fs_factor));
  }
  return out;
}

std::string format_explain_json(const Queue& q, const FairShareInput& fs, const Explanation& e) {
  const PendingJob& j = *e.job;
  json out = {{"job", j.id},
              {"jobs_private", q.jobs_private},
              {"user", j.user},
              {"account", j.account},
              {"priority", j.priority},
              {"held", j.held},
              {"algorithm", algorithm_name(fs.algorithm)},
              {"usage_basis", usage_basis_name(fs.usage_basis)}};
  // fairway_fairshare_tres: the TRES whose usage gave the factor; null: billing's.
  out["fairshare_tres"] = e.fairshare_tres.empty() ? json(nullptr) : json(e.fairshare_tres);
  json rows = json::array();
  for (const FactorRow& r : j.rows) {
    json factors = json::object();
    for (Factor f : kFactors) factors[factor_name(f)] = r.part(f);
    rows.push_back({{"partition", r.partition},
                    {"priority", r.priority},
                    {"admin", r.admin},
                    {"factors", factors}});
  }
  out["rows"] = rows;
  json places = json::array();
  for (const QueuePlace& p : e.places) {
    json x = {{"partition", p.partition},
              {"tier", p.tier},
              {"priority", p.priority},
              {"position", p.position},
              {"of", p.of}};
    if (p.ahead) {
      x["ahead"] = *p.ahead;
      x["separated_by"] = separated_by(p.separation);
      x["same_association"] = p.same_association;
      x["difference"] = p.separation.difference;
      x["age_passes_seconds"] = p.age_passes < 0 ? json(nullptr) : json(p.age_passes);
      x["age_saturates_seconds"] = p.age_saturates < 0 ? json(nullptr) : json(p.age_saturates);
      x["fair_share_passes_seconds"] =
          p.fair_share_passes < 0 ? json(nullptr) : json(p.fair_share_passes);
    }
    places.push_back(x);
  }
  out["places"] = places;
  json path = json::array();
  for (const auto& l : e.path)
    path.push_back({{"account", l.account},
                    {"user", l.user.empty() ? json(nullptr) : json(l.user)},
                    {"shares_norm", value(l.shares_norm)},
                    {"usage_norm", value(l.usage_norm)},
                    {"usage_efctv", value(l.usage_efctv)},
                    {"level_fs", value(l.level_fs)},
                    {"rank", l.rank},
                    {"siblings", l.siblings},
                    {"fs_factor", value(l.fs_factor)}});
  out["fair_share_path"] = path;
  out["halving_usage"] =
      e.halving_usage ? json(static_cast<double>(*e.halving_usage)) : json(nullptr);
  return out.dump();
}

}  // namespace fairway
