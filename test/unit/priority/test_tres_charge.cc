// A job's charge added to a QOS's or an association's usage (lib/priority/tres_charge.h)
// and through the C API (lib/capi/fairway_charge.h), against multifactor's
// _apply_new_usage and _init_grp_used_tres_run_secs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fairway_charge.h"
#include "slurm_values.h"
#include "tres_charge.h"

namespace {

struct Underflow {
  size_t record;
  fairway_run_secs_t which;
  size_t tres;
  uint64_t tried, remained;
};

void note(void* arg, size_t record, fairway_run_secs_t which, size_t tres, uint64_t tried,
          uint64_t remained) {
  static_cast<std::vector<Underflow>*>(arg)->push_back({record, which, tres, tried, remained});
}

void note_tres(void* arg, size_t tres, uint64_t tried, uint64_t remained) {
  note(arg, 0, FAIRWAY_RUN_SECS_GRP, tres, tried, remained);
}

fairway::JobCharge charge() {
  fairway::JobCharge c;
  c.run_decay = 50;
  c.run_nodecay = 60;
  c.real_decay = 500;
  c.real_nodecay = 600;
  c.tres_time_delta = 60;
  return c;
}

TEST(TresCharge, AddsCountTimesDecayedSecondsAndReleasesCountTimesSeconds) {
  const fairway::JobCharge c = charge();
  const uint64_t alloc[] = {4, 0, fairway::kNoConsume64, 2};
  fairway::TresAmounts a;
  a.alloc = alloc;
  a.count = 4;
  a.charge = &c;
  long double usage[4] = {1, 1, 1, 1};
  uint64_t run[4] = {1000, 1000, 1000, 1000};
  fairway::charge_tres(a, false, usage, run, note_tres, nullptr);
  EXPECT_EQ(usage[0], 201.0L);
  EXPECT_EQ(usage[1], 1.0L);  // counted 0: nothing
  EXPECT_EQ(usage[2], 1.0L);  // not consumed: nothing
  EXPECT_EQ(usage[3], 101.0L);
  EXPECT_EQ(run[0], 1000u - 240u);
  EXPECT_EQ(run[1], 1000u);
  EXPECT_EQ(run[2], 1000u);
  EXPECT_EQ(run[3], 1000u - 120u);
}

TEST(TresCharge, NoDecayQosIsChargedUndecayedSeconds) {
  const fairway::JobCharge c = charge();
  const uint64_t alloc[] = {4};
  fairway::TresAmounts a;
  a.alloc = alloc;
  a.count = 1;
  a.charge = &c;
  long double usage[1] = {0};
  fairway::charge_tres(a, true, usage, nullptr, nullptr, nullptr);
  EXPECT_EQ(usage[0], 240.0L);
  long double raw = 0;
  double wall = 0;
  fairway::charge_usage(c, true, &raw, &wall);
  EXPECT_EQ(raw, 600.0L);
  EXPECT_EQ(wall, 60.0);
  fairway::charge_usage(c, false, &raw, &wall);
  EXPECT_EQ(raw, 1100.0L);
  EXPECT_EQ(wall, 110.0);
}

TEST(TresCharge, SkippedTresIsNeitherChargedNorReleased) {
  const fairway::JobCharge c = charge();
  const uint64_t alloc[] = {1, 1};
  fairway::TresAmounts a;
  a.alloc = alloc;
  a.count = 2;
  a.skip = 1;
  a.charge = &c;
  long double usage[2] = {0, 0};
  uint64_t run[2] = {100, 100};
  fairway::charge_tres(a, false, usage, run, nullptr, nullptr);
  EXPECT_EQ(usage[1], 0.0L);
  EXPECT_EQ(run[1], 100u);
  EXPECT_EQ(run[0], 40u);
}

TEST(TresCharge, UnderflowIsReportedThenClearedToZero) {
  const fairway::JobCharge c = charge();
  const uint64_t alloc[] = {2, 1};
  fairway::TresAmounts a;
  a.alloc = alloc;
  a.count = 2;
  a.charge = &c;
  uint64_t run[2] = {100, 100};
  std::vector<Underflow> seen;
  fairway::charge_tres(a, false, nullptr, run, note_tres, &seen);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].tres, 0u);
  EXPECT_EQ(seen[0].tried, 120u);
  EXPECT_EQ(seen[0].remained, 100u);
  EXPECT_EQ(run[0], 0u);
  EXPECT_EQ(run[1], 40u);
}

