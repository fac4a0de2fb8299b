// Regression tests for bugs found by fuzzing, sanitizers and review (each test is named
// after the part of the API and the behaviour it pins down).  The inputs that found the fuzz
// bugs are also replayed from test/fuzz/regressions/ by test/fuzz/replay_*.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "api_guard.h"
#include "decay_state.h"
#include "fairway.h"
#include "fairway_fair_share_table.h"
#include "fairway_usage_files.h"
#include "job_factors.h"
#include "usage_journal.h"
#include "usage_store.h"

namespace {

// fuzz_fair_share_api: an infinite FairShareDampeningFactor passed the C API's check
// (!(d >= 1)) and was refused by the core with std::invalid_argument, which the API reported
// as FAIRWAY_EINTERNAL ("a bug in the core") instead of FAIRWAY_EINVAL.
TEST(FairshareApi, InfiniteDampeningIsEinvalNotEinternal) {
  const fairway_assoc_t root = {1, 0, "root", nullptr, 1, 0, 0};
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  ASSERT_EQ(
      fairway_fair_share_table_load(t, &root, 1, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr),
      FAIRWAY_OK);
  for (fairway_algorithm_t algo :
       {FAIRWAY_ALGO_FAIR_TREE, FAIRWAY_ALGO_CLASSIC, FAIRWAY_ALGO_DEPTH_OBLIVIOUS}) {
    EXPECT_EQ(fairway_fair_share_table_compute(t, algo, std::numeric_limits<double>::infinity(), 0),
              FAIRWAY_EINVAL);
    EXPECT_NE(std::string(fairway_last_error()), "");
    EXPECT_EQ(fairway_fair_share_table_compute(t, algo, std::nan(""), 0), FAIRWAY_EINVAL);
    EXPECT_EQ(fairway_fair_share_table_compute(t, algo, 1, 0), FAIRWAY_OK);
  }
  fairway_fair_share_table_destroy(&t);
}

// fuzz_decay_state: parse_decay_state computed now + 86400 in int64_t, a signed overflow
// (undefined behaviour, UBSan report) for a caller-supplied now near INT64_MAX.
TEST(DecayState, NowNearInt64MaxDoesNotOverflow) {
  const fairway::DecayState want{1767225600, 1767000000};
  const std::string bytes = fairway::encode_decay_state(want);
  for (time_t now : {std::numeric_limits<time_t>::max(), std::numeric_limits<time_t>::max() - 86400,
                     std::numeric_limits<time_t>::max() - 86399}) {
    const fairway::DecayState got = fairway::parse_decay_state(bytes, now);
    EXPECT_EQ(got.last_ran, want.last_ran);
    EXPECT_EQ(got.last_reset, want.last_reset);
  }
  // Still refused: a time after now + one day.
  EXPECT_THROW(fairway::parse_decay_state(bytes, 1767225600 - 86401), fairway::Error);
}

// Review while writing the fuzz targets: a weighted sum of 2^64 or more (e.g. a large
// PriorityWeightTRES) was converted to uint64_t before clamping -- undefined, and 0 on x86-64,
// so the job became "held" (priority 0) instead of getting 2^32-1; a NaN factor became 2^32-1
// silently.  (No site factor, no nice: both 0 without Slurm's offset.)
TEST(JobPriority, Above2To64IsClampedNotHeld) {
  const fairway::PrioritySettings w;
  for (double tres : {0x1p64, 1e30, std::numeric_limits<double>::max(),
                      std::numeric_limits<double>::infinity()}) {
    fairway::JobFactors f;
    bool clamped = false;
    EXPECT_EQ(fairway::job_priority(w, f, tres, &clamped), 0xffffffffU) << tres;
    EXPECT_TRUE(clamped) << tres;
    bool part_clamped = false;
    EXPECT_EQ(fairway::job_priority_in_partition(
                  fairway::PrioritySettings{}, fairway::FactorValues{}, 0, 0, tres, &part_clamped),
              0xffffffffU);
    EXPECT_TRUE(part_clamped);
  }
  // Unchanged below 2^64: 2^32 and more clamps, less does not.
  fairway::JobFactors f;
  bool clamped = false;
  EXPECT_EQ(fairway::job_priority(w, f, 4294967296.0, &clamped), 0xffffffffU);
  EXPECT_TRUE(clamped);
  f = fairway::JobFactors{};
  EXPECT_EQ(fairway::job_priority(w, f, 4294967295.5, &clamped), 0xffffffffU);
  EXPECT_FALSE(clamped);
  f = fairway::JobFactors{};
  EXPECT_EQ(fairway::job_priority(w, f, 1234.9, &clamped), 1234U);
  f = fairway::JobFactors{};
  EXPECT_EQ(fairway::job_priority(w, f, -5, &clamped), 1U);
}

TEST(JobPriority, NanIsOneNotMaximal) {
  fairway::PrioritySettings w;
  w.weight[fairway::Factor::kFairshare] = 1000;
  fairway::JobFactors f;
  f[fairway::Factor::kFairshare] = std::nan("");
  bool clamped = false;
  EXPECT_EQ(fairway::job_priority(w, f, 0, &clamped), 1U);
  EXPECT_FALSE(clamped);
  f = fairway::JobFactors{};
  EXPECT_EQ(fairway::job_priority(w, f, std::nan(""), &clamped), 1U);
}

}  // namespace

