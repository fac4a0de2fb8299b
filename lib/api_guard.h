// api_guard.h - the boundary between the C++ core and the C API: every exception is
// caught here and turned into a fairway_error_t plus a thread-local message.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "fairway.h"

namespace fairway {

// An exception carrying the C error code it should become at the API boundary.
class Error : public std::runtime_error {
 public:
  Error(fairway_error_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  fairway_error_t code() const noexcept { return code_; }

 private:
  fairway_error_t code_;
};

// Set (or clear, with "") the calling thread's last error message.
void set_last_error(const char* message) noexcept;

// Run fn(); translate what it throws.  fn returns nothing or a fairway_error_t.
template <typename Fn>
fairway_error_t guard(Fn&& fn) noexcept {
  try {
    set_last_error("");
    if constexpr (std::is_same_v<decltype(fn()), fairway_error_t>) {
      return fn();
    } else {
      fn();
      return FAIRWAY_OK;
    }
  } catch (const Error& e) {
    set_last_error(e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    set_last_error("out of memory");
    return FAIRWAY_ENOMEM;
  } catch (const std::exception& e) {
    set_last_error(e.what());
    return FAIRWAY_EINTERNAL;
  } catch (...) {
    set_last_error("unknown exception");
    return FAIRWAY_EINTERNAL;
  }
}

// Fail with FAIRWAY_EINVAL and a message.
[[noreturn]] inline void invalid(const std::string& what) { throw Error(FAIRWAY_EINVAL, what); }

}  // namespace fairway
