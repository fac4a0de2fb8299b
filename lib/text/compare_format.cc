// `fairway compare` in words (see compare_format.h).
#include "compare_format.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "words.h"

namespace fairway {
namespace {

using nlohmann::json;

std::string job_words(const PendingJob& j) {
  return fmt::format("job {} (user {}, account {})", j.id, j.user, j.account);
}

// A job's priority, or why it has none.
std::string state_words(const PendingJob& j) {
  if (j.held) return "held";
  if (j.rows.empty()) return "not weighed yet";
  return "priority " + std::to_string(j.priority);
}

std::string side_name(const FairShareSide& s) {
  return s.user.empty() ? "account " + s.account : "user " + s.user;
}

std::string level_fs_words(long double v) {
  if (std::isinf(v)) return "infinite";
  if (is_unset(v)) return "none: Fairshare=parent";
  return decimal_words(v);
}

// A -P field: empty for one of Slurm's unset markers.
std::string field(long double v) {
  return is_unset(v) ? std::string() : fmt::format("{}", static_cast<double>(v));
}

// Why the first is ahead in one partition.
std::string place_words(const Comparison& c, const PairPlace& p) {
  const PendingJob& first = p.a_first ? *c.a : *c.b;
  const PendingJob& second = p.a_first ? *c.b : *c.a;
  std::string out = fmt::format("In partition {}, job {} is ahead", p.partition, first.id);
  if (p.position_a && p.position_b)
    out += fmt::format(" ({} and {} of {})", ordinal(p.a_first ? p.position_a : p.position_b),
                       ordinal(p.a_first ? p.position_b : p.position_a), p.of);
  switch (p.separation.by) {
    case Separation::By::kTier:
      return out + ": its partition has the higher PriorityTier.\n";
    case Separation::By::kSubmitTime:
      return out + ": the same priority, and it was submitted earlier.\n";
    case Separation::By::kJobId:
      return out + ": the same priority and submit time, and it has the lower job id.\n";
    case Separation::By::kPriority:
      break;
  }
  const FactorRow& ra = *p.row_a;
  const FactorRow& rb = *p.row_b;
  out += fmt::format(": priority {} against {}.\n", p.a_first ? ra.priority : rb.priority,
                     p.a_first ? rb.priority : ra.priority);
  if (p.separation.admin) return out + "  An administrator set one of the two priorities.\n";
  out += fmt::format("  {:<22}{:>14}{:>14}{:>14}\n", "factor", fmt::format("job {}", c.a->id),
                     fmt::format("job {}", c.b->id), "difference");
  for (Factor f : kFactors) {
    const double a = ra.part(f), b = rb.part(f);
    if (a == 0 && b == 0) continue;
    out += fmt::format("  {:<22}{:>14}{:>14}{:>14}\n", factor_words(f), number_words(a),
                       number_words(b), number_words(a - b));
  }
  out += fmt::format("  What puts job {} ahead most: {} ({} more than job {}).\n", first.id,
                     factor_words(p.separation.factor), number_words(p.separation.difference),
                     second.id);
  return out;
}

std::string fair_share_words(const Comparison& c) {
  const FairShareDecision& d = c.fair_share;
  std::string out = fmt::format("\nFair-share ({}): ", algorithm_words(d.algorithm));
  const auto judged = [](const std::string& tres) {
    return tres.empty() ? std::string("its billable usage") : "its usage of " + tres;
  };
  if (d.tres_a != d.tres_b)
    return out + fmt::format(
                     "job {} is judged by {}, job {} by {} (fairway_fairshare_tres), so "
                     "their factors come from different trees and no one association "
                     "decides between them: job {}'s factor is {:.6f}, job {}'s {:.6f}.\n",
                     c.a->id, judged(d.tres_a), c.b->id, judged(d.tres_b), c.a->id, d.fs_factor_a,
                     c.b->id, d.fs_factor_b);
  if (!d.tres_a.empty()) out += "both jobs are judged by their usage of " + d.tres_a + "; ";
  if (d.same_association)
    return out + fmt::format(
                     "both jobs belong to the same association (user {}, account {}): "
                     "fair-share does not separate them.\n",
                     c.a->user, c.a->account);
  if (!d.a || !d.b) return out + "an association of the two jobs is not in the tree.\n";
  const FairShareSide& a = *d.a;
  const FairShareSide& b = *d.b;
  if (d.algorithm != Algorithm::kFairTree) {
    out += fmt::format(
        "each user's factor falls as its effective usage grows against its normalized shares.\n"
        "  job {}: {}, effective usage {}, normalized shares {}, factor {:.6f}\n"
        "  job {}: {}, effective usage {}, normalized shares {}, factor {:.6f}\n",
        c.a->id, side_name(a), decimal_words(a.usage_efctv), decimal_words(a.shares_norm),
        d.fs_factor_a, c.b->id, side_name(b), decimal_words(b.usage_efctv),
        decimal_words(b.shares_norm), d.fs_factor_b);
    if (d.fs_factor_a == d.fs_factor_b) return out + "  The two factors are equal.\n";
    const bool a_up = d.fs_factor_a > d.fs_factor_b;
    return out + fmt::format(
                     "  Job {}'s association has used less of its share, so its factor "
                     "is the higher.\n",
                     a_up ? c.a->id : c.b->id);
  }
  const FairShareSide& up = d.a_ranks_first ? a : b;
  const FairShareSide& down = d.a_ranks_first ? b : a;
  out += fmt::format(
      "the two jobs' paths from the root part below {}. There {} (Level FS {}, {} of {}) "
      "ranks before {} (Level FS {}, {} of {}), so every user under {} gets a{} "
      "fair-share factor than every user under {}",
      d.ancestor == "root" ? "the root" : "account " + d.ancestor, side_name(up),
      level_fs_words(up.level_fs), ordinal(up.rank), up.siblings, side_name(down),
      level_fs_words(down.level_fs), ordinal(down.rank), down.siblings, side_name(up),
      d.tied ? "t least as high a" : " higher", side_name(down));
  out += d.tied ? " (their Level FS is equal: the one listed first goes first, and tied users "
                  "share a rank)"
                : "";
  out += fmt::format(": job {}'s factor is {:.6f}, job {}'s {:.6f}.\n", c.a->id, d.fs_factor_a,
                     c.b->id, d.fs_factor_b);
  return out;
}

json side_json(const std::optional<FairShareSide>& s) {
  if (!s) return nullptr;
  return {{"account", s->account},
          {"user", s->user.empty() ? json(nullptr) : json(s->user)},
          {"shares_norm", s->shares_norm},
          {"usage_efctv", static_cast<double>(s->usage_efctv)},
          {"level_fs", std::isinf(s->level_fs) ? json("inf")
                       : is_unset(s->level_fs) ? json(nullptr)
                                               : json(static_cast<double>(s->level_fs))},
          {"rank", s->rank},
          {"siblings", s->siblings},
          {"fairshare_parent", s->uses_parent}};
}

}  // namespace

std::string format_compare(const Comparison& c) {
  std::string out = fmt::format("Comparing {} with {}.\n", job_words(*c.a), job_words(*c.b));
  if (c.places.empty())
    out += fmt::format(
        "\nThey wait in no partition together (job {}: {}; job {}: {}): neither is ahead of "
        "the other.\n",
        c.a->id, state_words(*c.a), c.b->id, state_words(*c.b));
  for (const PairPlace& p : c.places) out += "\n" + place_words(c, p);
  return wrap(out + fair_share_words(c));
}

std::string format_compare_parsable(const Comparison& c) {
  std::string out = "Partition|Factor|JobA|JobB|Difference\n";
  for (const PairPlace& p : c.places) {
    for (Factor f : kFactors)
      out += fmt::format("{}|{}|{}|{}|{}\n", p.partition, factor_name(f), p.row_a->part(f),
                         p.row_b->part(f), p.row_a->part(f) - p.row_b->part(f));
    out += fmt::format("{}|priority|{}|{}|{}\n", p.partition, p.row_a->priority, p.row_b->priority,
                       static_cast<int64_t>(p.row_a->priority) - p.row_b->priority);
    out += fmt::format("{}|place|{}|{}|{}\n", p.partition, p.position_a, p.position_b,
                       static_cast<int64_t>(p.position_a) - static_cast<int64_t>(p.position_b));
  }
  out += "Side|Job|Ancestor|Account|User|NormShares|EffectvUsage|LevelFS|Rank|Siblings|FairShare\n";
  const FairShareDecision& d = c.fair_share;
  auto row = [&](const char* name, const PendingJob& j, const std::optional<FairShareSide>& s,
                 double f) {
    if (!s) return;
    out += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n", name, j.id, d.ancestor, s->account,
                       s->user, s->shares_norm, static_cast<double>(s->usage_efctv),
                       field(s->level_fs), s->rank, s->siblings, f);
  };
  row("a", *c.a, d.a, d.fs_factor_a);
  row("b", *c.b, d.b, d.fs_factor_b);
  return out;
}

