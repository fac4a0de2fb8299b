// The decay state file (lib/state/decay_state.h): multifactor's format, atomic writes, and a clear
// error for every way the file can be damaged.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fairway.h"
#include "fairway_usage_files.h"

namespace {

namespace fs = std::filesystem;

class StateFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fw-state-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "priority_last_decay_ran").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write_raw(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
  }
  std::string read_raw(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), {});
  }
  fs::path dir_;
  std::string path_;
  const time_t now_ = 1800000000;
};

TEST_F(StateFileTest, MissingFileIsNotAnError) {
  int found = 7;
  time_t ran = 1, reset = 1;
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_OK);
  EXPECT_EQ(found, 0);
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(reset, 0);
}

TEST_F(StateFileTest, RoundTripInMultifactorsByteOrder) {
  ASSERT_EQ(fairway_decay_state_write(path_.c_str(), 0x0102030405060708LL & 0x7fffffff, 1700000000),
            FAIRWAY_OK)
      << fairway_last_error();
  const std::string b = read_raw(path_);
  ASSERT_EQ(b.size(), 16u);
  // pack_time(): big-endian 64-bit
  EXPECT_EQ(static_cast<unsigned char>(b[4]), 0x05);
  EXPECT_EQ(static_cast<unsigned char>(b[7]), 0x08);
  int found = 0;
  time_t ran = 0, reset = 0;
  ASSERT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_OK);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(ran, 0x05060708);
  EXPECT_EQ(reset, 1700000000);
  struct stat st;
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(StateFileTest, PreviousCopyIsKeptAsOld) {
  ASSERT_EQ(fairway_decay_state_write(path_.c_str(), 100, 0), FAIRWAY_OK);
  ASSERT_EQ(fairway_decay_state_write(path_.c_str(), 200, 0), FAIRWAY_OK);
  int found;
  time_t ran, reset;
  ASSERT_EQ(fairway_decay_state_read((path_ + ".old").c_str(), now_, &found, &ran, &reset),
            FAIRWAY_OK);
  EXPECT_EQ(ran, 100);
  EXPECT_FALSE(fs::exists(path_ + ".new"));
}

TEST_F(StateFileTest, TruncatedOrOversizedFileIsCorrupt) {
  int found;
  time_t ran, reset;
  write_raw(std::string(7, '\0'));
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_EPARSE);
  EXPECT_NE(std::string(fairway_last_error()).find("7 bytes"), std::string::npos)
      << fairway_last_error();
  write_raw(std::string(17, '\0'));
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_EPARSE);
  write_raw("");
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_EPARSE);
}

TEST_F(StateFileTest, GarbageTimesAreCorrupt) {
  int found;
  time_t ran, reset;
  write_raw(std::string(16, '\xff'));  // negative times
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_EPARSE);
  std::string far(16, '\0');
  far[0] = 0x10;  // year ~ 36 billion
  write_raw(far);
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_EPARSE);
  EXPECT_NE(std::string(fairway_last_error()).find("plausible"), std::string::npos);
}

TEST_F(StateFileTest, UnwritableDirectoryIsAnIoErrorAndKeepsTheOldFile) {
  ASSERT_EQ(fairway_decay_state_write(path_.c_str(), 100, 0), FAIRWAY_OK);
  if (::geteuid() == 0) {
    // root ignores directory permissions: use a path under a regular file instead
    const std::string bad = path_ + "/x";
    EXPECT_EQ(fairway_decay_state_write(bad.c_str(), 200, 0), FAIRWAY_EIO);
  } else {
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(fairway_decay_state_write(path_.c_str(), 200, 0), FAIRWAY_EIO);
    fs::permissions(dir_, fs::perms::owner_all);
  }
  EXPECT_NE(std::string(fairway_last_error()), "");
  int found;
  time_t ran, reset;
  ASSERT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_OK);
  EXPECT_EQ(ran, 100);
}

TEST_F(StateFileTest, ASymlinkIsNotFollowed) {
  const std::string target = (dir_ / "elsewhere").string();
  ASSERT_EQ(fairway_decay_state_write(target.c_str(), 100, 0), FAIRWAY_OK);
  fs::create_symlink(target, path_);
  int found;
  time_t ran, reset;
  EXPECT_EQ(fairway_decay_state_read(path_.c_str(), now_, &found, &ran, &reset), FAIRWAY_EIO);
}

}  // namespace
