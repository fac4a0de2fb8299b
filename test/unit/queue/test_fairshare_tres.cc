// Per-resource fair-share (fairway_fairshare_tres): which TRES judges a job, the option's
// parsing, a GPU tree's factors against the billing tree's, hand-computed, and a snapshot that
// keeps the TRES usage for `fairway shares --tres`, explain and whatif.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "compare.h"
#include "compare_format.h"
#include "explain_format.h"
#include "fair_share.h"
#include "fairshare_tres.h"
#include "fairway.h"
#include "fairway_publish.h"
#include "plugin_options.h"
#include "queue_fixtures.h"
#include "snapshot.h"
#include "whatif.h"

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
  EXPECT_EQ(judged_by({1, 5}, {8, 10}, 1, 128), 1);   // half the licences, an eighth of the GPUs
  EXPECT_EQ(judged_by({4, 5}, {8, 10}, 1, 128), 0);   // a tie: the first listed
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
  EXPECT_TRUE(
      parse_priority_parameters("fairway_usage=allocated", problems).fairshare_tres.empty());
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
  ASSERT_EQ(
      fairway_options_parse("fairway_fairshare_tres=gres/gpu,license/matlab", &o, nullptr, nullptr),
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
  const std::vector<fairway::AssocRecord> a = {{1, 0, "root", "", false, 1, 1000},
                                               {2, 1, "A", "", false, 1, 900},
                                               {3, 2, "A", "uA", false, 1, 900},
                                               {4, 1, "B", "", false, 1, 100},
                                               {5, 4, "B", "uB", false, 1, 100}};
  const fairway::AssocTree billing = fairway::AssocTree::build(a);
  fairway::AssocTree gpu = billing;
  const long double gpu_usage[] = {80, 8, 8, 72, 72};
  for (uint32_t i = 0; i < 5; i++) gpu.set_usage(i, gpu_usage[i]);
  fairway::FairShareResult rb, rg;
  fairway::compute_fair_share(billing, fairway::Algorithm::kFairTree, 1, rb);
  fairway::compute_fair_share(gpu, fairway::Algorithm::kFairTree, 1, rg);
  // Fair Tree: two users, rank 1 of 2 gets 1, rank 2 gets 1/2.
  EXPECT_DOUBLE_EQ(rb.fs_factor[2], 0.5);  // uA used 90% of the billing
  EXPECT_DOUBLE_EQ(rg.fs_factor[2], 1.0);  // and 10% of the GPUs
  EXPECT_DOUBLE_EQ(rg.fs_factor[4], 0.5);
  // The copy is its own: the billing tree kept its usage.
  EXPECT_DOUBLE_EQ(rb.fs_factor[4], 1.0);
  // Classic on the copy gives what a tree built with the GPU usage gives, and not billing's.
  std::vector<fairway::AssocRecord> g = a;
  for (size_t i = 0; i < 5; i++) g[i].usage_raw = gpu_usage[i];
  const fairway::AssocTree fresh = fairway::AssocTree::build(g);
  fairway::FairShareResult rf;
  fairway::compute_fair_share(gpu, fairway::Algorithm::kClassic, 1, rg);
  fairway::compute_fair_share(fresh, fairway::Algorithm::kClassic, 1, rf);
  fairway::compute_fair_share(billing, fairway::Algorithm::kClassic, 1, rb);
  for (size_t i = 1; i < 5; i++) {
    EXPECT_EQ(rg.fs_factor[i], rf.fs_factor[i]) << i;
    EXPECT_EQ(rg.usage_efctv[i], rf.usage_efctv[i]) << i;
    EXPECT_NE(rg.fs_factor[i], rb.fs_factor[i]) << i;
  }
}

// root -> A (1 share) -> uA, root -> B (1 share) -> uB.  Billing: uA used 900, uB 100; GPUs:
// uA 8, uB 72.  Fair Tree: on billing uB ranks first (1) and uA second (1/2); on GPUs the other
// way.  Job 7 of uA asked mostly for GPUs, job 8 of uB for CPUs; weight 1000 each.
Snapshot gpu_and_cpu_jobs() {
  Snapshot s;
  s.associations = {{1, 0, "root", "", false, 1, 0},
                    {2, 1, "A", "", false, 1, 0},
                    {3, 2, "A", "uA", false, 1, 900},
                    {4, 1, "B", "", false, 1, 0},
                    {5, 4, "B", "uB", false, 1, 100}};
  s.fairshare_tres = {"gres/gpu"};
  s.tres_usage = {{0, 0, 8, 0, 72}};
  s.slurm_release = "25.11.7";
  Queue q;
  q.taken_at = 1000;
  q.settings.weight[Factor::kFairshare] = 1000;
  q.settings.decay_half_life = 3600;
  q.partitions = {{"gpu", 1, 1, 64, 1}};
  PendingJob j7 = test::pending_job(7, 3, 900, {test::factor_row("gpu", 1000, 0, 1000)});
  j7.user = "uA";
  j7.account = "A";
  j7.fairshare_tres = "gres/gpu";
  PendingJob j8 = test::pending_job(8, 5, 800, {test::factor_row("gpu", 1000, 0, 1000)});
  j8.user = "uB";
  j8.account = "B";
  q.jobs = {j7, j8};
  s.queue = q;
  return s;
}

