// error.h - how the C++ core reports failure: exceptions of class Error, each with the kind
// of problem it is.  The C API (lib/capi/api_guard.h) turns a kind into a fairway_error_t;
// the core itself knows nothing of the C API.  Errors the core's own classes raise
// (TreeError for a malformed association tree, SnapshotError for a malformed snapshot)
// derive from std::runtime_error and are mapped there too.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <stdexcept>
#include <string>

namespace fairway {

enum class Errc {
  kInvalid,   // a bad argument: NULL, out of range, a value the caller must not pass
  kTree,      // a malformed association tree
  kParse,     // malformed input text: a state file, a journal, a setting
  kIo,        // a file could not be read or written
  kInternal,  // an unexpected failure inside the core (a bug)
};

class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
  Errc code() const noexcept { return code_; }

 private:
  Errc code_;
};

// Fail with Errc::kInvalid and a message.
[[noreturn]] inline void invalid(const std::string& what) { throw Error(Errc::kInvalid, what); }

}  // namespace fairway
