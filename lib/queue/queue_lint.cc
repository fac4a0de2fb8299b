// queue_lint.cc - see queue_lint.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "queue_lint.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace fairway {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::vector<LintFinding> lint_queue(const Queue& q) {
  std::vector<LintFinding> out;
  const double fs_weight = q.settings.weight[Factor::kFairshare];
  const double age_weight = q.settings.weight[Factor::kAge];
  std::vector<double> fs;
  size_t rows = 0, aged = 0;
  for (const auto& j : q.jobs)
    for (const auto& r : j.rows) {
      if (r.admin) continue;
      rows++;
      if (fs_weight > 0) fs.push_back(r.factor[Factor::kFairshare] / fs_weight);
      if (age_weight > 0 && r.factor[Factor::kAge] >= age_weight * (1 - 1e-9)) aged++;
    }

  // Fair-share factors closer than one priority point.
  std::sort(fs.begin(), fs.end());
  double gap = 0;
  for (size_t i = 1; i < fs.size(); i++) {
    const double d = fs[i] - fs[i - 1];
    if (d > 1e-12 && (gap == 0 || d < gap)) gap = d;
  }
  if (gap > 0 && fs_weight * gap < 1)
    out.push_back({"PriorityWeightFairshare=" + number_text(fs_weight),
                   "the closest two different fair-share factors of the pending jobs are " +
                       number_text(gap) + " apart, " + number_text(fs_weight * gap) +
                       " priority points: those jobs get the same fair-share part",
                   "raise PriorityWeightFairshare to at least " + number_text(1 / gap)});

  // Age at its maximum for most of the queue.
  if (rows > 0 && aged * 2 > rows)
    out.push_back({"PriorityMaxAge=" + std::to_string(q.settings.max_age) + "s",
                   std::to_string(aged) + " of " + std::to_string(rows) +
                       " pending rows have the full age factor (PriorityWeightAge=" +
                       number_text(age_weight) + "), so age no longer orders them",
                   "raise PriorityMaxAge above the wait of most pending jobs"});
  return out;
}

}  // namespace fairway
