// Held usage: the fair-share input of fairway_usage=allocated|committed (see held_usage.h).
#include "held_usage.h"

#include <cmath>

namespace fairway {

const char* usage_basis_name(UsageBasis b) noexcept {
  switch (b) {
    case UsageBasis::kAllocated:
      return "allocated";
    case UsageBasis::kCommitted:
      return "committed";
    case UsageBasis::kHistorical:
      break;
  }
  return "historical";
}

std::optional<UsageBasis> parse_usage_basis(std::string_view name) noexcept {
  for (UsageBasis b : {UsageBasis::kHistorical, UsageBasis::kAllocated, UsageBasis::kCommitted})
    if (name == usage_basis_name(b)) return b;
  return std::nullopt;
}

long double held_by_job(UsageBasis basis, const RunningJob& job) noexcept {
  const auto usable = [](double v) { return std::isfinite(v) && v > 0; };
  if (basis == UsageBasis::kHistorical || !usable(job.charge_rate)) return 0;
  if (basis == UsageBasis::kAllocated) return job.charge_rate;
  if (!usable(job.remaining_seconds)) return 0;
  return static_cast<long double>(job.charge_rate) *
         static_cast<long double>(job.remaining_seconds);
}

std::vector<long double> held_direct(const AssocTree& tree, UsageBasis basis,
                                     std::span<const RunningJob> jobs, size_t* unknown) {
  std::vector<long double> direct(tree.size(), 0.0L);
  size_t missing = 0;
  for (const RunningJob& j : jobs) {
    const uint32_t i = tree.find(j.assoc_id);
    if (i == kNoIndex) {
      ++missing;
      continue;
    }
    direct[i] += held_by_job(basis, j);
  }
  if (unknown) *unknown = missing;
  return direct;
}

void hold_usage(AssocTree& tree, std::span<const long double> direct) {
  const std::vector<long double> total = subtree_totals(tree, direct);
  for (uint32_t i = 0; i < tree.size(); ++i) tree.set_usage(i, total[i]);
}

}  // namespace fairway
