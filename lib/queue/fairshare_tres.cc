// fairshare_tres.cc - see fairshare_tres.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "fairshare_tres.h"

#include <strings.h>

#include "error.h"

namespace fairway {
namespace {

bool same_name(std::string_view a, const char* b) {
  const std::string s(a);
  return strcasecmp(s.c_str(), b) == 0;
}

// a/A >= b/B for A, B > 0, exactly.
bool share_at_least(uint64_t a, uint64_t A, uint64_t b, uint64_t B) {
  return static_cast<unsigned __int128>(a) * B >= static_cast<unsigned __int128>(b) * A;
}

}  // namespace

std::optional<std::string> fairshare_tres_name_problem(std::string_view name) {
  if (name.empty()) return "an empty TRES name";
  if (name.size() > kMaxFairShareTresName)
    return "a TRES name longer than " + std::to_string(kMaxFairShareTresName) + " bytes";
  for (const char c : name)
    if (c == ' ' || c == '\t' || c == '=' || c == ',' || static_cast<unsigned char>(c) < 0x20)
      return "not a TRES name (type or type/name, e.g. gres/gpu)";
  if (same_name(name, "billing"))
    return "billing, which the jobs not judged by a listed TRES are judged by already";
  if (same_name(name, "cpu"))
    return "cpu, against which the listed TRES are compared (every job asks for its own share "
           "of CPUs)";
  return std::nullopt;
}

int job_fairshare_tres(std::span<const uint64_t> asked, std::span<const uint64_t> available,
                       uint64_t asked_cpus, uint64_t available_cpus) noexcept {
  const size_t n = asked.size() < available.size() ? asked.size() : available.size();
  int best = -1;
  for (size_t k = 0; k < n; k++) {
    if (!asked[k] || !available[k]) continue;
    // Strictly larger than the best so far: the first listed wins a tie.
    if (best >= 0 && share_at_least(asked[best], available[best], asked[k], available[k])) continue;
    best = static_cast<int>(k);
  }
  if (best < 0) return -1;
  // A partition without CPUs counted: any share of the TRES is at least the CPUs' (0).
  if (available_cpus && !share_at_least(asked[best], available[best], asked_cpus, available_cpus))
    return -1;
  return best;
}

int fairshare_tres_index(const FairShareInput& fs, std::string_view name) {
  const std::string n(name);
  for (size_t k = 0; k < fs.fairshare_tres.size(); k++)
    if (strcasecmp(fs.fairshare_tres[k].c_str(), n.c_str()) == 0) return static_cast<int>(k);
  return -1;
}

FairShareInput tres_fair_share_input(const FairShareInput& fs, size_t k) {
  if (k >= fs.fairshare_tres.size() || k >= fs.tres_usage.size())
    invalid("fair-share TRES " + std::to_string(k) + " is not listed");
  const std::vector<long double>& used = fs.tres_usage[k];
  if (used.size() != fs.associations.size())
    invalid(std::to_string(used.size()) + " associations' usage of " + fs.fairshare_tres[k] +
            " for " + std::to_string(fs.associations.size()) + " associations");
  FairShareInput out;
  out.associations = fs.associations;
  for (size_t i = 0; i < used.size(); i++) out.associations[i].usage_raw = used[i];
  out.algorithm = fs.algorithm;
  out.dampening_factor = fs.dampening_factor;
  out.usage_basis = fs.usage_basis;
  return out;
}

int judged_tres_index(const FairShareInput& fs, const PendingJob& job) {
  if (job.fairshare_tres.empty()) return -1;
  const int k = fairshare_tres_index(fs, job.fairshare_tres);
  if (k < 0)
    invalid("job " + std::to_string(job.id) + " was judged by " + job.fairshare_tres +
            " usage, which the snapshot's fairshare_tres does not list");
  return k;
}

FairShareInput judged_fair_share_input(const FairShareInput& fs, const PendingJob& job) {
  const int k = judged_tres_index(fs, job);
  return k < 0 ? fs : tres_fair_share_input(fs, static_cast<size_t>(k));
}

}  // namespace fairway
