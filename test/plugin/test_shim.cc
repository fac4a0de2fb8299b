// The plugin shim (plugin/) against a mocked Slurm API: what it asks of
// Slurm (locks, in which order, always released), how each entry point behaves with NULL
// pointers, held jobs, administrator-set priorities, and what it writes where.  No
// libslurmfull, no daemon: fake_slurm.c plays slurmctld and reports to a GoogleMock object.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fairway.h"
#include "fairway_usage_files.h"
#include "fake_slurm.h"

using ::testing::_;
using ::testing::AnyNumber;
using ::testing::AtLeast;
using ::testing::HasSubstr;
using ::testing::InSequence;
using ::testing::NiceMock;
using ::testing::Return;

namespace {

constexpr uint32_t kParent = 0x7fffffff;  // SLURMDB_FS_USE_PARENT
constexpr int R = FAKE_READ_LOCK, W = FAKE_WRITE_LOCK, N = FAKE_NO_LOCK;
constexpr int kLogError = 2;  // Slurm's LOG_LEVEL_ERROR (QUIET 0, FATAL 1, ERROR 2)

class MockSlurm {
 public:
  MOCK_METHOD(void, CtldLock, (int job, int node, int part));
  MOCK_METHOD(void, CtldUnlock, (int job, int node, int part));
  MOCK_METHOD(void, AssocLock, (int assoc, int qos, int tres));
  MOCK_METHOD(void, AssocUnlock, (int assoc, int qos, int tres));
  MOCK_METHOD(bool, WithSlurmdbd, ());
  MOCK_METHOD(bool, ValidateOperator, (unsigned uid));
  MOCK_METHOD(bool, IsCoord, (unsigned uid, std::string account));
  MOCK_METHOD(void, Log, (int level, std::string msg));
  MOCK_METHOD(void, Violation, (std::string what));
};

MockSlurm* g_mock;

// Remove a scratch directory (retrying: some sandboxes' readdir misses fresh entries).
void rm_tree(const std::filesystem::path& dir) {
  std::error_code ec;
  for (int i = 0; i < 5 && std::filesystem::exists(dir); i++) std::filesystem::remove_all(dir, ec);
}

fake_hooks_t hooks_for(MockSlurm* m) {
  fake_hooks_t h{};
  h.ctx = m;
  h.ctld_lock = [](void* c, int j, int n, int p) { static_cast<MockSlurm*>(c)->CtldLock(j, n, p); };
  h.ctld_unlock = [](void* c, int j, int n, int p) {
    static_cast<MockSlurm*>(c)->CtldUnlock(j, n, p);
  };
  h.assoc_lock = [](void* c, int a, int q, int t) {
    static_cast<MockSlurm*>(c)->AssocLock(a, q, t);
  };
  h.assoc_unlock = [](void* c, int a, int q, int t) {
    static_cast<MockSlurm*>(c)->AssocUnlock(a, q, t);
  };
  h.with_slurmdbd = [](void* c) -> int { return static_cast<MockSlurm*>(c)->WithSlurmdbd(); };
  h.validate_operator = [](void* c, unsigned u) -> int {
    return static_cast<MockSlurm*>(c)->ValidateOperator(u);
  };
  h.is_coord = [](void* c, unsigned u, const char* a) -> int {
    return static_cast<MockSlurm*>(c)->IsCoord(u, a ? a : "");
  };
  h.log = [](void* c, int l, const char* m) { static_cast<MockSlurm*>(c)->Log(l, m); };
  h.violation = [](void* c, const char* w) { static_cast<MockSlurm*>(c)->Violation(w); };
  return h;
}

// A small cluster: root -> a (2 shares; users u1 used 100, u2 nothing) and b (1 share;
// user u3 used 30), partitions p1/p2, QOS normal/high.  Level fair-share: a 2/3 over
// 100/130, b 1/3 over 30/130: b ranks above a.
class ShimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_mock = &mock_;
    const fake_hooks_t h = hooks_for(&mock_);
    fake_reset(&h);
    // By default locks and logs are allowed; violations never are.
    EXPECT_CALL(mock_, CtldLock(_, _, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, CtldUnlock(_, _, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, AssocLock(_, _, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, AssocUnlock(_, _, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, Log(_, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, Violation(_)).Times(0);
    ON_CALL(mock_, WithSlurmdbd()).WillByDefault(Return(true));
    ON_CALL(mock_, ValidateOperator(_)).WillByDefault(Return(false));
    ON_CALL(mock_, IsCoord(_, _)).WillByDefault(Return(false));

    fake_conf_weights(0, 0, 10000, 1000, 1000, 1000, 600);
    fake_add_assoc(1, 0, "root", nullptr, 1, 130);
    fake_add_assoc(2, 1, "a", nullptr, 2, 100);
    fake_add_assoc(21, 2, "a", "u1", 1, 100);
    fake_add_assoc(22, 2, "a", "u2", 1, 0);
    fake_add_assoc(3, 1, "b", nullptr, 1, 30);
    fake_add_assoc(31, 3, "b", "u3", 1, 30);
    fake_link_tree();
    fake_add_part("p1", 1, 1.0);
    fake_add_part("p2", 1, 1.0);
    fake_add_qos(1, "normal", 0, 0.0);
    fake_add_qos(2, "high", 100, 1.0);
  }
  void TearDown() override {
    ::unsetenv("FAIRWAY_PARALLEL_MIN_JOBS");  // set by a test that wants small passes parallel
    EXPECT_EQ(fake_locks_held(), 0);
    fake_call_fini();
    fake_teardown();
    g_mock = nullptr;
  }
  // Loaded as a test harness loads it: no thread, then set up as in slurmctld.
  void LoadOutsideSlurmctld() {
    fake_set_cluster(0xfffffffe, 4);  // NO_VAL at init: no calculation thread
    ASSERT_EQ(fake_call_init(), 0);
    fake_set_cluster(64, 4);
    fake_call_reconfig(0);
  }
  // A fresh StateSaveLocation for this test, under the temporary directory.
  std::filesystem::path UseStateDir(const std::string& tag) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("fw-shim-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    fake_conf_state_dir(dir.c_str());
    return dir;
  }
  NiceMock<MockSlurm> mock_;
};

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
  if (!fake_has_calc_fs_factor()) GTEST_SKIP() << "no priority_p_calc_fs_factor from Slurm 25.11 on";
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
    // 24.11 on: slurmctld holds the job read lock around the call; taking it again
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

// sprio's rows come in blocks of 1 MiB that the list's destructor gives back with their last
// row, in whatever order rows are destroyed (24.11's sprio command deletes the rows it does not
// show), and that later lists reuse: 12,000 jobs span several blocks, and every list built after
// others lists every job again.  Under the sanitizers this checks the blocks' lifetimes.
TEST_F(ShimTest, FactorsListRowsSpanBlocksThatLaterListsReuse) {
  LoadOutsideSlurmctld();
  const uint32_t n = 12000;
  for (uint32_t i = 0; i < n; i++)
    fake_add_job(10000 + i, (i % 2) ? 21 : 31, "p1", (i % 3) ? "normal" : "high", 0,
                 1 + i % 7, 1, (i % 2) ? 1001 : 1003);
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

TEST_F(ShimTest, JobEndChargesUsageUpTheTreeOnce) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 2, 4, 1, 1001);  // complete: 4 CPUs
  fake_job_set(100, "start_time", 1000);
  fake_job_set(100, "end_time", 1100);
  {
    InSequence seq;
    EXPECT_CALL(mock_, AssocLock(W, W, R));
    EXPECT_CALL(mock_, AssocUnlock(W, W, R));
  }
  fake_call_job_end(100);
  // no decay configured: 4 CPUs x 100 s to u1, a and root.
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(21)), 100 + 400.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(2)), 100 + 400.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 400.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30.0);
  fake_call_job_end(100);  // a second end charges nothing
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 400.0);
}

