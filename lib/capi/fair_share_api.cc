// fair_share_api.cc - the fair-share part of the C API (fairway.h) and the fair-share table
// (fairway_fair_share_table.h) over FairShareTable, AssocTree and compute_fair_share().
// Indexes are positions in the caller's input array, which AssocTree keeps.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api_guard.h"
#include "assoc_tree.h"
#include "capi_types.h"
#include "fair_share.h"
#include "fair_share_table.h"
#include "fairshare_tres.h"
#include "fairway.h"
#include "fairway_fair_share_table.h"

struct fairway_fair_share_table {
  fairway::FairShareTable table;
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

// The algorithm of a C argument, read as its bytes (see to_algorithm); throws for a value
// outside the enumeration.  By reference: passing the enum by value would load it as the
// enum type, undefined for a value outside it (test_regressions' BadAlgorithm case).
fairway::Algorithm algorithm_of(const fairway_algorithm_t& algo) {
  int raw_algo;
  static_assert(sizeof raw_algo == sizeof algo);
  std::memcpy(&raw_algo, &algo, sizeof raw_algo);
  return to_algorithm(raw_algo);
}

void check_dampening(double dampening) {
  if (!(dampening >= 1) || !std::isfinite(dampening))
    fairway::invalid("FairShareDampeningFactor must be a finite number, at least 1");
}

void copy_result(const fairway::FairShareResult& r, size_t index, fairway_assoc_result_t* out) {
  out->shares_norm = r.shares_norm[index];
  out->usage_norm = r.usage_norm[index];
  out->usage_efctv = r.usage_efctv[index];
  out->level_fs = r.level_fs[index];
  out->fs_factor = r.fs_factor[index];
  out->set = r.set[index];  // FieldMask bits equal FAIRWAY_SET_* bits
}

}  // namespace

extern "C" {

int fairway_job_fairshare_tres(const uint64_t* asked, const uint64_t* available, size_t count,
                               uint64_t asked_cpus, uint64_t available_cpus) {
  if (!asked || !available) return -1;
  return fairway::job_fairshare_tres({asked, count}, {available, count}, asked_cpus,
                                     available_cpus);
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

static_assert(FAIRWAY_FS_READS_OWN_FS_FACTOR == fairway::kReadsOwnFsFactor &&
              FAIRWAY_FS_READS_OWN_USAGE_EFCTV == fairway::kReadsOwnUsageEfctv &&
              FAIRWAY_FS_READS_SHARED == fairway::kReadsShared);

uint32_t fairway_job_fs_reads(fairway_algorithm_t algo, uint32_t slurm_release) {
  fairway::Algorithm a;
  if (!known_algorithm(algo, &a)) return 0;
  return fairway::job_fs_reads(a, slurm_release);
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

// ---- The fair-share table (fairway_fair_share_table.h) ----

fairway_error_t fairway_fair_share_table_new(fairway_fair_share_table_t** out) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_fair_share_table_new: NULL out");
    *out = new fairway_fair_share_table;
  });
}

void fairway_fair_share_table_destroy(fairway_fair_share_table_t** t) {
  if (!t || !*t) return;
  delete *t;
  *t = nullptr;
}

fairway_error_t fairway_fair_share_table_load(fairway_fair_share_table_t* t,
                                              const fairway_assoc_t* assocs, size_t count,
                                              uint32_t basis, const fairway_running_job_t* jobs,
                                              size_t count_jobs, size_t* unknown) {
  return fairway::guard([&] {
    if (!t) fairway::invalid("fairway_fair_share_table_load: NULL table");
    if (!assocs && count) fairway::invalid("fairway_fair_share_table_load: NULL associations");
    const fairway::UsageBasis b = fairway::to_usage_basis(basis);
    fairway::FairShareTable& ft = t->table;
    const bool same = ft.same_shape(count, [&](size_t i) {
      const fairway_assoc_t& a = assocs[i];
      return fairway::AssocShape{a.id, a.parent_id, a.shares_raw, a.shares_parent != 0,
                                 a.user && a.user[0]};
    });
    ft.forget();
    if (!same)
      ft.rebuild(fairway::to_records(assocs, count));
    else if (b == fairway::UsageBasis::kHistorical)
      for (size_t i = 0; i < count; i++)
        ft.set_usage(static_cast<uint32_t>(i), assocs[i].usage_raw);
    if (b != fairway::UsageBasis::kHistorical)
      ft.hold(b, fairway::to_running_jobs(jobs, count_jobs), unknown);
  });
}

fairway_error_t fairway_fair_share_table_compute(fairway_fair_share_table_t* t,
                                                 fairway_algorithm_t algo, double dampening,
                                                 size_t tres_count) {
  return fairway::guard([&] {
    if (!t) fairway::invalid("fairway_fair_share_table_compute: NULL table");
    t->table.forget();
    check_dampening(dampening);
    const fairway::Algorithm a = algorithm_of(algo);
    t->table.compute(a, dampening, a == fairway::Algorithm::kFairTree, tres_count > 0);
  });
}

