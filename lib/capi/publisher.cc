// publisher.cc - the plugin's period at its end (fairway_publish.h: fairway_publisher_begin,
// _weighed, _note_start, _tell_ties, _end), see publisher.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "publisher.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "api_guard.h"
#include "error.h"

namespace fairway {

std::vector<fairway_pending_row_t> gather_rows(const fairway_period_notes_t& n,
                                               const fairway_publication_t& p, bool queue) {
  if (!n.partition_at && p.partition_count) invalid("fairway_publisher_end: NULL partitions");
  if (!n.qos_ids && p.qos_count) invalid("fairway_publisher_end: NULL QOS ids");
  // The partitions by address.
  std::vector<std::pair<const void*, uint32_t>> at(p.partition_count);
  for (uint32_t i = 0; i < p.partition_count; i++) at[i] = {n.partition_at[i], i};
  std::sort(at.begin(), at.end(), [](const auto& a, const auto& b) {
    return reinterpret_cast<uintptr_t>(a.first) < reinterpret_cast<uintptr_t>(b.first);
  });
  std::vector<fairway_pending_row_t> rows;
  size_t job_base = 0;
  for (size_t l = 0; l < n.lane_count; l++) {
    const fairway_lane_t& lane = *n.lanes[l];
    for (size_t i = 0; i < lane.n; i++) {
      const fairway_note_t& note = lane.rows[i];
      auto found =
          std::lower_bound(at.begin(), at.end(), note.part, [](const auto& a, const void* part) {
            return reinterpret_cast<uintptr_t>(a.first) < reinterpret_cast<uintptr_t>(part);
          });
      if (found == at.end() || found->first != note.part) continue;
      fairway_pending_row_t r{};
      r.partition = found->second;
      r.qos = UINT32_MAX;
      for (size_t q = 0; note.qos_id && q < p.qos_count; q++)
        if (n.qos_ids[q] == note.qos_id) {
          r.qos = static_cast<uint32_t>(q);
          break;
        }
      r.priority = note.priority;
      r.first = note.first;
      r.submit_time = note.submit;
      r.assoc_id = note.assoc_id;
      r.job_id = note.job_id;
      r.eligible_time = note.eligible;
      r.waits_for_resources = note.resources;
      r.job = (!queue || note.job == UINT32_MAX) ? UINT32_MAX
                                                 : static_cast<uint32_t>(job_base + note.job);
      rows.push_back(r);
    }
    job_base += lane.njobs;
  }
  return rows;
}

void gather_jobs(const fairway_period_notes_t& n, const fairway_publication_t& p,
                 std::vector<fairway_pending_job_t>& jobs, std::vector<double>& tres) {
  jobs.clear();
  tres.clear();
  for (size_t l = 0; l < n.lane_count; l++) {
    const fairway_lane_t& lane = *n.lanes[l];
    const size_t t = tres.size();
    for (size_t i = 0; i < lane.njobs; i++) {
      fairway_pending_job_t j = lane.jobv[i];
      if (j.tres_at != SIZE_MAX) j.tres_at += t;
      // The listed TRES could not be copied (changed since the walk): none judged.
      if (!p.fairshare_tres_count) j.fairshare_tres = 0;
      jobs.push_back(j);
    }
    tres.insert(tres.end(), lane.tres, lane.tres + lane.ntres);
  }
}

}  // namespace fairway

namespace {

void tell(fairway_message_fn say, void* arg, const std::string& line) {
  if (say) say(line.c_str(), arg);
}

}  // namespace

namespace fairway {

void outcome(fairway_publisher* pub, const char* where, const char* failure, fairway_message_fn say,
             fairway_message_fn say_error, void* arg) {
  const std::string dir = where ? where : "";
  if (!failure) {
    if (pub->last_failure) tell(say, arg, "fair-share published to " + dir + " again");
    pub->last_failure.reset();
    return;
  }
  if (pub->last_failure == std::string(failure)) return;
  tell(say_error, arg,
       "fair-share not published to " + dir + ": " + failure +
           "; priorities are not affected, retried every period");
  pub->last_failure = failure;
}

}  // namespace fairway

