// conf_values.h - values written as slurm.conf writes them, for the settings Fairway reads from
// its own files and arguments: a PriorityMaxAge time and a PriorityFlags list.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fairway {

// S in lower case (ASCII): slurm.conf's names (PriorityWeightTRES's TRES, its keys) are
// compared without case.
std::string ascii_lower(std::string_view s);

// A number of decimal digits with at most one '.', as typed; nullopt otherwise.
std::optional<double> plain_number(std::string_view text);

// PriorityMaxAge as slurm.conf takes it: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS,
// DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS; in seconds, rounded up to whole
// minutes as Slurm keeps it; nullopt for anything else.
std::optional<uint32_t> parse_max_age(std::string_view text);

// PriorityFlags as slurm.conf takes it: a comma-separated list of flag names (any case), NONE
// or empty for none; FAIR_TREE (the default algorithm) sets no bit.  The bits (slurm_values.h),
// or nullopt with `unknown` set to the first name that is not a flag.
std::optional<uint32_t> parse_priority_flags(std::string_view text, std::string& unknown);

// PriorityWeightTRES as slurm.conf takes it: TRES=WEIGHT,... (a TRES name such as CPU or
// GRES/gpu, a number), in order; empty for an empty text; nullopt with `bad` set to the first
// item that is not TRES=WEIGHT.
std::optional<std::vector<std::pair<std::string, double>>> parse_tres_weights(std::string_view text,
                                                                              std::string& bad);

}  // namespace fairway