TEST_F(ShimTest, CycleChargesRunningJobsDecaysAndWritesState) {
  const auto dir = UseStateDir("cycle");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // running since 1000 on 2 CPUs
  ASSERT_EQ(fake_call_cycle(1000), 0);                   // first period: nothing ran yet
  ASSERT_EQ(fake_call_cycle(1060), 0);                   // 60 s later
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 120.0);
  std::ifstream f(dir / "priority_last_decay_ran", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[7]), 1060 % 256);  // big-endian last period
  rm_tree(dir);
}

// fairway_decay=exact: stored usage is halved after exactly one half-life, cut into uneven
// periods, and the mode is logged; without the option the same periods leave multifactor's
// (1 - 0.693/3600)^3600 = 0.50004 of it, and nothing says the decay is exact.
TEST_F(ShimTest, ExactDecayHalvesUsageAfterOneHalfLife) {
  for (bool exact : {true, false}) {
    const auto dir = UseStateDir(exact ? "exact" : "slurm-decay");
    fake_conf_decay_half_life(3600);
    fake_conf_priority_params(exact ? "fairway_decay=exact" : "");
    EXPECT_CALL(mock_, Log(_, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, Log(_, HasSubstr("usage decays exactly, by 2^(-t/PriorityDecayHalfLife)")))
        .Times(exact ? 1 : 0);
    LoadOutsideSlurmctld();
    ASSERT_EQ(fake_call_cycle(1000), 0);  // the first period decays nothing
    fake_assoc_set_usage(31, 1000);
    ASSERT_EQ(fake_call_cycle(2080), 0);  // 0.3 h
    ASSERT_EQ(fake_call_cycle(4600), 0);  // 0.7 h
    const double left = static_cast<double>(fake_assoc_usage_raw(31));
    if (exact) {
      EXPECT_NEAR(left, 500, 1e-9);
    } else {
      EXPECT_NEAR(left, 1000 * std::pow(1 - 0.693 / 3600, 3600), 1e-9);
      EXPECT_GT(left - 500, 0.03);  // 500.04
    }
    fake_call_fini();
    rm_tree(dir);
    testing::Mock::VerifyAndClearExpectations(&mock_);
  }
}

// fairway_usage=allocated under Fair Tree: fair-share compares the CPUs running jobs hold now
// (u1 1 of 5, u3 4 of 5: a's level 2/3 over 1/5 ranks above b's 1/3 over 4/5), not historical
// usage (where b ranks above a); users ranked u2 (holds nothing), u1, u3.  RawUsage stays
// historical, charged as before.  committed weighs each by the seconds left to its end: u1
// 1 CPU x 10000 s against u3 4 CPUs x 500 s puts b above a again.
TEST_F(ShimTest, AllocatedUsageRanksByWhatRunningJobsHoldNow) {
  for (const char* basis : {"allocated", "committed"}) {
    const auto dir = UseStateDir(basis);
    fake_conf_priority_params((std::string("fairway_usage=") + basis).c_str());
    EXPECT_CALL(mock_, Log(_, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, Log(_, HasSubstr(std::string("(fairway_usage=") + basis + ")")))
        .Times(AtLeast(1));
    LoadOutsideSlurmctld();
    fake_add_job(100, 21, "p1", "normal", 1, 1, 1, 1001);  // running, 1 CPU
    fake_add_job(101, 31, "p1", "normal", 1, 4, 1, 1003);  // running, 4 CPUs
    fake_add_job(102, 22, "p1", "normal", 0, 1, 1, 1002);  // pending
    fake_job_set(100, "end_time", 1000 + 10000);
    fake_job_set(101, "end_time", 1000 + 500);
    ASSERT_EQ(fake_call_cycle(1000), 0);
    const bool allocated = std::string(basis) == "allocated";
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), allocated ? 1.0 : 2.0 / 3);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), allocated ? 2.0 / 3 : 1.0 / 3);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), allocated ? 1.0 / 3 : 1.0);
    EXPECT_DOUBLE_EQ(fake_job_factor(102, "fs"), 10000 * fake_assoc_fs_factor(22));
    // Level FS of a: 2/3 of the shares over its fraction of what is held.
    const double a_held = allocated ? 1.0 / 5 : 10000.0 / 12000;
    EXPECT_NEAR(static_cast<double>(fake_assoc_level_fs(2)), (2.0 / 3) / a_held, 1e-12);
    EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(21)), 100.0);  // historical, no time yet
    ASSERT_EQ(fake_call_cycle(1060), 0);                              // 60 s later
    EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 240.0);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), allocated ? 1.0 / 3 : 1.0);
    fake_call_fini();
    rm_tree(dir);
    testing::Mock::VerifyAndClearExpectations(&mock_);
    fake_teardown();
    SetUp();
  }
}

