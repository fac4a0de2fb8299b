// test_publisher_period.cc - the plugin's period with the lanes and copies its publisher keeps
// (fairway_publisher_lane, fairway_lane_note, fairway_lane_tally, the copies made under the
// locks, fairway_publisher_finish).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fairway.h"
#include "fairway_publish.h"
#include "publisher.h"

namespace {

struct Said {
  std::vector<std::string> info, errors;
  static void say(const char* m, void* arg) { static_cast<Said*>(arg)->info.push_back(m); }
  static void say_error(const char* m, void* arg) { static_cast<Said*>(arg)->errors.push_back(m); }
};

struct Period : ::testing::Test {
  fairway_publisher_t* pub = nullptr;
  fairway_publish_settings_t s{};
  fairway_publish_plan_t plan{};
  Said said;
  int parts[3] = {0, 0, 0};
  void SetUp() override {
    ASSERT_EQ(fairway_publisher_new(&pub), FAIRWAY_OK);
    s.metrics_dir = "/nowhere";
    s.queue_jobs = 2;
    s.queue_tres = 2;
  }
  void TearDown() override { fairway_publisher_destroy(&pub); }
  fairway_lane_t* begin(size_t k = 0) {
    EXPECT_EQ(fairway_publisher_begin(pub, &s, &plan), FAIRWAY_OK);
    return fairway_publisher_lane(pub, k);
  }
  // A job with a detail in the lane's queue, in `nparts` of `parts`.
  fairway_job_note_t job(uint32_t id, int nparts, const void* const* at, const uint32_t* prio,
                         int nqos, const fairway_pending_job_t* detail, const double* tres) {
    fairway_job_note_t j{};
    j.row.part = &parts[2];
    j.row.job_id = id;
    j.row.assoc_id = 3;
    j.parts = at;
    j.nparts = nparts;
    j.prio = prio;
    j.nqos = nqos;
    j.priority = 7;
    j.detail = detail;
    j.tres = tres;
    return j;
  }
};

}  // namespace

TEST_F(Period, APublisherHasItsOwnLanesEmptiedWithThePlanWhenAPeriodBegins) {
  fairway_lane_t* l = begin();
  ASSERT_NE(l, nullptr);
  EXPECT_NE(fairway_publisher_lane(pub, 1), l);
  EXPECT_EQ(fairway_publisher_lane(pub, FAIRWAY_MAX_WEIGH_THREADS), nullptr);
  EXPECT_EQ(fairway_publisher_lane(nullptr, 0), nullptr);
  EXPECT_TRUE(l->plan.rows && l->plan.queue);
  EXPECT_EQ(l->queue_jobs, 2u);
  EXPECT_EQ(l->queue_tres, 2u);
  const fairway_job_note_t j = job(1, 0, nullptr, nullptr, 0, nullptr, nullptr);
  ASSERT_EQ(fairway_lane_note(l, &j), FAIRWAY_OK);
  EXPECT_EQ(l->n, 1u);
  begin();
  EXPECT_EQ(l->n, 0u);
  EXPECT_EQ(l->jobs, 0u);
  EXPECT_TRUE(fairway_publisher_plan(pub)->rows);
}

TEST_F(Period, AJobGetsARowPerPartitionAtItsBestPriorityThereAndItsDetailOnce) {
  fairway_lane_t* l = begin();
  const void* at[2] = {&parts[0], &parts[1]};
  const uint32_t prio[4] = {10, 30, 25, 5};  // two QOS per partition
  fairway_pending_job_t detail{};
  detail.priority = 30;
  detail.tres_at = 99;
  const double tres[2] = {1.5, 2.5};
  const fairway_job_note_t j = job(8, 2, at, prio, 2, &detail, tres);
  ASSERT_EQ(fairway_lane_note(l, &j), FAIRWAY_OK);
  ASSERT_EQ(l->n, 2u);
  EXPECT_EQ(l->jobs, 1u);
  EXPECT_EQ(l->rows[0].part, &parts[0]);
  EXPECT_EQ(l->rows[0].priority, 30u);
  EXPECT_EQ(l->rows[0].first, 1);
  EXPECT_EQ(l->rows[1].part, &parts[1]);
  EXPECT_EQ(l->rows[1].priority, 25u);
  EXPECT_EQ(l->rows[1].first, 0);
  EXPECT_EQ(l->rows[1].job_id, 8u);
  EXPECT_EQ(l->rows[0].job, 0u);
  ASSERT_EQ(l->njobs, 1u);
  EXPECT_EQ(l->jobv[0].priority, 30u);
  EXPECT_EQ(l->jobv[0].tres_at, 0u);
  ASSERT_EQ(l->ntres, 2u);
  EXPECT_EQ(l->tres[1], 2.5);
}

