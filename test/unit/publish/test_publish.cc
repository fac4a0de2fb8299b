// What a period publishes: PriorityParameters' options, the pending-queue figures, the
// Prometheus text (escaping, infinities, one HELP/TYPE per family) and fairway_publish()'s two
// files (modes, atomic replacement, a snapshot that replays to the same fair-share values).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fairway.h"
#include "fairway_publish.h"
#include "metrics_format.h"
#include "pending_stats.h"
#include "plugin_options.h"
#include "queue.h"
#include "snapshot.h"
#include "starvation.h"

namespace fairway {
namespace {

// ---- PriorityParameters ----

TEST(PluginOptions, MetricsDirAndOneMessagePerBadOption) {
  std::vector<std::string> problems;
  const PluginOptions o = parse_priority_parameters(
      " fairway_metrics_dir=/var/lib/fw/ , other=1,fairway_nope=2,,fairway_metrics_dir", problems);
  EXPECT_EQ(o.metrics_dir, "/var/lib/fw");
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(
      problems[0],
      "PriorityParameters: 'other=1' is not a Fairway option (those begin with fairway_), ignored");
  EXPECT_EQ(
      problems[1],
      "PriorityParameters: unknown option 'fairway_nope', ignored (the options are: "
      "fairway_metrics_dir, fairway_history_days, fairway_starvation_minutes, "
      "fairway_starvation_quantile, fairway_shadow, fairway_queue_jobs, fairway_decay, "
      "fairway_usage, fairway_rerank_interval, fairway_fairshare_tres, fairway_weigh_threads, "
      "fairway_publish_users)");
  EXPECT_EQ(problems[2],
            "PriorityParameters: fairway_metrics_dir needs a directory "
            "(fairway_metrics_dir=/path), ignored");
}

TEST(PluginOptions, RelativeOrHugePathsAndRepeatsAreNamed) {
  std::vector<std::string> problems;
  PluginOptions o = parse_priority_parameters("fairway_metrics_dir=var/fw", problems);
  EXPECT_EQ(o.metrics_dir, "");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "PriorityParameters: fairway_metrics_dir='var/fw' is not an absolute path, ignored");
  problems.clear();
  o = parse_priority_parameters("fairway_metrics_dir=/" + std::string(5000, 'a'), problems);
  EXPECT_EQ(o.metrics_dir, "");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("of at most 4000 bytes"), std::string::npos);
  problems.clear();
  o = parse_priority_parameters("fairway_metrics_dir=/a,fairway_metrics_dir=/b", problems);
  EXPECT_EQ(o.metrics_dir, "/b");
  EXPECT_EQ(problems.size(), 1u);
  problems.clear();
  o = parse_priority_parameters("fairway_colour=\x01\xff", problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(
      problems[0],
      "PriorityParameters: unknown option 'fairway_colour', ignored (the options are: "
      "fairway_metrics_dir, fairway_history_days, fairway_starvation_minutes, "
      "fairway_starvation_quantile, fairway_shadow, fairway_queue_jobs, fairway_decay, "
      "fairway_usage, fairway_rerank_interval, fairway_fairshare_tres, fairway_weigh_threads, "
      "fairway_publish_users)");
  problems.clear();
  o = parse_priority_parameters("", problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(o.metrics_dir, "");
}

TEST(PluginOptions, ShadowPolicyNeedsAMetricsDirectoryAndQueueJobsAreBounded) {
  std::vector<std::string> problems;
  PluginOptions o = parse_priority_parameters(
      "fairway_metrics_dir=/m,fairway_shadow=/etc/slurm/shadow.conf,fairway_queue_jobs=5000",
      problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(o.shadow_file, "/etc/slurm/shadow.conf");
  EXPECT_EQ(o.queue_jobs, 5000u);
  EXPECT_EQ(parse_priority_parameters("", problems).queue_jobs, kDefaultQueueJobs);
  o = parse_priority_parameters("fairway_shadow=/etc/slurm/shadow.conf", problems);
  EXPECT_EQ(o.shadow_file, "");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "PriorityParameters: fairway_shadow='/etc/slurm/shadow.conf' needs "
            "fairway_metrics_dir (where its results are published), ignored");
  problems.clear();
  o = parse_priority_parameters(
      "fairway_metrics_dir=/m,fairway_shadow=shadow.conf,"
      "fairway_queue_jobs=10000001,fairway_shadow",
      problems);
  EXPECT_EQ(o.shadow_file, "");
  EXPECT_EQ(o.queue_jobs, kDefaultQueueJobs);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0],
            "PriorityParameters: fairway_shadow='shadow.conf' is not an absolute path, ignored");
  EXPECT_EQ(problems[1],
            "PriorityParameters: fairway_queue_jobs='10000001' is not a whole number of jobs from "
            "0 to 10000000, ignored");
  EXPECT_EQ(problems[2],
            "PriorityParameters: fairway_shadow needs a file (fairway_shadow=/path), ignored");
}

TEST(PluginOptions, DecayIsSlurmsUnlessExactIsAsked) {
  std::vector<std::string> problems;
  EXPECT_FALSE(parse_priority_parameters("", problems).decay_exact);
  EXPECT_TRUE(parse_priority_parameters("fairway_decay=exact", problems).decay_exact);
  EXPECT_FALSE(parse_priority_parameters("fairway_decay=slurm", problems).decay_exact);
  EXPECT_TRUE(problems.empty());
  for (const char* bad : {"fairway_decay=Exact", "fairway_decay=", "fairway_decay"}) {
    problems.clear();
    EXPECT_FALSE(parse_priority_parameters(bad, problems).decay_exact) << bad;
    ASSERT_EQ(problems.size(), 1u) << bad;
    EXPECT_NE(problems[0].find("is not slurm or exact, ignored (usage decays as multifactor's "
                               "does)"),
              std::string::npos)
        << problems[0];
  }
}

