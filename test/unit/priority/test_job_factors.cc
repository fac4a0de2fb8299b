// Job factors and priority against values a live Slurm 22.05.8 cluster printed (sprio -l on
// one machine with 4 nodes x 16 CPUs, weights fairshare 10000, age/jobsize/partition/qos
// 1000, PriorityMaxAge 10 min: the cluster of test/data/README.md's testbed_2328) and
// hand-computed edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fair_share.h"
#include "fairway.h"
#include "job_factors.h"
#include "slurm_values.h"

namespace {

fairway_weights_t site_weights() {
  fairway_weights_t w{};
  w.weight[FAIRWAY_FACTOR_AGE] = 1000;
  w.weight[FAIRWAY_FACTOR_FAIRSHARE] = 10000;
  w.weight[FAIRWAY_FACTOR_JOB_SIZE] = 1000;
  w.weight[FAIRWAY_FACTOR_PARTITION] = 1000;
  w.weight[FAIRWAY_FACTOR_QOS] = 1000;
  w.max_age = 600;
  return w;
}

fairway_job_input_t pending_job(uint32_t cpus, uint32_t nodes, double fs, time_t accrue) {
  fairway_job_input_t j{};
  j.has_details = 1;
  j.accrue_time = accrue;
  j.max_cpus = FAIRWAY_NO_VAL;
  j.min_cpus = cpus;
  j.min_nodes = nodes;
  j.time_limit = FAIRWAY_NO_VAL;
  j.has_assoc = 1;
  j.fs_factor = fs;
  j.has_part = 1;
  j.part_priority_job_factor = 1;
  j.part_norm_priority = 1.0;
  j.part_max_time = FAIRWAY_INFINITE;
  j.site_factor = FAIRWAY_NICE_OFFSET;
  j.nice = FAIRWAY_NICE_OFFSET;
  return j;
}

const time_t kNow = 1700000000;

// site_weights() and pending_job() as the core takes them.
fairway::PrioritySettings core_site_weights() {
  fairway::PrioritySettings w;
  w.weight[fairway::Factor::kAge] = 1000;
  w.weight[fairway::Factor::kFairshare] = 10000;
  w.weight[fairway::Factor::kJobSize] = 1000;
  w.weight[fairway::Factor::kPartition] = 1000;
  w.weight[fairway::Factor::kQos] = 1000;
  w.max_age = 600;
  return w;
}

fairway::JobInput core_pending_job(uint32_t cpus, uint32_t nodes, double fs, time_t accrue) {
  fairway::JobInput j;
  j.has_details = true;
  j.accrue_time = accrue;
  j.min_cpus = cpus;
  j.min_nodes = nodes;
  j.has_assoc = true;
  j.fs_factor = fs;
  j.has_part = true;
  j.part_priority_job_factor = 1;
  j.part_norm_priority = 1.0;
  j.part_max_time = fairway::kInfinite;
  return j;
}

// The job's priority at `now` on the testbed's cluster, its weighted factors in *out.
uint32_t priority(const fairway::PrioritySettings& w, const fairway::JobInput& j, time_t now,
                  fairway::JobFactors* out = nullptr) {
  fairway::JobFactors f = fairway::job_factors(w, fairway::Cluster{64, 4}, j, now);
  const uint32_t p = fairway::job_priority(w, f, 0.0, nullptr);
  if (out) *out = f;
  return p;
}

// sprio at 23:28:16: u1 (fs 2/6) 1 CPU/1 node -> 4466, 16 CPUs/2 nodes -> 4708;
// u5 (fs 6/6) -> 11132 / 11375; u3 (fs 4/6) with --nice=500 -> 7299.
TEST(JobFactors, ReproducesLiveSprio) {
  const auto w = core_site_weights();
  EXPECT_EQ(priority(w, core_pending_job(1, 1, 2.0 / 6, kNow), kNow), 4466u);
  EXPECT_EQ(priority(w, core_pending_job(16, 2, 2.0 / 6, kNow), kNow), 4708u);
  EXPECT_EQ(priority(w, core_pending_job(1, 1, 6.0 / 6, kNow), kNow), 11132u);
  EXPECT_EQ(priority(w, core_pending_job(16, 2, 6.0 / 6, kNow), kNow), 11375u);
  auto nice = core_pending_job(1, 1, 4.0 / 6, kNow);
  nice.nice = fairway::kNiceOffset + 500;
  EXPECT_EQ(priority(w, nice, kNow), 7299u);
}

// 60 s later with 75 s of age: AGE 125 -> 4591 and 11500.
TEST(JobFactors, AgeFactorFromLiveSprio) {
  const auto w = core_site_weights();
  fairway::JobFactors f;
  EXPECT_EQ(priority(w, core_pending_job(1, 1, 2.0 / 6, kNow - 75), kNow, &f), 4591u);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAge], 125.0);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], 132.8125);  // (1/4 + 1/64) / 2 * 1000
  EXPECT_EQ(priority(w, core_pending_job(16, 2, 6.0 / 6, kNow - 75), kNow), 11500u);
}

