// The plugin shim against a mocked Slurm API (test_shim.h): the calculation thread's
// period (its locks, the weighing pool), restart safety, what a period publishes, the
// plugin's log lines, fini, and a slurmctld without slurmdbd.
#include "fairway_usage_state.h"
#include "test_shim.h"

namespace {

TEST_F(ShimTest, FairTreePeriodWalksTheJobsOnceUnderOneJobLock) {
  const auto dir = UseStateDir("lk");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // running
  fake_add_job(101, 21, "p1", "normal", 0, 1, 1, 1001);  // pending
  ASSERT_EQ(fake_call_cycle(1000), 0);
  {
    InSequence seq;
    EXPECT_CALL(mock_, CtldLock(W, R, R));  // site factor update (no decay: half-life 0)
    EXPECT_CALL(mock_, CtldUnlock(W, R, R));
    EXPECT_CALL(mock_, CtldLock(W, R, R));   // one job write lock for the rest:
    EXPECT_CALL(mock_, AssocLock(W, W, R));  // charge running jobs, collect pending ones
    EXPECT_CALL(mock_, AssocUnlock(W, W, R));
    EXPECT_CALL(mock_, AssocLock(W, N, N));  // the tree
    EXPECT_CALL(mock_, AssocUnlock(W, N, N));
    EXPECT_CALL(mock_, AssocLock(R, R, N));  // weighing
    EXPECT_CALL(mock_, AssocUnlock(R, R, N));
    EXPECT_CALL(mock_, CtldUnlock(W, R, R));
  }
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 120.0);
  EXPECT_TRUE(fake_job_has_factors(101));
  EXPECT_GT(fake_job_priority(101), 1u);
  EXPECT_EQ(fake_locks_held(), 0);
  rm_tree(dir);
}

// The weighing pool: at 1, 2 and 8 threads every job gets the same priority and factors, the
// pass is cut into as many ranges as asked, and the queue of the period's snapshot lists the
// jobs in job_list's order whatever the number of threads (each thread notes its own range).
TEST_F(ShimTest, ThePoolWeighsAsOneThreadDoesAtAnyThreadCount) {
  const auto dir = UseStateDir("pool");
  const std::string metrics = "fairway_metrics_dir=" + dir.string();
  ::setenv("FAIRWAY_PARALLEL_MIN_JOBS", "2", 1);
  fake_conf_debug_priority(1);
  fake_conf_priority_params((metrics + ",fairway_weigh_threads=1").c_str());
  LoadOutsideSlurmctld();
  const uint32_t assocs[] = {21, 22, 31};
  for (uint32_t i = 0; i < 300; i++)
    fake_add_job(1000 + i, assocs[i % 3], (i % 7) ? "p1" : "p2", (i % 5) ? "normal" : "high", 0,
                 1 + i % 13, 1 + i % 3, 1001 + i % 3);
  auto queue_of_snapshot = [&] {
    std::ifstream in(dir / "fairway.json");
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    const size_t at = s.find("\"jobs\": [");
    return at == std::string::npos ? std::string() : s.substr(at);
  };
  auto priorities = [] {
    std::vector<double> v;
    for (uint32_t i = 0; i < 300; i++) {
      v.push_back(fake_job_priority(1000 + i));
      for (const char* f : {"fs", "js", "part", "qos"}) v.push_back(fake_job_factor(1000 + i, f));
    }
    return v;
  };
  time_t now = 1000;
  ASSERT_EQ(fake_call_cycle(now), 0);
  ASSERT_EQ(fake_call_cycle(now += 60), 0);
  const std::vector<double> one = priorities();
  const std::string queue = queue_of_snapshot();
  ASSERT_NE(queue.find("\"id\": 1299,"), std::string::npos) << queue.substr(0, 200);
  EXPECT_LT(queue.find("\"id\": 1000,"), queue.find("\"id\": 1001,"));
  EXPECT_LT(queue.find("\"id\": 1298,"), queue.find("\"id\": 1299,"));
  for (int threads : {2, 8, 2}) {  // fewer again: the pool's other threads sit the pass out
    fake_conf_priority_params(
        (metrics + ",fairway_weigh_threads=" + std::to_string(threads)).c_str());
    fake_call_reconfig(0);
    EXPECT_CALL(mock_,
                Log(_, HasSubstr("weighed 300 jobs in " + std::to_string(threads) + " threads")))
        .Times(1);
    ASSERT_EQ(fake_call_cycle(now += 60), 0);
    EXPECT_EQ(priorities(), one) << threads << " threads";
    EXPECT_EQ(queue_of_snapshot(), queue) << threads << " threads";
  }
  rm_tree(dir);
}

