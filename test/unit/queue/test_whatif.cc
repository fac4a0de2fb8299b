// `fairway whatif`: every pending job's priority again under other weights, shares, usage,
// PriorityMaxAge or algorithm; no change moves no job.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "error.h"
#include "explain.h"
#include "queue.h"
#include "queue_fixtures.h"
#include "slurm_values.h"
#include "whatif.h"

namespace fairway {
namespace {

FairShareInput two_accounts() {
  // root -> a (u11: 300), b (u21: 100); Fair Tree. u11's factor 0.5, u21's 1.
  FairShareInput fs;
  fs.associations = {{1, 0, "root", "", false, 1, 0},
                     {2, 1, "a", "", false, 1, 0},
                     {3, 1, "b", "", false, 1, 0},
                     {11, 2, "a", "u11", false, 1, 300},
                     {21, 3, "b", "u21", false, 1, 100}};
  return fs;
}

// A row whose priority is the sum of its parts.
FactorRow row(const std::string& part, double age, double fs, double js) {
  return test::factor_row(part, static_cast<uint32_t>(age + fs + js), age, fs, js);
}

PendingJob job(uint32_t id, uint32_t assoc, time_t submit, std::vector<FactorRow> rows) {
  PendingJob j = test::pending_job(id, assoc, submit, std::move(rows));
  j.account = assoc == 11 ? "a" : "b";
  return j;
}

// Weights: age 1000 (max age 1000 s), fair-share 10000, job size 1000.
Queue queue() {
  Queue q;
  q.taken_at = 1000;
  q.settings.weight[Factor::kAge] = 1000;
  q.settings.weight[Factor::kFairshare] = 10000;
  q.settings.weight[Factor::kJobSize] = 1000;
  q.settings.max_age = 1000;
  q.partitions = {{"p", 1, 1, 64, 4}};
  q.jobs.push_back(job(1, 21, 900, {row("p", 100, 10000, 100)}));  // 10200
  q.jobs.push_back(job(2, 11, 500, {row("p", 500, 5000, 900)}));   // 6400
  q.jobs.push_back(job(3, 11, 600, {row("p", 400, 5000, 50)}));    // 5450
  return q;
}

const JobMove& move_of(const WhatIf& w, uint32_t id) {
  for (const auto& m : w.partitions.at(0).jobs_by_move)
    if (m.job->id == id) return m;
  throw std::runtime_error("no job");
}

TEST(WhatIf, NoChangeMovesNoJob) {
  const auto w = what_if(queue(), two_accounts(), WhatIfChange{});
  ASSERT_EQ(w.partitions.size(), 1u);
  EXPECT_EQ(w.partitions[0].moved, 0u);
  EXPECT_DOUBLE_EQ(w.partitions[0].spearman, 1.0);
  for (const auto& m : w.partitions[0].jobs_by_move) {
    EXPECT_EQ(m.priority_before, m.priority_after);
    EXPECT_EQ(m.place_before, m.place_after);
  }
  EXPECT_TRUE(w.associations.empty());
}

TEST(WhatIf, WeightsScaleEachFactorAndReorder) {
  WhatIfChange c;
  c.weights = {{"fairshare", 1000}, {"JobSize", 10000}};  // names case-insensitive
  const auto w = what_if(queue(), two_accounts(), c);
  // job 1: 100 + 1000 + 1000; job 2: 500 + 500 + 9000; job 3: 400 + 500 + 500
  EXPECT_EQ(move_of(w, 1).priority_after, 2100u);
  EXPECT_EQ(move_of(w, 2).priority_after, 10000u);
  EXPECT_EQ(move_of(w, 3).priority_after, 1400u);
  EXPECT_EQ(move_of(w, 2).place_after, 1u);
  EXPECT_EQ(move_of(w, 1).place_after, 2u);
  EXPECT_EQ(w.partitions[0].moved, 2u);
  EXPECT_DOUBLE_EQ(w.partitions[0].spearman, 0.5);  // 1 - 6 * 2 / (3 * 8)
  EXPECT_EQ(w.after.settings.weight[Factor::kFairshare], 1000u);
  EXPECT_TRUE(w.associations.empty());
}

TEST(WhatIf, SharesRecomputeFairShare) {
  WhatIfChange c;
  c.shares = {{"a", "", 10, false}};  // a: 10 of 11 shares, 3/4 of the usage: ranks first
  const auto w = what_if(queue(), two_accounts(), c);
  // u11's factor 1, u21's 0.5: job 1 9100, job 2 11400, job 3 10450
  EXPECT_EQ(move_of(w, 1).priority_after, 5200u);
  EXPECT_EQ(move_of(w, 2).priority_after, 11400u);
  EXPECT_EQ(move_of(w, 3).priority_after, 10450u);
  EXPECT_EQ(move_of(w, 1).place_after, 3u);
  ASSERT_FALSE(w.associations.empty());
  bool saw_u11 = false;
  for (const auto& a : w.associations)
    if (a.user == "u11") {
      saw_u11 = true;
      EXPECT_DOUBLE_EQ(a.before, 0.5);
      EXPECT_DOUBLE_EQ(a.after, 1.0);
    }
  EXPECT_TRUE(saw_u11);
}

TEST(WhatIf, UsageOfAnAccountScalesItsSubtree) {
  WhatIfChange c;
  c.usage = {{"a", "", 30}};  // a's 300 becomes 30: a ranks first
  const auto w = what_if(queue(), two_accounts(), c);
  EXPECT_EQ(move_of(w, 2).place_after, 1u);
  c.usage = {{"b", "u21", 3000}};  // the same by u21's usage
  const auto w2 = what_if(queue(), two_accounts(), c);
  EXPECT_EQ(move_of(w2, 2).place_after, 1u);
}

TEST(WhatIf, MaxAgeRecomputesAgeFromAccrueTime) {
  WhatIfChange c;
  c.max_age = 2000;
  const auto w = what_if(queue(), two_accounts(), c);
  // waited 100, 500, 400 s of 2000: 50, 250, 200
  EXPECT_EQ(move_of(w, 1).priority_after, 10150u);
  EXPECT_EQ(move_of(w, 2).priority_after, 6150u);
  EXPECT_EQ(move_of(w, 3).priority_after, 5250u);
}

TEST(WhatIf, RefusesWhatTheSnapshotCannotTell) {
  WhatIfChange c;
  c.weights = {{"assoc", 100}};  // taken with PriorityWeightAssoc=0
  EXPECT_THROW((void)what_if(queue(), two_accounts(), c), Error);
  c.weights = {{"nosuchtres", 5}};
  Queue q = queue();
  q.jobs[0].rows[0].tres = {{"cpu", 1}};
  EXPECT_THROW((void)what_if(q, two_accounts(), c), Error);
  c.weights = {{"age", -1}};
  EXPECT_THROW((void)what_if(queue(), two_accounts(), c), Error);
  c.weights.clear();
  c.shares = {{"nosuch", "", 5, false}};
  EXPECT_THROW((void)what_if(queue(), two_accounts(), c), Error);
}

TEST(WhatIf, FlagsNoNormalPartAndAlgorithm) {
  Queue q = queue();
  q.settings.weight[Factor::kPartition] = 100;
  q.partitions = {{"p", 2, 1, 64, 4}, {"big", 4, 1, 64, 4}};  // p's normalized factor 0.5
  for (auto& j : q.jobs) {
    j.rows[0].factor[Factor::kPartition] = 50;
    j.rows[0].priority += 50;
  }
  WhatIfChange c;
  c.flags = kNoNormalPart;  // the partition factor is PriorityJobFactor itself: 2 x 100
  auto w = what_if(q, two_accounts(), c);
  EXPECT_EQ(move_of(w, 1).priority_after, 10400u);
  EXPECT_EQ(w.after.settings.flags, static_cast<uint32_t>(kNoNormalPart));
  EXPECT_TRUE(w.associations.empty());
  c.flags = kNoFairTree;  // classic fair-share: every factor changes
  w = what_if(q, two_accounts(), c);
  EXPECT_FALSE(w.associations.empty());
  EXPECT_NE(move_of(w, 1).priority_after, move_of(w, 1).priority_before);
  c.flags = kAccrueAlways;  // not computable from a snapshot
  EXPECT_THROW((void)what_if(q, two_accounts(), c), Error);
}

TEST(WhatIf, IncrOnlyKeepsTheHigherPriority) {
  Queue q = queue();
  q.settings.flags = kIncrOnly;
  WhatIfChange c;
  c.weights = {{"fairshare", 0}};
  const auto w = what_if(q, two_accounts(), c);
  EXPECT_EQ(w.partitions[0].moved, 0u);
  EXPECT_EQ(move_of(w, 1).priority_after, 10200u);
  c.weights = {{"fairshare", 20000}};  // up: followed
  EXPECT_EQ(move_of(what_if(q, two_accounts(), c), 1).priority_after, 20200u);
}

TEST(WhatIf, MaxAgeZeroGivesEveryAccruingJobTheWholeAgeWeight) {
  WhatIfChange c;
  c.max_age = 0;
  const auto w = what_if(queue(), two_accounts(), c);
  EXPECT_EQ(move_of(w, 1).priority_after, 11100u);  // 1000 + 10000 + 100
}

TEST(WhatIf, PartitionWeightUsesTheNormalizedFactorExactly) {
  // 1/3 x 3000 is 1000 for Slurm; 100/3 / 100 x 3000 would truncate to 999.
  Queue q = queue();
  q.settings.weight[Factor::kPartition] = 100;
  q.settings.weight[Factor::kFairshare] = 0;
  q.settings.weight[Factor::kAge] = 0;
  q.settings.weight[Factor::kJobSize] = 0;
  q.partitions = {{"p", 1, 1, 64, 4}, {"big", 3, 1, 64, 4}};
  for (auto& j : q.jobs) {
    j.rows[0] = test::factor_row("p", 33, 0, 0);
    j.rows[0].factor[Factor::kPartition] = 100.0 / 3;
  }
  WhatIfChange c;
  c.weights = {{"partition", 3000}};
  EXPECT_EQ(move_of(what_if(q, two_accounts(), c), 1).priority_after, 1000u);
}

TEST(WhatIf, AJobWithTwoRowsInOnePartitionKeepsBoth) {
  // From Slurm 24.11 a job with two QOS has two rows in one partition.
  Queue q = queue();
  q.jobs[1].rows.push_back(row("p", 500, 5000, 100));
  const auto w = what_if(q, two_accounts(), WhatIfChange{});
  EXPECT_EQ(w.partitions[0].jobs, 4u);
  EXPECT_EQ(w.partitions[0].moved, 0u);
}

TEST(WhatIf, NamesTheWeightsItChangesAsSprioNamesTheirFactors) {
  EXPECT_EQ(weighted_factor_names(), "age, assoc, fairshare, jobsize, partition, qos");
}

TEST(WhatIf, ARefusedReweighNamesTheFactorAsAModifier) {
  Queue q = queue();
  q.settings.weight[Factor::kJobSize] = 0;
  WhatIfChange c;
  c.weights = {{"jobsize", 100}};
  try {
    what_if(q, two_accounts(), c);
    FAIL() << "a job-size weight from 0 was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no job-size factors to weigh (PriorityWeightJobSize "
                                         "was 0"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fairway
