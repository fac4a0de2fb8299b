// The fairway command's rule for the files it writes (tools/output_file.h): regular files
// replaced whole, devices and FIFOs written through, symbolic links followed, user data 0600.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "output_file.h"

namespace {

using fairway_cli::OutputFile;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fw_output_file.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string at(const std::string& name) const { return dir_ + "/" + name; }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static struct stat lstat_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return st;
  }
  static void make_file(const std::string& path, const std::string& text, mode_t mode) {
    std::ofstream(path) << text;
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
  }
  // A twin of /dev/null (character device 1:3) in the test's directory, so that a wrong rule
  // can only replace the twin; false where the system refuses mknod (not root, a container).
  bool make_null_device(const std::string& path) const {
    return mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
           chmod(path.c_str(), 0666) == 0;
  }
  std::string dir_;
};

TEST_F(OutputFileTest, CharacterDeviceIsWrittenThrough) {
  const std::string dev = at("null");
  if (!make_null_device(dev)) GTEST_SKIP() << "mknod refused: no character device to write to";
  EXPECT_EQ(OutputFile(dev).check(), "");
  EXPECT_EQ(OutputFile(dev).write("<svg/>\n"), "");
  const struct stat st = lstat_of(dev);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced by a regular file";
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  EXPECT_EQ(st.st_mode & 07777, 0666u);
}

TEST_F(OutputFileTest, DevNullStaysADevice) {
  // Through /dev/null itself only once its twin above proved the rule (a regular file would
  // have replaced /dev/null for every process of the machine).
  if (!make_null_device(at("twin"))) GTEST_SKIP() << "mknod refused";
  ASSERT_EQ(OutputFile(at("twin")).write("x"), "");
  ASSERT_TRUE(S_ISCHR(lstat_of(at("twin")).st_mode));
  EXPECT_EQ(OutputFile("/dev/null").write("{}\n"), "");
  EXPECT_TRUE(S_ISCHR(lstat_of("/dev/null").st_mode));
}

TEST_F(OutputFileTest, FifoIsWrittenThroughToItsReader) {
  const std::string fifo = at("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  const std::string why = OutputFile(fifo).write("through the pipe\n");
  reader.join();
  EXPECT_EQ(why, "");
  EXPECT_EQ(got, "through the pipe\n");
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode)) << "the FIFO was replaced by a regular file";
}

TEST_F(OutputFileTest, SymlinkToRegularFileReplacesTheTarget) {
  const std::string target = at("real.json"), link = at("link.json");
  make_file(target, "old", 0644);
  ASSERT_EQ(symlink("real.json", link.c_str()), 0);
  EXPECT_EQ(OutputFile(link).write("new\n"), "");
  EXPECT_TRUE(S_ISLNK(lstat_of(link).st_mode)) << "the link was replaced by a file";
  EXPECT_EQ(slurp(target), "new\n");
  EXPECT_EQ(lstat_of(target).st_mode & 07777, 0600u);
}

TEST_F(OutputFileTest, DanglingSymlinkCreatesItsTarget) {
  const std::string link = at("link.svg");
  ASSERT_EQ(mkdir(at("sub").c_str(), 0700), 0);
  ASSERT_EQ(symlink("sub/new.svg", link.c_str()), 0);
  EXPECT_EQ(OutputFile(link).check(), "");
  EXPECT_EQ(OutputFile(link).write("<svg/>\n"), "");
  EXPECT_TRUE(S_ISLNK(lstat_of(link).st_mode));
  EXPECT_EQ(slurp(at("sub/new.svg")), "<svg/>\n");
  EXPECT_EQ(lstat_of(at("sub/new.svg")).st_mode & 07777, 0600u);
}

TEST_F(OutputFileTest, SymlinkToDeviceIsWrittenThrough) {
  const std::string dev = at("null"), link = at("out");
  if (!make_null_device(dev)) GTEST_SKIP() << "mknod refused";
  ASSERT_EQ(symlink(dev.c_str(), link.c_str()), 0);
  EXPECT_EQ(OutputFile(link).write("x\n"), "");
  EXPECT_TRUE(S_ISLNK(lstat_of(link).st_mode));
  EXPECT_TRUE(S_ISCHR(lstat_of(dev).st_mode));
}

TEST_F(OutputFileTest, NewRegularFileIsPrivateWhateverTheUmask) {
  const mode_t old = umask(0);
  const std::string why = OutputFile(at("snap.json")).write("{}\n");
  umask(old);
  EXPECT_EQ(why, "");
  EXPECT_EQ(slurp(at("snap.json")), "{}\n");
  EXPECT_EQ(lstat_of(at("snap.json")).st_mode & 07777, 0600u);
}

TEST_F(OutputFileTest, ReplacedRegularFileIsNeverWidened) {
  make_file(at("wide"), "old", 0664);
  make_file(at("strict"), "old", 0400);
  const ino_t before = lstat_of(at("wide")).st_ino;
  EXPECT_EQ(OutputFile(at("wide")).write("new"), "");
  EXPECT_EQ(OutputFile(at("strict")).write("new"), "");
  EXPECT_EQ(slurp(at("wide")), "new");
  EXPECT_EQ(lstat_of(at("wide")).st_mode & 07777, 0600u);
  EXPECT_NE(lstat_of(at("wide")).st_ino, before) << "not replaced by rename";
  EXPECT_EQ(slurp(at("strict")), "new");
  EXPECT_EQ(lstat_of(at("strict")).st_mode & 07777, 0400u);
  // No temporary file is left beside them.
  EXPECT_EQ(std::system(("test $(ls -A '" + dir_ + "' | wc -l) -eq 2").c_str()), 0);
}

TEST_F(OutputFileTest, DirectoryAndMissingDirectoryAreRefused) {
  EXPECT_EQ(OutputFile(dir_).check(), "cannot write \"" + dir_ + "\": Is a directory");
  EXPECT_EQ(OutputFile(at("no/such")).check(),
            "cannot create \"" + at("no/such") + "\": No such file or directory");
  EXPECT_NE(OutputFile(dir_).write("x"), "");
}

}  // namespace
