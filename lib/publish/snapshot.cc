// Reading a snapshot (see snapshot.h); writing it and its trees are in snapshot_write.cc,
// the queue of version 2 in snapshot_queue.cc.
#include "snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "conf_values.h"
#include "fairshare_tres.h"
#include "json_fields.h"
#include "snapshot_syntax.h"

namespace fairway {
namespace {

using nlohmann::json;

// Deepest legitimate value: root object / "jobs" array / job object / "rows" array / row
// object / "tres" object / value (version 1: root / "associations" / association / value).
constexpr int kMaxDepth = 7;

using namespace json_fields;
using snapshot_syntax::found_at;
using snapshot_syntax::line_column;

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
  reject_unknown_keys(
      a, {"id", "parent", "account", "user", "shares", "usage", "held_usage", "tres_usage"}, where);

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

// "usage_basis" (absent: historical) and, under allocated or committed, every association's
// "held_usage"; "held_usage" under the historical basis is refused (it would be ignored).
void parse_held_usage(const json& doc, const json& assocs, Snapshot& s) {
  if (const auto it = doc.find("usage_basis"); it != doc.end()) {
    if (!it->is_string())
      error(fmt::format("\"usage_basis\" must be a string, not {}", type_name(*it)));
    const std::string& name = it->get_ref<const std::string&>();
    const auto b = parse_usage_basis(name);
    if (!b)
      error(fmt::format("unknown \"usage_basis\" {} (historical, allocated or committed)",
                        quoted(name)));
    s.usage_basis = *b;
  }
  const bool held = s.usage_basis != UsageBasis::kHistorical;
  if (held) s.held.reserve(assocs.size());
  for (size_t i = 0; i < assocs.size(); ++i) {
    const std::string where = fmt::format("associations[{}] (id {})", i, s.associations[i].id);
    const auto it = assocs[i].find("held_usage");
    if (!held) {
      if (it != assocs[i].end())
        error(
            fmt::format("{}: \"held_usage\" without a \"usage_basis\" of allocated or "
                        "committed",
                        where));
      continue;
    }
    if (it == assocs[i].end())
      error(fmt::format("{}: no \"held_usage\" (required with \"usage_basis\" {})", where,
                        quoted(usage_basis_name(s.usage_basis))));
    s.held.push_back(get_usage(*it, where + ": \"held_usage\""));
  }
}

// "fairshare_tres" (absent: none) and, with it, every association's "tres_usage": an object
// naming each listed TRES once, with the usage of it charged directly to the association (in
// the usage basis, as "held_usage" is), in the form of "usage".
void parse_tres_usage(const json& doc, const json& assocs, Snapshot& s) {
  if (const auto it = doc.find("fairshare_tres"); it != doc.end()) {
    const json& list = require_array(*it, "\"fairshare_tres\"");
    if (list.empty()) error("\"fairshare_tres\" is empty (leave it out for none)");
    if (list.size() > kMaxFairShareTres)
      error(fmt::format("\"fairshare_tres\" lists {} TRES, at most {}", list.size(),
                        kMaxFairShareTres));
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string what = fmt::format("\"fairshare_tres\"[{}]", k);
      if (!list[k].is_string())
        error(fmt::format("{} must be a string, not {}", what, type_name(list[k])));
      const std::string& name = list[k].get_ref<const std::string&>();
      if (const auto problem = fairshare_tres_name_problem(name))
        error(fmt::format("{} {}: {}", what, json_fields::quoted(name), *problem));
      for (const std::string& before : s.fairshare_tres)
        if (ascii_lower(before) == ascii_lower(name))
          error(fmt::format("{} {} is listed twice", what, json_fields::quoted(name)));
      s.fairshare_tres.push_back(name);
    }
  }
  s.tres_usage.assign(s.fairshare_tres.size(), {});
  for (auto& u : s.tres_usage) u.reserve(assocs.size());
  for (size_t i = 0; i < assocs.size(); ++i) {
    const std::string where = fmt::format("associations[{}] (id {})", i, s.associations[i].id);
    const auto it = assocs[i].find("tres_usage");
    if (s.fairshare_tres.empty()) {
      if (it != assocs[i].end())
        error(fmt::format("{}: \"tres_usage\" without a top-level \"fairshare_tres\"", where));
      continue;
    }
    if (it == assocs[i].end())
      error(fmt::format("{}: no \"tres_usage\" (required with \"fairshare_tres\")", where));
    const std::string what = where + ": \"tres_usage\"";
    require_object(*it, what);
    for (auto e = it->begin(); e != it->end(); ++e)
      if (std::find(s.fairshare_tres.begin(), s.fairshare_tres.end(), e.key()) ==
          s.fairshare_tres.end())  // the list's spelling (the names are its keys)
        error(
            fmt::format("{}: {} is not in \"fairshare_tres\"", what, json_fields::quoted(e.key())));
    for (size_t k = 0; k < s.fairshare_tres.size(); ++k) {
      const auto e = it->find(s.fairshare_tres[k]);
      if (e == it->end())
        error(fmt::format("{}: no usage of {}", what, json_fields::quoted(s.fairshare_tres[k])));
      s.tres_usage[k].push_back(
          get_usage(*e, fmt::format("{}: {}", what, json_fields::quoted(s.fairshare_tres[k]))));
    }
  }
}

// How a JSON value reads in a message: a number as written, else its kind.
std::string describe(const json& v) {
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  if (v.is_string()) return "a string";
  return v.is_array() ? "an array" : "an object";
}

}  // namespace

