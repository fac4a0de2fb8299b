// `fairway compare` and `fairway weights`: where two jobs' fair-share paths part (Fair Tree at
// depths 1-4, ties, Fairshare=parent; classic's effective usages), why one job is ahead in a
// partition, and which factor decides a queue's order.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compare.h"
#include "compare_format.h"
#include "error.h"
#include "explain.h"
#include "queue.h"
#include "queue_fixtures.h"
#include "weights.h"
#include "weights_format.h"

namespace fairway {
namespace {

AssocRecord acct(uint32_t id, uint32_t parent, const std::string& name, uint32_t shares = 1) {
  return {id, parent, name, "", false, shares, 0};
}
AssocRecord user(uint32_t id, uint32_t parent, const std::string& account, const std::string& name,
                 long double usage, uint32_t shares = 1) {
  return {id, parent, account, name, false, shares, usage};
}

FairShareInput tree(std::vector<AssocRecord> r, Algorithm a = Algorithm::kFairTree) {
  FairShareInput fs;
  fs.associations = std::move(r);
  fs.algorithm = a;
  return fs;
}

// root -> a (u11: 300, u12: 100), b (u21: 100)
FairShareInput two_accounts(Algorithm a = Algorithm::kFairTree) {
  return tree({acct(1, 0, "root"), acct(2, 1, "a"), acct(3, 1, "b"), user(11, 2, "a", "u11", 300),
               user(12, 2, "a", "u12", 100), user(21, 3, "b", "u21", 100)},
              a);
}

TEST(CompareFairShare, DepthOneUsersUnderTheRoot) {
  const auto d = fair_share_decision(
      tree({acct(1, 0, "root"), user(11, 1, "root", "x", 10), user(12, 1, "root", "y", 30)}), 12,
      11);
  EXPECT_EQ(d.ancestor, "root");
  ASSERT_TRUE(d.a && d.b);
  EXPECT_EQ(d.a->user, "y");
  EXPECT_EQ(d.b->user, "x");
  EXPECT_FALSE(d.a_ranks_first);  // y used more
  EXPECT_LT(d.fs_factor_a, d.fs_factor_b);
  EXPECT_EQ(d.b->rank, 1u);
  EXPECT_EQ(d.a->rank, 2u);
}

TEST(CompareFairShare, DepthTwoAccountsDecideAndUsersWithinOne) {
  const auto fs = two_accounts();
  auto d = fair_share_decision(fs, 11, 21);
  EXPECT_EQ(d.ancestor, "root");
  ASSERT_TRUE(d.a && d.b);
  EXPECT_EQ(d.a->account, "a");
  EXPECT_TRUE(d.a->user.empty());
  EXPECT_EQ(d.b->account, "b");
  EXPECT_FALSE(d.a_ranks_first);  // a used 400 of 500 with half the shares
  EXPECT_FALSE(d.tied);
  EXPECT_LT(static_cast<double>(d.a->level_fs), static_cast<double>(d.b->level_fs));
  EXPECT_LT(d.fs_factor_a, d.fs_factor_b);

  d = fair_share_decision(fs, 11, 12);
  EXPECT_EQ(d.ancestor, "a");
  EXPECT_EQ(d.a->user, "u11");
  EXPECT_EQ(d.b->user, "u12");
  EXPECT_FALSE(d.a_ranks_first);
  EXPECT_EQ(d.a->siblings, 2u);
}

// root -> x -> x1 -> x11 -> {p, q}; x -> x2 -> x21 -> r; root -> y -> s
FairShareInput deep() {
  return tree({acct(1, 0, "root"), acct(2, 1, "x"), acct(3, 2, "x1"), acct(4, 3, "x11"),
               user(10, 4, "x11", "p", 50), user(11, 4, "x11", "q", 5), acct(5, 2, "x2"),
               acct(6, 5, "x21"), user(12, 6, "x21", "r", 10), acct(7, 1, "y"),
               user(13, 7, "y", "s", 1)});
}

TEST(CompareFairShare, DepthsThreeAndFourPartAtTheDeepestCommonAccount) {
  const auto fs = deep();
  auto d = fair_share_decision(fs, 10, 12);  // p (depth 4) and r (depth 4): part below x
  EXPECT_EQ(d.ancestor, "x");
  EXPECT_EQ(d.a->account, "x1");
  EXPECT_EQ(d.b->account, "x2");
  EXPECT_FALSE(d.a_ranks_first);        // x1 used 55 of 65
  d = fair_share_decision(fs, 10, 11);  // siblings at depth 4
  EXPECT_EQ(d.ancestor, "x11");
  EXPECT_EQ(d.a->user, "p");
  EXPECT_EQ(d.b->user, "q");
  d = fair_share_decision(fs, 12, 13);  // depth 4 against depth 2: part below the root
  EXPECT_EQ(d.ancestor, "root");
  EXPECT_EQ(d.a->account, "x");
  EXPECT_EQ(d.b->account, "y");
  EXPECT_FALSE(d.a_ranks_first);
  EXPECT_LT(d.fs_factor_a, d.fs_factor_b);
}

TEST(CompareFairShare, TiedSiblingsGoByListOrder) {
  const auto fs = tree({acct(1, 0, "root"), acct(2, 1, "a"), acct(3, 1, "b"),
                        user(11, 2, "a", "u", 100), user(21, 3, "b", "v", 100)});
  const auto d = fair_share_decision(fs, 21, 11);
  EXPECT_TRUE(d.tied);
  EXPECT_EQ(d.a->account, "b");
  EXPECT_FALSE(d.a_ranks_first);  // a is first in root's list
  const auto e = fair_share_decision(fs, 11, 21);
  EXPECT_TRUE(e.a_ranks_first);
}

TEST(CompareFairShare, FairshareParentAccountsAreSkipped) {
  // root -> a (Fairshare=parent) -> u; root -> b -> v: u sits in root's list beside b.
  auto r = std::vector<AssocRecord>{acct(1, 0, "root"), acct(2, 1, "a"), acct(3, 1, "b"),
                                    user(11, 2, "a", "u", 10), user(21, 3, "b", "v", 30)};
  r[1].shares_parent = true;
  r[1].shares_raw = kSharesUseParent;
  const auto d = fair_share_decision(tree(r), 11, 21);
  EXPECT_EQ(d.ancestor, "root");
  ASSERT_TRUE(d.a && d.b);
  EXPECT_EQ(d.a->user, "u");
  EXPECT_EQ(d.b->account, "b");
  EXPECT_EQ(d.a->siblings, 3u);  // a stays in root's list too (Level FS NO_VAL), beside b and u
}

TEST(CompareFairShare, FairshareParentUserRanksFirstAmongItsSiblings) {
  auto r = std::vector<AssocRecord>{acct(1, 0, "root"), acct(2, 1, "a"),
                                    user(11, 2, "a", "u", 1000), user(12, 2, "a", "w", 1)};
  r[2].shares_parent = true;
  r[2].shares_raw = kSharesUseParent;
  const auto d = fair_share_decision(tree(r), 11, 12);
  EXPECT_EQ(d.ancestor, "a");
  EXPECT_TRUE(d.a->uses_parent);
  EXPECT_TRUE(std::isinf(d.a->level_fs));
  EXPECT_TRUE(d.a_ranks_first);
  EXPECT_GT(d.fs_factor_a, d.fs_factor_b);
}

TEST(CompareFairShare, ClassicReportsTheTwoEffectiveUsages) {
  const auto fs = two_accounts(Algorithm::kClassic);
  const auto d = fair_share_decision(fs, 11, 21);
  ASSERT_TRUE(d.a && d.b);
  EXPECT_EQ(d.a->user, "u11");
  EXPECT_EQ(d.b->user, "u21");
  const auto pa = fair_share_path(fs, 11), pb = fair_share_path(fs, 21);
  EXPECT_EQ(d.a->usage_efctv, pa.back().usage_efctv);
  EXPECT_EQ(d.b->usage_efctv, pb.back().usage_efctv);
  EXPECT_EQ(d.fs_factor_a, pa.back().fs_factor);
  EXPECT_GT(static_cast<double>(d.a->usage_efctv), static_cast<double>(d.b->usage_efctv));
  EXPECT_EQ(d.a_ranks_first, d.fs_factor_a > d.fs_factor_b);
  EXPECT_FALSE(d.a_ranks_first);
}

TEST(CompareFairShare, SameAssociation) {
  const auto d = fair_share_decision(two_accounts(), 11, 11);
  EXPECT_TRUE(d.same_association);
  EXPECT_EQ(d.fs_factor_a, d.fs_factor_b);
}

// Random trees of depth 1 to 4: for every pair of users, every user under the side that sorts
// first has a factor at least as high as every user under the other side, and a strictly
// higher one unless the two sides tie.
TEST(CompareFairShare, TheDecidingSidesOrderTheFactorsOnRandomTrees) {
  std::mt19937 rng(7);
  size_t strict = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<AssocRecord> r{acct(1, 0, "root")};
    std::vector<uint32_t> accounts{1};
    std::vector<uint32_t> depth_of(1000, 0);
    uint32_t next = 2;
    const uint32_t max_depth = 1 + round % 4;
    for (int k = 0; k < 8; ++k) {
      const uint32_t p = accounts[rng() % accounts.size()];
      if (depth_of[p] + 1 >= max_depth) continue;
      r.push_back(acct(next, p, "a" + std::to_string(next), 1 + rng() % 5));
      accounts.push_back(next);
      depth_of[next] = depth_of[p] + 1;
      ++next;
    }
    std::vector<uint32_t> users;
    for (uint32_t a : accounts) {
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) {
        const std::string account = a == 1 ? "root" : "a" + std::to_string(a);
        r.push_back(
            user(next, a, account, "u" + std::to_string(next), 1 + rng() % 1000, 1 + rng() % 4));
        users.push_back(next++);
      }
    }
    const auto fs = tree(r);
    for (uint32_t x : users)
      for (uint32_t y : users) {
        if (x == y) continue;
        const auto d = fair_share_decision(fs, x, y);
        ASSERT_TRUE(d.a && d.b);
        if (d.a_ranks_first)
          EXPECT_GE(d.fs_factor_a, d.fs_factor_b);
        else
          EXPECT_LE(d.fs_factor_a, d.fs_factor_b);
        if (!d.tied) {
          EXPECT_NE(d.fs_factor_a, d.fs_factor_b) << "users " << x << " " << y;
          ++strict;
        }
      }
  }
  EXPECT_GT(strict, 1000u);
}