// Between periods (priority_fairway_recalc, what fairway_rerank_interval runs), a held usage
// basis recomputes fair-share from what is held now: a job of u3 that started after the
// period turns the order over, and nothing is charged.
TEST_F(ShimTest, RecalcUnderAllocatedUsageSeesJobsStartedSinceThePeriod) {
  const auto dir = UseStateDir("rerank");
  fake_conf_priority_params("fairway_usage=allocated,fairway_rerank_interval=10");
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 1, 4, 1, 1001);  // running, 4 CPUs
  fake_add_job(102, 22, "p1", "normal", 0, 1, 1, 1002);  // pending
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);  // b holds nothing: first
  const double charged = static_cast<double>(fake_assoc_usage_raw(1));
  fake_add_job(101, 31, "p1", "normal", 1, 16, 1, 1003);  // u3 starts 16 CPUs
  fake_job_set(101, "start_time", 1070);
  ASSERT_EQ(fake_call_recalc(1080), 0);
  // b: 1/3 of the shares over 16 of 20 CPUs; a: 2/3 over 4 of 20: a's users now first.
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), 1.0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0 / 3);
  EXPECT_DOUBLE_EQ(fake_job_factor(102, "fs"), 10000.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), charged);  // nothing charged
  rm_tree(dir);
}

// fairway_rerank_interval without a held usage basis: one line, and it is ignored.
TEST_F(ShimTest, RerankIntervalWithoutHeldUsageIsLoggedAndIgnored) {
  fake_conf_priority_params("fairway_rerank_interval=10");
  EXPECT_CALL(mock_, Log(_, HasSubstr("fairway_rerank_interval needs fairway_usage=allocated or "
                                      "committed")))
      .Times(2);  // init, then reconfigure
  LoadOutsideSlurmctld();
}

// Classic under fairway_usage=allocated computes every association from what is held, in the
// period (users too, not on demand): the same effective usage as a historical period whose
// usage is what was held (root 5, a 1, u1 1, b 4, u3 4 CPUs); and each job's factor is
// 2^(-usage_efctv / shares_norm) with classic's shares (1/3 each): u1 0.2, u2 0.1, u3 0.8.
TEST_F(ShimTest, ClassicAllocatedUsageEqualsHistoricalOfTheHeldUsage) {
  std::vector<long double> held_run, usage_run;
  std::vector<double> held_factors;
  for (bool held : {true, false}) {
    const auto dir = UseStateDir(held ? "classic-held" : "classic-usage");
    fake_conf_classic(1);
    fake_conf_priority_params(held ? "fairway_usage=allocated" : "");
    LoadOutsideSlurmctld();
    if (held) {
      fake_add_job(100, 21, "p1", "normal", 1, 1, 1, 1001);
      fake_add_job(101, 31, "p1", "normal", 1, 4, 1, 1003);
    } else {
      const std::pair<uint32_t, double> usage[] = {{1, 5}, {2, 1}, {21, 1}, {22, 0},
                                                   {3, 4}, {31, 4}};
      for (const auto& [id, u] : usage) fake_assoc_set_usage(id, u);
    }
    for (uint32_t id : {21u, 22u, 31u})  // one pending job each: users computed for them
      fake_add_job(200 + id, id, "p1", "normal", 0, 1, 1, 1000 + id);
    ASSERT_EQ(fake_call_cycle(1000), 0);  // classic weighs from the second period on
    ASSERT_EQ(fake_call_cycle(1060), 0);
    auto& out = held ? held_run : usage_run;
    for (uint32_t id : {2u, 3u, 21u, 22u, 31u}) out.push_back(fake_assoc_usage_efctv(id));
    if (held)
      for (uint32_t id : {21u, 22u, 31u}) held_factors.push_back(fake_job_factor(200 + id, "fs"));
    fake_call_fini();
    rm_tree(dir);
    fake_teardown();
    SetUp();
  }
  ASSERT_EQ(held_run.size(), usage_run.size());
  for (size_t i = 0; i < held_run.size(); ++i) EXPECT_EQ(held_run[i], usage_run[i]) << i;
  ASSERT_EQ(held_factors.size(), 3u);
  EXPECT_NEAR(held_factors[0], 10000 * std::pow(2.0, -0.6), 1e-9);  // u1
  EXPECT_NEAR(held_factors[1], 10000 * std::pow(2.0, -0.3), 1e-9);  // u2
  EXPECT_NEAR(held_factors[2], 10000 * std::pow(2.0, -2.4), 1e-9);  // u3
}

