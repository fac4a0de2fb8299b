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
#include "forecast.h"
#include "job_starts.h"

// A started job as noted, owning its names.
struct fairway_started_copy {
  fairway_started_job_t job;
  std::string user, account, partition;
};

// One of the publisher's own lanes, a cache line apart from the next one (each weighing
// thread writes its own).
struct alignas(64) fairway_own_lane {
  fairway_lane_t l{};
};

// What the period's end copied under the locks, one record per call.
struct fairway_publisher_copies {
  std::vector<const void*> part_at;
  std::vector<std::optional<std::string>> part_names;
  std::vector<fairway_partition_info_t> part_info;
  uint32_t cluster_cpus = 0, cluster_nodes = 0;
  std::vector<fairway_assoc_t> assocs;  // names in assoc_names, pointed to at the end
  std::vector<std::optional<std::string>> assoc_names;  // account, user of each
  std::vector<long double> tres_usage;                  // [i * fairshare_tres + k]
  std::vector<uint32_t> qos_ids;
  std::vector<std::optional<std::string>> qos_names;
  std::vector<fairway_qos_info_t> qos_info;
  std::optional<std::vector<std::optional<std::string>>> tres;  // the weights' TRES names
  std::vector<std::optional<std::string>> fairshare_tres;
  bool with_usage = false;
  std::array<std::optional<std::vector<fairway_running_job_t>>, FAIRWAY_MAX_FAIRSHARE_TRES> running;
  bool failed = false;  // a copy ran out of memory
};

struct fairway_publisher {
  std::map<uint32_t, int64_t> starved;        // association id -> when its episode started
  fairway::PeriodOrder last;                  // the last period's pending order (job starts)
  fairway::FirstPlaces first;                 // each pending job's first place (forecast)
  std::vector<fairway::WaitSample> samples;   // the forecast's window of starts
  bool samples_read = false;                  // the journal's recent starts read into samples
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
  std::array<fairway_own_lane, FAIRWAY_MAX_WEIGH_THREADS> lanes;  // freed by the destroy
  fairway_publisher_copies copies;
};

// The period's notes and what was copied with them, at its end.
struct fairway_period_notes_t {
  const fairway_lane_t* const* lanes;
  size_t lane_count;
  const void* const* partition_at;  // the partitions' addresses, parallel to the
                                    // publication's partitions
  const uint32_t* qos_ids;          // parallel to the publication's qos
  int64_t walk;                     // when the period's walk began
  const char* where;                // the directory the failure lines name
};

namespace fairway {

// Whether the last published period weighed job_id (a pending job then); false for a NULL pub.
bool publisher_weighed(const fairway_publisher* pub, uint32_t job_id) noexcept;

// The period's end (fairway_publisher_finish's, from the publisher's own lanes and copies): p
// holds the copies (no association: none could be copied) and the settings, not yet the rows,
// jobs, started jobs or jobs weighed: those come from n and pub.  Whether the queue goes out
// is decided (told through say once per episode of more jobs than queue_jobs),
// fairway_publish runs, a failure is told through say_error when it starts or changes and
// through say when it ends, and on success pub keeps the jobs weighed and n->walk for the
// next period's starts.  The started jobs noted are dropped.  Returns FAIRWAY_EINVAL (NULL
// pub, s, n or p) or what fairway_publish returns (told).
fairway_error_t publisher_end(fairway_publisher* pub, const fairway_publish_settings_t* s,
                              const fairway_period_notes_t* n, fairway_publication_t* p,
                              fairway_message_fn say, fairway_message_fn say_error, void* arg);

// The lanes' rows in lane order with partitions and QOS by index in the copies (a row whose
// partition is not among N's addresses is left out), and with QUEUE each job's detail by its
// place in gather_jobs' array.
std::vector<fairway_pending_row_t> gather_rows(const fairway_period_notes_t& n,
                                               const fairway_publication_t& p, bool queue);

// The lanes' job details and TRES factors, each in one array (tres_at moved along); a job's
// fair-share TRES is dropped when P has none.
// A failure told through say_error when it starts or changes (NULL: none, its end told
// through say); where names the directory.
void outcome(fairway_publisher* pub, const char* where, const char* failure, fairway_message_fn say,
             fairway_message_fn say_error, void* arg);

// Empty pub's own lanes for a period that notes what plan says, up to queue_jobs jobs with
// queue_tres TRES factors each.
void lanes_begin(fairway_publisher& pub, const fairway_publish_plan_t& plan, uint32_t queue_jobs,
                 size_t queue_tres);
// Free the arrays of pub's own lanes.
void lanes_free(fairway_publisher& pub);

void gather_jobs(const fairway_period_notes_t& n, const fairway_publication_t& p,
                 std::vector<fairway_pending_job_t>& jobs, std::vector<double>& tres);

}  // namespace fairway
