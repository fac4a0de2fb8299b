// The decay state at start (lib/state/decay_state.h recover_decay_state, and the C API's
// fairway_decay_state_recover_in): the file, else its previous copy, else now.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "decay_state.h"
#include "fairway_usage_state.h"

namespace {

namespace fs = std::filesystem;

class DecayRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fw-recover-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "priority_last_decay_ran").string();
    old_ = path_ + ".old";
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void write_raw(const std::string& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }
  fs::path dir_;
  std::string path_, old_;
  const time_t now_ = 1800000000;
};

TEST_F(DecayRecoveryTest, SoundFileGivesItsTimes) {
  write_raw(path_, fairway::encode_decay_state({now_ - 300, now_ - 3600}));
  const auto r = fairway::recover_decay_state(path_, old_, now_);
  EXPECT_EQ(r.source, fairway::DecaySource::kFile);
  EXPECT_EQ(r.state.last_ran, now_ - 300);
  EXPECT_EQ(r.state.last_reset, now_ - 3600);
  EXPECT_TRUE(r.error.empty());
}

TEST_F(DecayRecoveryTest, MissingFileGivesZeroTimesEvenWithAPreviousCopy) {
  write_raw(old_, fairway::encode_decay_state({now_ - 300, now_ - 3600}));
  const auto r = fairway::recover_decay_state(path_, old_, now_);
  EXPECT_EQ(r.source, fairway::DecaySource::kNoFile);
  EXPECT_EQ(r.state.last_ran, 0);
  EXPECT_EQ(r.state.last_reset, 0);
}

TEST_F(DecayRecoveryTest, CorruptFileFallsBackToASoundPreviousCopy) {
  write_raw(path_, "short");
  write_raw(old_, fairway::encode_decay_state({now_ - 600, now_ - 7200}));
  const auto r = fairway::recover_decay_state(path_, old_, now_);
  EXPECT_EQ(r.source, fairway::DecaySource::kPrevious);
  EXPECT_EQ(r.state.last_ran, now_ - 600);
  EXPECT_EQ(r.state.last_reset, now_ - 7200);
  EXPECT_FALSE(r.error.empty());
}

TEST_F(DecayRecoveryTest, CorruptFileWithoutUsablePreviousCopyCountsFromNow) {
  write_raw(path_, "short");
  auto r = fairway::recover_decay_state(path_, old_, now_);
  EXPECT_EQ(r.source, fairway::DecaySource::kNow);
  EXPECT_EQ(r.state.last_ran, now_);
  EXPECT_EQ(r.state.last_reset, 0);
  write_raw(old_, "also short");
  r = fairway::recover_decay_state(path_, old_, now_);
  EXPECT_EQ(r.source, fairway::DecaySource::kNow);
  EXPECT_EQ(r.state.last_ran, now_);
}

TEST_F(DecayRecoveryTest, CApiReportsTheSourceAndWhyTheFileWasUnusable) {
  write_raw(path_, "short");
  write_raw(old_, fairway::encode_decay_state({now_ - 600, now_ - 7200}));
  fairway_decay_recovery_t r;
  std::memset(&r, 0x55, sizeof(r));
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_FROM_PREVIOUS);
  EXPECT_EQ(r.last_ran, now_ - 600);
  EXPECT_EQ(r.last_reset, now_ - 7200);
  EXPECT_EQ(std::string(r.error), fairway::recover_decay_state(path_, old_, now_).error);
  EXPECT_EQ(std::string(r.path), path_);
  EXPECT_EQ(std::string(r.old_path), old_);
  fs::remove(path_);
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_NO_FILE);
  EXPECT_STREQ(r.error, "");
  EXPECT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, nullptr), FAIRWAY_EINVAL);
}

}  // namespace