// fairway_fairshare_tres=gres/gpu: a job that mostly asks for GPUs (its share of p1's 4 GPUs at
// least its share of the 64 CPUs) gets the factor of its association's GPU usage; every other
// job, and sshare's values, billing's.  By billing (a 100 of 130, b 30) b ranks first: u3 1,
// u2 2/3, u1 1/3; by GPU usage (a 10 of 100, b 90) a does: u2 1, u1 2/3, u3 1/3.
TEST_F(ShimTest, GpuJobsAreJudgedByGpuUsageAndTheOthersByBilling) {
  for (bool on : {true, false}) {
    const auto dir = UseStateDir(on ? "gpu-on" : "gpu-off");
    // With the period's snapshot, which keeps the GPU usage and the jobs it judged.
    const std::string params =
        (on ? "fairway_fairshare_tres=gres/gpu," : "") + ("fairway_metrics_dir=" + dir.string());
    fake_conf_priority_params(params.c_str());
    if (on)
      EXPECT_CALL(mock_, Log(_, HasSubstr("a job that mostly asks for one of gres/gpu gets the "
                                          "fair-share factor of its association's usage of it")))
          .Times(1);
    LoadOutsideSlurmctld();
    fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
    fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
    const std::pair<uint32_t, double> gpu_usage[] = {{1, 100}, {2, 10}, {21, 10}, {3, 90},
                                                     {31, 90}};
    for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, u);
    fake_add_job(201, 31, "p1", "normal", 0, 16, 1, 1003);  // 1 GPU, 16 CPUs: a GPU job
    fake_job_set_tres(201, FAKE_TRES_GPU, 1);
    fake_add_job(202, 31, "p1", "normal", 0, 32, 1, 1003);  // 1 GPU, 32 CPUs: a CPU job
    fake_job_set_tres(202, FAKE_TRES_GPU, 1);
    fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);  // 2 GPUs
    fake_job_set_tres(203, FAKE_TRES_GPU, 2);
    fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // no GPU
    ASSERT_EQ(fake_call_cycle(1000), 0);
    EXPECT_DOUBLE_EQ(fake_job_factor(201, "fs"), on ? 10000.0 / 3 : 10000.0);
    EXPECT_DOUBLE_EQ(fake_job_factor(202, "fs"), 10000.0);
    EXPECT_DOUBLE_EQ(fake_job_factor(203, "fs"), on ? 10000.0 * 2 / 3 : 10000.0 / 3);
    EXPECT_DOUBLE_EQ(fake_job_factor(204, "fs"), 10000.0 / 3);
    // sshare's values stay billing's.
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), 1.0 / 3);
    std::stringstream text;
    text << std::ifstream(dir / "fairway.json").rdbuf();
    const std::string json = text.str();
    // A job's text in the snapshot, from its id to its rows.
    auto job_text = [&](int id) {
      const size_t at = json.find("{\"id\": " + std::to_string(id) + ",");
      return at == std::string::npos ? std::string()
                                     : json.substr(at, json.find("\"rows\"", at) - at);
    };
    ASSERT_NE(job_text(201), "") << json;
    if (on) {
      EXPECT_NE(json.find("\"fairshare_tres\": [\"gres/gpu\"],"), std::string::npos) << json;
      // u3's own GPU usage (its account's 90 is all its users').
      EXPECT_NE(json.find("\"account\": \"b\", \"user\": \"u3\", \"shares\": 1, \"usage\": "),
                std::string::npos);
      EXPECT_NE(json.find("\"tres_usage\": {\"gres/gpu\": 90.0}}"), std::string::npos) << json;
      EXPECT_NE(job_text(201).find("\"fairshare_tres\": \"gres/gpu\""), std::string::npos);
      EXPECT_NE(job_text(203).find("\"fairshare_tres\": \"gres/gpu\""), std::string::npos);
      EXPECT_EQ(job_text(202).find("\"fairshare_tres\""), std::string::npos);
      EXPECT_EQ(job_text(204).find("\"fairshare_tres\""), std::string::npos);
    } else {
      EXPECT_EQ(json.find("fairshare_tres"), std::string::npos);
      EXPECT_EQ(json.find("tres_usage"), std::string::npos);
    }
    // A job submitted after the period gets the period's GPU factor too.
    fake_add_job(205, 22, "p1", "normal", 0, 1, 1, 1002);
    fake_job_set_tres(205, FAKE_TRES_GPU, 1);
    fake_call_set(205);
    EXPECT_DOUBLE_EQ(fake_job_factor(205, "fs"), on ? 10000.0 : 10000.0 * 2 / 3);
    fake_call_fini();
    rm_tree(dir);
    testing::Mock::VerifyAndClearExpectations(&mock_);
    fake_teardown();
    SetUp();
  }
}

// Classic fair-share with fairway_fairshare_tres: a GPU job's factor is the classic factor of
// its association on the tree of GPU usage, as the core computes it from that tree alone, and
// a CPU job's is billing's classic factor.
TEST_F(ShimTest, ClassicGpuJobsGetTheClassicFactorOfTheGpuTree) {
  fake_conf_classic(1);
  fake_conf_priority_params("fairway_fairshare_tres=gres/gpu");
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  const std::pair<uint32_t, double> gpu_usage[] = {{1, 100}, {2, 10}, {21, 10}, {3, 90},
                                                   {31, 90}};
  for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, u);
  fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);  // 2 GPUs
  fake_job_set_tres(203, FAKE_TRES_GPU, 2);
  fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // no GPU
  ASSERT_EQ(fake_call_cycle(1000), 0);
  // The same tree with GPU usage, computed by the core (ids, parents, shares as SetUp's).
  const fairway_assoc_t gpu[] = {{1, 0, "root", nullptr, 1, 0, 100}, {2, 1, "a", nullptr, 2, 0, 10},
                                 {21, 2, "a", "u1", 1, 0, 10},      {22, 2, "a", "u2", 1, 0, 0},
                                 {3, 1, "b", nullptr, 1, 0, 90},   {31, 3, "b", "u3", 1, 0, 90}};
  fairway_fair_share_t* fs = nullptr;
  ASSERT_EQ(fairway_fair_share_new(gpu, 6, &fs), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_compute(fs, FAIRWAY_ALGO_CLASSIC, 1), FAIRWAY_OK);
  fairway_assoc_result_t r{};
  ASSERT_EQ(fairway_fair_share_result(fs, 2, &r), FAIRWAY_OK);
  fairway_fair_share_destroy(&fs);
  EXPECT_GT(r.fs_factor, 0.0);
  EXPECT_DOUBLE_EQ(fake_job_factor(203, "fs"), 10000.0 * r.fs_factor);
  // u1 used all of a's billing (100 of 130) and little of the GPUs: its CPU job ranks lower.
  EXPECT_LT(fake_job_factor(204, "fs"), fake_job_factor(203, "fs"));
}

// Under fairway_usage=allocated the GPU tree compares the GPUs running jobs hold: u3 holds 2 of
// them (and 4 CPUs), u1 16 CPUs and none.  By billing b ranks first (u3 1, u2 2/3, u1 1/3); by
// GPUs held a does, its users tied (u1 and u2 1, u3 1/3).  A reconfigure that lists another
// TRES gives its jobs billing's factor until a period computes that TRES's tree.
TEST_F(ShimTest, AllocatedGpusJudgeGpuJobsAndAReconfiguredListNeverReadsTheirTree) {
  const auto dir = UseStateDir("gpu-held");
  fake_conf_priority_params("fairway_usage=allocated,fairway_fairshare_tres=gres/gpu");
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  fake_add_job(100, 31, "p1", "normal", 1, 4, 1, 1003);  // running: 4 CPUs, 2 GPUs
  fake_job_set_tres(100, FAKE_TRES_GPU, 2);
  fake_add_job(101, 21, "p1", "normal", 1, 16, 1, 1001);  // running: 16 CPUs
  fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);   // pending: 1 GPU
  fake_job_set_tres(203, FAKE_TRES_GPU, 1);
  fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // pending: CPUs only
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_DOUBLE_EQ(fake_job_factor(203, "fs"), 10000.0);
  EXPECT_DOUBLE_EQ(fake_job_factor(204, "fs"), 10000.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);
  // Now memory is listed in the GPUs' place: a job asking for all of p1's memory has no
  // memory tree until the next period, and never the GPUs'.
  fake_conf_priority_params("fairway_usage=allocated,fairway_fairshare_tres=mem");
  fake_call_reconfig(0);
  fake_part_set_tres("p1", 1, 1000);  // TRES_ARRAY_MEM
  fake_add_job(206, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_job_set_tres(206, 1, 1000);
  fake_call_set(206);
  EXPECT_DOUBLE_EQ(fake_job_factor(206, "fs"), 10000.0 / 3);
  rm_tree(dir);
}

