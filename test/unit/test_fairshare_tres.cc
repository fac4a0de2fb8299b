// Per-resource fair-share (fairway_fairshare_tres): which TRES judges a job, the option's
// parsing, and a GPU tree's factors against the billing tree's, hand-computed.
#include "fairshare_tres.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fairway.h"
#include "plugin_options.h"

namespace fairway {
namespace {

int judged_by(std::vector<uint64_t> asked, std::vector<uint64_t> available, uint64_t cpus,
              uint64_t part_cpus) {
  return job_fairshare_tres(asked, available, cpus, part_cpus);
}

TEST(FairShareTres, AGpuJobIsOneWhoseGpuShareIsAtLeastItsCpuShare) {
  // A partition of 4 GPUs and 64 CPUs.
  EXPECT_EQ(judged_by({1}, {4}, 16, 64), 0);   // 1/4 = 16/64: the tie goes to the GPU
  EXPECT_EQ(judged_by({1}, {4}, 17, 64), -1);  // 17/64 > 1/4: a CPU job, judged by billing
  EXPECT_EQ(judged_by({4}, {4}, 64, 64), 0);   // the whole partition
  EXPECT_EQ(judged_by({0}, {4}, 1, 64), -1);   // asks for no GPU
  EXPECT_EQ(judged_by({1}, {0}, 1, 64), -1);   // the partition has none: not compared
  EXPECT_EQ(judged_by({1}, {4}, 1, 0), 0);     // CPUs not counted: any share wins
}

TEST(FairShareTres, TheLargestListedShareWinsAndTheFirstListedATie) {
  // gres/gpu (8 in the partition) then license/matlab (10), 128 CPUs.
  EXPECT_EQ(judged_by({1, 5}, {8, 10}, 1, 128), 1);  // half the licences, an eighth of the GPUs
  EXPECT_EQ(judged_by({4, 5}, {8, 10}, 1, 128), 0);  // a tie: the first listed
  EXPECT_EQ(judged_by({0, 1}, {8, 10}, 12, 128), 1);  // 1/10 >= 12/128
  EXPECT_EQ(judged_by({0, 1}, {8, 10}, 13, 128), -1);
}

TEST(FairShareTres, SharesCompareExactlyWithoutRounding) {
  // 1/3 against 6148914691236517205/18446744073709551615 (= 1/3 exactly) and one more.
  const uint64_t big = 18446744073709551615ull;
  EXPECT_EQ(judged_by({1}, {3}, big / 3, big), 0);
  EXPECT_EQ(judged_by({1}, {3}, big / 3 + 1, big), -1);
}

TEST(FairShareTres, NamesThatCannotBeListedSayWhy) {
  EXPECT_FALSE(fairshare_tres_name_problem("gres/gpu"));
  EXPECT_FALSE(fairshare_tres_name_problem("license/matlab"));
  EXPECT_FALSE(fairshare_tres_name_problem("mem"));
  EXPECT_NE(fairshare_tres_name_problem("billing")->find("billing, which"), std::string::npos);
  EXPECT_NE(fairshare_tres_name_problem("CPU")->find("cpu, against which"), std::string::npos);
  EXPECT_TRUE(fairshare_tres_name_problem(""));
  EXPECT_TRUE(fairshare_tres_name_problem("gres/gpu=2"));
  EXPECT_TRUE(fairshare_tres_name_problem(std::string(64, 'g')));
}

TEST(FairShareTres, OptionListsContinueAfterCommasAndBadItemsAreNamed) {
  std::vector<std::string> problems;
  PluginOptions o = parse_priority_parameters(
      "fairway_fairshare_tres=gres/gpu,license/matlab,fairway_usage=allocated", problems);
  EXPECT_EQ(o.fairshare_tres, (std::vector<std::string>{"gres/gpu", "license/matlab"}));
  EXPECT_EQ(o.usage_basis, UsageBasis::kAllocated);
  EXPECT_TRUE(problems.empty());
  // Off by default.
  EXPECT_TRUE(parse_priority_parameters("fairway_usage=allocated", problems).fairshare_tres.empty());
  // A bare item not after the list is no option; billing, a duplicate and a ninth are refused.
  o = parse_priority_parameters(
      "gres/gpu,fairway_fairshare_tres=gres/gpu,billing,GRES/GPU,a,b,c,d,e,f,g,h", problems);
  EXPECT_EQ(o.fairshare_tres,
            (std::vector<std::string>{"gres/gpu", "a", "b", "c", "d", "e", "f", "g"}));
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_NE(problems[0].find("'gres/gpu' is not a Fairway option"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("fairway_fairshare_tres: 'billing' is billing"), std::string::npos)
      << problems[1];
  EXPECT_NE(problems[2].find("lists 'GRES/GPU' twice"), std::string::npos) << problems[2];
  EXPECT_NE(problems[3].find("more than 8 TRES; 'h' ignored"), std::string::npos) << problems[3];
  // Given twice: the last list.
  problems.clear();
  o = parse_priority_parameters("fairway_fairshare_tres=a,fairway_fairshare_tres=b", problems);
  EXPECT_EQ(o.fairshare_tres, (std::vector<std::string>{"b"}));
  EXPECT_EQ(problems.size(), 1u);
}

TEST(FairShareTres, CApiCopiesTheOptionsAndChoosesTheTres) {
  fairway_options_t o{};
  ASSERT_EQ(fairway_options_parse("fairway_fairshare_tres=gres/gpu,license/matlab", &o, nullptr,
                                  nullptr),
            FAIRWAY_OK);
  ASSERT_EQ(o.fairshare_tres_count, 2u);
  EXPECT_STREQ(o.fairshare_tres[0], "gres/gpu");
  EXPECT_STREQ(o.fairshare_tres[1], "license/matlab");
  const uint64_t asked[] = {1, 0}, available[] = {4, 10};
  EXPECT_EQ(fairway_job_fairshare_tres(asked, available, 2, 16, 64), 0);
  EXPECT_EQ(fairway_job_fairshare_tres(asked, available, 2, 32, 64), -1);
  EXPECT_EQ(fairway_job_fairshare_tres(nullptr, available, 2, 16, 64), -1);
}

// One tree, two usages: root -> A (1 share) -> uA, root -> B (1 share) -> uB.  A used most of
// the billing (CPUs), B most of the GPUs; a GPU job of uA ranks first on the GPU tree, a CPU job
// of uB on the billing tree.
TEST(FairShareTres, ACopiedTreeWithGpuUsageRanksTheOtherWay) {
  const fairway_assoc_t a[] = {{1, 0, "root", nullptr, 1, 0, 1000},
                               {2, 1, "A", nullptr, 1, 0, 900},
                               {3, 2, "A", "uA", 1, 0, 900},
                               {4, 1, "B", nullptr, 1, 0, 100},
                               {5, 4, "B", "uB", 1, 0, 100}};
  fairway_fair_share_t *billing = nullptr, *gpu = nullptr;
  ASSERT_EQ(fairway_fair_share_new(a, 5, &billing), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_copy(billing, &gpu), FAIRWAY_OK);
  const long double gpu_usage[] = {80, 8, 8, 72, 72};
  for (size_t i = 0; i < 5; i++)
    ASSERT_EQ(fairway_fair_share_set_usage(gpu, i, gpu_usage[i]), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_compute(billing, FAIRWAY_ALGO_FAIR_TREE, 1), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_compute(gpu, FAIRWAY_ALGO_FAIR_TREE, 1), FAIRWAY_OK);
  fairway_assoc_result_t r{};
  // Fair Tree: two users, rank 1 of 2 gets 1, rank 2 gets 1/2.
  ASSERT_EQ(fairway_fair_share_result(billing, 2, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 0.5);  // uA used 90% of the billing
  ASSERT_EQ(fairway_fair_share_result(gpu, 2, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 1.0);  // and 10% of the GPUs
  ASSERT_EQ(fairway_fair_share_result(gpu, 4, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 0.5);
  // The copy is its own: the billing tree kept its usage.
  ASSERT_EQ(fairway_fair_share_result(billing, 4, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 1.0);
  // Classic on the copy gives what a tree built with the GPU usage gives, and not billing's.
  fairway_assoc_t g[5];
  for (size_t i = 0; i < 5; i++) g[i] = a[i], g[i].usage_raw = gpu_usage[i];
  fairway_fair_share_t* fresh = nullptr;
  ASSERT_EQ(fairway_fair_share_new(g, 5, &fresh), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_compute(gpu, FAIRWAY_ALGO_CLASSIC, 1), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_compute(fresh, FAIRWAY_ALGO_CLASSIC, 1), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_compute(billing, FAIRWAY_ALGO_CLASSIC, 1), FAIRWAY_OK);
  fairway_assoc_result_t f{}, b{};
  for (size_t i = 1; i < 5; i++) {
    ASSERT_EQ(fairway_fair_share_result(gpu, i, &r), FAIRWAY_OK);
    ASSERT_EQ(fairway_fair_share_result(fresh, i, &f), FAIRWAY_OK);
    ASSERT_EQ(fairway_fair_share_result(billing, i, &b), FAIRWAY_OK);
    EXPECT_EQ(r.fs_factor, f.fs_factor) << i;
    EXPECT_EQ(r.usage_efctv, f.usage_efctv) << i;
    EXPECT_NE(r.fs_factor, b.fs_factor) << i;
  }
  fairway_fair_share_destroy(&fresh);
  fairway_fair_share_t* none = billing;
  EXPECT_EQ(fairway_fair_share_copy(nullptr, &none), FAIRWAY_EINVAL);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(fairway_fair_share_copy(billing, nullptr), FAIRWAY_EINVAL);
  fairway_fair_share_destroy(&billing);
  fairway_fair_share_destroy(&gpu);
}

}  // namespace
}  // namespace fairway
