// whatif_json.cc - see whatif_json.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "whatif_json.h"

#include <nlohmann/json.hpp>

namespace fairway {
namespace {

using nlohmann::json;

json whatif_object(const WhatIf& w, size_t top) {
  json parts = json::array();
  for (const PartitionMoves& m : w.partitions) {
    json jobs = json::array();
    for (size_t k = 0; k < m.jobs_by_move.size() && k < top; k++) {
      const JobMove& mv = m.jobs_by_move[k];
      jobs.push_back({{"job", mv.job->id},
                      {"user", mv.job->user},
                      {"account", mv.job->account},
                      {"priority_before", mv.priority_before},
                      {"priority_after", mv.priority_after},
                      {"place_before", mv.place_before},
                      {"place_after", mv.place_after}});
    }
    parts.push_back({{"partition", m.partition},
                     {"jobs", m.jobs},
                     {"moved", m.moved},
                     {"spearman", m.spearman},
                     {"jobs_by_move", jobs}});
  }
  json assocs = json::array();
  for (const AssocChange& a : w.associations)
    assocs.push_back({{"account", a.account},
                      {"user", a.user.empty() ? json(nullptr) : json(a.user)},
                      {"fs_factor_before", a.before},
                      {"fs_factor_after", a.after}});
  return json{{"partitions", parts}, {"associations", assocs}};
}

}  // namespace

std::string format_whatif_json(const WhatIf& w, size_t top) {
  return whatif_object(w, top).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string format_shadow_json(const WhatIf& w, const std::string& policy_file, int64_t taken_at,
                               size_t top) {
  json doc = whatif_object(w, top);
  doc["fairway_shadow"] = 1;
  doc["policy"] = policy_file;
  doc["taken_at"] = taken_at;
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace fairway