// Two listed TRES under fairway_usage=allocated: the period's snapshot keeps what the running
// jobs hold of each (u3's job: 2 GPUs and 1000 of memory), each TRES its own.
TEST_F(ShimTest, HeldUsageOfTwoListedTresIsPublishedForEach) {
  const auto dir = UseStateDir("gpu-mem-held");
  const std::string params = "fairway_usage=allocated,fairway_fairshare_tres=gres/gpu,mem,"
                             "fairway_metrics_dir=" + dir.string();
  fake_conf_priority_params(params.c_str());
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 4, 1, 1003);  // running: 4 CPUs, 2 GPUs, 1000 mem
  fake_job_set_tres(100, FAKE_TRES_GPU, 2);
  fake_job_set_tres(100, 1, 1000);  // TRES_ARRAY_MEM
  ASSERT_EQ(fake_call_cycle(1000), 0);
  std::stringstream text;
  text << std::ifstream(dir / "fairway.json").rdbuf();
  const std::string json = text.str();
  EXPECT_NE(json.find("\"fairshare_tres\": [\"gres/gpu\", \"mem\"],"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"tres_usage\": {\"gres/gpu\": 2.0, \"mem\": 1000.0}}"),
            std::string::npos)
      << json;
  rm_tree(dir);
}

// A TRES slurmctld does not track, or depth-oblivious fair-share: one line each time the
// settings are read, and every job is judged by billing.
TEST_F(ShimTest, UntrackedFairShareTresIsLoggedAndIgnored) {
  fake_conf_priority_params("fairway_fairshare_tres=gres/mps,gres/gpu");
  EXPECT_CALL(mock_, Log(_, HasSubstr("fairway_fairshare_tres: gres/mps is not a TRES slurmctld "
                                      "tracks (AccountingStorageTRES), ignored")))
      .Times(2);  // init, then reconfigure
  EXPECT_CALL(mock_, Log(_, HasSubstr("mostly asks for one of gres/gpu gets"))).Times(1);
  LoadOutsideSlurmctld();
}

// A bad fairway_usage value: one line naming it each time the settings are read (init, then
// reconfigure), and fair-share compares historical usage.
TEST_F(ShimTest, BadUsageBasisIsLoggedAndIgnored) {
  fake_conf_priority_params("fairway_usage=now");
  EXPECT_CALL(mock_, Log(_, HasSubstr("fairway_usage='now' is not historical, allocated or "
                                      "committed, ignored")))
      .Times(2);
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 1, 1, 1, 1001);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);  // b above a, as by historical usage
}

// A Fair Tree period: the job write lock once for the site factor, then once for the whole
// of one walk over the jobs (charging the running ones, collecting the pending ones), the
// tree and the weighing, with every assoc_mgr lock inside it and released before it.
TEST_F(ShimTest, FairTreePeriodWalksTheJobsOnceUnderOneJobLock) {
  const auto dir = UseStateDir("lk");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // running
  fake_add_job(101, 21, "p1", "normal", 0, 1, 1, 1001);  // pending
  ASSERT_EQ(fake_call_cycle(1000), 0);
  {
    InSequence seq;
    EXPECT_CALL(mock_, CtldLock(W, R, R));  // site factor update (no decay: half-life 0)
    EXPECT_CALL(mock_, CtldUnlock(W, R, R));
    EXPECT_CALL(mock_, CtldLock(W, R, R));   // one job write lock for the rest:
    EXPECT_CALL(mock_, AssocLock(W, W, R));  // charge running jobs, collect pending ones
    EXPECT_CALL(mock_, AssocUnlock(W, W, R));
    EXPECT_CALL(mock_, AssocLock(W, N, N));  // the tree
    EXPECT_CALL(mock_, AssocUnlock(W, N, N));
    EXPECT_CALL(mock_, AssocLock(R, R, N));  // weighing
    EXPECT_CALL(mock_, AssocUnlock(R, R, N));
    EXPECT_CALL(mock_, CtldUnlock(W, R, R));
  }
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 120.0);
  EXPECT_TRUE(fake_job_has_factors(101));
  EXPECT_GT(fake_job_priority(101), 1u);
  EXPECT_EQ(fake_locks_held(), 0);
  rm_tree(dir);
}

// The weighing pool: at 1, 2 and 8 threads every job gets the same priority and factors, the
// pass is cut into as many ranges as asked, and the queue of the period's snapshot lists the
// jobs in job_list's order whatever the number of threads (each thread notes its own range).
TEST_F(ShimTest, ThePoolWeighsAsOneThreadDoesAtAnyThreadCount) {
  const auto dir = UseStateDir("pool");
  const std::string metrics = "fairway_metrics_dir=" + dir.string();
  ::setenv("FAIRWAY_PARALLEL_MIN_JOBS", "2", 1);
  fake_conf_debug_priority(1);
  fake_conf_priority_params((metrics + ",fairway_weigh_threads=1").c_str());
  LoadOutsideSlurmctld();
  const uint32_t assocs[] = {21, 22, 31};
  for (uint32_t i = 0; i < 300; i++)
    fake_add_job(1000 + i, assocs[i % 3], (i % 7) ? "p1" : "p2", (i % 5) ? "normal" : "high", 0,
                 1 + i % 13, 1 + i % 3, 1001 + i % 3);
  auto queue_of_snapshot = [&] {
    std::ifstream in(dir / "fairway.json");
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    const size_t at = s.find("\"jobs\": [");
    return at == std::string::npos ? std::string() : s.substr(at);
  };
  auto priorities = [] {
    std::vector<double> v;
    for (uint32_t i = 0; i < 300; i++) {
      v.push_back(fake_job_priority(1000 + i));
      for (const char* f : {"fs", "js", "part", "qos"}) v.push_back(fake_job_factor(1000 + i, f));
    }
    return v;
  };
  time_t now = 1000;
  ASSERT_EQ(fake_call_cycle(now), 0);
  ASSERT_EQ(fake_call_cycle(now += 60), 0);
  const std::vector<double> one = priorities();
  const std::string queue = queue_of_snapshot();
  ASSERT_NE(queue.find("\"id\": 1299,"), std::string::npos) << queue.substr(0, 200);
  EXPECT_LT(queue.find("\"id\": 1000,"), queue.find("\"id\": 1001,"));
  EXPECT_LT(queue.find("\"id\": 1298,"), queue.find("\"id\": 1299,"));
  for (int threads : {2, 8, 2}) {  // fewer again: the pool's other threads sit the pass out
    fake_conf_priority_params(
        (metrics + ",fairway_weigh_threads=" + std::to_string(threads)).c_str());
    fake_call_reconfig(0);
    EXPECT_CALL(mock_, Log(_, HasSubstr("weighed 300 jobs in " + std::to_string(threads) +
                                        " threads")))
        .Times(1);
    ASSERT_EQ(fake_call_cycle(now += 60), 0);
    EXPECT_EQ(priorities(), one) << threads << " threads";
    EXPECT_EQ(queue_of_snapshot(), queue) << threads << " threads";
  }
  rm_tree(dir);
}