// A slurmctld killed between its usage checkpoints: Fairway's usage file (written at every
// period) and journal (every job end since) give back what was charged, and a job whose
// end was already charged is not charged again when it comes back as running.
TEST_F(ShimTest, UsageSurvivesAKilledSlurmctld) {
  const auto dir = UseStateDir("kill");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // runs from 1000 on 2 CPUs
  fake_add_job(101, 21, "p1", "normal", 2, 4, 1, 1001);  // ends at 1100 on 4 CPUs
  fake_job_set(101, "end_time", 1100);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);  // job 100: +120
  fake_call_job_end(101);               // job 101: 1060..1100 x 4 = +160
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 120 + 160.0);
  EXPECT_TRUE(std::filesystem::exists(dir / "fairway_usage"));
  EXPECT_EQ(
      std::filesystem::status(dir / "fairway_usage").permissions() & std::filesystem::perms::all,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // kill -9: slurmctld restarts from its own older checkpoint (the usage before both
  // charges) and recovers job 101 as still running.
  fake_call_fini();
  fake_assoc_set_usage(1, 130);
  fake_assoc_set_usage(2, 100);
  fake_assoc_set_usage(21, 100);
  fake_assoc_set_usage(3, 30);
  fake_assoc_set_usage(31, 30);
  fake_job_set(101, "state", 1);
  fake_job_set(101, "end_time_exp", 5000);
  EXPECT_CALL(mock_, Log(_, HasSubstr("restored from the period at 1060, plus 1 job ends")));
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1120), 0);  // job 100: +120 more; job 101 not again
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 120 + 120.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(21)), 100 + 160.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 120 + 160 + 120.0);
  rm_tree(dir);
}

