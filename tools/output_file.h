// output_file.h - how the fairway command writes a file named on its command line (-o FILE):
// one rule for every command.
//
//   "-" or ""                 standard output (cli_io.h's put: a failed write is reported at exit)
//   a regular file, or none   replaced whole or not at all: a temporary file in the same
//                             directory, renamed over it once written and flushed
//   a character device, FIFO  written straight through (/dev/null, /dev/stdout on a terminal, a
//                             named pipe): never replaced by a regular file
//   a symbolic link           followed to its final target, which is treated as above (a
//                             dangling link's target is created); the link itself stays
//   anything else             refused (a directory, a block device, a socket)
//
// What the command writes holds every user's associations, usage or jobs: a new file is created
// with mode 0600, and a replaced file keeps its mode less any group and other bits (never
// wider than 0600), its owner and group where the caller may set them.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>
#include <string_view>

namespace fairway_cli {

class OutputFile {
 public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {}

  bool is_stdout() const { return path_.empty() || path_ == "-"; }
  // Whether the file can be written, checked before any work is done: "" or the one-line
  // reason ("cannot write \"d\": Is a directory", "cannot create \"x/y\": No such file ...").
  std::string check() const;
  // Writes TEXT by the rule above: "" or the one-line reason.
  std::string write(std::string_view text) const;

 private:
  std::string path_;
};

}  // namespace fairway_cli