bool valid_dampening_factor(double d) { return d >= 1 && d <= 65535 && d == std::floor(d); }

std::optional<uint16_t> parse_dampening_factor(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  uint32_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  if (v < 1 || v > 65535) return std::nullopt;
  return static_cast<uint16_t>(v);
}

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
    std::string where = snapshot_syntax::first_error(text);
    if (where.empty()) {  // not expected: the two readers disagree
      const auto* pe = dynamic_cast<const json::parse_error*>(&e);
      where = pe ? line_column(text, pe->byte ? pe->byte - 1 : 0) + ": not valid JSON"
                 : std::string("not valid JSON");
    }
    error(where);
  }
  if (!doc.is_object()) error(fmt::format("top level must be an object, not {}", type_name(doc)));
  const json& version = require(doc, "fairway_snapshot", "top level");
  if (!version.is_number_integer() || !version.is_number_unsigned() ||
      version.get<uint64_t>() < 1 || version.get<uint64_t>() > kSnapshotVersion)
    error(fmt::format("unsupported version {} (this reader knows versions 1 to {})", version.dump(),
                      kSnapshotVersion));
  const bool v2 = version.get<uint64_t>() == 2;
  if (v2)
    reject_unknown_keys(doc,
                        {"fairway_snapshot", "algorithm", "dampening_factor", "usage_basis",
                         "fairshare_tres", "associations", "slurm_release", "taken_at", "cluster",
                         "priority", "partitions", "qos", "jobs"},
                        "top level");
  else
    reject_unknown_keys(doc,
                        {"fairway_snapshot", "algorithm", "dampening_factor", "usage_basis",
                         "fairshare_tres", "associations"},
                        "top level (version 1)");

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
  const json& damp = require(doc, "dampening_factor", "top level");
  // An integer token (2.0 is refused like --dampening 2.0).
  if (!damp.is_number_unsigned() || damp.get<uint64_t>() < 1 || damp.get<uint64_t>() > 65535)
    error(fmt::format("\"dampening_factor\" is {}: {}", describe(damp), kDampeningFactorRule));
  s.dampening_factor = static_cast<double>(damp.get<uint64_t>());

  const json& assocs = require(doc, "associations", "top level");
  if (!assocs.is_array())
    error(fmt::format("\"associations\" must be an array, not {}", type_name(assocs)));
  s.associations.reserve(assocs.size());
  for (size_t i = 0; i < assocs.size(); ++i)
    s.associations.push_back(parse_association(assocs[i], i));
  parse_held_usage(doc, assocs, s);
  parse_tres_usage(doc, assocs, s);
  (void)snapshot_tree(s);  // shape errors are snapshot errors too
  if (v2) parse_queue_keys(doc, s);
  return s;
}

// Blanks read before the snapshot's opening brace at most.
constexpr size_t kMaxLeadingBlanks = size_t{1} << 20;

