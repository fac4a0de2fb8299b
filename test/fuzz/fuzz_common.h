// fuzz_common.h - shared helpers of Fairway's libFuzzer targets (test/fuzz/fuzz_*.cc).
//
// Each target defines LLVMFuzzerTestOneInput().  Built with clang -fsanitize=fuzzer for
// `make fuzz`, and with the project's compiler plus replay_main.cc for `make check`, which
// replays the seed corpus and every input that once crashed (test/fuzz/regressions/).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

// An invariant of the code under test: report and abort (a crash for libFuzzer), in every
// build (assert() would vanish under NDEBUG).
#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

namespace fuzz {

// Consumes fuzzer bytes front to back; reads past the end yield zeros, so every input
// decodes to something.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  size_t left() const { return n_; }
  bool empty() const { return n_ == 0; }
  uint8_t u8() {
    if (!n_) return 0;
    --n_;
    return *p_++;
  }
  template <typename T>
  T raw() {  // T's bytes, zero-padded
    T v;
    unsigned char b[sizeof(T)] = {};
    const size_t k = n_ < sizeof(T) ? n_ : sizeof(T);
    if (k) std::memcpy(b, p_, k);
    p_ += k;
    n_ -= k;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  uint32_t u32() { return raw<uint32_t>(); }
  uint64_t u64() { return raw<uint64_t>(); }
  // Up to max bytes as a string (length chosen by the input).
  std::string str(size_t max) {
    size_t len = u8() % (max + 1);
    if (len > n_) len = n_;
    std::string s(reinterpret_cast<const char*>(p_), len);
    p_ += len;
    n_ -= len;
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

}  // namespace fuzz
