// usage_files.cc - the C API of fairway_usage_files.h, the files of restart safety: the usage
// file and its journal (lib/state/usage_store.h), the journal's handle and a restart's replay
// (lib/state/usage_replay.h), and what running jobs hold.  The decay state file is read and
// written in usage_state_api.cc.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api_guard.h"
#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_usage_files.h"
#include "usage_replay.h"
#include "usage_store.h"

extern "C" {

fairway_error_t fairway_usage_write(const char* path, time_t period,
                                    const fairway_usage_entry_t* assocs, size_t nassocs,
                                    const fairway_usage_entry_t* qos, size_t nqos) {
  return fairway::guard([&] {
    if (!path || (!assocs && nassocs) || (!qos && nqos))
      fairway::invalid("fairway_usage_write: NULL argument");
    fairway::UsageSnapshot s;
    s.period = period;
    s.assocs.reserve(nassocs);
    for (size_t i = 0; i < nassocs; i++)
      s.assocs.push_back({assocs[i].id, assocs[i].usage_raw, assocs[i].grp_used_wall});
    s.qos.reserve(nqos);
    for (size_t i = 0; i < nqos; i++)
      s.qos.push_back({qos[i].id, qos[i].usage_raw, qos[i].grp_used_wall});
    fairway::write_usage_file(path, s);
  });
}

}  // extern "C"

struct fairway_usage_file {
  fairway::UsageSnapshot s;
  std::vector<fairway_usage_entry_t> assocs, qos;
};

extern "C" {

fairway_error_t fairway_usage_read(const char* path, fairway_usage_file_t** out) {
  return fairway::guard([&] {
    if (!path || !out) fairway::invalid("fairway_usage_read: NULL argument");
    *out = nullptr;
    auto s = fairway::read_usage_file(path);
    if (!s) return;
    auto f = std::make_unique<fairway_usage_file>();
    for (const auto& e : s->assocs) f->assocs.push_back({e.id, e.usage_raw, e.grp_used_wall});
    for (const auto& e : s->qos) f->qos.push_back({e.id, e.usage_raw, e.grp_used_wall});
    f->s = std::move(*s);
    *out = f.release();
  });
}

time_t fairway_usage_period(const fairway_usage_file_t* f) { return f ? f->s.period : 0; }

size_t fairway_usage_count(const fairway_usage_file_t* f, int qos) {
  return f ? (qos ? f->qos.size() : f->assocs.size()) : 0;
}

const fairway_usage_entry_t* fairway_usage_entry(const fairway_usage_file_t* f, int qos,
                                                 size_t index) {
  if (!f) return nullptr;
  const auto& v = qos ? f->qos : f->assocs;
  return index < v.size() ? &v[index] : nullptr;
}

void fairway_usage_destroy(fairway_usage_file_t** f) {
  if (!f || !*f) return;
  delete *f;
  *f = nullptr;
}

size_t fairway_journal_format(const fairway_journal_entry_t* e, char* buf, size_t len) {
  if (!e || !buf) return 0;
  try {
    fairway::JournalEntry j;
    j.epoch = e->epoch;
    j.job_id = e->job_id;
    j.assoc_id = e->assoc_id;
    j.real = e->real;
    j.run = e->run;
    j.qos_id = e->qos_id;
    j.qos_usage = e->qos_usage;
    j.qos_wall = e->qos_wall;
    j.part_qos_id = e->part_qos_id;
    j.part_qos_usage = e->part_qos_usage;
    j.part_qos_wall = e->part_qos_wall;
    j.ended = !e->not_ended;
    const std::string line = fairway::format_journal_line(j);
    if (line.size() + 1 > len) return 0;
    std::memcpy(buf, line.c_str(), line.size() + 1);
    return line.size();
  } catch (...) {
    return 0;
  }
}

fairway_error_t fairway_journal_read(const char* path, fairway_journal_entry_t** entries,
                                     size_t* count) {
  return fairway::guard([&] {
    if (!path || !entries || !count) fairway::invalid("fairway_journal_read: NULL argument");
    *entries = nullptr;
    *count = 0;
    const auto v = fairway::read_journal_file(path);
    if (v.empty()) return;
    auto* out = static_cast<fairway_journal_entry_t*>(
        std::calloc(v.size(), sizeof(fairway_journal_entry_t)));
    if (!out) throw std::bad_alloc();
    for (size_t i = 0; i < v.size(); i++) {
      out[i].epoch = v[i].epoch;
      out[i].job_id = v[i].job_id;
      out[i].assoc_id = v[i].assoc_id;
      out[i].real = v[i].real;
      out[i].run = v[i].run;
      out[i].qos_id = v[i].qos_id;
      out[i].qos_usage = v[i].qos_usage;
      out[i].qos_wall = v[i].qos_wall;
      out[i].part_qos_id = v[i].part_qos_id;
      out[i].part_qos_usage = v[i].part_qos_usage;
      out[i].part_qos_wall = v[i].part_qos_wall;
      out[i].not_ended = !v[i].ended;
    }
    *entries = out;
    *count = v.size();
  });
}

void fairway_journal_destroy(fairway_journal_entry_t** entries) {
  if (!entries) return;
  std::free(*entries);
  *entries = nullptr;
}

}  // extern "C"

