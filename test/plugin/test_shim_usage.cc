// The plugin shim against a mocked Slurm API (test_shim.h): usage, as job ends and
// periods charge it, as it decays, under each usage basis, and per fair-share TRES.
#include "fairway_fair_share_table.h"
#include "test_shim.h"

namespace {

TEST_F(ShimTest, JobEndChargesUsageUpTheTreeOnce) {
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 2, 4, 1, 1001);  // complete: 4 CPUs
  fake_job_set(100, "start_time", 1000);
  fake_job_set(100, "end_time", 1100);
  {
    InSequence seq;
    EXPECT_CALL(mock_, AssocLock(W, W, R));
    EXPECT_CALL(mock_, AssocUnlock(W, W, R));
  }
  fake_call_job_end(100);
  // no decay configured: 4 CPUs x 100 s to u1, a and root.
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(21)), 100 + 400.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(2)), 100 + 400.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 400.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30.0);
  fake_call_job_end(100);  // a second end charges nothing
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), 130 + 400.0);
}

TEST_F(ShimTest, CycleChargesRunningJobsDecaysAndWritesState) {
  const auto dir = UseStateDir("cycle");
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 2, 1, 1003);  // running since 1000 on 2 CPUs
  ASSERT_EQ(fake_call_cycle(1000), 0);                   // first period: nothing ran yet
  ASSERT_EQ(fake_call_cycle(1060), 0);                   // 60 s later
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 120.0);
  std::ifstream f(dir / "priority_last_decay_ran", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[7]), 1060 % 256);  // big-endian last period
  rm_tree(dir);
}

// fairway_decay=exact: stored usage is halved after exactly one half-life, cut into uneven
// periods, and the mode is logged; without the option the same periods leave multifactor's
// (1 - 0.693/3600)^3600 = 0.50004 of it, and nothing says the decay is exact.
TEST_F(ShimTest, ExactDecayHalvesUsageAfterOneHalfLife) {
  for (bool exact : {true, false}) {
    const auto dir = UseStateDir(exact ? "exact" : "slurm-decay");
    fake_conf_decay_half_life(3600);
    fake_conf_priority_params(exact ? "fairway_decay=exact" : "");
    EXPECT_CALL(mock_, Log(_, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, Log(_, HasSubstr("usage decays exactly, by 2^(-t/PriorityDecayHalfLife)")))
        .Times(exact ? 1 : 0);
    LoadOutsideSlurmctld();
    ASSERT_EQ(fake_call_cycle(1000), 0);  // the first period decays nothing
    fake_assoc_set_usage(31, 1000);
    ASSERT_EQ(fake_call_cycle(2080), 0);  // 0.3 h
    ASSERT_EQ(fake_call_cycle(4600), 0);  // 0.7 h
    const double left = static_cast<double>(fake_assoc_usage_raw(31));
    if (exact) {
      EXPECT_NEAR(left, 500, 1e-9);
    } else {
      EXPECT_NEAR(left, 1000 * std::pow(1 - 0.693 / 3600, 3600), 1e-9);
      EXPECT_GT(left - 500, 0.03);  // 500.04
    }
    fake_call_fini();
    rm_tree(dir);
    testing::Mock::VerifyAndClearExpectations(&mock_);
  }
}

// fairway_usage=allocated under Fair Tree: fair-share compares the CPUs running jobs hold now
// (u1 1 of 5, u3 4 of 5: a's level 2/3 over 1/5 ranks above b's 1/3 over 4/5), not historical
// usage (where b ranks above a); users ranked u2 (holds nothing), u1, u3.  RawUsage stays
// historical, charged as before.  committed weighs each by the seconds left to its end: u1
// 1 CPU x 10000 s against u3 4 CPUs x 500 s puts b above a again.
TEST_F(ShimTest, AllocatedUsageRanksByWhatRunningJobsHoldNow) {
  for (const char* basis : {"allocated", "committed"}) {
    const auto dir = UseStateDir(basis);
    fake_conf_priority_params((std::string("fairway_usage=") + basis).c_str());
    EXPECT_CALL(mock_, Log(_, _)).Times(AnyNumber());
    EXPECT_CALL(mock_, Log(_, HasSubstr(std::string("(fairway_usage=") + basis + ")")))
        .Times(AtLeast(1));
    LoadOutsideSlurmctld();
    fake_add_job(100, 21, "p1", "normal", 1, 1, 1, 1001);  // running, 1 CPU
    fake_add_job(101, 31, "p1", "normal", 1, 4, 1, 1003);  // running, 4 CPUs
    fake_add_job(102, 22, "p1", "normal", 0, 1, 1, 1002);  // pending
    fake_job_set(100, "end_time", 1000 + 10000);
    fake_job_set(101, "end_time", 1000 + 500);
    ASSERT_EQ(fake_call_cycle(1000), 0);
    const bool allocated = std::string(basis) == "allocated";
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), allocated ? 1.0 : 2.0 / 3);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), allocated ? 2.0 / 3 : 1.0 / 3);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), allocated ? 1.0 / 3 : 1.0);
    EXPECT_DOUBLE_EQ(fake_job_factor(102, "fs"), 10000 * fake_assoc_fs_factor(22));
    // Level FS of a: 2/3 of the shares over its fraction of what is held.
    const double a_held = allocated ? 1.0 / 5 : 10000.0 / 12000;
    EXPECT_NEAR(static_cast<double>(fake_assoc_level_fs(2)), (2.0 / 3) / a_held, 1e-12);
    EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(21)), 100.0);  // historical, no time yet
    ASSERT_EQ(fake_call_cycle(1060), 0);                              // 60 s later
    EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(31)), 30 + 240.0);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), allocated ? 1.0 / 3 : 1.0);
    fake_call_fini();
    rm_tree(dir);
    testing::Mock::VerifyAndClearExpectations(&mock_);
    fake_teardown();
    SetUp();
  }
}