TEST(JobFactors, AgeCapsAtMaxAgeAndIgnoresFutureAccrue) {
  auto w = core_site_weights();
  fairway::JobFactors f;
  priority(w, core_pending_job(1, 1, 0, kNow - 10000), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAge], 1000.0);
  priority(w, core_pending_job(1, 1, 0, kNow + 50), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAge], 0.0);
  priority(w, core_pending_job(1, 1, 0, 0), kNow, &f);  // not accruing
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAge], 0.0);
  w.max_age = 0;  // every accruing job has full age
  priority(w, core_pending_job(1, 1, 0, kNow), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAge], 1000.0);
}

TEST(JobFactors, FavorSmall) {
  auto w = core_site_weights();
  w.favor_small = 1;
  fairway::JobFactors f;
  priority(w, core_pending_job(16, 2, 0, kNow), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], ((4.0 - 2) / 4 + (64.0 - 16) / 64) / 2 * 1000);
  // More nodes than the cluster has: the unsigned difference wraps as in Slurm, then the
  // factor is clamped to 1.
  priority(w, core_pending_job(1, 8, 0, kNow), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], 1000.0);
}

TEST(JobFactors, FavorSmallFrom2411) {
  // Slurm 24.11's multifactor: a job asking for all nodes or more gets 0 for its nodes
  // instead of the wrapped difference, and an empty cluster gives no job-size factor.
  auto w = core_site_weights();
  w.favor_small = 1;
  w.slurm_release = fairway::kSlurm2411;
  fairway::JobFactors f;
  priority(w, core_pending_job(16, 2, 0, kNow), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], ((4.0 - 2) / 4 + (64.0 - 16) / 64) / 2 * 1000);
  priority(w, core_pending_job(1, 8, 0, kNow), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], (0.0 + (64.0 - 1) / 64) / 2 * 1000);
  const auto j = core_pending_job(16, 2, 0, kNow);
  for (const fairway::Cluster c : {fairway::Cluster{0, 4}, fairway::Cluster{64, 0}})
    EXPECT_EQ(fairway::job_factors(w, c, j, kNow)[fairway::Factor::kJobSize], 0.0);
  w.slurm_release = fairway::kSlurm2205;
  // 22.05: (0 - 2) wraps, / 0 is +inf: clamped to 1
  EXPECT_EQ(fairway::job_factors(w, fairway::Cluster{64, 0}, j, kNow)[fairway::Factor::kJobSize],
            1.0);
}

TEST(JobFactors, JobSizeFrom2311) {
  // Slurm 23.11's multifactor already counts the job size as 24.11's does (23.11.4's
  // set_priority_factors): 0 for the nodes of a job asking for all nodes or more, and no
  // factor on a cluster without nodes or CPUs.
  auto w = core_site_weights();
  w.favor_small = 1;
  w.slurm_release = 0x170b04;  // SLURM_VERSION_NUM(23, 11, 4)
  fairway::JobFactors f;
  priority(w, core_pending_job(1, 8, 0, kNow), kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], (0.0 + (64.0 - 1) / 64) / 2 * 1000);
  const auto j = core_pending_job(16, 2, 0, kNow);
  for (const fairway::Cluster c : {fairway::Cluster{0, 4}, fairway::Cluster{64, 0}})
    EXPECT_EQ(fairway::job_factors(w, c, j, kNow)[fairway::Factor::kJobSize], 0.0);
  w.favor_small = 0;
  EXPECT_EQ(fairway::job_factors(w, fairway::Cluster{0, 4}, j, kNow)[fairway::Factor::kJobSize],
            0.0);
  EXPECT_EQ(fairway::kSlurm2311, 0x170b00u);
}

