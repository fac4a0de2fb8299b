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
#include "queue_lint.h"
#include "settings_lint.h"
#include "slurm_conf_text.h"

namespace fairway_cli {

int cmd_lint(const std::string& file, const std::string& snapshot) {
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
  if (!snapshot.empty()) {
    int rc = kExitInput;
    const auto snap = read_input(snapshot, rc);
    if (!snap) return rc;
    if (!snap->queue) {
      say(quote(snapshot) +
          " is a version 1 snapshot: it holds no jobs (take one with 'fairway snapshot')");
      return kExitInput;
    }
    for (auto& f : fairway::lint_queue(*snap->queue)) findings.push_back(std::move(f));
  }
  for (const auto& f : findings) put(fairway::format_lint_finding(f));
  if (findings.empty()) put(path + ": no findings in the priority settings\n");
  return findings.empty() ? 0 : kExitFindings;
}

}  // namespace fairway_cli
