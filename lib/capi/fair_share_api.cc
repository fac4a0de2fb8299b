// fair_share_api.cc - the fair-share part of the C API (fairway.h) over AssocTree and
// compute_fair_share().  Indexes are positions in the caller's input array, which
// AssocTree keeps.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api_guard.h"
#include "assoc_tree.h"
#include "capi_types.h"
#include "fair_share.h"
#include "fairshare_tres.h"
#include "fairway.h"

struct fairway_fair_share {
  fairway::AssocTree tree;
  fairway::FairShareResult result;
  bool computed = false;
};

using fairway::to_algorithm;

namespace {

fairway::AssocValues to_values(const fairway_assoc_result_t& r) {
  fairway::AssocValues v;
  v.shares_norm = r.shares_norm;
  v.usage_norm = r.usage_norm;
  v.usage_efctv = r.usage_efctv;
  v.fs_factor = r.fs_factor;
  return v;
}

// to_algorithm() without throwing: false for a value outside the enumeration.
bool known_algorithm(fairway_algorithm_t algo, fairway::Algorithm* out) {
  switch (algo) {
    case FAIRWAY_ALGO_FAIR_TREE:
      *out = fairway::Algorithm::kFairTree;
      return true;
    case FAIRWAY_ALGO_CLASSIC:
      *out = fairway::Algorithm::kClassic;
      return true;
    case FAIRWAY_ALGO_DEPTH_OBLIVIOUS:
      *out = fairway::Algorithm::kDepthOblivious;
      return true;
  }
  return false;
}

}  // namespace

extern "C" {

fairway_error_t fairway_fair_share_new(const fairway_assoc_t* assocs, size_t count,
                                       fairway_fair_share_t** out) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_fair_share_new: NULL out");
    *out = nullptr;
    if (!assocs && count) fairway::invalid("fairway_fair_share_new: NULL associations");
    std::vector<fairway::AssocRecord> records = fairway::to_records(assocs, count);
    auto fs = std::make_unique<fairway_fair_share>(
        fairway_fair_share{fairway::AssocTree::build(std::move(records)), {}, false});
    fs->result.resize(fs->tree.size());
    *out = fs.release();
  });
}

void fairway_fair_share_destroy(fairway_fair_share_t** fs) {
  if (!fs || !*fs) return;
  delete *fs;
  *fs = nullptr;
}

fairway_error_t fairway_fair_share_copy(const fairway_fair_share_t* fs,
                                        fairway_fair_share_t** out) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_fair_share_copy: NULL out");
    *out = nullptr;
    if (!fs) fairway::invalid("fairway_fair_share_copy: NULL tree");
    auto copy = std::make_unique<fairway_fair_share>(fairway_fair_share{fs->tree, {}, false});
    copy->result.resize(copy->tree.size());
    *out = copy.release();
  });
}

int fairway_job_fairshare_tres(const uint64_t* asked, const uint64_t* available, size_t count,
                               uint64_t asked_cpus, uint64_t available_cpus) {
  if (!asked || !available) return -1;
  return fairway::job_fairshare_tres({asked, count}, {available, count}, asked_cpus,
                                     available_cpus);
}

size_t fairway_fair_share_count(const fairway_fair_share_t* fs) { return fs ? fs->tree.size() : 0; }

fairway_error_t fairway_fair_share_set_usage(fairway_fair_share_t* fs, size_t index,
                                             long double usage_raw) {
  return fairway::guard([&] {
    if (!fs) fairway::invalid("fairway_fair_share_set_usage: NULL tree");
    if (index >= fs->tree.size())
      fairway::invalid("fairway_fair_share_set_usage: index " + std::to_string(index) +
                       " out of range");
    fs->tree.set_usage(static_cast<uint32_t>(index), usage_raw);
  });
}

fairway_error_t fairway_fair_share_hold(fairway_fair_share_t* fs, uint32_t basis,
                                        const fairway_running_job_t* jobs, size_t count,
                                        size_t* unknown) {
  return fairway::guard([&] {
    if (!fs) fairway::invalid("fairway_fair_share_hold: NULL tree");
    const fairway::UsageBasis b = fairway::to_usage_basis(basis);
    if (b == fairway::UsageBasis::kHistorical)
      fairway::invalid("fairway_fair_share_hold: the historical basis holds nothing");
    const std::vector<fairway::RunningJob> running = fairway::to_running_jobs(jobs, count);
    const std::vector<long double> direct = fairway::held_direct(fs->tree, b, running, unknown);
    fairway::hold_usage(fs->tree, direct);
  });
}

