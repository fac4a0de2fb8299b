// sshare -a -l -P output and its JSON form (see sshare_format.h).
#include "sshare_format.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

namespace fairway {
namespace {

// print_fields_double() prints nothing for these "unset" markers.
std::optional<double> shown(double v) {
  if (is_unset(v)) return std::nullopt;
  return v;
}

// assoc_mgr_get_shares: share->usage_raw = (uint64_t)assoc->usage->usage_raw. Out of range is
// undefined in C; gcc on x86-64 (Debian's sshare/slurmctld) yields 0 there, so do we.
std::optional<uint64_t> raw_usage(long double u) {
  constexpr long double two64 = 18446744073709551616.0L;
  const uint64_t v = (u >= 0 && u < two64) ? static_cast<uint64_t>(u) : 0;
  if (v == kNoVal64 || v == kInfinite64) return std::nullopt;  // print_fields_uint64
  return v;
}

}  // namespace

std::vector<SshareRow> sshare_rows(const AssocTree& t, const FairShareResult& r, Algorithm algo,
                                   const SshareOptions& opt) {
  if (r.shares_norm.size() != t.size() || r.usage_norm.size() != t.size() ||
      r.usage_efctv.size() != t.size() || r.level_fs.size() != t.size() ||
      r.fs_factor.size() != t.size())
    throw std::invalid_argument("fair-share result does not match the tree");
  const bool fair_tree = algo == Algorithm::kFairTree;
  std::vector<SshareRow> rows;
  rows.reserve(t.size());

  // slurmdb_tree_name_get(): account names seen so far -> (first, last) indentation.
  std::unordered_map<std::string, std::pair<size_t, size_t>> seen;

  for (uint32_t i : hierarchical_order(t, opt.sibling_order)) {
    const bool user = t.is_user(i);
    const bool is_root = i == t.root();
    SshareRow row{};
    row.index = i;
    row.account = t.account(i);
    row.user = t.user(i);
    const std::string& account = row.account;
    const std::string parent_account =
        is_root ? std::string() : std::string(t.account(t.parent(i)));

    // Account column. Users are looked up as "|user" (never found), with their account as
    // parent; accounts by name, with the direct parent's account (none for the root).
    const std::string* parent_name = user ? &account : (is_root ? nullptr : &parent_account);
    auto found = user ? seen.end() : seen.find(account);
    if (parent_name && found != seen.end()) {
      row.account_column = std::string(found->second.first, ' ') + account;
    } else {
      size_t spaces = 0;
      if (parent_name) {
        auto p = seen.find(*parent_name);
        if (p != seen.end()) spaces = p->second.second + 1;
      }
      row.account_column = std::string(spaces, ' ') + (user ? *parent_name : account);
      if (!user) {
        auto [it, inserted] = seen.try_emplace(account, spaces, spaces);
        if (!inserted) it->second.second = spaces;
      }
    }

    // assoc_mgr_get_shares: the root's shares_raw is reported as NO_VAL.
    const uint32_t shares_raw = is_root ? kNoVal : t.shares_raw(i);
    row.parent_shares = shares_raw == kSharesUseParent;
    if (!row.parent_shares && shares_raw != kNoVal && shares_raw != kInfinite)
      row.raw_shares = shares_raw;
    row.norm_shares = shown(r.shares_norm[i]);
    row.raw_usage = raw_usage(t.usage_raw(i));
    const double usage_norm = static_cast<double>(r.usage_norm[i]);
    const double usage_efctv = static_cast<double>(r.usage_efctv[i]);
    row.norm_usage = shown(usage_norm);
    row.effective_usage = shown(usage_efctv);
    if (fair_tree) {
      if (user) row.fairshare = shown(r.fs_factor[i]);
      if (!row.parent_shares) row.level_fs = shown(static_cast<double>(r.level_fs[i]));
    } else {
      row.fairshare = shown(classic_fs_factor(static_cast<long double>(usage_efctv),
                                              static_cast<long double>(r.shares_norm[i]),
                                              opt.dampening_factor));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::string num(const std::optional<double>& v) { return v ? fmt::format("{:f}", *v) : ""; }

// sshare's table (print_fields.c without -P): each field padded to its width, right-aligned
// unless the width is negative, and followed by one space.
std::string cell(const std::string& text, int len) {
  const size_t width = static_cast<size_t>(len < 0 ? -len : len);
  std::string v = text;
  if (v.size() > width) {  // cut, the last character replaced by '+'
    v.resize(width);
    v[width - 1] = '+';
  }
  const std::string pad(width - v.size(), ' ');
  return (len < 0 ? v + pad : pad + v) + " ";
}

// A double in a field of `len`: %f, or %e with as many digits as fit when %f is too wide; an
// unset value is blank.
std::string double_cell(const std::optional<double>& v, int len) {
  if (!v) return cell(" ", len);
  const int width = len < 0 ? -len : len;
  std::string f = fmt::format("{:f}", *v);
  if (static_cast<int>(f.size()) <= width) return cell(f, len);
  // print_fields_double: the precision is the width, less what the exponent form overflows it.
  const std::string e = fmt::format("{:{}.{}e}", *v, width, width);
  int precision = width;
  if (static_cast<int>(e.size()) > width) precision -= static_cast<int>(e.size()) - width;
  if (precision < 0) precision = 0;
  // The field is as wide as the precision, narrower than the number: no padding.
  return fmt::format("{:.{}e}", *v, precision) + " ";
}

}  // namespace

std::string format_sshare(const AssocTree& t, const FairShareResult& r, Algorithm algo,
                          const SshareOptions& opt) {
  const bool fair_tree = algo == Algorithm::kFairTree;
  std::string tres_run;
  for (const std::string& name : opt.tres_names)
    tres_run += fmt::format("{}{}=0", tres_run.empty() ? "" : ",", name);

  std::string out;
  auto line = [&](const std::vector<std::string>& fields) {
    for (size_t k = 0; k < fields.size(); ++k) {
      out += fields[k];
      if (opt.parsable_trailing || k + 1 < fields.size()) out += '|';
    }
    out += '\n';
  };
  std::vector<std::string> h = {"Account",  "User",      "RawShares",    "NormShares",
                                "RawUsage", "NormUsage", "EffectvUsage", "FairShare"};
  if (fair_tree) h.push_back("LevelFS");
  h.push_back("GrpTRESMins");
  h.push_back("TRESRunMins");
  if (!opt.parsable) {
    // sshare's field widths (src/sshare/process.c); Account left-aligned.
    std::vector<int> widths = {-20, 10, 10, 11, 11, 11, 13, 10};
    if (fair_tree) widths.push_back(10);
    widths.push_back(30);
    widths.push_back(30);
    if (opt.header) {
      for (size_t k = 0; k < h.size(); ++k) out += cell(h[k], widths[k]);
      out += '\n';
      for (int w : widths) out += std::string(static_cast<size_t>(w < 0 ? -w : w), '-') + " ";
      out += '\n';
    }
    for (const SshareRow& row : sshare_rows(t, r, algo, opt)) {
      size_t k = 0;
      auto next = [&] { return widths[k++]; };
      out += cell(row.account_column, next());
      out += cell(row.user.empty() ? " " : row.user, next());
      out += cell(row.parent_shares ? "parent"
                  : row.raw_shares  ? std::to_string(*row.raw_shares)
                                    : " ",
                  next());
      out += double_cell(row.norm_shares, next());
      out += cell(row.raw_usage ? std::to_string(*row.raw_usage) : " ", next());
      out += double_cell(row.norm_usage, next());
      out += double_cell(row.effective_usage, next());
      out += double_cell(row.fairshare, next());
      if (fair_tree) out += double_cell(row.level_fs, next());
      out += cell(" ", next());  // GrpTRESMins: no limits
      out += cell(tres_run, next());
      out += '\n';
    }
    return out;
  }
  if (opt.header) line(h);
  for (const SshareRow& row : sshare_rows(t, r, algo, opt)) {
    std::vector<std::string> f;
    f.reserve(11);
    f.push_back(row.account_column);
    f.push_back(row.user);
    f.push_back(row.parent_shares ? "parent"
                : row.raw_shares  ? std::to_string(*row.raw_shares)
                                  : "");
    f.push_back(num(row.norm_shares));
    f.push_back(row.raw_usage ? std::to_string(*row.raw_usage) : "");
    f.push_back(num(row.norm_usage));
    f.push_back(num(row.effective_usage));
    f.push_back(num(row.fairshare));
    if (fair_tree) f.push_back(num(row.level_fs));
    f.push_back("");  // GrpTRESMins: no limits
    f.push_back(tres_run);
    line(f);
  }
  return out;
}

std::string format_sshare_json(const AssocTree& t, const FairShareResult& r, Algorithm algo,
                               const SshareOptions& opt) {
  using json = nlohmann::ordered_json;  // keep the documented key order
  const bool fair_tree = algo == Algorithm::kFairTree;
  auto value = [](const std::optional<double>& v) -> json {
    if (!v || std::isnan(*v)) return nullptr;
    if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
    return *v;
  };
  json arr = json::array();
  for (const SshareRow& row : sshare_rows(t, r, algo, opt)) {
    json o;
    o["account"] = row.account;
    o["user"] = row.user.empty() ? json(nullptr) : json(row.user);
    o["raw_shares"] = row.parent_shares ? json("parent")
                      : row.raw_shares  ? json(*row.raw_shares)
                                        : json(nullptr);
    // Fair Tree's root: its raw shares over NO_VAL, which sshare's %f shows as 0.000000.
    o["norm_shares"] = fair_tree && row.index == t.root() ? json(nullptr) : value(row.norm_shares);
    o["raw_usage"] = row.raw_usage ? json(*row.raw_usage) : json(nullptr);
    o["norm_usage"] = value(row.norm_usage);
    o["effective_usage"] = value(row.effective_usage);
    o["fairshare"] = value(row.fairshare);
    o["level_fs"] = value(row.level_fs);
    arr.push_back(std::move(o));
  }
  return arr.dump() + "\n";
}

}  // namespace fairway
