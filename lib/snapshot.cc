// Snapshot reader/writer (see snapshot.h).
#include "snapshot.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#ifndef FMT_HEADER_ONLY
#define FMT_HEADER_ONLY
#endif
#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fairway {
namespace {

using nlohmann::json;

// Deepest legitimate value: root object / "associations" array / association object / value.
constexpr int kMaxDepth = 4;

[[noreturn]] void error(const std::string& msg) { throw SnapshotError("snapshot: " + msg); }

std::string quoted(const std::string& s) {
  return json(s).dump(-1, ' ', true, json::error_handler_t::replace);
}

const char* type_name(const json& v) { return v.type_name(); }

// "associations[3] (id 211)" once the id is known, "associations[3]" before.
struct Where {
  size_t index;
  bool has_id = false;
  uint32_t id = 0;
  std::string str() const {
    std::string s = fmt::format("associations[{}]", index);
    if (has_id) s += fmt::format(" (id {})", id);
    return s;
  }
};

const json& require(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) error(fmt::format("{}: missing key \"{}\"", where, key));
  return *it;
}

void reject_unknown_keys(const json& obj, std::initializer_list<const char*> known,
                         const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) error(fmt::format("{}: unknown key {}", where, quoted(it.key())));
  }
}

// A JSON integer in [lo, hi] (integer tokens only: 1.0 is not accepted).
uint64_t get_uint(const json& v, uint64_t lo, uint64_t hi, const std::string& what) {
  if (!v.is_number_integer())
    error(fmt::format("{} must be an integer, not {}", what, type_name(v)));
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x >= lo && x <= hi) return x;
    error(fmt::format("{} is {}, must be in [{}, {}]", what, x, lo, hi));
  }
  error(fmt::format("{} is {}, must be in [{}, {}]", what, v.get<int64_t>(), lo, hi));
}

std::string get_name(const json& v, const std::string& what) {
  if (!v.is_string()) error(fmt::format("{} must be a string, not {}", what, type_name(v)));
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty()) error(fmt::format("{} must not be empty", what));
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) error(fmt::format("{} contains a control character", what));
  return s;
}

long double get_usage(const json& v, const std::string& what) {
  long double u;
  if (v.is_number()) {
    if (v.is_number_integer() && !v.is_number_unsigned())
      error(fmt::format("{} is negative", what));
    u = v.is_number_unsigned() ? static_cast<long double>(v.get<uint64_t>())
                               : static_cast<long double>(v.get<double>());
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.empty() || s.size() > 64) error(fmt::format("{} is not a number", what));
    for (char c : s)
      if (c == ' ' || c == '\t' || c == '\n') error(fmt::format("{} is not a number", what));
    char* end = nullptr;
    errno = 0;
    u = std::strtold(s.c_str(), &end);
    if (end != s.c_str() + s.size()) error(fmt::format("{} is not a number: {}", what, quoted(s)));
    if (errno == ERANGE && std::isinf(u)) error(fmt::format("{} is infinite", what));
  } else {
    error(fmt::format("{} must be a number, not {}", what, type_name(v)));
  }
  if (std::isnan(u)) error(fmt::format("{} is NaN", what));
  if (std::isinf(u)) error(fmt::format("{} is infinite", what));
  if (u < 0) error(fmt::format("{} is negative", what));
  return u + 0.0L;  // -0 -> +0
}

AssocRecord parse_association(const json& a, size_t index) {
  Where w{index};
  if (!a.is_object()) error(fmt::format("{} must be an object, not {}", w.str(), type_name(a)));
  AssocRecord r;
  r.id = static_cast<uint32_t>(
      get_uint(require(a, "id", w.str()), 1, UINT32_MAX, w.str() + ": \"id\""));
  w.has_id = true;
  w.id = r.id;
  const std::string where = w.str();
  reject_unknown_keys(a, {"id", "parent", "account", "user", "shares", "usage"}, where);

  const json& parent = require(a, "parent", where);
  r.parent_id =
      parent.is_null()
          ? 0
          : static_cast<uint32_t>(get_uint(parent, 1, UINT32_MAX, where + ": \"parent\""));
  r.account = get_name(require(a, "account", where), where + ": \"account\"");
  const json& user = require(a, "user", where);
  if (!user.is_null()) r.user = get_name(user, where + ": \"user\" (null for an account)");

  const json& shares = require(a, "shares", where);
  if (shares.is_string()) {
    if (shares.get_ref<const std::string&>() != "parent")
      error(fmt::format("{}: \"shares\" must be an integer or \"parent\", not {}", where,
                        quoted(shares.get_ref<const std::string&>())));
    r.shares_parent = true;
    r.shares_raw = kSharesUseParent;
  } else {
    if (!shares.is_number_integer())
      error(fmt::format("{}: \"shares\" must be an integer or \"parent\", not {}", where,
                        type_name(shares)));
    r.shares_raw =
        static_cast<uint32_t>(get_uint(shares, 0, UINT32_MAX - 1, where + ": \"shares\""));
    if (r.shares_raw == kSharesUseParent)
      error(fmt::format("{}: \"shares\" {} is Slurm's Fairshare=parent marker; write \"parent\"",
                        where, kSharesUseParent));
  }
  r.usage_raw = get_usage(require(a, "usage", where), where + ": \"usage\"");
  return r;
}