TEST(PluginOptions, HistoryDays) {
  std::vector<std::string> problems;
  EXPECT_EQ(parse_priority_parameters("fairway_history_days=30", problems).history_days, 30u);
  EXPECT_TRUE(problems.empty());
  for (const char* bad :
       {"fairway_history_days=0", "fairway_history_days=3651", "fairway_history_days=1.5",
        "fairway_history_days=", "fairway_history_days=-1", "fairway_history_days=99999"}) {
    problems.clear();
    EXPECT_EQ(parse_priority_parameters(bad, problems).history_days, 0u) << bad;
    ASSERT_EQ(problems.size(), 1u) << bad;
    EXPECT_NE(problems[0].find("is not a whole number of days from 1 to 3650, ignored"),
              std::string::npos)
        << problems[0];
  }
}

TEST(PluginOptions, Starvation) {
  std::vector<std::string> problems;
  PluginOptions o = parse_priority_parameters(
      "fairway_starvation_minutes=720,fairway_starvation_quantile=0.9", problems);
  EXPECT_EQ(o.starvation_minutes, 720u);
  EXPECT_EQ(o.starvation_quantile, 0.9);
  EXPECT_TRUE(problems.empty());
  o = parse_priority_parameters(
      "fairway_starvation_minutes=0,fairway_starvation_quantile=0,fairway_starvation_quantile=1.5,"
      "fairway_starvation_quantile=x",
      problems);
  EXPECT_EQ(o.starvation_minutes, 0u);
  EXPECT_EQ(o.starvation_quantile, 0.75);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0],
            "PriorityParameters: fairway_starvation_minutes='0' is not a whole number of minutes "
            "from 1 to 525600, ignored");
  EXPECT_EQ(problems[3],
            "PriorityParameters: fairway_starvation_quantile='x' is not a number above 0 and at "
            "most 1, ignored");
}

TEST(PluginOptions, WeighThreadsFromOneToSixtyFour) {
  std::vector<std::string> problems;
  EXPECT_EQ(parse_priority_parameters("", problems).weigh_threads, 0u);
  EXPECT_EQ(parse_priority_parameters("fairway_weigh_threads=1", problems).weigh_threads, 1u);
  EXPECT_EQ(parse_priority_parameters("fairway_weigh_threads=64", problems).weigh_threads, 64u);
  EXPECT_TRUE(problems.empty());
  for (const char* bad :
       {"fairway_weigh_threads=0", "fairway_weigh_threads=65", "fairway_weigh_threads=2.5",
        "fairway_weigh_threads=", "fairway_weigh_threads=all"}) {
    problems.clear();
    EXPECT_EQ(parse_priority_parameters(bad, problems).weigh_threads, 0u) << bad;
    ASSERT_EQ(problems.size(), 1u) << bad;
    EXPECT_NE(problems[0].find("is not a whole number of threads from 1 to 64, ignored"),
              std::string::npos)
        << problems[0];
  }
  fairway_options_t c;
  ASSERT_EQ(fairway_options_parse("fairway_weigh_threads=8", &c, nullptr, nullptr), FAIRWAY_OK);
  EXPECT_EQ(c.weigh_threads, 8u);
}

TEST(PluginOptions, CApiReportsThroughTheCallback) {
  fairway_options_t o;
  std::vector<std::string> said;
  auto say = [](const char* m, void* arg) {
    static_cast<std::vector<std::string>*>(arg)->push_back(m);
  };
  ASSERT_EQ(fairway_options_parse("fairway_metrics_dir=/x,bad", &o, say, &said), FAIRWAY_OK);
  EXPECT_STREQ(o.metrics_dir, "/x");
  EXPECT_EQ(said.size(), 1u);
  ASSERT_EQ(fairway_options_parse(nullptr, &o, nullptr, nullptr), FAIRWAY_OK);
  EXPECT_STREQ(o.metrics_dir, "");
  EXPECT_EQ(fairway_options_parse("x", nullptr, nullptr, nullptr), FAIRWAY_EINVAL);
}

// ---- the pending queue in figures ----

TEST(PendingStats, NearestRankQuantilesCountsAndOldest) {
  std::vector<PendingRow> rows;
  // Partition 0: priorities 1..10, submitted at 100..109; QOS 0 for all but the last.
  for (uint32_t p = 1; p <= 10; p++) rows.push_back({0, p == 10 ? kNoQos : 0, p, 99 + p, true});
  // Job 11 in partitions 1 and 0 (its second row does not count for its QOS again).
  rows.push_back({1, 1, 500, 50, true});
  rows.push_back({0, 1, 400, 50, false});
  rows.push_back({7, 9, 1, 1, true});  // indexes out of range: not counted
  const PendingStats s = pending_stats(rows, 3, 2, 200);
  const PendingFigures& p0 = s.partitions[0];
  EXPECT_EQ(p0.jobs, 11u);
  EXPECT_EQ(p0.priority_sum, 55.0 + 400);
  // Sorted: 1..10, 400.  q0 -> 1, q.5 -> rank 6 -> 6, q.9 -> rank 10 -> 10, q.99 -> rank 11.
  EXPECT_EQ(p0.quantiles[0], 1u);
  EXPECT_EQ(p0.quantiles[1], 6u);
  EXPECT_EQ(p0.quantiles[2], 10u);
  EXPECT_EQ(p0.quantiles[3], 400u);
  EXPECT_EQ(p0.quantiles[4], 400u);
  EXPECT_EQ(p0.oldest_wait, 150);
  EXPECT_EQ(s.partitions[1].jobs, 1u);
  EXPECT_EQ(s.partitions[2].jobs, 0u);
  EXPECT_EQ(s.partitions[2].oldest_wait, 0);
  EXPECT_EQ(s.qos[0].jobs, 9u);
  EXPECT_EQ(s.qos[1].jobs, 1u);
  EXPECT_EQ(s.qos[1].quantiles[4], 500u);
  EXPECT_EQ(s.qos[1].oldest_wait, 150);
}

// ---- the exposition text ----

