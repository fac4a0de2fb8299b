// The C API of the state files (lib/capi/fairway_usage_files.h): state paths, the journal's
// handle appending and rotating the journal, the usage file and journal replayed through it
// over loaded usage, job ends charged once, and what running jobs hold.  The files' formats
// and the replay itself are specified in C++ in test/unit/state/test_usage_journal.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_usage_files.h"

namespace {

namespace fs = std::filesystem;

class UsageJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fw-journal-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    j_ = fairway_usage_journal_new();
    ASSERT_NE(j_, nullptr);
  }
  void TearDown() override {
    fairway_usage_journal_destroy(&j_);
    fs::remove_all(dir_);
  }
  std::string path(fairway_state_file_t f) {
    char buf[4096];
    EXPECT_GT(fairway_state_path(dir_.c_str(), f, buf, sizeof buf), 0u);
    return buf;
  }
  std::vector<fairway_journal_entry_t> read(fairway_state_file_t f) {
    fairway_journal_entry_t* e = nullptr;
    size_t n = 0;
    EXPECT_EQ(fairway_journal_read(path(f).c_str(), &e, &n), FAIRWAY_OK);
    std::vector<fairway_journal_entry_t> v(e, e + n);
    fairway_journal_destroy(&e);
    return v;
  }
  static fairway_journal_entry_t end(uint32_t job, uint32_t assoc, double real) {
    fairway_journal_entry_t e{};
    e.job_id = job;
    e.assoc_id = assoc;
    e.real = real;
    e.run = 1;
    return e;
  }
  fs::path dir_;
  fairway_usage_journal_t* j_ = nullptr;
};

// root (1) <- account (2) <- user (3); QOS 7.
std::vector<fairway_usage_node_t> tree() {
  return {{{1, 100, 10}, 0, 0}, {{2, 50, 5}, 1, 1}, {{3, 20, 2}, 2, 1}};
}

TEST(StatePath, NamesEveryStateFileUnderTheDirectory) {
  char buf[64];
  EXPECT_EQ(fairway_state_path("/s", FAIRWAY_STATE_DECAY, buf, sizeof buf), 26u);
  EXPECT_STREQ(buf, "/s/priority_last_decay_ran");
  fairway_state_path("/s", FAIRWAY_STATE_DECAY_OLD, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/priority_last_decay_ran.old");
  fairway_state_path("/s", FAIRWAY_STATE_USAGE, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/fairway_usage");
  fairway_state_path("/s", FAIRWAY_STATE_JOURNAL, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/fairway_usage.journal");
  fairway_state_path("/s", FAIRWAY_STATE_JOURNAL_OLD, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/fairway_usage.journal.old");
}

TEST(StatePath, TooLongForTheBufferIsEmpty) {
  char buf[8];
  EXPECT_EQ(fairway_state_path("/state", FAIRWAY_STATE_USAGE, buf, sizeof buf), 0u);
  EXPECT_STREQ(buf, "");
  EXPECT_EQ(fairway_state_path(nullptr, FAIRWAY_STATE_USAGE, buf, sizeof buf), 0u);
}

TEST_F(UsageJournalTest, AppendsWithTheCurrentEpochOnceOpen) {
  auto e = end(42, 3, 1.5);
  EXPECT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);  // not open: nothing
  EXPECT_FALSE(fs::exists(path(FAIRWAY_STATE_JOURNAL)));
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  EXPECT_EQ(fs::status(path(FAIRWAY_STATE_JOURNAL)).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fairway_usage_journal_set_epoch(j_, 1000);
  e.epoch = 5;  // the handle's period, not the caller's, is written
  ASSERT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);
  const auto v = read(FAIRWAY_STATE_JOURNAL);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].epoch, 1000);
  EXPECT_EQ(v[0].job_id, 42u);
  EXPECT_EQ(v[0].real, 1.5);
}

TEST_F(UsageJournalTest, OpenFailureNamesThePathAndKeepsErrno) {
  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(fairway_usage_journal_open(j_, missing.c_str(), 0), FAIRWAY_EIO);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(std::string(fairway_last_error()), missing + "/fairway_usage.journal");
  auto e = end(1, 1, 1);
  EXPECT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);  // none open
}

