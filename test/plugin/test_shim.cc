// The plugin shim (plugin/) against a mocked Slurm API: what it asks of
// Slurm (locks, in which order, always released), how each entry point behaves with NULL
// pointers, held jobs, administrator-set priorities, and sprio's rows.  No libslurmfull,
// no daemon: fake_slurm.c plays slurmctld and reports to a GoogleMock object (test_shim.h).
// Usage and fair-share TRES are in test_shim_usage.cc, the calculation thread's period in
// test_shim_period.cc.
#include "test_shim.h"

namespace {

TEST_F(ShimTest, InitOutsideSlurmctldTakesNoLockAndStartsNoThread) {
  EXPECT_CALL(mock_, CtldLock(_, _, _)).Times(0);
  EXPECT_CALL(mock_, AssocLock(_, _, _)).Times(0);
  EXPECT_CALL(mock_, WithSlurmdbd()).Times(0);
  ASSERT_EQ(fake_call_init(), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(fake_lock_calls(), 0);  // no calculation thread touched anything
}

TEST_F(ShimTest, RecalcTakesLocksInSlurmctldOrderAndReleasesThem) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  {
    InSequence seq;
    EXPECT_CALL(mock_, AssocLock(W, N, N));  // fair-share: assoc write lock alone
    EXPECT_CALL(mock_, AssocUnlock(W, N, N));
    EXPECT_CALL(mock_, CtldLock(W, R, R));   // then the jobs: job write lock...
    EXPECT_CALL(mock_, AssocLock(R, R, N));  // ...with the assoc read lock inside it
    EXPECT_CALL(mock_, AssocUnlock(R, R, N));
    EXPECT_CALL(mock_, CtldUnlock(W, R, R));
  }
  EXPECT_EQ(fake_call_recalc(2000), 0);
  // b's user first (3/3); in a, u2 never ran (infinite level fair-share) before u1.
  EXPECT_TRUE(std::isinf(static_cast<double>(fake_assoc_level_fs(22))));
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 3.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), 2.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), 1.0 / 3);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "fs"), 10000.0 / 3);
  EXPECT_GT(fake_job_priority(100), 1u);
}

// The tree is kept between periods while the associations keep their shape: new usage alone
// is applied to the kept tree, a new association rebuilds it.
TEST_F(ShimTest, KeptTreeFollowsUsageAndNewAssociations) {
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 3.0 / 3);
  // b's user now used a lot: a ranks first (u2 3/3, u1 2/3), then u3.
  fake_assoc_set_usage(31, 1000);
  fake_assoc_set_usage(3, 1000);
  fake_assoc_set_usage(1, 1100);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), 3.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), 2.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0 / 3);
  // A new user in b (no usage): 4 users now, it ranks above u3.
  fake_add_user_linked(32, 3, "u4", 1, 0);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(32), 2.0 / 4);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0 / 4);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), 4.0 / 4);
}