TEST_F(Period, AJobWithoutPartitionsIsNotedInItsOwnAtThePriorityItKeeps) {
  fairway_lane_t* l = begin();
  const fairway_job_note_t j = job(4, 0, nullptr, nullptr, 0, nullptr, nullptr);
  ASSERT_EQ(fairway_lane_note(l, &j), FAIRWAY_OK);
  ASSERT_EQ(l->n, 1u);
  EXPECT_EQ(l->rows[0].part, &parts[2]);
  EXPECT_EQ(l->rows[0].priority, 7u);
  EXPECT_EQ(l->rows[0].first, 1);
  EXPECT_EQ(l->rows[0].job, UINT32_MAX);  // no detail given
}

TEST_F(Period, DetailsStopBeyondQueueJobsAndMarkTheLaneOver) {
  fairway_lane_t* l = begin();
  fairway_pending_job_t detail{};
  for (uint32_t id = 1; id <= 3; id++) {
    const fairway_job_note_t j = job(id, 0, nullptr, nullptr, 0, &detail, nullptr);
    ASSERT_EQ(fairway_lane_note(l, &j), FAIRWAY_OK);
  }
  EXPECT_EQ(l->njobs, 2u);
  EXPECT_EQ(l->jobs, 3u);
  EXPECT_EQ(l->over, 1);
  EXPECT_EQ(l->rows[1].job, 1u);
  EXPECT_EQ(l->rows[2].job, UINT32_MAX);
  EXPECT_EQ(l->jobv[0].tres_at, SIZE_MAX);  // no TRES factors given
}

TEST_F(Period, ManyJobsGrowTheLaneAndKeepEveryRow) {
  fairway_lane_t* l = begin();
  s.queue_jobs = 5000;
  l = begin();
  fairway_pending_job_t detail{};
  const double tres[2] = {1, 2};
  for (uint32_t id = 1; id <= 3000; id++) {
    const fairway_job_note_t j = job(id, 0, nullptr, nullptr, 0, &detail, tres);
    ASSERT_EQ(fairway_lane_note(l, &j), FAIRWAY_OK);
  }
  ASSERT_EQ(l->n, 3000u);
  EXPECT_EQ(l->rows[2999].job_id, 3000u);
  EXPECT_EQ(l->jobv[2999].tres_at, 5998u);
  EXPECT_EQ(l->ntres, 6000u);
  EXPECT_EQ(fairway_lane_note(nullptr, nullptr), FAIRWAY_EINVAL);
}

TEST(LaneTally, KeepsTheFirstFactorOfEachListedTresAndMarksADifferentOne) {
  fairway_lane_t l{};
  fairway_lane_tally(&l, 0, 0.5);
  fairway_lane_tally(&l, 0, 0.5);
  fairway_lane_tally(&l, 1, 0.25);
  fairway_lane_tally(&l, 1, 0.75);
  fairway_lane_tally(&l, -1, 0.1);  // billing: counted, not tallied
  fairway_lane_tally(&l, FAIRWAY_MAX_FAIRSHARE_TRES, 0.1);
  fairway_lane_tally(nullptr, 0, 0.1);
  EXPECT_EQ(l.tally_jobs, 6u);
  EXPECT_EQ(l.tres_jobs[0], 2u);
  EXPECT_EQ(l.tres_factor[0], 0.5);
  EXPECT_EQ(l.tres_differ[0], 0);
  EXPECT_EQ(l.tres_jobs[1], 2u);
  EXPECT_EQ(l.tres_factor[1], 0.25);
  EXPECT_EQ(l.tres_differ[1], 1);
}