// Between periods (priority_fairway_recalc, what fairway_rerank_interval runs), a held usage
// basis recomputes fair-share from what is held now: a job of u3 that started after the
// period turns the order over, and nothing is charged.
TEST_F(ShimTest, RecalcUnderAllocatedUsageSeesJobsStartedSinceThePeriod) {
  const auto dir = UseStateDir("rerank");
  fake_conf_priority_params("fairway_usage=allocated,fairway_rerank_interval=10");
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 1, 4, 1, 1001);  // running, 4 CPUs
  fake_add_job(102, 22, "p1", "normal", 0, 1, 1, 1002);  // pending
  ASSERT_EQ(fake_call_cycle(1000), 0);
  ASSERT_EQ(fake_call_cycle(1060), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);  // b holds nothing: first
  const double charged = static_cast<double>(fake_assoc_usage_raw(1));
  fake_add_job(101, 31, "p1", "normal", 1, 16, 1, 1003);  // u3 starts 16 CPUs
  fake_job_set(101, "start_time", 1070);
  ASSERT_EQ(fake_call_recalc(1080), 0);
  // b: 1/3 of the shares over 16 of 20 CPUs; a: 2/3 over 4 of 20: a's users now first.
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(22), 1.0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0 / 3);
  EXPECT_DOUBLE_EQ(fake_job_factor(102, "fs"), 10000.0);
  EXPECT_EQ(static_cast<double>(fake_assoc_usage_raw(1)), charged);  // nothing charged
  rm_tree(dir);
}

// fairway_rerank_interval without a held usage basis: one line, and it is ignored.
TEST_F(ShimTest, RerankIntervalWithoutHeldUsageIsLoggedAndIgnored) {
  fake_conf_priority_params("fairway_rerank_interval=10");
  EXPECT_CALL(mock_, Log(_, HasSubstr("fairway_rerank_interval needs fairway_usage=allocated or "
                                      "committed")))
      .Times(2);  // init, then reconfigure
  LoadOutsideSlurmctld();
}

