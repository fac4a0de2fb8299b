// test_shim.h - the fixture of the plugin shim's tests (test_shim*.cc): a GoogleMock
// object that fake_slurm.c reports every lock, log line, policy question and violation to,
// and ShimTest, a small cluster built afresh for each test.
#pragma once

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
#include <future>
#include <mutex>
#include <sstream>
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

inline MockSlurm* g_mock;

// Remove a scratch directory (retrying: some sandboxes' readdir misses fresh entries).
inline void rm_tree(const std::filesystem::path& dir) {
  std::error_code ec;
  for (int i = 0; i < 5 && std::filesystem::exists(dir); i++) std::filesystem::remove_all(dir, ec);
}

inline fake_hooks_t hooks_for(MockSlurm* m) {
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
    // fini first: it stops a calculation thread that may be in the middle of a period.
    fake_call_fini();
    EXPECT_EQ(fake_locks_held(), 0);
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