std::string refused(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) return "no " + from + " in the text";
  text.replace(at, from.size(), to);
  try {
    parse_snapshot(text);
  } catch (const SnapshotError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(FairShareTres, ASnapshotKeepsTheTresUsageAndWhichJobsItJudged) {
  const Snapshot s = gpu_and_cpu_jobs();
  const std::string text = write_snapshot(s);
  EXPECT_NE(text.find("\"dampening_factor\": 1, \"fairshare_tres\": [\"gres/gpu\"],"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"usage\": 100.0, \"tres_usage\": {\"gres/gpu\": 72.0}}"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"fairshare_tres\": \"gres/gpu\",\n"), std::string::npos) << text;
  const Snapshot back = parse_snapshot(text);
  EXPECT_EQ(back.fairshare_tres, s.fairshare_tres);
  EXPECT_EQ(back.tres_usage, s.tres_usage);
  EXPECT_EQ(back.queue->job(7)->fairshare_tres, "gres/gpu");
  EXPECT_EQ(back.queue->job(8)->fairshare_tres, "");
  EXPECT_EQ(write_snapshot(back), text);

  // `fairway shares --tres`: the GPU usage summed up the tree, any case of the name.
  const AssocTree gpu = snapshot_tres_tree(back, "GRES/GPU");
  EXPECT_EQ(gpu.usage_raw(0), 80.0L);
  EXPECT_EQ(gpu.usage_raw(3), 72.0L);
  FairShareResult r;
  compute_fair_share(gpu, Algorithm::kFairTree, 1, r);
  EXPECT_DOUBLE_EQ(r.fs_factor[2], 1.0);  // uA
  EXPECT_DOUBLE_EQ(r.fs_factor[4], 0.5);  // uB
  EXPECT_THROW(snapshot_tres_tree(back, "gres/mps"), SnapshotError);
  try {
    snapshot_tres_tree(back, "gres/mps");
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "no fair-share of \"gres/mps\" usage in the snapshot (fairway_fairshare_tres "
                  "lists gres/gpu)"),
              std::string::npos)
        << e.what();
  }

  // Refused: usage without the list, the list without usage, a TRES the list lacks, a job
  // judged by a TRES the list lacks, names that cannot be listed.
  EXPECT_NE(refused(text, " \"fairshare_tres\": [\"gres/gpu\"],", "")
                .find("associations[0] (id 1): \"tres_usage\" without a top-level "
                      "\"fairshare_tres\""),
            std::string::npos);
  EXPECT_NE(refused(text, ", \"tres_usage\": {\"gres/gpu\": 72.0}", "")
                .find("associations[4] (id 5): no \"tres_usage\" (required with "
                      "\"fairshare_tres\")"),
            std::string::npos);
  EXPECT_NE(refused(text, "{\"gres/gpu\": 72.0}", "{\"gres/gpu\": 72.0, \"mem\": 1}")
                .find("associations[4] (id 5): \"tres_usage\": \"mem\" is not in "
                      "\"fairshare_tres\""),
            std::string::npos);
  EXPECT_NE(refused(text, "{\"gres/gpu\": 72.0}", "{}").find("no usage of \"gres/gpu\""),
            std::string::npos);
  EXPECT_NE(
      refused(text, "\"fairshare_tres\": \"gres/gpu\",\n", "\"fairshare_tres\": \"gres/mps\",\n")
          .find("jobs[0] (job 7): \"fairshare_tres\" \"gres/mps\" is not in the top "
                "level's \"fairshare_tres\""),
      std::string::npos);
  EXPECT_NE(refused(text, "[\"gres/gpu\"]", "[\"billing\"]")
                .find("\"fairshare_tres\"[0] \"billing\": billing"),
            std::string::npos);
  EXPECT_NE(refused(text, "[\"gres/gpu\"]", "[\"gres/gpu\", \"GRES/GPU\"]")
                .find("\"fairshare_tres\"[1] \"GRES/GPU\" is listed twice"),
            std::string::npos);
  EXPECT_NE(refused(text, "[\"gres/gpu\"]", "[]").find("\"fairshare_tres\" is empty"),
            std::string::npos);
}