namespace {

// scripts/sanitize (gcc -fsanitize=enum): the fair-share computation of the C API loaded an
// out-of-range fairway_algorithm_t (any int a C caller passes) as the C++ enum type:
// undefined.  It is now read as an int and refused with FAIRWAY_EINVAL.
TEST(FairshareApi, OutOfRangeAlgorithmIsEinvalWithoutUb) {
  const fairway_assoc_t root = {1, 0, "root", nullptr, 1, 0, 0};
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  ASSERT_EQ(
      fairway_fair_share_table_load(t, &root, 1, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr),
      FAIRWAY_OK);
  for (int bad : {3, 7, -1, 1 << 30})
    EXPECT_EQ(fairway_fair_share_table_compute(t, static_cast<fairway_algorithm_t>(bad), 1, 0),
              FAIRWAY_EINVAL);
  fairway_fair_share_table_destroy(&t);
}

}  // namespace

namespace {

// fuzz job_factors: the age factor subtracted two time_t values in int64_t: signed
// overflow for times far apart.  Now unsigned, with the same low 32 bits Slurm keeps.
TEST(JobFactors, AgeOfTimesFarApartIsDefined) {
  fairway::PrioritySettings w;
  w.weight[fairway::Factor::kAge] = 1000;
  w.max_age = 7 * 86400;
  const fairway::Cluster c{64, 4};
  fairway::JobInput job;
  job.has_details = true;
  job.site_factor = 0;
  job.nice = 0;
  job.accrue_time = std::numeric_limits<int64_t>::min() / 2;
  fairway::JobFactors f =
      fairway::job_factors(w, c, job, std::numeric_limits<int64_t>::max() / 2 + 3600);
  EXPECT_GE(f[fairway::Factor::kAge], 0.0);
  EXPECT_LE(f[fairway::Factor::kAge], 1.0);
  // An ordinary case is unchanged: one day of a week.
  job.accrue_time = 1767225600;
  f = fairway::job_factors(w, c, job, 1767225600 + 86400);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAge], 1.0 / 7);
}

// fuzz job_factors: SMALL_RELATIVE_TO_TIME with no nodes, no CPUs and a zero time limit
// divided 0 by 0; the NaN job-size factor passed the clamps.  It counts as 0 now.
TEST(JobFactors, JobSizeZeroOverZeroIsZero) {
  fairway::PrioritySettings w;
  w.weight[fairway::Factor::kJobSize] = 1000;
  w.flags = fairway::kSmallRelativeToTime;
  fairway::JobInput job;
  job.has_details = true;
  job.site_factor = 0;
  job.nice = 0;
  job.time_limit = 0;
  const fairway::JobFactors f = fairway::job_factors(w, fairway::Cluster{64, 4}, job, 1767225600);
  EXPECT_EQ(f[fairway::Factor::kJobSize], 0.0);
}

