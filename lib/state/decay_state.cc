// decay_state.cc - see decay_state.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "decay_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "atomic_file.h"
#include "error.h"

namespace fairway {
namespace {

constexpr size_t kSize = 16;

void put_be64(std::string& out, int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((u >> shift) & 0xff));
}

int64_t get_be64(std::string_view b, size_t at) {
  uint64_t u = 0;
  for (size_t i = 0; i < 8; i++) u = (u << 8) | static_cast<unsigned char>(b[at + i]);
  return static_cast<int64_t>(u);
}

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw Error(Errc::kIo, what + " " + path + ": " + std::strerror(errno));
}

// A file descriptor closed on scope exit.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

}  // namespace

DecayState parse_decay_state(std::string_view bytes, time_t now) {
  if (bytes.size() != kSize)
    throw Error(Errc::kParse, "decay state has " + std::to_string(bytes.size()) +
                                  " bytes, expected " + std::to_string(kSize));
  DecayState s;
  const int64_t ran = get_be64(bytes, 0), reset = get_be64(bytes, 8);
  // now + one day, saturating (a caller-supplied now near INT64_MAX must not overflow).
  const int64_t now64 = static_cast<int64_t>(now);
  const int64_t limit = now64 > INT64_MAX - 86400 ? INT64_MAX : now64 + 86400;
  if (ran < 0 || ran > limit)
    throw Error(Errc::kParse, "decay state: last period time " + std::to_string(ran) +
                                  " is not a plausible time");
  if (reset < 0 || reset > limit)
    throw Error(Errc::kParse, "decay state: last reset time " + std::to_string(reset) +
                                  " is not a plausible time");
  s.last_ran = static_cast<time_t>(ran);
  s.last_reset = static_cast<time_t>(reset);
  return s;
}

std::string encode_decay_state(const DecayState& s) {
  std::string out;
  out.reserve(kSize);
  put_be64(out, static_cast<int64_t>(s.last_ran));
  put_be64(out, static_cast<int64_t>(s.last_reset));
  return out;
}

std::optional<DecayState> read_decay_state(const std::string& path, time_t now) {
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (f.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    io_error("cannot open", path);
  }
  // Read at most one byte more than a valid file has: enough to tell it is too long.
  char buf[kSize + 1];
  size_t got = 0;
  while (got < sizeof(buf)) {
    const ssize_t n = ::read(f.fd, buf + got, sizeof(buf) - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("cannot read", path);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  try {
    return parse_decay_state(std::string_view(buf, got), now);
  } catch (const Error& e) {
    throw Error(Errc::kParse, path + ": " + e.what());
  }
}

void write_decay_state(const std::string& path, const DecayState& s) {
  // The previous state is kept as .old, as multifactor does.
  write_file_atomically(path, encode_decay_state(s),
                        {.mode = 0600, .durable = true, .keep_old = true});
}

RecoveredDecayState recover_decay_state(const std::string& path, const std::string& old_path,
                                        time_t now) {
  RecoveredDecayState r;
  try {
    if (auto s = read_decay_state(path, now))
      r.state = *s;
    else
      r.source = DecaySource::kNoFile;
    return r;
  } catch (const Error& e) {
    r.error = e.what();
  }
  r.source = DecaySource::kNow;
  r.state = DecayState{now, 0};
  try {
    if (auto s = read_decay_state(old_path, now)) {
      r.source = DecaySource::kPrevious;
      r.state = *s;
    }
  } catch (const Error&) {
    // Unusable too: counted from now.
  }
  return r;
}

}  // namespace fairway