TEST(MetricsFormat, EscapesLabelsAndSpellsInfinities) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(metric_value(INFINITY), "+Inf");
  EXPECT_EQ(metric_value(-INFINITY), "-Inf");
  EXPECT_EQ(metric_value(NAN), "NaN");
  EXPECT_EQ(metric_value(0.5), "0.5");
  EXPECT_EQ(metric_value(0.1), "0.1");
  EXPECT_EQ(metric_value(1e20), "1e+20");
}

std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    const std::string v = line.substr(sp + 1);
    out[line.substr(0, sp)] = v == "+Inf" ? INFINITY : v == "NaN" ? NAN : std::stod(v);
  }
  return out;
}

// root -> a (shares 3, usage 30) -> alice (usage 30); root -> "b\"x" (shares 1, no usage).
std::vector<AssocRecord> small_tree() {
  std::vector<AssocRecord> r(4);
  r[0] = {1, 0, "root", "", false, 1, 30};
  r[1] = {2, 1, "a", "", false, 3, 30};
  r[2] = {3, 2, "a", "alice", false, 1, 30};
  r[3] = {4, 1, "b\"x", "", false, 1, 0};
  return r;
}

TEST(MetricsFormat, FairTreeValuesLikeSshareAndOneHelpPerFamily) {
  const AssocTree t = AssocTree::build(small_tree());
  FairShareResult res;
  compute_fair_share(t, Algorithm::kFairTree, 1, res);
  MetricsInput in;
  in.tree = &t;
  in.result = &res;
  in.version = "9.9";
  in.slurm_release = "24.11.5";
  in.partitions = {"debug"};
  in.qos = {"normal"};
  in.pending.partitions.resize(1);
  in.pending.qos.resize(1);
  in.pending.partitions[0].jobs = 2;
  in.pending.partitions[0].quantiles = {5, 5, 7, 7, 7};
  in.pending.partitions[0].priority_sum = 12;
  in.jobs_weighed = 2;
  const std::string text = format_metrics(in);
  const auto s = samples(text);
  const std::string alice = R"({id="3",account="a",user="alice",parent="a"})";
  const std::string b = R"({id="4",account="b\"x",user="",parent="root"})";
  EXPECT_EQ(s.at("fairway_association_shares_normalized" + alice), 1.0);
  EXPECT_EQ(s.at("fairway_association_usage_raw" + alice), 30.0);
  EXPECT_EQ(s.at("fairway_association_fairshare_factor" + alice), 1.0);  // the only user
  // b: no usage, Level FS = shares / 0 = +Inf; entitled 1/4, delivered 0.
  EXPECT_TRUE(std::isinf(s.at("fairway_association_level_fs" + b)));
  EXPECT_EQ(s.at("fairway_association_delivered_entitled_ratio" + b), 0.0);
  // a: all usage (1) over 3/4 of the shares.
  EXPECT_DOUBLE_EQ(
      s.at(
          R"(fairway_association_delivered_entitled_ratio{id="2",account="a",user="",parent="root"})"),
      4.0 / 3);
  // The root: no Level FS and no normalized usage sample (sshare prints them empty).
  EXPECT_EQ(s.count(R"(fairway_association_level_fs{id="1",account="root",user="",parent=""})"),
            0u);
  EXPECT_EQ(s.at(R"(fairway_partition_pending_priority{partition="debug",quantile="0.5"})"), 5.0);
  EXPECT_EQ(s.at(R"(fairway_partition_pending_priority_count{partition="debug"})"), 2.0);
  EXPECT_TRUE(std::isnan(s.at(R"(fairway_qos_pending_priority{qos="normal",quantile="1"})")));
  EXPECT_EQ(
      s.at(
          R"(fairway_info{version="9.9",slurm_release="24.11.5",algorithm="fair_tree",decay="slurm",usage="historical"})"),
      1.0);
  in.decay_exact = true;
  in.usage_basis = UsageBasis::kCommitted;
  EXPECT_EQ(
      samples(format_metrics(in))
          .at(R"(fairway_info{version="9.9",slurm_release="24.11.5",algorithm="fair_tree",decay="exact",usage="committed"})"),
      1.0);
  // One HELP and one TYPE per family, before its samples.
  std::istringstream lines(text);
  std::string line;
  std::map<std::string, int> help;
  while (std::getline(lines, line))
    if (line.rfind("# HELP ", 0) == 0) help[line.substr(7, line.find(' ', 7) - 7)]++;
  for (const auto& [name, n] : help) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(help.size(), 21u);
}

// ---- starvation ----

// root -> a (shares 1) -> u1, u2; root -> b (shares 1) -> u3.  Usage: u1 90, u2 0, u3 10.
std::vector<AssocRecord> starvation_tree() {
  std::vector<AssocRecord> r(6);
  r[0] = {1, 0, "root", "", false, 1, 100};
  r[1] = {2, 1, "a", "", false, 1, 90};
  r[2] = {3, 2, "a", "u1", false, 1, 90};
  r[3] = {4, 2, "a", "u2", false, 1, 0};
  r[4] = {5, 1, "b", "", false, 1, 10};
  r[5] = {6, 5, "b", "u3", false, 1, 10};
  return r;
}

