// slurm_conf_text.h - slurm.conf's text as KEY=VALUE pairs, line by line, for the commands
// that read a slurm.conf file themselves (fairway lint): keys in any case, several pairs on a
// line separated by blanks, a value in double quotes may hold blanks, '#' to the end of a line
// a comment, a line ending in '\' continued on the next.  Include lines are kept as pairs
// (key "include"); nothing here opens another file.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fairway {

inline constexpr size_t kMaxSlurmConfBytes = 16 * 1024 * 1024;

struct ConfPair {
  std::string key;    // lower case
  std::string name;   // as written
  std::string value;  // quotes removed
  size_t line = 0;    // where it starts, from 1
};

// One logical line's pairs, in order; lines without pairs are left out.  Throws
// fairway::Error (kInvalid) naming the line ("LINE_WORD N: ..."): a word that is not
// KEY=VALUE, a quote not closed, a text over kMaxSlurmConfBytes.
std::vector<std::vector<ConfPair>> slurm_conf_lines(std::string_view text,
                                                    std::string_view line_word = "slurm.conf line");

}  // namespace fairway
