// Settling fairway_usage and fairway_fairshare_tres: which survive the fair-share algorithm and
// the TRES slurmctld tracks, and which lines a start and each reconfigure log.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fair_share.h"
#include "plugin_options.h"

namespace fairway {
namespace {

const std::vector<std::string> kTracked = {"cpu",     "mem",  "energy", "node",    "billing",
                                           "fs/disk", "vmem", "pages",  "gres/gpu"};

std::vector<std::string> texts(const std::vector<OptionsLine>& lines, bool errors) {
  std::vector<std::string> out;
  for (const OptionsLine& l : lines)
    if (l.error == errors) out.push_back(l.text);
  return out;
}

TEST(SettleOptions, TheDefaultsLogNothing) {
  PluginOptions o;
  OptionsSaid said;
  std::vector<int> pos;
  EXPECT_TRUE(settle_options(o, Algorithm::kFairTree, kTracked, said, pos).empty());
  EXPECT_TRUE(pos.empty());
}

TEST(SettleOptions, AHeldBasisIsLoggedOnceAndItsChangeAgain) {
  PluginOptions o;
  o.usage_basis = UsageBasis::kAllocated;
  OptionsSaid said;
  std::vector<int> pos;
  auto lines = settle_options(o, Algorithm::kFairTree, kTracked, said, pos);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(lines[0].error);
  EXPECT_EQ(lines[0].text,
            "fair-share compares the billable TRES running jobs hold now with shares "
            "(fairway_usage=allocated); RawUsage stays historical usage");
  EXPECT_EQ(said.usage_basis, UsageBasis::kAllocated);
  // The same again: nothing; back to historical: one line.
  EXPECT_TRUE(settle_options(o, Algorithm::kClassic, kTracked, said, pos).empty());
  PluginOptions back;
  lines = settle_options(back, Algorithm::kFairTree, kTracked, said, pos);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text,
            "fair-share compares historical usage with shares, as multifactor's does");
}

TEST(SettleOptions, DepthObliviousRefusesAHeldBasisAndTheRerankInterval) {
  PluginOptions o;
  o.usage_basis = UsageBasis::kCommitted;
  o.rerank_interval = 60;
  OptionsSaid said;
  std::vector<int> pos;
  const auto lines = settle_options(o, Algorithm::kDepthOblivious, kTracked, said, pos);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].error);
  EXPECT_EQ(lines[0].text,
            "PriorityParameters: fairway_usage=committed applies to Fair Tree and classic "
            "fair-share, not depth-oblivious; ignored (fair-share compares historical usage)");
  EXPECT_EQ(o.usage_basis, UsageBasis::kHistorical);
  EXPECT_EQ(o.rerank_interval, 0u);
  EXPECT_EQ(said.usage_basis, UsageBasis::kHistorical);
}

TEST(SettleOptions, ListedTresAreFoundWithoutRegardToCaseAndTheOthersDropped) {
  PluginOptions o;
  o.fairshare_tres = {"GRES/GPU", "license/matlab", "mem"};
  OptionsSaid said;
  std::vector<int> pos;
  const auto lines = settle_options(o, Algorithm::kFairTree, kTracked, said, pos);
  EXPECT_EQ(texts(lines, true),
            std::vector<std::string>{"PriorityParameters: fairway_fairshare_tres: "
                                     "license/matlab is not a TRES slurmctld tracks "
                                     "(AccountingStorageTRES), ignored"});
  EXPECT_EQ(texts(lines, false),
            std::vector<std::string>{"a job that mostly asks for one of GRES/GPU,mem gets the "
                                     "fair-share factor of its association's usage of it, every "
                                     "other job billing's (fairway_fairshare_tres)"});
  EXPECT_EQ(o.fairshare_tres, (std::vector<std::string>{"GRES/GPU", "mem"}));
  EXPECT_EQ(pos, (std::vector<int>{8, 1}));
  EXPECT_EQ(said.fairshare_tres, "GRES/GPU,mem");
  // Unchanged at a reconfigure: nothing more.
  PluginOptions again;
  again.fairshare_tres = {"GRES/GPU", "mem"};
  EXPECT_TRUE(settle_options(again, Algorithm::kFairTree, kTracked, said, pos).empty());
}

TEST(SettleOptions, DepthObliviousRefusesTheListAndSaysBillingOnceItWasInForce) {
  PluginOptions o;
  o.fairshare_tres = {"gres/gpu"};
  OptionsSaid said;
  said.fairshare_tres = "gres/gpu";
  std::vector<int> pos{3};
  const auto lines = settle_options(o, Algorithm::kDepthOblivious, kTracked, said, pos);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].error);
  EXPECT_EQ(lines[0].text,
            "PriorityParameters: fairway_fairshare_tres applies to Fair Tree and classic "
            "fair-share, not depth-oblivious; ignored (every job's fair-share compares billing)");
  EXPECT_FALSE(lines[1].error);
  EXPECT_EQ(lines[1].text, "every job's fair-share factor compares billing, as multifactor's does");
  EXPECT_TRUE(o.fairshare_tres.empty());
  EXPECT_TRUE(pos.empty());
  EXPECT_EQ(said.fairshare_tres, "");
}

TEST(SettleOptions, NothingTrackedRefusesEveryListedTres) {
  PluginOptions o;
  o.fairshare_tres = {"gres/gpu"};
  OptionsSaid said;
  std::vector<int> pos;
  const auto lines = settle_options(o, Algorithm::kClassic, {}, said, pos);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].error);
  EXPECT_TRUE(o.fairshare_tres.empty());
}

}  // namespace
}  // namespace fairway