TEST(Starvation, TheLongWaitingAmongTheHighestFactorsOnly) {
  const AssocTree t = AssocTree::build(starvation_tree());
  FairShareResult res;
  compute_fair_share(t, Algorithm::kFairTree, 1, res);
  // Fair Tree ranks: b (less usage per share) before a; within a, u2 before u1.  Factors:
  // u3 = 1, u2 = 2/3, u1 = 1/3.
  ASSERT_DOUBLE_EQ(res.fs_factor[5], 1.0);
  ASSERT_DOUBLE_EQ(res.fs_factor[3], 2.0 / 3);
  ASSERT_DOUBLE_EQ(res.fs_factor[2], 1.0 / 3);
  const int64_t now = 10000;
  std::vector<PendingJobNote> jobs = {
      {3, 10, now - 7200},   // u1: long wait, lowest factor
      {4, 11, now - 600},    // u2: short wait
      {6, 12, now - 4000},   // u3: long wait, highest factor
      {6, 13, now - 3000},   // u3 again
      {6, 14, 0},            // not eligible yet
      {99, 15, now - 9000},  // unknown association
  };
  StarvationSettings s;
  s.minutes = 60;
  s.quantile = 0.75;
  StarvationReport r = find_starved(jobs, t, res, now, s);
  EXPECT_EQ(r.with_pending, (std::vector<uint32_t>{2, 3, 5}));
  // Three factors {1/3, 2/3, 1}: rank ceil(0.75 * 3) = 3 -> 1.
  EXPECT_DOUBLE_EQ(r.threshold, 1.0);
  ASSERT_EQ(r.starved.size(), 1u);
  EXPECT_EQ(r.starved[0].index, 5u);
  EXPECT_EQ(r.starved[0].job_id, 12u);
  EXPECT_EQ(r.starved[0].waited, 4000);
  EXPECT_EQ(r.starved[0].pending, 2u);
  // A lower quantile takes u2 in too, but u2 has not waited an hour.
  s.quantile = 0.5;
  r = find_starved(jobs, t, res, now, s);
  EXPECT_DOUBLE_EQ(r.threshold, 2.0 / 3);
  EXPECT_EQ(r.starved.size(), 1u);
  s.minutes = 0;
  EXPECT_TRUE(find_starved(jobs, t, res, now, s).starved.empty());
}

// The first job in line in a partition (slurmctld's order among the eligible jobs) that waits
// only for resources; a job with Resources behind another, or first behind an ineligible job of
// higher priority, is not.
TEST(Starvation, TheJobsFirstInLineThatWaitOnlyForResources) {
  const int64_t now = 10000;
  std::vector<LineRow> rows = {
      {0, 20, 500, 100, now - 50, true},   // debug: first
      {0, 21, 400, 90, now - 50, true},    // debug: behind 20
      {1, 21, 400, 90, now - 50, true},    // gpu: behind nothing eligible
      {1, 22, 900, 10, 0, false},          // gpu: higher priority, not eligible yet
      {2, 23, 300, 100, now - 10, false},  // long: first, but its reason is not Resources
      {2, 24, 300, 100, now - 10, true},   // long: same priority and submission, higher id
      {7, 25, 999, 1, now - 10, true},     // a partition not in the list
  };
  EXPECT_EQ(next_for_resources(rows, 3, now), (std::vector<uint32_t>{20, 21}));
  rows[0].waits_for_resources = false;
  EXPECT_EQ(next_for_resources(rows, 3, now), (std::vector<uint32_t>{21}));
  EXPECT_TRUE(next_for_resources(rows, 0, now).empty());
}

// A user whose job is first in line and waits only for resources is served next: not starved,
// whatever its wait and factor; its other jobs do not make it so either.
TEST(Starvation, AUserFirstInLineWaitingForResourcesIsNotStarved) {
  const AssocTree t = AssocTree::build(starvation_tree());
  FairShareResult res;
  compute_fair_share(t, Algorithm::kFairTree, 1, res);
  const int64_t now = 10000;
  std::vector<PendingJobNote> jobs = {{6, 12, now - 4000}, {6, 13, now - 3000}};
  StarvationSettings s;
  s.minutes = 60;
  ASSERT_EQ(find_starved(jobs, t, res, now, s).starved.size(), 1u);
  jobs[1].next_for_resources = true;
  const StarvationReport r = find_starved(jobs, t, res, now, s);
  EXPECT_TRUE(r.starved.empty());
  EXPECT_EQ(r.with_pending, (std::vector<uint32_t>{5}));
  EXPECT_DOUBLE_EQ(r.threshold, 1.0);
}

// ---- fairway_publish ----

class Publish : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fw-publish-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string dir_;
};

// root -> a (alice used 100), b (bob used 36), one share each; a publication of them into
// the test's directory at 150 under Fair Tree.
struct AliceAndBob {
  const char* accounts[5] = {"root", "a", "a", "b", "b"};
  const char* users[5] = {nullptr, nullptr, "alice", nullptr, "bob"};
  const long double usage[5] = {136, 100, 100, 36, 36};
  fairway_assoc_t a[5];
  fairway_publication_t p{};
  explicit AliceAndBob(const std::string& dir) {
    const uint32_t ids[] = {1, 2, 3, 4, 5}, parents[] = {0, 1, 2, 1, 4};
    for (int i = 0; i < 5; i++) a[i] = {ids[i], parents[i], accounts[i], users[i], 1, 0, usage[i]};
    p.directory = dir.c_str();
    p.slurm_release = "22.05.8";
    p.algo = FAIRWAY_ALGO_FAIR_TREE;
    p.dampening = 1;
    p.assocs = a;
    p.assoc_count = 5;
    p.period_end = 150;
  }
  AliceAndBob(const AliceAndBob&) = delete;
};

// starvation_tree()'s associations published into the test's directory under Fair Tree,
// with these partitions and pending rows (the caller keeps both alive).
struct StarvationPublication {
  const std::vector<AssocRecord> recs = starvation_tree();
  std::vector<fairway_assoc_t> a;
  fairway_publication_t p{};
  StarvationPublication(const std::string& dir, std::vector<const char*>& parts,
                        std::vector<fairway_pending_row_t>& rows) {
    for (const AssocRecord& r : recs)
      a.push_back({r.id, r.parent_id, r.account.c_str(), r.user.empty() ? nullptr : r.user.c_str(),
                   r.shares_raw, 0, r.usage_raw});
    p.directory = dir.c_str();
    p.algo = FAIRWAY_ALGO_FAIR_TREE;
    p.dampening = 1;
    p.assocs = a.data();
    p.assoc_count = a.size();
    p.partitions = parts.data();
    p.partition_count = parts.size();
    p.rows = rows.data();
    p.row_count = rows.size();
  }
  StarvationPublication(const StarvationPublication&) = delete;
};