// A slurmctld killed between its usage checkpoints: Fairway's usage file (written at every
// period) and journal (every job end since) give back what was charged, and a job whose
// end was already charged is not charged again when it comes back as running.
TEST_F(ShimTest, UsageSurvivesAKilledSlurmctld) {
  const auto dir = UseStateDir("kill");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // runs from 1000 on 2 CPUs
  fake_add_job(101, 21, "p1", "normal", 2, 4, 1, 1001);  // ends at 1100 on 4 CPUs
  fake_job_set(101, "end_time", 1100);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);  // job 100: +120
  fake_call_job_end(101);               // job 101: 1060..1100 x 4 = +160
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 120 + 160.0);
  EXPECT_TRUE(std::filesystem::exists(dir / "fairway_usage"));
  EXPECT_EQ(
      std::filesystem::status(dir / "fairway_usage").permissions() & std::filesystem::perms::all,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // kill -9: slurmctld restarts from its own older checkpoint (the usage before both
  // charges) and recovers job 101 as still running.
  fake_call_fini();
  fake_assoc_set_usage(1, 130);
  fake_assoc_set_usage(2, 100);
  fake_assoc_set_usage(21, 100);
  fake_assoc_set_usage(3, 30);
  fake_assoc_set_usage(31, 30);
  fake_job_set(101, "state", 1);
  fake_job_set(101, "end_time_exp", 5000);
  EXPECT_CALL(mock_, Log(_, HasSubstr("restored from the period at 1060, plus 1 job ends")));
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1120), 0);  // job 100: +120 more; job 101 not again
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 120 + 120.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(21)), 100 + 160.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 120 + 160 + 120.0);
  rm_tree(dir);
}