TEST(JobFactors, SmallRelativeToTime) {
  auto w = core_site_weights();
  w.flags = fairway::kSmallRelativeToTime;
  auto j = core_pending_job(32, 1, 0, kNow);
  j.time_limit = 60;
  fairway::JobFactors f;
  priority(w, j, kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], 32.0 / 60 / 64 * 1000);
  j.min_cpus = 2;  // fewer CPUs than one node's average share: the share counts
  priority(w, j, kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], 16.0 / 60 / 64 * 1000);
  w.favor_small = 1;
  priority(w, j, kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kJobSize], (1.0 - 16.0 / 60 / 64) * 1000);
}

TEST(JobFactors, PartitionQosAssocNormalization) {
  auto w = core_site_weights();
  w.weight[fairway::Factor::kAssoc] = 100;
  auto j = core_pending_job(1, 1, 0, kNow);
  j.part_priority_job_factor = 7;
  j.part_norm_priority = 0.5;
  j.has_qos = 1;
  j.qos_priority = 20;
  j.qos_norm_priority = 0.25;
  j.assoc_priority = 3;
  j.assoc_priority_norm = 0.75;
  fairway::JobFactors f;
  priority(w, j, kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kPartition], 500.0);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kQos], 250.0);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAssoc], 75.0);
  w.flags = fairway::kNoNormalPart | fairway::kNoNormalQos | fairway::kNoNormalAssoc;
  priority(w, j, kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kPartition], 7000.0);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kQos], 20000.0);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kAssoc], 300.0);
  j.qos_priority = 0;  // a QOS of priority 0 contributes nothing, normalized or not
  priority(w, j, kNow, &f);
  EXPECT_DOUBLE_EQ(f[fairway::Factor::kQos], 0.0);
}

TEST(JobFactors, ClampToOneAndTo32Bits) {
  fairway::PrioritySettings w;
  auto j = core_pending_job(1, 1, 0, kNow);
  EXPECT_EQ(priority(w, j, kNow), 1u);  // nothing weighted: clamp to 1, 0 is for held jobs
  j.nice = fairway::kNiceOffset + 100000;
  EXPECT_EQ(priority(w, j, kNow), 1u);
  w.weight[fairway::Factor::kFairshare] = 0xffffffffu;
  w.weight[fairway::Factor::kPartition] = 0xffffffffu;
  j = core_pending_job(1, 1, 1.0, kNow);
  fairway::JobFactors f = fairway::job_factors(w, fairway::Cluster{64, 4}, j, kNow);
  bool clamped = false;
  EXPECT_EQ(fairway::job_priority(w, f, 0.0, &clamped), 0xffffffffu);
  EXPECT_TRUE(clamped);
}

TEST(JobFactors, SiteFactorAndNegativeNice) {
  auto w = core_site_weights();
  auto j = core_pending_job(1, 1, 2.0 / 6, kNow);
  j.site_factor = fairway::kNiceOffset + 1000;
  j.nice = fairway::kNiceOffset - 200;  // privileged negative nice raises priority
  EXPECT_EQ(priority(w, j, kNow), 4466u + 1000 + 200);
}

TEST(JobFactors, TresFactorsAndWeights) {
  const std::vector<double> tw{1000, 0, 0, 0, 2000};
  fairway::PrioritySettings w;
  w.tres = tw.data();
  w.tres_count = tw.size();
  const uint64_t req[] = {16, 4000, 0, 2, 16};
  const uint64_t part[] = {64, 16000, 0, 4, 64};
  std::vector<double> f(5, -1);
  fairway::tres_factors(w, nullptr, req, part, f.data());
  EXPECT_DOUBLE_EQ(f[0], 0.25);
  EXPECT_DOUBLE_EQ(f[2], 0.0);  // zero in the partition: factor stays 0
  EXPECT_DOUBLE_EQ(fairway::tres_weighted(w, f.data()), 250.0 + 500.0);
  // Allocated counts win over requested ones, except NO_CONSUME entries.
  const uint64_t alloc[] = {32, 0xfffffffffffffffdULL, 0, 2, 32};
  fairway::tres_factors(w, alloc, req, part, f.data());
  EXPECT_DOUBLE_EQ(f[0], 0.5);
  EXPECT_DOUBLE_EQ(f[1], 0.25);
  w.flags = fairway::kNoNormalTres;
  fairway::tres_factors(w, nullptr, req, part, f.data());
  EXPECT_DOUBLE_EQ(f[1], 4000.0);
}