namespace {

const char* state_file_name(fairway_state_file_t file) {
  switch (file) {
    case FAIRWAY_STATE_DECAY:
      return "priority_last_decay_ran";
    case FAIRWAY_STATE_DECAY_OLD:
      return "priority_last_decay_ran.old";
    case FAIRWAY_STATE_USAGE:
      return "fairway_usage";
    case FAIRWAY_STATE_JOURNAL:
      return "fairway_usage.journal";
    case FAIRWAY_STATE_JOURNAL_OLD:
      return "fairway_usage.journal.old";
  }
  return nullptr;
}

std::string state_path(const char* dir, fairway_state_file_t file) {
  const char* name = state_file_name(file);
  if (!dir || !name) fairway::invalid("state_path: NULL directory or unknown file");
  return std::string(dir) + "/" + name;
}

fairway::UsageEntry to_core(const fairway_usage_entry_t& e) {
  return {e.id, e.usage_raw, e.grp_used_wall};
}

// errno as the last system call left it, through the guard's own work.
template <typename Fn>
fairway_error_t keep_errno(Fn&& fn) {
  int saved = 0;
  const fairway_error_t err = fairway::guard([&] {
    errno = 0;
    try {
      fn();
    } catch (...) {
      saved = errno;
      throw;
    }
    saved = errno;
  });
  errno = saved;
  return err;
}

}  // namespace

// The fd and its opening are under `lock`; epoch is set under the caller's lock that appends
// also hold; what a restart read, and the ended jobs, belong to the one thread that loads.
struct fairway_usage_journal {
  std::mutex lock;
  int fd = -1;
  std::atomic<time_t> epoch{0};
  fairway::EndedJobs ended;
  std::optional<fairway::UsageSnapshot> file;
  std::vector<fairway::JournalEntry> journal;

  void open(const char* dir, bool rotate) {
    const std::string path = state_path(dir, FAIRWAY_STATE_JOURNAL);
    std::lock_guard<std::mutex> hold(lock);
    if (rotate) (void)::rename(path.c_str(), state_path(dir, FAIRWAY_STATE_JOURNAL_OLD).c_str());
    if (fd >= 0) ::close(fd);
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw fairway::Error(fairway::Errc::kIo, path);
  }
};