TEST_F(ShimTest, RecalcLeavesHeldAdminSetAndRunningJobsAlone) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(101, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_job_set(101, "priority", 0);  // held
  fake_add_job(102, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_job_set(102, "priority", 777);
  fake_job_set(102, "direct_set_prio", 1);
  fake_add_job(103, 31, "p1", "normal", 1, 4, 1, 1003);  // running
  fake_job_set(103, "priority", 55);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_GT(fake_job_priority(100), 1u);
  EXPECT_EQ(fake_job_priority(101), 0u);
  EXPECT_EQ(fake_job_priority(102), 777u);
  EXPECT_FALSE(fake_job_has_factors(102));
  EXPECT_EQ(fake_job_priority(103), 55u);
  // CALCULATE_RUNNING: running jobs too (after reconfig re-reads the flags).
  fake_conf_flag_calculate_running(1);
  fake_call_reconfig(0);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_NE(fake_job_priority(103), 55u);
}

// A job that ended and is still in job_list keeps, under classic, the priority the last
// pass that weighed it gave it, even with CALCULATE_RUNNING: in a recalculation and in a
// period, also under fairway_usage=allocated (whose passes collect the jobs first and weigh
// them after); Fair Tree weighs it again.  The pending job shows that each pass weighed.
TEST_F(ShimTest, ClassicLeavesAnEndedJobAsTheLastPassLeftIt) {
  for (const char* mode : {"classic", "classic-allocated", "fair-tree"}) {
    SCOPED_TRACE(mode);
    const std::string m = mode;
    const auto dir = UseStateDir(m + "-ended");
    const bool classic = m != "fair-tree";
    fake_conf_classic(classic ? 1 : 0);
    fake_conf_flag_calculate_running(1);
    fake_conf_priority_params(m == "classic-allocated" ? "fairway_usage=allocated" : "");
    LoadOutsideSlurmctld();
    fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);  // pending
    fake_add_job(101, 31, "p1", "normal", 2, 1, 1, 1003);  // completed
    fake_job_set(101, "start_time", 500);
    fake_job_set(101, "end_time", 900);
    ASSERT_EQ(fake_call_recalc(1000), 0);
    EXPECT_GT(fake_job_priority(100), 1u);
    EXPECT_EQ(fake_job_priority(101) == 1u, classic);
    fake_job_set(100, "priority", 1);
    fake_job_set(101, "priority", 55);
    ASSERT_EQ(fake_call_cycle(1000), 0);  // classic weighs from the second period on
    ASSERT_EQ(fake_call_cycle(1060), 0);
    EXPECT_GT(fake_job_priority(100), 1u);
    EXPECT_EQ(fake_job_priority(101) == 55u, classic);
    fake_call_fini();
    rm_tree(dir);
    fake_teardown();
    SetUp();
  }
}

// PriorityFlags=NO_FAIR_TREE added (and removed again) by scontrol reconfigure: from
// the first period on, every association has the normalized shares a controller
// started with the new flags has, users included (the classic period never writes
// users' shares), and Fair Tree's Level FS is gone under classic.
TEST_F(ShimTest, AlgorithmSwitchByReconfigureRenormalizesShares) {
  const auto dir = UseStateDir("switch");
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_shares_norm(21), 0.5);  // Fair Tree: 1 of 2 siblings
  EXPECT_GT(fake_assoc_level_fs(21), 0.0L);
  const uint32_t fair_tree_prio = fake_job_priority(100);

  fake_conf_classic(1);
  fake_call_reconfig(0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_shares_norm(21), 2.0 / 3 * 0.5);  // down the path
  EXPECT_DOUBLE_EQ(fake_assoc_shares_norm(31), 1.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_shares_norm(2), 2.0 / 3);
  EXPECT_EQ(fake_assoc_level_fs(21), 0.0L);
  if (fake_classic_stores_fs_factor())  // 25.11 on: the job's factor, stored
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21) * 10000, fake_job_factor(100, "fs"));
  else
    EXPECT_EQ(fake_assoc_fs_factor(21), 0.0);
  // The job's fair-share factor comes from the classic shares: 2^(-UE/S).
  fake_call_set_assoc_usage(21);
  const double expected_fs =
      fairway_classic_fs_factor(fake_assoc_usage_efctv(21), 2.0 / 3 * 0.5, 1.0) * 10000;
  EXPECT_NEAR(fake_job_factor(100, "fs"), expected_fs, 1e-6);

  fake_conf_classic(0);
  fake_call_reconfig(0);
  ASSERT_EQ(fake_call_cycle(1120), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_shares_norm(21), 0.5);
  EXPECT_EQ(fake_assoc_fs_factor(2), 0.0);  // Fair Tree gives accounts none (classic did)
  EXPECT_EQ(fake_job_priority(100), fair_tree_prio);
  std::filesystem::remove_all(dir);
}

TEST_F(ShimTest, IncrOnlyNeverLowersAPriority) {
  fake_conf_flag_incr_only(1);
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_job_set(100, "priority", 4000000);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_EQ(fake_job_priority(100), 4000000u);
}

TEST_F(ShimTest, SetHandlesMissingPointers) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "high", 0, 16, 2, 1001);
  const uint32_t full = fake_call_set(100);
  EXPECT_GT(full, 1u);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "qos"), 1000.0);

  fake_job_set(100, "no_qos", 1);
  EXPECT_LT(fake_call_set(100), full);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "qos"), 0.0);

  fake_job_set(100, "no_part", 1);
  fake_call_set(100);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "part"), 0.0);

  // Without an association there is no fair-share (multifactor says nothing either).
  fake_job_set(100, "no_assoc", 1);
  fake_call_set(100);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "fs"), 0.0);
}

