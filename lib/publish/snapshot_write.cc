// snapshot_write.cc - writing a snapshot (see snapshot.h), and the association trees that a
// snapshot and a tree make of each other.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <string>
#include <utility>
#include <vector>

#include "conf_values.h"
#include "fairshare_tres.h"
#include "json_fields.h"
#include "snapshot.h"

namespace fairway {
namespace {

using nlohmann::json;
using namespace json_fields;

std::string usage_json(long double u) {
  const double d = static_cast<double>(u);
  if (static_cast<long double>(d) == u) return json(d).dump();
  return json(fmt::format("{:a}", u)).dump();
}

// A usage list per listed TRES, each with a value per association.
void check_tres_usage(const Snapshot& s) {
  if (s.tres_usage.size() != s.fairshare_tres.size())
    error(fmt::format("{} TRES usage lists for {} listed TRES", s.tres_usage.size(),
                      s.fairshare_tres.size()));
  for (size_t k = 0; k < s.tres_usage.size(); ++k)
    if (s.tres_usage[k].size() != s.associations.size())
      error(fmt::format("{} values of {} usage for {} associations", s.tres_usage[k].size(),
                        s.fairshare_tres[k], s.associations.size()));
}

}  // namespace

std::string write_snapshot(const Snapshot& s) {
  if (!valid_dampening_factor(s.dampening_factor))
    error(fmt::format("dampening factor {}: {}", s.dampening_factor, kDampeningFactorRule));
  const bool held = s.usage_basis != UsageBasis::kHistorical;
  if (held && s.held.size() != s.associations.size())
    error(fmt::format("{} held usage values for {} associations", s.held.size(),
                      s.associations.size()));
  check_tres_usage(s);
  std::string tres_list;
  for (size_t k = 0; k < s.fairshare_tres.size(); ++k)
    tres_list += (k ? ", " : "") + quoted(s.fairshare_tres[k]);
  std::string out = fmt::format(
      "{{\"fairway_snapshot\": {}, \"algorithm\": \"{}\", \"dampening_factor\": {},{}{}\n"
      " \"associations\": [",
      s.queue ? 2 : 1, algorithm_name(s.algorithm),
      json(static_cast<uint64_t>(s.dampening_factor)).dump(),
      held ? fmt::format(" \"usage_basis\": \"{}\",", usage_basis_name(s.usage_basis)) : "",
      tres_list.empty() ? "" : " \"fairshare_tres\": [" + tres_list + "],");
  for (size_t i = 0; i < s.associations.size(); ++i) {
    const AssocRecord& r = s.associations[i];
    const bool parent = r.shares_parent || r.shares_raw == kSharesUseParent;
    std::string tres;
    for (size_t k = 0; k < s.fairshare_tres.size(); ++k)
      tres += fmt::format("{}{}: {}", k ? ", " : ", \"tres_usage\": {", quoted(s.fairshare_tres[k]),
                          usage_json(s.tres_usage[k][i]));
    if (!tres.empty()) tres += "}";
    out += fmt::format(
        "{}\n  {{\"id\": {}, \"parent\": {}, \"account\": {}, \"user\": {}, \"shares\": {}, "
        "\"usage\": {}{}{}}}",
        i ? "," : "", r.id, r.parent_id ? std::to_string(r.parent_id) : "null", quoted(r.account),
        r.user.empty() ? "null" : quoted(r.user),
        parent ? "\"parent\"" : std::to_string(r.shares_raw), usage_json(r.usage_raw),
        held ? ", \"held_usage\": " + usage_json(s.held[i]) : std::string(), tres);
  }
  out += "]";
  if (s.queue) out += write_queue_keys(s);
  out += "}\n";
  return out;
}

AssocTree snapshot_tree(const Snapshot& s) {
  if (s.associations.empty()) error("the snapshot has no associations");
  try {
    std::vector<AssocRecord> records = s.associations;
    accumulate_direct_usage(records);
    return AssocTree::build(std::move(records));
  } catch (const TreeError& e) {
    error(e.what());
  }
}

AssocTree snapshot_compared_tree(const Snapshot& s) {
  AssocTree t = snapshot_tree(s);
  if (s.usage_basis == UsageBasis::kHistorical) return t;
  if (s.held.size() != s.associations.size())
    error(fmt::format("{} held usage values for {} associations", s.held.size(),
                      s.associations.size()));
  try {
    hold_usage(t, s.held);
  } catch (const TreeError& e) {
    error(e.what());
  }
  return t;
}

FairShareInput snapshot_fair_share_input(const Snapshot& s) {
  FairShareInput in{s.associations, s.algorithm,      s.dampening_factor,
                    s.usage_basis,  s.fairshare_tres, s.tres_usage};
  if (s.usage_basis != UsageBasis::kHistorical && s.held.size() == in.associations.size())
    for (size_t i = 0; i < in.associations.size(); ++i) in.associations[i].usage_raw = s.held[i];
  return in;
}

AssocTree snapshot_tres_tree(const Snapshot& s, std::string_view tres) {
  check_tres_usage(s);
  for (size_t k = 0; k < s.fairshare_tres.size(); ++k) {
    if (ascii_lower(s.fairshare_tres[k]) != ascii_lower(std::string(tres))) continue;
    AssocTree t = snapshot_tree(s);
    try {
      hold_usage(t, s.tres_usage[k]);
    } catch (const TreeError& e) {
      error(e.what());
    }
    return t;
  }
  std::string listed;
  for (const std::string& n : s.fairshare_tres) listed += (listed.empty() ? "" : ", ") + n;
  error(fmt::format("no fair-share of {} usage in the snapshot ({})", quoted(std::string(tres)),
                    listed.empty() ? "it was taken without fairway_fairshare_tres"
                                   : "fairway_fairshare_tres lists " + listed));
}

Snapshot snapshot_from_tree(const AssocTree& t, Algorithm algorithm, double dampening_factor) {
  Snapshot s;
  s.algorithm = algorithm;
  s.dampening_factor = dampening_factor;
  s.associations.reserve(t.size());
  const std::vector<long double> direct = direct_usage(t);
  for (uint32_t i = 0; i < t.size(); ++i) {
    AssocRecord r = t.record(i);
    r.usage_raw = direct[i];
    r.shares_parent = t.uses_parent_shares(i);
    r.shares_raw = t.shares_raw(i);
    s.associations.push_back(std::move(r));
  }
  return s;
}

}  // namespace fairway