namespace {

using fairway::outcome;

enum { kTieNone, kTieJobs, kTieUnused };

// Whether the queue's details go out: every job's were noted (not with more jobs than
// fairway_queue_jobs, told once per episode) and the TRES weights' names were copied.
bool queue_published(fairway_publisher* pub, const fairway_publish_settings_t& s,
                     const fairway_publication_t& p, bool over, fairway_message_fn say, void* arg) {
  bool queue = pub->plan.queue != 0;
  if (s.metrics_dir && s.queue_jobs && (pub->last_jobs > s.queue_jobs || over)) {
    queue = false;
    if (!pub->queue_over_told)
      tell(say, arg,
           std::to_string(pub->last_jobs) +
               " pending jobs, more than fairway_queue_jobs=" + std::to_string(s.queue_jobs) +
               ": " + s.metrics_dir + "/fairway.json holds the association tree only" +
               (p.shadow_file ? " and the shadow policy is not weighed" : "") +
               " until they are fewer");
    pub->queue_over_told = true;
  } else if (queue) {
    pub->queue_over_told = false;
  }
  return queue && !(s.queue_tres && !p.tres_names);
}

}  // namespace

extern "C" fairway_error_t fairway_publisher_begin(fairway_publisher_t* pub,
                                                   const fairway_publish_settings_t* s,
                                                   fairway_publish_plan_t* out) {
  return fairway::guard([&] {
    if (!s || !out) fairway::invalid("fairway_publisher_begin: NULL settings or out");
    fairway_publish_plan_t plan{};
    plan.rows = s->metrics_dir || s->history_days || s->starvation_minutes;
    plan.tally = s->fairshare_tres_count && s->fair_share;
    plan.last_walk = pub ? pub->last_walk : 0;
    plan.starts = s->history_days && plan.last_walk;
    // Not while the last period had more jobs than the queue may hold: they would be noted
    // under the job lock only to be dropped.
    plan.queue = s->metrics_dir && s->queue_jobs && (!pub || pub->last_jobs <= s->queue_jobs);
    plan.ids = plan.rows && (s->history_days || s->starvation_minutes || plan.queue);
    *out = plan;
    if (!pub) return;
    pub->plan = plan;
    pub->started.clear();  // only this period's walk (not a reconfigure's)
    fairway::lanes_begin(*pub, plan, s->queue_jobs, s->queue_tres);
    pub->copies.part_at.clear();
    pub->copies.part_names.clear();
    pub->copies.part_info.clear();
  });
}

bool fairway::publisher_weighed(const fairway_publisher* pub, uint32_t job_id) noexcept {
  return pub && std::binary_search(pub->prev_ids.begin(), pub->prev_ids.end(), job_id);
}

extern "C" int fairway_publisher_started_since(const fairway_publisher_t* pub, uint32_t job_id,
                                               int64_t start_time, int64_t now) {
  if (!pub || start_time < pub->plan.last_walk || start_time > now) return 0;
  return start_time > pub->plan.last_walk || fairway::publisher_weighed(pub, job_id);
}

extern "C" fairway_error_t fairway_publisher_note_start(fairway_publisher_t* pub,
                                                        const fairway_started_job_t* job) {
  return fairway::guard([&] {
    if (!pub || !job) fairway::invalid("fairway_publisher_note_start: NULL publisher or job");
    fairway_started_copy& c = pub->started.emplace_back();
    c.job = *job;
    c.user = job->user ? job->user : "";
    c.account = job->account ? job->account : "";
    c.partition = job->partition ? job->partition : "";
  });
}

extern "C" fairway_error_t fairway_publisher_tell_ties(fairway_publisher_t* pub,
                                                       const fairway_publish_settings_t* s,
                                                       const fairway_lane_t* const* lanes,
                                                       size_t lane_count, fairway_unused_fn unused,
                                                       fairway_message_fn say, void* arg) {
  return fairway::guard([&] {
    if (!pub || !s) fairway::invalid("fairway_publisher_tell_ties: NULL publisher or settings");
    const fairway_lane_t* own[FAIRWAY_MAX_WEIGH_THREADS];
    if (!lanes) {
      for (size_t l = 0; l < FAIRWAY_MAX_WEIGH_THREADS; l++) own[l] = &pub->lanes[l].l;
      lanes = own;
      lane_count = FAIRWAY_MAX_WEIGH_THREADS;
    }
    if (!s->fairshare_tres && s->fairshare_tres_count)
      fairway::invalid("fairway_publisher_tell_ties: NULL TRES names");
    uint64_t jobs = 0;
    for (size_t l = 0; l < lane_count; l++) jobs += lanes[l]->tally_jobs;
    for (size_t k = 0; k < FAIRWAY_MAX_FAIRSHARE_TRES; k++) {
      std::optional<std::string> name;
      if (pub->plan.tally && k < s->fairshare_tres_count && s->fairshare_tres[k])
        name = s->fairshare_tres[k];
      if (name != pub->tie_name[k]) {  // another list
        pub->tie_name[k] = name;
        pub->tie[k] = kTieNone;
      }
      if (!name) continue;
      uint64_t judged = 0;
      bool differ = false;
      double f = 0;
      for (size_t l = 0; l < lane_count; l++) {
        const fairway_lane_t& ln = *lanes[l];
        if (!ln.tres_jobs[k]) continue;
        if (!judged)
          f = ln.tres_factor[k];
        else if (ln.tres_factor[k] != f)
          differ = true;
        differ |= ln.tres_differ[k] != 0;
        judged += ln.tres_jobs[k];
      }
      int tie = kTieNone;
      if (jobs > 1 && judged == jobs && !differ)
        tie = kTieJobs;
      else if (judged && unused && unused(k, arg))  // a job it ties
        tie = kTieUnused;
      if (tie == pub->tie[k]) continue;
      const std::string& t = *name;
      if (tie == kTieJobs) {
        char factor[64];
        std::snprintf(factor, sizeof factor, "%.6f", f);
        tell(say, arg,
             "fairway_fairshare_tres: every pending job (" + std::to_string(jobs) +
                 ") is judged by its share of " + t + ", and all get fair-share factor " + factor +
                 ": fair-share orders none of them (a default a job is given, such as "
                 "DefMemPerCPU or DefMemPerNode for mem, counts as asked for)");
      } else if (tie == kTieUnused) {
        tell(say, arg,
             "fairway_fairshare_tres: no association has used " + t +
                 ": every job judged by its share of " + t + " gets the same fair-share factor");
      } else {
        tell(say, arg, "fairway_fairshare_tres: " + t + " tells jobs apart again");
      }
      pub->tie[k] = tie;
    }
  });
}

