// usage_state_api.cc - the C API of fairway_usage_state.h: the usage of every association and
// QOS copied for the usage file or a restart's replay, the decay state file of a
// StateSaveLocation, and a job end's journal entry (usage_journal.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <algorithm>
#include <cstdio>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api_guard.h"
#include "decay_state.h"
#include "fairway_usage_state.h"
#include "usage_journal.h"

// Where each copied record's usage lives: written back after a replay.
struct UsageAt {
  long double* usage_raw;
  double* grp_used_wall;
};

struct fairway_usage_copy {
  std::vector<fairway::ReplayAssoc> assocs;
  std::vector<fairway::UsageEntry> qos;
  std::vector<UsageAt> assocs_at, qos_at;
  bool incomplete = false;  // an add ran out of memory
  // The piece of the usage file's text each save builds, in the same memory every time.
  mutable fairway::UsageScratch scratch;
};

namespace {

// Append e and where it lives; on a failure the copy is marked incomplete.
template <typename T>
void add(fairway_usage_copy* c, std::vector<T>& v, std::vector<UsageAt>& at, const T& e,
         UsageAt where) {
  try {
    // Room in `at` first, so that nothing can throw once e is in v.
    if (at.size() == at.capacity()) at.reserve(std::max<size_t>(64, 2 * at.capacity()));
    v.push_back(e);
    at.push_back(where);
  } catch (...) {
    c->incomplete = true;
    throw;
  }
}

void check_complete(const fairway_usage_copy* c, const char* fn) {
  if (!c) fairway::invalid((std::string(fn) + ": NULL argument").c_str());
  if (c->incomplete) throw std::bad_alloc();
}

// The decay state read at start from path, else old_path, else now, into *out.
fairway_error_t recover_decay_state(const char* path, const char* old_path, time_t now,
                                    fairway_decay_recovery_t* out) {
  return fairway::guard([&] {
    const fairway::RecoveredDecayState r = fairway::recover_decay_state(path, old_path, now);
    out->last_ran = r.state.last_ran;
    out->last_reset = r.state.last_reset;
    static_assert(static_cast<int>(fairway::DecaySource::kNow) == FAIRWAY_DECAY_FROM_NOW);
    out->source = static_cast<fairway_decay_source_t>(r.source);
    const size_t n = std::min(r.error.size(), sizeof(out->error) - 1);
    r.error.copy(out->error, n);
    out->error[n] = '\0';
  });
}

}  // namespace

