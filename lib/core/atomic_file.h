// atomic_file.h - a file replaced whole or not at all: the data goes to PATH.new in the same
// directory, which is renamed over PATH once written (and flushed to disk when asked), so that a
// reader never sees a torn file and a failure (a full disk, an unwritable directory) leaves the
// old file as it was.  Used for the decay state, the usage file and the published metrics.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>

namespace fairway {

struct AtomicWrite {
  mode_t mode = 0600;
  // fsync the file before the rename and the directory after it (state that must survive a
  // crash); off for files rewritten every period that a crash may lose (metrics).
  bool durable = true;
  // Keep the replaced file as PATH.old (a hard link, made just before the rename).
  bool keep_old = false;
};

// Throws Error(Errc::kIo) naming the file and the system's reason; PATH.new is removed on
// failure.  The mode is set on the new file whatever the umask.
void write_file_atomically(const std::string& path, std::string_view data,
                           const AtomicWrite& how = {});

}  // namespace fairway
