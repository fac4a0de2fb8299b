// The live cluster's fair-share policy (tools/live_fair_share.h): what the `fairway` command
// computes from slurmctld's public data is what the plugin compared, under each
// PriorityParameters option that changes it.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "explain.h"
#include "fair_share.h"
#include "live_fair_share.h"
#include "snapshot.h"

namespace fairway_cli {
namespace {

using fairway::Algorithm;
using fairway::AssocRecord;
using fairway::PendingJob;
using fairway::Snapshot;
using fairway::UsageBasis;

// root -> A -> uA, root -> B -> uB, one share each; RawUsage charged directly: uA 900, uB 100.
// slurmctld tracks cpu, mem and gres/gpu; uA used 8 GPU-seconds, uB 72 (totals up the tree).
// Partition gpu: 64 CPUs, 8 GPUs. QOS "double" charges twice, "free" has no factor set (-1).
struct Cluster {
  Snapshot snap;
  LivePolicyInput in;
};

Cluster cluster(const std::string& options) {
  Cluster c;
  c.snap.associations = {{1, 0, "root", "", false, 1, 0},
                         {2, 1, "A", "", false, 1, 0},
                         {3, 2, "A", "uA", false, 1, 900},
                         {4, 1, "B", "", false, 1, 0},
                         {5, 4, "B", "uB", false, 1, 100}};
  fairway::Queue q;
  q.taken_at = 1000;
  q.settings.weight[fairway::Factor::kFairshare] = 1000;
  q.partitions = {{"gpu", 1, 1, 64, 1}};
  q.qos = {{"double", 0, 2.0}, {"free", 0, -1.0}};
  PendingJob gpu_job;
  gpu_job.id = 7;
  gpu_job.assoc_id = 3;
  gpu_job.partitions = {"gpu"};
  gpu_job.tres_req = {{"cpu", 1}, {"mem", 4000}, {"node", 1}, {"gres/gpu", 1}};
  PendingJob cpu_job = gpu_job;
  cpu_job.id = 8;
  cpu_job.assoc_id = 5;
  cpu_job.tres_req = {{"cpu", 16}, {"mem", 4000}, {"node", 1}, {"gres/gpu", 1}};
  q.jobs = {gpu_job, cpu_job};
  c.snap.queue = q;
  std::vector<std::string> problems;
  c.in.options = fairway::parse_priority_parameters(options, problems);
  EXPECT_TRUE(problems.empty());
  c.in.tracked_tres = {"cpu", "mem", "gres/gpu"};
  c.in.tres_totals = {{0, 0, 80}, {0, 0, 8}, {0, 0, 8}, {0, 0, 72}, {0, 0, 72}};
  c.in.partition_tres = {{"gpu", {{"cpu", 64}, {"mem", 256000}, {"node", 4}, {"gres/gpu", 8}}}};
  c.in.now = 1000;
  // uA runs 4 billable CPUs with 2 GPUs under QOS double, ending at 1600; uB 1 CPU under
  // QOS free, past its end time.
  c.in.running = {{3, 4.0, "double", 1600, {{"cpu", 4}, {"gres/gpu", 2}}},
                  {5, 1.0, "free", 900, {{"cpu", 1}}}};
  return c;
}

TEST(LiveFairShare, HistoricalUsageWithoutOptionsIsLeftAsSlurmctldShowsIt) {
  Cluster c = cluster("");
  apply_live_policy(c.snap, c.in);
  EXPECT_EQ(c.snap.usage_basis, UsageBasis::kHistorical);
  EXPECT_TRUE(c.snap.held.empty());
  EXPECT_TRUE(c.snap.fairshare_tres.empty());
  EXPECT_EQ(c.snap.queue->job(7)->fairshare_tres, "");
}

TEST(LiveFairShare, AllocatedUsageIsWhatRunningJobsChargePerSecond) {
  Cluster c = cluster("fairway_usage=allocated");
  apply_live_policy(c.snap, c.in);
  EXPECT_EQ(c.snap.usage_basis, UsageBasis::kAllocated);
  // uA: 4 x 2 (QOS double); uB: 1 x 1 (a QOS without a factor charges once).
  EXPECT_EQ(c.snap.held, (std::vector<long double>{0, 0, 8, 0, 1}));
  // What fair-share compares is then the held usage: uB, holding less, ranks first.
  const auto fs = fairway::snapshot_fair_share_input(c.snap);
  const auto path = fairway::fair_share_path(fs, 5);
  ASSERT_FALSE(path.empty());
  EXPECT_DOUBLE_EQ(path.back().fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(fairway::fair_share_path(fs, 3).back().fs_factor, 0.5);
}

TEST(LiveFairShare, CommittedUsageCountsTheSecondsLeftFromNow) {
  Cluster c = cluster("fairway_usage=committed");
  apply_live_policy(c.snap, c.in);
  // uA: 8 per second for 600 s; uB is past its end time and commits nothing.
  EXPECT_EQ(c.snap.held, (std::vector<long double>{0, 0, 4800, 0, 0}));
}

TEST(LiveFairShare, ListedTresAreJudgedOnTheirUsageAndJobsByWhatTheyMostlyAskFor) {
  Cluster c = cluster("fairway_fairshare_tres=gres/gpu");
  apply_live_policy(c.snap, c.in);
  EXPECT_EQ(c.snap.fairshare_tres, (std::vector<std::string>{"gres/gpu"}));
  // The GPU usage charged directly to each association (totals less the children's).
  ASSERT_EQ(c.snap.tres_usage.size(), 1u);
  EXPECT_EQ(c.snap.tres_usage[0], (std::vector<long double>{0, 0, 8, 0, 72}));
  // 1 of 8 GPUs with 1 of 64 CPUs is a GPU job; 1 GPU with 16 CPUs a CPU job.
  EXPECT_EQ(c.snap.queue->job(7)->fairshare_tres, "gres/gpu");
  EXPECT_EQ(c.snap.queue->job(8)->fairshare_tres, "");
  // explain then reads the GPU tree for job 7: uA, with the less GPU usage, ranks first there
  // (on billing it ranks second); job 8 is judged on billing, where uB ranks first.
  const auto fs = fairway::snapshot_fair_share_input(c.snap);
  const auto e = fairway::explain_job(*c.snap.queue, fs, 7);
  EXPECT_EQ(e.fairshare_tres, "gres/gpu");
  ASSERT_FALSE(e.path.empty());
  EXPECT_DOUBLE_EQ(e.path.back().fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(fairway::explain_job(*c.snap.queue, fs, 8).path.back().fs_factor, 1.0);
}

TEST(LiveFairShare, ListedTresUnderAHeldBasisAreWhatRunningJobsWereAllocated) {
  Cluster c = cluster("fairway_usage=allocated,fairway_fairshare_tres=gres/gpu");
  apply_live_policy(c.snap, c.in);
  ASSERT_EQ(c.snap.tres_usage.size(), 1u);
  // uA's 2 GPUs x 2 (QOS double); uB has none.
  EXPECT_EQ(c.snap.tres_usage[0], (std::vector<long double>{0, 0, 4, 0, 0}));
}

TEST(LiveFairShare, TheListIsIgnoredWhereThePluginIgnoresIt) {
  // Depth-oblivious; a TRES slurmctld does not track; no fair-share weight.
  Cluster dobl = cluster("fairway_fairshare_tres=gres/gpu");
  dobl.snap.algorithm = Algorithm::kDepthOblivious;
  apply_live_policy(dobl.snap, dobl.in);
  EXPECT_TRUE(dobl.snap.fairshare_tres.empty());
  EXPECT_EQ(dobl.snap.queue->job(7)->fairshare_tres, "");

  Cluster untracked = cluster("fairway_fairshare_tres=license/matlab");
  apply_live_policy(untracked.snap, untracked.in);
  EXPECT_TRUE(untracked.snap.fairshare_tres.empty());

  Cluster unweighed = cluster("fairway_fairshare_tres=gres/gpu");
  unweighed.snap.queue->settings.weight[fairway::Factor::kFairshare] = 0;
  apply_live_policy(unweighed.snap, unweighed.in);
  EXPECT_TRUE(unweighed.snap.fairshare_tres.empty());
}

TEST(LiveFairShare, APartialTreeIsRefused) {
  Cluster c = cluster("fairway_usage=allocated");
  c.snap.associations.erase(c.snap.associations.begin());  // no root
  EXPECT_ANY_THROW(apply_live_policy(c.snap, c.in));
}

}  // namespace
}  // namespace fairway_cli