// sprio's row for a second partition of a multi-partition job, as multifactor builds
// it: over a copy of the job's weighted factors, a TRES the partition does not count
// keeps the copied (weighted) value and is weighted once more.
TEST(JobFactors, SprioRowKeepsAndReweighsATresThePartitionLacks) {
  const std::vector<double> tw{1555, 8, 0, 0, 0, 100};
  const uint64_t req[] = {16, 4000, 0, 2, 16, 2};  // cpu, mem, energy, node, billing, gpu
  const uint64_t with_gpus[] = {64, 16000, 0, 4, 64, 8};
  const uint64_t no_gpus[] = {64, 16000, 0, 4, 64, 0};
  fairway::PrioritySettings cw;
  cw.tres = tw.data();
  cw.tres_count = tw.size();
  std::vector<double> job(6);
  fairway::tres_factors(cw, nullptr, req, with_gpus, job.data());
  fairway::tres_weighted(cw, job.data());  // the job's own row: weighted once
  EXPECT_DOUBLE_EQ(job[5], 2.0 / 8 * 100);

  std::vector<double> row = job;  // the row of the partition without GPUs
  fairway::tres_factors_over(cw, nullptr, req, no_gpus, row.data());
  const double sum = fairway::tres_weighted(cw, row.data());
  EXPECT_DOUBLE_EQ(row[0], 16.0 / 64 * 1555);     // recomputed for this partition
  EXPECT_DOUBLE_EQ(row[5], 2.0 / 8 * 100 * 100);  // kept, then weighted again
  EXPECT_DOUBLE_EQ(sum, row[0] + row[1] + row[5]);

  // A partition with no TRES counts at all (no nodes): every entry kept and reweighed.
  row = job;
  fairway::tres_factors_over(cw, nullptr, req, nullptr, row.data());
  fairway::tres_weighted(cw, row.data());
  EXPECT_DOUBLE_EQ(row[0], job[0] * 1555);
  // A NO_CONSUME allocation falls back to the request.
  const uint64_t alloc[] = {32, 0xfffffffffffffffdULL, 0, 2, 32, 0};
  row = job;
  fairway::tres_factors_over(cw, alloc, req, with_gpus, row.data());
  fairway::tres_weighted(cw, row.data());
  EXPECT_DOUBLE_EQ(row[1], 4000.0 / 16000 * 8);
  EXPECT_DOUBLE_EQ(row[5], job[5] * 100);  // allocated 0 GPUs: kept
  // Without TRES weights nothing is weighted.
  EXPECT_DOUBLE_EQ(fairway::tres_weighted(nullptr, row.size(), row.data()), 0.0);
}

TEST(JobFactors, PerPartitionPriority) {
  auto w = core_site_weights();
  const fairway::Cluster c{64, 4};
  fairway::JobFactors f = fairway::job_factors(w, c, core_pending_job(1, 1, 2.0 / 6, kNow), kNow);
  EXPECT_EQ(fairway::job_priority(w, f, 0.0, nullptr), 4466u);
  // Another partition with half the normalized factor: 500 less.
  EXPECT_EQ(fairway::job_priority_in_partition(w, f, 1, 0.5, 0.0, nullptr), 3966u);
  w.flags = fairway::kNoNormalPart;
  EXPECT_EQ(fairway::job_priority_in_partition(w, f, 3, 0.5, 0.0, nullptr), 6466u);
}

