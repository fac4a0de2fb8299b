// The C API of the usage the restart-safety files hold (lib/capi/fairway_usage_state.h): the
// usage copied one record at a time, saved to the usage file and replaced by a restart's
// replay through the records' own fields, and a job end's journal entry (usage_journal.h, the
// steps inside the C API).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "fairway.h"
#include "fairway_usage_files.h"
#include "fairway_usage_state.h"
#include "usage_journal.h"
#include "usage_store.h"

namespace {

namespace fs = std::filesystem;

// A record's usage as assoc_mgr keeps it.
struct Usage {
  long double usage_raw;
  double grp_used_wall;
};

class UsageCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fw-usage-copy-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    c_ = fairway_usage_copy_new();
    ASSERT_NE(c_, nullptr);
  }
  void TearDown() override {
    fairway_usage_copy_destroy(&c_);
    fs::remove_all(dir_);
  }
  // root (1) <- account (2) <- user (3); QOS 7.
  void copy_tree() {
    ASSERT_EQ(fairway_usage_copy_assoc(c_, 1, &a_[0].usage_raw, &a_[0].grp_used_wall, 0, 0),
              FAIRWAY_OK);
    ASSERT_EQ(fairway_usage_copy_assoc(c_, 2, &a_[1].usage_raw, &a_[1].grp_used_wall, 1, 1),
              FAIRWAY_OK);
    ASSERT_EQ(fairway_usage_copy_assoc(c_, 3, &a_[2].usage_raw, &a_[2].grp_used_wall, 2, 1),
              FAIRWAY_OK);
    ASSERT_EQ(fairway_usage_copy_qos(c_, 7, &q_.usage_raw, &q_.grp_used_wall), FAIRWAY_OK);
  }
  // The usage file's path in dir_.
  std::string usage_path() const {
    char path[4096];
    fairway::state_path(dir_.c_str(), fairway::StateFile::kUsage, path, sizeof path);
    return path;
  }
  // The lines of the journal now at its path.
  std::vector<fairway::JournalEntry> journal() const {
    char path[4096];
    fairway::state_path(dir_.c_str(), fairway::StateFile::kJournal, path, sizeof path);
    return fairway::read_journal_file(path);
  }
  fs::path dir_;
  fairway_usage_copy_t* c_ = nullptr;
  Usage a_[3] = {{100, 10}, {50, 5}, {20, 2}};
  Usage q_ = {9, 1};
};

TEST_F(UsageCopyTest, SavesTheValuesCopiedNotTheRecordsLater) {
  copy_tree();
  a_[2].usage_raw = 999;  // changed after the copy: not saved
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 2000), FAIRWAY_OK);
  const auto f = fairway::read_usage_file(usage_path());
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->period, 2000);
  ASSERT_EQ(f->assocs.size(), 3u);
  EXPECT_EQ(f->assocs[2].id, 3u);
  EXPECT_EQ(f->assocs[2].usage_raw, 20);
  ASSERT_EQ(f->qos.size(), 1u);
  EXPECT_EQ(f->qos[0].usage_raw, 9);
}

// The plugin keeps one copy for every period's save: emptied, it holds only what is copied
// after.
TEST_F(UsageCopyTest, ACopyClearedAndFilledAgainSavesOnlyTheNewRecords) {
  copy_tree();
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 2000), FAIRWAY_OK);
  fairway_usage_copy_clear(c_);
  a_[1].usage_raw = 60;
  ASSERT_EQ(fairway_usage_copy_assoc(c_, 1, &a_[0].usage_raw, &a_[0].grp_used_wall, 0, 0),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_copy_assoc(c_, 2, &a_[1].usage_raw, &a_[1].grp_used_wall, 1, 1),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 3000), FAIRWAY_OK);
  const auto f = fairway::read_usage_file(usage_path());
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->period, 3000);
  ASSERT_EQ(f->assocs.size(), 2u);
  EXPECT_EQ(f->assocs[1].id, 2u);
  EXPECT_EQ(f->assocs[1].usage_raw, 60);
  EXPECT_TRUE(f->qos.empty());
  fairway_usage_copy_clear(nullptr);  // a no-op
}

