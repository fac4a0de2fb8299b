// Fair Tree: values against Slurm's own test24.4 and the live testbed table, tie rules derived by
// hand from fair_tree.c's rules, edge cases, and the allocation-free contract.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "fair_share.h"
#include "snapshot.h"
#include "test_data.h"

#if defined(__GNUC__) && !defined(__clang__)
// The replacement operator delete below frees what the replacement operator new malloc'ed.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Count allocations so that the "no allocation on recompute" contract is tested for real.
static std::atomic<long> g_allocations{0};
void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace fairway {
namespace {

constexpr long double kInf = std::numeric_limits<long double>::infinity();

AssocRecord rec(uint32_t id, uint32_t parent, std::string account, std::string user,
                uint32_t shares, long double usage, bool parent_shares = false) {
  AssocRecord r;
  r.id = id;
  r.parent_id = parent;
  r.account = std::move(account);
  r.user = std::move(user);
  r.shares_raw = shares;
  r.shares_parent = parent_shares;
  r.usage_raw = usage;
  return r;
}

// Builds from direct usage (accounts' totals derived).
AssocTree tree_of(std::vector<AssocRecord> r) {
  accumulate_direct_usage(r);
  return AssocTree::build(std::move(r));
}

struct Computed {
  AssocTree tree;
  FairShareResult out;
  uint32_t at(uint32_t id) const { return tree.find(id); }
  double fs(uint32_t id) const { return out.fs_factor[at(id)]; }
  long double lf(uint32_t id) const { return out.level_fs[at(id)]; }
};

Computed run(AssocTree t) {
  Computed c{std::move(t), {}};
  compute_fair_share(c.tree, Algorithm::kFairTree, 1, c.out);
  return c;
}

Computed run_fixture(const std::string& name) {
  return run(snapshot_tree(read_snapshot_file(test::data_path("snapshots/" + name))));
}

std::string f6(double v) { return fmt::format("{:f}", v); }

// Slurm testsuite/expect/test24.4: the rows it expects (NormShares, NormUsage, EffectvUsage,
// FairShare, LevelFS as printed) and the ranks they imply out of 21 users.
TEST(FairTree, SlurmTest24_4) {
  const Computed c = run_fixture("test24_4.json");
  struct Exp {
    uint32_t id;
    const char *norm_shares, *norm_usage, *eff_usage, *fairshare, *level_fs;
    int rank;  // fairshare = rank / 21
  };
  const Exp users[] = {
      {7, "0.048077", "0.000000", "0.000000", "1.000000", "inf", 21},
      {1001, "0.048077", "0.041667", "0.041667", "0.666667", "1.153846", 14},
      {211, "1.000000", "0.083333", "1.000000", "0.619048", "1.000000", 13},
      {221, "0.500000", "0.104167", "1.000000", "0.523810", "0.500000", 11},
      {222, "0.500000", "0.000000", "0.000000", "0.571429", "inf", 12},
      {311, "1.000000", "0.104167", "1.000000", "0.714286", "1.000000", 15},
      {321, "1.000000", "0.000000", "0.000000", "0.761905", "inf", 16},
      {41, "0.000000", "0.125000", "1.000000", "0.047619", "0.000000", 1},
      {52, "0.240385", "0.083333", "0.181818", "0.476190", nullptr, 10},
      {53, "0.235294", "0.083333", "0.181818", "0.238095", "1.294118", 5},
      {54, "0.294118", "0.104167", "0.227273", "0.333333", "1.294118", 7},
      {511, "0.240385", "0.041667", "0.090909", "0.476190", nullptr, 10},
      {512, "0.176471", "0.041667", "0.090909", "0.380952", "1.941176", 8},
      {513, "0.294118", "0.104167", "0.227273", "0.333333", "1.294118", 7},
      {61, "0.500000", "0.000000", "0.000000", "1.000000", "inf", 21},
      {62, "0.500000", "0.000000", "0.000000", "1.000000", "inf", 21},
      {81, "0.333333", "0.000000", "0.000000", "1.000000", "inf", 21},
      {82, "0.666667", "0.000000", "0.000000", "1.000000", "inf", 21},
      {91, "0.500000", "0.041667", "0.500000", "0.190476", "1.000000", 4},
      {921, "0.500000", "0.016667", "0.400000", "0.190476", "1.250000", 4},
      {922, "0.500000", "0.025000", "0.600000", "0.095238", "0.833333", 2},
  };
  ASSERT_EQ(c.tree.user_count(), 21u);
  for (const Exp& e : users) {
    SCOPED_TRACE("id " + std::to_string(e.id));
    const uint32_t i = c.at(e.id);
    EXPECT_EQ(f6(c.out.shares_norm[i]), e.norm_shares);
    EXPECT_EQ(f6(static_cast<double>(c.out.usage_norm[i])), e.norm_usage);
    EXPECT_EQ(f6(static_cast<double>(c.out.usage_efctv[i])), e.eff_usage);
    EXPECT_EQ(f6(c.out.fs_factor[i]), e.fairshare);
    EXPECT_EQ(c.out.fs_factor[i], e.rank / 21.0);
    if (e.level_fs) {
      EXPECT_EQ(f6(static_cast<double>(c.out.level_fs[i])), e.level_fs);
    }
  }
  // Accounts: (id, LevelFS, EffectvUsage) from the same expect file.
  const std::tuple<uint32_t, const char*, const char*> accounts[] = {
      {2, "1.025641", "0.187500"}, {21, "1.687500", "0.444444"}, {22, "0.450000", "0.555556"},
      {3, "2.769231", "0.104167"}, {31, "0.416667", "1.000000"}, {32, "inf", "0.000000"},
      {4, "0.000000", "0.125000"}, {5, "0.524476", "0.458333"},  {6, "inf", "0.000000"},
      {8, "inf", "0.000000"},      {9, "0.461538", "0.083333"},  {92, "1.000000", "0.500000"}};
  for (const auto& [id, level_fs, eff] : accounts) {
    SCOPED_TRACE("account id " + std::to_string(id));
    EXPECT_EQ(f6(static_cast<double>(c.lf(id))), level_fs);
    EXPECT_EQ(f6(static_cast<double>(c.out.usage_efctv[c.at(id)])), eff);
    EXPECT_EQ(c.out.fs_factor[c.at(id)], 0.0);
  }
  // aDA is Fairshare=parent: usage relative to aD (45/110), level_fs NO_VAL.
  EXPECT_EQ(c.out.usage_efctv[c.at(51)], 45.0L / 110.0L);
  EXPECT_EQ(c.lf(51), static_cast<long double>(kNoVal));
}

// uD2 and uD3 print the same LevelFS (1.294118) but are not bit-identical, so they do not tie;
// uD3 and uDA3 are computed from identical operands and do tie. Slurm's tie test is exact long
// double equality and so is ours.
TEST(FairTree, TiesNeedBitIdenticalLevelFs) {
  const Computed c = run_fixture("test24_4.json");
  EXPECT_NE(c.lf(53), c.lf(54));
  EXPECT_LT(std::fabs(static_cast<double>(c.lf(53) - c.lf(54))), 1e-9);
  EXPECT_EQ(c.lf(54), c.lf(513));
  EXPECT_EQ(c.fs(54), c.fs(513));
  EXPECT_NE(c.fs(53), c.fs(54));
}

// A tied with B (both S = U = 1/2). Slurm 22.05 does not merge tied accounts (its
// _count_tied_accounts() stops at the next account): A is visited first: y (LF 1.25) gets rank 4,
// x (0.8333) rank 3; then B starts tied, so p keeps rank 3, and q ties with p: 3/4 each.
// (Merging would give y 4/4, p and q 3/4, x 1/4.) Verified against Debian's 22.05.8 libraries.
TEST(FairTree, TiedSiblingAccountsAreVisitedInOrderNotMerged) {
  const Computed c =
      run(tree_of({rec(1, 0, "root", "", 1, 0), rec(2, 1, "A", "", 1, 0),
                   rec(21, 2, "A", "x", 1, 6), rec(22, 2, "A", "y", 1, 4), rec(3, 1, "B", "", 1, 0),
                   rec(31, 3, "B", "p", 1, 5), rec(32, 3, "B", "q", 1, 5)}));
  EXPECT_EQ(c.lf(2), c.lf(3));
  EXPECT_EQ(c.fs(22), 1.0);
  EXPECT_EQ(c.fs(21), 0.75);
  EXPECT_EQ(c.fs(31), 0.75);
  EXPECT_EQ(c.fs(32), 0.75);
}

// A user whose level_fs equals a sibling account's sorts first; the account's first user is then
// "tied" and gets the same rank (test24.4's aG: uG1 and uGA1 both 4/21).
TEST(FairTree, UserTiedWithAccountSharesItsTopRank) {
  const Computed c =
      run(tree_of({rec(1, 0, "root", "", 1, 0), rec(9, 1, "aG", "", 1, 0),
                   rec(91, 9, "aG", "uG1", 10, 10), rec(92, 9, "aGA", "", 10, 0),
                   rec(921, 92, "aGA", "uGA1", 20, 4), rec(922, 92, "aGA", "uGA2", 20, 6)}));
  EXPECT_EQ(c.lf(91), c.lf(92));
  EXPECT_EQ(c.fs(91), 1.0);   // rank 3 of 3
  EXPECT_EQ(c.fs(921), 1.0);  // tied with uG1
  EXPECT_EQ(c.fs(922), 1.0 / 3.0);
}

TEST(FairTree, TiedUsersShareARankAndTheNextUserSkipsIt) {
  const Computed c = run(
      tree_of({rec(1, 0, "root", "", 1, 0), rec(2, 1, "a", "", 1, 0), rec(21, 2, "a", "u1", 1, 3),
               rec(22, 2, "a", "u2", 1, 3), rec(23, 2, "a", "u3", 1, 6)}));
  EXPECT_EQ(c.fs(21), 1.0);
  EXPECT_EQ(c.fs(22), 1.0);
  EXPECT_EQ(c.fs(23), 1.0 / 3.0);  // rank = rank-without-ties = 1
}

// Fairshare=parent users get level_fs = +inf whatever their usage and rank at the top of their
// list, tied with any other +inf sibling (here a user without usage).
TEST(FairTree, FairshareParentUsersRankAsInfinity) {
  const Computed c = run(tree_of({rec(1, 0, "root", "", 1, 0), rec(2, 1, "a", "", 1, 0),
                                  rec(21, 2, "a", "heavy", 0, 1000, true),
                                  rec(22, 2, "a", "idle", 1, 0), rec(23, 2, "a", "light", 1, 1)}));
  EXPECT_EQ(c.lf(21), kInf);
  EXPECT_EQ(c.lf(22), kInf);
  EXPECT_EQ(c.fs(21), 1.0);
  EXPECT_EQ(c.fs(22), 1.0);
  EXPECT_EQ(c.fs(23), 1.0 / 3.0);
  // The parent user's shares are its account's; its usage is relative to the account's.
  EXPECT_EQ(c.out.shares_norm[c.at(21)], c.out.shares_norm[c.at(2)]);
  EXPECT_EQ(c.out.usage_efctv[c.at(21)], 1000.0L / 1001.0L);
}

// A Fairshare=parent account is a sibling of its own children in the fs list, with level_fs NO_VAL;
// it ranks nobody itself. Users below it compete with the users of the account above.
TEST(FairTree, FairshareParentAccountsAtSeveralLevels) {
  const Computed c = run_fixture("parent_levels.json");
  EXPECT_EQ(c.tree.fs_parent(c.at(2331)), c.at(2));  // two parent accounts skipped
  EXPECT_EQ(c.lf(23), static_cast<long double>(kNoVal));
  EXPECT_EQ(c.lf(233), static_cast<long double>(kNoVal));
  // Users of acc's fs list: ua(1) 5, ub(parent) 7, uc(2) 3, ud(parent) 1, ue(3) 4, uf(parent) 0.
  // level shares 1+2+3 = 6; acc total 20. LF: ua (1/6)/(5/20)=0.667, uc (2/6)/(3/20)=2.222,
  // ue (3/6)/(4/20) = 2.5; parents +inf.
  EXPECT_EQ(c.out.shares_norm[c.at(2331)], 3.0 / 6.0);
  EXPECT_EQ(c.out.usage_efctv[c.at(2331)], 4.0L / 20.0L);
  // Root list: ur (parent user, +inf) first; acc and other: S = 10/(10+10) = 0.5 each,
  // U = 20/40 vs 14/40 -> other ranks above acc. 9 users.
  ASSERT_EQ(c.tree.user_count(), 9u);
  EXPECT_EQ(c.fs(4), 1.0);  // ur
  // other: ug (parent, inf) then uh.
  EXPECT_EQ(c.fs(31), 8.0 / 9.0);
  EXPECT_EQ(c.fs(32), 7.0 / 9.0);
  // acc: ub, ud, uf tie at +inf (rank 6), then ue (rnt 3), uc (2), ua (1).
  EXPECT_EQ(c.fs(22), 6.0 / 9.0);
  EXPECT_EQ(c.fs(232), 6.0 / 9.0);
  EXPECT_EQ(c.fs(2332), 6.0 / 9.0);
  EXPECT_EQ(c.fs(2331), 3.0 / 9.0);
  EXPECT_EQ(c.fs(231), 2.0 / 9.0);
  EXPECT_EQ(c.fs(21), 1.0 / 9.0);
}

TEST(FairTree, ZeroSharesRankLastWithLevelFsZero) {
  const Computed c = run(tree_of({rec(1, 0, "root", "", 1, 0), rec(2, 1, "a", "", 1, 0),
                                  rec(21, 2, "a", "none", 0, 0), rec(22, 2, "a", "busy", 1, 50)}));
  EXPECT_EQ(c.lf(21), 0.0L);  // S == 0 wins over U == 0: 0, not NaN or inf
  EXPECT_EQ(c.lf(22), (1.0L / 1.0L) / (50.0L / 50.0L));
  EXPECT_EQ(c.fs(22), 1.0);
  EXPECT_EQ(c.fs(21), 0.5);
}

TEST(FairTree, ZeroUsageEverywhere) {
  const Computed c = run_fixture("zero_usage.json");
  for (uint32_t i = 0; i < c.tree.size(); ++i) {
    if (i == c.tree.root()) continue;
    EXPECT_EQ(c.out.usage_norm[i], 0.0L);   // root usage 0: no usage anywhere
    EXPECT_EQ(c.out.usage_efctv[i], 0.0L);  // parent usage 0
  }
  EXPECT_EQ(c.lf(2), kInf);
  EXPECT_EQ(c.lf(3), 0.0L);  // zero shares
  // a and c tie at +inf: a's users u1, u2 (inf, tied) rank 4; c starts tied: u4 has zero
  // shares (LF 0) but is first in its list, so it keeps rank 4; b's u3 (inf) then rank 1.
  EXPECT_EQ(c.fs(21), 1.0);
  EXPECT_EQ(c.fs(22), 1.0);
  EXPECT_EQ(c.fs(41), 1.0);
  EXPECT_EQ(c.fs(31), 0.25);
}

TEST(FairTree, SingleUser) {
  const Computed c = run_fixture("single_user.json");
  EXPECT_EQ(c.fs(21), 1.0);
  EXPECT_EQ(c.out.usage_efctv[c.at(21)], 1.0L);
  EXPECT_EQ(c.out.usage_norm[c.at(21)], 1.0L);
  EXPECT_EQ(c.lf(21), 1.0L);
}

// Six account levels l1..l6, each with a user y_d next to the deeper account; x below l6.
// Heavy users (y_d = 10^(8-d)): every account beats its sibling user, so the deepest user ranks
// first: x 7/7, y6 6/7, ..., y1 1/7. Light users (y_d = 0): users first at every level.
TEST(FairTree, DeepTreeRanksDepthFirst) {
  for (bool heavy : {true, false}) {
    std::vector<AssocRecord> r{rec(1, 0, "root", "", 1, 0)};
    for (uint32_t d = 1; d <= 6; ++d) {
      r.push_back(rec(d + 1, d, "l" + std::to_string(d), "", 1, 0));
      r.push_back(rec(100 + d, d + 1, "l" + std::to_string(d), "y" + std::to_string(d), 1,
                      heavy ? std::pow(10.0L, 8 - static_cast<int>(d)) : 0));
    }
    r.push_back(rec(200, 7, "l6", "x", 1, 1));
    const Computed c = run(tree_of(r));
    SCOPED_TRACE(heavy ? "heavy" : "light");
    EXPECT_EQ(c.fs(200), heavy ? 1.0 : 1.0 / 7.0);
    for (uint32_t d = 1; d <= 6; ++d)
      EXPECT_EQ(c.fs(100 + d), heavy ? d / 7.0 : (8 - d) / 7.0) << "y" << d;
  }
}

TEST(FairTree, HugeUsage) {
  const Computed c = run_fixture("huge_usage.json");
  // big = 1.5e30 of 1.5e30 + 12345.5: S/U for small is enormous but finite.
  EXPECT_TRUE(std::isfinite(static_cast<double>(c.lf(3))));
  EXPECT_GT(c.lf(3), 1e20L);
  EXPECT_EQ(c.fs(31), 1.0);
  EXPECT_EQ(c.fs(22), 2.0 / 3.0);  // h2 (5e29) above h1 (1e30)
  EXPECT_EQ(c.fs(21), 1.0 / 3.0);
  // JSON numbers are doubles; the tree holds them as long double.
  const long double h1 = 1e30, h2 = 5e29;
  EXPECT_EQ(c.out.usage_efctv[c.at(21)], h1 / (h1 + h2));
}

// Reproduces a live Slurm 22.05.8 cluster (testbed_2328 in test/data/README.md: its sshare at
// 23:28:16): FairShare is rank/6 (sprio showed 3333, 5000, 6667, 8333, 10000 of weight
// 10000), other columns to the printed precision (usage reconstructed to match the printed
// NormUsage/EffectvUsage/LevelFS).
TEST(FairTree, LiveTestbedTable) {
  const Computed c = run_fixture("testbed_2328.json");
  const std::map<uint32_t, double> fs = {{4, 1 / 6.0},   {211, 2 / 6.0}, {221, 3 / 6.0},
                                         {222, 4 / 6.0}, {311, 5 / 6.0}, {321, 1.0}};
  for (const auto& [id, want] : fs) EXPECT_EQ(c.fs(id), want) << id;
  EXPECT_EQ(f6(static_cast<double>(c.lf(32))), "5.330044");
  EXPECT_EQ(f6(static_cast<double>(c.lf(222))), "1.609388");
  EXPECT_EQ(f6(static_cast<double>(c.out.usage_efctv[c.at(31)])), "0.890558");
  EXPECT_EQ(f6(c.out.shares_norm[c.at(4)]), "0.009901");
}

TEST(FairTree, FieldsWrittenPerKindOfAssociation) {
  const Computed c = run_fixture("test24_4.json");
  const uint8_t all_but_fs = kSharesNorm | kUsageNorm | kUsageEfctv | kLevelFs;
  EXPECT_EQ(c.out.set[c.tree.root()], kSharesNorm | kUsageEfctv | kLevelFs);
  EXPECT_EQ(c.out.set[c.at(2)], all_but_fs);                // account
  EXPECT_EQ(c.out.set[c.at(51)], all_but_fs);               // Fairshare=parent account
  EXPECT_EQ(c.out.set[c.at(211)], all_but_fs | kFsFactor);  // user
  EXPECT_EQ(c.out.set[c.at(52)], all_but_fs | kFsFactor);   // Fairshare=parent user
  // Untouched root fields keep Slurm's defaults; the root's level_fs is NO_VAL.
  EXPECT_EQ(c.out.usage_norm[c.tree.root()], static_cast<long double>(kNoVal));
  EXPECT_EQ(c.out.usage_efctv[c.tree.root()], 1.0L);
  EXPECT_EQ(c.out.level_fs[c.tree.root()], static_cast<long double>(kNoVal));
}

TEST(FairTree, RecomputeAfterSetUsageMatchesFreshBuildAndDoesNotAllocate) {
  Computed c = run_fixture("test24_4.json");
  const uint32_t u = c.at(921);
  const long double new_usage = 40;
  // Totals on the path change too.
  const long double delta = new_usage - c.tree.usage_raw(u);
  for (uint32_t a = u; a != kNoIndex; a = c.tree.parent(a))
    c.tree.set_usage(a, c.tree.usage_raw(a) + delta);

  const long before = g_allocations.load();
  compute_fair_share(c.tree, Algorithm::kFairTree, 1, c.out);
  compute_fair_share(c.tree, Algorithm::kFairTree, 1, c.out);
  EXPECT_EQ(g_allocations.load(), before);

  Snapshot s = read_snapshot_file(test::data_path("snapshots/test24_4.json"));
  for (auto& a : s.associations)
    if (a.id == 921) a.usage_raw = new_usage;
  const Computed fresh = run(snapshot_tree(s));
  for (uint32_t i = 0; i < c.tree.size(); ++i) {
    EXPECT_EQ(c.out.fs_factor[i], fresh.out.fs_factor[i]);
    EXPECT_EQ(c.out.level_fs[i], fresh.out.level_fs[i]);
  }
  EXPECT_LT(c.fs(921), 0.190476);  // uGA1 got heavier and dropped
}

TEST(FairTree, AlgorithmFromFlags) {
  EXPECT_EQ(algorithm_from_flags(0), Algorithm::kFairTree);
  EXPECT_EQ(algorithm_from_flags(kNoFairTree), Algorithm::kClassic);
  EXPECT_EQ(algorithm_from_flags(kDepthOblivious), Algorithm::kDepthOblivious);
  EXPECT_EQ(algorithm_from_flags(kNoFairTree | kDepthOblivious), Algorithm::kDepthOblivious);
}

}  // namespace
}  // namespace fairway