TEST_F(Publish, WritesBothFilesWithTheirModesAndASnapshotThatReplays) {
  AliceAndBob ab(dir_);
  fairway_publication_t& p = ab.p;
  const char* parts[] = {"debug"};
  fairway_pending_row_t rows[] = {{0, UINT32_MAX, 10, 1, 100}, {0, UINT32_MAX, 20, 1, 50}};
  p.partitions = parts;
  p.partition_count = 1;
  p.rows = rows;
  p.row_count = 2;
  ASSERT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  struct stat st {};
  ASSERT_EQ(stat((dir_ + "/fairway.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_EQ(stat((dir_ + "/fairway.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_NE(access((dir_ + "/fairway.prom.new").c_str(), F_OK), 0);
  // The snapshot holds each association's own usage; read back, the totals are the tree's.
  const Snapshot snap = read_snapshot_file(dir_ + "/fairway.json");
  const AssocTree t = snapshot_tree(snap);
  ASSERT_EQ(t.size(), 5u);
  for (uint32_t i = 0; i < 5; i++) EXPECT_EQ(t.usage_raw(i), ab.usage[i]) << t.id(i);
  std::ifstream prom(dir_ + "/fairway.prom");
  std::stringstream text;
  text << prom.rdbuf();
  const auto s = samples(text.str());
  EXPECT_EQ(s.at(R"(fairway_partition_oldest_pending_seconds{partition="debug"})"), 100.0);
  EXPECT_EQ(s.at(R"(fairway_partition_pending_priority{partition="debug",quantile="1"})"), 20.0);
}

// fairway_usage=allocated: fair-share is computed from what the running jobs hold (alice 1 CPU,
// bob 3: a, with all the historical usage, is now the light user), the snapshot keeps both the
// historical usage (RawUsage) and the held usage, and replayed it gives the same values; the
// metrics name the basis and deliver shares of what is held.
TEST_F(Publish, AllocatedUsageIsWhatFairShareComparesAndTheSnapshotKeepsBoth) {
  AliceAndBob ab(dir_);
  fairway_publication_t& p = ab.p;
  const fairway_running_job_t running[] = {{3, 1.0, 60}, {5, 3.0, 60}, {77, 5.0, 60}};
  p.usage_basis = FAIRWAY_USAGE_ALLOCATED;
  p.running = running;
  p.running_count = 3;
  ASSERT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  const Snapshot snap = read_snapshot_file(dir_ + "/fairway.json");
  EXPECT_EQ(snap.usage_basis, UsageBasis::kAllocated);
  EXPECT_EQ(snap.held, (std::vector<long double>{0, 0, 1, 0, 3}));  // job of 77: unknown
  const AssocTree t = snapshot_tree(snap);
  for (uint32_t i = 0; i < 5; i++) EXPECT_EQ(t.usage_raw(i), ab.usage[i]) << t.id(i);
  const AssocTree held = snapshot_compared_tree(snap);
  EXPECT_EQ(held.usage_raw(0), 4.0L);
  FairShareResult r;
  compute_fair_share(held, Algorithm::kFairTree, 1, r);
  EXPECT_DOUBLE_EQ(r.fs_factor[2], 1.0);  // alice: a holds 1 of 4 with half the shares
  EXPECT_DOUBLE_EQ(r.fs_factor[4], 0.5);  // bob
  std::ifstream prom(dir_ + "/fairway.prom");
  std::stringstream text;
  text << prom.rdbuf();
  const auto s = samples(text.str());
  EXPECT_EQ(
      s.at(R"(fairway_association_fairshare_factor{id="3",account="a",user="alice",parent="a"})"),
      1.0);
  EXPECT_EQ(s.at(R"(fairway_association_usage_raw{id="3",account="a",user="alice",parent="a"})"),
            100.0);
  // a: 1 of 4 held over 1/2 of the shares.
  EXPECT_DOUBLE_EQ(
      s.at(
          R"(fairway_association_delivered_entitled_ratio{id="2",account="a",user="",parent="root"})"),
      0.5);
  EXPECT_NE(text.str().find(",usage=\"allocated\"} 1"), std::string::npos);
}

TEST_F(Publish, StarvationEpisodesAreToldOnceWhenTheyStartAndEnd) {
  std::vector<const char*> parts = {"debug"};
  std::vector<fairway_pending_row_t> rows = {{0, UINT32_MAX, 5, 1, 0, 6, 12, 1000}};
  StarvationPublication sp(dir_, parts, rows);
  fairway_publication_t& p = sp.p;
  p.starvation_minutes = 60;
  p.starvation_quantile = 0.75;
  fairway_publisher_t* pub = nullptr;
  ASSERT_EQ(fairway_publisher_new(&pub), FAIRWAY_OK);
  std::vector<std::string> said;
  auto say = [](const char* m, void* arg) {
    static_cast<std::vector<std::string>*>(arg)->push_back(m);
  };
  p.period_end = 1000 + 3000;  // 50 minutes: not yet
  ASSERT_EQ(fairway_publish(pub, &p, say, &said), FAIRWAY_OK) << fairway_last_error();
  EXPECT_TRUE(said.empty());
  for (int64_t t : {1000 + 3600, 1000 + 3900, 1000 + 4200}) {
    p.period_end = t;
    ASSERT_EQ(fairway_publish(pub, &p, say, &said), FAIRWAY_OK);
  }
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0],
            "fair-share starvation: user u3 in account b has waited 1 h 0 min (job 12, 1 eligible "
            "job pending) with fair-share factor 1.000, among the highest 25% of the users with "
            "jobs pending (at least 1.000): entitled but not served; a limit, a higher "
            "PriorityTier or a weight that drowns fair-share holds it back ('fairway explain "
            "12' tells which)");
  std::ifstream prom(dir_ + "/fairway.prom");
  std::stringstream text;
  text << prom.rdbuf();
  EXPECT_EQ(samples(text.str())
                .at(R"(fairway_association_starved{id="6",account="b",user="u3",parent="b"})"),
            1.0);
  p.row_count = 0;  // the job started
  p.period_end = 1000 + 4500;
  ASSERT_EQ(fairway_publish(pub, &p, say, &said), FAIRWAY_OK);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[1], "fair-share starvation of user u3 in account b ended after 15 min");
  fairway_publisher_destroy(&pub);
  EXPECT_EQ(pub, nullptr);
}

