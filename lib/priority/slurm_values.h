// slurm_values.h - Slurm's special values and PriorityFlags, as the core needs them.  The
// core includes no Slurm header; these are Slurm's numbers (NO_VAL, NICE_OFFSET, ...), which
// the plugin checks against Slurm's own at compile time, and Fairway's own bit values for
// the PriorityFlags that change a number (the plugin translates Slurm's bits).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstdint>

namespace fairway {

inline constexpr uint32_t kNoVal = 0xFFFFFFFE;       // NO_VAL: a 32-bit "unset"
inline constexpr uint32_t kInfinite = 0xFFFFFFFF;    // INFINITE
inline constexpr uint32_t kNiceOffset = 0x80000000;  // NICE_OFFSET: nice and site factor bias
inline constexpr uint64_t kNoConsume64 = 0xFFFFFFFFFFFFFFFDULL;  // NO_CONSUME_VAL64
inline constexpr uint64_t kNoVal64 = 0xFFFFFFFFFFFFFFFEULL;      // NO_VAL64
inline constexpr uint64_t kInfinite64 = 0xFFFFFFFFFFFFFFFFULL;   // INFINITE64

// Whether a value is one of Slurm's "unset" markers (NO_VAL, INFINITE, NO_VAL64, INFINITE64)
// held in a floating field, which sshare prints empty: never a number to show.
inline bool is_unset(long double v) {
  return v == static_cast<long double>(kNoVal) || v == static_cast<long double>(kInfinite) ||
         v == static_cast<long double>(static_cast<double>(kNoVal64)) ||
         v == static_cast<long double>(static_cast<double>(kInfinite64));
}

// Slurm releases whose multifactor computes differently (SLURM_VERSION_NUM(major, minor, 0)):
// PrioritySettings::slurm_release selects the rules of one of them.
inline constexpr uint32_t kSlurm2205 = 0x160500;
inline constexpr uint32_t kSlurm2311 = 0x170b00;
inline constexpr uint32_t kSlurm2411 = 0x180b00;
inline constexpr uint32_t kSlurm2511 = 0x190b00;

// PriorityFlags.
enum PriorityFlag : uint32_t {
  kAccrueAlways = 0x0001,
  kSmallRelativeToTime = 0x0002,
  kCalculateRunning = 0x0004,
  kDepthOblivious = 0x0008,
  kNoFairTree = 0x0010,
  kIncrOnly = 0x0020,
  kMaxTres = 0x0040,
  kNoNormalAssoc = 0x0080,
  kNoNormalPart = 0x0100,
  kNoNormalQos = 0x0200,
  kNoNormalTres = 0x0400,
};

}  // namespace fairway
