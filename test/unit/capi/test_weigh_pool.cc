// test_weigh_pool.cc - the weighing pool (fairway_weigh_pool.h): how many threads weigh a
// pass, that every job of the pass is weighed exactly once in consecutive ranges, and the
// lines said for a bad environment.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fairway_weigh_pool.h"

namespace {

struct Said {
  std::vector<std::string> lines;
  static void say(const char* m, void* arg) { static_cast<Said*>(arg)->lines.push_back(m); }
};

// What the lanes of a pass weighed: each job's count and lane, each lane's range.
struct Pass {
  explicit Pass(size_t n) : weighed(n), lane_of(n, -1) {}
  std::vector<std::atomic<int>> weighed;
  std::vector<int> lane_of;
  std::mutex lock;
  std::vector<std::pair<size_t, size_t>> ranges;  // by lane
  std::vector<std::thread::id> thread_of;         // by lane
  size_t changed_job = SIZE_MAX;                  // the job whose priority "changes"

  static int weigh(void* arg, int lane, size_t begin, size_t end) {
    auto* p = static_cast<Pass*>(arg);
    int changed = 0;
    for (size_t i = begin; i < end; i++) {
      p->weighed[i]++;
      p->lane_of[i] = lane;
      if (i == p->changed_job) changed = 1;
    }
    std::lock_guard<std::mutex> held(p->lock);
    if (p->ranges.size() <= static_cast<size_t>(lane)) {
      p->ranges.resize(lane + 1, {SIZE_MAX, SIZE_MAX});
      p->thread_of.resize(lane + 1);
    }
    p->ranges[lane] = {begin, end};
    p->thread_of[lane] = std::this_thread::get_id();
    return changed;
  }
};

fairway_weigh_pool_t* make_pool(const char* env_threads, const char* env_min, Said* said) {
  fairway_weigh_pool_t* pool = nullptr;
  EXPECT_EQ(fairway_weigh_pool_create(env_threads, env_min, Said::say, said, &pool), FAIRWAY_OK);
  return pool;
}

TEST(WeighPool, APassCutIntoConsecutiveRangesWeighsEveryJobOnceInThreadsOfItsOwn) {
  Said said;
  fairway_weigh_pool_t* pool = make_pool(nullptr, "10", &said);
  Pass pass(103);
  pass.changed_job = 90;
  int changed = -1, parts = 0;
  ASSERT_EQ(fairway_weigh_pool_run(pool, 103, 4, 1, Pass::weigh, &pass, &changed, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, 4);
  EXPECT_EQ(changed, 1);
  for (size_t i = 0; i < 103; i++) EXPECT_EQ(pass.weighed[i].load(), 1) << "job " << i;
  ASSERT_EQ(pass.ranges.size(), 4u);
  EXPECT_EQ(pass.ranges[0].first, 0u);
  for (int k = 1; k < 4; k++) EXPECT_EQ(pass.ranges[k].first, pass.ranges[k - 1].second);
  EXPECT_EQ(pass.ranges[3].second, 103u);
  EXPECT_EQ(pass.thread_of[0], std::this_thread::get_id());  // lane 0: the caller
  for (int k = 1; k < 4; k++) EXPECT_NE(pass.thread_of[k], std::this_thread::get_id());
  EXPECT_TRUE(said.lines.empty());
  fairway_weigh_pool_destroy(&pool);
  EXPECT_EQ(pool, nullptr);
}

TEST(WeighPool, EachThreadGetsAtLeastHalfTheParallelMinimum) {
  Said said;
  fairway_weigh_pool_t* pool = make_pool(nullptr, "10", &said);
  int parts = 0;
  Pass small(9);  // under the minimum: the caller alone
  ASSERT_EQ(fairway_weigh_pool_run(pool, 9, 8, 1, Pass::weigh, &small, nullptr, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, 1);
  Pass some(17);  // 17 jobs, 5 at least each: three threads, not eight
  ASSERT_EQ(fairway_weigh_pool_run(pool, 17, 8, 1, Pass::weigh, &some, nullptr, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, 3);
  for (size_t i = 0; i < 17; i++) EXPECT_EQ(some.weighed[i].load(), 1);
  fairway_weigh_pool_destroy(&pool);
}

TEST(WeighPool, AClassicPassIsWeighedInTheCallingThreadAlone) {
  Said said;
  fairway_weigh_pool_t* pool = make_pool("4", "2", &said);
  Pass pass(1000);
  int changed = -1, parts = 0;
  ASSERT_EQ(fairway_weigh_pool_run(pool, 1000, 0, 0, Pass::weigh, &pass, &changed, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, 1);
  EXPECT_EQ(changed, 0);
  EXPECT_EQ(pass.ranges.size(), 1u);
  fairway_weigh_pool_destroy(&pool);
}

TEST(WeighPool, TheSettingComesBeforeTheEnvironmentAndTheEnvironmentBeforeTheCpus) {
  Said said;
  fairway_weigh_pool_t* pool = make_pool("3", "2", &said);
  int parts = 0;
  Pass by_env(100);
  ASSERT_EQ(fairway_weigh_pool_run(pool, 100, 0, 1, Pass::weigh, &by_env, nullptr, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, 3);
  Pass by_setting(100);
  ASSERT_EQ(fairway_weigh_pool_run(pool, 100, 5, 1, Pass::weigh, &by_setting, nullptr, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, 5);
  Pass too_many(1000);  // more than FAIRWAY_MAX_WEIGH_THREADS: that many
  ASSERT_EQ(fairway_weigh_pool_run(pool, 1000, FAIRWAY_MAX_WEIGH_THREADS + 10, 1, Pass::weigh,
                                   &too_many, nullptr, &parts),
            FAIRWAY_OK);
  EXPECT_EQ(parts, FAIRWAY_MAX_WEIGH_THREADS);
  for (size_t i = 0; i < 1000; i++) EXPECT_EQ(too_many.weighed[i].load(), 1);
  fairway_weigh_pool_destroy(&pool);
}

TEST(WeighPool, ManyPassesInARowReuseTheThreads) {
  Said said;
  fairway_weigh_pool_t* pool = make_pool(nullptr, "2", &said);
  for (int round = 0; round < 200; round++) {
    Pass pass(64);
    int parts = 0;
    ASSERT_EQ(
        fairway_weigh_pool_run(pool, 64, 1 + round % 6, 1, Pass::weigh, &pass, nullptr, &parts),
        FAIRWAY_OK);
    ASSERT_EQ(parts, 1 + round % 6);
    for (size_t i = 0; i < 64; i++) ASSERT_EQ(pass.weighed[i].load(), 1);
  }
  fairway_weigh_pool_destroy(&pool);
}

TEST(WeighPool, ABadEnvironmentValueIsToldAndTheDefaultUsed) {
  Said said;
  fairway_weigh_pool_t* pool = make_pool("0", "1", &said);
  ASSERT_EQ(said.lines.size(), 2u);
  EXPECT_EQ(said.lines[0].rfind("FAIRWAY_WEIGH_THREADS='0' is not a number of threads from 1 to " +
                                    std::to_string(FAIRWAY_MAX_WEIGH_THREADS) + ", using ",
                                0),
            0u)
      << said.lines[0];
  EXPECT_EQ(said.lines[1],
            "FAIRWAY_PARALLEL_MIN_JOBS='1' is not a number of at least 2, using 4096");
  fairway_weigh_pool_destroy(&pool);
  for (const char* bad : {"", "4x", "-2", "99999999999999999999", " "}) {
    Said s;
    pool = make_pool(bad, bad, &s);
    EXPECT_EQ(s.lines.size(), 2u) << "'" << bad << "'";
    fairway_weigh_pool_destroy(&pool);
  }
}

TEST(WeighPool, NullArgumentsAreRefused) {
  Said said;
  fairway_weigh_pool_t* pool = nullptr;
  EXPECT_EQ(fairway_weigh_pool_create(nullptr, nullptr, Said::say, &said, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_weigh_pool_create(nullptr, nullptr, nullptr, nullptr, &pool), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_weigh_pool_run(nullptr, 1, 1, 1, Pass::weigh, nullptr, nullptr, nullptr),
            FAIRWAY_EINVAL);
  pool = make_pool(nullptr, nullptr, &said);
  EXPECT_EQ(fairway_weigh_pool_run(pool, 1, 1, 1, nullptr, nullptr, nullptr, nullptr),
            FAIRWAY_EINVAL);
  fairway_weigh_pool_destroy(&pool);
  fairway_weigh_pool_destroy(&pool);  // twice: nothing
  fairway_weigh_pool_destroy(nullptr);
}

}  // namespace
