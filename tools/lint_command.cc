// lint_command.cc - see lint_command.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "lint_command.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli_io.h"
#include "error.h"
#include "lint_format.h"
#include "live.h"
#include "queue_lint.h"
#include "settings_lint.h"
#include "slurm_conf_text.h"

extern "C" {
#include "slurm_api.h"
}

namespace fairway_cli {

int cmd_lint(const std::string& file, const std::string& snapshot, bool live) {
  std::string path = file;
  if (path.empty()) {
    const char* env = std::getenv("SLURM_CONF");
    path = env && *env ? env : "/etc/slurm/slurm.conf";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    say("cannot read " + quote(path) + ": " + std::strerror(errno));
    return kExitInput;
  }
  std::string text;
  text.resize(fairway::kMaxSlurmConfBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    say("cannot read " + quote(path) + ": " + std::strerror(errno));
    return kExitInput;
  }
  text.resize(static_cast<size_t>(in.gcount()));
  std::vector<fairway::LintFinding> findings;
  try {
    findings = fairway::lint_slurm_conf(text);
  } catch (const fairway::Error& e) {
    say(quote(path) + ": " + e.what());
    return kExitInput;
  }
  if (live) {
    // The queue slurmctld shows the caller now (PrivateData applies, as to squeue).
    if (const std::string why = slurm_conf_problem(); !why.empty()) {
      say(why);
      return kExitRuntime;
    }
    slurm_init(nullptr);
    std::string why;
    LiveVisibility seen;
    const auto snap = live_snapshot(LiveRequest{}, why, &seen);
    if (!snap) {
      say(why);
      return kExitRuntime;
    }
    for (auto& f : fairway::lint_queue(*snap->queue)) findings.push_back(std::move(f));
  } else if (!snapshot.empty()) {
    int rc = kExitInput;
    const auto snap = read_input(snapshot, rc);
    if (!snap) return rc;
    if (!snap->queue) {
      say(no_queue_message(snapshot));
      return kExitInput;
    }
    for (auto& f : fairway::lint_queue(*snap->queue)) findings.push_back(std::move(f));
  }
  for (const auto& f : findings) put(fairway::format_lint_finding(f));
  if (findings.empty()) put(path + ": no findings in the priority settings\n");
  return findings.empty() ? 0 : kExitFindings;
}

}  // namespace fairway_cli
