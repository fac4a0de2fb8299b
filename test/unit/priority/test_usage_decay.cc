// Usage accrual, decay and reset arithmetic (lib/priority/usage_decay.h) against hand-computed
// values of multifactor's formulas.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <ctime>

#include "usage_decay.h"

namespace fairway {
namespace {

TEST(Decay, FactorIsSlurmsFirstOrderApproximation) {
  EXPECT_DOUBLE_EQ(decay_factor(86400), 1 - 0.693 / 86400);
  EXPECT_DOUBLE_EQ(decay_factor(0), 1.0);
  EXPECT_DOUBLE_EQ(decay_factor(-5), 1.0);
  // After one half-life the usage is (almost, by the approximation) halved.
  const double d = period_decay(decay_factor(3600), 3600);
  EXPECT_NEAR(d, 0.5, 0.001);
  EXPECT_NE(d, 0.5);
}

// fairway_decay=exact: 2^(-1/h) per second, so one half-life halves usage however the time is
// cut into periods (0.3 h + 0.7 h here), where Slurm's factor leaves 0.50004 after one (0.693
// is a little less than ln 2).
TEST(Decay, ExactFactorHalvesUsageAfterOneHalfLifeInUnevenPeriods) {
  EXPECT_DOUBLE_EQ(exact_decay_factor(0), 1.0);
  EXPECT_DOUBLE_EQ(exact_decay_factor(-5), 1.0);
  const double f = exact_decay_factor(3600);
  EXPECT_DOUBLE_EQ(f, std::exp2(-1.0 / 3600));
  EXPECT_NEAR(period_decay(f, 3600), 0.5, 1e-13);
  EXPECT_NEAR(period_decay(f, 1080) * period_decay(f, 2520), 0.5, 1e-13);
  EXPECT_NEAR(period_decay(f, 7200), 0.25, 1e-13);
  // The approximation's shortfall that the exact mode removes, after one half-life.
  EXPECT_NEAR(period_decay(decay_factor(3600), 3600), 0.50004, 1e-5);
}

TEST(Decay, PeriodDecayNeverReachesZero) {
  EXPECT_EQ(period_decay(0.5, 1e9), DBL_MIN);
  EXPECT_EQ(period_decay(1.0, 12345), 1.0);
}

JobCharge charge(const JobTimes& t, time_t from, time_t to, bool at_end, double factor = 1.0,
                 double billable = 4, double usage_factor = -1) {
  return job_charge(t, from, to, at_end, factor, billable, usage_factor);
}

TEST(Charge, RunningJobIsChargedForThePeriodOnly) {
  JobTimes t{};
  t.start_time = 1000;
  t.time_limit = 60;  // minutes
  t.end_time_exp = 1000 + 3600;
  auto c = charge(t, 1200, 1500, false);
  EXPECT_DOUBLE_EQ(c.run_delta, 300);
  EXPECT_DOUBLE_EQ(c.real_decay, 300 * 4);
  EXPECT_EQ(c.tres_time_delta, 300u);
  c = charge(t, 0, 1500, false);  // first period: from the job's start
  EXPECT_DOUBLE_EQ(c.run_delta, 500);
}

TEST(Charge, DecayWithinThePeriodAndUsageFactor) {
  JobTimes t{};
  t.start_time = 0;
  t.time_limit = 600;
  t.end_time_exp = 36000;
  const double f = decay_factor(3600);
  auto c = charge(t, 100, 160, false, f, 2.0, 0.5);
  EXPECT_DOUBLE_EQ(c.run_decay, 60 * std::pow(f, 60) * 0.5);
  EXPECT_DOUBLE_EQ(c.real_decay, 60 * std::pow(f, 60) * 2.0 * 0.5);
  EXPECT_DOUBLE_EQ(c.real_nodecay, 60 * 2.0 * 0.5);
  EXPECT_EQ(c.tres_time_delta, 30u);
  c = charge(t, 100, 160, false, f, 2.0, 0.0);  // UsageFactor 0: free
  EXPECT_EQ(c.real_decay, 0.0);
}

TEST(Charge, EndedJobChargesUpToItsEndAndReleasesTheRestOfItsLimit) {
  JobTimes t{};
  t.start_time = 1000;
  t.end_time = 1400;
  t.time_limit = 60;
  t.end_time_exp = 1000 + 3600;
  t.finished = true;
  auto c = charge(t, 1300, 5000, true);
  EXPECT_DOUBLE_EQ(c.run_delta, 100);                 // 1300 .. end 1400, not 5000
  EXPECT_EQ(c.tres_time_delta, 1000u + 3600 - 1300);  // the whole reserved remainder
}

TEST(Charge, PastTheTimeLimitNothingIsReleased) {
  JobTimes t{};
  t.start_time = 1000;
  t.time_limit = 1;
  t.end_time_exp = 1060;
  auto c = charge(t, 1100, 1200, false);
  EXPECT_DOUBLE_EQ(c.run_delta, 100);
  EXPECT_EQ(c.tres_time_delta, 0u);
}

TEST(Charge, NegativeStretchChargesNothing) {
  JobTimes t{};
  t.start_time = 2000;
  t.time_limit = 10;
  t.end_time_exp = 2600;
  auto c = charge(t, 1000, 1500, false);
  EXPECT_EQ(c.run_delta, 0.0);
  EXPECT_EQ(c.real_decay, 0.0);
}

class ResetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = getenv("TZ") ? getenv("TZ") : "";
    had_ = getenv("TZ") != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_)
      setenv("TZ", old_.c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }
  static time_t utc(int y, int mon, int d, int h = 0) {
    struct tm tm {};
    tm.tm_year = y - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    return timegm(&tm);
  }
  std::string old_;
  bool had_ = false;
};

