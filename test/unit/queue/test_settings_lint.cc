// fairway lint's checks: each problem it knows in a slurm.conf made to have it, and nothing in
// a slurm.conf like the live testbed's; slurm.conf's text as pairs (slurm_conf_text.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "error.h"
#include "lint_format.h"
#include "settings_lint.h"
#include "slurm_conf_text.h"

namespace fairway {
namespace {

// The priority part of scripts/testbed's slurm.conf: no finding.
const std::string kClean = R"(# priority
ClusterName=fairway
AccountingStorageTRES=gres/gpu
PriorityType=priority/fairway
PriorityDecayHalfLife=1-0
PriorityCalcPeriod=1
PriorityFavorSmall=NO
PriorityMaxAge=00:10:00
PriorityUsageResetPeriod=NONE
PriorityWeightFairshare=10000
PriorityWeightAge=1000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityWeightQOS=1000
PriorityWeightTRES=CPU=100,GRES/gpu=500
NodeName=n1 NodeHostname=localhost Port=31520 CPUs=16 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=n[1-2] Default=YES DefaultTime=10 MaxTime=INFINITE State=UP PriorityJobFactor=1
)";

std::vector<LintFinding> lint(const std::string& extra) { return lint_slurm_conf(kClean + extra); }

std::string lines(const std::vector<LintFinding>& f) {
  std::string s;
  for (const auto& x : f) s += format_lint_finding(x);
  return s;
}

std::string problem(const std::string& text) {
  try {
    lint_slurm_conf(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SettingsLint, TheTestbedsSettingsHaveNoFinding) { EXPECT_EQ(lines(lint("")), ""); }

TEST(SettingsLint, AFairShareWeightUnder1000CannotSeparateFactors0_001Apart) {
  const auto f = lint(
      "PriorityWeightFairshare=500\nPriorityWeightAge=100\n"
      "PriorityWeightJobSize=100\nPriorityWeightPartition=100\n"
      "PriorityWeightQOS=100\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_EQ(f[0].setting, "PriorityWeightFairshare=500");
  EXPECT_NE(f[0].evidence.find("differ by 0.5 priority points"), std::string::npos);
  EXPECT_NE(f[0].change.find("1000 or more"), std::string::npos);
}

TEST(SettingsLint, WeightsAddingUpAbove32BitsClampThePriorities) {
  const auto f = lint(
      "PriorityWeightFairshare=4000000000\nPriorityWeightQOS=400000000\n"
      "PriorityWeightAge=100000000\nPriorityWeightJobSize=100000000\n"
      "PriorityWeightPartition=100000000\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_EQ(f[0].setting, "PriorityWeight*");
  EXPECT_NE(f[0].evidence.find("4700000600"), std::string::npos) << f[0].evidence;
}

TEST(SettingsLint, AWeightAThousandTimesSmallerIsDrowned) {
  const auto f = lint("PriorityWeightFairshare=10000000\n");
  // age, job size, partition and QOS at 1000 are 1/10000 of it
  ASSERT_EQ(f.size(), 4u) << lines(f);
  EXPECT_EQ(f[0].setting, "PriorityWeightAge=1000");
  EXPECT_NE(f[0].evidence.find("PriorityWeightFairshare=10000000"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("Fairshare factors differ by less than 0.0001"), std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].change.find("at least 10000"), std::string::npos);
}

TEST(SettingsLint, AgeFullWithinOnePeriodAddsTheSameToEveryJob) {
  auto f = lint("PriorityMaxAge=0\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_EQ(f[0].setting, "PriorityMaxAge=0");
  EXPECT_NE(f[0].evidence.find("every job's age factor is 1"), std::string::npos);
  f = lint("PriorityCalcPeriod=15\n");  // MaxAge 10 minutes
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_EQ(f[0].setting, "PriorityMaxAge=00:10:00");
  EXPECT_NE(f[0].evidence.find("shorter than PriorityCalcPeriod=15"), std::string::npos);
  // without an age weight, nothing
  EXPECT_EQ(lines(lint("PriorityMaxAge=0\nPriorityWeightAge=0\n")), "");
}

TEST(SettingsLint, AHalfLifeShorterThanAPeriod) {
  const auto f = lint("PriorityDecayHalfLife=2\nPriorityCalcPeriod=5\nPriorityMaxAge=1-0\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_EQ(f[0].setting, "PriorityDecayHalfLife=2");
  EXPECT_NE(f[0].evidence.find("shorter than PriorityCalcPeriod=5"), std::string::npos);
  // 0 (no decay) is not a half-life
  EXPECT_EQ(lines(lint("PriorityDecayHalfLife=0\n")), "");
}

TEST(SettingsLint, ATresWeightOnAnUntrackedTresIsZeroForEveryJob) {
  const auto f = lint("PriorityWeightTRES=CPU=100,GRES/gpu:a100=500,license/matlab=0\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);  // a weight of 0 asks for nothing
  EXPECT_EQ(f[0].setting, "PriorityWeightTRES=CPU=100,GRES/gpu:a100=500,license/matlab=0");
  EXPECT_NE(f[0].evidence.find("GRES/gpu:a100 is not a tracked TRES"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("gres/gpu"), std::string::npos);
}

TEST(SettingsLint, FairshareTresOnAnUntrackedTresOrWithoutAFairShareWeightTies) {
  auto f = lint("PriorityParameters=fairway_fairshare_tres=gres/gpu,license/matlab\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_NE(f[0].evidence.find("names license/matlab, not a tracked TRES"), std::string::npos);
  f = lint("PriorityParameters=fairway_fairshare_tres=gres/gpu\nPriorityWeightFairshare=0\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_NE(f[0].evidence.find("with PriorityWeightFairshare=0"), std::string::npos);
}

TEST(SettingsLint, APriorityParametersOptionThePluginRefuses) {
  const auto f = lint("PriorityParameters=fairway_usage=sometimes\n");
  ASSERT_EQ(f.size(), 1u) << lines(f);
  EXPECT_NE(f[0].evidence.find("fairway_usage"), std::string::npos) << f[0].evidence;
}

TEST(SettingsLint, TiersAndPartitionFactorsThatOrderPartitionsOppositely) {
  const std::string parts =
      "PartitionName=DEFAULT Nodes=n[1-2]\n"
      "PartitionName=urgent PriorityTier=10 PriorityJobFactor=1\n"
      "PartitionName=bulk PriorityTier=1 PriorityJobFactor=100\n"
      "PartitionName=elsewhere Nodes=m[1-4] PriorityTier=1 PriorityJobFactor=1000\n";
  auto f = lint(parts);
  ASSERT_EQ(f.size(), 1u) << lines(f);  // not debug (the same factor), not elsewhere
  EXPECT_EQ(f[0].setting, "PartitionName=bulk PriorityJobFactor=100");
  EXPECT_NE(f[0].evidence.find("urgent has the higher PriorityTier (10 against 1)"),
            std::string::npos)
      << f[0].evidence;
  // without a partition weight the factor orders nothing
  EXPECT_EQ(lines(lint(parts + "PriorityWeightPartition=0\n")), "");
}

TEST(SettingsLint, AMalformedValueIsAnErrorNamingItsLine) {
  const std::string at =
      "line " + std::to_string(std::count(kClean.begin(), kClean.end(), '\n') + 1);
  EXPECT_NE(problem(kClean + "PriorityWeightAge=lots\n").find(at + ": 'PriorityWeightAge=lots'"),
            std::string::npos)
      << problem(kClean + "PriorityWeightAge=lots\n");
  EXPECT_NE(problem("PriorityMaxAge=soon\n").find("not a time"), std::string::npos);
  EXPECT_NE(problem("PriorityWeightTRES=CPU\n").find("not TRES=WEIGHT"), std::string::npos);
  EXPECT_NE(problem("PriorityWeightAge\n").find("line 1: 'PriorityWeightAge' is not KEY=VALUE"),
            std::string::npos)
      << problem("PriorityWeightAge\n");
  EXPECT_NE(problem("Feature=\"a b\n").find("quote is not closed"), std::string::npos);
}

TEST(SlurmConfText, PairsCommentsQuotesContinuationsAndIncludes) {
  const auto l = slurm_conf_lines(
      "# a comment\n"
      "ClusterName=c   # after a value\n"
      "NodeName=n1 Features=\"a b\" \\\n"
      "  CPUs=4\n"
      "\n"
      "include /etc/slurm/other.conf\n");
  ASSERT_EQ(l.size(), 3u);
  ASSERT_EQ(l[0].size(), 1u);
  EXPECT_EQ(l[0][0].key, "clustername");
  EXPECT_EQ(l[0][0].value, "c");
  ASSERT_EQ(l[1].size(), 3u);
  EXPECT_EQ(l[1][1].name, "Features");
  EXPECT_EQ(l[1][1].value, "a b");
  EXPECT_EQ(l[1][2].key, "cpus");
  EXPECT_EQ(l[1][2].line, 3u);
  ASSERT_EQ(l[2].size(), 1u);
  EXPECT_EQ(l[2][0].key, "include");
  EXPECT_EQ(l[2][0].value, "/etc/slurm/other.conf");
}

}  // namespace
}  // namespace fairway