TEST_F(Period, CopiesNeedARecord) {
  EXPECT_EQ(fairway_publisher_add_assoc(pub, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publisher_add_qos(pub, 1, "q", nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publisher_add_partition(pub, parts, "p", nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publisher_copy_tres_running(pub, FAIRWAY_MAX_FAIRSHARE_TRES, nullptr, 0),
            FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publisher_partitions_begin(nullptr, 1, 1), FAIRWAY_EINVAL);
}

TEST_F(Period, NoAssociationCopiedIsToldAsNoTreeOnceAndThePlanIsSpent) {
  begin();
  fairway_period_end_t e{};
  e.where = "/m";
  fairway_publication_t p{};
  p.slurm_release = "24.11.5";
  ASSERT_EQ(fairway_publisher_finish(pub, &s, &e, &p, Said::say, Said::say_error, &said),
            FAIRWAY_OK);
  ASSERT_EQ(said.errors.size(), 1u);
  EXPECT_NE(said.errors[0].find("not published to /m: no association tree"), std::string::npos);
  EXPECT_FALSE(fairway_publisher_plan(pub)->rows);
  EXPECT_EQ(fairway_publisher_finish(pub, &s, nullptr, &p, nullptr, nullptr, nullptr),
            FAIRWAY_EINVAL);
}

TEST_F(Period, FinishPublishesTheCopiesAndTheNotedRows) {
  char dir[] = "/tmp/fw_period_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  s.metrics_dir = dir;
  s.queue_tres = 0;
  const char* tres_names[1] = {"gres/gpu"};
  s.fairshare_tres = tres_names;
  s.fairshare_tres_count = 1;
  fairway_lane_t* l = begin();
  ASSERT_EQ(fairway_publisher_partitions_begin(pub, 64, 2), FAIRWAY_OK);
  fairway_partition_info_t info{1, 1.0, 1, 64, 2};
  ASSERT_EQ(fairway_publisher_add_partition(pub, &parts[2], "batch", &info), FAIRWAY_OK);
  ASSERT_EQ(fairway_publisher_copy_fairshare_tres(pub, tres_names, 1, 1), FAIRWAY_OK);
  char root[] = "root", acct[] = "a", user[] = "alice";
  fairway_assoc_t a0{1, 0, root, nullptr, 1, 0, 30};
  fairway_assoc_t a1{3, 1, acct, user, 1, 0, 30};
  const long double usage[1] = {4};
  ASSERT_EQ(fairway_publisher_add_assoc(pub, &a0, usage), FAIRWAY_OK);
  ASSERT_EQ(fairway_publisher_add_assoc(pub, &a1, usage), FAIRWAY_OK);
  user[0] = 'X';  // the copy keeps its own names
  fairway_qos_info_t q{10, 1.0};
  ASSERT_EQ(fairway_publisher_add_qos(pub, 40, "normal", &q), FAIRWAY_OK);
  fairway_pending_job_t detail{};
  fairway_job_note_t j{};
  j.row.part = &parts[2];
  j.row.job_id = 12;
  j.row.assoc_id = 3;
  j.row.qos_id = 40;
  j.priority = 1000;
  j.detail = &detail;
  ASSERT_EQ(fairway_lane_note(l, &j), FAIRWAY_OK);
  fairway_period_end_t e{};
  e.walk = 500;
  e.where = dir;
  clock_gettime(CLOCK_MONOTONIC, &e.begin);
  fairway_publication_t p{};
  p.directory = dir;
  p.slurm_release = "24.11.5";
  p.algo = FAIRWAY_ALGO_FAIR_TREE;
  p.dampening = 1;
  fairway_weights_t w{};
  p.weights = &w;
  ASSERT_EQ(fairway_publisher_finish(pub, &s, &e, &p, Said::say, Said::say_error, &said),
            FAIRWAY_OK)
      << fairway_last_error();
  EXPECT_TRUE(said.errors.empty());
  std::ifstream json(std::string(dir) + "/fairway.json");
  std::stringstream text;
  text << json.rdbuf();
  EXPECT_NE(text.str().find("alice"), std::string::npos);
  EXPECT_NE(text.str().find("batch"), std::string::npos);
  EXPECT_NE(text.str().find("gres/gpu"), std::string::npos);
  EXPECT_GE(p.period_seconds, 0);
  EXPECT_GT(p.period_end, 0);
  EXPECT_TRUE(fairway::publisher_weighed(pub, 12));
  s.history_days = 1;  // the next period notes the jobs started since this one's walk
  begin();
  EXPECT_TRUE(fairway_publisher_started_since(pub, 12, 500, 600));   // weighed by it
  EXPECT_FALSE(fairway_publisher_started_since(pub, 13, 500, 600));  // running then
  EXPECT_TRUE(fairway_publisher_started_since(pub, 13, 501, 600));
  EXPECT_FALSE(fairway_publisher_started_since(pub, 13, 499, 600));
  EXPECT_FALSE(fairway_publisher_started_since(pub, 13, 601, 600));
  EXPECT_FALSE(fairway_publisher_started_since(nullptr, 13, 501, 600));
  std::remove((std::string(dir) + "/fairway.json").c_str());
  std::remove((std::string(dir) + "/fairway.prom").c_str());
  rmdir(dir);
}
