// Held usage (fairway_usage=allocated|committed): what running jobs hold, summed up the tree,
// and fair-share computed from it, on a constructed tree with hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "fair_share.h"
#include "held_usage.h"
#include "plugin_options.h"

namespace fairway {
namespace {

// root -> A (1 share) -> uA; root -> B (2 shares) -> uB1, uB2.  Historical usage makes A the
// light user (10 of 1000).
AssocTree small_tree() {
  std::vector<AssocRecord> r = {
      {1, 0, "root", "", false, 1, 1000}, {2, 1, "A", "", false, 1, 10},
      {3, 2, "A", "uA", false, 1, 10},    {4, 1, "B", "", false, 2, 990},
      {5, 4, "B", "uB1", false, 1, 990},  {6, 4, "B", "uB2", false, 1, 0},
  };
  return AssocTree::build(std::move(r));
}

TEST(HeldUsage, NamesParseBothWays) {
  for (UsageBasis b : {UsageBasis::kHistorical, UsageBasis::kAllocated, UsageBasis::kCommitted})
    EXPECT_EQ(parse_usage_basis(usage_basis_name(b)), b);
  EXPECT_FALSE(parse_usage_basis("Allocated"));
  EXPECT_FALSE(parse_usage_basis(""));
}

TEST(HeldUsage, OneJobHoldsItsRateOrRateTimesTimeLeft) {
  const RunningJob j{3, 8.0, 1800.0};
  EXPECT_EQ(held_by_job(UsageBasis::kHistorical, j), 0.0L);
  EXPECT_EQ(held_by_job(UsageBasis::kAllocated, j), 8.0L);
  EXPECT_EQ(held_by_job(UsageBasis::kCommitted, j), 14400.0L);
  // Past its end: committed holds nothing, allocated still its rate.
  EXPECT_EQ(held_by_job(UsageBasis::kCommitted, {3, 8.0, 0.0}), 0.0L);
  EXPECT_EQ(held_by_job(UsageBasis::kAllocated, {3, 8.0, 0.0}), 8.0L);
  // Nonsense holds nothing rather than poisoning the tree.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(held_by_job(UsageBasis::kAllocated, {3, nan, 1.0}), 0.0L);
  EXPECT_EQ(held_by_job(UsageBasis::kAllocated, {3, -2.0, 1.0}), 0.0L);
  EXPECT_EQ(held_by_job(UsageBasis::kCommitted, {3, 1.0, inf}), 0.0L);
}

TEST(HeldUsage, DirectSumsPerAssociationAndSkipsUnknownOnes) {
  const AssocTree t = small_tree();
  const std::vector<RunningJob> jobs = {
      {3, 4, 100}, {5, 2, 600}, {5, 1, 600}, {6, 3, 10}, {99, 7, 7}};
  size_t unknown = 0;
  const auto d = held_direct(t, UsageBasis::kAllocated, jobs, &unknown);
  EXPECT_EQ(unknown, 1u);
  EXPECT_EQ(d, (std::vector<long double>{0, 0, 4, 0, 3, 3}));
  const auto c = held_direct(t, UsageBasis::kCommitted, jobs);
  EXPECT_EQ(c, (std::vector<long double>{0, 0, 400, 0, 1800, 30}));
}

TEST(HeldUsage, TotalsGoUpTheTreeAndRankFairTreeByWhatIsHeld) {
  AssocTree t = small_tree();
  // uA holds 4 CPUs, uB1 3, uB2 3: A holds 4 of 10 with 1/3 of the shares, B 6 of 10 with 2/3.
  const std::vector<RunningJob> jobs = {{3, 4, 100}, {5, 3, 600}, {6, 3, 10}};
  hold_usage(t, held_direct(t, UsageBasis::kAllocated, jobs));
  EXPECT_EQ(t.usage_raw(0), 10.0L);
  EXPECT_EQ(t.usage_raw(1), 4.0L);
  EXPECT_EQ(t.usage_raw(3), 6.0L);
  FairShareResult r;
  compute_fair_share(t, Algorithm::kFairTree, 1, r);
  // Level FS: A (1/3)/(4/10) = 0.8333, B (2/3)/(6/10) = 1.1111: B's users rank first.
  EXPECT_NEAR(static_cast<double>(r.level_fs[1]), (1.0 / 3) / 0.4, 1e-15);
  EXPECT_NEAR(static_cast<double>(r.level_fs[3]), (2.0 / 3) / 0.6, 1e-15);
  EXPECT_DOUBLE_EQ(r.fs_factor[4], 1.0);      // uB1, tied with uB2 in B
  EXPECT_DOUBLE_EQ(r.fs_factor[5], 1.0);      // uB2
  EXPECT_DOUBLE_EQ(r.fs_factor[2], 1.0 / 3);  // uA last
  // By historical usage (10 against 990) A would rank first.
  const AssocTree h = small_tree();
  compute_fair_share(h, Algorithm::kFairTree, 1, r);
  EXPECT_DOUBLE_EQ(r.fs_factor[2], 1.0);
}

TEST(HeldUsage, NothingHeldLeavesEveryUsageZero) {
  AssocTree t = small_tree();
  hold_usage(t, held_direct(t, UsageBasis::kCommitted, {}));
  for (uint32_t i = 0; i < t.size(); ++i) EXPECT_EQ(t.usage_raw(i), 0.0L) << i;
}

TEST(HeldUsage, WrongSizeOrBadValueIsRefused) {
  AssocTree t = small_tree();
  const std::vector<long double> short_one(3, 0.0L);
  EXPECT_THROW(hold_usage(t, short_one), std::invalid_argument);
  std::vector<long double> bad(t.size(), 0.0L);
  bad[2] = -1;
  EXPECT_THROW(hold_usage(t, bad), TreeError);
}

TEST(HeldUsage, OptionParsesAndBadValuesAreNamed) {
  std::vector<std::string> problems;
  EXPECT_EQ(parse_priority_parameters("fairway_usage=committed", problems).usage_basis,
            UsageBasis::kCommitted);
  EXPECT_EQ(parse_priority_parameters("", problems).usage_basis, UsageBasis::kHistorical);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(parse_priority_parameters("fairway_usage=now", problems).usage_basis,
            UsageBasis::kHistorical);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("fairway_usage='now' is not historical, allocated or committed"),
            std::string::npos)
      << problems[0];
  problems.clear();
  EXPECT_EQ(
      parse_priority_parameters("fairway_usage=allocated,fairway_rerank_interval=10", problems)
          .rerank_interval,
      10u);
  EXPECT_TRUE(problems.empty());
  // Historical usage changes only at periods: an interval without a held basis is refused.
  EXPECT_EQ(parse_priority_parameters("fairway_rerank_interval=10", problems).rerank_interval, 0u);
  EXPECT_EQ(
      parse_priority_parameters("fairway_usage=committed,fairway_rerank_interval=3601", problems)
          .rerank_interval,
      0u);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("fairway_rerank_interval needs fairway_usage=allocated or committed"),
            std::string::npos);
  EXPECT_NE(problems[1].find("fairway_rerank_interval='3601' is not a whole number of seconds"),
            std::string::npos)
      << problems[1];
}

}  // namespace
}  // namespace fairway
