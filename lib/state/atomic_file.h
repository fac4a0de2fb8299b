// atomic_file.h - how Fairway writes its files.  A file replaced whole or not at all: the data
// goes to PATH.new in the same directory, which is renamed over PATH once written (and flushed
// to disk when asked), so that a reader never sees a torn file and a failure (a full disk, an
// unwritable directory) leaves the old file as it was: the decay state, the usage file and the
// published metrics.  A file appended to in one write per record: the history and the journal
// of job starts.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

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
// The same with the data in pieces, so that a large file needs no buffer of its size: `next`
// returns each piece in turn, then an empty one.
void write_file_atomically(const std::string& path, const std::function<std::string_view()>& next,
                           const AtomicWrite& how = {});

// Appends DATA to PATH (created with MODE) with one write() where the system allows (a file
// opened O_APPEND: a crash can leave only a torn end, never a hole), for the history and the
// journal of job starts.  Throws Error(Errc::kIo).
void append_to_file(const std::string& path, std::string_view data, mode_t mode = 0600);

// The whole of PATH (not following a symbolic link).  *exists = false and "" when it does not
// exist.  Throws Error(Errc::kIo) when it cannot be read, Error(Errc::kParse) when it is larger
// than max_bytes.
std::string read_whole_file(const std::string& path, bool* exists, size_t max_bytes);

// The names in DIR, sorted ("." and ".." included).  Throws Error(Errc::kIo).
std::vector<std::string> list_directory(const std::string& dir);

}  // namespace fairway
