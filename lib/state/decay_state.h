// decay_state.h - the decay thread's state file, StateSaveLocation/priority_last_decay_ran:
// the time of the last completed calculation period and of the last usage reset.  Same
// format as multifactor's (two big-endian 64-bit times, 16 bytes), so a site can switch
// between priority/multifactor and priority/fairway without charging usage twice.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace fairway {

struct DecayState {
  time_t last_ran = 0;
  time_t last_reset = 0;
};

// Decode the file's bytes.  Throws Error(Errc::kParse) naming the problem for a wrong
// size or times that cannot be (negative, or later than now + one day).
DecayState parse_decay_state(std::string_view bytes, time_t now);
std::string encode_decay_state(const DecayState& s);

// Read `path`; std::nullopt when it does not exist.  Throws Error(Errc::kIo) when it
// cannot be read and Error(Errc::kParse) when it is corrupt.
std::optional<DecayState> read_decay_state(const std::string& path, time_t now);

// Where a restart's times come from (recover_decay_state).
enum class DecaySource {
  kFile,      // the file
  kNoFile,    // there is none: both times 0 (running jobs are charged from their start)
  kPrevious,  // the file is unusable; its previous copy (path.old) is sound
  kNow,       // neither is usable: the last period is now, the last reset 0
};

struct RecoveredDecayState {
  DecayState state;
  DecaySource source = DecaySource::kFile;
  std::string error;  // why the file was unusable (kPrevious, kNow)
};

// The times at start: read `path`; when it is unusable, `old_path` if it exists and is
// sound, else now -- never charging running jobs twice for time an earlier period already
// charged.  Throws only what allocation throws.
RecoveredDecayState recover_decay_state(const std::string& path, const std::string& old_path,
                                        time_t now);

// Write atomically: path.new (mode 0600, fsync), the previous file kept as path.old, then
// rename over path and fsync the directory.  Throws Error(Errc::kIo) naming the failed
// step; the previous file is intact on any failure.
void write_decay_state(const std::string& path, const DecayState& s);

}  // namespace fairway
