// atomic_file.cc - see atomic_file.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "error.h"

namespace fairway {
namespace {

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
  throw Error(Errc::kIo, what + " " + path + ": " + std::strerror(err));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view data, const AtomicWrite& how) {
  bool given = false;
  write_file_atomically(
      path, [&] { return given ? std::string_view() : (given = true, data); }, how);
}

void write_file_atomically(const std::string& path, const std::function<std::string_view()>& next,
                           const AtomicWrite& how) {
  const std::string tmp = path + ".new";
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, how.mode);
  if (fd < 0) io_error("cannot create", tmp, errno);
  auto fail = [&](const char* what) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    io_error(what, tmp, e);
  };
  if (::fchmod(fd, how.mode) != 0) fail("cannot set the mode of");
  for (;;) {
    std::string_view piece;
    try {
      piece = next();
    } catch (...) {
      ::close(fd);
      ::unlink(tmp.c_str());
      throw;
    }
    if (piece.empty()) break;
    size_t done = 0;
    while (done < piece.size()) {
      const ssize_t n = ::write(fd, piece.data() + done, piece.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("cannot write");
      }
      done += static_cast<size_t>(n);
    }
  }
  if (how.durable && ::fsync(fd) != 0) fail("cannot fsync");
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    io_error("cannot write", tmp, e);
  }
  if (how.keep_old) {
    const std::string old = path + ".old";
    ::unlink(old.c_str());
    if (::link(path.c_str(), old.c_str()) != 0) {
      // Not fatal (no file yet, a file system without hard links): the rename is still atomic.
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    io_error("cannot rename into", path, e);
  }
  if (how.durable) {
    const size_t slash = path.rfind('/');
    const std::string dir =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) {
      (void)::fsync(d);
      ::close(d);
    }
  }
}

void append_to_file(const std::string& path, std::string_view data, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) io_error("cannot open", path, errno);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      io_error("cannot append to", path, e);
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

std::string read_whole_file(const std::string& path, bool* exists, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) {
      *exists = false;
      return {};
    }
    io_error("cannot open", path, errno);
  }
  *exists = true;
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      io_error("cannot read", path, e);
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > max_bytes) {
      ::close(fd);
      const bool gib = max_bytes % (size_t{1} << 30) == 0;
      throw Error(Errc::kParse, path + ": larger than " +
                                    std::to_string(gib ? max_bytes >> 30 : max_bytes >> 20) +
                                    (gib ? " GiB" : " MiB"));
    }
  }
  ::close(fd);
  return data;
}

std::vector<std::string> list_directory(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) io_error("cannot read the directory", dir, errno);
  while (const dirent* e = ::readdir(d)) out.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fairway