using test::pending_job;

FactorRow row(const std::string& part, uint32_t prio, double age, double fs) {
  return test::factor_row(part, prio, age, fs);
}

Queue base_queue() {
  Queue q;
  q.taken_at = 1000;
  q.settings.weight[Factor::kAge] = 1000;
  q.settings.weight[Factor::kFairshare] = 10000;
  q.settings.max_age = 1000;
  q.partitions = {{"p", 1, 1, 64, 4}, {"q", 1, 1, 64, 4}};
  return q;
}

TEST(CompareJobs, FactorByFactorInEachCommonPartition) {
  Queue q = base_queue();
  q.jobs.push_back(pending_job(1, 11, 100, {row("p", 3500, 500, 3000), row("q", 3500, 500, 3000)}));
  q.jobs.push_back(pending_job(2, 21, 50, {row("p", 5900, 900, 5000)}));
  q.jobs.push_back(pending_job(3, 12, 60, {row("q", 100, 100, 0)}));
  const auto c = compare_jobs(q, two_accounts(), 1, 2);
  ASSERT_EQ(c.places.size(), 1u);  // only p is common
  EXPECT_EQ(c.places[0].partition, "p");
  EXPECT_FALSE(c.places[0].a_first);
  EXPECT_EQ(c.places[0].position_a, 2u);
  EXPECT_EQ(c.places[0].position_b, 1u);
  EXPECT_EQ(c.places[0].separation.by, Separation::By::kPriority);
  EXPECT_EQ(c.places[0].separation.factor, Factor::kFairshare);
  EXPECT_EQ(c.places[0].separation.difference, 2000);
  EXPECT_EQ(c.fair_share.ancestor, "root");

  const auto none = compare_jobs(q, two_accounts(), 2, 3);
  EXPECT_TRUE(none.places.empty());
  EXPECT_THROW((void)compare_jobs(q, two_accounts(), 1, 1), Error);
  EXPECT_THROW((void)compare_jobs(q, two_accounts(), 1, 99), Error);
}

