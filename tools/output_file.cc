// How the fairway command writes a file named on its command line (see output_file.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli_io.h"

namespace fairway_cli {
namespace {

// Symbolic links followed at most, as the kernel's own limit (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

// What PATH names once its symbolic links are followed.
struct Target {
  std::string path;     // where to write: the final target (or PATH, opened through its links)
  bool exists = false;  // st is valid
  struct stat st {};
  int error = 0;  // why PATH cannot be resolved (ELOOP, EACCES, ...), 0 if it can
};

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The target of a link that names nothing: its chain followed by hand to the first name that
// does not exist, which is then created.
Target dangling_target(const std::string& path) {
  Target t;
  std::string cur = path;
  for (int hops = 0; hops < kMaxLinks; ++hops) {
    char buf[PATH_MAX];
    const ssize_t n = readlink(cur.c_str(), buf, sizeof buf - 1);
    if (n < 0) {
      t.error = errno;
      return t;
    }
    std::string next(buf, static_cast<size_t>(n));
    if (next.empty() || next[0] != '/') next = directory_of(cur) + "/" + next;
    struct stat st {};
    if (lstat(next.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        t.error = errno;
        return t;
      }
      t.path = next;
      return t;
    }
    if (!S_ISLNK(st.st_mode)) {  // appeared meanwhile
      t.path = next;
      t.exists = stat(next.c_str(), &t.st) == 0;
      return t;
    }
    cur = next;
  }
  t.error = ELOOP;
  return t;
}

Target resolve(const std::string& path) {
  Target t;
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) t.error = errno;
    t.path = path;
    return t;
  }
  if (!S_ISLNK(st.st_mode)) {
    t.path = path;
    t.exists = true;
    t.st = st;
    return t;
  }
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return dangling_target(path);
    t.error = errno;
    return t;
  }
  t.exists = true;
  t.st = st;
  t.path = path;  // a device or FIFO is opened through the link (/dev/stdout's magic links)
  if (S_ISREG(st.st_mode)) {
    // A regular file is replaced in its own directory: its real name.
    char* real = realpath(path.c_str(), nullptr);
    if (!real) {
      t.error = errno;
      return t;
    }
    t.path = real;
    std::free(real);
  }
  return t;
}

bool written_through(const Target& t) {
  return t.exists && (S_ISCHR(t.st.st_mode) || S_ISFIFO(t.st.st_mode));
}

std::string reason(const char* what, const std::string& path, int err) {
  return std::string("cannot ") + what + " " + quote(path) + ": " + strerror(err ? err : EIO);
}

// Whether the target can be written: "" or the reason (messages name PATH as typed).
std::string problem(const std::string& path, const Target& t) {
  if (t.error) return reason("write", path, t.error);
  if (t.exists) {
    if (S_ISDIR(t.st.st_mode)) return reason("write", path, EISDIR);
    if (written_through(t))
      return access(t.path.c_str(), W_OK) == 0 ? "" : reason("write", path, errno);
    if (!S_ISREG(t.st.st_mode))
      return "cannot write " + quote(path) + ": not a regular file, character device or FIFO";
  }
  const std::string dir = directory_of(t.path);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return reason("create", path, errno);
  if (!S_ISDIR(st.st_mode)) return reason("create", path, ENOTDIR);
  if (access(dir.c_str(), W_OK | X_OK) != 0) return reason("create", path, errno);
  return "";
}

// Writes all of TEXT to FD: 0 or errno.
int write_all(int fd, std::string_view text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? EIO : errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

std::string write_through(const std::string& path, const Target& t, std::string_view text) {
  const int fd = open(t.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return reason("write", path, errno);
  const int err = write_all(fd, text);
  if (close(fd) != 0 && !err) return reason("write", path, errno);
  return err ? reason("write", path, err) : "";
}

// A temporary file beside the target, renamed over it once written whole.
std::string replace(const std::string& path, const Target& t, std::string_view text) {
  std::string tmp = t.path + ".XXXXXX";
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) return reason("create", path, errno);
  const auto fail = [&](const char* what, int err) {
    close(fd);
    unlink(tmp.c_str());
    return reason(what, path, err);
  };
  if (t.exists) {
    // The replaced file's owner and group (possible for root or the owner), and its mode less
    // the group's and others' bits.
    (void)!fchown(fd, t.st.st_uid, t.st.st_gid);
    if (fchmod(fd, t.st.st_mode & 0600) != 0) return fail("write", errno);
  }
  if (const int err = write_all(fd, text)) return fail("write", err);
  if (fsync(fd) != 0) return fail("write", errno);
  if (close(fd) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return reason("write", path, err);
  }
  if (rename(tmp.c_str(), t.path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return reason("replace", path, err);
  }
  return "";
}

}  // namespace

std::string OutputFile::check() const {
  if (is_stdout()) return "";
  return problem(path_, resolve(path_));
}

std::string OutputFile::write(std::string_view text) const {
  if (is_stdout()) {
    put(text);
    return "";
  }
  const Target t = resolve(path_);
  if (std::string why = problem(path_, t); !why.empty()) return why;
  return written_through(t) ? write_through(path_, t, text) : replace(path_, t, text);
}

}  // namespace fairway_cli