extern "C" {

fairway_usage_copy_t* fairway_usage_copy_new(void) {
  return new (std::nothrow) fairway_usage_copy();
}

void fairway_usage_copy_destroy(fairway_usage_copy_t** c) {
  if (!c || !*c) return;
  delete *c;
  *c = nullptr;
}

void fairway_usage_copy_clear(fairway_usage_copy_t* c) {
  if (!c) return;
  c->assocs.clear();
  c->qos.clear();
  c->assocs_at.clear();
  c->qos_at.clear();
  c->incomplete = false;
}

fairway_error_t fairway_usage_copy_reserve(fairway_usage_copy_t* c, size_t assocs, size_t qos) {
  return fairway::guard([&] {
    if (!c) fairway::invalid("fairway_usage_copy_reserve: NULL argument");
    c->assocs.reserve(assocs);
    c->assocs_at.reserve(assocs);
    c->qos.reserve(qos);
    c->qos_at.reserve(qos);
  });
}

fairway_error_t fairway_usage_copy_assoc(fairway_usage_copy_t* c, uint32_t id,
                                         long double* usage_raw, double* grp_used_wall,
                                         uint32_t parent_id, int has_parent) {
  return fairway::guard([&] {
    if (!c || !usage_raw || !grp_used_wall)
      fairway::invalid("fairway_usage_copy_assoc: NULL argument");
    const fairway::ReplayAssoc n{{id, *usage_raw, *grp_used_wall}, has_parent != 0, parent_id};
    add(c, c->assocs, c->assocs_at, n, {usage_raw, grp_used_wall});
  });
}

fairway_error_t fairway_usage_copy_qos(fairway_usage_copy_t* c, uint32_t id, long double* usage_raw,
                                       double* grp_used_wall) {
  return fairway::guard([&] {
    if (!c || !usage_raw || !grp_used_wall)
      fairway::invalid("fairway_usage_copy_qos: NULL argument");
    add(c, c->qos, c->qos_at, fairway::UsageEntry{id, *usage_raw, *grp_used_wall},
        {usage_raw, grp_used_wall});
  });
}

fairway_error_t fairway_usage_copy_save(const fairway_usage_copy_t* c, const char* dir,
                                        time_t period) {
  return fairway::guard([&] {
    check_complete(c, "fairway_usage_copy_save");
    if (!dir) fairway::invalid("fairway_usage_journal_save: NULL argument");
    fairway::save_usage(dir, period, c->assocs, c->qos, c->scratch);
  });
}

fairway_error_t fairway_usage_copy_replay(fairway_usage_copy_t* c, fairway_usage_journal_t* j,
                                          time_t epoch, fairway_replay_counts_t* counts) {
  return fairway::guard([&] {
    check_complete(c, "fairway_usage_copy_replay");
    if (!j || !counts) fairway::invalid("fairway_usage_journal_replay: NULL argument");
    // Replayed on a copy: on a failure nothing is written back.
    std::vector<fairway::ReplayAssoc> assocs = c->assocs;
    std::vector<fairway::UsageEntry> qos = c->qos;
    const fairway::ReplayCounts n = fairway::replay(*j, epoch, assocs, qos);
    c->assocs = std::move(assocs);
    c->qos = std::move(qos);
    *counts = {n.restored, n.applied, n.fresh};
    for (size_t i = 0; i < c->assocs.size(); i++) {
      *c->assocs_at[i].usage_raw = c->assocs[i].usage.usage_raw;
      *c->assocs_at[i].grp_used_wall = c->assocs[i].usage.grp_used_wall;
    }
    for (size_t i = 0; i < c->qos.size(); i++) {
      *c->qos_at[i].usage_raw = c->qos[i].usage_raw;
      *c->qos_at[i].grp_used_wall = c->qos[i].grp_used_wall;
    }
  });
}

fairway_error_t fairway_usage_restore_prepare(fairway_usage_journal_t* j, const char* dir,
                                              time_t last_ran, fairway_restore_t* out, char* line,
                                              size_t len) {
  if (!out || !line || !len)
    return fairway::guard([] { fairway::invalid("fairway_usage_restore_prepare: NULL argument"); });
  line[0] = '\0';
  std::optional<time_t> period;
  *out = FAIRWAY_RESTORE_UNUSABLE;
  const fairway_error_t read = fairway::guard([&] {
    if (!j || !dir) fairway::invalid("fairway_usage_journal_read_usage: NULL argument");
    period = fairway::read_usage(*j, dir);
  });
  if (read != FAIRWAY_OK) {
    std::snprintf(line, len, "usage file unusable, keeping slurmctld's usage: %s",
                  fairway_last_error());
  } else if (!period) {
    *out = FAIRWAY_RESTORE_NONE;
  } else if (*period != last_ran) {
    *out = FAIRWAY_RESTORE_STALE;
    std::snprintf(line, len,
                  "usage file is of %ld, the last period of %ld: keeping slurmctld's usage",
                  static_cast<long>(*period), static_cast<long>(last_ran));
  } else if (fairway::guard([&] { fairway::read_journals(*j, dir); }) != FAIRWAY_OK) {
    std::snprintf(line, len, "usage journal unusable, keeping slurmctld's usage: %s",
                  fairway_last_error());
  } else {
    *out = FAIRWAY_RESTORE_READY;
  }
  return FAIRWAY_OK;
}

size_t fairway_usage_restore_summary(const fairway_replay_counts_t* counts, time_t last_ran,
                                     char* line, size_t len) {
  if (!counts || !line || !len) return 0;
  int n = std::snprintf(line, len,
                        "usage of %zu associations restored from the period at %ld, plus %zu job "
                        "ends after it",
                        counts->restored, static_cast<long>(last_ran), counts->applied);
  if (n >= 0 && static_cast<size_t>(n) < len && counts->fresh)
    n += std::snprintf(line + n, len - n, "; %zu associations created since start from 0",
                       counts->fresh);
  return n < 0 ? 0 : std::min(static_cast<size_t>(n), len - 1);
}

fairway_error_t fairway_decay_state_recover_in(const char* dir, time_t now,
                                               fairway_decay_recovery_t* out) {
  if (!out)
    return fairway::guard([] { fairway::invalid("fairway_decay_state_recover_in: NULL out"); });
  out->path[0] = out->old_path[0] = '\0';
  out->info_line[0] = out->error_lines[0][0] = out->error_lines[1][0] = '\0';
  fairway::state_path(dir, fairway::StateFile::kDecay, out->path, sizeof out->path);
  fairway::state_path(dir, fairway::StateFile::kDecayOld, out->old_path, sizeof out->old_path);
  if (recover_decay_state(out->path, out->old_path, now, out) != FAIRWAY_OK) {
    out->last_ran = now;
    out->last_reset = 0;
    out->source = FAIRWAY_DECAY_FROM_NOW;
    std::snprintf(out->error, sizeof out->error, "%s", fairway_last_error());
  }
  if (out->source == FAIRWAY_DECAY_NO_FILE)
    std::snprintf(out->info_line, sizeof out->info_line, "no last decay state (%s) to recover",
                  out->path);
  if (out->source >= FAIRWAY_DECAY_FROM_PREVIOUS)
    std::snprintf(out->error_lines[0], sizeof out->error_lines[0], "decay state unusable: %s",
                  out->error);
  if (out->source == FAIRWAY_DECAY_FROM_PREVIOUS)
    std::snprintf(out->error_lines[1], sizeof out->error_lines[1],
                  "using the previous decay state %s (last period %ld)", out->old_path,
                  static_cast<long>(out->last_ran));
  else if (out->source == FAIRWAY_DECAY_FROM_NOW)
    std::snprintf(out->error_lines[1], sizeof out->error_lines[1], "%s",
                  "no usable decay state: counting periods from now; usage of running jobs since "
                  "the last saved period is not charged");
  return FAIRWAY_OK;
}

fairway_error_t fairway_decay_state_save(const char* dir, time_t last_ran, time_t last_reset) {
  char path[4096];
  if (!fairway::state_path(dir, fairway::StateFile::kDecay, path, sizeof path))
    return fairway::guard([] { fairway::invalid("fairway_decay_state_save: no path"); });
  return fairway::guard([&] {
    fairway::write_decay_state(path, fairway::DecayState{last_ran, last_reset});
  });
}

}  // extern "C"

fairway::JournalEntry fairway::job_end_entry(const fairway_job_charge_t& c,
                                             const fairway_job_end_t& end) noexcept {
  JournalEntry e;
  e.ended = !end.not_ended;
  e.job_id = end.job_id;
  e.assoc_id = end.assoc_id;
  e.real = c.real_decay;
  e.run = c.run_decay;
  if (end.qos.charged) {
    e.qos_id = end.qos.id;
    e.qos_usage = end.qos.nodecay ? c.real_nodecay : c.real_decay;
    e.qos_wall = end.qos.nodecay ? c.run_nodecay : c.run_decay;
  }
  if (end.part_qos.charged) {
    e.part_qos_id = end.part_qos.id;
    e.part_qos_usage = end.part_qos.nodecay ? c.real_nodecay : c.real_decay;
    e.part_qos_wall = end.part_qos.nodecay ? c.run_nodecay : c.run_decay;
  }
  return e;
}