TEST_F(ShimTest, SetWithoutDetailsReturnsZeroAndSaysWhy) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_job_set(100, "no_details", 1);
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("has no details")));
  EXPECT_EQ(fake_call_set(100), 0u);
}

TEST_F(ShimTest, SetKeepsAnAdministratorsPriority) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_job_set(100, "priority", 4242);
  fake_job_set(100, "direct_set_prio", 1);
  EXPECT_CALL(mock_, AssocLock(_, _, _)).Times(0);  // nothing to compute
  EXPECT_EQ(fake_call_set(100), 4242u);
}

TEST_F(ShimTest, SetTakesTheAssocReadLockOnly) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  {
    InSequence seq;
    EXPECT_CALL(mock_, AssocLock(R, R, N));
    EXPECT_CALL(mock_, AssocUnlock(R, R, N));
  }
  EXPECT_CALL(mock_, CtldLock(_, _, _)).Times(0);  // slurmctld already holds the job lock
  fake_call_set(100);
}

TEST_F(ShimTest, ReconfigRereadsWeights) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 0, 1, 1, 1003);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  const uint32_t before = fake_job_priority(100);
  fake_conf_weights(0, 0, 20000, 1000, 1000, 1000, 600);
  fake_call_reconfig(0);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  EXPECT_NEAR(static_cast<double>(fake_job_priority(100)) - before, 10000.0, 1.0);  // u3: 3/3
}

TEST_F(ShimTest, MalformedTreeIsReportedAndChangesNothing) {
  LoadOutsideSlurmctld();
  fake_assoc_poison(21);
  fake_make_cycle(2, 21);  // a's parent is now its own user: a cycle
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("association tree rejected")));
  EXPECT_NE(fake_call_recalc(2000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), 12345.0);  // untouched
}

// Classic never writes Fair Tree's Level FS; before 25.11 it leaves the fair-share factor
// alone too, from 25.11 it stores there the factor a job of the association gets.
TEST_F(ShimTest, ClassicLeavesLevelFsAndFsFactorUntouched) {
  fake_conf_classic(1);
  LoadOutsideSlurmctld();
  fake_assoc_poison(21);
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  if (fake_classic_stores_fs_factor())
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21) * 10000, fake_job_factor(100, "fs"));
  else
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), 12345.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_level_fs(21)), 12345.0);
  // The job's factor is classic 2^(-UE/S): u1 used all of a's usage.
  EXPECT_GT(fake_job_factor(100, "fs"), 0.0);
  EXPECT_LT(fake_job_factor(100, "fs"), 10000.0 * 0.5);
}

TEST_F(ShimTest, SetAssocUsageWithNullAssociationLogsAndReturns) {
  LoadOutsideSlurmctld();
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("without an association")));
  fake_call_set_assoc_usage(0);
}

TEST_F(ShimTest, CalcFsFactorIsClassicFormula) {
  if (!fake_has_calc_fs_factor())
    GTEST_SKIP() << "no priority_p_calc_fs_factor from Slurm 25.11 on";
  LoadOutsideSlurmctld();
  EXPECT_DOUBLE_EQ(fake_call_calc_fs_factor(0.5L, 0.5L), 0.5);
  EXPECT_DOUBLE_EQ(fake_call_calc_fs_factor(0.1L, 0.0L), 0.0);
}

