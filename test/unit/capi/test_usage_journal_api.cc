// The journal's handle and the steps of restart safety inside the C API
// (lib/capi/usage_journal.h, composed by fairway_usage_state.h's calls): state paths, the
// handle appending and rotating the journal, the usage file and journal replayed through it
// over loaded usage, job ends charged once; and what running jobs hold
// (fairway_usage_files.h).  The files' formats and the replay itself are specified in C++ in
// test/unit/state/test_usage_journal.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_usage_files.h"
#include "usage_journal.h"
#include "usage_store.h"

namespace {

namespace fs = std::filesystem;
using fairway::StateFile;

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
  std::string path(StateFile f) {
    char buf[4096];
    EXPECT_GT(fairway::state_path(dir_.c_str(), f, buf, sizeof buf), 0u);
    return buf;
  }
  std::vector<fairway::JournalEntry> read(StateFile f) {
    return fairway::read_journal_file(path(f));
  }
  static fairway::JournalEntry end(uint32_t job, uint32_t assoc, double real) {
    fairway::JournalEntry e;
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
std::vector<fairway::ReplayAssoc> tree() {
  return {{{1, 100, 10}, false, 0}, {{2, 50, 5}, true, 1}, {{3, 20, 2}, true, 2}};
}

TEST(StatePath, NamesEveryStateFileUnderTheDirectory) {
  char buf[64];
  EXPECT_EQ(fairway::state_path("/s", StateFile::kDecay, buf, sizeof buf), 26u);
  EXPECT_STREQ(buf, "/s/priority_last_decay_ran");
  fairway::state_path("/s", StateFile::kDecayOld, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/priority_last_decay_ran.old");
  fairway::state_path("/s", StateFile::kUsage, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/fairway_usage");
  fairway::state_path("/s", StateFile::kJournal, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/fairway_usage.journal");
  fairway::state_path("/s", StateFile::kJournalOld, buf, sizeof buf);
  EXPECT_STREQ(buf, "/s/fairway_usage.journal.old");
}

TEST(StatePath, TooLongForTheBufferIsEmpty) {
  char buf[8];
  EXPECT_EQ(fairway::state_path("/state", StateFile::kUsage, buf, sizeof buf), 0u);
  EXPECT_STREQ(buf, "");
  EXPECT_EQ(fairway::state_path(nullptr, StateFile::kUsage, buf, sizeof buf), 0u);
}

TEST_F(UsageJournalTest, AppendsWithTheCurrentEpochOnceOpen) {
  auto e = end(42, 3, 1.5);
  fairway::append_journal(*j_, e);  // not open: nothing
  EXPECT_FALSE(fs::exists(path(StateFile::kJournal)));
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  EXPECT_EQ(fs::status(path(StateFile::kJournal)).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fairway_usage_journal_set_epoch(j_, 1000);
  e.epoch = 5;  // the handle's period, not the caller's, is written
  fairway::append_journal(*j_, e);
  const auto v = read(StateFile::kJournal);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].epoch, 1000);
  EXPECT_EQ(v[0].job_id, 42u);
  EXPECT_EQ(v[0].real, 1.5);
}

// A controller killed in the middle of a write leaves half a line; the next controller that
// opens the journal (a takeover, a restart) cuts it off before it appends, so that its lines
// stay whole and the journal reads back.
TEST_F(UsageJournalTest, OpeningCutsOffATornLastLine) {
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway::append_journal(*j_, end(7, 3, 2));
  fairway_usage_journal_destroy(&j_);
  {
    std::ofstream torn(path(StateFile::kJournal), std::ios::app);
    torn << "e 1000 8 3 0x1p+";
  }
  j_ = fairway_usage_journal_new();
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway::append_journal(*j_, end(9, 3, 4));
  const auto v = read(StateFile::kJournal);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].job_id, 7u);
  EXPECT_EQ(v[1].job_id, 9u);
  EXPECT_EQ(v[1].real, 4.0);
}

TEST_F(UsageJournalTest, OpeningCutsOffAJournalThatIsOneTornLine) {
  {
    std::ofstream torn(path(StateFile::kJournal));
    torn << "e 1000 8";
  }
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway::append_journal(*j_, end(9, 3, 4));
  const auto v = read(StateFile::kJournal);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].job_id, 9u);
}

