// job_factors.h - the per-job priority factors and their weighted sum, with the exact
// semantics (and floating-point order of operations) of Slurm 22.05's multifactor
// set_priority_factors() and _get_priority_internal().
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include "fairway.h"

namespace fairway {

// Normalized factors of a job at `now` (no weights applied yet).
fairway_job_factors_t job_factors(const fairway_weights_t& w, const fairway_cluster_t& c,
                                  const fairway_job_input_t& job, time_t now) noexcept;

// Per-TRES factors (out has w.tres_count entries and is zeroed first).
void tres_factors(const fairway_weights_t& w, const uint64_t* alloc, const uint64_t* req,
                  const uint64_t* part_tres, double* out) noexcept;

// The same over values already in `inout`: a TRES the job does not use or the partition
// does not count (part_tres NULL or 0) keeps its value, as in multifactor's
// _get_tres_factors(), which sprio's per-partition rows call on a copy of the job's
// weighted factors.
void tres_factors_over(const fairway_weights_t& w, const uint64_t* alloc, const uint64_t* req,
                       const uint64_t* part_tres, double* inout) noexcept;

// Weight each TRES factor in place; return their sum.
double tres_weighted(const fairway_weights_t& w, double* factors) noexcept;

// Weight f in place and return the clamped priority.
uint32_t job_priority(const fairway_weights_t& w, fairway_job_factors_t& f, double tres_weighted,
                      bool* clamped) noexcept;

// Priority of an already weighted job in one partition of a multi-partition job.
uint32_t job_priority_in_partition(const fairway_weights_t& w,
                                   const fairway_job_factors_t& weighted,
                                   uint32_t part_priority_job_factor, double part_norm_priority,
                                   double part_tres_weighted, bool* clamped) noexcept;

}  // namespace fairway