TEST_F(ShimTest, FactorsListFiltersLikeMultifactor) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(101, 22, "p2", "normal", 0, 1, 1, 1002);
  fake_add_job(102, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_add_job(103, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_job_set(103, "priority", 0);                      // held: never listed
  fake_add_job(104, 31, "p1", "normal", 1, 1, 1, 1003);  // running: not listed
  fake_add_job(105, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_job_set(105, "begin_time", std::time(nullptr) + 3600);  // not eligible yet
  ASSERT_EQ(fake_call_recalc(2000), 0);
  uint32_t out[16];
  if (fake_sprio_caller_locks()) {
    // 23.11 on: slurmctld holds the job read lock around the call; taking it again
    // would deadlock.
    EXPECT_CALL(mock_, CtldLock(_, _, _)).Times(0);
  } else {
    InSequence seq;
    EXPECT_CALL(mock_, CtldLock(R, R, R)).RetiresOnSaturation();  // the job read lock
    EXPECT_CALL(mock_, CtldUnlock(R, R, R)).RetiresOnSaturation();
  }
  ASSERT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, nullptr, 0, out, 16), 3);
  EXPECT_EQ(out[0], 100u);
  EXPECT_EQ(out[2], 102u);
  const uint32_t jobs[] = {101, 102};
  EXPECT_EQ(fake_call_factors_list(jobs, 2, nullptr, 0, nullptr, 0, out, 16), 2);
  const uint32_t users[] = {1003};
  EXPECT_EQ(fake_call_factors_list(nullptr, 0, users, 1, nullptr, 0, out, 16), 1);
  EXPECT_EQ(out[0], 102u);
  EXPECT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, "p2", 0, out, 16), 1);
  EXPECT_EQ(out[0], 101u);
  const uint32_t nobody[] = {4242};
  EXPECT_EQ(fake_call_factors_list(nobody, 1, nullptr, 0, nullptr, 0, out, 16), -1);
}

// 23.11 hands the plugin the request of a sprio command older than 23.02 (NULL for a newer
// one, which filters the rows itself): the plugin filters as multifactor's _filter_job.
TEST_F(ShimTest, FactorsListFiltersAnOlderClientsRequestOn2311) {
  if (!fake_sprio_old_client_supported()) GTEST_SKIP() << "only 23.11 passes the request";
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(101, 22, "p2", "normal", 0, 1, 1, 1002);
  fake_add_job(102, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_add_job(103, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_job_set(103, "priority", 0);  // held: never listed
  ASSERT_EQ(fake_call_recalc(2000), 0);
  uint32_t out[16];
  EXPECT_CALL(mock_, CtldLock(_, _, _)).Times(0);  // slurmctld holds them
  ASSERT_EQ(fake_call_factors_list_old_client(nullptr, 0, nullptr, 0, nullptr, 0, out, 16), 3);
  const uint32_t jobs[] = {101, 102};
  EXPECT_EQ(fake_call_factors_list_old_client(jobs, 2, nullptr, 0, nullptr, 0, out, 16), 2);
  const uint32_t users[] = {1003};
  EXPECT_EQ(fake_call_factors_list_old_client(nullptr, 0, users, 1, nullptr, 0, out, 16), 1);
  EXPECT_EQ(out[0], 102u);
  EXPECT_EQ(fake_call_factors_list_old_client(nullptr, 0, nullptr, 0, "p2", 0, out, 16), 1);
  EXPECT_EQ(out[0], 101u);
  const uint32_t nobody[] = {4242};
  EXPECT_EQ(fake_call_factors_list_old_client(nobody, 1, nullptr, 0, nullptr, 0, out, 16), -1);
}

// sprio's rows come in blocks of 1 MiB that the list's destructor gives back with their last
// row, in whatever order rows are destroyed (24.11's sprio command deletes the rows it does not
// show), and that later lists reuse: 12,000 jobs span several blocks, and every list built after
// others lists every job again.  Under the sanitizers this checks the blocks' lifetimes.
TEST_F(ShimTest, FactorsListRowsSpanBlocksThatLaterListsReuse) {
  LoadOutsideSlurmctld();
  const uint32_t n = 12000;
  for (uint32_t i = 0; i < n; i++)
    fake_add_job(10000 + i, (i % 2) ? 21 : 31, "p1", (i % 3) ? "normal" : "high", 0, 1 + i % 7, 1,
                 (i % 2) ? 1001 : 1003);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  std::vector<uint32_t> out(n + 1);
  for (int round = 0; round < 3; round++) {
    ASSERT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, nullptr, 0, out.data(), n + 1),
              static_cast<int>(n))
        << round;
    for (uint32_t i = 0; i < n; i += 997) EXPECT_EQ(out[i], 10000 + i) << round;
    const uint32_t users[] = {1003};
    ASSERT_EQ(fake_call_factors_list(nullptr, 0, users, 1, nullptr, 0, out.data(), n + 1),
              static_cast<int>(n / 2))
        << round;
    EXPECT_EQ(out[0], 10000u);
    EXPECT_EQ(out[n / 2 - 1], 10000u + n - 2);
  }
}