std::string usage_json(long double u) {
  const double d = static_cast<double>(u);
  if (static_cast<long double>(d) == u) return json(d).dump();
  return json(fmt::format("{:a}", u)).dump();
}

}  // namespace

Snapshot parse_snapshot(std::string_view text) {
  if (text.size() > kMaxSnapshotBytes)
    error(fmt::format("file too large ({} bytes, limit {})", text.size(), kMaxSnapshotBytes));
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) error(fmt::format("nested deeper than {} levels", kMaxDepth));
      return true;
    });
  } catch (const json::exception& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n' || c == '\r') c = ' ';
    error("invalid JSON: " + what);
  }
  if (!doc.is_object()) error(fmt::format("top level must be an object, not {}", type_name(doc)));
  reject_unknown_keys(doc, {"fairway_snapshot", "algorithm", "dampening_factor", "associations"},
                      "top level");
  const json& version = require(doc, "fairway_snapshot", "top level");
  if (!version.is_number_integer() || !version.is_number_unsigned() ||
      version.get<uint64_t>() != kSnapshotVersion)
    error(fmt::format("unsupported version {} (this reader knows version {})", version.dump(),
                      kSnapshotVersion));

  Snapshot s;
  const json& algo = require(doc, "algorithm", "top level");
  if (!algo.is_string())
    error(fmt::format("\"algorithm\" must be a string, not {}", type_name(algo)));
  const std::string& name = algo.get_ref<const std::string&>();
  if (name == "fair_tree")
    s.algorithm = Algorithm::kFairTree;
  else if (name == "classic")
    s.algorithm = Algorithm::kClassic;
  else if (name == "depth_oblivious")
    s.algorithm = Algorithm::kDepthOblivious;
  else
    error(fmt::format("unknown \"algorithm\" {} (fair_tree, classic or depth_oblivious)",
                      quoted(name)));
  s.dampening_factor = static_cast<double>(
      get_uint(require(doc, "dampening_factor", "top level"), 1, 65535, "\"dampening_factor\""));

  const json& assocs = require(doc, "associations", "top level");
  if (!assocs.is_array())
    error(fmt::format("\"associations\" must be an array, not {}", type_name(assocs)));
  s.associations.reserve(assocs.size());
  for (size_t i = 0; i < assocs.size(); ++i)
    s.associations.push_back(parse_association(assocs[i], i));
  (void)snapshot_tree(s);  // shape errors are snapshot errors too
  return s;
}

Snapshot read_snapshot_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) error(fmt::format("cannot open {}", quoted(path)));
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxSnapshotBytes)
      error(fmt::format("{} is larger than {} bytes", quoted(path), kMaxSnapshotBytes));
  }
  if (in.bad()) error(fmt::format("cannot read {}", quoted(path)));
  return parse_snapshot(text);
}

std::string write_snapshot(const Snapshot& s) {
  std::string out = fmt::format(
      "{{\"fairway_snapshot\": {}, \"algorithm\": \"{}\", \"dampening_factor\": {},\n"
      " \"associations\": [",
      kSnapshotVersion, algorithm_name(s.algorithm),
      json(static_cast<uint64_t>(s.dampening_factor)).dump());
  for (size_t i = 0; i < s.associations.size(); ++i) {
    const AssocRecord& r = s.associations[i];
    const bool parent = r.shares_parent || r.shares_raw == kSharesUseParent;
    out += fmt::format(
        "{}\n  {{\"id\": {}, \"parent\": {}, \"account\": {}, \"user\": {}, \"shares\": {}, "
        "\"usage\": {}}}",
        i ? "," : "", r.id, r.parent_id ? std::to_string(r.parent_id) : "null", quoted(r.account),
        r.user.empty() ? "null" : quoted(r.user),
        parent ? "\"parent\"" : std::to_string(r.shares_raw), usage_json(r.usage_raw));
  }
  out += "]}\n";
  return out;
}

AssocTree snapshot_tree(const Snapshot& s) {
  try {
    std::vector<AssocRecord> records = s.associations;
    accumulate_direct_usage(records);
    return AssocTree::build(std::move(records));
  } catch (const TreeError& e) {
    error(e.what());
  }
}

Snapshot snapshot_from_tree(const AssocTree& t, Algorithm algorithm, double dampening_factor) {
  Snapshot s;
  s.algorithm = algorithm;
  s.dampening_factor = dampening_factor;
  s.associations.reserve(t.size());
  for (uint32_t i = 0; i < t.size(); ++i) {
    AssocRecord r = t.record(i);
    long double direct = t.usage_raw(i);
    for (uint32_t c : t.children(i)) direct -= t.usage_raw(c);
    r.usage_raw = direct > 0 ? direct : 0.0L;
    r.shares_parent = t.uses_parent_shares(i);
    r.shares_raw = t.shares_raw(i);
    s.associations.push_back(std::move(r));
  }
  return s;
}

}  // namespace fairway
