// The C API of the state the plugin keeps: the decay state file (fairway_usage_state.h), held
// usage, a job's charge and the reset schedule (fairway.h): arguments checked, a missing file
// found as none, and each core error returned as its code with the message in
// fairway_last_error().  What they compute is specified in C++ in test/unit/state/ and
// test/unit/priority/ (test_decay_state, test_held_usage, test_usage_decay).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fairway.h"
#include "fairway_fair_share_table.h"
#include "fairway_usage_files.h"
#include "fairway_usage_state.h"

namespace {

namespace fs = std::filesystem;

class DecayStateCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fw-capi-state-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "priority_last_decay_ran").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string path_;
  const time_t now_ = 1800000000;
};

TEST_F(DecayStateCApi, NullArgumentsAreInvalid) {
  EXPECT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_decay_state_save(nullptr, 1, 0), FAIRWAY_EINVAL);
  EXPECT_NE(std::string(fairway_last_error()), "");
}

TEST_F(DecayStateCApi, AMissingFileIsFoundAsNoneWithZeroTimes) {
  fairway_decay_recovery_t r;
  r.last_ran = r.last_reset = 1;
  EXPECT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_NO_FILE);
  EXPECT_EQ(r.last_ran, 0);
  EXPECT_EQ(r.last_reset, 0);
}

TEST_F(DecayStateCApi, WrittenTimesAreReadBack) {
  ASSERT_EQ(fairway_decay_state_save(dir_.c_str(), 100, 50), FAIRWAY_OK) << fairway_last_error();
  EXPECT_EQ(fs::status(path_).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fairway_decay_recovery_t r;
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_FROM_FILE);
  EXPECT_EQ(r.last_ran, 100);
  EXPECT_EQ(r.last_reset, 50);
}

TEST_F(DecayStateCApi, ACorruptFileIsUnusableAndAFailedWriteAnIoError) {
  std::ofstream(path_, std::ios::binary) << std::string(7, '\0');
  fairway_decay_recovery_t r;
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), now_, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_FROM_NOW);
  EXPECT_NE(std::string(r.error).find("7 bytes"), std::string::npos);
  EXPECT_EQ(fairway_decay_state_save((path_ + "/x").c_str(), 200, 0), FAIRWAY_EIO);
  EXPECT_NE(std::string(fairway_last_error()), "");
}

// The C API: the fair-share table loaded under ALLOCATED or COMMITTED compares what running
// jobs hold instead of the associations' usage, and counts the jobs of an unknown association;
// under HISTORICAL it reads the associations' usage and no job; an unknown basis and missing
// jobs are refused.
TEST(HeldUsageCApi, HoldsAndRefusesWhatHoldsNothing) {
  const fairway_assoc_t a[] = {{1, 0, "root", nullptr, 1, 0, 100},
                               {2, 1, "A", nullptr, 1, 0, 100},
                               {3, 2, "A", "uA", 1, 0, 100},
                               {4, 1, "B", nullptr, 1, 0, 0},
                               {5, 4, "B", "uB", 1, 0, 0}};
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  const fairway_running_job_t jobs[] = {{3, 2.0, 30}, {5, 6.0, 10}, {9, 1.0, 1}};
  size_t unknown = 0;
  ASSERT_EQ(fairway_fair_share_table_load(t, a, 5, FAIRWAY_USAGE_COMMITTED, jobs, 3, &unknown),
            FAIRWAY_OK)
      << fairway_last_error();
  EXPECT_EQ(unknown, 1u);
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_OK);
  fairway_assoc_result_t r{};
  ASSERT_EQ(fairway_fair_share_table_result(t, 1, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(static_cast<double>(r.usage_norm), 60.0 / 120);  // A holds 2 x 30 of 120
  // Historical: the associations' own usage, whatever the jobs hold (A used all of root's).
  ASSERT_EQ(fairway_fair_share_table_load(t, a, 5, FAIRWAY_USAGE_HISTORICAL, jobs, 3, nullptr),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_result(t, 1, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(static_cast<double>(r.usage_norm), 1.0);
  EXPECT_EQ(fairway_fair_share_table_load(t, a, 5, 7, jobs, 3, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_load(t, a, 5, FAIRWAY_USAGE_ALLOCATED, nullptr, 3, nullptr),
            FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_load(nullptr, a, 5, FAIRWAY_USAGE_ALLOCATED, jobs, 3, nullptr),
            FAIRWAY_EINVAL);
  fairway_fair_share_table_destroy(&t);
}

TEST(ChargeCApi, AChargeIsCopiedOutAndNullArgumentsAreInvalid) {
  fairway_job_times_t t{};
  t.start_time = 1000;
  t.time_limit = 60;
  t.end_time_exp = 1000 + 3600;
  fairway_job_charge_t c{};
  ASSERT_EQ(fairway_job_charge(&t, 1200, 1500, 0, 1.0, 4, -1, &c), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(c.run_delta, 300);
  EXPECT_DOUBLE_EQ(c.real_decay, 300 * 4);
  EXPECT_EQ(c.tres_time_delta, 300u);
  EXPECT_EQ(fairway_job_charge(nullptr, 1200, 1500, 0, 1.0, 4, -1, &c), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_job_charge(&t, 1200, 1500, 0, 1.0, 4, -1, nullptr), FAIRWAY_EINVAL);
}

TEST(ResetScheduleCApi, NowResetsOnceAndANullScheduleNever) {
  fairway_reset_schedule_t s{FAIRWAY_RESET_NOW, 0, 0};
  EXPECT_TRUE(fairway_reset_due(&s, 1800000000));
  EXPECT_EQ(s.period, FAIRWAY_RESET_NONE);
  EXPECT_EQ(s.last_reset, 1800000000);
  EXPECT_FALSE(fairway_reset_due(&s, 1800086400));
  EXPECT_FALSE(fairway_reset_due(nullptr, 1800000000));
}

}  // namespace
