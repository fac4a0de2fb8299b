// snapshot_syntax.h - text that nlohmann::json refused, described in our words: "line L,
// column C: expected X, found Y".  Private to lib/publish (snapshot.cc reads with it).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fairway::snapshot_syntax {

// "line L, column C" of byte POS of TEXT (POS past the end: the end).
std::string line_column(std::string_view text, size_t pos);

// What is at POS: "the end of the input", a word or character in quotes, or a byte by its
// value (never a raw byte of a binary file).
std::string found_at(std::string_view text, size_t pos);

// The first place where TEXT stops being JSON (RFC 8259, as nlohmann::json reads it: an
// optional UTF-8 byte order mark first, no comments, UTF-8 strings, finite numbers), as
// "line L, column C: expected X, found Y"; "" where TEXT is JSON.
std::string first_error(std::string_view text);

}  // namespace fairway::snapshot_syntax
