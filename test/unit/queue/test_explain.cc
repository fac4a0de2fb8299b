// The pending queue and `fairway explain`'s numbers: slurmctld's order, what separates two
// neighbours, age and fair-share catch-up, the fair-share path; snapshot version 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "error.h"
#include "explain.h"
#include "explain_format.h"
#include "history_format.h"
#include "queue.h"
#include "queue_fixtures.h"
#include "slurm_values.h"
#include "snapshot.h"
#include "words.h"

namespace fairway {
namespace {

FactorRow row(const std::string& part, uint32_t prio, double age, double fs, double js = 0) {
  return test::factor_row(part, prio, age, fs, js);
}

PendingJob job(uint32_t id, uint32_t assoc, time_t submit, FactorRow r) {
  return test::pending_job(id, assoc, submit, {std::move(r)});
}

Queue queue() {
  Queue q;
  q.taken_at = 1000;
  q.settings.weight[Factor::kAge] = 1000;
  q.settings.weight[Factor::kFairshare] = 10000;
  q.settings.max_age = 1000;
  q.settings.decay_half_life = 3600;
  q.partitions = {{"p", 1, 1, 64, 4}, {"hi", 1, 5, 64, 4}};
  return q;
}

TEST(Queue, OrderIsTierPrioritySubmitTimeJobId) {
  Queue q = queue();
  q.jobs.push_back(job(1, 11, 100, row("p", 500, 0, 500)));
  q.jobs.push_back(job(2, 12, 50, row("p", 900, 0, 900)));
  q.jobs.push_back(job(3, 11, 40, row("p", 500, 0, 500)));
  q.jobs.push_back(job(4, 11, 40, row("p", 500, 0, 500)));
  PendingJob held = job(5, 11, 10, row("p", 0, 0, 0));
  held.held = true;
  held.rows.clear();
  q.jobs.push_back(held);
  const auto order = partition_queue(q, "p");
  ASSERT_EQ(order.size(), 4u);
  std::vector<uint32_t> ids;
  for (const auto& e : order) ids.push_back(e.job->id);
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 3, 4, 1}));
  EXPECT_EQ(separation(order[0], order[1]).by, Separation::By::kPriority);
  EXPECT_EQ(separation(order[0], order[1]).factor, Factor::kFairshare);
  EXPECT_EQ(separation(order[0], order[1]).difference, 400);
  EXPECT_EQ(separation(order[1], order[2]).by, Separation::By::kJobId);
  EXPECT_EQ(separation(order[2], order[3]).by, Separation::By::kSubmitTime);
  QueueEntry hi{&q.jobs[0], &q.jobs[0].rows[0], 5};
  EXPECT_TRUE(runs_before(hi, order[0]));
  EXPECT_EQ(separation(hi, order[0]).by, Separation::By::kTier);
}

TEST(Queue, AgePassesOnceTheOlderJobSaturates) {
  const PrioritySettings s = queue().settings;  // 1000 per 1000 s
  // Ahead: age 800 of 1000, priority 1800; behind: age 100, fair-share 1000 more than ahead's
  // would need... behind 1600 = 100 + 1500.
  const FactorRow ahead = row("p", 1800, 800, 1000), behind = row("p", 1600, 100, 1500);
  // Both gain 1 per second for 200 s (ahead saturates), then behind gains alone: it is 200
  // behind, so it passes 200 s later, at 400 s.
  EXPECT_DOUBLE_EQ(seconds_until_age_passes(s, ahead, behind), 400);
  EXPECT_DOUBLE_EQ(seconds_until_age_saturates(s, ahead, behind), 900);
  // A younger job ahead is never passed by age.
  EXPECT_EQ(seconds_until_age_passes(s, row("p", 1800, 100, 1700), row("p", 1600, 800, 800)), -1);
  // Already ahead: 0.  Without an age weight: -1.
  EXPECT_EQ(seconds_until_age_passes(s, behind, ahead), 0);
  PrioritySettings none = s;
  none.weight[Factor::kAge] = 0;
  EXPECT_EQ(seconds_until_age_passes(none, ahead, behind), -1);
}

