// test_threads.cc - the core used from several threads at once, as slurmctld does (its
// calculation thread, RPC threads answering sprio/sshare, the plugin's own callers):
//   * each thread keeps its own fair-share table through the C API and computes fair-share
//     under all three algorithms, many times, with usage changing between periods; every
//     result must equal the one computed alone beforehand (no shared mutable state);
//   * each thread provokes errors of its own (unknown parent id = a per-thread value,
//     index out of range) and must read back its own message from fairway_last_error()
//     (thread-local), and "" after a successful call;
//   * job priorities, decay helpers and the decay state file (one directory per thread)
//     run concurrently too.
// Built by `make check`; scripts/sanitize tsan runs it under ThreadSanitizer.  Exit status 0
// when every check held; the last line is "threads: N passed, M failed".
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "fairway.h"
#include "fairway_fair_share_table.h"
#include "fairway_usage_files.h"
#include "fairway_usage_state.h"
#include "usage_decay.h"

namespace {

constexpr int kThreads = 6;
constexpr int kRounds = 200;

std::atomic<int> g_failures{0};
std::atomic<long> g_checks{0};

#define CHECK(cond, ...)                                                            \
  do {                                                                              \
    g_checks.fetch_add(1, std::memory_order_relaxed);                               \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                            \
      std::fputc('\n', stderr);                                                     \
      g_failures.fetch_add(1);                                                      \
    }                                                                               \
  } while (0)

// A tree of 1 root, `accounts` accounts and `users` users per account; shape varies by seed.
struct Tree {
  std::vector<std::string> names;
  std::vector<fairway_assoc_t> assocs;
};

Tree make_tree(int seed) {
  Tree t;
  const int accounts = 3 + seed % 4, users = 2 + seed % 3;
  t.names.reserve(static_cast<size_t>(accounts * (users + 1) + 1));
  t.assocs.push_back({1, 0, "root", nullptr, 1, 0, 0});
  uint32_t id = 2;
  for (int a = 0; a < accounts; ++a) {
    t.names.push_back("acct" + std::to_string(a));
    const char* acct = t.names.back().c_str();
    const uint32_t aid = id++;
    t.assocs.push_back({aid, 1, acct, nullptr, static_cast<uint32_t>(1 + (a + seed) % 5),
                        (a == 1 && seed % 2) ? 1 : 0, 0});
    for (int u = 0; u < users; ++u) {
      t.names.push_back("u" + std::to_string(u));
      t.assocs.push_back({id++, aid, acct, t.names.back().c_str(), static_cast<uint32_t>(1 + u % 3),
                          0, static_cast<long double>((u + 1) * (a + 2) * (seed + 1))});
    }
  }
  return t;
}

struct Results {
  std::vector<fairway_assoc_result_t> r;
};

// Three algorithms x a few usage periods, every association's result, through the fair-share
// table the plugin keeps (each period loads the associations with their new usage).
Results compute_all(const Tree& tree, int seed, bool check_errors) {
  Results out;
  fairway_fair_share_table_t* t = nullptr;
  CHECK(fairway_fair_share_table_new(&t) == FAIRWAY_OK, "table: %s", fairway_last_error());
  std::vector<fairway_assoc_t> assocs = tree.assocs;
  const size_t n = assocs.size();
  for (int period = 0; period < 3; ++period) {
    for (size_t i = 1; i < n; i += 2)
      assocs[i].usage_raw = static_cast<long double>(period * 7 + i + seed);
    const fairway_error_t e = fairway_fair_share_table_load(
        t, assocs.data(), n, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr);
    CHECK(e == FAIRWAY_OK, "fairway_fair_share_table_load: %s", fairway_last_error());
    if (e != FAIRWAY_OK) break;
    CHECK(fairway_last_error()[0] == '\0', "last error after success: %s", fairway_last_error());
    for (fairway_algorithm_t algo :
         {FAIRWAY_ALGO_FAIR_TREE, FAIRWAY_ALGO_CLASSIC, FAIRWAY_ALGO_DEPTH_OBLIVIOUS}) {
      CHECK(fairway_fair_share_table_compute(t, algo, 1 + seed % 3, 0) == FAIRWAY_OK, "compute: %s",
            fairway_last_error());
      for (size_t i = 0; i < n; ++i) {
        fairway_assoc_result_t r{};
        CHECK(fairway_fair_share_table_result(t, i, &r) == FAIRWAY_OK, "result");
        out.r.push_back(r);
      }
      if (check_errors) {
        fairway_assoc_result_t r;
        CHECK(
            fairway_fair_share_table_result(t, n + static_cast<size_t>(seed), &r) == FAIRWAY_EINVAL,
            "out of range");
        const std::string want = "index " + std::to_string(n + static_cast<size_t>(seed));
        CHECK(std::strstr(fairway_last_error(), want.c_str()) != nullptr,
              "thread %d sees another thread's error: %s", seed, fairway_last_error());
      }
    }
  }
  fairway_fair_share_table_destroy(&t);
  return out;
}

bool same(const Results& a, const Results& b) {
  if (a.r.size() != b.r.size()) return false;
  for (size_t i = 0; i < a.r.size(); ++i) {
    const auto &x = a.r[i], &y = b.r[i];
    if (x.shares_norm != y.shares_norm || x.usage_norm != y.usage_norm ||
        x.usage_efctv != y.usage_efctv || x.level_fs != y.level_fs || x.fs_factor != y.fs_factor ||
        x.set != y.set)
      return false;
  }
  return true;
}