extern "C" {

size_t fairway_state_path(const char* dir, fairway_state_file_t file, char* buf, size_t len) {
  if (buf && len) buf[0] = '\0';
  const char* name = state_file_name(file);
  if (!dir || !buf || !name) return 0;
  const int n = std::snprintf(buf, len, "%s/%s", dir, name);
  if (n < 0 || static_cast<size_t>(n) >= len) {
    if (len) buf[0] = '\0';
    return 0;
  }
  return static_cast<size_t>(n);
}

fairway_usage_journal_t* fairway_usage_journal_new(void) {
  return new (std::nothrow) fairway_usage_journal();
}

void fairway_usage_journal_destroy(fairway_usage_journal_t** j) {
  if (!j || !*j) return;
  if ((*j)->fd >= 0) ::close((*j)->fd);
  delete *j;
  *j = nullptr;
}

fairway_error_t fairway_usage_journal_open(fairway_usage_journal_t* j, const char* dir,
                                           int rotate) {
  return keep_errno([&] {
    if (!j || !dir) fairway::invalid("fairway_usage_journal_open: NULL argument");
    j->open(dir, rotate != 0);
  });
}

void fairway_usage_journal_set_epoch(fairway_usage_journal_t* j, time_t epoch) {
  if (j) j->epoch.store(epoch, std::memory_order_relaxed);
}

fairway_error_t fairway_usage_journal_append(fairway_usage_journal_t* j,
                                             const fairway_journal_entry_t* e) {
  return keep_errno([&] {
    if (!e) fairway::invalid("fairway_usage_journal_append: NULL entry");
    if (!j) return;
    fairway_journal_entry_t at = *e;
    at.epoch = j->epoch.load(std::memory_order_relaxed);
    char line[512];
    const size_t len = fairway_journal_format(&at, line, sizeof line);
    if (!len) return;
    std::lock_guard<std::mutex> hold(j->lock);
    if (j->fd >= 0 && ::write(j->fd, line, len) != static_cast<ssize_t>(len))
      throw fairway::Error(fairway::Errc::kIo, "cannot append to the usage journal");
  });
}

int fairway_usage_journal_ended(const fairway_usage_journal_t* j, uint32_t job_id) {
  return (j && !j->ended.empty() && j->ended.contains(job_id)) ? 1 : 0;
}

fairway_error_t fairway_usage_journal_save(const char* dir, time_t period,
                                           const fairway_usage_node_t* assocs, size_t nassocs,
                                           const fairway_usage_entry_t* qos, size_t nqos) {
  return fairway::guard([&] {
    if (!dir || (!assocs && nassocs) || (!qos && nqos))
      fairway::invalid("fairway_usage_journal_save: NULL argument");
    fairway::UsageSnapshot s;
    s.period = period;
    s.assocs.reserve(nassocs);
    for (size_t i = 0; i < nassocs; i++) s.assocs.push_back(to_core(assocs[i].usage));
    s.qos.reserve(nqos);
    for (size_t i = 0; i < nqos; i++) s.qos.push_back(to_core(qos[i]));
    fairway::write_usage_file(state_path(dir, FAIRWAY_STATE_USAGE), s);
  });
}

fairway_error_t fairway_usage_journal_read_usage(fairway_usage_journal_t* j, const char* dir,
                                                 int* found, time_t* period) {
  return fairway::guard([&] {
    if (!j || !dir || !found || !period)
      fairway::invalid("fairway_usage_journal_read_usage: NULL argument");
    *found = 0;
    *period = 0;
    j->file = fairway::read_usage_file(state_path(dir, FAIRWAY_STATE_USAGE));
    if (!j->file) return;
    *found = 1;
    *period = j->file->period;
  });
}

fairway_error_t fairway_usage_journal_read_journals(fairway_usage_journal_t* j, const char* dir) {
  return fairway::guard([&] {
    if (!j || !dir) fairway::invalid("fairway_usage_journal_read_journals: NULL argument");
    j->journal = fairway::read_journal_file(state_path(dir, FAIRWAY_STATE_JOURNAL_OLD));
    auto now = fairway::read_journal_file(state_path(dir, FAIRWAY_STATE_JOURNAL));
    j->journal.insert(j->journal.end(), now.begin(), now.end());
  });
}

fairway_error_t fairway_usage_journal_replay(fairway_usage_journal_t* j, time_t epoch,
                                             fairway_usage_node_t* assocs, size_t nassocs,
                                             fairway_usage_entry_t* qos, size_t nqos,
                                             fairway_replay_counts_t* counts) {
  return fairway::guard([&] {
    if (!j || !counts || (!assocs && nassocs) || (!qos && nqos))
      fairway::invalid("fairway_usage_journal_replay: NULL argument");
    if (!j->file) fairway::invalid("fairway_usage_journal_replay: no usage file read");
    std::vector<fairway::ReplayAssoc> a(nassocs);
    for (size_t i = 0; i < nassocs; i++)
      a[i] = {to_core(assocs[i].usage), assocs[i].has_parent != 0, assocs[i].parent_id};
    std::vector<fairway::UsageEntry> q(nqos);
    for (size_t i = 0; i < nqos; i++) q[i] = to_core(qos[i]);
    const auto n = fairway::replay_usage(*j->file, j->journal, epoch, a, q, j->ended);
    for (size_t i = 0; i < nassocs; i++) {
      assocs[i].usage.usage_raw = a[i].usage.usage_raw;
      assocs[i].usage.grp_used_wall = a[i].usage.grp_used_wall;
    }
    for (size_t i = 0; i < nqos; i++) {
      qos[i].usage_raw = q[i].usage_raw;
      qos[i].grp_used_wall = q[i].grp_used_wall;
    }
    *counts = {n.restored, n.applied, n.fresh};
    j->file.reset();
    j->journal.clear();
    j->journal.shrink_to_fit();
  });
}

}  // extern "C"