// With fairway_metrics_dir the period's snapshot holds the pending queue (version 2), up to
// fairway_queue_jobs jobs; above that, the association tree only, told once per episode.
TEST_F(ShimTest, TheQueueInThePeriodsSnapshotIsBoundedByFairwayQueueJobs) {
  const auto dir = UseStateDir("queue");
  const std::string metrics = "fairway_metrics_dir=" + dir.string();
  fake_conf_priority_params((metrics + ",fairway_queue_jobs=1").c_str());
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(101, 31, "p1", "normal", 0, 1, 1, 1003);
  auto snapshot = [&] {
    std::ifstream in(dir / "fairway.json");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  EXPECT_CALL(mock_, Log(_, HasSubstr("2 pending jobs, more than fairway_queue_jobs=1: " +
                                      dir.string() + "/fairway.json holds the association "
                                      "tree only until they are fewer")))
      .Times(1);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_NE(snapshot().find("{\"fairway_snapshot\": 1,"), std::string::npos);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_NE(snapshot().find("{\"fairway_snapshot\": 1,"), std::string::npos);

  fake_conf_priority_params((metrics + ",fairway_queue_jobs=2").c_str());
  fake_call_reconfig(0);
  ASSERT_EQ(fake_call_cycle(1120), 0);
  const std::string text = snapshot();
  EXPECT_NE(text.find("{\"fairway_snapshot\": 2,"), std::string::npos) << text.substr(0, 200);
  EXPECT_NE(text.find("\"id\": 100,"), std::string::npos);
  EXPECT_NE(text.find("\"id\": 101,"), std::string::npos);
  rm_tree(dir);
}

// A job that started since the last period is recorded with the site factor its priority
// used: prio_factors holds it biased by NICE_OFFSET (2^31) as Slurm does, the record does not.
TEST_F(ShimTest, AStartedJobIsRecordedWithTheSiteFactorItsPriorityUsed) {
  const auto dir = UseStateDir("starts");
  fake_conf_priority_params("fairway_history_days=1");
  LoadOutsideSlurmctld();
  fake_add_job(14, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(15, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_job_set(15, "site_factor", 250);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  for (uint32_t id : {14u, 15u}) {
    fake_job_set(id, "state", 1);
    fake_job_set(id, "start_time", 1030);
    fake_job_set(id, "nodes", 1);
  }
  ASSERT_EQ(fake_call_cycle(1060), 0);
  std::string text;
  for (const auto& e : std::filesystem::directory_iterator(dir / "fairway_history"))
    if (e.path().filename().string().rfind("starts-", 0) == 0) {
      std::stringstream f;
      f << std::ifstream(e.path()).rdbuf();
      text += f.str();
    }
  auto record = [&](int id) {
    const size_t at = text.find("{\"job\":" + std::to_string(id) + ",");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  ASSERT_NE(record(14), "") << text;
  ASSERT_NE(record(15), "") << text;
  EXPECT_NE(record(14).find("\"site\":0.0,"), std::string::npos) << record(14);
  EXPECT_NE(record(15).find("\"site\":250.0,"), std::string::npos) << record(15);
  rm_tree(dir);
}

// fairway_starvation_minutes: a user whose job is first in line and waits only for resources
// (state reason Resources) is not starved of service; the same job waiting behind others'
// priority (reason Priority) is.
TEST_F(ShimTest, AJobFirstInLineWaitingForResourcesIsNotStarvation) {
  fake_conf_priority_params("fairway_starvation_minutes=1");
  std::vector<std::string> said;
  EXPECT_CALL(mock_, Log(_, _)).WillRepeatedly([&](int, const std::string& m) {
    said.push_back(m);
  });
  auto starvation = [&] {
    return std::count_if(said.begin(), said.end(), [](const std::string& m) {
      return m.find("fair-share starvation: user u3 in account b") != std::string::npos;
    });
  };
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 0, 1, 1, 1003);  // eligible since 1000
  fake_job_set(100, "waits_for_resources", 1);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_EQ(starvation(), 0);
  fake_job_set(100, "waits_for_resources", 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_EQ(starvation(), 1);
}

// Every line the plugin logs names it once, whatever the level: Slurm's info(), verbose(),
// debug*() and log_flag() add no prefix of their own to the plugin's.
TEST_F(ShimTest, EveryLogLineNamesThePluginOnce) {
  const auto dir = UseStateDir("log-prefix");
  fake_conf_debug_priority(1);
  fake_conf_priority_params(("fairway_metrics_dir=" + dir.string() +
                             ",fairway_history_days=1,fairway_starvation_minutes=1,"
                             "fairway_nope=1,fairway_usage=allocated")
                                .c_str());
  std::vector<std::string> said;
  std::mutex said_lock;  // the calculation thread logs too, while init still does
  EXPECT_CALL(mock_, Log(_, _)).WillRepeatedly([&](int, const std::string& m) {
    std::lock_guard<std::mutex> hold(said_lock);
    said.push_back(m);
  });
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_add_job(101, 21, "p1", "normal", 1, 1, 1, 1001);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  fake_call_set(100);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  // Loaded again as slurmctld loads it (with a calculation thread).
  ASSERT_EQ(fake_call_fini(), 0);
  fake_set_cluster(64, 4);
  ASSERT_EQ(fake_call_init(), 0);
  ASSERT_EQ(fake_call_fini(), 0);  // (the thread has stopped: `said` is the test's again)
  ASSERT_GE(said.size(), 5u);
  int loaded = 0;
  for (const std::string& m : said) {
    const size_t first = m.find("priority/fairway");
    EXPECT_EQ(m.find("priority/fairway", first + 1), std::string::npos) << m;
    loaded += m.rfind("priority/fairway: loaded outside slurmctld", 0) == 0;
    loaded += m.rfind("priority/fairway: Priority FAIRWAY plugin ", 0) == 0;
  }
  EXPECT_EQ(loaded, 2);
  rm_tree(dir);
}

// fairway_fairshare_tres: a listed TRES that makes every job or every association tie is told
// once when it starts and once when it ends, not every period.  With no GPU usage anywhere
// both GPU jobs get one factor; with usage they are told apart again; a CPU job among them
// leaves only the associations' unused GPUs to tell.
TEST_F(ShimTest, AFairShareTresThatMakesEveryJobTieIsToldOncePerChange) {
  fake_conf_priority_params("fairway_fairshare_tres=gres/gpu");
  std::vector<std::string> said;
  EXPECT_CALL(mock_, Log(_, _)).WillRepeatedly([&](int, const std::string& m) {
    if (m.find("fairway_fairshare_tres: ") != std::string::npos) said.push_back(m);
  });
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  ASSERT_EQ(fake_call_cycle(940), 0);  // no job: nothing ties, whatever the usage
  EXPECT_TRUE(said.empty()) << said[0];
  fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);  // 2 GPUs
  fake_job_set_tres(203, FAKE_TRES_GPU, 2);
  fake_add_job(206, 22, "p1", "normal", 0, 1, 1, 1002);  // 1 GPU
  fake_job_set_tres(206, FAKE_TRES_GPU, 1);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0],
            "priority/fairway: fairway_fairshare_tres: every pending job (2) is judged by its "
            "share of gres/gpu, and all get fair-share factor 1.000000: fair-share orders none "
            "of them (a default a job is given, such as DefMemPerCPU or DefMemPerNode for mem, "
            "counts as asked for)");
  const std::pair<uint32_t, double> gpu_usage[] = {{1, 100}, {2, 10}, {21, 10}, {3, 90},
                                                   {31, 90}};
  for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, u);
  ASSERT_EQ(fake_call_cycle(1120), 0);
  ASSERT_EQ(fake_call_cycle(1180), 0);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[1], "priority/fairway: fairway_fairshare_tres: gres/gpu tells jobs apart again");
  for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, 0);
  fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // no GPU: billing's
  ASSERT_EQ(fake_call_cycle(1240), 0);
  ASSERT_EQ(fake_call_cycle(1300), 0);
  ASSERT_EQ(said.size(), 3u);
  EXPECT_EQ(said[2],
            "priority/fairway: fairway_fairshare_tres: no association has used gres/gpu: every "
            "job judged by its share of gres/gpu gets the same fair-share factor");
}

// An association created after the last period is not in the usage file: what it was
// charged since is all in the journal, so it starts from 0 and the journal is replayed once.
// slurmctld's own checkpoint, saved at a clean shutdown after the job ended, already holds
// that charge; counting both would give the user twice what its parents show.
TEST_F(ShimTest, AnAssociationCreatedAfterThePeriodIsNotChargedTwice) {
  const auto dir = UseStateDir("new-assoc");
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1000), 0);  // the usage file: the tree without user 32
  fake_add_user_linked(32, 3, "u4", 1, 0);
  fake_add_job(100, 32, "p1", "normal", 2, 4, 1, 1003);  // runs 1000..1100 on 4 CPUs
  fake_job_set(100, "end_time", 1100);
  fake_call_job_end(100);  // +400 up the tree
  const double user = static_cast<double>(fake_assoc_usage_raw(32));
  const double account = static_cast<double>(fake_assoc_usage_raw(3));
  const double root = static_cast<double>(fake_assoc_usage_raw(1));
  EXPECT_EQ(user, 400.0);

  // A clean shutdown: slurmctld's checkpoint holds the usage as it is now.
  fake_call_fini();
  fake_job_set(100, "state", 3);
  EXPECT_CALL(mock_, Log(_, HasSubstr("plus 1 job ends after it; 1 associations created since "
                                      "start from 0")));
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1000), 0);  // the first period restores
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(32)), user);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(3)), account);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), root);
  rm_tree(dir);
}