FairShareInput two_accounts() {
  // root -> a (u11, u12), b (u21); Fair Tree.
  FairShareInput fs;
  fs.associations = {
      {1, 0, "root", "", false, 1, 0},    {2, 1, "a", "", false, 1, 0},
      {3, 1, "b", "", false, 1, 0},       {11, 2, "a", "u11", false, 1, 300},
      {12, 2, "a", "u12", false, 1, 100}, {21, 3, "b", "u21", false, 1, 100},
  };
  return fs;
}

TEST(Explain, FairTreePathRanksSiblingsByLevelFs) {
  const auto path = fair_share_path(two_accounts(), 11);
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0].account, "root");
  EXPECT_EQ(path[1].account, "a");
  EXPECT_EQ(path[1].rank, 2u);  // a used 400 of 500: below b
  EXPECT_EQ(path[1].siblings, 2u);
  EXPECT_EQ(path[2].user, "u11");
  EXPECT_EQ(path[2].rank, 2u);  // u11 used more than u12
  // Fair Tree ranks u21 first, u12 second, u11 last: 1/3.
  EXPECT_DOUBLE_EQ(path[2].fs_factor, 1.0 / 3);
  EXPECT_TRUE(fair_share_path(two_accounts(), 99).empty());
}

TEST(Explain, HalvingUsageHalvesTheFactor) {
  FairShareInput fs = two_accounts();
  fs.algorithm = Algorithm::kClassic;
  const auto extra = usage_halving_fs_factor(fs, 21);
  ASSERT_TRUE(extra.has_value());
  const double before = fair_share_path(fs, 21).back().fs_factor;
  for (auto& a : fs.associations)
    if (a.id == 21) a.usage_raw += *extra;
  EXPECT_NEAR(fair_share_path(fs, 21).back().fs_factor, before / 2, before * 1e-5);
}

TEST(Explain, FairShareRecoveryPassesTheJobAhead) {
  Queue q = queue();
  const FairShareInput fs = two_accounts();
  // u11 (factor 1/3) behind u21 (factor 1) by fair-share only.
  q.jobs.push_back(job(1, 21, 10, row("p", 10000, 0, 10000)));
  q.jobs.push_back(job(2, 11, 5, row("p", 3333, 0, 3333.33)));
  const Explanation e = explain_job(q, fs, 2);
  ASSERT_EQ(e.places.size(), 1u);
  EXPECT_EQ(e.places[0].position, 2u);
  EXPECT_EQ(*e.places[0].ahead, 1u);
  EXPECT_EQ(e.places[0].separation.factor, Factor::kFairshare);
  // Account a's usage decays until u11 ranks first: a positive, bounded time.
  EXPECT_GT(e.places[0].fair_share_passes, 0);
  EXPECT_LT(e.places[0].fair_share_passes, 20 * 3600);
  const auto f = fs_factors_after_decay(fs, 2, e.places[0].fair_share_passes, 3600);
  EXPECT_GT(f[3], f[5]);  // u11 above u21 then
  EXPECT_THROW(explain_job(q, fs, 3), Error);
}