TEST(CompareJobs, TwoRowsInOnePartitionArePlacedByTheirOwnRow) {
  // From Slurm 24.11 a job with two QOS has two rows in a partition: the first is compared.
  Queue q = base_queue();
  q.jobs.push_back(pending_job(1, 11, 100, {row("p", 11000, 0, 11000), row("p", 3000, 0, 3000)}));
  q.jobs.push_back(pending_job(2, 21, 50, {row("p", 6000, 0, 6000)}));
  const auto c = compare_jobs(q, two_accounts(), 1, 2);
  ASSERT_EQ(c.places.size(), 1u);
  EXPECT_TRUE(c.places[0].a_first);
  EXPECT_EQ(c.places[0].position_a, 1u);
  EXPECT_EQ(c.places[0].position_b, 2u);
  EXPECT_EQ(c.places[0].of, 3u);
}

TEST(Weights, OneFactorDecidesEveryPair) {
  Queue q = base_queue();
  for (uint32_t i = 1; i <= 6; ++i)
    q.jobs.push_back(pending_job(i, 11, 100, {row("p", 1000 + 500 * i, 1000, 500 * i)}));
  const auto d = queue_decisions(q);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].partition, "p");
  EXPECT_EQ(d[0].jobs, 6u);
  EXPECT_EQ(d[0].pairs, 5u);
  const auto& fs = d[0].factors[static_cast<size_t>(Factor::kFairshare)];
  EXPECT_EQ(fs.decides, 5u);
  EXPECT_EQ(fs.verdict, FactorUse::Verdict::kDecides);
  // every job at PriorityMaxAge: age is saturated
  const auto& age = d[0].factors[static_cast<size_t>(Factor::kAge)];
  EXPECT_EQ(age.verdict, FactorUse::Verdict::kSaturated);
  EXPECT_EQ(age.at_weight, 6u);
  EXPECT_EQ(d[0].factors[static_cast<size_t>(Factor::kQos)].verdict, FactorUse::Verdict::kUnused);
}

