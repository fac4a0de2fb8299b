// queue_fixtures.h - pending jobs and their sprio rows built in one line, for the tests of the
// queue commands (explain, compare, weights, whatif).
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "queue.h"

namespace fairway::test {

// A row in partition `part` with priority `prio` and the given weighted age, fair-share and
// job-size parts.
inline FactorRow factor_row(const std::string& part, uint32_t prio, double age, double fs,
                            double js = 0) {
  FactorRow r;
  r.partition = part;
  r.priority = prio;
  r.factor[Factor::kAge] = age;
  r.factor[Factor::kFairshare] = fs;
  r.factor[Factor::kJobSize] = js;
  return r;
}

// A job of association `assoc` (user "u<assoc>", account "a"), submitted and accruing age
// from `submit`, with these rows; its priority is its first row's.
inline PendingJob pending_job(uint32_t id, uint32_t assoc, time_t submit,
                              std::vector<FactorRow> rows) {
  PendingJob j;
  j.id = id;
  j.assoc_id = assoc;
  j.user = "u" + std::to_string(assoc);
  j.account = "a";
  for (const auto& r : rows) j.partitions.push_back(r.partition);
  j.submit_time = submit;
  j.accrue_time = submit;
  j.priority = rows.empty() ? 0 : rows[0].priority;
  j.rows = std::move(rows);
  return j;
}

}  // namespace fairway::test
