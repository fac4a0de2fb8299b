// usage_files.cc - the C API of fairway_usage_files.h, the files of restart safety: the decay state
// file, the usage file and its journal (lib/state/decay_state.h, lib/state/usage_store.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_guard.h"
#include "decay_state.h"
#include "fairway.h"
#include "fairway_usage_files.h"
#include "usage_store.h"

extern "C" {

fairway_error_t fairway_decay_state_read(const char* path, time_t now, int* found, time_t* last_ran,
                                         time_t* last_reset) {
  return fairway::guard([&] {
    if (!path || !found || !last_ran || !last_reset)
      fairway::invalid("fairway_decay_state_read: NULL argument");
    *found = 0;
    *last_ran = 0;
    *last_reset = 0;
    if (auto s = fairway::read_decay_state(path, now)) {
      *found = 1;
      *last_ran = s->last_ran;
      *last_reset = s->last_reset;
    }
  });
}

fairway_error_t fairway_decay_state_write(const char* path, time_t last_ran, time_t last_reset) {
  return fairway::guard([&] {
    if (!path) fairway::invalid("fairway_decay_state_write: NULL path");
    fairway::write_decay_state(path, fairway::DecayState{last_ran, last_reset});
  });
}

fairway_error_t fairway_usage_write(const char* path, time_t period,
                                    const fairway_usage_entry_t* assocs, size_t nassocs,
                                    const fairway_usage_entry_t* qos, size_t nqos) {
  return fairway::guard([&] {
    if (!path || (!assocs && nassocs) || (!qos && nqos))
      fairway::invalid("fairway_usage_write: NULL argument");
    fairway::UsageSnapshot s;
    s.period = period;
    s.assocs.reserve(nassocs);
    for (size_t i = 0; i < nassocs; i++)
      s.assocs.push_back({assocs[i].id, assocs[i].usage_raw, assocs[i].grp_used_wall});
    s.qos.reserve(nqos);
    for (size_t i = 0; i < nqos; i++)
      s.qos.push_back({qos[i].id, qos[i].usage_raw, qos[i].grp_used_wall});
    fairway::write_usage_file(path, s);
  });
}

}  // extern "C"

struct fairway_usage_file {
  fairway::UsageSnapshot s;
  std::vector<fairway_usage_entry_t> assocs, qos;
};

extern "C" {

fairway_error_t fairway_usage_read(const char* path, fairway_usage_file_t** out) {
  return fairway::guard([&] {
    if (!path || !out) fairway::invalid("fairway_usage_read: NULL argument");
    *out = nullptr;
    auto s = fairway::read_usage_file(path);
    if (!s) return;
    auto f = std::make_unique<fairway_usage_file>();
    for (const auto& e : s->assocs) f->assocs.push_back({e.id, e.usage_raw, e.grp_used_wall});
    for (const auto& e : s->qos) f->qos.push_back({e.id, e.usage_raw, e.grp_used_wall});
    f->s = std::move(*s);
    *out = f.release();
  });
}

time_t fairway_usage_period(const fairway_usage_file_t* f) { return f ? f->s.period : 0; }

size_t fairway_usage_count(const fairway_usage_file_t* f, int qos) {
  return f ? (qos ? f->qos.size() : f->assocs.size()) : 0;
}

const fairway_usage_entry_t* fairway_usage_entry(const fairway_usage_file_t* f, int qos,
                                                 size_t index) {
  if (!f) return nullptr;
  const auto& v = qos ? f->qos : f->assocs;
  return index < v.size() ? &v[index] : nullptr;
}

void fairway_usage_destroy(fairway_usage_file_t** f) {
  if (!f || !*f) return;
  delete *f;
  *f = nullptr;
}

size_t fairway_journal_format(const fairway_journal_entry_t* e, char* buf, size_t len) {
  if (!e || !buf) return 0;
  try {
    fairway::JournalEntry j;
    j.epoch = e->epoch;
    j.job_id = e->job_id;
    j.assoc_id = e->assoc_id;
    j.real = e->real;
    j.run = e->run;
    j.qos_id = e->qos_id;
    j.qos_usage = e->qos_usage;
    j.qos_wall = e->qos_wall;
    j.part_qos_id = e->part_qos_id;
    j.part_qos_usage = e->part_qos_usage;
    j.part_qos_wall = e->part_qos_wall;
    j.ended = !e->not_ended;
    const std::string line = fairway::format_journal_line(j);
    if (line.size() + 1 > len) return 0;
    std::memcpy(buf, line.c_str(), line.size() + 1);
    return line.size();
  } catch (...) {
    return 0;
  }
}

fairway_error_t fairway_journal_read(const char* path, fairway_journal_entry_t** entries,
                                     size_t* count) {
  return fairway::guard([&] {
    if (!path || !entries || !count) fairway::invalid("fairway_journal_read: NULL argument");
    *entries = nullptr;
    *count = 0;
    const auto v = fairway::read_journal_file(path);
    if (v.empty()) return;
    auto* out = static_cast<fairway_journal_entry_t*>(
        std::calloc(v.size(), sizeof(fairway_journal_entry_t)));
    if (!out) throw std::bad_alloc();
    for (size_t i = 0; i < v.size(); i++) {
      out[i].epoch = v[i].epoch;
      out[i].job_id = v[i].job_id;
      out[i].assoc_id = v[i].assoc_id;
      out[i].real = v[i].real;
      out[i].run = v[i].run;
      out[i].qos_id = v[i].qos_id;
      out[i].qos_usage = v[i].qos_usage;
      out[i].qos_wall = v[i].qos_wall;
      out[i].part_qos_id = v[i].part_qos_id;
      out[i].part_qos_usage = v[i].part_qos_usage;
      out[i].part_qos_wall = v[i].part_qos_wall;
      out[i].not_ended = !v[i].ended;
    }
    *entries = out;
    *count = v.size();
  });
}

void fairway_journal_destroy(fairway_journal_entry_t** entries) {
  if (!entries) return;
  std::free(*entries);
  *entries = nullptr;
}

}  // extern "C"