std::string format_compare_json(const Comparison& c) {
  json places = json::array();
  for (const PairPlace& p : c.places) {
    json fa = json::object(), fb = json::object();
    for (Factor f : kFactors) {
      fa[factor_name(f)] = p.row_a->part(f);
      fb[factor_name(f)] = p.row_b->part(f);
    }
    places.push_back(
        {{"partition", p.partition},
         {"first", p.a_first ? c.a->id : c.b->id},
         {"position_a", p.position_a},
         {"position_b", p.position_b},
         {"of", p.of},
         {"priority_a", p.row_a->priority},
         {"priority_b", p.row_b->priority},
         {"factors_a", fa},
         {"factors_b", fb},
         {"separated_by", separated_by(p.separation)},
         {"difference", p.separation.by == Separation::By::kPriority ? json(p.separation.difference)
                                                                     : json(nullptr)}});
  }
  const FairShareDecision& d = c.fair_share;
  json fs = {{"algorithm", algorithm_name(d.algorithm)},
             {"same_association", d.same_association},
             {"ancestor", d.ancestor.empty() ? json(nullptr) : json(d.ancestor)},
             {"side_a", side_json(d.a)},
             {"side_b", side_json(d.b)},
             {"fs_factor_a", d.fs_factor_a},
             {"fs_factor_b", d.fs_factor_b},
             {"a_ranks_first", d.a_ranks_first},
             {"tied", d.tied},
             {"fairshare_tres_a", d.tres_a.empty() ? json(nullptr) : json(d.tres_a)},
             {"fairshare_tres_b", d.tres_b.empty() ? json(nullptr) : json(d.tres_b)}};
  json out = {{"job_a", c.a->id}, {"job_b", c.b->id}, {"places", places}, {"fair_share", fs}};
  return out.dump();
}

}  // namespace fairway