TEST_F(UsageJournalTest, SavingTheUsageFileRotatesTheJournal) {
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  auto e = end(7, 3, 2);
  ASSERT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);
  const auto nodes = tree();
  const fairway_usage_entry_t qos[] = {{7, 9, 1}};
  ASSERT_EQ(fairway_usage_journal_save(dir_.c_str(), 2000, nodes.data(), nodes.size(), qos, 1),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 1), FAIRWAY_OK);
  EXPECT_EQ(read(FAIRWAY_STATE_JOURNAL_OLD).size(), 1u);
  EXPECT_TRUE(read(FAIRWAY_STATE_JOURNAL).empty());
  fairway_usage_file_t* f = nullptr;
  ASSERT_EQ(fairway_usage_read(path(FAIRWAY_STATE_USAGE).c_str(), &f), FAIRWAY_OK);
  EXPECT_EQ(fairway_usage_period(f), 2000);
  EXPECT_EQ(fairway_usage_count(f, 0), 3u);
  EXPECT_EQ(fairway_usage_entry(f, 1, 0)->usage_raw, 9.0L);
  fairway_usage_destroy(&f);
}

TEST_F(UsageJournalTest, AFailedSaveIsAnIoError) {
  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(fairway_usage_journal_save(missing.c_str(), 1, nullptr, 0, nullptr, 0), FAIRWAY_EIO);
  EXPECT_EQ(fairway_usage_journal_save(dir_.c_str(), 1, nullptr, 1, nullptr, 0), FAIRWAY_EINVAL);
}

TEST_F(UsageJournalTest, ReplayRestoresTheFileThenAddsJobEndsUpTheTree) {
  auto file = tree();
  file[2].usage = {3, 30, 3};
  const fairway_usage_entry_t file_qos[] = {{7, 70, 7}};
  ASSERT_EQ(fairway_usage_journal_save(dir_.c_str(), 500, file.data(), file.size(), file_qos, 1),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j_, 500);
  auto e = end(11, 3, 4);
  e.qos_id = 7;
  e.qos_usage = 2;
  ASSERT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j_, 400);  // a line of another period: skipped
  ASSERT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);

  fairway_usage_journal_t* r = fairway_usage_journal_new();
  int found = 0;
  time_t period = 0;
  ASSERT_EQ(fairway_usage_journal_read_usage(r, dir_.c_str(), &found, &period), FAIRWAY_OK);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(period, 500);
  ASSERT_EQ(fairway_usage_journal_read_journals(r, dir_.c_str()), FAIRWAY_OK);
  auto loaded = tree();                  // slurmctld's older checkpoint
  loaded.push_back({{4, 99, 9}, 2, 1});  // created since the period
  fairway_usage_entry_t qos[] = {{7, 1, 1}, {8, 5, 5}};
  fairway_replay_counts_t n{};
  ASSERT_EQ(fairway_usage_journal_replay(r, 500, loaded.data(), loaded.size(), qos, 2, &n),
            FAIRWAY_OK);
  EXPECT_EQ(n.restored, 3u);
  EXPECT_EQ(n.applied, 1u);
  EXPECT_EQ(n.fresh, 1u);
  EXPECT_EQ(loaded[0].usage.usage_raw, 104.0L);  // root: 100 + 4
  EXPECT_EQ(loaded[1].usage.usage_raw, 54.0L);
  EXPECT_EQ(loaded[2].usage.usage_raw, 34.0L);
  EXPECT_EQ(loaded[2].usage.grp_used_wall, 4.0);
  EXPECT_EQ(loaded[3].usage.usage_raw, 0.0L);
  EXPECT_EQ(qos[0].usage_raw, 72.0L);
  EXPECT_EQ(qos[1].usage_raw, 0.0L);
  EXPECT_EQ(fairway_usage_journal_ended(r, 11), 1);
  EXPECT_EQ(fairway_usage_journal_ended(r, 12), 0);
  fairway_usage_journal_destroy(&r);
}

