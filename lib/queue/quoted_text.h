// quoted_text.h - text from a configuration file as a log message quotes it: in single quotes,
// printable ASCII as it is, anything else (and a single quote) as \xNN, cut after `max` bytes
// with "..." so that one bad value never floods slurmctld's log.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fairway {

std::string quoted_text(std::string_view s, size_t max);

}  // namespace fairway