// Classic under fairway_usage=allocated computes every association from what is held, in the
// period (users too, not on demand): the same effective usage as a historical period whose
// usage is what was held (root 5, a 1, u1 1, b 4, u3 4 CPUs); and each job's factor is
// 2^(-usage_efctv / shares_norm) with classic's shares (1/3 each): u1 0.2, u2 0.1, u3 0.8.
TEST_F(ShimTest, ClassicAllocatedUsageEqualsHistoricalOfTheHeldUsage) {
  std::vector<long double> held_run, usage_run;
  std::vector<double> held_factors;
  for (bool held : {true, false}) {
    const auto dir = UseStateDir(held ? "classic-held" : "classic-usage");
    fake_conf_classic(1);
    fake_conf_priority_params(held ? "fairway_usage=allocated" : "");
    LoadOutsideSlurmctld();
    if (held) {
      fake_add_job(100, 21, "p1", "normal", 1, 1, 1, 1001);
      fake_add_job(101, 31, "p1", "normal", 1, 4, 1, 1003);
    } else {
      const std::pair<uint32_t, double> usage[] = {{1, 5},  {2, 1}, {21, 1},
                                                   {22, 0}, {3, 4}, {31, 4}};
      for (const auto& [id, u] : usage) fake_assoc_set_usage(id, u);
    }
    for (uint32_t id : {21u, 22u, 31u})  // one pending job each: users computed for them
      fake_add_job(200 + id, id, "p1", "normal", 0, 1, 1, 1000 + id);
    ASSERT_EQ(fake_call_cycle(1000), 0);  // classic weighs from the second period on
    ASSERT_EQ(fake_call_cycle(1060), 0);
    auto& out = held ? held_run : usage_run;
    for (uint32_t id : {2u, 3u, 21u, 22u, 31u}) out.push_back(fake_assoc_usage_efctv(id));
    if (held)
      for (uint32_t id : {21u, 22u, 31u}) held_factors.push_back(fake_job_factor(200 + id, "fs"));
    fake_call_fini();
    rm_tree(dir);
    fake_teardown();
    SetUp();
  }
  ASSERT_EQ(held_run.size(), usage_run.size());
  for (size_t i = 0; i < held_run.size(); ++i) EXPECT_EQ(held_run[i], usage_run[i]) << i;
  ASSERT_EQ(held_factors.size(), 3u);
  EXPECT_NEAR(held_factors[0], 10000 * std::pow(2.0, -0.6), 1e-9);  // u1
  EXPECT_NEAR(held_factors[1], 10000 * std::pow(2.0, -0.3), 1e-9);  // u2
  EXPECT_NEAR(held_factors[2], 10000 * std::pow(2.0, -2.4), 1e-9);  // u3
}