fairway_error_t fairway::publisher_end(fairway_publisher* pub, const fairway_publish_settings_t* s,
                                       const fairway_period_notes_t* n, fairway_publication_t* p,
                                       fairway_message_fn say, fairway_message_fn say_error,
                                       void* arg) {
  fairway_error_t published = FAIRWAY_OK;
  const fairway_error_t err = fairway::guard([&] {
    if (!pub || !s || !n || !p) fairway::invalid("fairway_publisher_end: NULL argument");
    if (!n->lanes && n->lane_count) fairway::invalid("fairway_publisher_end: NULL lanes");
    if (!p->assoc_count) {
      outcome(pub, n->where, "no association tree (is slurmdbd reachable?)", say, say_error, arg);
      pub->started.clear();
      return;
    }
    uint64_t noted = 0;
    bool over = false;
    for (size_t l = 0; l < n->lane_count; l++) {
      noted += n->lanes[l]->jobs;
      over |= n->lanes[l]->over != 0;
    }
    pub->last_jobs = noted;
    const bool queue = queue_published(pub, *s, *p, over, say, arg);
    std::vector<fairway_pending_job_t> jobs;
    std::vector<double> tres;
    if (queue) {
      fairway::gather_jobs(*n, *p, jobs, tres);
      jobs.reserve(jobs.size() + 1);  // an empty queue is a queue still (not NULL)
    }
    const std::vector<fairway_pending_row_t> rows = fairway::gather_rows(*n, *p, queue);
    std::vector<fairway_started_job_t> started;
    for (fairway_started_copy& c : pub->started) {
      c.job.user = c.user.c_str();
      c.job.account = c.account.c_str();
      c.job.partition = c.partition.c_str();
      started.push_back(c.job);
    }
    p->jobs = queue ? jobs.data() : nullptr;
    p->job_count = jobs.size();
    p->tres_values = tres.data();
    p->tres_value_count = tres.size();
    p->rows = rows.data();
    p->row_count = rows.size();
    p->started = started.data();
    p->started_count = started.size();
    p->jobs_weighed = pub->last_jobs;
    published = fairway_publish(pub, p, say, arg);
    const std::string failure = published == FAIRWAY_OK ? "" : fairway_last_error();
    outcome(pub, n->where, published == FAIRWAY_OK ? nullptr : failure.c_str(), say, say_error,
            arg);
    // After a failure the next period notes the starts since this period's predecessor
    // again: none is lost.
    // Rows without ids leave no order to count starts from: the history, turned on later,
    // begins with the period after.
    if (published == FAIRWAY_OK) {
      pub->prev_ids.clear();
      if (pub->plan.ids)
        for (const fairway_pending_row_t& r : rows)
          if (r.first) pub->prev_ids.push_back(r.job_id);
      std::sort(pub->prev_ids.begin(), pub->prev_ids.end());
      pub->last_walk = pub->plan.ids ? n->walk : 0;
    }
    pub->started.clear();
    p->jobs = nullptr;
    p->tres_values = nullptr;
    p->rows = nullptr;
    p->started = nullptr;
    p->job_count = p->tres_value_count = p->row_count = p->started_count = 0;
  });
  return err != FAIRWAY_OK ? err : published;
}
