// words.h - the words and numbers Fairway's explanations share: factor names as people say
// them, durations, ordinals, numbers without needless decimals.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>

#include "fair_share.h"
#include "queue.h"

namespace fairway {

// A duration in words: "45 s", "12 min", "3 h 20 min", "2 days 4 h"; "never" below 0.
std::string duration_words(double seconds);
// A Unix time in local time, by strftime's FORMAT (default "2026-11-25 08:30:00").
std::string local_time_text(int64_t t, const char* format = "%Y-%m-%d %H:%M:%S");
// "1st", "2nd", "3rd", "11th", ...
std::string ordinal(size_t n);
// An integral value without decimals, anything else with two; from kScientificFrom on (in
// magnitude) in scientific notation ("1.000e+308").
std::string number_words(double v);
// A value with `precision` decimals ("0.250000"), in scientific notation from kScientificFrom
// on ("1.000000e+308"), "inf" for infinity, and empty for one of Slurm's unset markers
// (NO_VAL, ...: is_unset).
std::string decimal_words(long double v, int precision = 6);
inline constexpr double kScientificFrom = 1e15;
// "Fair Tree", "classic fair-share", "depth-oblivious fair-share".
const char* algorithm_words(Algorithm a);
// A factor in sentences (kFactorInfo's words): "age", "association priority", "job size", ...
std::string factor_words(Factor f);
// The sum of a row's parts (its priority before rounding).
double row_sum(const FactorRow& r);
// What separates two neighbours, as one word: "tier", "submit_time", "job_id", "admin", or
// the factor's sprio name.
std::string separated_by(const Separation& s);

// TEXT with every line longer than WIDTH broken at spaces; a continuation keeps the line's
// indentation plus two spaces. Lines without a space to break at stay as they are.
std::string wrap(const std::string& text, size_t width = 88);

}  // namespace fairway
