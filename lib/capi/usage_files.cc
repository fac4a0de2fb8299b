// usage_files.cc - the C API of fairway_usage_files.h, the files of restart safety: the usage
// file and its journal (lib/state/usage_store.h), the journal's handle and a restart's replay
// (lib/state/usage_replay.h), and what running jobs hold.  The decay state file is read and
// written in usage_state_api.cc.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <fcntl.h>
#include <sys/stat.h>
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
#include "atomic_file.h"
#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_usage_files.h"
#include "fairway_usage_state.h"
#include "usage_journal.h"
#include "usage_replay.h"
#include "usage_store.h"

namespace {

const char* state_file_name(fairway::StateFile file) {
  switch (file) {
    case fairway::StateFile::kDecay:
      return "priority_last_decay_ran";
    case fairway::StateFile::kDecayOld:
      return "priority_last_decay_ran.old";
    case fairway::StateFile::kUsage:
      return "fairway_usage";
    case fairway::StateFile::kJournal:
      return "fairway_usage.journal";
    case fairway::StateFile::kJournalOld:
      return "fairway_usage.journal.old";
  }
  return nullptr;
}

std::string state_file_path(const char* dir, fairway::StateFile file) {
  const char* name = state_file_name(file);
  if (!dir || !name) fairway::invalid("state_path: NULL directory or unknown file");
  return std::string(dir) + "/" + name;
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

// The fd, the file it is and its opening are under `lock`; epoch is set under the caller's
// lock that appends also hold, or under `lock` when another controller's usage file moves it;
// what a restart read, and the ended jobs, belong to the one thread that loads.
struct fairway_usage_journal {
  std::mutex lock;
  int fd = -1;
  std::string dir;  // the StateSaveLocation of the open journal
  dev_t dev = 0;    // the file fd is
  ino_t ino = 0;
  std::atomic<time_t> epoch{0};
  fairway::EndedJobs ended;
  std::optional<fairway::UsageSnapshot> file;
  std::vector<fairway::JournalEntry> journal;

  void open(const char* at, bool rotate) {
    const std::string path = state_file_path(at, fairway::StateFile::kJournal);
    std::lock_guard<std::mutex> hold(lock);
    if (rotate)
      (void)::rename(path.c_str(), state_file_path(at, fairway::StateFile::kJournalOld).c_str());
    open_locked(path);
    dir = at;
    if (!rotate) drop_torn_line(path);
  }

  void open_locked(const std::string& path) {
    if (fd >= 0) ::close(fd);
    fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw fairway::Error(fairway::Errc::kIo, path);
    struct stat st {};
    if (::fstat(fd, &st) == 0) {
      dev = st.st_dev;
      ino = st.st_ino;
    }
  }

  // Before an append, under `lock`: when the journal at the path is not the file fd is (another
  // controller in control at the same time wrote its usage file, then rotated the journal),
  // open the one at the path, and take a later period of the usage file there as the epoch.  A
  // usage file that cannot be read leaves the epoch: the line then replays as before.
  void follow_locked() {
    if (fd < 0 || dir.empty()) return;
    const std::string path = state_file_path(dir.c_str(), fairway::StateFile::kJournal);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino) return;
    open_locked(path);
    std::optional<fairway::UsageSnapshot> other;
    try {
      other = fairway::read_usage_file(state_file_path(dir.c_str(), fairway::StateFile::kUsage));
    } catch (const fairway::Error&) {
      return;
    }
    if (other && other->period > epoch.load(std::memory_order_relaxed))
      epoch.store(other->period, std::memory_order_relaxed);
  }

  // A journal left by a controller killed in the middle of a write ends in a torn line, which
  // its readers skip; the next line appended would be glued to it and make a malformed line,
  // which refuses the whole replay.  So the torn end is cut off before anything is appended.
  void drop_torn_line(const std::string& path) {
    const off_t size = ::lseek(fd, 0, SEEK_END);
    if (size <= 0) return;
    char last = '\n';
    if (::pread(fd, &last, 1, size - 1) != 1 || last == '\n') return;
    bool exists = false;
    const std::string text = fairway::read_whole_file(path, &exists, static_cast<size_t>(size));
    const size_t nl = text.rfind('\n');
    const off_t keep = nl == std::string::npos ? 0 : static_cast<off_t>(nl + 1);
    if (::ftruncate(fd, keep) != 0) throw fairway::Error(fairway::Errc::kIo, path);
  }
};

size_t fairway::state_path(const char* dir, StateFile file, char* buf, size_t len) noexcept {
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

void fairway::append_journal(fairway_usage_journal_t& j, JournalEntry e,
                             const fairway_job_end_t* end) {
  std::lock_guard<std::mutex> hold(j.lock);
  if (j.fd < 0) return;
  j.follow_locked();
  e.epoch = j.epoch.load(std::memory_order_relaxed);
  const fairway_charge_basis_t* b = end ? end->basis : nullptr;
  if (b && e.epoch > b->start_period) {
    // Charged from another controller's later period: its usage file holds the time before.
    fairway_job_charge_t after{};
    (void)fairway_job_charge(&b->times, e.epoch, b->end_period, 1, b->decay_factor,
                             b->billable_tres, b->usage_factor, &after);
    const time_t epoch = e.epoch;
    e = job_end_entry(after, *end);
    e.epoch = epoch;
  }
  const std::string line = format_journal_line(e);
  if (::write(j.fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw Error(Errc::kIo, "cannot append to the usage journal");
}

void fairway::save_usage(const char* dir, time_t period, std::span<const ReplayAssoc> assocs,
                         std::span<const UsageEntry> qos, UsageScratch& scratch) {
  std::string& piece = scratch.piece;
  piece.reserve(kUsagePiece + 256);
  size_t next = 0;  // the next line: the header, then the associations, the QOS, the end
  const size_t end = 1 + assocs.size() + qos.size();
  write_file_atomically(state_file_path(dir, StateFile::kUsage), [&]() -> std::string_view {
    piece.clear();
    for (; next <= end && piece.size() < kUsagePiece; next++) {
      if (next == 0)
        append_usage_header(piece, period);
      else if (next <= assocs.size())
        append_usage_line(piece, 'a', assocs[next - 1].usage);
      else if (next < end)
        append_usage_line(piece, 'q', qos[next - 1 - assocs.size()]);
      else
        append_usage_end(piece, assocs.size() + qos.size());
    }
    return piece;
  });
}

std::optional<time_t> fairway::read_usage(fairway_usage_journal_t& j, const char* dir) {
  j.file = read_usage_file(state_file_path(dir, StateFile::kUsage));
  if (!j.file) return std::nullopt;
  return j.file->period;
}

void fairway::read_journals(fairway_usage_journal_t& j, const char* dir) {
  j.journal = read_journal_file(state_file_path(dir, StateFile::kJournalOld));
  auto now = read_journal_file(state_file_path(dir, StateFile::kJournal));
  j.journal.insert(j.journal.end(), now.begin(), now.end());
}

fairway::ReplayCounts fairway::replay(fairway_usage_journal_t& j, time_t epoch,
                                      std::span<ReplayAssoc> assocs, std::span<UsageEntry> qos) {
  if (!j.file) invalid("fairway_usage_journal_replay: no usage file read");
  const ReplayCounts n = replay_usage(*j.file, j.journal, epoch, assocs, qos, j.ended);
  j.file.reset();
  j.journal.clear();
  j.journal.shrink_to_fit();
  return n;
}

extern "C" {

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

int fairway_usage_journal_ended(const fairway_usage_journal_t* j, uint32_t job_id) {
  return (j && !j->ended.empty() && j->ended.contains(job_id)) ? 1 : 0;
}

fairway_error_t fairway_usage_journal_job_end(fairway_usage_journal_t* j,
                                              const fairway_job_charge_t* c,
                                              const fairway_job_end_t* end) {
  return keep_errno([&] {
    if (!c || !end) fairway::invalid("fairway_job_end_entry: NULL argument");
    if (j) fairway::append_journal(*j, fairway::job_end_entry(*c, *end), end);
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