// A save writes the file through one piece of its text kept in the scratch it is handed, so
// that neither a large copy nor the whole text is built and freed again every period (on a
// virtual machine whose host reclaims the memory a process frees, that costs the next
// period's walk of the job list several times its length; doc/performance.md).
TEST_F(UsageCopyTest, ASaveWritesThroughOnePieceKeptForTheNextSave) {
  std::vector<fairway::ReplayAssoc> assocs;
  for (uint32_t id = 1; id <= 20000; id++)
    assocs.push_back({{id, 1.5L * id, 2.0 * id}, id > 1, id > 1 ? 1u : 0u});
  const std::vector<fairway::UsageEntry> qos = {{7, 9, 1}, {8, 0.25L, 0}};
  fairway::UsageScratch scratch;
  fairway::save_usage(dir_.c_str(), 2000, assocs, qos, scratch);
  const char* piece = scratch.piece.data();
  assocs[17].usage.usage_raw = 3;
  fairway::save_usage(dir_.c_str(), 2060, assocs, qos, scratch);
  EXPECT_EQ(scratch.piece.data(), piece);
  EXPECT_LT(scratch.piece.capacity(), 2 * fairway::kUsagePiece);
  const std::string path = usage_path();
  EXPECT_GT(fs::file_size(path), 4 * fairway::kUsagePiece);  // written in several pieces
  const auto f = fairway::read_usage_file(path);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->period, 2060);
  ASSERT_EQ(f->assocs.size(), 20000u);
  EXPECT_EQ(f->assocs[17].usage_raw, 3);
  EXPECT_EQ(f->assocs[4999].usage_raw, 1.5L * 5000);
  ASSERT_EQ(f->qos.size(), 2u);
  EXPECT_EQ(f->qos[1].usage_raw, 0.25L);
  // The same text as the file of the same snapshot written whole.
  fairway::UsageSnapshot s;
  s.period = 2060;
  for (const auto& a : assocs) s.assocs.push_back(a.usage);
  s.qos = qos;
  bool exists = false;
  EXPECT_EQ(fairway::read_whole_file(path, &exists, 1 << 24), fairway::format_usage(s));
}

TEST_F(UsageCopyTest, ReplayWritesTheRestoredUsageIntoTheRecords) {
  copy_tree();
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 2000), FAIRWAY_OK);
  fairway_usage_copy_destroy(&c_);
  // A restart: slurmctld's older checkpoint loaded, a job end journaled after the file.
  fairway_usage_journal_t* j = fairway_usage_journal_new();
  ASSERT_EQ(fairway_usage_journal_open(j, dir_.c_str(), 1), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j, 2000);
  fairway_job_charge_t charge{};
  charge.real_decay = 4;
  charge.run_decay = 2;
  fairway_job_end_t end{};
  end.job_id = 42;
  end.assoc_id = 3;
  end.qos = {7, 1, 0};
  ASSERT_EQ(fairway_usage_journal_job_end(j, &charge, &end), FAIRWAY_OK);
  Usage loaded[3] = {{1, 1}, {1, 1}, {1, 1}};
  std::copy(loaded, loaded + 3, a_);
  q_ = {1, 1};
  c_ = fairway_usage_copy_new();
  copy_tree();
  fairway_restore_t ready;
  char line[256];
  ASSERT_EQ(fairway_usage_restore_prepare(j, dir_.c_str(), 2000, &ready, line, sizeof line),
            FAIRWAY_OK);
  ASSERT_EQ(ready, FAIRWAY_RESTORE_READY) << line;
  fairway_replay_counts_t n{};
  ASSERT_EQ(fairway_usage_copy_replay(c_, j, 2000, &n), FAIRWAY_OK);
  EXPECT_EQ(n.restored, 3u);
  EXPECT_EQ(n.applied, 1u);
  EXPECT_EQ(a_[0].usage_raw, 104);  // the job end charged up to the root
  EXPECT_EQ(a_[2].usage_raw, 24);
  EXPECT_EQ(a_[2].grp_used_wall, 4);
  EXPECT_EQ(q_.usage_raw, 13);
  EXPECT_TRUE(fairway_usage_journal_ended(j, 42));
  fairway_usage_journal_destroy(&j);
}

// A job of 2 billable CPUs that started at `start` and ended at 2600, charged from
// start_period, decay off.
fairway_charge_basis_t two_cpus_until_2600(time_t start, time_t start_period) {
  fairway_charge_basis_t b{};
  b.times = {start, 2600, 2600, 60, 1};
  b.start_period = start_period;
  b.end_period = 2600;
  b.decay_factor = 1;
  b.billable_tres = 2;
  b.usage_factor = -1;
  return b;
}

