// Micro-benchmarks of Fairway's core (Google Benchmark): building the association tree,
// each fair-share algorithm on a kept tree, and the per-job factor computation.  The
// side-by-side comparison with Slurm's multifactor is bench/side-by-side (make bench).
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"
#include "job_factors.h"

namespace {

// root -> accounts -> 100 users each (about n associations), seeded.
std::vector<fairway::AssocRecord> synthetic_tree(int n) {
  std::mt19937 rng(42);
  std::vector<fairway::AssocRecord> recs;
  const int accounts = n / 101 > 0 ? n / 101 : 1;
  uint32_t id = 1;
  recs.push_back({id++, 0, "root", "", false, 1, 0});
  for (int a = 0; a < accounts; a++) {
    const uint32_t aid = id++;
    const std::string acct = "acct" + std::to_string(a);
    recs.push_back({aid, 1, acct, "", false, static_cast<uint32_t>(1 + rng() % 100), 0});
    for (int u = 0; u < 100; u++)
      recs.push_back({id++, aid, acct, "u" + std::to_string(u), false,
                      static_cast<uint32_t>(1 + rng() % 10),
                      static_cast<long double>(rng() % 100000)});
  }
  fairway::accumulate_direct_usage(recs);
  return recs;
}

void BM_TreeBuild(benchmark::State& state) {
  const auto recs = synthetic_tree(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto tree = fairway::AssocTree::build(recs);
    benchmark::DoNotOptimize(tree.size());
  }
  state.SetItemsProcessed(state.iterations() * recs.size());
}
BENCHMARK(BM_TreeBuild)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMicrosecond);

void BM_FairShare(benchmark::State& state, fairway::Algorithm algo) {
  const auto tree = fairway::AssocTree::build(synthetic_tree(static_cast<int>(state.range(0))));
  fairway::FairShareResult out;
  out.resize(tree.size());
  for (auto _ : state) {
    fairway::compute_fair_share(tree, algo, 1.0, out);
    benchmark::DoNotOptimize(out.fs_factor.data());
  }
  state.SetItemsProcessed(state.iterations() * tree.size());
}
BENCHMARK_CAPTURE(BM_FairShare, fair_tree, fairway::Algorithm::kFairTree)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FairShare, classic, fairway::Algorithm::kClassic)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FairShare, depth_oblivious, fairway::Algorithm::kDepthOblivious)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMicrosecond);

void BM_JobPriority(benchmark::State& state) {
  fairway::PrioritySettings w;
  w.weight[fairway::Factor::kAge] = 1000;
  w.weight[fairway::Factor::kFairshare] = 100000;
  w.weight[fairway::Factor::kJobSize] = 1000;
  w.weight[fairway::Factor::kPartition] = 1000;
  w.weight[fairway::Factor::kQos] = 1000;
  w.max_age = 7 * 86400;
  const fairway::Cluster c{4096, 256};
  std::mt19937 rng(7);
  std::vector<fairway::JobInput> jobs(static_cast<size_t>(state.range(0)));
  for (auto& j : jobs) {
    j.has_details = true;
    j.accrue_time = 1700000000 - rng() % 1000000;
    j.min_cpus = 1 + rng() % 512;
    j.min_nodes = 1 + rng() % 16;
    j.has_assoc = true;
    j.fs_factor = (rng() % 1000) / 1000.0;
    j.has_part = true;
    j.part_priority_job_factor = 1;
    j.part_norm_priority = 1.0;
  }
  uint64_t sum = 0;
  for (auto _ : state) {
    for (const auto& j : jobs) {
      fairway::JobFactors f = fairway::job_factors(w, c, j, 1700000000);
      sum += fairway::job_priority(w, f, 0.0, nullptr);
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * jobs.size());
}
BENCHMARK(BM_JobPriority)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
