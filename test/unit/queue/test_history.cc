// The fair-share history: blocks that survive a torn write, day files removed by age, the
// names file, and `fairway history`'s series and formats.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "error.h"
#include "history.h"
#include "history_format.h"
#include "job_starts.h"
#include "job_starts_file.h"
#include "job_starts_format.h"

namespace fairway {
namespace {

HistoryPeriod period(int64_t t, float scale) {
  HistoryPeriod p;
  p.time = t;
  p.records = {{1, 100 * scale, 1, 1, 0},
               {2, 60 * scale, 0.6f, 0.75f, 0},
               {3, 60 * scale, 0.6f, 0.75f, 0.5f}};
  return p;
}

TEST(History, BlocksRoundTrip) {
  const std::string b =
      encode_history_period(period(1000, 1)) + encode_history_period(period(1060, 2));
  EXPECT_EQ(b.size(), 2 * (16 + 3 * 24 + 4));
  size_t skipped = 99;
  const std::vector<HistoryPeriod> ps = parse_history(b, &skipped);
  EXPECT_EQ(skipped, 0u);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[1].time, 1060);
  ASSERT_EQ(ps[1].records.size(), 3u);
  EXPECT_EQ(ps[1].records[2].id, 3u);
  EXPECT_EQ(ps[1].records[2].usage_raw, 120.0);
  EXPECT_EQ(ps[1].records[2].entitled, 0.75f);
  EXPECT_EQ(ps[1].records[2].fs_factor, 0.5f);
}

TEST(History, ATornOrDamagedBlockIsSkippedAndTheNextOneFound) {
  const std::string a = encode_history_period(period(1000, 1));
  const std::string b = encode_history_period(period(1060, 2));
  const std::string c = encode_history_period(period(1120, 3));
  // A torn block (killed mid-write) followed by a later whole one, as O_APPEND leaves them.
  std::string bytes = a + b.substr(0, 40) + c;
  size_t skipped = 0;
  std::vector<HistoryPeriod> ps = parse_history(bytes, &skipped);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].time, 1000);
  EXPECT_EQ(ps[1].time, 1120);
  EXPECT_EQ(skipped, 40u);
  // A flipped byte inside a block: its checksum fails; the others stay.
  bytes = a + b + c;
  bytes[a.size() + 30] ^= 1;
  ps = parse_history(bytes, &skipped);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[1].time, 1120);
  EXPECT_EQ(skipped, b.size());
  // A count that runs past the end, and garbage only.
  bytes = a;
  bytes[4] = '\x7f';
  EXPECT_TRUE(parse_history(bytes, &skipped).empty());
  EXPECT_EQ(skipped, a.size());
  EXPECT_TRUE(parse_history("FWH1FWH1", &skipped).empty());
}

TEST(History, DayFilesAndTheirExpiry) {
  // 2026-11-25 12:00:00 UTC
  const int64_t noon = 1795608000;
  EXPECT_EQ(history_file_name(noon), "history-20261125.fwh");
  EXPECT_EQ(history_file_day("history-20261125.fwh"), noon - 12 * 3600);
  EXPECT_FALSE(history_file_day("history-2026112.fwh"));
  EXPECT_FALSE(history_file_day("history-2026112x.fwh"));
  EXPECT_FALSE(history_file_day("names"));
  EXPECT_FALSE(history_file_day("history-20261325.fwh"));
  const std::vector<std::string> names = {"names", "history-20261122.fwh", "history-20261123.fwh",
                                          "history-20261124.fwh", "history-20261125.fwh"};
  // A day file goes once its day ended `days` days before now.  At noon on the 25th with two
  // days kept, the 22nd (ended 60 h ago) goes and the 23rd (ended 36 h ago) stays.
  EXPECT_EQ(expired_history_files(names, noon, 2),
            (std::vector<std::string>{"history-20261122.fwh"}));
  EXPECT_EQ(expired_history_files(names, noon, 1),
            (std::vector<std::string>{"history-20261122.fwh", "history-20261123.fwh"}));
}