// Two controllers in control at once share StateSaveLocation.  Controller A's last period was
// 1000; B, in control too, saved its usage file of 2000 and rotated the journal.  A job (2
// billable CPUs, from 500) then ends under A at 2600: A charges itself 1000-2600, but B's
// file already holds the job's time up to 2000, so A's line must charge 2000-2600, with 2000
// as its epoch, in the journal a restart replays over B's file.
TEST_F(UsageCopyTest, AJobEndAfterAnotherControllersPeriodJournalsOnlyTheTimeAfterIt) {
  fairway_usage_journal_t* a = fairway_usage_journal_new();
  ASSERT_EQ(fairway_usage_journal_open(a, dir_.c_str(), 1), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(a, 1000);
  copy_tree();
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 2000), FAIRWAY_OK);  // B's period
  fairway_usage_journal_t* b = fairway_usage_journal_new();
  ASSERT_EQ(fairway_usage_journal_open(b, dir_.c_str(), 1), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(b, 2000);

  const fairway_charge_basis_t basis = two_cpus_until_2600(500, 1000);
  fairway_job_charge_t charge{};
  ASSERT_EQ(fairway_job_charge(&basis.times, 1000, 2600, 1, 1, 2, -1, &charge), FAIRWAY_OK);
  ASSERT_EQ(charge.real_decay, 3200);  // what A charges itself
  fairway_job_end_t end{};
  end.job_id = 42;
  end.assoc_id = 3;
  end.qos = {7, 1, 0};
  end.basis = &basis;
  ASSERT_EQ(fairway_usage_journal_job_end(a, &charge, &end), FAIRWAY_OK);
  fairway_usage_journal_destroy(&a);
  fairway_usage_journal_destroy(&b);
  // in the journal B opened, not in the one B rotated (which a second rotation would drop)
  const auto lines = journal();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].epoch, 2000);
  EXPECT_EQ(lines[0].real, 1200);

  // A restart (or B's next takeover) from B's file: the job's time after 2000 is added.
  std::fill(a_, a_ + 3, Usage{1, 1});
  q_ = {1, 1};
  fairway_usage_copy_destroy(&c_);
  c_ = fairway_usage_copy_new();
  copy_tree();
  fairway_usage_journal_t* r = fairway_usage_journal_new();
  fairway_restore_t ready;
  char line[256];
  ASSERT_EQ(fairway_usage_restore_prepare(r, dir_.c_str(), 2000, &ready, line, sizeof line),
            FAIRWAY_OK);
  ASSERT_EQ(ready, FAIRWAY_RESTORE_READY) << line;
  fairway_replay_counts_t n{};
  ASSERT_EQ(fairway_usage_copy_replay(c_, r, 2000, &n), FAIRWAY_OK);
  EXPECT_EQ(n.applied, 1u);
  EXPECT_EQ(a_[2].usage_raw, 20 + 1200);  // B's file, then 2 x (2600 - 2000)
  EXPECT_EQ(a_[2].grp_used_wall, 2 + 600);
  EXPECT_EQ(a_[0].usage_raw, 100 + 1200);
  EXPECT_EQ(q_.usage_raw, 9 + 1200);
  EXPECT_TRUE(fairway_usage_journal_ended(r, 42));
  fairway_usage_journal_destroy(&r);
}

// The controller's own rotation is not another controller's: with a basis, the line keeps the
// whole charge and the handle's epoch.
TEST_F(UsageCopyTest, AJobEndAfterTheControllersOwnPeriodJournalsTheWholeCharge) {
  fairway_usage_journal_t* j = fairway_usage_journal_new();
  ASSERT_EQ(fairway_usage_journal_open(j, dir_.c_str(), 1), FAIRWAY_OK);
  copy_tree();
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 2000), FAIRWAY_OK);
  fairway_usage_journal_set_epoch(j, 2000);
  ASSERT_EQ(fairway_usage_journal_open(j, dir_.c_str(), 1), FAIRWAY_OK);
  const fairway_charge_basis_t basis = two_cpus_until_2600(1500, 2000);
  fairway_job_charge_t charge{};
  charge.real_decay = 1200;
  charge.run_decay = 600;
  fairway_job_end_t end{};
  end.job_id = 7;
  end.assoc_id = 3;
  end.basis = &basis;
  ASSERT_EQ(fairway_usage_journal_job_end(j, &charge, &end), FAIRWAY_OK);
  fairway_usage_journal_destroy(&j);
  const auto lines = journal();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].epoch, 2000);
  EXPECT_EQ(lines[0].real, 1200);
  EXPECT_EQ(lines[0].run, 600);
}

