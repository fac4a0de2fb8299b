// job_starts_format.h - `fairway history --job ID`: why a job started when it did, from its
// record in the journal of job starts (job_starts_file.h), in words or as -P rows.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "job_starts.h"

namespace fairway {

std::string format_start(const StartRecord& r);
// Job|User|Account|Partition|Submit|Start|Priority|OrderTime|Place|Of|Passed|PassedJobs|
// EarlierWaiting, one row.
std::string format_start_parsable(const StartRecord& r);

}  // namespace fairway
