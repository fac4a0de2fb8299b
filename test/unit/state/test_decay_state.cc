// The decay state file (lib/state/decay_state.h): multifactor's format, atomic writes, and a clear
// error for every way the file can be damaged.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "decay_state.h"
#include "error.h"

namespace fairway {
namespace {

namespace fs = std::filesystem;

// What `fn` throws: its kind and message; kInternal with "" when it throws nothing.
template <typename Fn>
Error thrown(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  return Error(Errc::kInternal, "");
}

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
  Errc read_fails(const std::string& p) {
    return thrown([&] { (void)read_decay_state(p, now_); }).code();
  }
  fs::path dir_;
  std::string path_;
  const time_t now_ = 1800000000;
};

TEST_F(StateFileTest, MissingFileIsNotAnError) {
  EXPECT_EQ(read_decay_state(path_, now_), std::nullopt);
}

TEST_F(StateFileTest, RoundTripInMultifactorsByteOrder) {
  write_decay_state(path_, {0x0102030405060708LL & 0x7fffffff, 1700000000});
  const std::string b = read_raw(path_);
  ASSERT_EQ(b.size(), 16u);
  // pack_time(): big-endian 64-bit
  EXPECT_EQ(static_cast<unsigned char>(b[4]), 0x05);
  EXPECT_EQ(static_cast<unsigned char>(b[7]), 0x08);
  const std::optional<DecayState> s = read_decay_state(path_, now_);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->last_ran, 0x05060708);
  EXPECT_EQ(s->last_reset, 1700000000);
  EXPECT_EQ(encode_decay_state(*s), b);
  struct stat st;
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(StateFileTest, PreviousCopyIsKeptAsOld) {
  write_decay_state(path_, {100, 0});
  write_decay_state(path_, {200, 0});
  const std::optional<DecayState> old = read_decay_state(path_ + ".old", now_);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->last_ran, 100);
  EXPECT_FALSE(fs::exists(path_ + ".new"));
}

TEST_F(StateFileTest, TruncatedOrOversizedFileIsCorrupt) {
  write_raw(std::string(7, '\0'));
  const Error e = thrown([&] { (void)read_decay_state(path_, now_); });
  EXPECT_EQ(e.code(), Errc::kParse);
  EXPECT_NE(std::string(e.what()).find("7 bytes"), std::string::npos) << e.what();
  write_raw(std::string(17, '\0'));
  EXPECT_EQ(read_fails(path_), Errc::kParse);
  write_raw("");
  EXPECT_EQ(read_fails(path_), Errc::kParse);
}

TEST_F(StateFileTest, GarbageTimesAreCorrupt) {
  EXPECT_EQ(thrown([&] { (void)parse_decay_state(std::string(16, '\xff'), now_); }).code(),
            Errc::kParse);  // negative times
  std::string far(16, '\0');
  far[0] = 0x10;  // year ~ 36 billion
  write_raw(far);
  const Error e = thrown([&] { (void)read_decay_state(path_, now_); });
  EXPECT_EQ(e.code(), Errc::kParse);
  EXPECT_NE(std::string(e.what()).find("plausible"), std::string::npos) << e.what();
}

TEST_F(StateFileTest, UnwritableDirectoryIsAnIoErrorAndKeepsTheOldFile) {
  write_decay_state(path_, {100, 0});
  Error e(Errc::kInternal, "");
  if (::geteuid() == 0) {
    // root ignores directory permissions: use a path under a regular file instead
    e = thrown([&] { write_decay_state(path_ + "/x", {200, 0}); });
  } else {
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    e = thrown([&] { write_decay_state(path_, {200, 0}); });
    fs::permissions(dir_, fs::perms::owner_all);
  }
  EXPECT_EQ(e.code(), Errc::kIo);
  EXPECT_NE(std::string(e.what()), "");
  const std::optional<DecayState> s = read_decay_state(path_, now_);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->last_ran, 100);
}

TEST_F(StateFileTest, ASymlinkIsNotFollowed) {
  const std::string target = (dir_ / "elsewhere").string();
  write_decay_state(target, {100, 0});
  fs::create_symlink(target, path_);
  EXPECT_EQ(read_fails(path_), Errc::kIo);
}

}  // namespace
}  // namespace fairway
