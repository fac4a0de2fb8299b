// `fairway whatif` in words (see whatif_format.h).
#include "whatif_format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "words.h"

namespace fairway {
namespace {

using nlohmann::json;

long long delta(size_t before, size_t after) {
  return static_cast<long long>(before) - static_cast<long long>(after);
}

}  // namespace

std::string format_whatif(const WhatIf& w, size_t top) {
  std::string out;
  if (w.partitions.empty()) out += "No pending job is weighed: no order to change.\n";
  for (const PartitionMoves& m : w.partitions) {
    out += fmt::format(
        "{}Partition {}: {} of {} pending job{} change place; rank correlation of "
        "the two orders {:.4f}.\n",
        out.empty() ? "" : "\n", m.partition, m.moved, m.jobs, m.jobs == 1 ? "" : "s", m.spearman);
    if (!m.moved) continue;
    out += fmt::format("  {:>10}  {:<12}{:<16}{:>12}{:>12}{:>8}{:>8}{:>8}\n", "job", "user",
                       "account", "priority", "after", "place", "after", "moves");
    size_t shown = 0;
    for (const JobMove& mv : m.jobs_by_move) {
      if (mv.place_before == mv.place_after || shown == top) break;
      ++shown;
      const long long d = delta(mv.place_before, mv.place_after);
      out += fmt::format("  {:>10}  {:<12}{:<16}{:>12}{:>12}{:>8}{:>8}{:>8}\n", mv.job->id,
                         mv.job->user, mv.job->account, mv.priority_before, mv.priority_after,
                         mv.place_before, mv.place_after,
                         d > 0 ? fmt::format("+{}", d) : fmt::format("{}", d));
    }
    if (m.moved > shown)
      out += fmt::format("  ({} more move; -P lists every job)\n", m.moved - shown);
  }
  if (w.associations.empty()) {
    out += "\nNo association's fair-share factor changes.\n";
  } else {
    out += fmt::format("\nFair-share factors that change ({} association{}):\n",
                       w.associations.size(), w.associations.size() == 1 ? "" : "s");
    out += fmt::format("  {:<28}{:>12}{:>12}{:>12}\n", "account/user", "before", "after", "change");
    size_t shown = 0;
    for (const AssocChange& a : w.associations) {
      if (shown++ == top) {
        out += fmt::format("  ({} more; -P lists them all)\n", w.associations.size() - top);
        break;
      }
      out += fmt::format("  {:<28}{:>12.6f}{:>12.6f}{:>+12.6f}\n",
                         a.user.empty() ? a.account : a.account + " / " + a.user, a.before, a.after,
                         a.after - a.before);
    }
  }
  return out;
}

std::string format_whatif_parsable(const WhatIf& w) {
  std::string out =
      "Partition|Job|User|Account|PriorityBefore|PriorityAfter|PlaceBefore|PlaceAfter\n";
  for (const PartitionMoves& m : w.partitions)
    for (const JobMove& mv : m.jobs_by_move)
      out += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}\n", m.partition, mv.job->id, mv.job->user,
                         mv.job->account, mv.priority_before, mv.priority_after, mv.place_before,
                         mv.place_after);
  out += "Account|User|FairShareBefore|FairShareAfter\n";
  for (const AssocChange& a : w.associations)
    out += fmt::format("{}|{}|{}|{}\n", a.account, a.user, a.before, a.after);
  return out;
}

}  // namespace fairway
