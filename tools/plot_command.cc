// plot_command.cc - see plot_command.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "plot_command.h"

#include <sys/stat.h>

#include <ctime>
#include <exception>
#include <optional>
#include <vector>

#include "cli_io.h"
#include "output_file.h"
#include "plot_svg.h"
#include "snapshot.h"
#include "words.h"

namespace fairway_cli {
namespace {

int emit(const std::string& svg, const std::string& out) {
  if (const std::string why = OutputFile(out).write(svg); !why.empty()) {
    say("plot: " + why);
    return kExitRuntime;
  }
  return 0;
}

// "cluster NAME, taken YYYY-MM-DD HH:MM:SS ZONE": the snapshot's cluster and time (a version 1
// snapshot records neither: its file's time, or the time of drawing for standard input).
std::string when_and_where(const fairway::Snapshot& snap, const std::string& file) {
  const char* format = "%Y-%m-%d %H:%M:%S %Z";
  std::string cluster = "cluster not recorded";
  std::string when;
  if (snap.queue) {
    if (!snap.queue->cluster_name.empty()) cluster = "cluster " + snap.queue->cluster_name;
    when = "taken " + fairway::local_time_text(snap.queue->taken_at, format);
  } else if (struct stat st{}; file != "-" && stat(file.c_str(), &st) == 0) {
    when = "file written " + fairway::local_time_text(st.st_mtime, format);
  } else {
    when = "drawn " + fairway::local_time_text(std::time(nullptr), format);
  }
  return cluster + ", " + when;
}

}  // namespace

int cmd_plot_tree(const std::string& snapshot, const std::string& out) {
  int rc = 0;
  std::optional<fairway::Snapshot> snap = read_input(snapshot, rc);
  if (!snap) return rc;
  std::string svg;
  try {
    // Delivered share: of the usage fair-share compared (what running jobs held, under a held
    // usage basis).
    const fairway::AssocTree tree = fairway::snapshot_compared_tree(*snap);
    fairway::FairShareResult result;
    fairway::compute_fair_share(tree, snap->algorithm, snap->dampening_factor, result);
    const std::string base = snapshot.substr(snapshot.rfind('/') + 1);
    const bool held = snap->usage_basis != fairway::UsageBasis::kHistorical;
    const std::string title =
        std::string(held ? "Entitled and held shares" : "Entitled and delivered shares") +
        (held ? std::string(" (fairway_usage=") + fairway::usage_basis_name(snap->usage_basis) + ")"
              : std::string()) +
        (snapshot == "-" ? std::string() : " of " + base);
    svg = fairway::plot_tree_svg(tree, result, snap->algorithm, title,
                                 when_and_where(*snap, snapshot));
  } catch (const std::bad_alloc&) {
    say("plot: out of memory");
    return kExitRuntime;
  } catch (const std::exception& e) {
    say((snapshot == "-" ? std::string("standard input") : quote(snapshot)) + ": " +
        std::string(snapshot_message(e)));
    return kExitInput;
  }
  return emit(svg, out);
}

int cmd_plot_history(const HistoryArgs& a, const std::string& out) {
  int rc = 0;
  const std::optional<std::vector<fairway::HistorySeries>> series = load_history(a, rc);
  if (!series) return rc;
  if (series->size() > 1)
    say("plot: " + std::to_string(series->size()) + " associations match; drawing association " +
        std::to_string(series->front().id));
  if (series->front().times.empty()) {
    say("plot: the history has no period of that association in that time");
    return kExitInput;
  }
  return emit(fairway::plot_history_svg(series->front()), out);
}

}  // namespace fairway_cli
