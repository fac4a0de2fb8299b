// A shadow policy file: slurm.conf's Priority* lines as the change from the live settings.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>

#include <string>

#include "conf_values.h"
#include "error.h"
#include "shadow_policy.h"
#include "slurm_values.h"

namespace fairway {
namespace {

PrioritySettings live() {
  PrioritySettings s;
  s.weight[Factor::kAge] = 1000;
  s.weight[Factor::kFairshare] = 10000;
  s.weight_tres = {{"CPU", 2}, {"GRES/gpu", 50}};
  return s;
}

std::string problem(const std::string& text) {
  try {
    parse_shadow_policy(text, live());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ShadowPolicy, ReadsSlurmConfLinesInAnyCaseWithComments) {
  const WhatIfChange c = parse_shadow_policy(
      "# try a stronger fair-share\n"
      "PriorityWeightFairshare=20000   priorityweightage=500\n"
      "\n"
      "PriorityMaxAge=7-0  # a week\n"
      "PriorityFlags=NO_FAIR_TREE,ACCRUE_ALWAYS\n",
      live());
  ASSERT_EQ(c.weights.size(), 2u);
  EXPECT_EQ(c.weights[0], (std::pair<std::string, double>("fairshare", 20000)));
  EXPECT_EQ(c.weights[1], (std::pair<std::string, double>("age", 500)));
  ASSERT_TRUE(c.max_age);
  EXPECT_EQ(*c.max_age, 7u * 86400);
  ASSERT_TRUE(c.flags);
  EXPECT_EQ(*c.flags, uint32_t{kNoFairTree | kAccrueAlways});
  EXPECT_FALSE(c.algorithm);
}

TEST(ShadowPolicy, AnEmptyFileChangesNothing) {
  EXPECT_TRUE(parse_shadow_policy("", live()).empty());
  EXPECT_TRUE(parse_shadow_policy("# nothing yet\n\n", live()).empty());
}

TEST(ShadowPolicy, TresWeightsReplaceTheLiveListAsSlurmConfDoes) {
  const WhatIfChange c = parse_shadow_policy("PriorityWeightTRES=cpu=4,Mem=0.5\n", live());
  ASSERT_EQ(c.weights.size(), 3u);
  EXPECT_EQ(c.weights[0], (std::pair<std::string, double>("cpu", 4)));
  EXPECT_EQ(c.weights[1], (std::pair<std::string, double>("Mem", 0.5)));
  EXPECT_EQ(c.weights[2], (std::pair<std::string, double>("GRES/gpu", 0)));  // not named: 0
}

TEST(ShadowPolicy, EachProblemNamesTheLine) {
  EXPECT_EQ(problem("PriorityWeightAge=1\nPriorityWeightQOS=-3\n"),
            "line 2: 'PriorityWeightQOS'='-3' is not a whole number from 0 to 4294967295");
  EXPECT_EQ(problem("PriorityWeightAge=1\npriorityweightage=2\n"),
            "line 2: 'priorityweightage' is given twice");
  EXPECT_EQ(problem("PriorityMaxAge=soon\n"),
            "line 1: PriorityMaxAge='soon' is not a time as slurm.conf takes it (minutes, or "
            "[DAYS-]HOURS:MINUTES[:SECONDS])");
  EXPECT_EQ(problem("PriorityFlags=SMALL_RELATIVE_TO_TIME,FAST\n"),
            "line 1: PriorityFlags: unknown flag 'FAST'");
  EXPECT_EQ(problem("PriorityWeightTRES=CPU\n"),
            "line 1: PriorityWeightTRES: 'CPU' is not TRES=WEIGHT (a TRES name such as CPU or "
            "GRES/gpu, a number)");
  EXPECT_EQ(problem("weights are nice\n"), "line 1: 'weights' is not KEY=VALUE");
  EXPECT_NE(problem("PriorityDecayHalfLife=7-0\n")
                .find("line 1: 'PriorityDecayHalfLife' is not a setting a shadow policy weighs"),
            std::string::npos);
  EXPECT_EQ(problem(std::string(kMaxShadowPolicyBytes + 1, '#')),
            "the shadow policy is larger than 64 KiB; it holds a few slurm.conf lines");
}

TEST(ConfValues, MaxAgeAndFlagsAsSlurmConfTakesThem) {
  EXPECT_EQ(parse_max_age("90"), 5400u);
  EXPECT_EQ(parse_max_age("1-12"), 86400u + 12 * 3600);
  EXPECT_EQ(parse_max_age("0:30"), 60u);  // rounded up to a whole minute
  EXPECT_FALSE(parse_max_age("1-2:3:4:5"));
  std::string unknown;
  EXPECT_EQ(parse_priority_flags("none", unknown), 0u);
  EXPECT_EQ(parse_priority_flags("fair_tree", unknown), 0u);
  EXPECT_FALSE(parse_priority_flags("MAX_TRES,,", unknown));
  EXPECT_EQ(unknown, "");
}

}  // namespace
}  // namespace fairway
