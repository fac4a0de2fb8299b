// usage_replay.h - a restart's usage: the usage file of the last period, then the journal of
// the job ends after it, replayed over the associations and QOS slurmctld loaded from its own
// checkpoint (which may be up to 5 minutes older than the kill that stopped it).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <span>
#include <vector>

#include "usage_store.h"

namespace fairway {

// One association as loaded: its usage, replaced by the replay, and its parent, charged with
// it by every job end.
struct ReplayAssoc {
  UsageEntry usage;
  bool has_parent = false;
  uint32_t parent_id = 0;
};

struct ReplayCounts {
  size_t restored = 0;  // associations whose usage the file held (an entry per file line)
  size_t applied = 0;   // journal entries added
  size_t fresh = 0;     // associations the file did not hold: created since, from 0
};

// The job ids whose end a replay added, sorted: those jobs must never be charged again.
class EndedJobs {
 public:
  bool contains(uint32_t job_id) const noexcept;
  // Adds job_id; false when it was there already.
  bool insert(uint32_t job_id);
  bool empty() const noexcept { return ids_.empty(); }
  void clear() noexcept { ids_.clear(); }

 private:
  std::vector<uint32_t> ids_;
};

// Replaces every association's and QOS's usage by the file's (0 for one the file does not
// hold: it was created after the period, and everything it was charged since is in the
// journal), then adds each journal entry of period `epoch`, in order: to its association and
// every ancestor, to its QOS and its partition's QOS.  A job end already in `ended` is skipped
// (a line in both journals, or replayed before); each job end added goes into `ended`.
// Associations are found by id (ids not found, deleted since, are skipped); a QOS entry goes to
// the first QOS with its id.
ReplayCounts replay_usage(const UsageSnapshot& file, std::span<const JournalEntry> journal,
                          time_t epoch, std::span<ReplayAssoc> assocs, std::span<UsageEntry> qos,
                          EndedJobs& ended);

}  // namespace fairway