// fairway_fairshare_tres=gres/gpu: a job that mostly asks for GPUs (its share of p1's 4 GPUs at
// least its share of the 64 CPUs) gets the factor of its association's GPU usage; every other
// job, and sshare's values, billing's.  By billing (a 100 of 130, b 30) b ranks first: u3 1,
// u2 2/3, u1 1/3; by GPU usage (a 10 of 100, b 90) a does: u2 1, u1 2/3, u3 1/3.
TEST_F(ShimTest, GpuJobsAreJudgedByGpuUsageAndTheOthersByBilling) {
  for (bool on : {true, false}) {
    const auto dir = UseStateDir(on ? "gpu-on" : "gpu-off");
    // With the period's snapshot, which keeps the GPU usage and the jobs it judged.
    const std::string params =
        (on ? "fairway_fairshare_tres=gres/gpu," : "") + ("fairway_metrics_dir=" + dir.string());
    fake_conf_priority_params(params.c_str());
    if (on)
      EXPECT_CALL(mock_, Log(_, HasSubstr("a job that mostly asks for one of gres/gpu gets the "
                                          "fair-share factor of its association's usage of it")))
          .Times(1);
    LoadOutsideSlurmctld();
    fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
    fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
    const std::pair<uint32_t, double> gpu_usage[] = {
        {1, 100}, {2, 10}, {21, 10}, {3, 90}, {31, 90}};
    for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, u);
    fake_add_job(201, 31, "p1", "normal", 0, 16, 1, 1003);  // 1 GPU, 16 CPUs: a GPU job
    fake_job_set_tres(201, FAKE_TRES_GPU, 1);
    fake_add_job(202, 31, "p1", "normal", 0, 32, 1, 1003);  // 1 GPU, 32 CPUs: a CPU job
    fake_job_set_tres(202, FAKE_TRES_GPU, 1);
    fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);  // 2 GPUs
    fake_job_set_tres(203, FAKE_TRES_GPU, 2);
    fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // no GPU
    ASSERT_EQ(fake_call_cycle(1000), 0);
    EXPECT_DOUBLE_EQ(fake_job_factor(201, "fs"), on ? 10000.0 / 3 : 10000.0);
    EXPECT_DOUBLE_EQ(fake_job_factor(202, "fs"), 10000.0);
    EXPECT_DOUBLE_EQ(fake_job_factor(203, "fs"), on ? 10000.0 * 2 / 3 : 10000.0 / 3);
    EXPECT_DOUBLE_EQ(fake_job_factor(204, "fs"), 10000.0 / 3);
    // sshare's values stay billing's.
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);
    EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(21), 1.0 / 3);
    std::stringstream text;
    text << std::ifstream(dir / "fairway.json").rdbuf();
    const std::string json = text.str();
    // A job's text in the snapshot, from its id to its rows.
    auto job_text = [&](int id) {
      const size_t at = json.find("{\"id\": " + std::to_string(id) + ",");
      return at == std::string::npos ? std::string()
                                     : json.substr(at, json.find("\"rows\"", at) - at);
    };
    ASSERT_NE(job_text(201), "") << json;
    if (on) {
      EXPECT_NE(json.find("\"fairshare_tres\": [\"gres/gpu\"],"), std::string::npos) << json;
      // u3's own GPU usage (its account's 90 is all its users').
      EXPECT_NE(json.find("\"account\": \"b\", \"user\": \"u3\", \"shares\": 1, \"usage\": "),
                std::string::npos);
      EXPECT_NE(json.find("\"tres_usage\": {\"gres/gpu\": 90.0}}"), std::string::npos) << json;
      EXPECT_NE(job_text(201).find("\"fairshare_tres\": \"gres/gpu\""), std::string::npos);
      EXPECT_NE(job_text(203).find("\"fairshare_tres\": \"gres/gpu\""), std::string::npos);
      EXPECT_EQ(job_text(202).find("\"fairshare_tres\""), std::string::npos);
      EXPECT_EQ(job_text(204).find("\"fairshare_tres\""), std::string::npos);
    } else {
      EXPECT_EQ(json.find("fairshare_tres"), std::string::npos);
      EXPECT_EQ(json.find("tres_usage"), std::string::npos);
    }
    // A job submitted after the period gets the period's GPU factor too.
    fake_add_job(205, 22, "p1", "normal", 0, 1, 1, 1002);
    fake_job_set_tres(205, FAKE_TRES_GPU, 1);
    fake_call_set(205);
    EXPECT_DOUBLE_EQ(fake_job_factor(205, "fs"), on ? 10000.0 : 10000.0 * 2 / 3);
    fake_call_fini();
    rm_tree(dir);
    testing::Mock::VerifyAndClearExpectations(&mock_);
    fake_teardown();
    SetUp();
  }
}

