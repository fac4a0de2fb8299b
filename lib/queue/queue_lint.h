// queue_lint.h - the checks of fairway lint that need the pending queue (a version 2
// snapshot, lib/queue/queue.h), beside those of slurm.conf alone (settings_lint.h):
//   * fair-share factors too close for PriorityWeightFairshare: the smallest nonzero gap g
//     between two pending jobs' fair-share factors, with weight x g < 1 (those jobs'
//     fair-share parts differ by less than one priority point);
//   * age at PriorityMaxAge for most of the queue: more than half of the weighed rows have
//     an age factor of 1, so age no longer orders them.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <vector>

#include "queue.h"
#include "settings_lint.h"

namespace fairway {

// The findings for the queue's settings and rows, in the order above.  Rows set by an
// administrator are left out.
std::vector<LintFinding> lint_queue(const Queue& q);

}  // namespace fairway
