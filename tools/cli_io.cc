// What every fairway command shares (see cli_io.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "cli_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "plugin_options.h"

namespace fairway_cli {
namespace {

// Where libslurm (22.05, Debian's build: sysconfdir /etc/slurm) looks for slurm.conf when
// SLURM_CONF is not set: its default file, then slurmd's copy in configless mode.
constexpr const char* kSlurmConfFiles[] = {"/etc/slurm/slurm.conf", "/run/slurm/conf/slurm.conf"};

// errno of the first write to standard output that failed (0: none failed).
int stdout_errno = 0;

// Why PATH cannot be read as a configuration file ("" if it can).
std::string unreadable(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return strerror(errno);
  struct stat st {};
  const bool dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  close(fd);
  return dir ? strerror(EISDIR) : "";
}

}  // namespace

// S in double quotes, with quotes, backslashes and bytes outside printable ASCII escaped.
std::string quote(std::string_view s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      q += hex;
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

// An argument as typed where it is plain (printable ASCII, no spaces or quotes), else quoted.
std::string shown(std::string_view s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  return plain ? std::string(s) : quote(s);
}

// One line on stderr: "fairway: MESSAGE".
void say(std::string_view message) {
  std::string line(message);
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::cerr << "fairway: " << line << "\n";
}

// A SnapshotError without its "snapshot: " prefix (the CLI's messages name the file instead).
std::string_view snapshot_message(const std::exception& e) {
  std::string_view what = e.what();
  if (what.substr(0, 10) == "snapshot: ") what.remove_prefix(10);
  return what;
}

void put(std::string_view s) {
  errno = 0;
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size() && stdout_errno == 0)
    stdout_errno = errno ? errno : EIO;
}

// As coreutils' close_stdout: flush and close standard output at exit, and make a write that
// failed (a full disk, a closed descriptor) exit 1 with the reason instead of 0.
int close_stdout(int rc) {
  int err = stdout_errno;
  errno = 0;
  std::cout.flush();  // what CLI11 printed (std::cout writes through stdout's buffer)
  if (std::ferror(stdout) && !err) err = errno;
  errno = 0;
  if (std::fflush(stdout) != 0 && !err) err = errno;
  bool failed = err != 0;
  if (std::ferror(stdout)) failed = true;
  errno = 0;
  if (std::fclose(stdout) != 0) {
    failed = true;
    if (!err) err = errno;
  }
  if (!failed) return rc;
  say(std::string("write error on standard output") +
      (err ? ": " + std::string(strerror(err)) : ""));
  return kExitRuntime;
}

// A standard descriptor that is closed (fairway >&-) would become the first file fairway opens,
// and output meant for it would land there. Hold each closed one with /dev/null, opened so that
// using it fails (EBADF) as it would have.
void hold_closed_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int r = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (r >= 0 && r != fd) {
      dup2(r, fd);
      close(r);
    }
  }
}

// libslurm looks for slurm.conf in SLURM_CONF, else in kSlurmConfFiles, else asks slurmctld
// (SLURM_CONF_SERVER, or DNS SRV records) and, failing that, logs several lines and exits
// through fatal(). Checked first, so that a missing configuration is one line that says which
// file was looked for and how to name another. "" where libslurm can go on.
std::string slurm_conf_problem() {
  static const std::string how = "set SLURM_CONF to the path of the cluster's slurm.conf";
  if (const char* env = std::getenv("SLURM_CONF")) {
    const std::string why = unreadable(env);
    if (why.empty()) return "";
    return "cannot read the Slurm configuration " + quote(env) + " (named by SLURM_CONF): " + why +
           "; " + how;
  }
  for (const char* path : kSlurmConfFiles) {
    struct stat st {};
    if (stat(path, &st) != 0) continue;
    const std::string why = unreadable(path);
    if (why.empty()) return "";
    return "cannot read the Slurm configuration " + quote(path) + ": " + why + "; " + how;
  }
  if (std::getenv("SLURM_CONF_SERVER")) return "";  // configless: libslurm asks slurmctld
  return std::string("no Slurm configuration: SLURM_CONF is not set and ") + kSlurmConfFiles[0] +
         " does not exist; " + how;
}

namespace {

// Decimal digits only, at most UINT32_MAX - 1 (NO_VAL and above are Slurm's special values).
std::optional<uint32_t> decimal(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v >= UINT32_MAX - 1) return std::nullopt;
  return static_cast<uint32_t>(v);
}

}  // namespace

std::optional<JobRef> parse_job_ref(std::string_view text) {
  JobRef r;
  size_t sep = text.find_first_of("_+");
  if (sep != std::string_view::npos) {
    r.kind = text[sep] == '_' ? JobRef::Kind::kArrayTask : JobRef::Kind::kHetComponent;
    const auto index = decimal(text.substr(sep + 1));
    if (!index) return std::nullopt;
    r.index = *index;
  }
  const auto id = decimal(text.substr(0, sep));
  if (!id || *id == 0) return std::nullopt;
  r.id = *id;
  return r;
}

bool array_tasks_hold(std::string_view tasks, uint32_t task) {
  tasks = tasks.substr(0, tasks.find('%'));  // the throttle
  while (!tasks.empty()) {
    const size_t comma = tasks.find(',');
    std::string_view item = tasks.substr(0, comma);
    tasks = comma == std::string_view::npos ? std::string_view() : tasks.substr(comma + 1);
    std::optional<uint32_t> step = 1;
    if (const size_t colon = item.find(':'); colon != std::string_view::npos) {
      step = decimal(item.substr(colon + 1));
      item = item.substr(0, colon);
    }
    const size_t dash = item.find('-');
    const auto lo = decimal(item.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : decimal(item.substr(dash + 1));
    if (!lo || !hi || !step || *step == 0) continue;
    if (task >= *lo && task <= *hi && (task - *lo) % *step == 0) return true;
  }
  return false;
}

// The snapshot in FILE ("-": standard input), or nullopt after saying why, with rc set.
std::optional<fairway::Snapshot> read_input(const std::string& file, int& rc) {
  const bool from_stdin = file == "-";
  const std::string name = from_stdin ? "standard input" : quote(file);
  try {
    return from_stdin ? fairway::read_snapshot_fd(STDIN_FILENO, name)
                      : fairway::read_snapshot_file(file);
  } catch (const fairway::SnapshotError& e) {
    say(snapshot_message(e));
    rc = kExitInput;
  } catch (const std::bad_alloc&) {
    say("out of memory reading " + name);
    rc = kExitRuntime;
  }
  return std::nullopt;
}

std::string no_queue_message(const std::string& file) {
  return (file == "-" ? std::string("standard input") : quote(file)) +
         " is a version 1 snapshot: it holds no jobs (the plugin's fairway.json leaves the queue "
         "out while more jobs are pending than PriorityParameters=fairway_queue_jobs, default " +
         std::to_string(fairway::kDefaultQueueJobs) +
         ": raise it to keep the queue there; or leave out the snapshot to ask slurmctld, or "
         "take one with 'fairway snapshot')";
}

}  // namespace fairway_cli