TEST(History, NamesFile) {
  const std::vector<HistoryName> n = {{1, "root", ""}, {3, "a", "alice"}};
  const std::string text = format_history_names(n);
  EXPECT_EQ(text, "1\troot\t\n3\ta\talice\n");
  const std::vector<HistoryName> back = parse_history_names(text + "4\tb");  // torn last line
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].user, "alice");
  EXPECT_THROW(parse_history_names("x\ta\t\n"), Error);
  EXPECT_THROW(parse_history_names("1 a\n"), Error);
}

class HistoryDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fw-history-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    dir_ = base_ + "/fairway_history";
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf '" + base_ + "'").c_str()), 0); }
  std::string base_, dir_;
};

TEST_F(HistoryDir, AppendsRotatesAndReadsBack) {
  const std::vector<HistoryName> names = {{1, "root", ""}, {2, "a", ""}, {3, "a", "alice"}};
  const int64_t day = 86400, t0 = 1795608000 - 5 * day;
  for (int d = 0; d < 5; d++)
    for (int k = 0; k < 3; k++)
      append_history(dir_, period(t0 + d * day + k * 300, k + 1.0f), names, 2);
  struct stat st {};
  ASSERT_EQ(stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((dir_ + "/" + history_file_name(t0 + 4 * day)).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Two days kept: the files of the last three days remain (the oldest of them not yet ended
  // two days before the last period).
  EXPECT_NE(access((dir_ + "/" + history_file_name(t0)).c_str(), F_OK), 0);
  EXPECT_NE(access((dir_ + "/" + history_file_name(t0 + day)).c_str(), F_OK), 0);
  HistoryData all = read_history(dir_, 0);
  EXPECT_EQ(all.periods.size(), 9u);
  EXPECT_EQ(all.names.size(), 3u);
  HistoryData recent = read_history(dir_, t0 + 4 * day + 1);
  ASSERT_EQ(recent.periods.size(), 2u);
  EXPECT_EQ(recent.periods[0].time, t0 + 4 * day + 300);
  // A new association joins the names file.
  std::vector<HistoryName> more = names;
  more.push_back({4, "b", ""});
  append_history(dir_, period(t0 + 4 * day + 900, 1), more, 2);
  EXPECT_EQ(read_history(dir_, 0).names.size(), 4u);
  // A torn block at the end of today's file (a killed slurmctld), then another period.
  {
    std::ofstream f(dir_ + "/" + history_file_name(t0 + 4 * day), std::ios::app | std::ios::binary);
    f << encode_history_period(period(1, 1)).substr(0, 50);
  }
  append_history(dir_, period(t0 + 4 * day + 1200, 1), more, 2);
  HistoryData after = read_history(dir_, t0 + 4 * day);
  EXPECT_EQ(after.skipped_bytes, 50u);
  EXPECT_EQ(after.periods.back().time, t0 + 4 * day + 1200);

  const std::vector<HistorySeries> s = history_series(after, "a", "alice");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].id, 3u);
  EXPECT_EQ(s[0].times.size(), after.periods.size());
  EXPECT_TRUE(history_series(after, "a", "bob").empty());
  const std::string parsable = format_history_parsable(s);
  EXPECT_EQ(parsable.substr(0, parsable.find('\n')),
            "Account|User|Time|RawUsage|Delivered|Entitled|Ratio|FairShare");
  EXPECT_NE(parsable.find("|0.600000|0.750000|0.800|0.500000\n"), std::string::npos) << parsable;
  EXPECT_NE(format_history(s).find("Fair-share of user alice in account a (association 3)"),
            std::string::npos);
  EXPECT_NE(format_history_json(s).find("\"ratio\":0.8"), std::string::npos);
}

TEST_F(HistoryDir, AnUncreatableDirectoryIsNamed) {
  try {
    append_history(base_ + "/missing/fairway_history", period(1, 1), {}, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::kIo);
    EXPECT_EQ(std::string(e.what()),
              "cannot create " + base_ + "/missing/fairway_history: No such file or directory");
  }
}

// A soak: 20 days of 5-minute periods (5,760 of them), 200 associations and a job start each
// period, 3 days kept.  After every day the history and the journal hold at most the files of
// the days kept plus today's, each day file of the history exactly its periods' blocks, and
// what is read back is every period of those days, none torn.
TEST_F(HistoryDir, ManyPeriodsStayWithinTheDaysKept) {
  std::vector<HistoryName> names;
  HistoryPeriod p;
  for (uint32_t id = 1; id <= 200; id++) {
    names.push_back({id, id == 1 ? "root" : "acct" + std::to_string(id % 17),
                     id > 17 ? "u" + std::to_string(id) : ""});
    p.records.push_back({id, 10.0f * id, 0.001f, 0.005f, 0.5f});
  }
  const int64_t day = 86400, t0 = 1795564800;  // a UTC midnight
  const uint32_t kept = 3;
  StartRecord r;
  r.job = {1, "u20", "acct3", "debug", t0, t0, 100, true, {1, 0, 99, 0, 0, 0, 0, 0}};
  size_t block = 0, days_seen = 0;
  for (int64_t t = t0; t < t0 + 20 * day; t += 300) {
    p.time = t;
    append_history(dir_, p, names, kept);
    r.job.job_id++;
    r.job.start_time = t;
    append_starts(dir_, t, {r}, kept);
    if (!block) block = encode_history_period(p).size();
    if ((t - t0) % day != day - 300) continue;  // the last period of a day
    ++days_seen;
    size_t history_files = 0, start_files = 0;
    for (const std::string& f : list_directory(dir_)) {
      struct stat st {};
      ASSERT_EQ(stat((dir_ + "/" + f).c_str(), &st), 0) << f;
      if (f.rfind("starts-", 0) == 0) ++start_files;
      if (f.rfind("history-", 0) != 0) continue;
      ++history_files;
      EXPECT_EQ(static_cast<size_t>(st.st_size), block * 288) << f;  // every period, no more
    }
    EXPECT_LE(history_files, std::min<size_t>(days_seen, kept + 1)) << "day " << days_seen;
    EXPECT_LE(start_files, std::min<size_t>(days_seen, kept + 1)) << "day " << days_seen;
  }
  const HistoryData all = read_history(dir_, 0);
  EXPECT_EQ(all.skipped_bytes, 0u);
  EXPECT_LE(all.periods.size(), (kept + 1) * 288u);
  EXPECT_GE(all.periods.size(), kept * 288u);
  EXPECT_EQ(all.periods.back().time, t0 + 20 * day - 300);
  EXPECT_EQ(all.names.size(), 200u);
  EXPECT_TRUE(find_start(dir_, r.job.job_id));
  EXPECT_FALSE(find_start(dir_, 2));  // the first day's starts are gone
}

// ---- why a job started ----

TEST(JobStarts, PlaceInTheLastOrderAndTheJobsPassed) {
  // Partition 0 ("debug"): jobs 1..5; 4 has the highest priority, 2 and 3 tie (3 submitted
  // earlier).  Partition 1 ("big"): job 5 alone.
  const std::vector<OrderRow> rows = {{0, 1, 100, 10}, {0, 2, 50, 20}, {0, 3, 50, 15},
                                      {0, 4, 900, 30}, {0, 5, 10, 5},  {1, 5, 70, 5}};
  const PeriodOrder o = period_order(rows, {"debug", "big"}, 1000);
  EXPECT_EQ(o.jobs[0], (std::vector<uint32_t>{4, 1, 3, 2, 5}));
  EXPECT_EQ(o.jobs[1], (std::vector<uint32_t>{5}));
  // Job 2 started in debug by backfill; 1 and 3 (ahead of it) still wait, 4 started too.
  StartedJob j;
  j.job_id = 2;
  j.partition = "debug";
  j.submit_time = 20;
  j.start_time = 1030;
  StartRecord r = explain_start(j, o, {1, 3, 5});
  EXPECT_EQ(r.order_time, 1000);
  EXPECT_EQ(r.order_partition, "debug");
  EXPECT_EQ(r.place, 4u);
  EXPECT_EQ(r.of, 5u);
  EXPECT_EQ(r.passed, 2u);
  EXPECT_EQ(r.passed_jobs, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(r.earlier_waiting, 3u);  // 1, 3 and 5 were submitted before it
  // Job 5 started in big, where it was alone: it passed nobody there.
  j.job_id = 5;
  j.partition = "big";
  j.submit_time = 5;
  r = explain_start(j, o, {1, 3});
  EXPECT_EQ(r.place, 1u);
  EXPECT_EQ(r.of, 1u);
  EXPECT_EQ(r.passed, 0u);
  // A job in no order (started before any period weighed it).
  j.job_id = 9;
  r = explain_start(j, o, {});
  EXPECT_EQ(r.order_time, 0);
  EXPECT_EQ(r.place, 0u);
}

TEST_F(HistoryDir, TheJournalOfStartsReadsBackAndExplains) {
  StartRecord r;
  r.job = {12,      "alice",    "chem",
           "debug", 1795600000, 1795601800,
           1140,    true,       {140, 0, 1000, 0, 0, 0, 0, static_cast<double>(0)}};
  r.order_time = 1795601700;
  r.order_partition = "debug";
  r.place = 3;
  r.of = 40;
  r.passed = 1;
  r.passed_jobs = {9};
  r.earlier_waiting = 2;
  const std::string line = start_record_json(r);
  const std::optional<StartRecord> back = parse_start_record(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(start_record_json(*back), line);
  EXPECT_FALSE(parse_start_record(line.substr(0, line.size() - 5)));
  append_starts(dir_, r.job.start_time, {r}, 2);
  r.job.priority = 1200;  // a later record of the same job (requeued, started again) wins
  append_starts(dir_, r.job.start_time + 60, {r}, 2);
  {  // a torn line at the end
    std::ofstream f(dir_ + "/" + starts_file_name(r.job.start_time), std::ios::app);
    f << line.substr(0, 20);
  }
  EXPECT_FALSE(find_start(dir_, 13));
  // The next append ends the torn line first: its record is whole.
  StartRecord next = r;
  next.job.job_id = 13;
  append_starts(dir_, r.job.start_time + 120, {next}, 2);
  ASSERT_TRUE(find_start(dir_, 13));
  const std::optional<StartRecord> found = find_start(dir_, 12);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->job.priority, 1200u);
  EXPECT_EQ(found->order_partition, "debug");
  const std::string text = format_start(*found);
  EXPECT_NE(text.find("Job 12 (user alice, account chem) started"), std::string::npos) << text;
  EXPECT_NE(text.find("it was 3rd of 40 pending jobs in debug, with priority 1200: age 140 + "
                      "fair-share 1000."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("It started before 1 job that was ahead of it then and still waits (9)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 jobs submitted before it to debug still wait."), std::string::npos)
      << text;
  // Files older than the days kept go with the next append.
  append_starts(dir_, r.job.start_time + 3 * 86400, {}, 2);
  EXPECT_FALSE(find_start(dir_, 12));
  // A name that is not UTF-8 is written, not refused.
  r.job.user = "al\xffice";
  EXPECT_NE(start_record_json(r).find("\"user\":\"al\xef\xbf\xbdice\""), std::string::npos);
}

// A record whose site factor still carries Slurm's NICE_OFFSET (2^31: a site factor of 0 as
// prio_factors holds it) reads back as the site factor the priority used; one within the range
// Slurm accepts for a site factor is read as it is, negative ones included.
TEST(JobStarts, ASiteFactorWrittenWithNiceOffsetReadsBackWithout) {
  StartRecord r;
  r.job = {14,      "fw_u1",    "bloggs",
           "debug", 1795600000, 1795600300,
           3555,    true,       {555, 0, 3000, 0, 0, 0, 2147483648.0, 0}};
  r.order_time = 1795600240;
  r.order_partition = "debug";
  r.place = 1;
  r.of = 2;
  std::optional<StartRecord> back = parse_start_record(start_record_json(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->job.factors[Factor::kSite], 0.0);
  EXPECT_EQ(format_start(*back).find("site"), std::string::npos) << format_start(*back);
  for (double site : {-2147483645.0, -5.0, 0.0, 250.0, 2147483645.0}) {
    r.job.factors[Factor::kSite] = site;
    back = parse_start_record(start_record_json(r));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->job.factors[Factor::kSite], site);
  }
  r.job.factors[Factor::kSite] = 2147483648.0 + 250;
  back = parse_start_record(start_record_json(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->job.factors[Factor::kSite], 250.0);
  EXPECT_NE(format_start(*back).find("age 555 + fair-share 3000 + site 250."), std::string::npos)
      << format_start(*back);
}

}  // namespace
}  // namespace fairway