// fuzz job_factors: fairway_job_charge converted doubles out of the range of the integer
// type (an expected end 68+ years away into int; TRES seconds x usage factor >= 2^64 into
// uint64_t): undefined.  Now: nothing released for the former (x86-64's result of Slurm's
// cast), 2^64-1 for the latter.
TEST(JobCharge, ConversionsOutOfRangeAreDefined) {
  fairway_job_times_t t{};
  t.start_time = 1767225600;
  t.end_time_exp = t.start_time + (int64_t{1} << 40);
  t.time_limit = 0xfffffffe;
  fairway_job_charge_t ch;
  ASSERT_EQ(fairway_job_charge(&t, t.start_time, t.start_time + 60, 0, 1.0, 1.0, -1.0, &ch),
            FAIRWAY_OK);
  EXPECT_EQ(ch.tres_time_delta, 60U);  // end_exp still ahead: what ran
  ASSERT_EQ(fairway_job_charge(&t, t.start_time, t.end_time_exp + 10, 0, 1.0, 1.0, -1.0, &ch),
            FAIRWAY_OK);
  EXPECT_EQ(ch.tres_time_delta, 0U);
  t.end_time_exp = t.start_time + 3600;
  t.finished = 1;
  ASSERT_EQ(fairway_job_charge(&t, t.start_time, t.start_time + 60, 1, 1.0, 1.0, 1e300, &ch),
            FAIRWAY_OK);
  EXPECT_EQ(ch.tres_time_delta, UINT64_MAX);
}

// fuzz_usage_store (CI's fuzz-short): a 19-digit epoch or period above INT64_MAX overflowed the
// signed accumulator of the time parser.  Now such a line is refused (a usage file: EPARSE
// naming the header; a journal: the line is not an entry).
TEST(UsageStore, TimeAboveInt64IsRefusedWithoutUb) {
  try {
    (void)fairway::parse_usage("fairway-usage 1 9223372036854775808\na 1 0x8p+7 0x1p+4\nend 1\n");
    FAIL() << "a period above INT64_MAX was accepted";
  } catch (const fairway::Error& e) {
    EXPECT_EQ(e.code(), fairway::Errc::kParse);
    EXPECT_NE(std::string(e.what()).find("line 1"), std::string::npos) << e.what();
  }
  const auto ok = fairway::parse_usage("fairway-usage 1 9223372036854775807\nend 0\n");
  EXPECT_EQ(ok.period, std::numeric_limits<time_t>::max());
  bool refused = false;
  try {
    const auto v = fairway::parse_journal(
        "e 9999999999999999999 42 7 0x1.9p+7 0x1.4p+5 1 0x1.9p+7 0x1.4p+5 0 0x0p+0 0x0p+0\n");
    refused = v.empty();
  } catch (const fairway::Error& e) {
    refused = e.code() == fairway::Errc::kParse;
  }
  EXPECT_TRUE(refused);
}

// A journal line "c" (Slurm 26.05: a pending heterogeneous job component charged at
// submission) is a charge that did not end the job; "e" is a job end.  Both round-trip, and
// a job end's entry (fairway_job_end_t.not_ended) says which is which.
TEST(UsageStore, JournalTellsChargesFromEnds) {
  const auto v = fairway::parse_journal(
      "e 1000 42 7 0x1.9p+7 0x1.4p+5 1 0x1.9p+7 0x1.4p+5 0 0x0p+0 0x0p+0\n"
      "c 1000 43 7 0x1p+3 0x1p+2 1 0x1p+3 0x1p+2 0 0x0p+0 0x0p+0\n");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(v[0].ended);
  EXPECT_FALSE(v[1].ended);
  EXPECT_EQ(v[1].real, 8.0);
  EXPECT_EQ(fairway::format_journal_line(v[1]).substr(0, 7), "c 1000 ");
  EXPECT_EQ(fairway::format_journal_line(v[0]).substr(0, 7), "e 1000 ");
  fairway_job_charge_t c{};
  fairway_job_end_t end{};
  end.job_id = 43;
  end.not_ended = 1;
  EXPECT_EQ(fairway::format_journal_line(fairway::job_end_entry(c, end)).substr(0, 2), "c ");
  end.not_ended = 0;
  EXPECT_EQ(fairway::format_journal_line(fairway::job_end_entry(c, end)).substr(0, 2), "e ");
  EXPECT_THROW((void)fairway::parse_journal("x 1000 43 7 0 0 1 0 0 0 0 0\n"), fairway::Error);
}

}  // namespace