TEST(SnapshotV2, RoundTripAndMalformed) {
  Snapshot s;
  s.associations = two_accounts().associations;
  s.slurm_release = "24.11.5";
  Queue q = queue();
  q.settings.weight_tres = {{"cpu", 0.5}};
  q.settings.flags = kAccrueAlways | kNoNormalPart;
  q.qos = {{"normal", 10, 1.5}};
  PendingJob j = job(7, 11, 100, row("p", 1234, 12.5, 1000.25));
  j.tres_req = {{"cpu", 4}, {"mem", 1000}};
  j.rows[0].tres = {{"cpu", 3.25}};
  j.rows[0].factor[Factor::kNice] = -10;
  j.time_limit = kInfinite;
  q.jobs.push_back(j);
  s.queue = q;
  const std::string text = write_snapshot(s);
  const Snapshot back = parse_snapshot(text);
  ASSERT_TRUE(back.queue.has_value());
  EXPECT_EQ(write_snapshot(back), text);
  EXPECT_EQ(back.slurm_release, "24.11.5");
  EXPECT_EQ(back.queue->settings.flags, kAccrueAlways | kNoNormalPart);
  EXPECT_EQ(back.queue->jobs[0].rows[0].factor[Factor::kAge], 12.5);
  EXPECT_EQ(back.queue->jobs[0].time_limit, kInfinite);
  // Version 1 stays version 1.
  Snapshot v1 = s;
  v1.queue.reset();
  EXPECT_EQ(parse_snapshot(write_snapshot(v1)).queue.has_value(), false);

  auto refused = [&](const std::string& from, const std::string& to) -> std::string {
    std::string t = text;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    try {
      parse_snapshot(t);
    } catch (const SnapshotError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refused("\"NO_NORMAL_PART\"", "\"NO_SUCH\"").find("unknown PriorityFlag"),
            std::string::npos);
  EXPECT_NE(refused("\"partitions\": [\"p\"]", "\"partitions\": [\"p\", \"nowhere\"]")
                .find("unknown partition \"nowhere\""),
            std::string::npos);
  EXPECT_NE(refused("\"partition\": \"p\", \"priority\": 1234",
                    "\"partition\": \"hi\", \"priority\": 1234")
                .find("is not one of the job's"),
            std::string::npos);
  EXPECT_NE(refused("\"taken_at\": 1000", "\"taken_at\": -1").find("\"taken_at\""),
            std::string::npos);
  EXPECT_NE(refused("\"age\": 12.5", "\"age\": \"x\"").find("must be a number"), std::string::npos);
  EXPECT_NE(refused("\"slurm_release\": \"24.11.5\", ", "").find("missing key \"slurm_release\""),
            std::string::npos);
  EXPECT_NE(refused("\"fairway_snapshot\": 2", "\"fairway_snapshot\": 1").find("unknown key"),
            std::string::npos);
}

// two_accounts() with one pending job of u11 (job 7), as a version 2 snapshot.
Snapshot two_accounts_and_job_7() {
  Snapshot s;
  s.associations = two_accounts().associations;
  s.slurm_release = "24.11.5";
  Queue q = queue();
  q.jobs.push_back(job(7, 11, 100, row("p", 1234, 12.5, 1000.25)));
  s.queue = q;
  return s;
}

// fairway_decay=exact travels with the queue's settings ("decay" only when set, so that a
// snapshot of the default settings is written as before) and explain names it.
TEST(SnapshotV2, ExactDecayIsKeptAndExplained) {
  Snapshot s = two_accounts_and_job_7();
  const std::string plain = write_snapshot(s);
  EXPECT_EQ(plain.find("\"decay\""), std::string::npos);
  EXPECT_FALSE(parse_snapshot(plain).queue->settings.decay_exact);
  s.queue->settings.decay_exact = true;
  const std::string text = write_snapshot(s);
  EXPECT_NE(text.find("\"calc_period\": 0, \"decay\": \"exact\"}"), std::string::npos);
  const Snapshot back = parse_snapshot(text);
  EXPECT_TRUE(back.queue->settings.decay_exact);
  EXPECT_EQ(write_snapshot(back), text);
  std::string bad = text;
  bad.replace(bad.find("\"exact\"}"), 8, "\"fast\"}");
  try {
    parse_snapshot(bad);
    ADD_FAILURE() << "a decay of \"fast\" was accepted";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("\"decay\" is \"fast\", not \"slurm\" or \"exact\""),
              std::string::npos)
        << e.what();
  }
  const FairShareInput fs = two_accounts();
  const std::string said = format_explain(*back.queue, fs, explain_job(*back.queue, fs, 7));
  EXPECT_NE(said.find("(usage decayed exactly, halving every PriorityDecayHalfLife: "
                      "fairway_decay=exact)"),
            std::string::npos)
      << said;
  EXPECT_EQ(format_explain(*s.queue, fs, explain_job(*s.queue, fs, 7)).size(), said.size());
  s.queue->settings.decay_exact = false;
  EXPECT_EQ(format_explain(*s.queue, fs, explain_job(*s.queue, fs, 7)).find("decayed exactly"),
            std::string::npos);
}