TEST(FairShareTres, ExplainAndWhatIfTakeAGpuJobsFactorFromTheGpuTree) {
  const Snapshot s = gpu_and_cpu_jobs();
  const FairShareInput fs = snapshot_fair_share_input(s);
  ASSERT_EQ(fairshare_tres_index(fs, "Gres/Gpu"), 0);
  EXPECT_EQ(fairshare_tres_index(fs, "gres/mps"), -1);

  // Job 7 (uA, GPUs): the GPU tree's path, where A is first; job 8 (uB, CPUs): billing's.
  const Explanation e7 = explain_job(*s.queue, fs, 7);
  EXPECT_EQ(e7.fairshare_tres, "gres/gpu");
  ASSERT_EQ(e7.path.size(), 3u);
  EXPECT_EQ(e7.path[1].rank, 1u);
  EXPECT_DOUBLE_EQ(e7.path.back().fs_factor, 1.0);
  const Explanation e8 = explain_job(*s.queue, fs, 8);
  EXPECT_EQ(e8.fairshare_tres, "");
  EXPECT_DOUBLE_EQ(e8.path.back().fs_factor, 1.0);
  EXPECT_DOUBLE_EQ(fair_share_path(fs, 3).back().fs_factor, 0.5);  // uA on billing
  const std::string said = format_explain(*s.queue, fs, e7);
  EXPECT_NE(said.find("Fair-share (Fair Tree, gres/gpu usage: fairway_fairshare_tres)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("(from its usage of gres/gpu, the resource the job asks mostly for, not "
                      "of billable TRES: fairway_fairshare_tres)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("more raw usage of gres/gpu (gres/gpu-seconds) charged to uA."),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("CPU-hours"), std::string::npos) << said;
  EXPECT_NE(format_explain_json(*s.queue, fs, e7).find("\"fairshare_tres\":\"gres/gpu\""),
            std::string::npos);
  EXPECT_NE(format_explain_json(*s.queue, fs, e8).find("\"fairshare_tres\":null"),
            std::string::npos);

  // Twice the fair-share weight: job 7 scaled by its GPU factor (1), job 8 by billing's (1).
  WhatIfChange twice;
  twice.weights = {{"fairshare", 2000}};
  const WhatIf w = what_if(*s.queue, fs, twice);
  EXPECT_EQ(w.after.job(7)->rows[0].factor[Factor::kFairshare], 2000);
  EXPECT_EQ(w.after.job(8)->rows[0].factor[Factor::kFairshare], 2000);
  // A given 20 shares: on billing uA now ranks first (A's 20/21 over 90% against B's 1/21
  // over 10%), and on GPUs still (20/21 over 10%): job 8 falls to half, job 7 stays.
  WhatIfChange shares;
  shares.shares = {{"A", "", 20, false}};
  const WhatIf w2 = what_if(*s.queue, fs, shares);
  EXPECT_EQ(w2.after.job(7)->rows[0].factor[Factor::kFairshare], 1000);
  EXPECT_EQ(w2.after.job(8)->rows[0].factor[Factor::kFairshare], 500);
  // B given 20 shares instead: on GPUs uB now ranks first ((20/21)/0.9 > (1/21)/0.1), so job 7
  // falls to half, which billing alone (where uA ranks second already) would not show.
  shares.shares = {{"B", "", 20, false}};
  const WhatIf w3 = what_if(*s.queue, fs, shares);
  EXPECT_EQ(w3.after.job(7)->rows[0].factor[Factor::kFairshare], 500);
  EXPECT_EQ(w3.after.job(8)->rows[0].factor[Factor::kFairshare], 1000);
  // A usage change is billing's: uB charged 10000 more leaves job 7's GPU factor alone.
  WhatIfChange usage;
  usage.usage = {{"B", "uB", 10000}};
  const WhatIf w4 = what_if(*s.queue, fs, usage);
  EXPECT_EQ(w4.after.job(7)->rows[0].factor[Factor::kFairshare], 1000);
  EXPECT_EQ(w4.after.job(8)->rows[0].factor[Factor::kFairshare], 500);
}

// fairway compare: two GPU jobs are decided on the GPU tree, where uA ranks first; a GPU job
// and a CPU job each get the factor of their own tree, and no common account decides.
TEST(FairShareTres, CompareTakesEachJobsFactorFromTheTreeThatJudgedIt) {
  Snapshot s = gpu_and_cpu_jobs();
  const FairShareInput fs = snapshot_fair_share_input(s);
  const Comparison mixed = compare_jobs(*s.queue, fs, 7, 8);
  EXPECT_DOUBLE_EQ(mixed.fair_share.fs_factor_a, 1.0);  // uA on GPUs
  EXPECT_DOUBLE_EQ(mixed.fair_share.fs_factor_b, 1.0);  // uB on billing
  EXPECT_EQ(mixed.fair_share.tres_a, "gres/gpu");
  EXPECT_EQ(mixed.fair_share.tres_b, "");
  EXPECT_FALSE(mixed.fair_share.a);
  EXPECT_NE(format_compare(mixed).find("job 7 is judged by its usage of gres/gpu, job 8 by its"),
            std::string::npos)
      << format_compare(mixed);

  s.queue->jobs[1].fairshare_tres = "gres/gpu";
  const Comparison gpus = compare_jobs(*s.queue, fs, 7, 8);
  EXPECT_DOUBLE_EQ(gpus.fair_share.fs_factor_a, 1.0);  // uA on GPUs
  EXPECT_DOUBLE_EQ(gpus.fair_share.fs_factor_b, 0.5);  // uB on GPUs
  EXPECT_TRUE(gpus.fair_share.a_ranks_first);
  EXPECT_EQ(gpus.fair_share.ancestor, "root");
  EXPECT_NE(format_compare(gpus).find("both jobs are judged by their usage of gres/gpu"),
            std::string::npos)
      << format_compare(gpus);
}

}  // namespace
}  // namespace fairway
