// job_starts_format.cc - see job_starts_format.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "job_starts_format.h"

#include <fmt/format.h>

#include <ctime>
#include <utility>

#include "words.h"

namespace fairway {

std::string format_start(const StartRecord& r) {
  const StartedJob& j = r.job;
  std::string out = fmt::format(
      "Job {} (user {}, account {}) started {} in partition {}, {} after its submission.\n",
      j.job_id, j.user, j.account, local_time_text(j.start_time), j.partition,
      duration_words(static_cast<double>(j.start_time - j.submit_time)));
  if (!r.order_time) {
    out +=
        "It was in no order Fairway computed before it started (it started before the next "
        "period weighed it).\n";
  } else {
    out += fmt::format(
        "In the last order before it started (the period of {}) it was {} of {} pending jobs "
        "in {}, with priority {}",
        local_time_text(r.order_time), ordinal(r.place), r.of, r.order_partition, j.priority);
    if (j.has_factors) {
      std::string parts;
      for (Factor f : kFactors)
        if (f != Factor::kTres && f != Factor::kNice && j.factors[f] != 0)
          parts += fmt::format("{}{} {}", parts.empty() ? "" : " + ", factor_info(f).term,
                               number_words(j.factors[f]));
      if (const double nice = j.factors[Factor::kNice]; nice != 0)
        parts += fmt::format(" - {} {}", factor_info(Factor::kNice).term, number_words(nice));
      if (!parts.empty()) out += ": " + parts;
    }
    out += ".\n";
    if (r.passed == 0) {
      out += "No job that was ahead of it then is still waiting: it started in its turn.\n";
    } else {
      std::string ids;
      for (uint32_t id : r.passed_jobs) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
      out += fmt::format(
          "It started before {} job{} that {} ahead of it then and still wait{} ({}{}): they "
          "could not start when it could (backfill fills gaps with jobs that fit; a limit, "
          "a reservation or their size holds the others).\n",
          r.passed, r.passed == 1 ? "" : "s", r.passed == 1 ? "was" : "were",
          r.passed == 1 ? "s" : "", ids, r.passed > r.passed_jobs.size() ? ", ..." : "");
    }
    if (r.earlier_waiting)
      out += fmt::format("{} job{} submitted before it to {} still wait{}.\n", r.earlier_waiting,
                         r.earlier_waiting == 1 ? "" : "s", r.order_partition,
                         r.earlier_waiting == 1 ? "s" : "");
  }
  return out;
}

std::string format_start_parsable(const StartRecord& r) {
  std::string ids;
  for (uint32_t id : r.passed_jobs) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  return fmt::format(
      "Job|User|Account|Partition|Submit|Start|Priority|OrderTime|Place|Of|Passed|PassedJobs|"
      "EarlierWaiting\n{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n",
      r.job.job_id, r.job.user, r.job.account, r.job.partition, local_time_text(r.job.submit_time),
      local_time_text(r.job.start_time), r.job.priority,
      r.order_time ? local_time_text(r.order_time) : std::string(), r.place, r.of, r.passed, ids,
      r.earlier_waiting);
}

}  // namespace fairway