TEST_F(UsageJournalTest, OpenFailureNamesThePathAndKeepsErrno) {
  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(fairway_usage_journal_open(j_, missing.c_str(), 0), FAIRWAY_EIO);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(std::string(fairway_last_error()), missing + "/fairway_usage.journal");
  fairway::append_journal(*j_, end(1, 1, 1));  // none open: nothing, no error
}

TEST_F(UsageJournalTest, SavingTheUsageFileRotatesTheJournal) {
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway::append_journal(*j_, end(7, 3, 2));
  const auto nodes = tree();
  const fairway::UsageEntry qos[] = {{7, 9, 1}};
  fairway::save_usage(dir_.c_str(), 2000, nodes, qos);
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 1), FAIRWAY_OK);
  EXPECT_EQ(read(StateFile::kJournalOld).size(), 1u);
  EXPECT_TRUE(read(StateFile::kJournal).empty());
  const auto f = fairway::read_usage_file(path(StateFile::kUsage));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->period, 2000);
  EXPECT_EQ(f->assocs.size(), 3u);
  EXPECT_EQ(f->qos[0].usage_raw, 9.0L);
}

TEST_F(UsageJournalTest, AFailedSaveIsAnIoError) {
  const std::string missing = (dir_ / "missing").string();
  try {
    fairway::save_usage(missing.c_str(), 1, {}, {});
    FAIL() << "saved into a missing directory";
  } catch (const fairway::Error& e) {
    EXPECT_EQ(e.code(), fairway::Errc::kIo);
  }
}

TEST_F(UsageJournalTest, ReplayRestoresTheFileThenAddsJobEndsUpTheTree) {
  auto file = tree();
  file[2].usage = {3, 30, 3};
  const fairway::UsageEntry file_qos[] = {{7, 70, 7}};
  fairway::save_usage(dir_.c_str(), 500, file, file_qos);
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j_, 500);
  auto e = end(11, 3, 4);
  e.qos_id = 7;
  e.qos_usage = 2;
  fairway::append_journal(*j_, e);
  fairway_usage_journal_set_epoch(j_, 400);  // a line of another period: skipped
  fairway::append_journal(*j_, e);

  fairway_usage_journal_t* r = fairway_usage_journal_new();
  EXPECT_EQ(fairway::read_usage(*r, dir_.c_str()), std::optional<time_t>(500));
  fairway::read_journals(*r, dir_.c_str());
  auto loaded = tree();                     // slurmctld's older checkpoint
  loaded.push_back({{4, 99, 9}, true, 2});  // created since the period
  std::vector<fairway::UsageEntry> qos = {{7, 1, 1}, {8, 5, 5}};
  const fairway::ReplayCounts n = fairway::replay(*r, 500, loaded, qos);
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
  fairway::save_usage(dir_.c_str(), 500, tree(), {});
  ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 0), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j_, 500);
  const auto e = end(11, 2, 1);
  auto charge = end(12, 2, 1);
  charge.ended = false;          // a charge that did not end the job: each is added
  for (int i = 0; i < 2; i++) {  // in .journal.old, then again in the new .journal
    if (i) ASSERT_EQ(fairway_usage_journal_open(j_, dir_.c_str(), 1), FAIRWAY_OK);
    fairway::append_journal(*j_, e);
    fairway::append_journal(*j_, charge);
  }
  ASSERT_TRUE(fairway::read_usage(*j_, dir_.c_str()).has_value());
  fairway::read_journals(*j_, dir_.c_str());
  auto loaded = tree();
  const fairway::ReplayCounts n = fairway::replay(*j_, 500, loaded, {});
  EXPECT_EQ(n.applied, 3u);
  EXPECT_EQ(loaded[1].usage.usage_raw, 53.0L);
  EXPECT_EQ(fairway_usage_journal_ended(j_, 11), 1);
  EXPECT_EQ(fairway_usage_journal_ended(j_, 12), 0);
}

TEST_F(UsageJournalTest, ReplayWithoutAUsageFileReadIsRefused) {
  try {
    (void)fairway::replay(*j_, 1, {}, {});
    FAIL() << "replayed without a usage file";
  } catch (const fairway::Error& e) {
    EXPECT_EQ(e.code(), fairway::Errc::kInvalid);
  }
  EXPECT_FALSE(fairway::read_usage(*j_, dir_.c_str()).has_value());
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
