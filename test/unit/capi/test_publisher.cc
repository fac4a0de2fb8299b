// test_publisher.cc - what publishing decides at a period's end from the plugin's notes
// (fairway_publisher_*, and publisher_end inside the C API, lib/capi/publisher.h): the rows
// and jobs that go out, the starts window, and the lines told once per episode.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>

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

// A period of two lanes over partitions at the addresses of `parts`: lane 0 notes job 7 in
// both partitions, lane 1 job 9 in the second only and a row of a partition not copied.
struct Period {
  int parts[2] = {0, 0};
  int gone = 0;
  const void* part_at[2] = {&parts[1], &parts[0]};  // "b" then "a" as copied
  const char* part_names[2] = {"b", "a"};
  const uint32_t qos_ids[2] = {40, 30};
  const char* qos_names[2] = {"high", "normal"};
  fairway_note_t rows0[2] = {{&parts[0], 30, 100, 10, 11, 3, 7, 0, 1, 0},
                             {&parts[1], 30, 90, 10, 11, 3, 7, 0, 0, 0}};
  fairway_note_t rows1[2] = {{&parts[1], 0, 50, 20, 0, 3, 9, 0, 1, 1},
                             {&gone, 0, 50, 20, 0, 3, 9, 0, 0, 0}};
  fairway_pending_job_t jobs0[1]{}, jobs1[1]{};
  double tres1[2] = {1.5, 2.5};
  fairway_lane_t lanes[2]{};
  const fairway_lane_t* lane_at[2] = {&lanes[0], &lanes[1]};
  fairway_period_notes_t n{};
  const char* accounts[2] = {"root", "a"};
  fairway_assoc_t assocs[2];
  fairway_publication_t p{};
  fairway_publish_settings_t s{};
  Period() {
    lanes[0].rows = rows0;
    lanes[0].n = 2;
    lanes[0].jobs = 1;
    lanes[0].jobv = jobs0;
    lanes[0].njobs = 1;
    lanes[1].rows = rows1;
    lanes[1].n = 2;
    lanes[1].jobs = 1;
    lanes[1].jobv = jobs1;
    lanes[1].njobs = 1;
    lanes[1].tres = tres1;
    lanes[1].ntres = 2;
    jobs0[0].tres_at = SIZE_MAX;
    jobs1[0].tres_at = 0;
    n.lanes = lane_at;
    n.lane_count = 2;
    n.partition_at = part_at;
    n.qos_ids = qos_ids;
    n.walk = 500;
    n.where = "/metrics";
    assocs[0] = {1, 0, accounts[0], nullptr, 1, 0, 10};
    assocs[1] = {3, 1, accounts[1], "u", 1, 0, 10};
    p.slurm_release = "24.11.5";
    p.algo = FAIRWAY_ALGO_FAIR_TREE;
    p.dampening = 1;
    p.assocs = assocs;
    p.assoc_count = 2;
    p.partitions = part_names;
    p.partition_count = 2;
    p.qos = qos_names;
    p.qos_count = 2;
    p.period_end = 600;
    s.history_days = 1;
  }
};

struct Publisher : ::testing::Test {
  fairway_publisher_t* pub = nullptr;
  Said said;
  void SetUp() override { ASSERT_EQ(fairway_publisher_new(&pub), FAIRWAY_OK); }
  void TearDown() override { fairway_publisher_destroy(&pub); }
};

}  // namespace

TEST(PublisherRows, FollowTheLanesFindPartitionsByAddressAndQosById) {
  Period d;
  const std::vector<fairway_pending_row_t> rows = fairway::gather_rows(d.n, d.p, true);
  ASSERT_EQ(rows.size(), 3u);  // the row of a partition not copied is left out
  EXPECT_EQ(rows[0].job_id, 7u);
  EXPECT_EQ(rows[0].partition, 1u);  // parts[0] was copied second
  EXPECT_EQ(rows[0].qos, 1u);
  EXPECT_EQ(rows[1].partition, 0u);
  EXPECT_EQ(rows[2].job_id, 9u);
  EXPECT_EQ(rows[2].qos, UINT32_MAX);  // no QOS
  EXPECT_EQ(rows[2].job, 1u);          // lane 1's first job follows lane 0's one
  EXPECT_EQ(rows[2].waits_for_resources, 1);
  EXPECT_EQ(fairway::gather_rows(d.n, d.p, false)[2].job, UINT32_MAX);
}