TEST(JobFactors, PairsOfPartitionAndQos) {
  // Slurm 24.11: a job with several QOS has one priority per (partition, QOS) pair; the
  // pair's QOS replaces the job's QOS factor unless its priority is 0.
  auto w = site_weights();
  auto j = pending_job(1, 1, 2.0 / 6, kNow);
  j.has_qos = 1;
  j.qos_priority = 10;
  j.qos_norm_priority = 0.1;
  const fairway_cluster_t c{64, 4};
  fairway_job_partition_t pairs[3]{};
  for (auto& p : pairs) {
    p.priority_job_factor = 1;
    p.norm_priority = 1.0;
  }
  pairs[1].has_qos = 1;
  pairs[1].qos_priority = 50;
  pairs[1].qos_norm_priority = 0.5;
  pairs[2].has_qos = 1;  // priority 0: the job's own QOS factor
  pairs[2].qos_norm_priority = 0.9;
  fairway_job_weighed_t r;
  ASSERT_EQ(fairway_job_weigh(&w, &c, &j, kNow, nullptr, pairs, 3, &r), FAIRWAY_OK);
  EXPECT_EQ(pairs[0].priority, r.priority);
  EXPECT_EQ(pairs[1].priority, r.priority + 400);  // (0.5 - 0.1) * 1000
  EXPECT_EQ(pairs[2].priority, r.priority);
  w.flags = FAIRWAY_FLAG_NO_NORMAL_QOS;
  ASSERT_EQ(fairway_job_weigh(&w, &c, &j, kNow, nullptr, pairs, 3, &r), FAIRWAY_OK);
  EXPECT_EQ(pairs[1].priority, r.priority + 40000);  // (50 - 10) * 1000
  w.weight[FAIRWAY_FACTOR_QOS] = 0;                  // no QOS weight: every pair alike
  ASSERT_EQ(fairway_job_weigh(&w, &c, &j, kNow, nullptr, pairs, 3, &r), FAIRWAY_OK);
  EXPECT_EQ(pairs[1].priority, r.priority);
}

TEST(JobFactors, NoDetailsMeansNeutralNice) {
  auto w = core_site_weights();
  auto j = core_pending_job(1, 1, 0, kNow);
  j.has_details = 0;
  j.nice = 12345;
  const fairway::JobFactors f = fairway::job_factors(w, fairway::Cluster{64, 4}, j, kNow);
  EXPECT_EQ(f[fairway::Factor::kNice], 0.0);  // kNiceOffset, without the offset
}

// fairway_job_weigh is the whole composition the plugin needs: the same numbers as the
// core's piecewise calls, TRES included, per partition, and INCR_ONLY keeping higher values.
TEST(JobFactors, WeighOneCallEqualsThePiecewiseCalls) {
  const double tres_w[3] = {100.0, 0.0, 2500.0};
  auto w = site_weights();
  w.tres = tres_w;
  w.tres_count = 3;
  const uint64_t alloc[3] = {0, 0, 0}, req[3] = {8, 4096, 2}, part_a[3] = {64, 65536, 4},
                 part_b[3] = {32, 65536, 0};
  auto j = pending_job(8, 1, 0.25, kNow - 120);
  j.tres_alloc = alloc;
  j.tres_req = req;
  j.part_tres = part_a;
  const fairway_cluster_t c{64, 4};

  auto cw = core_site_weights();
  cw.tres = tres_w;
  cw.tres_count = 3;
  auto cj = core_pending_job(8, 1, 0.25, kNow - 120);
  cj.tres_alloc = alloc;
  cj.tres_req = req;
  cj.part_tres = part_a;
  fairway::JobFactors f = fairway::job_factors(cw, fairway::Cluster{64, 4}, cj, kNow);
  double tres[3];
  fairway::tres_factors(cw, alloc, req, part_a, tres);
  const double tres_sum = fairway::tres_weighted(cw, tres);
  const uint32_t prio = fairway::job_priority(cw, f, tres_sum, nullptr);
  double ta[3], tb[3];
  fairway::tres_factors(cw, alloc, req, part_a, ta);
  fairway::tres_factors(cw, alloc, req, part_b, tb);
  const uint32_t pa =
      fairway::job_priority_in_partition(cw, f, 5, 1.0, fairway::tres_weighted(cw, ta), nullptr);
  const uint32_t pb =
      fairway::job_priority_in_partition(cw, f, 1, 0.2, fairway::tres_weighted(cw, tb), nullptr);

  fairway_job_partition_t parts[2] = {{5, 1.0, part_a, 0, 0}, {1, 0.2, part_b, 0, 0}};
  double tres_out[3];
  fairway_job_weighed_t r;
  ASSERT_EQ(fairway_job_weigh(&w, &c, &j, kNow, tres_out, parts, 2, &r), FAIRWAY_OK);
  EXPECT_EQ(r.priority, prio);
  EXPECT_EQ(r.weighted.factor[FAIRWAY_FACTOR_FAIRSHARE], f[fairway::Factor::kFairshare]);
  EXPECT_EQ(r.weighted.factor[FAIRWAY_FACTOR_AGE], f[fairway::Factor::kAge]);
  for (int i = 0; i < 3; i++) EXPECT_EQ(tres_out[i], tres[i]);
  EXPECT_EQ(parts[0].priority, pa);
  EXPECT_EQ(parts[1].priority, pb);
  EXPECT_GT(pa, pb);  // partition b lacks the GPUs' count and has a lower factor

  // INCR_ONLY: a partition's priority never goes down.
  w.flags |= FAIRWAY_FLAG_INCR_ONLY;
  parts[0].priority = pa + 1000;
  parts[1].priority = 0;
  ASSERT_EQ(fairway_job_weigh(&w, &c, &j, kNow, tres_out, parts, 2, &r), FAIRWAY_OK);
  EXPECT_EQ(parts[0].priority, pa + 1000);
  EXPECT_EQ(parts[1].priority, pb);

  // Errors are errors, not a priority.
  EXPECT_EQ(fairway_job_weigh(nullptr, &c, &j, kNow, tres_out, parts, 2, &r), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_job_weigh(&w, &c, &j, kNow, tres_out, nullptr, 2, &r), FAIRWAY_EINVAL);
  EXPECT_NE(std::string(fairway_last_error()), "");
}