// With fairway_metrics_dir the period's snapshot holds the pending queue (version 2), up to
// fairway_queue_jobs jobs; above that, the association tree only, told once per episode.
TEST_F(ShimTest, TheQueueInThePeriodsSnapshotIsBoundedByFairwayQueueJobs) {
  const auto dir = UseStateDir("queue");
  const std::string metrics = "fairway_metrics_dir=" + dir.string();
  fake_conf_priority_params((metrics + ",fairway_queue_jobs=1").c_str());
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(101, 31, "p1", "normal", 0, 1, 1, 1003);
  auto snapshot = [&] {
    std::ifstream in(dir / "fairway.json");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  EXPECT_CALL(mock_,
              Log(_, HasSubstr("2 pending jobs, more than fairway_queue_jobs=1: " + dir.string() +
                               "/fairway.json holds the association "
                               "tree only until they are fewer")))
      .Times(1);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_NE(snapshot().find("{\"fairway_snapshot\": 1,"), std::string::npos);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_NE(snapshot().find("{\"fairway_snapshot\": 1,"), std::string::npos);

  fake_conf_priority_params((metrics + ",fairway_queue_jobs=2").c_str());
  fake_call_reconfig(0);
  ASSERT_EQ(fake_call_cycle(1120), 0);
  const std::string text = snapshot();
  EXPECT_NE(text.find("{\"fairway_snapshot\": 2,"), std::string::npos) << text.substr(0, 200);
  EXPECT_NE(text.find("\"id\": 100,"), std::string::npos);
  EXPECT_NE(text.find("\"id\": 101,"), std::string::npos);
  rm_tree(dir);
}

// A job that started since the last period is recorded with the site factor its priority
// used: prio_factors holds it biased by NICE_OFFSET (2^31) as Slurm does, the record does not.
TEST_F(ShimTest, AStartedJobIsRecordedWithTheSiteFactorItsPriorityUsed) {
  const auto dir = UseStateDir("starts");
  fake_conf_priority_params("fairway_history_days=1");
  LoadOutsideSlurmctld();
  fake_add_job(14, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_add_job(15, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_job_set(15, "site_factor", 250);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  for (uint32_t id : {14u, 15u}) {
    fake_job_set(id, "state", 1);
    fake_job_set(id, "start_time", 1030);
    fake_job_set(id, "nodes", 1);
  }
  ASSERT_EQ(fake_call_cycle(1060), 0);
  std::string text;
  for (const auto& e : std::filesystem::directory_iterator(dir / "fairway_history"))
    if (e.path().filename().string().rfind("starts-", 0) == 0) {
      std::stringstream f;
      f << std::ifstream(e.path()).rdbuf();
      text += f.str();
    }
  auto record = [&](int id) {
    const size_t at = text.find("{\"job\":" + std::to_string(id) + ",");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  ASSERT_NE(record(14), "") << text;
  ASSERT_NE(record(15), "") << text;
  EXPECT_NE(record(14).find("\"site\":0.0,"), std::string::npos) << record(14);
  EXPECT_NE(record(15).find("\"site\":250.0,"), std::string::npos) << record(15);
  rm_tree(dir);
}

// fairway_starvation_minutes: a user whose job is first in line and waits only for resources
// (state reason Resources) is not starved of service; the same job waiting behind others'
// priority (reason Priority) is.
TEST_F(ShimTest, AJobFirstInLineWaitingForResourcesIsNotStarvation) {
  fake_conf_priority_params("fairway_starvation_minutes=1");
  std::vector<std::string> said;
  EXPECT_CALL(mock_, Log(_, _)).WillRepeatedly([&](int, const std::string& m) {
    said.push_back(m);
  });
  auto starvation = [&] {
    return std::count_if(said.begin(), said.end(), [](const std::string& m) {
      return m.find("fair-share starvation: user u3 in account b") != std::string::npos;
    });
  };
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 0, 1, 1, 1003);  // eligible since 1000
  fake_job_set(100, "waits_for_resources", 1);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_EQ(starvation(), 0);
  fake_job_set(100, "waits_for_resources", 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_EQ(starvation(), 1);
}

// Every line the plugin logs names it once, whatever the level: Slurm's info(), verbose(),
// debug*() and log_flag() add no prefix of their own to the plugin's.
TEST_F(ShimTest, EveryLogLineNamesThePluginOnce) {
  const auto dir = UseStateDir("log-prefix");
  fake_conf_debug_priority(1);
  fake_conf_priority_params(("fairway_metrics_dir=" + dir.string() +
                             ",fairway_history_days=1,fairway_starvation_minutes=1,"
                             "fairway_nope=1,fairway_usage=allocated")
                                .c_str());
  std::vector<std::string> said;
  std::mutex said_lock;  // the calculation thread logs too, while init still does
  EXPECT_CALL(mock_, Log(_, _)).WillRepeatedly([&](int, const std::string& m) {
    std::lock_guard<std::mutex> hold(said_lock);
    said.push_back(m);
  });
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 0, 1, 1, 1003);
  fake_add_job(101, 21, "p1", "normal", 1, 1, 1, 1001);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  fake_call_set(100);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  // Loaded again as slurmctld loads it (with a calculation thread).
  ASSERT_EQ(fake_call_fini(), 0);
  fake_set_cluster(64, 4);
  ASSERT_EQ(fake_call_init(), 0);
  ASSERT_EQ(fake_call_fini(), 0);  // (the thread has stopped: `said` is the test's again)
  ASSERT_GE(said.size(), 5u);
  int loaded = 0;
  for (const std::string& m : said) {
    const size_t first = m.find("priority/fairway");
    EXPECT_EQ(m.find("priority/fairway", first + 1), std::string::npos) << m;
    loaded += m.rfind("priority/fairway: loaded outside slurmctld", 0) == 0;
    loaded += m.rfind("priority/fairway: Priority FAIRWAY plugin ", 0) == 0;
  }
  EXPECT_EQ(loaded, 2);
  rm_tree(dir);
}

// fairway_fairshare_tres: a listed TRES that makes every job or every association tie is told
// once when it starts and once when it ends, not every period.  With no GPU usage anywhere
// both GPU jobs get one factor; with usage they are told apart again; a CPU job among them
// leaves only the associations' unused GPUs to tell.
TEST_F(ShimTest, AFairShareTresThatMakesEveryJobTieIsToldOncePerChange) {
  fake_conf_priority_params("fairway_fairshare_tres=gres/gpu");
  std::vector<std::string> said;
  EXPECT_CALL(mock_, Log(_, _)).WillRepeatedly([&](int, const std::string& m) {
    if (m.find("fairway_fairshare_tres: ") != std::string::npos) said.push_back(m);
  });
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  ASSERT_EQ(fake_call_cycle(940), 0);  // no job: nothing ties, whatever the usage
  EXPECT_TRUE(said.empty()) << said[0];
  fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);  // 2 GPUs
  fake_job_set_tres(203, FAKE_TRES_GPU, 2);
  fake_add_job(206, 22, "p1", "normal", 0, 1, 1, 1002);  // 1 GPU
  fake_job_set_tres(206, FAKE_TRES_GPU, 1);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0],
            "priority/fairway: fairway_fairshare_tres: every pending job (2) is judged by its "
            "share of gres/gpu, and all get fair-share factor 1.000000: fair-share orders none "
            "of them (a default a job is given, such as DefMemPerCPU or DefMemPerNode for mem, "
            "counts as asked for)");
  const std::pair<uint32_t, double> gpu_usage[] = {{1, 100}, {2, 10}, {21, 10}, {3, 90}, {31, 90}};
  for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, u);
  ASSERT_EQ(fake_call_cycle(1120), 0);
  ASSERT_EQ(fake_call_cycle(1180), 0);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[1], "priority/fairway: fairway_fairshare_tres: gres/gpu tells jobs apart again");
  for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, 0);
  fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // no GPU: billing's
  ASSERT_EQ(fake_call_cycle(1240), 0);
  ASSERT_EQ(fake_call_cycle(1300), 0);
  ASSERT_EQ(said.size(), 3u);
  EXPECT_EQ(said[2],
            "priority/fairway: fairway_fairshare_tres: no association has used gres/gpu: every "
            "job judged by its share of gres/gpu gets the same fair-share factor");
}

