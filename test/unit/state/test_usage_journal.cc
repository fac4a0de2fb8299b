// The usage file, the journal and a restart's replay (lib/state/usage_store.h,
// lib/state/usage_replay.h): the files read back as written, a torn last line skipped, the
// file's usage restored and each job end of the period added up the tree once.  The journal's
// handle (fairway_usage_journal_t) is the C API's, specified in
// test/unit/capi/test_usage_journal_api.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "error.h"
#include "usage_replay.h"
#include "usage_store.h"

namespace fairway {
namespace {

namespace fs = std::filesystem;

JournalEntry end(uint32_t job, uint32_t assoc, double real) {
  JournalEntry e;
  e.job_id = job;
  e.assoc_id = assoc;
  e.real = real;
  e.run = 1;
  return e;
}

// root (1) <- account (2) <- user (3).
std::vector<ReplayAssoc> tree() {
  return {{{1, 100, 10}, false, 0}, {{2, 50, 5}, true, 1}, {{3, 20, 2}, true, 2}};
}

UsageSnapshot file_of(const std::vector<ReplayAssoc>& assocs, time_t period) {
  UsageSnapshot s;
  s.period = period;
  for (const ReplayAssoc& a : assocs) s.assocs.push_back(a.usage);
  return s;
}

TEST(UsageFile, ReadsBackWhatWasWrittenAndAMissingFileIsNone) {
  const fs::path dir = fs::temp_directory_path() / ("fw-usage-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "fairway_usage").string();
  EXPECT_EQ(read_usage_file(path), std::nullopt);
  UsageSnapshot s = file_of(tree(), 2000);
  s.qos.push_back({7, 9, 1});
  write_usage_file(path, s);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  const std::optional<UsageSnapshot> back = read_usage_file(path);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->period, 2000);
  ASSERT_EQ(back->assocs.size(), 3u);
  EXPECT_EQ(back->assocs[2].usage_raw, 20.0L);
  ASSERT_EQ(back->qos.size(), 1u);
  EXPECT_EQ(back->qos[0].usage_raw, 9.0L);
  EXPECT_EQ(format_usage(*back), format_usage(s));
  fs::remove_all(dir);
}

// A usage file of another format version (a newer Fairway's, after a downgrade) is refused
// with an error that names the file and the version found, never read as empty usage.
TEST(UsageFile, AnotherVersionIsRefusedNamingTheFileAndTheVersion) {
  const fs::path dir = fs::temp_directory_path() / ("fw-usage-v-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "fairway_usage").string();
  std::ofstream(path) << "fairway-usage 2 2000\na 1 0x1p+0 0x0p+0\nend 1\n";
  try {
    (void)read_usage_file(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::kParse);
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("version 2"), std::string::npos) << what;
    EXPECT_NE(what.find("reads version 1"), std::string::npos) << what;
  }
  fs::remove_all(dir);
}

TEST(Journal, LinesReadBackAndATornLastLineIsSkipped) {
  JournalEntry e = end(42, 3, 1.5);
  e.epoch = 1000;
  e.qos_id = 7;
  e.qos_usage = 2;
  JournalEntry charge = end(43, 3, 1);
  charge.ended = false;
  const std::string text = format_journal_line(e) + format_journal_line(charge);
  ASSERT_EQ(text.back(), '\n');
  const std::vector<JournalEntry> v = parse_journal(text + "e 1000 44");  // torn
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].epoch, 1000);
  EXPECT_EQ(v[0].job_id, 42u);
  EXPECT_EQ(v[0].real, 1.5);
  EXPECT_EQ(v[0].qos_id, 7u);
  EXPECT_TRUE(v[0].ended);
  EXPECT_FALSE(v[1].ended);
  EXPECT_TRUE(read_journal_file("/nonexistent/fairway_usage.journal").empty());
}

TEST(Journal, AMalformedCompleteLineIsAParseError) {
  try {
    (void)parse_journal("not a journal line\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::kParse);
  }
}

TEST(Replay, RestoresTheFileThenAddsJobEndsUpTheTree) {
  std::vector<ReplayAssoc> in_file = tree();
  in_file[2].usage = {3, 30, 3};
  UsageSnapshot file = file_of(in_file, 500);
  file.qos.push_back({7, 70, 7});
  JournalEntry e = end(11, 3, 4);
  e.epoch = 500;
  e.qos_id = 7;
  e.qos_usage = 2;
  JournalEntry other = e;  // a line of another period: skipped
  other.epoch = 400;
  const std::vector<JournalEntry> journal = {e, other};

  std::vector<ReplayAssoc> loaded = tree();  // slurmctld's older checkpoint
  loaded.push_back({{4, 99, 9}, true, 2});   // created since the period
  std::vector<UsageEntry> qos = {{7, 1, 1}, {8, 5, 5}};
  EndedJobs ended;
  const ReplayCounts n = replay_usage(file, journal, 500, loaded, qos, ended);
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
  EXPECT_TRUE(ended.contains(11));
  EXPECT_FALSE(ended.contains(12));
}

TEST(Replay, AJobEndInBothJournalsIsAddedOnceAndEachChargeEveryTime) {
  const UsageSnapshot file = file_of(tree(), 500);
  JournalEntry e = end(11, 2, 1);
  e.epoch = 500;
  JournalEntry charge = end(12, 2, 1);  // a charge that did not end the job: each is added
  charge.epoch = 500;
  charge.ended = false;
  const std::vector<JournalEntry> journal = {e, charge, e, charge};  // .old, then the new
  std::vector<ReplayAssoc> loaded = tree();
  EndedJobs ended;
  const ReplayCounts n = replay_usage(file, journal, 500, loaded, {}, ended);
  EXPECT_EQ(n.applied, 3u);
  EXPECT_EQ(loaded[1].usage.usage_raw, 53.0L);
  EXPECT_TRUE(ended.contains(11));
  EXPECT_FALSE(ended.contains(12));
}

TEST(Replay, AJobEndReplayedBeforeIsNotAddedAgain) {
  const UsageSnapshot file = file_of(tree(), 500);
  JournalEntry e = end(11, 3, 4);
  e.epoch = 500;
  std::vector<ReplayAssoc> loaded = tree();
  EndedJobs ended;
  EXPECT_TRUE(ended.insert(11));
  EXPECT_FALSE(ended.insert(11));
  const ReplayCounts n = replay_usage(file, std::vector<JournalEntry>{e}, 500, loaded, {}, ended);
  EXPECT_EQ(n.applied, 0u);
  EXPECT_EQ(loaded[2].usage.usage_raw, 20.0L);
}

}  // namespace
}  // namespace fairway