TEST(TresCharge, ReleaseAtStartTakesCountTimesUsedSecondsEvenForZeroCounts) {
  const uint64_t alloc[] = {3, 0, fairway::kNoConsume64};
  fairway::TresAmounts a;
  a.alloc = alloc;
  a.count = 3;
  a.started_seconds = 1.5 * 100;
  EXPECT_EQ(a.run_delta(0), 450u);
  EXPECT_EQ(a.run_delta(1), 0u);
  EXPECT_EQ(a.run_delta(2), 0u);
  EXPECT_EQ(a.usage(0, false), 0.0L);  // usage is never added at start
}

TEST(TresCharge, JobWithoutTresReleasesNothing) {
  const fairway::JobCharge c = charge();
  fairway::TresAmounts a;
  a.count = 2;
  a.charge = &c;
  uint64_t run[2] = {5, 5};
  fairway::charge_tres(a, false, nullptr, run, nullptr, nullptr);
  EXPECT_EQ(run[0], 5u);
  EXPECT_EQ(run[1], 5u);
}

// Records in order, a QOS's grp run seconds before its account's and user's, each
// underflow reported with its record and kind.
TEST(ChargeRecords, ChargesEveryRecordInOrderAndNamesEachUnderflow) {
  const fairway_job_charge_t c = {60, 50, 60, 500, 600, 60};
  const uint64_t alloc[] = {1, 2};
  const fairway_tres_charge_t t = {alloc, 2, 99};
  long double qos_raw = 0, qos_tres[2] = {0, 0}, assoc_raw = 0;
  double qos_wall = 0, assoc_wall = 0;
  uint64_t qos_run[2] = {1000, 1000}, acct_run[2] = {10, 1000}, user_run[2] = {1000, 100};
  fairway_charged_record_t r[2] = {};
  r[0].usage_raw = &qos_raw;
  r[0].grp_used_wall = &qos_wall;
  r[0].usage_tres_raw = qos_tres;
  r[0].run_secs[FAIRWAY_RUN_SECS_GRP] = qos_run;
  r[0].run_secs[FAIRWAY_RUN_SECS_ACCOUNT] = acct_run;
  r[0].run_secs[FAIRWAY_RUN_SECS_USER] = user_run;
  r[0].nodecay = 1;
  r[1].usage_raw = &assoc_raw;
  r[1].grp_used_wall = &assoc_wall;
  std::vector<Underflow> seen;
  ASSERT_EQ(fairway_charge_records(&c, &t, r, 2, note, &seen), FAIRWAY_OK);
  EXPECT_EQ(qos_raw, 600.0L);
  EXPECT_EQ(qos_wall, 60.0);
  EXPECT_EQ(qos_tres[1], 120.0L);
  EXPECT_EQ(assoc_raw, 500.0L);
  EXPECT_EQ(assoc_wall, 50.0);
  EXPECT_EQ(qos_run[1], 880u);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].which, FAIRWAY_RUN_SECS_ACCOUNT);
  EXPECT_EQ(seen[0].tres, 0u);
  EXPECT_EQ(seen[1].which, FAIRWAY_RUN_SECS_USER);
  EXPECT_EQ(seen[1].tres, 1u);
  EXPECT_EQ(seen[1].tried, 120u);
  EXPECT_EQ(seen[1].remained, 100u);
  EXPECT_EQ(user_run[1], 0u);
}

TEST(ChargeRecords, ReleaseOnlyLeavesUsageAsItIs) {
  const uint64_t alloc[] = {2};
  const fairway_tres_charge_t t = {alloc, 1, 99};
  long double raw = 7, tres[1] = {7};
  double wall = 7;
  uint64_t run[1] = {1000};
  fairway_charged_record_t r = {};
  r.usage_raw = &raw;
  r.grp_used_wall = &wall;
  r.usage_tres_raw = tres;
  r.run_secs[FAIRWAY_RUN_SECS_GRP] = run;
  ASSERT_EQ(fairway_release_run_secs(&t, 100.0, &r, 1, nullptr, nullptr), FAIRWAY_OK);
  EXPECT_EQ(run[0], 800u);
  EXPECT_EQ(raw, 7.0L);
  EXPECT_EQ(tres[0], 7.0L);
  EXPECT_EQ(wall, 7.0);
}

TEST(ChargeRecords, NullArgumentsAreInvalid) {
  const fairway_job_charge_t c = {};
  const fairway_tres_charge_t t = {nullptr, 0, 0};
  EXPECT_EQ(fairway_charge_records(nullptr, &t, nullptr, 0, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_charge_records(&c, nullptr, nullptr, 0, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_charge_records(&c, &t, nullptr, 1, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_release_run_secs(nullptr, 1.0, nullptr, 0, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_charge_records(&c, &t, nullptr, 0, nullptr, nullptr), FAIRWAY_OK);
}

}  // namespace