TEST_F(ResetTest, NextResetOfEachPeriod) {
  const time_t last = utc(2026, 11, 18, 15);  // a Wednesday afternoon
  EXPECT_EQ(next_reset(ResetPeriod::kDaily, last, last), utc(2026, 11, 19));
  EXPECT_EQ(next_reset(ResetPeriod::kWeekly, last, last), utc(2026, 11, 22));  // Sunday
  EXPECT_EQ(next_reset(ResetPeriod::kMonthly, last, last), utc(2026, 12, 1));
  EXPECT_EQ(next_reset(ResetPeriod::kQuarterly, last, last), utc(2027, 1, 1));
  EXPECT_EQ(next_reset(ResetPeriod::kYearly, last, last), utc(2027, 1, 1));
  EXPECT_EQ(next_reset(ResetPeriod::kQuarterly, utc(2026, 2, 3), 0), utc(2026, 4, 1));
  EXPECT_EQ(next_reset(ResetPeriod::kMonthly, utc(2026, 12, 9), 0), utc(2027, 1, 1));
  EXPECT_EQ(next_reset(ResetPeriod::kNone, last, last), 0);
  EXPECT_EQ(next_reset(ResetPeriod::kNow, last, last), 0);
}

TEST_F(ResetTest, DailyAndWeeklySkipPeriodsThatAlreadyPassed) {
  const time_t last = utc(2026, 11, 1, 6);
  const time_t now = utc(2026, 11, 10, 12);
  // The reset due after `now` minus one period is the one still ahead or just due.
  EXPECT_EQ(next_reset(ResetPeriod::kDaily, last, now), utc(2026, 11, 10));
  EXPECT_EQ(next_reset(ResetPeriod::kWeekly, last, now), utc(2026, 11, 8));
}

TEST_F(ResetTest, ScheduleResetsOnceForNowAndAtEachBoundary) {
  ResetSchedule s{ResetPeriod::kNow, 0, 0};
  const time_t t = utc(2026, 11, 18, 15);
  EXPECT_TRUE(s.due(t));  // NOW: the first period resets
  EXPECT_EQ(s.period, ResetPeriod::kNone);
  EXPECT_EQ(s.last_reset, t);
  EXPECT_FALSE(s.due(t + 86400));  // and never again

  s = ResetSchedule{ResetPeriod::kDaily, t, 0};
  EXPECT_FALSE(s.due(t + 3600));               // the same day
  EXPECT_EQ(s.next_reset, utc(2026, 11, 19));  // computed once, kept
  EXPECT_TRUE(s.due(utc(2026, 11, 19, 0)));
  EXPECT_EQ(s.last_reset, utc(2026, 11, 19));
  EXPECT_EQ(s.next_reset, utc(2026, 11, 20));
  EXPECT_FALSE(s.due(utc(2026, 11, 19, 23)));

  s.next_reset = 99;  // a reconfigure sets it to 0; a stale value is used as it is
  s.period = ResetPeriod::kNone;
  EXPECT_FALSE(s.due(utc(2027, 1, 1)));
}

}  // namespace
}  // namespace fairway