TEST_F(UsageJournalTest, AJobEndInBothJournalsIsAddedOnce) {
  const auto file = tree();
  ASSERT_EQ(fairway_usage_journal_save(dir_.c_str(), 500, file.data(), file.size(), nullptr, 0),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j_, 500);
  auto e = end(11, 2, 1);
  auto charge = end(12, 2, 1);
  charge.not_ended = 1;          // a charge that did not end the job: each is added
  for (int i = 0; i < 2; i++) {  // in .journal.old, then again in the new .journal
    if (i) ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 1), FAIRWAY_OK);
    ASSERT_EQ(fairway_usage_journal_append(j_, &e), FAIRWAY_OK);
    ASSERT_EQ(fairway_usage_journal_append(j_, &charge), FAIRWAY_OK);
  }
  int found;
  time_t period;
  ASSERT_EQ(fairway_usage_journal_read_usage(j_, dir_.c_str(), &found, &period), FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_journal_read_journals(j_, dir_.c_str()), FAIRWAY_OK);
  auto loaded = tree();
  fairway_replay_counts_t n{};
  ASSERT_EQ(fairway_usage_journal_replay(j_, 500, loaded.data(), loaded.size(), nullptr, 0, &n),
            FAIRWAY_OK);
  EXPECT_EQ(n.applied, 3u);
  EXPECT_EQ(loaded[1].usage.usage_raw, 53.0L);
  EXPECT_EQ(fairway_usage_journal_ended(j_, 11), 1);
  EXPECT_EQ(fairway_usage_journal_ended(j_, 12), 0);
}

TEST_F(UsageJournalTest, ReplayWithoutAUsageFileReadIsRefused) {
  fairway_replay_counts_t n{};
  EXPECT_EQ(fairway_usage_journal_replay(j_, 1, nullptr, 0, nullptr, 0, &n), FAIRWAY_EINVAL);
  int found = 1;
  time_t period = 1;
  EXPECT_EQ(fairway_usage_journal_read_usage(j_, dir_.c_str(), &found, &period), FAIRWAY_OK);
  EXPECT_EQ(found, 0);
  EXPECT_EQ(fairway_usage_journal_ended(nullptr, 1), 0);
}

TEST(HeldJobs, KeepsEachJobAndWhatItHoldsOfEachListedTres) {
  fairway_held_jobs_t* h = fairway_held_jobs_new();
  size_t n = 9;
  EXPECT_EQ(fairway_held_jobs_list(h, &n), nullptr);
  EXPECT_EQ(n, 0u);
  const fairway_running_job_t a{3, 2.0, 60}, b{4, 5.0, 0};
  const double ta[] = {8, 1}, tb[] = {16, 0};
  ASSERT_EQ(fairway_held_jobs_add(h, &a, ta, 2), FAIRWAY_OK);
  ASSERT_EQ(fairway_held_jobs_add(h, &b, tb, 2), FAIRWAY_OK);
  const auto* jobs = fairway_held_jobs_list(h, &n);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(jobs[1].assoc_id, 4u);
  EXPECT_EQ(jobs[0].charge_rate, 2.0);
  const auto* t0 = fairway_held_jobs_tres(h, 0, &n);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(t0[0].charge_rate, 8.0);
  EXPECT_EQ(t0[1].charge_rate, 16.0);
  EXPECT_EQ(t0[0].remaining_seconds, 60.0);
  EXPECT_EQ(fairway_held_jobs_tres(h, 2, &n)[0].charge_rate, 0.0);  // not listed
  fairway_held_jobs_reset(h);
  fairway_held_jobs_list(h, &n);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(fairway_held_jobs_add(h, &a, nullptr, 1), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_held_jobs_add(h, &a, ta, FAIRWAY_MAX_FAIRSHARE_TRES + 1), FAIRWAY_EINVAL);
  fairway_held_jobs_destroy(&h);
  EXPECT_EQ(h, nullptr);
}

}  // namespace
