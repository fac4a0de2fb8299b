// fairway lint's checks of the pending queue (queue_lint.h): fair-share factors closer than
// one priority point, age at PriorityMaxAge for most of the queue, and a queue with neither.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>

#include <vector>

#include "queue_fixtures.h"
#include "queue_lint.h"

namespace fairway {
namespace {

using test::factor_row;
using test::pending_job;

// Weights 1000 (age, max age 600 s) and 10000 (fair-share); three jobs whose fair-share
// factors are 0.5, 0.4 and 0.3 and whose ages are below the maximum.
Queue clean_queue() {
  Queue q;
  q.settings.weight[Factor::kAge] = 1000;
  q.settings.weight[Factor::kFairshare] = 10000;
  q.settings.max_age = 600;
  q.jobs.push_back(pending_job(1, 1, 100, {factor_row("debug", 5100, 100, 5000)}));
  q.jobs.push_back(pending_job(2, 2, 200, {factor_row("debug", 4500, 500, 4000)}));
  q.jobs.push_back(pending_job(3, 3, 300, {factor_row("debug", 3900, 900, 3000)}));
  return q;
}

TEST(QueueLint, CleanQueueHasNoFinding) { EXPECT_TRUE(lint_queue(clean_queue()).empty()); }

TEST(QueueLint, FairShareFactorsCloserThanOnePoint) {
  Queue q = clean_queue();
  // 0.50003 and 0.5: 0.3 points apart under weight 10000.
  q.jobs.push_back(pending_job(4, 4, 400, {factor_row("debug", 5100, 100, 5000.3)}));
  const auto f = lint_queue(q);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].setting, "PriorityWeightFairshare=10000");
  EXPECT_NE(f[0].evidence.find("3e-05 apart"), std::string::npos) << f[0].evidence;
  EXPECT_NE(f[0].change.find("33333.3"), std::string::npos) << f[0].change;
}

TEST(QueueLint, EqualFairShareFactorsAreNoGap) {
  Queue q = clean_queue();
  q.jobs.push_back(pending_job(4, 4, 400, {factor_row("debug", 5100, 100, 5000)}));
  EXPECT_TRUE(lint_queue(q).empty());
}

TEST(QueueLint, AgeFullForMostOfTheQueue) {
  Queue q = clean_queue();
  q.jobs[0].rows[0].factor[Factor::kAge] = 1000;
  const auto one_of_three = lint_queue(q);
  EXPECT_TRUE(one_of_three.empty());  // 1 of 3 at the maximum: age still orders most
  q.jobs[1].rows[0].factor[Factor::kAge] = 1000;
  const auto f = lint_queue(q);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].setting, "PriorityMaxAge=600s");
  EXPECT_NE(f[0].evidence.find("2 of 3 pending rows"), std::string::npos) << f[0].evidence;
}

TEST(QueueLint, AdministratorRowsAreLeftOut) {
  Queue q = clean_queue();
  // A row set by an administrator, 0.3 points from job 1's fair-share part and at full age.
  FactorRow admin = factor_row("debug", 900000, 1000, 5000.3);
  admin.admin = true;
  q.jobs.push_back(pending_job(4, 4, 400, {admin}));
  q.jobs.push_back(pending_job(5, 5, 500, {admin}));
  EXPECT_TRUE(lint_queue(q).empty());
}

}  // namespace
}  // namespace fairway