// The on-demand classic values use the same formula as the period's computation.
TEST(JobFactors, OnDemandClassicUsage) {
  EXPECT_EQ(fairway_usage_norm(5.0L, 0.0L), 0.0L);
  EXPECT_EQ(fairway_usage_norm(5.0L, 10.0L), 0.5L);
  EXPECT_EQ(fairway_usage_norm(15.0L, 10.0L), 1.0L);
  EXPECT_EQ(fairway::classic_usage_efctv(0.2L, 0.6L, 1, 0), 0.6L);
  EXPECT_EQ(fairway::classic_usage_efctv(0.2L, 0.6L, 1, 4), 0.2L + (0.6L - 0.2L) * (1 / 4.0L));
  EXPECT_EQ(fairway_algorithm_from_flags(0), FAIRWAY_ALGO_FAIR_TREE);
  EXPECT_EQ(fairway_algorithm_from_flags(FAIRWAY_FLAG_NO_FAIR_TREE), FAIRWAY_ALGO_CLASSIC);
  EXPECT_EQ(fairway_algorithm_from_flags(FAIRWAY_FLAG_NO_FAIR_TREE | FAIRWAY_FLAG_DEPTH_OBLIVIOUS),
            FAIRWAY_ALGO_DEPTH_OBLIVIOUS);
}

// One sum for the plugin, whatif and the shadow policy: the parts in Factor order, the site
// factor added and nice subtracted; with the partition term first for a job in several.
TEST(PrioritySum, AddsInMultifactorsOrderAndClamps) {
  fairway::FactorValues f;
  f[fairway::Factor::kAge] = 0.1;
  f[fairway::Factor::kAssoc] = 0.2;
  f[fairway::Factor::kFairshare] = 0.4;
  f[fairway::Factor::kJobSize] = -1e16;
  f[fairway::Factor::kPartition] = 1e16;
  f[fairway::Factor::kQos] = 0.3;
  f[fairway::Factor::kTres] = 2;
  f[fairway::Factor::kSite] = 5;
  f[fairway::Factor::kNice] = -3;
  bool clamped = true;
  const double job = ((0.1 + 0.2 + 0.4 + -1e16 + 1e16 + 0.3 + 2) + 5) - -3.0;
  EXPECT_EQ(fairway::priority_sum(f, fairway::SumOrder::kJob, &clamped),
            static_cast<uint32_t>(job));
  EXPECT_FALSE(clamped);
  double part = 1e16;
  part += 0.1 + 0.2 + 0.4 + -1e16 + 0.3 + 2 + 5 - -3.0;
  EXPECT_EQ(fairway::priority_sum(f, fairway::SumOrder::kPartitionFirst, nullptr),
            static_cast<uint32_t>(part));

  fairway::FactorValues none;
  EXPECT_EQ(fairway::priority_sum(none, fairway::SumOrder::kJob, nullptr), 1u);
  none[fairway::Factor::kAge] = std::nan("");
  EXPECT_EQ(fairway::priority_sum(none, fairway::SumOrder::kJob, nullptr), 1u);
  none[fairway::Factor::kAge] = 4294967296.0;
  EXPECT_EQ(fairway::priority_sum(none, fairway::SumOrder::kJob, &clamped), 0xffffffffu);
  EXPECT_TRUE(clamped);
}

