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
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

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

}  // namespace fairway