// Each association with an eligible job pending says how long its oldest has been eligible,
// its descendants' jobs included (FairwayAssociationFarBelowShare's "with jobs waiting"); a job
// not yet eligible counts nowhere, and neither does an association without one.
TEST_F(Publish, AssociationsWithAnEligibleJobSayHowLongTheOldestWaited) {
  std::vector<const char*> parts = {"debug", "long"};
  // u3's job 12 eligible at 1000 in both partitions (one job, two rows), u2's 13 at 2500, u1's
  // 14 not yet eligible.
  std::vector<fairway_pending_row_t> rows = {{0, UINT32_MAX, 5, 1, 900, 6, 12, 1000},
                                             {1, UINT32_MAX, 5, 0, 900, 6, 12, 1000},
                                             {0, UINT32_MAX, 7, 1, 2400, 4, 13, 2500},
                                             {0, UINT32_MAX, 9, 1, 2400, 3, 14, 0}};
  StarvationPublication sp(dir_, parts, rows);
  fairway_publication_t& p = sp.p;
  p.period_end = 4000;
  fairway_publisher_t* pub = nullptr;
  ASSERT_EQ(fairway_publisher_new(&pub), FAIRWAY_OK);
  ASSERT_EQ(fairway_publish(pub, &p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  fairway_publisher_destroy(&pub);
  std::ifstream prom(dir_ + "/fairway.prom");
  std::stringstream text;
  text << prom.rdbuf();
  std::map<std::string, double> got;
  for (const auto& [k, v] : samples(text.str()))
    if (k.rfind("fairway_association_oldest_pending_seconds{", 0) == 0) got[k] = v;
  const std::map<std::string, double> want = {
      {R"(fairway_association_oldest_pending_seconds{id="1",account="root",user="",parent=""})",
       3000},
      {R"(fairway_association_oldest_pending_seconds{id="2",account="a",user="",parent="root"})",
       1500},
      {R"(fairway_association_oldest_pending_seconds{id="4",account="a",user="u2",parent="a"})",
       1500},
      {R"(fairway_association_oldest_pending_seconds{id="5",account="b",user="",parent="root"})",
       3000},
      {R"(fairway_association_oldest_pending_seconds{id="6",account="b",user="u3",parent="b"})",
       3000}};
  EXPECT_EQ(got, want) << text.str();
}

// fairway_publish tells no starvation of a user whose job is first in line in its partition
// and waits only for resources; behind an eligible job of higher priority it does.
TEST_F(Publish, NoStarvationIsToldOfAJobFirstInLineWaitingForResources) {
  std::vector<const char*> parts = {"debug"};
  // u3's job 12 waits for resources; u1's job 16 (higher priority) is held until later.
  std::vector<fairway_pending_row_t> rows = {{0, UINT32_MAX, 5, 1, 0, 6, 12, 1000, UINT32_MAX, 1},
                                             {0, UINT32_MAX, 9, 1, 0, 3, 16, 0, UINT32_MAX, 0}};
  StarvationPublication sp(dir_, parts, rows);
  fairway_publication_t& p = sp.p;
  p.starvation_minutes = 60;
  p.starvation_quantile = 0.75;
  fairway_publisher_t* pub = nullptr;
  ASSERT_EQ(fairway_publisher_new(&pub), FAIRWAY_OK);
  std::vector<std::string> said;
  auto say = [](const char* m, void* arg) {
    static_cast<std::vector<std::string>*>(arg)->push_back(m);
  };
  p.period_end = 1000 + 7200;
  ASSERT_EQ(fairway_publish(pub, &p, say, &said), FAIRWAY_OK) << fairway_last_error();
  EXPECT_TRUE(said.empty()) << (said.empty() ? "" : said[0]);
  rows[1].eligible_time = 1500;  // job 16 is eligible now, ahead of job 12
  ASSERT_EQ(fairway_publish(pub, &p, say, &said), FAIRWAY_OK);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].rfind("fair-share starvation: user u3 in account b has waited 2 h", 0), 0u)
      << said[0];
  fairway_publisher_destroy(&pub);
}

