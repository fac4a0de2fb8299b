// forecast_command.cc - see forecast_command.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "forecast_command.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_io.h"
#include "error.h"
#include "forecast_file.h"
#include "forecast_format.h"
#include "live.h"
#include "snapshot.h"

extern "C" {
#include "slurm_api.h"
}

namespace fairway_cli {
namespace {

fairway::ForecastModel none(std::string why) {
  fairway::ForecastModel m;
  m.missing = std::move(why);
  return m;
}

fairway::ForecastModel read_model(const std::string& path, bool named) {
  std::ifstream in(path);
  if (!in) {
    if (!named && errno == ENOENT)
      return none("the plugin has published no forecast in " + path +
                  " yet (it needs PriorityParameters fairway_metrics_dir and "
                  "fairway_history_days)");
    return none("the forecast " + path + " cannot be read: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return fairway::parse_forecast_model(text.str());
  } catch (const fairway::Error& e) {
    return none("the forecast " + path + " is damaged (" + e.what() + ")");
  }
}

}  // namespace

fairway::ForecastModel load_forecast_model(const std::string& snapshot,
                                           const std::string& forecast_file) {
  if (!forecast_file.empty()) return read_model(forecast_file, true);
  if (!snapshot.empty()) {
    if (snapshot == "-")
      return none("the snapshot came on standard input (name a model with --forecast FILE)");
    const size_t slash = snapshot.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : snapshot.substr(0, slash);
    return read_model(dir + "/" + fairway::kForecastFile, false);
  }
  std::string why;
  const std::optional<std::string> dir = live_metrics_dir(why);
  if (!dir) return none(why);
  return read_model(*dir + "/" + fairway::kForecastFile, false);
}

int cmd_forecast(const ForecastArgs& a) {
  int rc = 0;
  std::optional<fairway::Snapshot> snap;
  if (!a.snapshot.empty()) {
    snap = read_input(a.snapshot, rc);
  } else if (const std::string why = slurm_conf_problem(); !why.empty()) {
    say(why);
    return kExitRuntime;
  } else {
    slurm_init(nullptr);
    std::string why2;
    LiveVisibility seen;  // the tree may be hidden (PrivateData=usage): the queue is enough
    snap = live_snapshot(LiveRequest{}, why2, &seen);
    if (!snap) {
      say(why2);
      return kExitRuntime;
    }
  }
  if (!snap) return rc;
  if (!snap->queue) {
    say(no_queue_message(a.snapshot));
    return kExitInput;
  }
  const fairway::ForecastModel m = load_forecast_model(a.snapshot, a.forecast);
  if (!a.forecast.empty() && !m.time) {
    say(m.missing);
    return kExitInput;
  }
  const fairway::Queue& q = *snap->queue;
  const std::vector<fairway::JobForecast> f = fairway::forecast_queue(m, q);
  const int64_t now = q.taken_at ? q.taken_at : std::time(nullptr);
  put(a.json ? fairway::format_forecast_table_json(q, f, now)
             : fairway::format_forecast_table(q, f, now, a.parsable));
  return 0;
}

}  // namespace fairway_cli
