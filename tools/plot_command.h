// plot_command.h - `fairway plot tree SNAPSHOT` and `fairway plot history --account A ...`:
// pictures as plain SVG (lib/text/plot_svg.h), to a file (-o, written as output_file.h says) or
// standard output.
// Each returns the exit status (cli_io.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "history_command.h"

namespace fairway_cli {

int cmd_plot_tree(const std::string& snapshot, const std::string& out);
int cmd_plot_history(const HistoryArgs& a, const std::string& out);

}  // namespace fairway_cli