fairway_error_t fairway_fair_share_compute(fairway_fair_share_t* fs, fairway_algorithm_t algo,
                                           double dampening) {
  int raw_algo;  // the bytes, not a typed load of the enum (see to_algorithm)
  static_assert(sizeof raw_algo == sizeof algo);
  std::memcpy(&raw_algo, &algo, sizeof raw_algo);
  return fairway::guard([&] {
    if (!fs) fairway::invalid("fairway_fair_share_compute: NULL tree");
    if (!(dampening >= 1) || !std::isfinite(dampening))
      fairway::invalid("FairShareDampeningFactor must be a finite number, at least 1");
    fairway::compute_fair_share(fs->tree, to_algorithm(raw_algo), dampening, fs->result);
    fs->computed = true;
  });
}

fairway_error_t fairway_fair_share_result(const fairway_fair_share_t* fs, size_t index,
                                          fairway_assoc_result_t* out) {
  return fairway::guard([&] {
    if (!fs || !out) fairway::invalid("fairway_fair_share_result: NULL argument");
    if (index >= fs->tree.size())
      fairway::invalid("fairway_fair_share_result: index " + std::to_string(index) +
                       " out of range");
    if (!fs->computed) fairway::invalid("fairway_fair_share_result: nothing computed yet");
    const fairway::FairShareResult& r = fs->result;
    out->shares_norm = r.shares_norm[index];
    out->usage_norm = r.usage_norm[index];
    out->usage_efctv = r.usage_efctv[index];
    out->level_fs = r.level_fs[index];
    out->fs_factor = r.fs_factor[index];
    out->set = r.set[index];  // FieldMask bits equal FAIRWAY_SET_* bits
  });
}

double fairway_classic_fs_factor(long double usage_efctv, long double shares_norm,
                                 double dampening) {
  try {
    return fairway::classic_fs_factor(usage_efctv, shares_norm, dampening);
  } catch (...) {
    return 0.0;
  }
}

// Once per job per period: nothing here can throw, so no guard.
double fairway_job_fs_factor(fairway_algorithm_t algo, uint32_t slurm_release,
                             const fairway_assoc_result_t* own,
                             const fairway_assoc_result_t* shared, double dampening,
                             int* compute_first) {
  if (compute_first) *compute_first = 0;
  fairway::Algorithm a;
  if (!own || !shared || !known_algorithm(algo, &a)) return 0.0;
  fairway::ComputeFirst first = fairway::ComputeFirst::kNothing;
  const double f = fairway::job_fs_factor(a, slurm_release, to_values(*own), to_values(*shared),
                                          dampening, compute_first ? &first : nullptr);
  if (compute_first)
    *compute_first = first == fairway::ComputeFirst::kOwn      ? 1
                     : first == fairway::ComputeFirst::kShared ? 2
                                                               : 0;
  return f;
}

long double fairway_assoc_usage_efctv(fairway_algorithm_t algo, const fairway_assoc_result_t* self,
                                      uint32_t shares_raw, uint32_t level_shares,
                                      const fairway_assoc_result_t* fs_parent,
                                      long double (*siblings_usage_norm)(void* arg), void* arg) {
  fairway::Algorithm a;
  if (!self || !known_algorithm(algo, &a)) return 0.0L;
  const fairway::AssocValues parent = fs_parent ? to_values(*fs_parent) : fairway::AssocValues{};
  return fairway::on_demand_usage_efctv(a, to_values(*self), shares_raw, level_shares,
                                        fs_parent ? &parent : nullptr, siblings_usage_norm, arg);
}

}  // extern "C"

static_assert(fairway::kSharesNorm == FAIRWAY_SET_SHARES_NORM);
static_assert(fairway::kUsageNorm == FAIRWAY_SET_USAGE_NORM);
static_assert(fairway::kUsageEfctv == FAIRWAY_SET_USAGE_EFCTV);
static_assert(fairway::kLevelFs == FAIRWAY_SET_LEVEL_FS);
static_assert(fairway::kFsFactor == FAIRWAY_SET_FS_FACTOR);
