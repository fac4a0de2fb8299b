// publisher_period.cc - the plugin's period with the lanes and copies its publisher keeps
// (fairway_publish.h: fairway_publisher_lane, fairway_lane_note, fairway_lane_tally, the
// copies made under the locks, fairway_publisher_finish), see publisher.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include "api_guard.h"
#include "error.h"
#include "publisher.h"

static_assert(sizeof(fairway_note_t) <= 40, "a row stays 40 bytes");

namespace {

// Make room for `more` elements in array a of n, grown by a quarter plus `step` at a time
// (never shrunk).
template <typename T>
void reserve(T*& a, size_t n, size_t& cap, size_t more, size_t step) {
  if (n + more <= cap) return;
  const size_t grown = cap + cap / 4 + step;
  void* p = std::realloc(a, grown * sizeof(T));
  if (!p) throw std::bad_alloc();
  a = static_cast<T*>(p);
  cap = grown;
}

// The lane's detail of job: its index, UINT32_MAX when not noted.
uint32_t note_detail(fairway_lane_t& l, const fairway_job_note_t& job) {
  if (!l.plan.queue || l.over || !job.detail) return UINT32_MAX;
  if (l.njobs >= l.queue_jobs) {
    l.over = 1;
    return UINT32_MAX;
  }
  reserve(l.jobv, l.njobs, l.jobs_cap, 1, 1024);  // grows with the queue
  // The lane's memory is cold after the seconds between two periods: ask for the lines a
  // few jobs ahead while this one is written.
  if (l.njobs + 8 < l.jobs_cap) __builtin_prefetch(&l.jobv[l.njobs + 8], 1);
  fairway_pending_job_t& j = l.jobv[l.njobs];
  j = *job.detail;
  j.tres_at = SIZE_MAX;
  if (l.queue_tres && job.tres) {
    reserve(l.tres, l.ntres, l.tres_cap, l.queue_tres, 1024 * l.queue_tres);
    std::memcpy(l.tres + l.ntres, job.tres, l.queue_tres * sizeof(double));
    j.tres_at = l.ntres;
    l.ntres += l.queue_tres;
  }
  return static_cast<uint32_t>(l.njobs++);
}

inline void note_row(fairway_lane_t& l, const fairway_note_t& row, const void* part,
                     uint32_t priority, bool first) {
  reserve(l.rows, l.n, l.cap, 1, 1024);  // grows with the queue, never shrinks
  fairway_note_t& n = l.rows[l.n++];
  if (l.n + 16 < l.cap) __builtin_prefetch(&l.rows[l.n + 16], 1);
  n = row;
  n.part = part;
  n.priority = priority;
  n.first = first;
}

const char* c_str(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

std::optional<std::string> copy(const char* s) {
  return s ? std::optional<std::string>(s) : std::nullopt;
}

// Run a copy into pub; one that runs out of memory fails the period's publishing.
template <typename Fn>
fairway_error_t copying(fairway_publisher_t* pub, const void* record, Fn&& fn) {
  return fairway::guard([&] {
    if (!pub || !record) fairway::invalid("fairway_publisher: NULL publisher or record");
    try {
      fn(pub->copies);
    } catch (const std::bad_alloc&) {
      pub->copies.failed = true;
      throw;
    }
  });
}

}  // namespace

namespace fairway {

void lanes_begin(fairway_publisher& pub, const fairway_publish_plan_t& plan, uint32_t queue_jobs,
                 size_t queue_tres) {
  for (fairway_own_lane& own : pub.lanes) {
    fairway_lane_t& l = own.l;
    l.n = l.jobs = l.njobs = l.ntres = l.tally_jobs = 0;
    l.over = 0;
    std::memset(l.tres_jobs, 0, sizeof(l.tres_jobs));
    std::memset(l.tres_differ, 0, sizeof(l.tres_differ));
    l.plan = plan;
    l.queue_jobs = queue_jobs;
    l.queue_tres = queue_tres;
  }
}

void lanes_free(fairway_publisher& pub) {
  for (fairway_own_lane& own : pub.lanes) {
    std::free(own.l.rows);
    std::free(own.l.jobv);
    std::free(own.l.tres);
    own.l = fairway_lane_t{};
  }
}

}  // namespace fairway

extern "C" const fairway_publish_plan_t* fairway_publisher_plan(const fairway_publisher_t* pub) {
  return pub ? &pub->plan : nullptr;
}

extern "C" fairway_lane_t* fairway_publisher_lane(fairway_publisher_t* pub, size_t k) {
  return (pub && k < FAIRWAY_MAX_WEIGH_THREADS) ? &pub->lanes[k].l : nullptr;
}

extern "C" fairway_error_t fairway_lane_note(fairway_lane_t* l, const fairway_job_note_t* job) {
  return fairway::guard([&] {
    if (!l || !job) fairway::invalid("fairway_lane_note: NULL lane or job");
    fairway_note_t row = job->row;
    row.job = note_detail(*l, *job);
    l->jobs++;
    if (job->nparts <= 0) {
      note_row(*l, row, row.part, job->priority, true);
      return;
    }
    for (int p = 0; p < job->nparts; p++) {
      uint32_t best = job->priority;
      if (job->prio) {
        const uint32_t* at = job->prio + static_cast<size_t>(p) * job->nqos;
        best = at[0];
        for (int q = 1; q < job->nqos; q++)
          if (at[q] > best) best = at[q];
      }
      note_row(*l, row, job->parts[p], best, p == 0);
    }
  });
}

extern "C" void fairway_lane_tally(fairway_lane_t* l, int k, double factor) {
  if (!l) return;
  l->tally_jobs++;
  if (k < 0 || k >= FAIRWAY_MAX_FAIRSHARE_TRES) return;
  if (!l->tres_jobs[k]++)
    l->tres_factor[k] = factor;
  else if (factor != l->tres_factor[k])
    l->tres_differ[k] = 1;
}

extern "C" fairway_error_t fairway_publisher_partitions_begin(fairway_publisher_t* pub,
                                                              uint32_t cpus, uint32_t nodes) {
  return copying(pub, pub, [&](fairway_publisher_copies& c) {
    c.part_at.clear();
    c.part_names.clear();
    c.part_info.clear();
    c.cluster_cpus = cpus;
    c.cluster_nodes = nodes;
  });
}

extern "C" fairway_error_t fairway_publisher_add_partition(fairway_publisher_t* pub, const void* at,
                                                           const char* name,
                                                           const fairway_partition_info_t* info) {
  return copying(pub, info, [&](fairway_publisher_copies& c) {
    c.part_at.push_back(at);
    c.part_names.push_back(copy(name));
    c.part_info.push_back(*info);
  });
}

extern "C" fairway_error_t fairway_publisher_copy_fairshare_tres(fairway_publisher_t* pub,
                                                                 const char* const* names,
                                                                 size_t count, int with_usage) {
  return copying(pub, names, [&](fairway_publisher_copies& c) {
    if (count > FAIRWAY_MAX_FAIRSHARE_TRES)
      fairway::invalid("fairway_publisher_copy_fairshare_tres: too many TRES");
    c.fairshare_tres.clear();
    for (size_t k = 0; k < count; k++) c.fairshare_tres.push_back(copy(names[k]));
    c.with_usage = with_usage != 0;
  });
}

extern "C" fairway_error_t fairway_publisher_add_assoc(fairway_publisher_t* pub,
                                                       const fairway_assoc_t* a,
                                                       const long double* tres_usage) {
  return copying(pub, a, [&](fairway_publisher_copies& c) {
    c.assocs.push_back(*a);
    c.assoc_names.push_back(copy(a->account));
    c.assoc_names.push_back(copy(a->user));
    for (size_t k = 0; c.with_usage && k < c.fairshare_tres.size(); k++)
      c.tres_usage.push_back(tres_usage ? tres_usage[k] : 0);
  });
}

extern "C" fairway_error_t fairway_publisher_add_qos(fairway_publisher_t* pub, uint32_t id,
                                                     const char* name,
                                                     const fairway_qos_info_t* info) {
  return copying(pub, info, [&](fairway_publisher_copies& c) {
    c.qos_ids.push_back(id);
    c.qos_names.push_back(copy(name));
    c.qos_info.push_back(*info);
  });
}

extern "C" fairway_error_t fairway_publisher_copy_tres(fairway_publisher_t* pub,
                                                       const char* const* names, size_t count) {
  return copying(pub, names, [&](fairway_publisher_copies& c) {
    c.tres.emplace();
    for (size_t i = 0; i < count; i++) c.tres->push_back(copy(names[i]));
  });
}

extern "C" fairway_error_t fairway_publisher_copy_tres_running(fairway_publisher_t* pub, size_t k,
                                                               const fairway_running_job_t* jobs,
                                                               size_t n) {
  return copying(pub, pub, [&](fairway_publisher_copies& c) {
    if (k >= FAIRWAY_MAX_FAIRSHARE_TRES || (!jobs && n))
      fairway::invalid("fairway_publisher_copy_tres_running: bad TRES or NULL jobs");
    c.running[k].emplace(jobs, jobs + n);
  });
}

extern "C" fairway_error_t fairway_publisher_finish(
    fairway_publisher_t* pub, const fairway_publish_settings_t* s, const fairway_period_end_t* e,
    fairway_publication_t* p, fairway_message_fn say, fairway_message_fn say_error, void* arg) {
  fairway_error_t ended = FAIRWAY_OK;
  const fairway_error_t err = fairway::guard([&] {
    if (!pub || !s || !e || !p) fairway::invalid("fairway_publisher_finish: NULL argument");
    pub->plan.rows = 0;  // published once
    fairway_publisher_copies c = std::move(pub->copies);
    pub->copies = fairway_publisher_copies{};
    // The partitions stay until the next period begins (the rows name them).
    pub->copies.part_at = c.part_at;
    pub->copies.part_names = c.part_names;
    pub->copies.part_info = c.part_info;
    if (c.failed) {
      fairway::outcome(pub, e->where, "out of memory copying the associations", say, say_error,
                       arg);
      pub->started.clear();
      ended = FAIRWAY_ENOMEM;
      return;
    }
    const fairway_lane_t* lanes[FAIRWAY_MAX_WEIGH_THREADS];
    for (size_t l = 0; l < FAIRWAY_MAX_WEIGH_THREADS; l++) lanes[l] = &pub->lanes[l].l;
    std::vector<const char*> parts, qos, tres, fs_tres;
    for (const auto& name : c.part_names) parts.push_back(c_str(name));
    for (const auto& name : c.qos_names) qos.push_back(c_str(name));
    for (size_t i = 0; i < c.assocs.size(); i++) {
      c.assocs[i].account = c_str(c.assoc_names[2 * i]);
      c.assocs[i].user = c_str(c.assoc_names[2 * i + 1]);
    }
    const std::string history = std::string(e->where ? e->where : "") + "/fairway_history";
    if (p->history_days) p->history_dir = history.c_str();
    p->assocs = c.assocs.data();
    p->assoc_count = c.assocs.size();
    p->partitions = parts.data();
    p->partition_count = parts.size();
    p->partition_info = c.part_info.data();
    p->qos = qos.data();
    p->qos_count = qos.size();
    p->qos_info = c.qos_info.data();
    p->cluster_cpus = c.cluster_cpus;
    p->cluster_nodes = c.cluster_nodes;
    if (c.tres) {
      for (const auto& name : *c.tres) tres.push_back(c_str(name));
      tres.reserve(1);  // none named is a copy still (not NULL)
      p->tres_names = tres.data();
    }
    // fairway_fairshare_tres: names copied only with every listed TRES tracked and an
    // association.
    std::vector<long double> usage;
    std::array<const fairway_running_job_t*, FAIRWAY_MAX_FAIRSHARE_TRES> running{};
    std::array<size_t, FAIRWAY_MAX_FAIRSHARE_TRES> running_n{};
    const size_t nt = c.assocs.empty() ? 0 : c.fairshare_tres.size();
    for (size_t k = 0; k < nt; k++) fs_tres.push_back(c_str(c.fairshare_tres[k]));
    if (nt) {
      p->fairshare_tres = fs_tres.data();
      p->fairshare_tres_count = nt;
    }
    if (nt && c.with_usage) {  // [k * assoc_count + i] from the copies' [i * nt + k]
      const size_t n = c.assocs.size();
      usage.resize(n * nt);
      for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nt; k++) usage[k * n + i] = c.tres_usage[i * nt + k];
      p->fairshare_tres_usage = usage.data();
    }
    for (size_t k = 0; k < nt; k++)
      if (c.running[k]) {
        running[k] = c.running[k]->data();
        running_n[k] = c.running[k]->size();
        p->fairshare_tres_running = running.data();
        p->fairshare_tres_running_count = running_n.data();
      }
    fairway_period_notes_t n{};
    n.lanes = lanes;
    n.lane_count = FAIRWAY_MAX_WEIGH_THREADS;
    n.partition_at = c.part_at.data();
    n.qos_ids = c.qos_ids.data();
    n.walk = e->walk;
    n.where = e->where;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    p->period_end = time(nullptr);
    p->period_seconds = (now.tv_sec - e->begin.tv_sec) + (now.tv_nsec - e->begin.tv_nsec) / 1e9;
    ended = fairway::publisher_end(pub, s, &n, p, say, say_error, arg);
  });
  return err != FAIRWAY_OK ? err : ended;
}