// The core, not the plugin, picks the job's fair-share factor: Fair Tree's stored one; from
// 25.11 classic's stored one; before, 2^(-UE/S/d) of the association the job shares with.
TEST(JobFsFactor, TheRuleOfTheAlgorithmAndRelease) {
  fairway_assoc_result_t own{}, shared{};
  own.fs_factor = 0.25;
  own.usage_efctv = 0.5L;
  own.shares_norm = 0.5;
  shared.usage_efctv = 0.2L;
  shared.shares_norm = 0.4;
  int first = -1;
  EXPECT_EQ(
      fairway_job_fs_factor(FAIRWAY_ALGO_FAIR_TREE, fairway::kSlurm2205, &own, &shared, 1, &first),
      0.25);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(
      fairway_job_fs_factor(FAIRWAY_ALGO_CLASSIC, fairway::kSlurm2511, &own, &shared, 1, &first),
      0.25);
  EXPECT_EQ(
      fairway_job_fs_factor(FAIRWAY_ALGO_CLASSIC, fairway::kSlurm2411, &own, &shared, 2, &first),
      fairway_classic_fs_factor(0.2L, 0.4, 2));
  EXPECT_EQ(first, 0);
  EXPECT_EQ(fairway_job_fs_factor(FAIRWAY_ALGO_DEPTH_OBLIVIOUS, 0, &own, &own, 1, nullptr),
            fairway_classic_fs_factor(0.5L, 0.5, 1));

  // An effective usage not computed yet: the one the rule reads is named.
  shared.usage_efctv = FAIRWAY_NO_VAL;
  fairway_job_fs_factor(FAIRWAY_ALGO_CLASSIC, fairway::kSlurm2411, &own, &shared, 1, &first);
  EXPECT_EQ(first, 2);
  fairway_job_fs_factor(FAIRWAY_ALGO_CLASSIC, fairway::kSlurm2511, &own, &shared, 1, &first);
  EXPECT_EQ(first, 0);
  own.usage_efctv = FAIRWAY_NO_VAL;
  fairway_job_fs_factor(FAIRWAY_ALGO_CLASSIC, fairway::kSlurm2511, &own, &shared, 1, &first);
  EXPECT_EQ(first, 1);
  fairway_job_fs_factor(FAIRWAY_ALGO_FAIR_TREE, fairway::kSlurm2511, &own, &shared, 1, &first);
  EXPECT_EQ(first, 0);

  EXPECT_EQ(fairway_job_fs_factor(FAIRWAY_ALGO_CLASSIC, 0, nullptr, &shared, 1, &first), 0.0);
  EXPECT_EQ(fairway_job_fs_factor(static_cast<fairway_algorithm_t>(9), 0, &own, &own, 1, &first),
            0.0);
}

