// fuzz_decay_state.cc - libFuzzer target: the decay state file reader
// (StateSaveLocation/priority_last_decay_ran), which slurmctld reads at startup.
//
//   * parse_decay_state(bytes, now) for the file's bytes at a fixed, realistic clock, and
//     again with a fuzzer-chosen clock (the first 8 bytes) for the rest;
//   * fairway_decay_state_recover_in() (the C API the plugin calls) on the same bytes written
//     to a StateSaveLocation's file: it must agree with the parser, and say why the file is
//     unusable when the parser refuses it.
// Contract (decay_state.h): either Error(Errc::kParse), or times in [0, now + 1 day] that
// encode back to the same 16 bytes.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "api_guard.h"
#include "decay_state.h"
#include "fairway.h"
#include "fairway_usage_state.h"
#include "fuzz_common.h"

namespace {

constexpr time_t kNow = 1767225600;  // 2026-01-01, so runs are reproducible

bool parse(std::string_view bytes, time_t now, fairway::DecayState* out) {
  try {
    *out = fairway::parse_decay_state(bytes, now);
  } catch (const fairway::Error& e) {
    FUZZ_CHECK(e.code() == fairway::Errc::kParse);
    FUZZ_CHECK(std::string_view(e.what()).find('\n') == std::string_view::npos);
    return false;
  }
  FUZZ_CHECK(bytes.size() == 16);
  FUZZ_CHECK(out->last_ran >= 0 && out->last_reset >= 0);
  if (now <= static_cast<time_t>(INT64_MAX - 86400)) {
    FUZZ_CHECK(out->last_ran <= now + 86400 && out->last_reset <= now + 86400);
  }
  FUZZ_CHECK(fairway::encode_decay_state(*out) == bytes);
  return true;
}

// A StateSaveLocation of this process's own.
std::string state_dir() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/fairway-fuzz-decay." +
         std::to_string(::getpid());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fairway::DecayState s;
  const bool ok = parse(bytes, kNow, &s);

  if (size >= 8) {  // a fuzzer-chosen clock, including absurd ones
    fuzz::Bytes in(data, size);
    const auto now = static_cast<time_t>(in.u64());
    fairway::DecayState s2;
    (void)parse(bytes.substr(8), now, &s2);
  }

  // The C API over a real file (small inputs only: the reader reads at most 17 bytes).
  if (size <= 64) {
    static const std::string dir = state_dir();
    const std::string path = dir + "/priority_last_decay_ran";
    ::mkdir(dir.c_str(), 0700);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(::write(fd, data, size) == static_cast<ssize_t>(size));
    ::close(fd);
    fairway_decay_recovery_t r;
    FUZZ_CHECK(fairway_decay_state_recover_in(dir.c_str(), kNow, &r) == FAIRWAY_OK);
    if (ok) {
      FUZZ_CHECK(r.source == FAIRWAY_DECAY_FROM_FILE);
      FUZZ_CHECK(r.last_ran == s.last_ran && r.last_reset == s.last_reset);
      FUZZ_CHECK(r.error[0] == '\0');
    } else {  // no previous copy: counted from now, with the reason
      FUZZ_CHECK(r.source == FAIRWAY_DECAY_FROM_NOW && r.last_ran == kNow);
      FUZZ_CHECK(r.error[0] != '\0' && r.error_lines[0][0] != '\0');
    }
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  }
  return 0;
}
