// priority_flag_names.h - the names scontrol show config gives the PriorityFlags that change a
// number: for snapshot files and whatif's --flags.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>
#include <string_view>

namespace fairway {

// scontrol show config's name of a PriorityFlag bit (slurm_values.h) that changes a number,
// and the bit of such a name; nullptr and 0 for anything else.
const char* priority_flag_name(uint32_t bit);
uint32_t priority_flag_bit(std::string_view name);
// Every such bit, in scontrol's order.
extern const uint32_t kPriorityFlagBits[11];

}  // namespace fairway
