// history_command.cc - see history_command.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "history_command.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <vector>

#include "cli_io.h"
#include "error.h"
#include "history.h"
#include "history_format.h"
#include "job_starts_file.h"
#include "job_starts_format.h"
#include "live.h"

extern "C" {
#include "slurm_api.h"
}

namespace fairway_cli {

std::optional<int64_t> parse_since(const std::string& text, int64_t now) {
  if (text.size() >= 2 && text.size() <= 7) {
    const char unit = text.back();
    const std::string n = text.substr(0, text.size() - 1);
    bool digits = true;
    for (char c : n) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits && (unit == 'd' || unit == 'h' || unit == 'm')) {
      const int64_t k = std::stoll(n), scale = unit == 'd' ? 86400 : unit == 'h' ? 3600 : 60;
      return now - k * scale;
    }
  }
  for (const char* fmt : {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    struct tm tm {};
    tm.tm_isdst = -1;
    const char* end = strptime(text.c_str(), fmt, &tm);
    if (end && *end == '\0') return static_cast<int64_t>(mktime(&tm));
  }
  return std::nullopt;
}

namespace {

// The history directory: --dir, or where slurmctld's PriorityParameters put it.
std::optional<std::string> history_dir(const HistoryArgs& a, int& rc) {
  if (!a.dir.empty()) return a.dir;
  if (const std::string why = slurm_conf_problem(); !why.empty()) {
    say(why + " (or name the history with --dir)");
    rc = kExitRuntime;
    return std::nullopt;
  }
  slurm_init(nullptr);
  std::string why;
  std::optional<std::string> d = live_history_dir(why);
  if (!d) {
    say(why);
    rc = kExitRuntime;
  }
  return d;
}

// The id of the job record R names: an array task's or a heterogeneous component's is asked of
// slurmctld (the journal of starts keeps job ids). nullopt after saying why, with rc set.
std::optional<uint32_t> job_record_id(const JobRef& r, const std::string& text, int& rc) {
  if (r.kind == JobRef::Kind::kJob) return r.id;
  rc = kExitRuntime;
  if (const std::string why = slurm_conf_problem(); !why.empty()) {
    say("history: --job " + text + ": its job id is asked of slurmctld: " + why +
        " (or give the job id, squeue -o %A)");
    return std::nullopt;
  }
  slurm_init(nullptr);
  job_info_msg_t* msg = nullptr;
  if (fairway_load_job(&msg, r.id, SHOW_ALL) != SLURM_SUCCESS || !msg) {
    const int err = errno;
    say("history: --job " + text + ": " +
        (err == ESLURM_INVALID_JOB_ID
             ? std::string("no such job")
             : std::string("cannot ask slurmctld: ") + slurm_strerror(err)));
    return std::nullopt;
  }
  std::optional<uint32_t> id;
  for (uint32_t i = 0; i < msg->record_count && !id; ++i) {
    const slurm_job_info_t& j = msg->job_array[i];
    if (r.kind == JobRef::Kind::kArrayTask
            ? j.array_task_id != NO_VAL && j.array_job_id == r.id && j.array_task_id == r.index
            : j.het_job_id == r.id && j.het_job_offset == r.index)
      id = j.job_id;
  }
  slurm_free_job_info_msg(msg);
  if (!id) say("history: --job " + text + ": no such job");
  return id;
}

int job_start(const HistoryArgs& a) {
  const std::optional<JobRef> ref = parse_job_ref(a.job);
  if (!ref) {
    say("history: --job " + shown(a.job) + " is not a job id (" + kJobIdForms + ")");
    return kExitInput;
  }
  int rc = 0;
  const std::optional<uint32_t> record = job_record_id(*ref, a.job, rc);
  if (!record) return rc;
  const uint32_t id = *record;
  const std::optional<std::string> dir = history_dir(a, rc);
  if (!dir) return rc;
  std::optional<fairway::StartRecord> r;
  try {
    r = fairway::find_start(*dir, static_cast<uint32_t>(id));
  } catch (const fairway::Error& e) {
    say(std::string("history: ") + e.what());
    return kExitRuntime;
  }
  if (!r) {
    say("history: " + quote(*dir) + " has no start of job " + a.job +
        (ref->kind == JobRef::Kind::kJob ? "" : " (job " + std::to_string(id) + ")") +
        " (the journal holds the jobs started while fairway_history_days was set, for that many "
        "days)");
    return kExitInput;
  }
  put(a.json       ? fairway::start_record_json(*r) + "\n"
      : a.parsable ? fairway::format_start_parsable(*r)
                   : fairway::format_start(*r));
  return 0;
}

}  // namespace

std::optional<std::vector<fairway::HistorySeries>> load_history(const HistoryArgs& a, int& rc) {
  rc = 0;
  const int64_t now = static_cast<int64_t>(time(nullptr));
  int64_t since = 0;
  if (!a.since.empty()) {
    const std::optional<int64_t> s = parse_since(a.since, now);
    if (!s) {
      say("history: --since " + shown(a.since) +
          " is not a date (YYYY-MM-DD[THH:MM[:SS]]) or an age (7d, 12h, 30m)");
      rc = kExitInput;
      return std::nullopt;
    }
    since = *s;
  }
  const std::optional<std::string> found = history_dir(a, rc);
  if (!found) return std::nullopt;
  const std::string dir = *found;
  fairway::HistoryData data;
  try {
    data = fairway::read_history(dir, since);
  } catch (const fairway::Error& e) {
    say(std::string("history: ") + e.what());
    rc = e.code() == fairway::Errc::kIo ? kExitRuntime : kExitInput;
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    say("history: out of memory");
    rc = kExitRuntime;
    return std::nullopt;
  }
  if (data.skipped_bytes)
    say("history: " + std::to_string(data.skipped_bytes) + " bytes of " + quote(dir) +
        " are not whole periods (a write cut short) and were skipped");
  std::vector<fairway::HistorySeries> series = fairway::history_series(data, a.account, a.user);
  if (series.empty()) {
    say("history: " + quote(dir) + " has no " +
        (a.user.empty() ? "account " + shown(a.account)
                        : "user " + shown(a.user) + " in account " + shown(a.account)));
    rc = kExitInput;
    return std::nullopt;
  }
  return series;
}

int cmd_history(const HistoryArgs& a) {
  if (!a.job.empty()) return job_start(a);
  int rc = 0;
  const std::optional<std::vector<fairway::HistorySeries>> loaded = load_history(a, rc);
  if (!loaded) return rc;
  const std::vector<fairway::HistorySeries>& series = *loaded;
  put(a.json       ? fairway::format_history_json(series) + "\n"
      : a.parsable ? fairway::format_history_parsable(series)
                   : fairway::format_history(series));
  return 0;
}

}  // namespace fairway_cli