// An association created after the last period is not in the usage file: what it was
// charged since is all in the journal, so it starts from 0 and the journal is replayed once.
// slurmctld's own checkpoint, saved at a clean shutdown after the job ended, already holds
// that charge; counting both would give the user twice what its parents show.
TEST_F(ShimTest, AnAssociationCreatedAfterThePeriodIsNotChargedTwice) {
  const auto dir = UseStateDir("new-assoc");
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1000), 0);  // the usage file: the tree without user 32
  fake_add_user_linked(32, 3, "u4", 1, 0);
  fake_add_job(100, 32, "p1", "normal", 2, 4, 1, 1003);  // runs 1000..1100 on 4 CPUs
  fake_job_set(100, "end_time", 1100);
  fake_call_job_end(100);  // +400 up the tree
  const double user = static_cast<double>(fake_assoc_usage_raw(32));
  const double account = static_cast<double>(fake_assoc_usage_raw(3));
  const double root = static_cast<double>(fake_assoc_usage_raw(1));
  EXPECT_EQ(user, 400.0);

  // A clean shutdown: slurmctld's checkpoint holds the usage as it is now.
  fake_call_fini();
  fake_job_set(100, "state", 3);
  EXPECT_CALL(mock_, Log(_, HasSubstr("plus 1 job ends after it; 1 associations created since "
                                      "start from 0")));
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1000), 0);  // the first period restores
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(32)), user);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(3)), account);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), root);
  rm_tree(dir);
}

