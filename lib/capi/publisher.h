// publisher.h - what publishing keeps from one period of the plugin to the next
// (fairway_publisher_t, fairway_publish.h), and the decisions the period's end takes from the
// plugin's notes: which rows and jobs go out, whether the queue does, the ties and failures
// told once per episode.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fairway_publish.h"
#include "job_starts.h"

// A started job as noted, owning its names.
struct fairway_started_copy {
  fairway_started_job_t job;
  std::string user, account, partition;
};

struct fairway_publisher {
  std::map<uint32_t, int64_t> starved;        // association id -> when its episode started
  fairway::PeriodOrder last;                  // the last period's pending order (job starts)
  std::string shadow_problem;                 // what stopped the shadow policy last, or empty
  fairway_publish_plan_t plan{};              // what this period notes
  uint64_t last_jobs = 0;                     // pending jobs the last period noted
  bool queue_over_told = false;               // more jobs than fairway_queue_jobs, told
  int64_t last_walk = 0;                      // when the last published period's walk began
  std::vector<uint32_t> prev_ids;             // the jobs it weighed, sorted
  std::vector<fairway_started_copy> started;  // jobs started since
  std::optional<std::string> last_failure;    // the failure told last
  // fairway_fairshare_tres: each listed TRES's name and tie, as last told.
  std::array<std::optional<std::string>, FAIRWAY_MAX_FAIRSHARE_TRES> tie_name;
  std::array<int, FAIRWAY_MAX_FAIRSHARE_TRES> tie{};
};

namespace fairway {

// The lanes' rows in lane order with partitions and QOS by index in the copies (a row whose
// partition is not among N's addresses is left out), and with QUEUE each job's detail by its
// place in gather_jobs' array.
std::vector<fairway_pending_row_t> gather_rows(const fairway_period_notes_t& n,
                                               const fairway_publication_t& p, bool queue);

// The lanes' job details and TRES factors, each in one array (tres_at moved along); a job's
// fair-share TRES is dropped when P has none.
void gather_jobs(const fairway_period_notes_t& n, const fairway_publication_t& p,
                 std::vector<fairway_pending_job_t>& jobs, std::vector<double>& tres);

}  // namespace fairway