TEST(PublisherRows, JobsOfAllLanesShareOneArrayOfTresFactors) {
  Period d;
  d.jobs1[0].fairshare_tres = 1;
  std::vector<fairway_pending_job_t> jobs;
  std::vector<double> tres;
  fairway::gather_jobs(d.n, d.p, jobs, tres);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].tres_at, SIZE_MAX);
  EXPECT_EQ(jobs[1].tres_at, 0u);
  EXPECT_EQ(tres, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(jobs[1].fairshare_tres, 0u);  // the listed TRES were not copied: none judged
}

TEST_F(Publisher, PlansNothingWhenNothingIsPublished) {
  fairway_publish_settings_t s{};
  fairway_publish_plan_t plan;
  ASSERT_EQ(fairway_publisher_begin(nullptr, &s, &plan), FAIRWAY_OK);
  EXPECT_FALSE(plan.rows || plan.tally || plan.queue || plan.starts);
  s.metrics_dir = "/m";
  s.queue_jobs = 10;
  ASSERT_EQ(fairway_publisher_begin(nullptr, &s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.rows && plan.queue);
  EXPECT_FALSE(plan.starts);  // no period published yet
  EXPECT_EQ(fairway_publisher_begin(pub, nullptr, &plan), FAIRWAY_EINVAL);
}

TEST_F(Publisher, StartsCountFromTheLastPublishedWalkAndItsJobs) {
  Period d;
  fairway_publish_plan_t plan;
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  ASSERT_EQ(fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said),
            FAIRWAY_OK)
      << fairway_last_error();
  EXPECT_TRUE(said.errors.empty());
  EXPECT_TRUE(fairway::publisher_weighed(pub, 7));
  EXPECT_TRUE(fairway::publisher_weighed(pub, 9));
  EXPECT_FALSE(fairway::publisher_weighed(pub, 8));
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.starts);
  EXPECT_EQ(plan.last_walk, 500);
  EXPECT_EQ(d.p.rows, nullptr);  // what the call lent p is taken back
}

TEST_F(Publisher, RowsNameTheirJobsOnlyWhereTheHistoryStarvationOrQueueReadThem) {
  fairway_publish_settings_t s{};
  fairway_publish_plan_t plan;
  s.metrics_dir = "/m";  // the default settings above fairway_queue_jobs: figures only
  ASSERT_EQ(fairway_publisher_begin(nullptr, &s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.rows);
  EXPECT_FALSE(plan.ids);
  s.queue_jobs = 10;
  ASSERT_EQ(fairway_publisher_begin(nullptr, &s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.ids);
  s.queue_jobs = 0;
  s.starvation_minutes = 60;
  ASSERT_EQ(fairway_publisher_begin(nullptr, &s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.ids);
  s.starvation_minutes = 0;
  s.history_days = 1;
  ASSERT_EQ(fairway_publisher_begin(nullptr, &s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.ids);
}

// A period whose rows carried no ids leaves no order: the history turned on after it counts
// starts from the next period on, not against job ids that were never noted.
TEST_F(Publisher, APeriodWithoutIdsLeavesNoWalkToCountStartsFrom) {
  Period d;
  d.s.history_days = 0;
  d.s.metrics_dir = "/m";
  d.p.history_dir = nullptr;
  fairway_publish_plan_t plan;
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  ASSERT_FALSE(plan.ids);
  fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said);
  EXPECT_TRUE(said.errors.empty());
  EXPECT_FALSE(fairway::publisher_weighed(pub, 7));
  d.s.history_days = 1;
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  EXPECT_TRUE(plan.ids);
  EXPECT_FALSE(plan.starts);
  EXPECT_EQ(plan.last_walk, 0);
}

TEST_F(Publisher, AFailureIsToldWhenItStartsOrChangesAndItsEndOnce) {
  Period d;
  fairway_publish_plan_t plan;
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  d.p.assoc_count = 0;
  for (int i = 0; i < 2; i++)
    fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said);
  ASSERT_EQ(said.errors.size(), 1u);
  EXPECT_EQ(said.errors[0],
            "fair-share not published to /metrics: no association tree (is slurmdbd "
            "reachable?); priorities are not affected, retried every period");
  EXPECT_FALSE(fairway::publisher_weighed(pub, 7));  // nothing published: no starts window
  d.p.assoc_count = 2;
  fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said);
  fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said);
  EXPECT_EQ(said.info, std::vector<std::string>{"fair-share published to /metrics again"});
}

