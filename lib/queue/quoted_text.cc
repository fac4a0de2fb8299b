// quoted_text.cc - see quoted_text.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "quoted_text.h"

namespace fairway {

std::string quoted_text(std::string_view s, size_t max) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (char ch : s.substr(0, max)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      out += ch;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > max) out += "...";
  return "'" + out + "'";
}

}  // namespace fairway
