// slurm_conf_text.cc - see slurm_conf_text.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "slurm_conf_text.h"

#include <cctype>

#include "conf_values.h"
#include "error.h"
#include "quoted_text.h"

namespace fairway {
namespace {

bool blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The pairs of one logical line (comments already cut), which starts at line_no.
std::vector<ConfPair> line_pairs(std::string_view line, size_t line_no,
                                 std::string_view line_word) {
  std::vector<ConfPair> out;
  const std::string at = std::string(line_word) + " " + std::to_string(line_no) + ": ";
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    if (i == line.size()) break;
    size_t j = i;
    std::string value;
    bool in_value = false, quoted = false;
    size_t eq = std::string_view::npos;
    while (j < line.size() && (quoted || !blank(line[j]))) {
      const char c = line[j];
      if (!in_value && c == '=') {
        eq = j;
        in_value = true;
      } else if (in_value && c == '"') {
        quoted = !quoted;
      } else if (in_value) {
        value += c;
      }
      ++j;
    }
    const std::string_view word = line.substr(i, j - i);
    if (quoted) invalid(at + quoted_text(word, 60) + ": a quote is not closed");
    if (eq == std::string_view::npos || eq == i) {
      // "Include FILE" is the one line slurm.conf writes without '='.
      if (out.empty() && ascii_lower(word) == "include") {
        size_t k = j;
        while (k < line.size() && blank(line[k])) ++k;
        out.push_back({"include", std::string(word), std::string(line.substr(k)), line_no});
        return out;
      }
      invalid(at + quoted_text(word, 60) + " is not KEY=VALUE");
    }
    const std::string_view name = line.substr(i, eq - i);
    out.push_back({ascii_lower(name), std::string(name), std::move(value), line_no});
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::vector<ConfPair>> slurm_conf_lines(std::string_view text,
                                                    std::string_view line_word) {
  if (text.size() > kMaxSlurmConfBytes)
    invalid("slurm.conf is larger than 16 MiB: not a slurm.conf");
  std::vector<std::vector<ConfPair>> out;
  std::string logical;
  size_t line_no = 0, starts = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (logical.empty()) starts = line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    while (!line.empty() && blank(line.back())) line.remove_suffix(1);
    if (!line.empty() && line.back() == '\\') {
      logical.append(line.substr(0, line.size() - 1)).push_back(' ');
      continue;
    }
    logical.append(line);
    if (auto pairs = line_pairs(logical, starts, line_word); !pairs.empty())
      out.push_back(std::move(pairs));
    logical.clear();
  }
  if (!logical.empty())
    if (auto pairs = line_pairs(logical, starts, line_word); !pairs.empty())
      out.push_back(std::move(pairs));
  return out;
}

}  // namespace fairway