// After the opening brace, as each chunk arrives (TEXT[from, end) is new): a byte no JSON text
// holds (a control byte other than a blank: NUL from /dev/zero, most binary files) and a run of
// more blanks than kMaxLeadingBlanks (no snapshot written by anything has one) end the reading
// there, so that no such input is buffered up to the size limit.  `run` carries the blanks in a
// row across chunks.
void refuse_what_is_not_json(std::string_view text, size_t from, size_t& run,
                             const std::string& name) {
  for (size_t i = from; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (++run > kMaxLeadingBlanks)
        error(fmt::format("{}: {}: more than {} blanks in a row: no snapshot (a JSON object)", name,
                          line_column(text, i), kMaxLeadingBlanks));
      continue;
    }
    run = 0;
    if (c < 0x20)
      error(fmt::format("{}: {}: a control byte ({}) that no JSON text holds", name,
                        line_column(text, i), found_at(text, i)));
  }
}

Snapshot read_snapshot_fd(int fd, const std::string& name) {
  constexpr size_t kChunk = size_t{1} << 20;
  constexpr size_t kLimit = kMaxSnapshotBytes;
  const auto too_large = [&] {
    error(fmt::format("{} is larger than {} bytes, the limit for a snapshot", name, kLimit));
  };
  // Capacity never exceeds kLimit + 1: a full buffer of that size means "too large". realloc
  // rather than std::string, whose growth can double past the limit (and copies: glibc moves
  // large blocks with mremap).
  size_t cap = kChunk;
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > kLimit) too_large();
    cap = std::max<size_t>(static_cast<size_t>(st.st_size) + 1, 4096);  // + 1: sees the end
  }
  std::unique_ptr<char, decltype(&std::free)> buf(static_cast<char*>(std::malloc(cap)), &std::free);
  if (!buf) error(fmt::format("cannot read {}: {}", name, std::strerror(ENOMEM)));
  size_t size = 0;
  // Until the first byte that is not blank (nor a UTF-8 byte order mark): where the blanks
  // scanned so far end. A snapshot is an object: any other first byte refuses the input at
  // once, without reading on (/dev/zero, `yes`, a binary file).
  size_t scanned = 0;
  bool started = false;
  size_t blank_run = 0;  // blanks in a row at the end of what was read
  const auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  for (;;) {
    if (size == cap) {
      if (cap > kLimit) too_large();
      const size_t next = std::min(cap * 2, kLimit + 1);
      char* grown = static_cast<char*>(std::realloc(buf.get(), next));
      if (!grown) error(fmt::format("cannot read {}: {}", name, std::strerror(ENOMEM)));
      (void)buf.release();
      buf.reset(grown);
      cap = next;
    }
    const ssize_t n = ::read(fd, buf.get() + size, std::min(cap - size, kChunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      error(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
    }
    if (n == 0) break;
    const size_t from = size;
    size += static_cast<size_t>(n);
    if (started) {
      refuse_what_is_not_json(std::string_view(buf.get(), size), from, blank_run, name);
      continue;
    }
    const char* b = buf.get();
    if (scanned == 0 && b[0] == '\xEF') {
      if (size < 3) continue;  // the rest of a byte order mark may follow
      if (std::memcmp(b, "\xEF\xBB\xBF", 3) == 0) scanned = 3;
    }
    while (scanned < size && is_blank(b[scanned])) ++scanned;
    if (scanned < size) {
      started = true;
      if (b[scanned] != '{') {
        const std::string_view text(b, size);
        error(fmt::format("{}: {}: expected '{{' (a snapshot is a JSON object), found {}", name,
                          line_column(text, scanned), found_at(text, scanned)));
      }
      refuse_what_is_not_json(std::string_view(b, size), scanned, blank_run, name);
    } else if (size > kMaxLeadingBlanks) {
      error(fmt::format("{}: more than {} bytes of blanks and no snapshot (a JSON object)", name,
                        kMaxLeadingBlanks));
    }
  }
  try {
    return parse_snapshot(std::string_view(buf.get(), size));
  } catch (const SnapshotError& e) {
    std::string_view what = e.what();
    if (what.substr(0, 10) == "snapshot: ") what.remove_prefix(10);
    error(fmt::format("{}: {}", name, what));
  }
}

Snapshot read_snapshot_file(const std::string& path) {
  const std::string name = quoted(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) error(fmt::format("cannot open {}: {}", name, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  return read_snapshot_fd(fd, name);
}

}  // namespace fairway