fairway_error_t fairway_fair_share_table_result(const fairway_fair_share_table_t* t, size_t index,
                                                fairway_assoc_result_t* out) {
  return fairway::guard([&] {
    if (!t || !out) fairway::invalid("fairway_fair_share_table_result: NULL argument");
    if (!t->table.computed())
      fairway::invalid("fairway_fair_share_table_result: nothing computed yet");
    if (index >= t->table.size())
      fairway::invalid("fairway_fair_share_table_result: index " + std::to_string(index) +
                       " out of range");
    copy_result(t->table.result(), index, out);
  });
}

fairway_error_t fairway_fair_share_table_tres_begin(fairway_fair_share_table_t* t, size_t count) {
  return fairway::guard([&] {
    if (!t) fairway::invalid("fairway_fair_share_table_tres_begin: NULL table");
    t->table.begin_tres(count);
  });
}

fairway_error_t fairway_fair_share_table_tres(fairway_fair_share_table_t* t, size_t k, int pos,
                                              const long double* usage, uint32_t basis,
                                              const fairway_running_job_t* jobs, size_t count_jobs,
                                              fairway_algorithm_t algo, double dampening) {
  return fairway::guard([&] {
    if (!t) fairway::invalid("fairway_fair_share_table_tres: NULL table");
    fairway::FairShareTable& ft = t->table;
    try {
      check_dampening(dampening);
      const fairway::Algorithm a = algorithm_of(algo);
      const fairway::UsageBasis b = fairway::to_usage_basis(basis);
      std::vector<fairway::RunningJob> running;
      std::span<const long double> u;
      if (usage)
        u = {usage, ft.size()};
      else
        running = fairway::to_running_jobs(jobs, count_jobs);
      ft.compute_tres(k, pos, u, b, running, a, dampening);
    } catch (...) {
      ft.begin_tres(0);
      throw;
    }
  });
}

unsigned fairway_fair_share_switch_clears(fairway_algorithm_t to, uint32_t slurm_release) {
  fairway::Algorithm a;
  if (!known_algorithm(to, &a)) return FAIRWAY_SET_LEVEL_FS | FAIRWAY_SET_FS_FACTOR;
  return fairway::switch_clears(a, slurm_release);
}

void fairway_fair_share_table_forget(fairway_fair_share_table_t* t) {
  if (t) t->table.forget();
}

fairway_error_t fairway_fair_share_table_note_factor(fairway_fair_share_table_t* t, uint32_t id,
                                                     double factor) {
  return fairway::guard([&] {
    if (!t) fairway::invalid("fairway_fair_share_table_note_factor: NULL table");
    t->table.note_factor(id, factor);
  });
}

int fairway_fair_share_table_sibling_sum(const fairway_fair_share_table_t* t, uint32_t parent,
                                         long double* sum) {
  if (!t || !sum) return 0;
  const std::optional<long double> s = t->table.siblings().sum(parent);
  if (!s) return 0;
  *sum = *s;
  return 1;
}

fairway_error_t fairway_fair_share_table_copy_children(fairway_fair_share_table_t* t,
                                                       uint32_t parent, const uint32_t* ids,
                                                       const long double* values, size_t count) {
  return fairway::guard([&] {
    if (!t) fairway::invalid("fairway_fair_share_table_copy_children: NULL table");
    if (count && (!ids || !values))
      fairway::invalid("fairway_fair_share_table_copy_children: NULL ids or values");
    t->table.siblings().copy(parent, {ids, count}, {values, count});
  });
}

void fairway_fair_share_table_set_usage_norm(fairway_fair_share_table_t* t, uint32_t id,
                                             long double value) {
  if (t) t->table.siblings().set(id, value);
}

void fairway_fair_share_table_forget_noted(fairway_fair_share_table_t* t) {
  if (t) t->table.forget_noted();
}

const double* fairway_fair_share_table_factor(const fairway_fair_share_table_t* t, uint32_t id) {
  return t ? t->table.factor(id) : nullptr;
}

int fairway_fair_share_table_tres_factor(const fairway_fair_share_table_t* t, uint32_t id, int pos,
                                         double* out) {
  if (!t || !out) return 0;
  const std::optional<double> f = t->table.tres_factor(id, pos);
  if (!f) return 0;
  *out = *f;
  return 1;
}

}  // extern "C"

static_assert(fairway::kSharesNorm == FAIRWAY_SET_SHARES_NORM);
static_assert(fairway::kUsageNorm == FAIRWAY_SET_USAGE_NORM);
static_assert(fairway::kUsageEfctv == FAIRWAY_SET_USAGE_EFCTV);
static_assert(fairway::kLevelFs == FAIRWAY_SET_LEVEL_FS);
static_assert(fairway::kFsFactor == FAIRWAY_SET_FS_FACTOR);
