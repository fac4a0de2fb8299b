// snapshot_syntax.cc - a second, small JSON syntax checker (see snapshot_syntax.h): it runs
// only after nlohmann::json has thrown, and finds the first place where the text stops being
// JSON, to say where and why in the snapshot's error.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "snapshot_syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace fairway::snapshot_syntax {
namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string line_column(std::string_view text, size_t pos) {
  pos = std::min(pos, text.size());
  const std::string_view before = text.substr(0, pos);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t nl = before.rfind('\n');
  const size_t column = nl == std::string_view::npos ? pos + 1 : pos - nl;
  return fmt::format("line {}, column {}", line, column);
}

// What is at POS: "the end of the input", a word or character in quotes, or a byte by its value
// (never a raw byte of a binary file).
std::string found_at(std::string_view text, size_t pos) {
  if (pos >= text.size()) return "the end of the input";
  const auto c = static_cast<unsigned char>(text[pos]);
  if (is_word_char(text[pos])) {
    size_t n = 0;
    while (pos + n < text.size() && n < 16 && is_word_char(text[pos + n])) ++n;
    const bool more = pos + n < text.size() && is_word_char(text[pos + n]);
    return fmt::format("'{}{}'", text.substr(pos, n), more ? "..." : "");
  }
  if (c > 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("byte 0x{:02x}", c);
}

namespace {

class SyntaxChecker {
 public:
  explicit SyntaxChecker(std::string_view text) : t_(text) {}

  // The first syntax error, or "" where the text is JSON.
  std::string first_error() {
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") p_ = 3;
    skip_space();
    if (p_ == t_.size()) return at(p_, "the input is empty; expected a snapshot (a JSON object)");
    enum { kValue, kValueOrClose, kKeyOrClose, kKey, kColon, kCommaOrClose } state = kValue;
    for (;;) {
      skip_space();
      if (state == kValue || state == kValueOrClose) {
        if (state == kValueOrClose && peek() == ']') {
          ++p_;
          stack_.pop_back();
        } else if (peek() == '{' || peek() == '[') {
          stack_.push_back(t_[p_++]);
          state = stack_.back() == '{' ? kKeyOrClose : kValueOrClose;
          continue;
        } else if (!scalar(state == kValueOrClose ? "expected a value or ']'" : nullptr)) {
          return error_;
        }
      } else if (state == kKeyOrClose || state == kKey) {
        if (state == kKeyOrClose && peek() == '}') {
          ++p_;
          stack_.pop_back();
        } else if (peek() == '"') {
          if (!scan_string()) return error_;
          state = kColon;
          continue;
        } else {
          return expected(state == kKey ? "expected a key (a string in double quotes)"
                                        : "expected a key (a string in double quotes) or '}'");
        }
      } else if (state == kColon) {
        if (peek() != ':') return expected("expected ':' after the key");
        ++p_;
        state = kValue;
        continue;
      } else {  // kCommaOrClose
        const char close = stack_.back() == '{' ? '}' : ']';
        if (peek() == ',') {
          ++p_;
          state = close == '}' ? kKey : kValue;
          continue;
        }
        if (peek() != close)
          return expected(close == '}' ? "expected ',' or '}' after a value in an object"
                                       : "expected ',' or ']' after a value in an array");
        ++p_;
        stack_.pop_back();
      }
      // A value ended.
      if (stack_.empty()) {
        skip_space();
        if (p_ == t_.size()) return "";
        return expected("expected the end of the input after the top-level value");
      }
      state = kCommaOrClose;
    }
  }

 private:
  int peek() const { return p_ < t_.size() ? static_cast<unsigned char>(t_[p_]) : -1; }
  void skip_space() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r'))
      ++p_;
  }
  std::string at(size_t pos, const std::string& what) {
    error_ = line_column(t_, pos) + ": " + what;
    return error_;
  }
  std::string expected(const std::string& what) {
    return at(p_, what + ", found " + found_at(t_, p_));
  }
  bool fail(size_t pos, const std::string& what) {
    at(pos, what);
    return false;
  }
  bool fail_expected(const std::string& what) {
    expected(what);
    return false;
  }
  bool digit() const { return peek() >= '0' && peek() <= '9'; }

  // A string, number, true, false or null at p_. EXPECTED overrides "expected a value".
  bool scalar(const char* expected_what) {
    const std::string what =
        expected_what ? expected_what
        : stack_.empty()
            ? "expected '{' (a snapshot is a JSON object)"
            : "expected a value (an object, array, string, number, true, false or null)";
    const int c = peek();
    if (c == '"') return scan_string();
    if (c == '-' || (c >= '0' && c <= '9')) return scan_number();
    if (c >= 0 && is_word_char(static_cast<char>(c))) {
      size_t n = 0;
      while (p_ + n < t_.size() && is_word_char(t_[p_ + n])) ++n;
      const std::string_view word = t_.substr(p_, n);
      if (word == "true" || word == "false" || word == "null") {
        p_ += n;
        return true;
      }
    }
    return fail_expected(what);
  }

  bool scan_number() {
    const size_t start = p_;
    if (peek() == '-') ++p_;
    if (peek() == '0') {
      ++p_;
    } else if (digit()) {
      while (digit()) ++p_;
    } else {
      return fail_expected("expected a digit after '-'");
    }
    if (peek() == '.') {
      ++p_;
      if (!digit()) return fail_expected("expected a digit after the decimal point");
      while (digit()) ++p_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!digit()) return fail_expected("expected a digit in the exponent");
      while (digit()) ++p_;
    }
    const std::string token(t_.substr(start, p_ - start));
    if (std::isinf(std::strtod(token.c_str(), nullptr)))
      return fail(start, token.size() <= 24
                             ? fmt::format("the number {} is too large for a double", token)
                             : std::string("a number too large for a double"));
    return true;
  }

  int hex4(size_t pos) const {
    if (pos + 4 > t_.size()) return -1;
    int v = 0;
    for (size_t i = pos; i < pos + 4; ++i) {
      const char c = t_[i];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  // Length of the well-formed UTF-8 sequence at p_ (Unicode's table 3-7), 0 if there is none.
  size_t utf8_length() const {
    const auto b = [&](size_t i) {
      return p_ + i < t_.size() ? static_cast<unsigned char>(t_[p_ + i]) : 0u;
    };
    const auto cont = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xbf) {
      return b(i) >= lo && b(i) <= hi;
    };
    const unsigned c = b(0);
    if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
    if (c == 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
    if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) return cont(1) && cont(2) ? 3 : 0;
    if (c == 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
    if (c == 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
    if (c == 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
    return 0;
  }

  bool scan_string() {
    ++p_;  // the opening quote
    for (;;) {
      const int c = peek();
      if (c < 0) return fail_expected("expected '\"' to end the string");
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20)
        return fail(p_, fmt::format("found byte 0x{:02x} inside a string (a control character, "
                                    "which JSON requires to be escaped)",
                                    c));
      if (c == '\\') {
        const size_t start = p_++;
        const int e = peek();
        if (e > 0 && std::strchr("\"\\/bfnrt", e)) {
          ++p_;
          continue;
        }
        if (e != 'u')
          return fail_expected(
              "expected an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u and four hex "
              "digits) after '\\'");
        const int u = hex4(++p_);
        if (u < 0) return fail_expected("expected four hexadecimal digits after '\\u'");
        p_ += 4;
        if (u >= 0xdc00 && u <= 0xdfff)
          return fail(start, fmt::format("\\u{:04X} is the second half of a UTF-16 surrogate pair "
                                         "without a first half",
                                         u));
        if (u >= 0xd800 && u <= 0xdbff) {
          const int low =
              peek() == '\\' && p_ + 1 < t_.size() && t_[p_ + 1] == 'u' ? hex4(p_ + 2) : -1;
          if (low < 0xdc00 || low > 0xdfff)
            return fail_expected(fmt::format(
                "expected \\uDC00 to \\uDFFF (the second half of a UTF-16 surrogate pair) after "
                "\\u{:04X}",
                u));
          p_ += 6;
        }
        continue;
      }
      if (c < 0x80) {
        ++p_;
        continue;
      }
      const size_t n = utf8_length();
      if (n == 0)
        return fail(p_,
                    fmt::format("found byte 0x{:02x} inside a string, which is not UTF-8 text", c));
      p_ += n;
    }
  }

  std::string_view t_;
  size_t p_ = 0;
  std::vector<char> stack_;  // '{' or '[' of each open container
  std::string error_;
};

}  // namespace

std::string first_error(std::string_view text) { return SyntaxChecker(text).first_error(); }

}  // namespace fairway::snapshot_syntax