// Slurm 26.05 charges a pending heterogeneous job component when it is submitted, through
// priority_p_job_end.  The journal keeps that charge ("c"), but it is not the job's end: after
// a kill -9 the job, running by then, is charged by the periods like any other.
TEST_F(ShimTest, AChargeOfAPendingJobIsNotItsEnd) {
  const auto dir = UseStateDir("het");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // 2 CPUs allocated...
  fake_job_set(100, "state", 0);                         // ...to a pending component,
  fake_job_set(100, "start_time", 0);
  fake_job_set(100, "end_time_exp", 5000);  // as acct_policy_job_begin leaves it
  ASSERT_EQ(fake_call_cycle(1000), 0);
  const double before = static_cast<double>(fake_assoc_usage_raw(31));
  fake_call_job_end(100);
  std::ifstream journal(dir / "fairway_usage.journal");
  std::string line;
  ASSERT_TRUE(std::getline(journal, line));
  EXPECT_EQ(line.substr(0, 2), "c ") << line;
  const double charged = static_cast<double>(fake_assoc_usage_raw(31)) - before;

  // kill -9, then slurmctld comes back from its older checkpoint; the job has started.
  fake_call_fini();
  fake_assoc_set_usage(31, before);
  fake_job_set(100, "state", 1);
  fake_job_set(100, "start_time", 1000);
  fake_job_set(100, "end_time_exp", 5000);
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(1060), 0);  // restored: before + charged; the period: +120
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), before + charged + 120.0);
  rm_tree(dir);
}

// After another plugin ran (its decay state is newer than Fairway's usage file), slurmctld's
// usage is kept.
TEST_F(ShimTest, StaleUsageFileIsNotRestored) {
  const auto dir = UseStateDir("stale");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  fake_call_fini();
  // multifactor ran a period at 2000 meanwhile (same state file format) and charged more
  ASSERT_EQ(fairway_decay_state_save(dir.c_str(), 2000, 0), 0);
  fake_assoc_set_usage(31, 5000);
  EXPECT_CALL(mock_, Log(_, HasSubstr("keeping slurmctld's usage")));
  LoadOutsideSlurmctld();
  ASSERT_EQ(fake_call_cycle(2000), 0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 5000.0);
  rm_tree(dir);
}

TEST_F(ShimTest, CorruptStateFileIsReportedNotFatal) {
  const auto dir = UseStateDir("bad");
  std::ofstream(dir / "priority_last_decay_ran") << "garbage";
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("decay state unusable")));
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("no usable decay state")));
  ASSERT_EQ(fake_call_cycle(2000), 0);
  // Counting from now: the running job is not charged for time before the restart.
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30.0);
  rm_tree(dir);
}

TEST_F(ShimTest, InsideSlurmctldFiniStopsTheThreadPromptly) {
  const auto dir = UseStateDir("thr");
  fake_set_cluster(64, 4);  // as in slurmctld: init starts the calculation thread
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(true));
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  ASSERT_EQ(fake_call_init(), 0);
  // The thread's first period runs at once: wait until it has weighed the job.
  for (int i = 0; i < 200 && !fake_job_has_factors_locked(100); i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(fake_job_has_factors_locked(100));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(fake_call_fini(), 0);  // PriorityCalcPeriod is 300 s: fini must not wait for it
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  rm_tree(dir);
}