// fairway_usage=allocated: the snapshot keeps each association's held usage beside its
// historical usage; explain computes fair-share from the held usage (u21 holding 8 CPUs now
// puts b below a, although a used 400 of 500) and says which usage produced the factor, and
// what the "halving" amount is held in.
TEST(SnapshotV2, HeldUsageIsKeptAndExplained) {
  Snapshot s = two_accounts_and_job_7();
  s.usage_basis = UsageBasis::kAllocated;
  s.held = {0, 0, 0, 1, 1, 8};
  const std::string text = write_snapshot(s);
  EXPECT_NE(text.find("\"dampening_factor\": 1, \"usage_basis\": \"allocated\","),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"usage\": 100.0, \"held_usage\": 8.0}"), std::string::npos) << text;
  const Snapshot back = parse_snapshot(text);
  EXPECT_EQ(back.usage_basis, UsageBasis::kAllocated);
  EXPECT_EQ(back.held, s.held);
  EXPECT_EQ(write_snapshot(back), text);
  const FairShareInput fs = snapshot_fair_share_input(back);
  EXPECT_EQ(fs.usage_basis, UsageBasis::kAllocated);
  const auto path = fair_share_path(fs, 11);
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[1].rank, 1u);  // a holds 2 of 10: above b
  const std::string said = format_explain(*back.queue, fs, explain_job(*back.queue, fs, 7));
  EXPECT_NE(said.find("(from the billable TRES running jobs hold now, not historical usage: "
                      "fairway_usage=allocated)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("Running jobs holding "), std::string::npos) << said;
  EXPECT_EQ(said.find("CPU-hours"), std::string::npos) << said;
  // Refused: held usage without a basis, a basis without held usage, an unknown basis.
  const auto refused = [](std::string t, const std::string& from, const std::string& to) {
    t.replace(t.find(from), from.size(), to);
    try {
      parse_snapshot(t);
    } catch (const SnapshotError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused(text, " \"usage_basis\": \"allocated\",", "")
                .find("\"held_usage\" without a \"usage_basis\" of allocated or committed"),
            std::string::npos);
  EXPECT_NE(refused(text, ", \"held_usage\": 8.0}", "}")
                .find("associations[5] (id 21): no \"held_usage\""),
            std::string::npos);
  EXPECT_NE(refused(text, "\"allocated\",", "\"now\",").find("unknown \"usage_basis\" \"now\""),
            std::string::npos);
}

// None of Slurm's unset markers reaches a number: the root's norm shares (its raw shares over
// NO_VAL under Fair Tree), NormUsage and Level FS, and an account's missing factor are null in
// JSON and empty in -P, as sshare prints them.
TEST(ExplainOutput, UnsetValuesAreNullOrEmpty) {
  Queue q = queue();
  q.jobs.push_back(job(7, 11, 100, row("p", 1234, 12.5, 1000.25)));
  FairShareInput fs = two_accounts();
  // An account with only a sub-account under it: no factor of its own.
  fs.associations.push_back({4, 1, "c", "", false, 1, 0});
  fs.associations.push_back({5, 4, "d", "", false, 1, 0});
  fs.associations.push_back({51, 5, "d", "u51", false, 1, 50});
  const Explanation e = explain_job(q, fs, 7);
  const auto j = nlohmann::json::parse(format_explain_json(q, fs, e));
  const auto& root = j["fair_share_path"][0];
  EXPECT_TRUE(root["shares_norm"].is_null()) << root;
  EXPECT_TRUE(root["usage_norm"].is_null()) << root;
  EXPECT_TRUE(root["level_fs"].is_null()) << root;
  EXPECT_TRUE(root["fs_factor"].is_null()) << root;
  EXPECT_DOUBLE_EQ(root["usage_efctv"].get<double>(), 1.0);
  for (const auto& level : j["fair_share_path"])
    for (const char* key : {"shares_norm", "usage_norm", "usage_efctv", "level_fs", "fs_factor"})
      if (level[key].is_number()) {
        const double v = level[key].get<double>();
        EXPECT_NE(v, static_cast<double>(kNoVal)) << key;
        EXPECT_NE(v, 1.0 / kNoVal) << key;
      }
  const std::string parsable = format_explain_parsable(q, e);
  EXPECT_NE(parsable.find("\n0|root|||1||1|1|\n"), std::string::npos) << parsable;
  EXPECT_EQ(parsable.find("4294967294"), std::string::npos) << parsable;
  EXPECT_EQ(parsable.find("e-10"), std::string::npos) << parsable;
  // Account c: no user directly under it, no factor.
  const auto c = fair_share_path(fs, 4);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_TRUE(is_unset(c.back().fs_factor));
  EXPECT_FALSE(usage_halving_fs_factor(fs, 4).has_value());
  // Classic has no Level FS at any level.
  fs.algorithm = Algorithm::kClassic;
  for (const auto& level : fair_share_path(fs, 11)) EXPECT_TRUE(is_unset(level.level_fs));
}

// fairway(1): an account's factor is the highest among its users'; explain --account says so
// and how much usage halves it, and the history's rows of the account show the same.
TEST(ExplainOutput, AnAccountsFactorIsTheHighestOfItsUsers) {
  const FairShareInput fs = two_accounts();
  const auto path = fair_share_path(fs, 2);  // account a: u12 2/3, u11 1/3
  ASSERT_EQ(path.size(), 2u);
  EXPECT_DOUBLE_EQ(path.back().fs_factor, 2.0 / 3);
  EXPECT_DOUBLE_EQ(fair_share_path(fs, 11)[1].fs_factor, 2.0 / 3);  // a on u11's path
  PendingJob none;
  Explanation e;
  e.job = &none;
  e.path = path;
  // Usage charged to a cannot put it below b: a stays second, u12 keeps 2/3.
  e.halving_usage = usage_halving_fs_factor(fs, 2);
  EXPECT_FALSE(e.halving_usage.has_value());
  std::string text = format_explain(Queue{}, fs, e);
  EXPECT_NE(text.find("The account's fair-share factor is 0.666667, the highest among its "
                      "users'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("No amount of usage charged to a alone would halve it"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("0.000000"), std::string::npos) << text;
  const std::string parsable = format_explain_parsable(Queue{}, e);
  EXPECT_NE(parsable.find("|0.6666666666666666\n"), std::string::npos) << parsable;
  // Account b (u21: 1): usage puts b below a, and u21 to 1/3.
  e.path = fair_share_path(fs, 3);
  e.halving_usage = usage_halving_fs_factor(fs, 3);
  ASSERT_TRUE(e.halving_usage.has_value());
  EXPECT_GT(*e.halving_usage, 0);
  text = format_explain(Queue{}, fs, e);
  EXPECT_NE(text.find("The account's fair-share factor is 1.000000, the highest among its "
                      "users'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Usage that would halve it: "), std::string::npos) << text;

  // The history: account a (id 2) and its users' records; 0 recorded for the account.
  HistoryData h;
  h.names = {{2, "a", ""}, {11, "a", "u11"}, {12, "a", "u12"}, {21, "b", "u21"}};
  HistoryPeriod p;
  p.time = 1000;
  p.records = {{2, 400, 0.8f, 0.5f, 0},
               {11, 300, 0.6f, 0.25f, 0.25f},
               {12, 100, 0.2f, 0.25f, 0.75f},
               {21, 100, 0.2f, 0.5f, 1.0f}};
  h.periods.push_back(p);
  const auto series = history_series(h, "a", "");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_FLOAT_EQ(series[0].records[0].fs_factor, 0.75f);
  EXPECT_NE(format_history_parsable(series).find("|0.750000\n"), std::string::npos)
      << format_history_parsable(series);
  // A user's own row is its own.
  EXPECT_FLOAT_EQ(history_series(h, "a", "u11")[0].records[0].fs_factor, 0.25f);
}

// The job ahead is of the same association: fair-share gives both the same factor.
TEST(ExplainOutput, SameAssociationIsNotSeparatedByFairShare) {
  Queue q = queue();
  q.jobs.push_back(job(44, 11, 10, row("p", 3833, 500, 3333)));
  q.jobs.push_back(job(43, 11, 50, row("p", 3433, 100, 3333)));
  const FairShareInput fs = two_accounts();
  const Explanation e = explain_job(q, fs, 43);
  ASSERT_EQ(e.places.size(), 1u);
  EXPECT_TRUE(e.places[0].same_association);
  EXPECT_LT(e.places[0].fair_share_passes, 0);
  const std::string text = format_explain(q, fs, e);
  EXPECT_NE(text.find("the same association (user u11, account a): fair-share cannot separate "
                      "them"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("half-lives"), std::string::npos) << text;
}

// Every association ties (no usage): the least usage puts one behind its siblings and halves
// its factor. No "0 more raw usage".
TEST(ExplainOutput, AnyUsageHalvesATiedFactor) {
  FairShareInput fs;
  fs.associations = {{1, 0, "root", "", false, 1, 0},
                     {2, 1, "a", "", false, 1, 0},
                     {11, 2, "a", "u11", false, 1, 0},
                     {12, 2, "a", "u12", false, 1, 0}};
  const auto extra = usage_halving_fs_factor(fs, 11);
  ASSERT_TRUE(extra.has_value());
  EXPECT_EQ(*extra, 0);
  Queue q = queue();
  q.jobs.push_back(job(7, 11, 100, row("p", 10000, 0, 10000)));
  const std::string text = format_explain(q, fs, explain_job(q, fs, 7));
  EXPECT_NE(text.find("Any usage at all charged to u11 would halve it"), std::string::npos) << text;
  EXPECT_EQ(text.find(" 0 more"), std::string::npos) << text;
}

// Usage of 1e308: numbers in scientific notation, not 300 digits.
TEST(ExplainOutput, HugeValuesInScientificNotation) {
  FairShareInput fs = two_accounts();
  for (auto& a : fs.associations)
    if (a.id == 11) a.usage_raw = 1e308L;
  Queue q = queue();
  q.jobs.push_back(job(7, 21, 100, row("p", 10000, 0, 10000)));
  const std::string text = format_explain(q, fs, explain_job(q, fs, 7), true);
  EXPECT_EQ(text.find("00000000000000000000"), std::string::npos) << text;
  EXPECT_EQ(decimal_words(1e308), "1.000000e+308");
  EXPECT_EQ(decimal_words(0.25), "0.250000");
  EXPECT_EQ(decimal_words(kNoVal), "");
  EXPECT_EQ(number_words(1e308), "1.000e+308");
  EXPECT_EQ(number_words(42), "42");
  HistorySeries s{11, "a", "u11", {1000}, {{11, 1e308, 1, 1, 0.5f}}};
  EXPECT_EQ(format_history({s}).find("00000000000000000000"), std::string::npos)
      << format_history({s});
}

// The text begins with the job's place, squeue's Reason and what the job waits for; the
// fair-share levels' numbers (and the root's row) only with --verbose.
TEST(ExplainOutput, OpensWithPlaceReasonAndWait) {
  Queue q = queue();
  q.jobs.push_back(job(1, 21, 10, row("p", 10000, 0, 10000)));
  q.jobs.push_back(job(2, 12, 20, row("p", 6000, 0, 6000)));
  q.jobs.push_back(job(3, 11, 5, row("p", 3333, 0, 3333.33)));
  q.jobs[2].reason = "Priority";
  q.jobs[0].reason = "Resources";
  const FairShareInput fs = two_accounts();
  const std::string third = format_explain(q, fs, explain_job(q, fs, 3));
  const std::string opening = third.substr(0, third.find("\n\n"));
  EXPECT_NE(opening.find("It is 3rd of 3 pending jobs in partition p. 2 jobs are ahead of it in "
                         "the scheduler's order (squeue: Priority)."),
            std::string::npos)
      << third;
  const std::string first = format_explain(q, fs, explain_job(q, fs, 1));
  EXPECT_NE(first.substr(0, first.find("\n\n"))
                .find("No job is ahead of it: it is next, and waits for free resources (squeue: "
                      "Resources)."),
            std::string::npos)
      << first;
  q.jobs[2].reason = "Dependency";
  const std::string waits = format_explain(q, fs, explain_job(q, fs, 3));
  EXPECT_NE(waits.find("It waits for another job it depends on (squeue: Dependency)"),
            std::string::npos)
      << waits;
  // Levels: ranks only; --verbose: the numbers and the root.
  EXPECT_EQ(third.find("Level FS"), std::string::npos) << third;
  EXPECT_NE(third.find("user u11: 2nd of 2 among its siblings"), std::string::npos) << third;
  const std::string verbose = format_explain(q, fs, explain_job(q, fs, 3), true);
  EXPECT_NE(verbose.find("Level FS"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("\n  root  "), std::string::npos) << verbose;
}

// squeue's Reason travels in a snapshot; a snapshot without it still reads.
TEST(SnapshotV2, ReasonIsKept) {
  Snapshot s = two_accounts_and_job_7();
  const std::string old_text = write_snapshot(s);
  EXPECT_EQ(old_text.find("\"reason\""), std::string::npos);
  EXPECT_TRUE(parse_snapshot(old_text).queue->jobs[0].reason.empty());
  s.queue->jobs[0].reason = "Priority";
  const std::string text = write_snapshot(s);
  const Snapshot back = parse_snapshot(text);
  EXPECT_EQ(back.queue->jobs[0].reason, "Priority");
  EXPECT_EQ(write_snapshot(back), text);
}

}  // namespace
}  // namespace fairway
