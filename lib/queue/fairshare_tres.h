// fairshare_tres.h - per-resource fair-share (PriorityParameters=fairway_fairshare_tres=LIST):
// a job that mostly asks for one of the listed TRES (GPUs, say) gets the fair-share factor its
// association has when fair-share compares usage of that TRES with shares, in the same account
// tree; every other job gets the factor of billable usage, as without the option.  Sites that
// now split each project into _cpu and _gpu accounts so that GPU jobs are judged by GPU usage
// get the same judgement from one account per project.
//
// "Mostly asks for", exactly: in the job's partition, the job's share of each listed TRES is
// what it asks for divided by what the partition has, and its share of CPUs likewise.  The job
// is judged by the listed TRES of the largest share (the first listed of equal shares) when that
// share is at least its share of CPUs and it asks for some of it; otherwise by billing.  A
// listed TRES the partition has none of is not compared.  So 1 of a node's 4 GPUs with 16 of
// its 64 CPUs is a GPU job (1/4 >= 16/64), the same GPU with 48 CPUs a CPU job.
//
// The offline half: a snapshot lists the TRES and each association's usage of each
// (FairShareInput::fairshare_tres, tres_usage), and each job the TRES it was judged by
// (PendingJob::fairshare_tres); tres_fair_share_input gives the tree that TRES is judged on.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "explain.h"
#include "queue.h"

namespace fairway {

// The most TRES fairway_fairshare_tres may list, and the longest name.
inline constexpr size_t kMaxFairShareTres = 8;
inline constexpr size_t kMaxFairShareTresName = 63;

// Why `name` cannot be listed in fairway_fairshare_tres (empty, too long, blanks or '=' in it,
// "billing": what the other jobs are judged by already, "cpu": every job asks for CPUs in
// proportion to itself), or nullopt when it can.  Whether the cluster tracks it is the plugin's
// to check (AccountingStorageTRES).
std::optional<std::string> fairshare_tres_name_problem(std::string_view name);

// Which listed TRES a job is judged by: an index into `asked`/`available` (parallel, one entry
// per listed TRES: what the job asks for, what its partition has), or -1 for billing.
// Exact integer comparison of the shares (no rounding).
int job_fairshare_tres(std::span<const uint64_t> asked, std::span<const uint64_t> available,
                       uint64_t asked_cpus, uint64_t available_cpus) noexcept;

// The index of `name` in fs.fairshare_tres (ASCII case ignored), or -1.
int fairshare_tres_index(const FairShareInput& fs, std::string_view name);

// fs with every association's usage replaced by its usage of the k-th listed TRES: the tree a
// job judged by that TRES gets its factor from (same shape, shares and algorithm).  Throws
// Error (kInvalid) for k out of range or a usage list whose size is not the associations'.
FairShareInput tres_fair_share_input(const FairShareInput& fs, size_t k);

// The index in fs.fairshare_tres of the TRES that judged `job`, or -1 for billing.  Throws
// Error (kInvalid) when fs does not list the job's TRES.
int judged_tres_index(const FairShareInput& fs, const PendingJob& job);

// What `job`'s fair-share factor comes from: fs, or for a job judged by a listed TRES,
// tres_fair_share_input of that TRES.  Throws Error (kInvalid) when fs does not list it.
FairShareInput judged_fair_share_input(const FairShareInput& fs, const PendingJob& job);

}  // namespace fairway