// fini while the calculation thread is inside a period (holding the job write lock): fini
// waits for that period to finish, the period completes (the job is weighed, the state file
// written) and no lock stays held.  A hook holds the thread inside the lock until the test
// has called fini.
TEST_F(ShimTest, FiniDuringACalculationLetsThePeriodFinish) {
  const auto dir = UseStateDir("mid");
  fake_set_cluster(64, 4);
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(true));
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);

  const auto main_thread = std::this_thread::get_id();
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> armed{true};
  EXPECT_CALL(mock_, CtldLock(_, _, _)).WillRepeatedly([&](int job, int, int) {
    if (job == W && std::this_thread::get_id() != main_thread && armed.exchange(false)) {
      entered.set_value();
      released.wait();
    }
  });
  ASSERT_EQ(fake_call_init(), 0);
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the calculation thread never took the job write lock";
  EXPECT_FALSE(fake_job_has_factors(100));  // mid-period: not weighed yet
  auto fini = std::async(std::launch::async, [] { return fake_call_fini(); });
  EXPECT_EQ(fini.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "fini returned while a period was still running";
  release.set_value();
  ASSERT_EQ(fini.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(fini.get(), 0);
  EXPECT_TRUE(fake_job_has_factors(100));  // the period ran to its end
  EXPECT_TRUE(std::filesystem::exists(dir / "priority_last_decay_ran"));
  EXPECT_EQ(fake_locks_held(), 0);
  rm_tree(dir);
}

TEST_F(ShimTest, WithoutSlurmdbdFairShareIsOffAndSaidSo) {
  fake_set_cluster(64, 4);
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(false));
  EXPECT_CALL(mock_,
              Log(kLogError, HasSubstr("PriorityWeightFairshare can only be used with SlurmDBD")));
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  ASSERT_EQ(fake_call_init(), 0);
  // From 24.11 a calculation thread runs without slurmdbd too and may be weighing the job:
  // stop it before reading the job.
  ASSERT_EQ(fake_call_fini(), 0);
  EXPECT_DOUBLE_EQ(fake_job_factor(100, "fs"), 0.0);
  EXPECT_GT(fake_job_priority(100), 1u);
}

// Without slurmdbd, 24.11's multifactor still runs its thread: every period weighs every job
// (a partition's PriorityJobFactor changed with scontrol reaches pending jobs without a
// restart).  22.05 weighed them once, at start.  Neither charges nor writes a state file, so
// the usage file of an earlier run with slurmdbd stays as it was.
TEST_F(ShimTest, WithoutSlurmdbdTheThreadWeighsEveryJobFrom2411) {
  const auto dir = UseStateDir("nodbd");
  fake_set_cluster(64, 4);
  EXPECT_CALL(mock_, WithSlurmdbd()).WillRepeatedly(Return(false));
  EXPECT_CALL(mock_, Log(kLogError, HasSubstr("can only be used with SlurmDBD")))
      .Times(::testing::AnyNumber());
  fake_add_job(100, 21, "p1", "normal", 0, 1, 1, 1001);
  const auto main_thread = std::this_thread::get_id();
  std::atomic<int> thread_job_writes{0};
  EXPECT_CALL(mock_, CtldLock(_, _, _)).WillRepeatedly([&](int job, int, int) {
    if (job == W && std::this_thread::get_id() != main_thread) thread_job_writes++;
  });
  ASSERT_EQ(fake_call_init(), 0);
  EXPECT_TRUE(fake_job_has_factors_locked(100));  // weighed once jobs are loaded, on every release
  if (fake_thread_without_fair_share()) {
    // The thread's first period runs at once and weighs the job under the job write lock.
    for (int i = 0; i < 500 && thread_job_writes == 0; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_GT(thread_job_writes.load(), 0) << "no period ran without slurmdbd";
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(thread_job_writes.load(), 0) << "22.05 runs no thread without slurmdbd";
  }
  ASSERT_EQ(fake_call_fini(), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "priority_last_decay_ran"));
  EXPECT_FALSE(std::filesystem::exists(dir / "fairway_usage"));
  EXPECT_EQ(fake_locks_held(), 0);
  rm_tree(dir);
}

}  // namespace