struct fairway_held_jobs {
  std::vector<fairway_running_job_t> jobs, tres_jobs;
  std::vector<double> tres;  // FAIRWAY_MAX_FAIRSHARE_TRES per job
};

extern "C" {

fairway_held_jobs_t* fairway_held_jobs_new(void) { return new (std::nothrow) fairway_held_jobs(); }

void fairway_held_jobs_destroy(fairway_held_jobs_t** h) {
  if (!h || !*h) return;
  delete *h;
  *h = nullptr;
}

void fairway_held_jobs_reset(fairway_held_jobs_t* h) {
  if (!h) return;
  h->jobs.clear();
  h->tres.clear();
}

fairway_error_t fairway_held_jobs_add(fairway_held_jobs_t* h, const fairway_running_job_t* job,
                                      const double* tres, size_t ntres) {
  return fairway::guard([&] {
    if (!h || !job || (!tres && ntres) || ntres > FAIRWAY_MAX_FAIRSHARE_TRES)
      fairway::invalid("fairway_held_jobs_add: NULL argument or too many TRES");
    // Room for the job first (growing geometrically: reserve(size + 1) would copy the whole
    // array for every running job), so that push_back cannot throw after tres has grown.
    if (h->jobs.size() == h->jobs.capacity())
      h->jobs.reserve(std::max<size_t>(256, 2 * h->jobs.capacity()));
    h->tres.resize(h->tres.size() + FAIRWAY_MAX_FAIRSHARE_TRES, 0.0);
    std::copy(tres, tres + ntres, h->tres.end() - FAIRWAY_MAX_FAIRSHARE_TRES);
    h->jobs.push_back(*job);
  });
}

const fairway_running_job_t* fairway_held_jobs_list(const fairway_held_jobs_t* h, size_t* n) {
  if (n) *n = h ? h->jobs.size() : 0;
  return (h && !h->jobs.empty()) ? h->jobs.data() : nullptr;
}

const fairway_running_job_t* fairway_held_jobs_tres(fairway_held_jobs_t* h, int k, size_t* n) {
  if (n) *n = h ? h->jobs.size() : 0;
  if (!h || h->jobs.empty() || k < 0 || k >= FAIRWAY_MAX_FAIRSHARE_TRES) return nullptr;
  try {
    h->tres_jobs = h->jobs;
  } catch (...) {
    if (n) *n = 0;
    return nullptr;
  }
  for (size_t i = 0; i < h->jobs.size(); i++)
    h->tres_jobs[i].charge_rate = h->tres[i * FAIRWAY_MAX_FAIRSHARE_TRES + k];
  return h->tres_jobs.data();
}

}  // extern "C"
