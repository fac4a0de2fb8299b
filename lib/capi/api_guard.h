// api_guard.h - where the C API stops exceptions: every exception the C++ core throws is
// caught here and turned into a fairway_error_t plus a thread-local message.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "assoc_tree.h"
#include "error.h"
#include "fairway.h"

namespace fairway {

// Set (or clear, with "") the calling thread's last error message.
void set_last_error(const char* message) noexcept;

// The C error code of a core error kind.
inline fairway_error_t to_c_error(Errc code) noexcept {
  switch (code) {
    case Errc::kInvalid:
      return FAIRWAY_EINVAL;
    case Errc::kTree:
      return FAIRWAY_ETREE;
    case Errc::kParse:
      return FAIRWAY_EPARSE;
    case Errc::kIo:
      return FAIRWAY_EIO;
    case Errc::kInternal:
      break;
  }
  return FAIRWAY_EINTERNAL;
}

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
    return to_c_error(e.code());
  } catch (const TreeError& e) {
    set_last_error(e.what());
    return FAIRWAY_ETREE;
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

}  // namespace fairway
