// `fairway weights` in words (see weights_format.h).
#include "weights_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "words.h"

namespace fairway {
namespace {

using nlohmann::json;
using V = FactorUse::Verdict;

double share(size_t n, size_t of) { return of ? static_cast<double>(n) / of : 0.0; }

std::string verdict_words(const PartitionDecisions& d, const FactorUse& u) {
  switch (u.verdict) {
    case V::kDecides:
      return u.at_weight ? fmt::format("{} of {} jobs at its weight", u.at_weight, d.jobs) : "";
    case V::kSaturated:
      return fmt::format("saturated: every job at its weight ({}), it separates no one",
                         number_words(u.weight));
    case V::kConstant:
      return fmt::format("the same for every job ({}): it separates no one", number_words(u.min));
    case V::kDrowned:
      return fmt::format("drowned by {}: it varies by {}, {} by {} times as much",
                         factor_words(u.by), number_words(u.max - u.min), factor_words(u.by), [&] {
                           for (const FactorUse& o : d.factors)
                             if (o.factor == u.by)
                               return number_words((o.max - o.min) / (u.max - u.min));
                           return std::string("?");
                         }());
    case V::kNeverDecides:
      return "varies, but is never the largest difference between two neighbours";
    case V::kUnused:
      return "";
  }
  return "";
}

}  // namespace

const char* verdict_name(FactorUse::Verdict v) {
  switch (v) {
    case V::kDecides:
      return "decides";
    case V::kSaturated:
      return "saturated";
    case V::kConstant:
      return "constant";
    case V::kDrowned:
      return "drowned";
    case V::kNeverDecides:
      return "never_decides";
    case V::kUnused:
      return "unused";
  }
  return "?";
}

std::string format_weights(const std::vector<PartitionDecisions>& all) {
  if (all.empty()) return "No pending job is weighed: there is no order to explain.\n";
  std::string out;
  for (const PartitionDecisions& d : all) {
    out += fmt::format("{}Partition {} (PriorityTier {}): {} pending job{}, {} neighbour pair{}.\n",
                       out.empty() ? "" : "\n", d.partition, d.tier, d.jobs, d.jobs == 1 ? "" : "s",
                       d.pairs, d.pairs == 1 ? "" : "s");
    if (d.pairs == 0) continue;
    out += fmt::format("  {:<28}{:>7}{:>8}{:>8}{:>11}{:>11}{:>11}\n", "decided by", "pairs",
                       "share", "gaps", "weight", "min", "max");
    for (const FactorUse& u : d.factors) {
      if (u.verdict == V::kUnused) continue;
      out += fmt::format("  {:<28}{:>7}{:>7.1f}%{:>7.1f}%{:>11}{:>11}{:>11}\n",
                         factor_words(u.factor), u.decides, 100 * share(u.decides, d.pairs),
                         100 * gap_share(d, u), u.weight > 0 ? number_words(u.weight) : "-",
                         number_words(u.min), number_words(u.max));
    }
    const std::pair<const char*, size_t> others[] = {
        {"equal priority: submit time", d.by_submit_time},
        {"equal priority: job id", d.by_job_id},
        {"administrator's priority", d.by_admin},
        {"PriorityTier", d.by_tier}};
    for (const auto& [what, n] : others)
      if (n) out += fmt::format("  {:<28}{:>7}{:>7.1f}%\n", what, n, 100 * share(n, d.pairs));
    for (const FactorUse& u : d.factors)
      if (const std::string note = verdict_words(d, u); !note.empty())
        out += fmt::format("  {}: {}.\n", factor_words(u.factor), note);
    // The one sentence an administrator acts on: the factor behind most of the priority gaps
    // between jobs of different associations (a user's own jobs side by side, ordered by job
    // size or age, are no matter of policy).
    const FactorUse* top = nullptr;
    for (const FactorUse& u : d.factors)
      if (!top || u.gap > top->gap) top = &u;
    if (top && top->gap > 0)
      out += fmt::format(
          "  {} makes {:.0f}% of the priority gaps between neighbours of different "
          "associations ({} of the {} neighbour pairs {} jobs of two associations).",
          factor_words(top->factor), 100 * gap_share(d, *top), d.pairs_between, d.pairs,
          d.pairs_between == 1 ? "has" : "have");
    else if (d.pairs_between == 0)
      out +=
          "  No two neighbours of different associations are separated by a factor: the "
          "order between users is not the factors' doing.";
    for (const FactorUse& u : d.factors)
      if (u.verdict == V::kDrowned || u.verdict == V::kSaturated ||
          (u.verdict == V::kNeverDecides && u.weight > 0))
        out += fmt::format(" {} ({}) decides no pair.", factor_words(u.factor),
                           u.verdict == V::kDrowned     ? "drowned"
                           : u.verdict == V::kSaturated ? "saturated"
                                                        : "never decides");
    out += "\n";
  }
  return wrap(out);
}

std::string format_weights_parsable(const std::vector<PartitionDecisions>& all) {
  std::string out =
      "Partition|Jobs|Pairs|DecidedBy|Decisions|Share|Weight|Min|Max|AtWeight|Verdict|GapShare\n";
  for (const PartitionDecisions& d : all) {
    for (const FactorUse& u : d.factors)
      if (u.verdict != V::kUnused)
        out += fmt::format("{}|{}|{}|{}|{}|{:.4f}|{}|{}|{}|{}|{}|{:.4f}\n", d.partition, d.jobs,
                           d.pairs, factor_name(u.factor), u.decides, share(u.decides, d.pairs),
                           u.weight, u.min, u.max, u.at_weight,
                           u.verdict == V::kDrowned ? std::string("drowned:") + factor_name(u.by)
                                                    : std::string(verdict_name(u.verdict)),
                           gap_share(d, u));
    const std::pair<const char*, size_t> others[] = {{"tier", d.by_tier},
                                                     {"submit_time", d.by_submit_time},
                                                     {"job_id", d.by_job_id},
                                                     {"admin", d.by_admin}};
    for (const auto& [what, n] : others)
      // Weight, Min, Max, AtWeight, Verdict and GapShare belong to factors: empty.
      out += fmt::format("{}|{}|{}|{}|{}|{:.4f}||||||\n", d.partition, d.jobs, d.pairs, what, n,
                         share(n, d.pairs));
  }
  return out;
}

std::string format_weights_json(const std::vector<PartitionDecisions>& all) {
  json out = json::array();
  for (const PartitionDecisions& d : all) {
    json factors = json::array();
    for (const FactorUse& u : d.factors) {
      json f = {{"factor", factor_name(u.factor)},
                {"weight", u.weight},
                {"min", u.min},
                {"max", u.max},
                {"at_weight", u.at_weight},
                {"decides", u.decides},
                {"decides_between_associations", u.decides_between},
                {"gap", u.gap},
                {"gap_share", gap_share(d, u)},
                {"verdict", verdict_name(u.verdict)}};
      if (u.verdict == V::kDrowned) f["drowned_by"] = factor_name(u.by);
      factors.push_back(f);
    }
    out.push_back({{"partition", d.partition},
                   {"tier", d.tier},
                   {"jobs", d.jobs},
                   {"pairs", d.pairs},
                   {"factors", factors},
                   {"by_tier", d.by_tier},
                   {"by_submit_time", d.by_submit_time},
                   {"by_job_id", d.by_job_id},
                   {"by_admin", d.by_admin},
                   {"pairs_between_associations", d.pairs_between},
                   {"gap_total", d.gap_total}});
  }
  return out.dump();
}

}  // namespace fairway