TEST_F(UsageCopyTest, ReplayWithNothingReadLeavesTheRecords) {
  copy_tree();
  fairway_usage_journal_t* j = fairway_usage_journal_new();
  fairway_replay_counts_t n{};
  EXPECT_EQ(fairway_usage_copy_replay(c_, j, 2000, &n), FAIRWAY_EINVAL);
  EXPECT_EQ(a_[0].usage_raw, 100);
  fairway_usage_journal_destroy(&j);
}

TEST(UsageCopy, RefusesNullArguments) {
  long double raw = 0;
  double wall = 0;
  fairway_replay_counts_t n{};
  EXPECT_EQ(fairway_usage_copy_assoc(nullptr, 1, &raw, &wall, 0, 0), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_usage_copy_qos(nullptr, 1, &raw, &wall), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_usage_copy_save(nullptr, "/tmp", 1), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_usage_copy_replay(nullptr, nullptr, 1, &n), FAIRWAY_EINVAL);
  fairway_usage_copy_t* c = fairway_usage_copy_new();
  EXPECT_EQ(fairway_usage_copy_assoc(c, 1, nullptr, &wall, 0, 0), FAIRWAY_EINVAL);
  fairway_usage_copy_destroy(&c);
  fairway_usage_copy_destroy(&c);  // NULL: a no-op
}

TEST(JobEndEntry, ChargesTheAssociationDecayedAndEachQosItsOwnAmounts) {
  fairway_job_charge_t c{};
  c.real_decay = 3;
  c.run_decay = 2;
  c.real_nodecay = 6;
  c.run_nodecay = 4;
  fairway_job_end_t end{};
  end.job_id = 9;
  end.assoc_id = 5;
  end.not_ended = 1;
  end.qos = {7, 1, 0};
  end.part_qos = {8, 1, 1};
  const fairway::JournalEntry e = fairway::job_end_entry(c, end);
  EXPECT_EQ(e.epoch, 0);
  EXPECT_EQ(e.job_id, 9u);
  EXPECT_EQ(e.assoc_id, 5u);
  EXPECT_FALSE(e.ended);
  EXPECT_EQ(e.real, 3);
  EXPECT_EQ(e.run, 2);
  EXPECT_EQ(e.qos_id, 7u);
  EXPECT_EQ(e.qos_usage, 3);
  EXPECT_EQ(e.qos_wall, 2);
  EXPECT_EQ(e.part_qos_id, 8u);  // NoDecay: undecayed
  EXPECT_EQ(e.part_qos_usage, 6);
  EXPECT_EQ(e.part_qos_wall, 4);
}

TEST(JobEndEntry, AQosNotChargedIsNone) {
  fairway_job_charge_t c{};
  c.real_decay = 3;
  fairway_job_end_t end{};
  end.qos = {7, 0, 0};  // no usage
  const fairway::JournalEntry e = fairway::job_end_entry(c, end);
  EXPECT_TRUE(e.ended);
  EXPECT_EQ(e.qos_id, 0u);
  EXPECT_EQ(e.qos_usage, 0);
  EXPECT_EQ(e.part_qos_id, 0u);
  EXPECT_EQ(fairway_usage_journal_job_end(nullptr, nullptr, &end), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_usage_journal_job_end(nullptr, &c, nullptr), FAIRWAY_EINVAL);
}