// A job weighed before slurmctld tracked one more TRES (AccountingStorageTRES grown, then a
// reconfigure) holds TRES factors for the TRES there were: sprio's rows weigh only those, never
// reading past the job's TRES counts or writing past the row into the next one.
TEST_F(ShimTest, SprioRowsOfJobsWeighedBeforeTheTresGrewKeepToTheirTres) {
  fake_conf_tres_weights("cpu=1000,gres/gpu=2000");
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  fake_add_job(100, 21, "p1", "normal", 0, 4, 1, 1001);
  fake_add_job(101, 31, "p1", "normal", 0, 16, 1, 1003);
  fake_job_set_tres(100, FAKE_TRES_GPU, 2);
  fake_job_set_partitions(100, "p1,p2");  // rows per partition: TRES weighed again
  fake_job_set_partitions(101, "p1,p2");
  ASSERT_EQ(fake_call_recalc(2000), 0);
  const int had = FAKE_TRES_GPU + 1;
  double a[8], aw[8], b[8], bw[8];
  ASSERT_EQ(fake_call_factors_tres(100, a, aw, 8), had);
  ASSERT_EQ(fake_call_factors_tres(101, b, bw, 8), had);
  EXPECT_GT(a[0], 0);
  EXPECT_GT(a[FAKE_TRES_GPU], 0);
  EXPECT_GT(b[0], a[0]);  // four times the CPUs
  EXPECT_EQ(b[FAKE_TRES_GPU], 0);
  EXPECT_EQ(aw[0], 1000);
  EXPECT_EQ(aw[FAKE_TRES_GPU], 2000);

  fake_tres_add("gres/fpga");
  fake_part_set_tres("p1", FAKE_TRES_GPU + 1, 2);
  fake_conf_tres_weights("cpu=1000,gres/gpu=2000,gres/fpga=3000");
  fake_call_reconfig(0);
  for (int round = 0; round < 2; round++) {
    double a2[8], aw2[8], b2[8], bw2[8];
    ASSERT_EQ(fake_call_factors_tres(100, a2, aw2, 8), had) << round;
    ASSERT_EQ(fake_call_factors_tres(101, b2, bw2, 8), had) << round;
    for (int k = 0; k < had; k++) {  // the copies as they were, weights included
      EXPECT_EQ(a2[k], a[k]) << round << " TRES " << k;
      EXPECT_EQ(aw2[k], aw[k]) << round << " TRES " << k;
      EXPECT_EQ(b2[k], b[k]) << round << " TRES " << k;
      EXPECT_EQ(bw2[k], bw[k]) << round << " TRES " << k;
    }
    uint32_t out[8];
    ASSERT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, nullptr, 0, out, 8), 4);
    EXPECT_EQ(out[0], 100u);
    EXPECT_EQ(out[1], 100u);
    EXPECT_EQ(out[2], 101u);
    EXPECT_EQ(out[3], 101u);
  }
}

TEST_F(ShimTest, FactorsListHonoursPrivateDataJobs) {
  fake_conf_private_jobs(1);
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(101, 31, "p1", "normal", 0, 1, 1, 1003);
  ASSERT_EQ(fake_call_recalc(2000), 0);
  uint32_t out[4];
  EXPECT_CALL(mock_, ValidateOperator(1001)).WillRepeatedly(Return(false));
  EXPECT_CALL(mock_, IsCoord(1001, "b")).WillOnce(Return(false));
  ASSERT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, nullptr, 1001, out, 4), 1);
  EXPECT_EQ(out[0], 100u);  // only the user's own job
  EXPECT_CALL(mock_, ValidateOperator(0)).WillRepeatedly(Return(true));
  EXPECT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, nullptr, 0, out, 4), 2);
  EXPECT_CALL(mock_, ValidateOperator(1005)).WillRepeatedly(Return(false));
  EXPECT_CALL(mock_, IsCoord(1005, _)).WillRepeatedly(Return(true));  // account coordinator
  EXPECT_EQ(fake_call_factors_list(nullptr, 0, nullptr, 0, nullptr, 1005, out, 4), 2);
}

}  // namespace