// Classic fair-share with fairway_fairshare_tres: a GPU job's factor is the classic factor of
// its association on the tree of GPU usage, as the core computes it from that tree alone, and
// a CPU job's is billing's classic factor.
TEST_F(ShimTest, ClassicGpuJobsGetTheClassicFactorOfTheGpuTree) {
  fake_conf_classic(1);
  fake_conf_priority_params("fairway_fairshare_tres=gres/gpu");
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  const std::pair<uint32_t, double> gpu_usage[] = {{1, 100}, {2, 10}, {21, 10}, {3, 90}, {31, 90}};
  for (const auto& [id, u] : gpu_usage) fake_assoc_set_tres_usage(id, FAKE_TRES_GPU, u);
  fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);  // 2 GPUs
  fake_job_set_tres(203, FAKE_TRES_GPU, 2);
  fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // no GPU
  ASSERT_EQ(fake_call_cycle(1000), 0);
  // The same tree with GPU usage, computed by the core (ids, parents, shares as SetUp's).
  const fairway_assoc_t gpu[] = {{1, 0, "root", nullptr, 1, 0, 100}, {2, 1, "a", nullptr, 2, 0, 10},
                                 {21, 2, "a", "u1", 1, 0, 10},       {22, 2, "a", "u2", 1, 0, 0},
                                 {3, 1, "b", nullptr, 1, 0, 90},     {31, 3, "b", "u3", 1, 0, 90}};
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_load(t, gpu, 6, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_CLASSIC, 1, 0), FAIRWAY_OK);
  fairway_assoc_result_t r{};
  ASSERT_EQ(fairway_fair_share_table_result(t, 2, &r), FAIRWAY_OK);
  fairway_fair_share_table_destroy(&t);
  EXPECT_GT(r.fs_factor, 0.0);
  EXPECT_DOUBLE_EQ(fake_job_factor(203, "fs"), 10000.0 * r.fs_factor);
  // u1 used all of a's billing (100 of 130) and little of the GPUs: its CPU job ranks lower.
  EXPECT_LT(fake_job_factor(204, "fs"), fake_job_factor(203, "fs"));
}

// Under fairway_usage=allocated the GPU tree compares the GPUs running jobs hold: u3 holds 2 of
// them (and 4 CPUs), u1 16 CPUs and none.  By billing b ranks first (u3 1, u2 2/3, u1 1/3); by
// GPUs held a does, its users tied (u1 and u2 1, u3 1/3).  A reconfigure that lists another
// TRES gives its jobs billing's factor until a period computes that TRES's tree.
TEST_F(ShimTest, AllocatedGpusJudgeGpuJobsAndAReconfiguredListNeverReadsTheirTree) {
  const auto dir = UseStateDir("gpu-held");
  fake_conf_priority_params("fairway_usage=allocated,fairway_fairshare_tres=gres/gpu");
  LoadOutsideSlurmctld();
  fake_part_set_tres("p1", 0, 64);  // TRES_ARRAY_CPU
  fake_part_set_tres("p1", FAKE_TRES_GPU, 4);
  fake_add_job(100, 31, "p1", "normal", 1, 4, 1, 1003);  // running: 4 CPUs, 2 GPUs
  fake_job_set_tres(100, FAKE_TRES_GPU, 2);
  fake_add_job(101, 21, "p1", "normal", 1, 16, 1, 1001);  // running: 16 CPUs
  fake_add_job(203, 21, "p1", "normal", 0, 1, 1, 1001);   // pending: 1 GPU
  fake_job_set_tres(203, FAKE_TRES_GPU, 1);
  fake_add_job(204, 21, "p1", "normal", 0, 1, 1, 1001);  // pending: CPUs only
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_DOUBLE_EQ(fake_job_factor(203, "fs"), 10000.0);
  EXPECT_DOUBLE_EQ(fake_job_factor(204, "fs"), 10000.0 / 3);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);
  // Now memory is listed in the GPUs' place: a job asking for all of p1's memory has no
  // memory tree until the next period, and never the GPUs'.
  fake_conf_priority_params("fairway_usage=allocated,fairway_fairshare_tres=mem");
  fake_call_reconfig(0);
  fake_part_set_tres("p1", 1, 1000);  // TRES_ARRAY_MEM
  fake_add_job(206, 21, "p1", "normal", 0, 1, 1, 1001);
  fake_job_set_tres(206, 1, 1000);
  fake_call_set(206);
  EXPECT_DOUBLE_EQ(fake_job_factor(206, "fs"), 10000.0 / 3);
  rm_tree(dir);
}