// job_fs_reads names every value job_fs_factor reads: with the others poisoned, the factor
// and the association to compute first are the same, for every algorithm and release.
TEST(JobFsFactor, ReadsOnlyTheValuesJobFsReadsNames) {
  const double nan = std::nan("");
  for (auto a : {fairway::Algorithm::kFairTree, fairway::Algorithm::kClassic,
                 fairway::Algorithm::kDepthOblivious}) {
    for (uint32_t release : {fairway::kSlurm2205, fairway::kSlurm2411, fairway::kSlurm2511}) {
      for (long double efctv : {0.2L, static_cast<long double>(FAIRWAY_NO_VAL)}) {
        fairway::AssocValues own{0.5, 0.1L, efctv, 0.25}, shared{0.4, 0.3L, efctv, 0.75};
        fairway::ComputeFirst first_all, first_read;
        const double all = fairway::job_fs_factor(a, release, own, shared, 2, &first_all);
        const uint32_t reads = fairway::job_fs_reads(a, release);
        fairway::AssocValues own_read{nan, nan, nan, nan}, shared_read{nan, nan, nan, nan};
        if (reads & fairway::kReadsOwnFsFactor) own_read.fs_factor = own.fs_factor;
        if (reads & fairway::kReadsOwnUsageEfctv) own_read.usage_efctv = own.usage_efctv;
        if (reads & fairway::kReadsShared) {
          shared_read.usage_efctv = shared.usage_efctv;
          shared_read.shares_norm = shared.shares_norm;
        }
        const double read =
            fairway::job_fs_factor(a, release, own_read, shared_read, 2, &first_read);
        EXPECT_EQ(read, all) << fairway::algorithm_name(a) << " " << std::hex << release;
        EXPECT_EQ(first_read, first_all) << fairway::algorithm_name(a) << " " << release;
      }
    }
  }
  // Fair Tree reads one value: the association's stored factor.
  EXPECT_EQ(fairway::job_fs_reads(fairway::Algorithm::kFairTree, fairway::kSlurm2205),
            uint32_t{fairway::kReadsOwnFsFactor});
  EXPECT_EQ(fairway_job_fs_reads(static_cast<fairway_algorithm_t>(9), 0), 0u);
}

long double three_tenths(void* calls) {
  ++*static_cast<int*>(calls);
  return 0.3L;
}

// The on-demand effective usage: own without a fair-share parent, the parent's for
// Fairshare=parent, depth-oblivious's formula (the only one that reads the siblings) or
// classic's.
TEST(AssocUsageEfctv, TheRuleOfTheAlgorithm) {
  fairway_assoc_result_t self{}, parent{};
  self.usage_norm = 0.2L;
  self.shares_norm = 0.25;
  parent.usage_efctv = 0.6L;
  parent.shares_norm = 0.5;
  int calls = 0;
  for (fairway_algorithm_t a :
       {FAIRWAY_ALGO_FAIR_TREE, FAIRWAY_ALGO_CLASSIC, FAIRWAY_ALGO_DEPTH_OBLIVIOUS}) {
    EXPECT_EQ(fairway_assoc_usage_efctv(a, &self, 1, 4, nullptr, three_tenths, &calls), 0.2L);
    EXPECT_EQ(fairway_assoc_usage_efctv(a, &self, fairway::kSharesUseParent, 4, &parent,
                                        three_tenths, &calls),
              0.6L);
  }
  EXPECT_EQ(
      fairway_assoc_usage_efctv(FAIRWAY_ALGO_CLASSIC, &self, 1, 4, &parent, three_tenths, &calls),
      fairway::classic_usage_efctv(0.2L, 0.6L, 1, 4));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(fairway_assoc_usage_efctv(FAIRWAY_ALGO_DEPTH_OBLIVIOUS, &self, 1, 4, &parent,
                                      three_tenths, &calls),
            fairway::depth_oblivious_usage_efctv(0.2L, 0.25, 0.6L, 0.5, 0.3L));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(
      fairway_assoc_usage_efctv(FAIRWAY_ALGO_CLASSIC, nullptr, 1, 4, &parent, nullptr, nullptr),
      0.0L);
}

// Depth-oblivious walks the siblings only where its formula reads their sum: an association
// without usage (most users, most periods) keeps its own usage_norm, as does one whose share
// or whose parent's share or effective usage is zero.
TEST(AssocUsageEfctv, DepthObliviousSumsTheSiblingsOnlyWhenItReadsThem) {
  fairway_assoc_result_t parent{};
  parent.usage_efctv = 0.6L;
  parent.shares_norm = 0.5;
  int calls = 0;
  for (int zero = 0; zero < 4; zero++) {
    fairway_assoc_result_t self{}, p = parent;
    self.usage_norm = zero == 0 ? 0.0L : 0.2L;
    self.shares_norm = zero == 1 ? 0.0 : 0.25;
    if (zero == 2) p.shares_norm = 0;
    if (zero == 3) p.usage_efctv = 0;
    EXPECT_EQ(fairway_assoc_usage_efctv(FAIRWAY_ALGO_DEPTH_OBLIVIOUS, &self, 1, 4, &p, three_tenths,
                                        &calls),
              self.usage_norm);
  }
  EXPECT_EQ(calls, 0);
}

}  // namespace