TEST_F(UsageCopyTest, RestoreIsReadyOnlyForAFileOfTheLastPeriod) {
  fairway_usage_journal_t* j = fairway_usage_journal_new();
  fairway_restore_t r;
  char line[256];
  ASSERT_EQ(fairway_usage_restore_prepare(j, dir_.c_str(), 2000, &r, line, sizeof line),
            FAIRWAY_OK);
  EXPECT_EQ(r, FAIRWAY_RESTORE_NONE);
  EXPECT_STREQ(line, "");
  copy_tree();
  ASSERT_EQ(fairway_usage_copy_save(c_, dir_.c_str(), 1000), FAIRWAY_OK);
  ASSERT_EQ(fairway_usage_restore_prepare(j, dir_.c_str(), 2000, &r, line, sizeof line),
            FAIRWAY_OK);
  EXPECT_EQ(r, FAIRWAY_RESTORE_STALE);
  EXPECT_STREQ(line, "usage file is of 1000, the last period of 2000: keeping slurmctld's usage");
  ASSERT_EQ(fairway_usage_restore_prepare(j, dir_.c_str(), 1000, &r, line, sizeof line),
            FAIRWAY_OK);
  EXPECT_EQ(r, FAIRWAY_RESTORE_READY);
  fairway_usage_journal_destroy(&j);
}

TEST_F(UsageCopyTest, RestoreOfADamagedFileKeepsTheUsageAndSaysWhy) {
  char path[4096];
  fairway::state_path(dir_.c_str(), fairway::StateFile::kUsage, path, sizeof path);
  FILE* f = std::fopen(path, "w");
  std::fputs("not a usage file\n", f);
  std::fclose(f);
  fairway_usage_journal_t* j = fairway_usage_journal_new();
  fairway_restore_t r;
  char line[256];
  ASSERT_EQ(fairway_usage_restore_prepare(j, dir_.c_str(), 2000, &r, line, sizeof line),
            FAIRWAY_OK);
  EXPECT_EQ(r, FAIRWAY_RESTORE_UNUSABLE);
  EXPECT_EQ(std::string(line).rfind("usage file unusable, keeping slurmctld's usage: ", 0), 0u);
  EXPECT_EQ(fairway_usage_restore_prepare(j, dir_.c_str(), 2000, nullptr, line, sizeof line),
            FAIRWAY_EINVAL);
  fairway_usage_journal_destroy(&j);
}

TEST(RestoreSummary, CountsAssociationsJobEndsAndThoseCreatedSince) {
  char line[256];
  fairway_replay_counts_t n{3, 2, 0};
  fairway_usage_restore_summary(&n, 2000, line, sizeof line);
  EXPECT_STREQ(line,
               "usage of 3 associations restored from the period at 2000, plus 2 job ends "
               "after it");
  n.fresh = 1;
  fairway_usage_restore_summary(&n, 2000, line, sizeof line);
  EXPECT_STREQ(line,
               "usage of 3 associations restored from the period at 2000, plus 2 job ends "
               "after it; 1 associations created since start from 0");
}

TEST_F(UsageCopyTest, DecayStateRecoveryNamesItsFilesAndWhatToLog) {
  fairway_decay_recovery_t r;
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), 5000, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_NO_FILE);
  EXPECT_EQ(std::string(r.path), (dir_ / "priority_last_decay_ran").string());
  EXPECT_EQ(std::string(r.info_line),
            "no last decay state (" + std::string(r.path) + ") to recover");
  EXPECT_STREQ(r.error_lines[0], "");
  ASSERT_EQ(fairway_decay_state_save(dir_.c_str(), 4000, 3000), FAIRWAY_OK);
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), 5000, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_FROM_FILE);
  EXPECT_EQ(r.last_ran, 4000);
  EXPECT_EQ(r.last_reset, 3000);
  EXPECT_STREQ(r.info_line, "");
}

TEST_F(UsageCopyTest, ADamagedDecayStateWithoutAPreviousCopyCountsFromNow) {
  FILE* f = std::fopen((dir_ / "priority_last_decay_ran").c_str(), "w");
  std::fputs("x", f);
  std::fclose(f);
  fairway_decay_recovery_t r;
  ASSERT_EQ(fairway_decay_state_recover_in(dir_.c_str(), 5000, &r), FAIRWAY_OK);
  EXPECT_EQ(r.source, FAIRWAY_DECAY_FROM_NOW);
  EXPECT_EQ(r.last_ran, 5000);
  EXPECT_EQ(std::string(r.error_lines[0]).rfind("decay state unusable: ", 0), 0u);
  EXPECT_EQ(std::string(r.error_lines[1]).rfind("no usable decay state: counting periods", 0), 0u);
  EXPECT_EQ(fairway_decay_state_recover_in(dir_.c_str(), 5000, nullptr), FAIRWAY_EINVAL);
}

}  // namespace