TEST(Weights, AFactorDrownedByAWeightOrdersOfMagnitudeAbove) {
  Queue q = base_queue();
  q.settings.weight[Factor::kFairshare] = 100000000;
  for (uint32_t i = 1; i <= 5; ++i)
    q.jobs.push_back(pending_job(
        i, 11, 100, {row("p", 0, 10.0 * i, 1e7 * (6 - i))}));  // older jobs: less fair-share
  for (auto& j : q.jobs)
    j.rows[0].priority = static_cast<uint32_t>(j.rows[0].factor[Factor::kAge] +
                                               j.rows[0].factor[Factor::kFairshare]);
  const auto d = queue_decisions(q);
  ASSERT_EQ(d.size(), 1u);
  const auto& age = d[0].factors[static_cast<size_t>(Factor::kAge)];
  EXPECT_EQ(age.decides, 0u);
  EXPECT_EQ(age.verdict, FactorUse::Verdict::kDrowned);
  EXPECT_EQ(age.by, Factor::kFairshare);
  EXPECT_EQ(d[0].factors[static_cast<size_t>(Factor::kFairshare)].decides, 4u);
}

TEST(Weights, EqualPrioritiesGoBySubmitTimeThenJobId) {
  Queue q = base_queue();
  q.jobs.push_back(pending_job(1, 11, 100, {row("p", 500, 500, 0)}));
  q.jobs.push_back(pending_job(2, 11, 90, {row("p", 500, 500, 0)}));
  q.jobs.push_back(pending_job(3, 11, 90, {row("p", 500, 500, 0)}));
  PendingJob admin = pending_job(4, 11, 80, {row("p", 9000, 0, 0)});
  admin.rows[0].admin = true;
  admin.admin_priority = true;
  q.jobs.push_back(admin);
  const auto d = queue_decisions(q);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].by_admin, 1u);
  EXPECT_EQ(d[0].by_job_id, 1u);
  EXPECT_EQ(d[0].by_submit_time, 1u);
  EXPECT_EQ(d[0].factors[static_cast<size_t>(Factor::kAge)].verdict, FactorUse::Verdict::kConstant);
}