// The shadow policy in FILE (written first) over a two-job queue: alice's older job 10 behind
// bob's job 11 on fair-share alone.
struct ShadowQueue : AliceAndBob {
  const char* parts[1] = {"debug"};
  const char* qos[1] = {"normal"};
  fairway_partition_info_t part_info[1] = {{1, 1.0, 1, 64, 4}};
  fairway_qos_info_t qos_info[1] = {{0, 1.0}};
  fairway_weights_t w{};
  fairway_pending_job_t jobs[2]{};
  fairway_pending_row_t rows[2]{};
  explicit ShadowQueue(const std::string& dir) : AliceAndBob(dir) {
    w.weight[FAIRWAY_FACTOR_AGE] = 1000;
    w.weight[FAIRWAY_FACTOR_FAIRSHARE] = 10000;
    w.max_age = 7 * 86400;
    const double age[] = {800, 100}, fs[] = {2000, 6000};
    for (int k = 0; k < 2; k++) {
      fairway_pending_job_t& j = jobs[k];
      j.priority = static_cast<uint32_t>(age[k] + fs[k]);
      j.accrue_time = 1000 + 100 * k;
      j.min_cpus = j.max_cpus = j.min_nodes = 1;
      j.time_limit = 60;
      j.factors[FAIRWAY_FACTOR_AGE] = age[k];
      j.factors[FAIRWAY_FACTOR_FAIRSHARE] = fs[k];
      j.tres_at = SIZE_MAX;
      rows[k] = {0,
                 0,
                 j.priority,
                 1,
                 900 + 100 * k,
                 k ? 5u : 3u,
                 10u + k,
                 1000 + 100 * k,
                 static_cast<uint32_t>(k),
                 0};
    }
    p.partitions = parts;
    p.partition_count = 1;
    p.qos = qos;
    p.qos_count = 1;
    p.rows = rows;
    p.row_count = 2;
    p.period_end = 5000;
    p.jobs = jobs;
    p.job_count = 2;
    p.partition_info = part_info;
    p.qos_info = qos_info;
    p.weights = &w;
    p.decay_half_life = 604800;
    p.calc_period = 300;
    p.cluster_cpus = 64;
    p.cluster_nodes = 4;
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST_F(Publish, WithJobsTheSnapshotHoldsTheQueueThatExplainAndWhatifRead) {
  ShadowQueue q(dir_);
  ASSERT_EQ(fairway_publish(nullptr, &q.p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  const Snapshot snap = read_snapshot_file(dir_ + "/fairway.json");
  ASSERT_TRUE(snap.queue);
  EXPECT_EQ(snap.slurm_release, "22.05.8");
  const Queue& queue = *snap.queue;
  EXPECT_EQ(queue.taken_at, 5000);
  EXPECT_EQ(queue.settings.weight[Factor::kFairshare], 10000u);
  EXPECT_EQ(queue.settings.max_age, 7u * 86400);
  ASSERT_EQ(queue.jobs.size(), 2u);
  const PendingJob& alice = queue.jobs[0];
  EXPECT_EQ(alice.id, 10u);
  EXPECT_EQ(alice.user, "alice");
  EXPECT_EQ(alice.account, "a");
  EXPECT_EQ(alice.qos, "normal");
  EXPECT_EQ(alice.partitions, std::vector<std::string>{"debug"});
  ASSERT_EQ(alice.rows.size(), 1u);
  EXPECT_EQ(alice.rows[0].priority, 2800u);
  EXPECT_EQ(alice.rows[0].factor[Factor::kAge], 800);
  EXPECT_EQ(alice.rows[0].factor[Factor::kFairshare], 2000);
  const std::vector<QueueEntry> order = partition_queue(queue, "debug");
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].job->id, 11u);
  // The job an association that is gone no longer has is left out; the rest is published.
  q.rows[0].assoc_id = 99;
  ASSERT_EQ(fairway_publish(nullptr, &q.p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  EXPECT_EQ(read_snapshot_file(dir_ + "/fairway.json").queue->jobs.size(), 1u);
}

// fairway_fairshare_tres: the snapshot lists the TRES, keeps each association's own usage of it
// (historical, then held) and which job it judged; the metrics name the list and give each
// association's factor on that TRES's tree.  GPUs: alice 10, bob 40 of 50 (a's half of the
// shares over 20% of the use): alice ranks first on them, where billing puts bob first.
TEST_F(Publish, FairShareTresAreInTheSnapshotAndTheMetrics) {
  ShadowQueue q(dir_);
  const char* tres[] = {"gres/gpu"};
  const long double gpu[] = {50, 10, 10, 40, 40};
  q.p.fairshare_tres = tres;
  q.p.fairshare_tres_count = 1;
  q.p.fairshare_tres_usage = gpu;
  q.jobs[0].fairshare_tres = 1;  // alice's job asked mostly for GPUs
  ASSERT_EQ(fairway_publish(nullptr, &q.p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  Snapshot snap = read_snapshot_file(dir_ + "/fairway.json");
  EXPECT_EQ(snap.fairshare_tres, std::vector<std::string>{"gres/gpu"});
  ASSERT_EQ(snap.tres_usage.size(), 1u);
  EXPECT_EQ(snap.tres_usage[0], (std::vector<long double>{0, 0, 10, 0, 40}));
  EXPECT_EQ(snap.queue->job(10)->fairshare_tres, "gres/gpu");
  EXPECT_EQ(snap.queue->job(11)->fairshare_tres, "");
  FairShareResult r;
  compute_fair_share(snapshot_tres_tree(snap, "gres/gpu"), Algorithm::kFairTree, 1, r);
  EXPECT_DOUBLE_EQ(r.fs_factor[2], 1.0);  // alice
  EXPECT_DOUBLE_EQ(r.fs_factor[4], 0.5);  // bob
  std::string text = read_text(dir_ + "/fairway.prom");
  auto s = samples(text);
  EXPECT_EQ(
      s.at(
          R"(fairway_association_tres_fairshare_factor{id="3",account="a",user="alice",parent="a",tres="gres/gpu"})"),
      1.0);
  EXPECT_EQ(
      s.at(R"(fairway_association_fairshare_factor{id="3",account="a",user="alice",parent="a"})"),
      0.5);
  EXPECT_EQ(
      s.at(
          R"(fairway_association_tres_usage_raw{id="1",account="root",user="",parent="",tres="gres/gpu"})"),
      50.0);
  EXPECT_NE(text.find(",usage=\"historical\",fairshare_tres=\"gres/gpu\"} 1"), std::string::npos);

  // fairway_usage=allocated: what running jobs hold of the TRES (bob 2 GPUs).
  const fairway_running_job_t billing[] = {{3, 4.0, 60}};
  const fairway_running_job_t gpus[] = {{5, 2.0, 60}};
  const fairway_running_job_t* held[] = {gpus};
  const size_t held_n[] = {1};
  q.p.usage_basis = FAIRWAY_USAGE_ALLOCATED;
  q.p.running = billing;
  q.p.running_count = 1;
  q.p.fairshare_tres_usage = nullptr;
  q.p.fairshare_tres_running = held;
  q.p.fairshare_tres_running_count = held_n;
  ASSERT_EQ(fairway_publish(nullptr, &q.p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  snap = read_snapshot_file(dir_ + "/fairway.json");
  EXPECT_EQ(snap.tres_usage[0], (std::vector<long double>{0, 0, 0, 0, 2}));
  EXPECT_EQ(snap.held, (std::vector<long double>{0, 0, 4, 0, 0}));
  s = samples(read_text(dir_ + "/fairway.prom"));
  EXPECT_EQ(
      s.at(
          R"(fairway_association_tres_usage_raw{id="4",account="b",user="",parent="root",tres="gres/gpu"})"),
      2.0);

  // A job naming a TRES the publication does not list; the list without usage.
  q.jobs[0].fairshare_tres = 2;
  EXPECT_EQ(fairway_publish(nullptr, &q.p, nullptr, nullptr), FAIRWAY_EINVAL);
  q.jobs[0].fairshare_tres = 1;
  q.p.fairshare_tres_running = nullptr;
  EXPECT_EQ(fairway_publish(nullptr, &q.p, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_NE(std::string(fairway_last_error()).find("fair-share TRES without their usage"),
            std::string::npos);
}

TEST_F(Publish, TheShadowPolicyPublishesHowTheOrderWouldChange) {
  ShadowQueue q(dir_);
  const std::string policy = dir_ + "/shadow.conf";
  q.p.shadow_file = policy.c_str();
  fairway_publisher_t* pub = nullptr;
  ASSERT_EQ(fairway_publisher_new(&pub), FAIRWAY_OK);
  std::vector<std::string> said;
  auto say = [](const char* m, void* arg) {
    static_cast<std::vector<std::string>*>(arg)->push_back(m);
  };

  // The live settings again: nothing moves.
  write_text(policy, "PriorityWeightFairshare=10000\nPriorityWeightAge=1000\n");
  ASSERT_EQ(fairway_publish(pub, &q.p, say, &said), FAIRWAY_OK) << fairway_last_error();
  auto s = samples(read_text(dir_ + "/fairway.prom"));
  EXPECT_EQ(s.at("fairway_shadow_weighed"), 1.0);
  EXPECT_EQ(s.at(R"(fairway_shadow_jobs_moved{partition="debug"})"), 0.0);
  EXPECT_EQ(s.at(R"(fairway_shadow_rank_correlation{partition="debug"})"), 1.0);

  // Without fair-share, age alone puts alice's older job first.
  write_text(policy, "PriorityWeightFairshare=0\n");
  ASSERT_EQ(fairway_publish(pub, &q.p, say, &said), FAIRWAY_OK) << fairway_last_error();
  s = samples(read_text(dir_ + "/fairway.prom"));
  EXPECT_EQ(s.at(R"(fairway_shadow_jobs_moved{partition="debug"})"), 2.0);
  EXPECT_EQ(s.at(R"(fairway_shadow_rank_correlation{partition="debug"})"), -1.0);
  const std::string json = read_text(dir_ + "/fairway_shadow.json");
  EXPECT_NE(
      json.find(
          R"("job":10,"place_after":1,"place_before":2,"priority_after":800,"priority_before":2800)"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("fairway_shadow":1)"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat((dir_ + "/fairway_shadow.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_TRUE(said.empty());

  // A broken policy is told once, the metrics say so, and the other files are written.
  write_text(policy, "PriorityWeightFairshare=lots\n");
  for (int k = 0; k < 2; k++) {
    q.p.period_end += 300;
    ASSERT_EQ(fairway_publish(pub, &q.p, say, &said), FAIRWAY_OK) << fairway_last_error();
  }
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0], "shadow policy " + policy +
                         " not weighed: line 1: 'PriorityWeightFairshare'='lots' is not a whole "
                         "number from 0 to 4294967295; the live priorities are not affected, "
                         "retried every period");
  s = samples(read_text(dir_ + "/fairway.prom"));
  EXPECT_EQ(s.at("fairway_shadow_weighed"), 0.0);
  EXPECT_EQ(s.count(R"(fairway_shadow_jobs_moved{partition="debug"})"), 0u);
  EXPECT_EQ(read_snapshot_file(dir_ + "/fairway.json").queue->taken_at, q.p.period_end);
  write_text(policy, "PriorityWeightAge=1000\n");
  ASSERT_EQ(fairway_publish(pub, &q.p, say, &said), FAIRWAY_OK);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[1], "shadow policy " + policy + " weighed again");
  unlink(policy.c_str());
  ASSERT_EQ(fairway_publish(pub, &q.p, say, &said), FAIRWAY_OK);
  ASSERT_EQ(said.size(), 3u);
  EXPECT_EQ(said[2], "shadow policy " + policy +
                         " not weighed: no such file; the live priorities are not affected, "
                         "retried every period");
  fairway_publisher_destroy(&pub);
}

TEST_F(Publish, AMissingDirectoryIsNamedAndTheOldFilesStay) {
  fairway_assoc_t root = {1, 0, "root", nullptr, 1, 0, 0};
  fairway_publication_t p{};
  const std::string missing = dir_ + "/gone";
  p.directory = missing.c_str();
  p.algo = FAIRWAY_ALGO_CLASSIC;
  p.dampening = 1;
  p.assocs = &root;
  p.assoc_count = 1;
  EXPECT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_EIO);
  EXPECT_EQ(std::string(fairway_last_error()),
            "cannot create " + missing + "/fairway.prom.new: No such file or directory");
  // A loop in the tree is a tree error, and nothing is written.
  fairway_assoc_t loop[2] = {{1, 2, "x", nullptr, 1, 0, 0}, {2, 1, "y", nullptr, 1, 0, 0}};
  p.directory = dir_.c_str();
  p.assocs = loop;
  p.assoc_count = 2;
  EXPECT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_ETREE);
  EXPECT_NE(access((dir_ + "/fairway.prom").c_str(), F_OK), 0);
  p.assocs = nullptr;
  EXPECT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publish(nullptr, nullptr, nullptr, nullptr), FAIRWAY_EINVAL);
}

}  // namespace
}  // namespace fairway