void worker(int seed, const Results& reference, std::latch& start) {
  const Tree tree = make_tree(seed);
  // A tree whose error names this thread: a user whose parent id is unknown.
  Tree bad = make_tree(seed);
  const uint32_t missing = 100000 + static_cast<uint32_t>(seed);
  bad.assocs.back().parent_id = missing;
  const std::string bad_msg = "unknown parent id " + std::to_string(missing);

  const std::string state = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                            "/fairway-threads-" + std::to_string(::getpid()) + "-" +
                            std::to_string(seed);
  ::mkdir(state.c_str(), 0700);  // this thread's StateSaveLocation
  fairway_weights_t w{};
  w.weight[FAIRWAY_FACTOR_AGE] = 1000 + seed;
  w.weight[FAIRWAY_FACTOR_FAIRSHARE] = 10000;
  w.weight[FAIRWAY_FACTOR_JOB_SIZE] = 100;
  w.max_age = 86400;
  fairway_cluster_t c{64, 4};
  start.arrive_and_wait();

  for (int round = 0; round < kRounds; ++round) {
    const Results got = compute_all(tree, seed, round % 8 == 0);
    CHECK(same(got, reference), "thread %d round %d: results differ from the single-threaded run",
          seed, round);

    fairway_fair_share_table_t* t = nullptr;
    CHECK(fairway_fair_share_table_new(&t) == FAIRWAY_OK, "table");
    CHECK(fairway_fair_share_table_load(t, bad.assocs.data(), bad.assocs.size(),
                                        FAIRWAY_USAGE_HISTORICAL, nullptr, 0,
                                        nullptr) == FAIRWAY_ETREE,
          "bad tree accepted");
    fairway_fair_share_table_destroy(&t);
    std::this_thread::yield();  // let other threads set their own errors meanwhile
    CHECK(std::strstr(fairway_last_error(), bad_msg.c_str()) != nullptr,
          "thread %d reads '%s', expected '%s'", seed, fairway_last_error(), bad_msg.c_str());
    CHECK(std::strcmp(fairway_strerror(FAIRWAY_ETREE), "malformed association tree") == 0,
          "strerror");

    // Job factors and priority.
    fairway_job_input_t job{};
    job.has_details = 1;
    job.accrue_time = 1000;
    job.min_nodes = 1 + round % 4;
    job.min_cpus = 1;
    job.max_cpus = FAIRWAY_NO_VAL;
    job.time_limit = FAIRWAY_NO_VAL;
    job.has_assoc = 1;
    job.fs_factor = 0.5;
    job.site_factor = FAIRWAY_NICE_OFFSET;
    job.nice = FAIRWAY_NICE_OFFSET;
    fairway_job_weighed_t r{};
    CHECK(fairway_job_weigh(&w, &c, &job, 1000 + 3600 * (round % 30), nullptr, nullptr, 0, &r) ==
              FAIRWAY_OK,
          "weigh");
    CHECK(r.priority >= 1, "priority %u", r.priority);
    CHECK(fairway_job_weigh(nullptr, &c, &job, 0, nullptr, nullptr, 0, &r) == FAIRWAY_EINVAL,
          "NULL weights");
    CHECK(std::strstr(fairway_last_error(), "NULL") != nullptr, "own EINVAL message: %s",
          fairway_last_error());

    // Decay helpers and this thread's own state file.
    CHECK(fairway_period_decay(fairway_decay_factor(604800), 300) <= 1, "decay");
    (void)fairway::next_reset(fairway::ResetPeriod::kWeekly, 1767225600 + round * 3600,
                              1767225600 + round * 3600);
    if (round % 20 == 0) {
      const time_t ran = 1767225600 + seed * 100 + round;
      CHECK(fairway_decay_state_save(state.c_str(), ran, ran - 10) == FAIRWAY_OK, "write: %s",
            fairway_last_error());
      fairway_decay_recovery_t rec;
      CHECK(fairway_decay_state_recover_in(state.c_str(), ran, &rec) == FAIRWAY_OK &&
                rec.source == FAIRWAY_DECAY_FROM_FILE && rec.last_ran == ran &&
                rec.last_reset == ran - 10,
            "read back: %s", rec.error);
    }
  }
  ::unlink((state + "/priority_last_decay_ran").c_str());
  ::unlink((state + "/priority_last_decay_ran.old").c_str());
  ::rmdir(state.c_str());
}

}  // namespace

int main() {
  std::vector<Results> reference;
  for (int s = 0; s < kThreads; ++s) reference.push_back(compute_all(make_tree(s), s, false));
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int s = 0; s < kThreads; ++s)
    threads.emplace_back(worker, s, std::cref(reference[static_cast<size_t>(s)]), std::ref(start));
  for (auto& t : threads) t.join();
  const int failed = g_failures.load();
  std::printf("%d threads x %d rounds, %ld checks\n", kThreads, kRounds, g_checks.load());
  std::printf("threads: %ld passed, %d failed\n", g_checks.load() - failed, failed);
  return failed ? 1 : 0;
}