// Two listed TRES under fairway_usage=allocated: the period's snapshot keeps what the running
// jobs hold of each (u3's job: 2 GPUs and 1000 of memory), each TRES its own.
TEST_F(ShimTest, HeldUsageOfTwoListedTresIsPublishedForEach) {
  const auto dir = UseStateDir("gpu-mem-held");
  const std::string params =
      "fairway_usage=allocated,fairway_fairshare_tres=gres/gpu,mem,"
      "fairway_metrics_dir=" +
      dir.string();
  fake_conf_priority_params(params.c_str());
  LoadOutsideSlurmctld();
  fake_add_job(100, 31, "p1", "normal", 1, 4, 1, 1003);  // running: 4 CPUs, 2 GPUs, 1000 mem
  fake_job_set_tres(100, FAKE_TRES_GPU, 2);
  fake_job_set_tres(100, 1, 1000);  // TRES_ARRAY_MEM
  ASSERT_EQ(fake_call_cycle(1000), 0);
  std::stringstream text;
  text << std::ifstream(dir / "fairway.json").rdbuf();
  const std::string json = text.str();
  EXPECT_NE(json.find("\"fairshare_tres\": [\"gres/gpu\", \"mem\"],"), std::string::npos) << json;
  EXPECT_NE(json.find("\"tres_usage\": {\"gres/gpu\": 2.0, \"mem\": 1000.0}}"), std::string::npos)
      << json;
  rm_tree(dir);
}

// A TRES slurmctld does not track, or depth-oblivious fair-share: one line each time the
// settings are read, and every job is judged by billing.
TEST_F(ShimTest, UntrackedFairShareTresIsLoggedAndIgnored) {
  fake_conf_priority_params("fairway_fairshare_tres=gres/mps,gres/gpu");
  EXPECT_CALL(mock_, Log(_, HasSubstr("fairway_fairshare_tres: gres/mps is not a TRES slurmctld "
                                      "tracks (AccountingStorageTRES), ignored")))
      .Times(2);  // init, then reconfigure
  EXPECT_CALL(mock_, Log(_, HasSubstr("mostly asks for one of gres/gpu gets"))).Times(1);
  LoadOutsideSlurmctld();
}

// A bad fairway_usage value: one line naming it each time the settings are read (init, then
// reconfigure), and fair-share compares historical usage.
TEST_F(ShimTest, BadUsageBasisIsLoggedAndIgnored) {
  fake_conf_priority_params("fairway_usage=now");
  EXPECT_CALL(mock_, Log(_, HasSubstr("fairway_usage='now' is not historical, allocated or "
                                      "committed, ignored")))
      .Times(2);
  LoadOutsideSlurmctld();
  fake_add_job(100, 21, "p1", "normal", 1, 1, 1, 1001);
  ASSERT_EQ(fake_call_cycle(1000), 0);
  EXPECT_DOUBLE_EQ(fake_assoc_fs_factor(31), 1.0);  // b above a, as by historical usage
}

// A Fair Tree period: the job write lock once for the site factor, then once for the whole
// of one walk over the jobs (charging the running ones, collecting the pending ones), the
// tree and the weighing, with every assoc_mgr lock inside it and released before it.

}  // namespace