// One user's small and large jobs side by side are ordered by job size; what orders users is
// fair-share. The headline weighs each pair of two associations by its priority gap, and says
// so; the table shows both counts.
TEST(Weights, HeadlineWeighsPairsOfTwoAssociationsByTheirGap) {
  Queue q = base_queue();
  q.settings.weight[Factor::kJobSize] = 100;
  q.jobs.push_back(pending_job(1, 21, 100, {test::factor_row("p", 9100, 0, 9000, 100)}));
  q.jobs.push_back(pending_job(2, 21, 100, {test::factor_row("p", 9000, 0, 9000, 0)}));
  q.jobs.push_back(pending_job(3, 11, 100, {test::factor_row("p", 3100, 0, 3000, 100)}));
  q.jobs.push_back(pending_job(4, 11, 100, {test::factor_row("p", 3000, 0, 3000, 0)}));
  q.jobs.push_back(pending_job(5, 12, 100, {test::factor_row("p", 2100, 0, 2000, 100)}));
  q.jobs.push_back(pending_job(6, 12, 100, {test::factor_row("p", 2000, 0, 2000, 0)}));
  const auto d = queue_decisions(q);
  ASSERT_EQ(d.size(), 1u);
  const auto& js = d[0].factors[static_cast<size_t>(Factor::kJobSize)];
  const auto& fs = d[0].factors[static_cast<size_t>(Factor::kFairshare)];
  EXPECT_EQ(js.decides, 3u);
  EXPECT_EQ(js.decides_between, 0u);
  EXPECT_EQ(fs.decides_between, 2u);
  EXPECT_EQ(d[0].pairs_between, 2u);
  EXPECT_DOUBLE_EQ(fs.gap, 5900 + 900);
  EXPECT_DOUBLE_EQ(gap_share(d[0], fs), 1.0);
  const std::string text = format_weights(d);
  // The sentence, whatever the wrapping.
  std::string flat;
  for (char ch : text)
    if (!(ch == ' ' && !flat.empty() && flat.back() == ' ')) flat += ch == '\n' ? ' ' : ch;
  EXPECT_NE(flat.find("fair-share makes 100% of the priority gaps between neighbours of different "
                      "associations (2 of the 5 neighbour pairs have jobs of two associations)."),
            std::string::npos)
      << text;
  // The table's lines are not wrapped.
  EXPECT_NE(text.find("\n  job size                          3   60.0%    0.0%"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("job size decides"), std::string::npos) << text;
}

// -P: one field count for every row kind (factors; tier, submit time, job id, admin).
TEST(Weights, ParsableRowsHaveTheHeadersFieldCount) {
  Queue q = base_queue();
  q.partitions.push_back({"hi", 1, 5, 64, 4});
  q.jobs.push_back(pending_job(1, 11, 100, {row("p", 500, 500, 0)}));
  q.jobs.push_back(pending_job(2, 11, 90, {row("p", 500, 500, 0)}));
  q.jobs.push_back(pending_job(3, 11, 90, {row("p", 500, 500, 0)}));
  q.jobs.push_back(pending_job(5, 12, 90, {row("p", 400, 400, 0)}));
  PendingJob admin = pending_job(4, 11, 80, {row("p", 9000, 0, 0)});
  admin.rows[0].admin = true;
  admin.admin_priority = true;
  q.jobs.push_back(admin);
  const std::string out = format_weights_parsable(queue_decisions(q));
  auto fields = [](const std::string& line) {
    return static_cast<size_t>(std::count(line.begin(), line.end(), '|')) + 1;
  };
  std::istringstream in(out);
  std::string header;
  std::getline(in, header);
  size_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows)
    EXPECT_EQ(fields(line), fields(header)) << line;
  EXPECT_GE(rows, 6u);
  for (const char* kind : {"|tier|", "|submit_time|", "|job_id|", "|admin|", "|age|"})
    EXPECT_NE(out.find(kind), std::string::npos) << kind;
}

// compare: classic and depth-oblivious have no Level FS (Slurm never sets it): null in JSON
// and empty in -P, not 0.
TEST(CompareFairShare, NoLevelFsOutsideFairTree) {
  const FairShareInput fs = two_accounts(Algorithm::kClassic);
  Queue q = base_queue();
  q.jobs.push_back(pending_job(1, 21, 100, {row("p", 9000, 0, 9000)}));
  q.jobs.push_back(pending_job(2, 11, 100, {row("p", 3000, 0, 3000)}));
  const auto c = compare_jobs(q, fs, 1, 2);
  const auto j = nlohmann::json::parse(format_compare_json(c));
  ASSERT_TRUE(j.contains("fair_share")) << j;
  for (const char* side : {"side_a", "side_b"}) {
    ASSERT_TRUE(j["fair_share"][side].is_object()) << j;
    EXPECT_TRUE(j["fair_share"][side]["level_fs"].is_null()) << j;
  }
  const std::string parsable = format_compare_parsable(c);
  // Side|Job|Ancestor|Account|User|NormShares|EffectvUsage|LevelFS|...: LevelFS empty.
  std::istringstream in(parsable.substr(parsable.find("\na|") + 1));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> f;
  for (size_t at = 0;;) {
    const size_t bar = line.find('|', at);
    f.push_back(line.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
    if (bar == std::string::npos) break;
    at = bar + 1;
  }
  ASSERT_EQ(f.size(), 11u) << line;
  EXPECT_EQ(f[7], "") << line;
}

}  // namespace
}  // namespace fairway