// Slurm 26.05 charges a pending heterogeneous job component when it is submitted, through
// priority_p_job_end.  The journal keeps that charge ("c"), but it is not the job's end: after
// a kill -9 the job, running by then, is charged by the periods like any other.
TEST_F(ShimTest, AChargeOfAPendingJobIsNotItsEnd) {
  const auto dir = UseStateDir("het");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // 2 CPUs allocated...
  fake_job_set(100, "state", 0);                          // ...to a pending component,
  fake_job_set(100, "start_time", 0);
  fake_job_set(100, "end_time_exp", 5000);  // as acct_policy_job_begin leaves it
  ASSERT_EQ(fake_call_cycle(1000), 0);
  const double before = static_cast<double>(fake_assoc_usage_raw(31));
  fake_call_job_end(100);
  std::ifstream journal(dir / "fairway_usage.journal");
  std::string line;
  ASSERT_TRUE(std::getline(journal, line));
  EXPECT_EQ(line.substr(0, 2), "c ") << line;
  const double charged = static_cast<double>(fake_assoc_usage_raw(31)) - before;

  // kill -9, then slurmctld comes back from its older checkpoint; the job has started.
  fake_call_fini();
  fake_assoc_set_usage(31, before);
  fake_job_set(100, "state", 1);
  fake_job_set(100, "start_time", 1000);
  fake_job_set(100, "end_time_exp", 5000);
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1060), 0);  // restored: before + charged; the period: +120
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), before + charged + 120.0);
  rm_tree(dir);
}

// After another plugin ran (its decay state is newer than Fairway's usage file), slurmctld's
// usage is kept.
TEST_F(ShimTest, StaleUsageFileIsNotRestored) {
  const auto dir = UseStateDir("stale");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  fake_call_fini();
  // multifactor ran a period at 2000 meanwhile (same state file format) and charged more
  ASSERT_EQ(fairway_decay_state_write((dir / "priority_last_decay_ran").c_str(), 2000, 0), 0);
  fake_assoc_set_usage(31, 5000);
  EXPECT_CALL(mock_, Log(_, HasSubstr("keeping slurmctld's usage")));
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(2000), 0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 5000.0);
  rm_tree(dir);
}

TEST_F(ShimTest, CorruptStateFileIsReportedNotFatal) {
  const auto dir = UseStateDir("bad");
  std::ofstream(dir / "priority_last_decay_ran") << "garbage";
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("decay state unusable")));
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("no usable decay state")));
  ASSERT_EQ(fake_call_cycle(2000), 0);
  // Counting from now: the running job is not charged for time before the restart.
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30.0);
  rm_tree(dir);
}

TEST_F(ShimTest, InsideSlurmctldFiniStopsTheThreadPromptly) {
  const auto dir = UseStateDir("thr");
  fake_set_cluster(64, 4);  // as in slurmctld: init starts the calculation thread
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(true));
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  ASSERT_EQ(fake_call_init(), 0);
  // The thread's first period runs at once: wait until it has weighed the job.
  for (int i = 0; i < 200 && !fake_job_has_factors_locked(100); i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(fake_job_has_factors_locked(100));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(fake_call_fini(), 0);  // PriorityCalcPeriod is 300 s: fini must not wait for it
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  rm_tree(dir);
}

// fini while the calculation thread is inside a period (holding the job write lock): fini
// waits for that period to finish, the period completes (the job is weighed, the state file
// written) and no lock stays held.  A hook holds the thread inside the lock until the test
// has called fini.
TEST_F(ShimTest, FiniDuringACalculationLetsThePeriodFinish) {
  const auto dir = UseStateDir("mid");
  fake_set_cluster(64, 4);
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(true));
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);

  const auto main_thread = std::this_thread::get_id();
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> armed{true};
  EXPECT_CALL(mock_, CtldLock(_, _, _)).WillRepeatedly([&](int job, int, int) {
    if (job == W && std::this_thread::get_id() != main_thread && armed.exchange(false)) {
      entered.set_value();
      released.wait();
    }
  });
  ASSERT_EQ(fake_call_init(), 0);
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the calculation thread never took the job write lock";
  EXPECT_FALSE(fake_job_has_factors(100));  // mid-period: not weighed yet
  auto fini = std::async(std::launch::async, [] { return fake_call_fini(); });
  EXPECT_EQ(fini.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "fini returned while a period was still running";
  release.set_value();
  ASSERT_EQ(fini.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(fini.get(), 0);
  EXPECT_TRUE(fake_job_has_factors(100));  // the period ran to its end
  EXPECT_TRUE(std::filesystem::exists(dir / "priority_last_decay_ran"));
  EXPECT_EQ(fake_locks_held(), 0);
  rm_tree(dir);
}

TEST_F(ShimTest, WithoutSlurmdbdFairShareIsOffAndSaidSo) {
  fake_set_cluster(64, 4);
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(false));
  EXPECT_CALL(mock_,
              Log(kLogError, HasSubstr("PriorityWeightFairshare can only be used with SlurmDBD")));
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  ASSERT_EQ(fake_call_init(), 0);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "fs"), 0.0);
  EXPECT_GT(fake_job_priority(100), 1u);
}

// Without slurmdbd, 24.11's multifactor still runs its thread: every period weighs every job
// (a partition's PriorityJobFactor changed with scontrol reaches pending jobs without a
// restart).  22.05 weighed them once, at start.  Neither charges nor writes a state file, so
// the usage file of an earlier run with slurmdbd stays as it was.
TEST_F(ShimTest, WithoutSlurmdbdTheThreadWeighsEveryJobFrom2411) {
  const auto dir = UseStateDir("nodbd");
  fake_set_cluster(64, 4);
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(false));
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("can only be used with SlurmDBD")))
      .Times(::testing::AnyNumber());
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  const auto main_thread = std::this_thread::get_id();
  std::atomic<int> thread_job_writes{0};
  EXPECT_CALL(mock_, CtldLock(_, _, _)).WillRepeatedly([&](int job, int, int) {
    if (job == W && std::this_thread::get_id() != main_thread) thread_job_writes++;
  });
  ASSERT_EQ(fake_call_init(), 0);
  EXPECT_TRUE(fake_job_has_factors_locked(100));  // weighed once jobs are loaded, on every release
  if (fake_thread_without_fair_share()) {
    // The thread's first period runs at once and weighs the job under the job write lock.
    for (int i = 0; i < 500 && thread_job_writes == 0; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_GT(thread_job_writes.load(), 0) << "no period ran without slurmdbd";
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(thread_job_writes.load(), 0) << "22.05 runs no thread without slurmdbd";
  }
  ASSERT_EQ(fake_call_fini(), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "priority_last_decay_ran"));
  EXPECT_FALSE(std::filesystem::exists(dir / "fairway_usage"));
  EXPECT_EQ(fake_locks_held(), 0);
  rm_tree(dir);
}

}  // namespace