TEST_F(Publisher, MoreJobsThanTheQueueHoldsIsToldOncePerEpisode) {
  Period d;
  d.s.metrics_dir = nullptr;  // the rows only: no files
  d.s.queue_jobs = 1;
  fairway_publish_plan_t plan;
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said);
  EXPECT_TRUE(said.info.empty());  // without a metrics directory there is no queue to tell of
  d.s.metrics_dir = "/m";
  d.lanes[1].over = 1;
  d.p.history_dir = nullptr;
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
    d.p.directory = nullptr;
    fairway::publisher_end(pub, &d.s, &d.n, &d.p, Said::say, Said::say_error, &said);
  }
  ASSERT_EQ(said.info.size(), 1u);
  EXPECT_EQ(said.info[0],
            "2 pending jobs, more than fairway_queue_jobs=1: /m/fairway.json holds the "
            "association tree only until they are fewer");
  EXPECT_FALSE(plan.queue);  // the last period had more jobs: none noted
}

TEST_F(Publisher, TiesAreToldOnceWhenTheyStartAndOnceWhenTheyEnd) {
  Period d;
  const char* tres[] = {"gres/gpu"};
  d.s.fairshare_tres = tres;
  d.s.fairshare_tres_count = 1;
  d.s.fair_share = 1;
  fairway_publish_plan_t plan;
  ASSERT_EQ(fairway_publisher_begin(pub, &d.s, &plan), FAIRWAY_OK);
  ASSERT_TRUE(plan.tally);
  for (fairway_lane_t& l : d.lanes) {
    l.tally_jobs = 2;
    l.tres_jobs[0] = 2;
    l.tres_factor[0] = 0.5;
  }
  auto unused = [](size_t, void*) { return 0; };
  for (int i = 0; i < 2; i++)
    ASSERT_EQ(fairway_publisher_tell_ties(pub, &d.s, d.lane_at, 2, unused, Said::say, &said),
              FAIRWAY_OK);
  ASSERT_EQ(said.info.size(), 1u);
  EXPECT_EQ(said.info[0].rfind("fairway_fairshare_tres: every pending job (4) is judged by its "
                               "share of gres/gpu, and all get fair-share factor 0.500000: ",
                               0),
            0u)
      << said.info[0];
  d.lanes[1].tres_factor[0] = 0.25;
  fairway_publisher_tell_ties(pub, &d.s, d.lane_at, 2, unused, Said::say, &said);
  ASSERT_EQ(said.info.size(), 2u);
  EXPECT_EQ(said.info[1], "fairway_fairshare_tres: gres/gpu tells jobs apart again");
  auto all_unused = [](size_t, void*) { return 1; };
  fairway_publisher_tell_ties(pub, &d.s, d.lane_at, 2, all_unused, Said::say, &said);
  ASSERT_EQ(said.info.size(), 3u);
  EXPECT_EQ(said.info[2],
            "fairway_fairshare_tres: no association has used gres/gpu: every job judged by its "
            "share of gres/gpu gets the same fair-share factor");
}
