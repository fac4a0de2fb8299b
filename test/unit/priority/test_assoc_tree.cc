// AssocTree: validation, flat structure, fs parents / children_list, level shares, normalized
// shares. Expected values are derived by hand from assoc_mgr's rules (see assoc_tree.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "assoc_tree.h"

namespace fairway {
namespace {

AssocRecord acct(uint32_t id, uint32_t parent, std::string name, uint32_t shares = 1,
                 long double usage = 0) {
  AssocRecord r;
  r.id = id;
  r.parent_id = parent;
  r.account = std::move(name);
  r.shares_raw = shares;
  r.usage_raw = usage;
  return r;
}
AssocRecord user(uint32_t id, uint32_t parent, std::string account, std::string name,
                 uint32_t shares = 1, long double usage = 0) {
  AssocRecord r = acct(id, parent, std::move(account), shares, usage);
  r.user = std::move(name);
  return r;
}
AssocRecord parent_shares(AssocRecord r) {
  r.shares_parent = true;
  return r;
}

// test24.3's tree (Slurm testsuite): AccountH with Fairshare=parent users and account.
std::vector<AssocRecord> test24_3_shape() {
  return {acct(1, 0, "root"),
          acct(2, 1, "AccountA", 40),
          acct(21, 2, "AccountB", 30),
          user(211, 21, "AccountB", "User1", 1, 20),
          acct(3, 1, "AccountD", 60),
          acct(4, 1, "AccountG", 0),
          user(41, 4, "AccountG", "User6", 0, 30),
          acct(5, 1, "AccountH", 50),
          parent_shares(user(52, 5, "AccountH", "UHRA1", 1, 20)),
          user(53, 5, "AccountH", "UHRA2", 40, 20),
          user(54, 5, "AccountH", "UHRA3", 50, 25),
          parent_shares(acct(51, 5, "AccountHTA")),
          parent_shares(user(511, 51, "AccountHTA", "UHTAStd1", 1, 10)),
          user(512, 51, "AccountHTA", "UHTAStd2", 30, 10),
          user(513, 51, "AccountHTA", "UHTAStd3", 50, 25)};
}

uint32_t idx(const AssocTree& t, uint32_t id) {
  const uint32_t i = t.find(id);
  EXPECT_NE(i, kNoIndex) << "id " << id;
  return i;
}

TEST(AssocTree, StructureIsFlatAndKeepsInputOrder) {
  const AssocTree t = AssocTree::build(test24_3_shape());
  ASSERT_EQ(t.size(), 15u);
  EXPECT_EQ(t.root(), 0u);
  EXPECT_EQ(t.user_count(), 8u);
  EXPECT_EQ(t.parent(t.root()), kNoIndex);
  EXPECT_EQ(t.depth(idx(t, 511)), 3u);
  EXPECT_EQ(t.parent(idx(t, 511)), idx(t, 51));
  // Direct children of AccountH in input order.
  const auto ch = t.children(idx(t, 5));
  ASSERT_EQ(ch.size(), 4u);
  EXPECT_EQ(t.record(ch[0]).id, 52u);
  EXPECT_EQ(t.record(ch[3]).id, 51u);
  // Preorder: every parent before its children.
  std::vector<int> pos(t.size(), -1);
  for (size_t k = 0; k < t.preorder().size(); ++k) pos[t.preorder()[k]] = static_cast<int>(k);
  for (uint32_t i = 0; i < t.size(); ++i) {
    ASSERT_GE(pos[i], 0);
    if (t.parent(i) != kNoIndex) {
      EXPECT_LT(pos[t.parent(i)], pos[i]);
    }
  }
  EXPECT_TRUE(t.is_user(idx(t, 52)));
  EXPECT_FALSE(t.is_user(idx(t, 51)));
}

TEST(AssocTree, FairshareParentHoistsChildrenToFirstNonParentAncestor) {
  const AssocTree t = AssocTree::build(test24_3_shape());
  const uint32_t h = idx(t, 5);
  // Users and the Fairshare=parent account under AccountHTA all land in AccountH's list.
  for (uint32_t id : {52u, 53u, 54u, 51u, 511u, 512u, 513u}) EXPECT_EQ(t.fs_parent(idx(t, id)), h);
  EXPECT_TRUE(t.fs_children(idx(t, 51)).empty());
  const auto list = t.fs_children(h);
  ASSERT_EQ(list.size(), 7u);  // input order: 52 53 54 51 511 512 513
  const uint32_t expect[] = {52, 53, 54, 51, 511, 512, 513};
  for (size_t k = 0; k < 7; ++k) {
    EXPECT_EQ(t.record(list[k]).id, expect[k]);
    EXPECT_EQ(t.fs_position(list[k]), k);
  }
  EXPECT_TRUE(t.uses_parent_shares(idx(t, 51)));
  EXPECT_EQ(t.shares_raw(idx(t, 51)), kSharesUseParent);
}

TEST(AssocTree, LevelSharesSkipParentSiblings) {
  const AssocTree t = AssocTree::build(test24_3_shape());
  // root level: 40 + 60 + 0 + 50; AccountH's list: 40 + 50 + 30 + 50 (parents contribute 0).
  EXPECT_EQ(t.level_shares(idx(t, 2)), 150u);
  EXPECT_EQ(t.level_shares(idx(t, 53)), 170u);
  EXPECT_EQ(t.level_shares(idx(t, 512)), 170u);
  EXPECT_EQ(t.level_shares(idx(t, 51)), 170u);
  EXPECT_EQ(t.level_shares(t.root()), kNoVal);  // never set on the root
  EXPECT_EQ(t.level_shares(idx(t, 41)), 0u);    // AccountG's only user has 0 shares
}

TEST(AssocTree, FairTreeNormalizedSharesAreWithinLevel) {
  const AssocTree t = AssocTree::build(test24_3_shape());
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 2)), 40.0 / 150.0);
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 53)), 40.0 / 170.0);
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 512)), 30.0 / 170.0);
  // Fairshare=parent takes the fs parent's (AccountH's) raw/level.
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 52)), 50.0 / 150.0);
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 51)), 50.0 / 150.0);
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 41)), 0.0);  // level shares 0
  // Root: its raw shares over the NO_VAL level_shares it keeps from creation (sshare: 0.000000).
  EXPECT_EQ(t.shares_norm_fair_tree(t.root()), 1.0 / 4294967294.0);
}

TEST(AssocTree, ClassicNormalizedSharesMultiplyBottomUp) {
  const AssocTree t = AssocTree::build(test24_3_shape());
  EXPECT_EQ(t.shares_norm_classic(t.root()), 1.0);
  EXPECT_EQ(t.shares_norm_classic(idx(t, 211)),
            ((1.0 * (1.0 / 1.0)) * (30.0 / 30.0)) * (40.0 / 150.0));
  // UHTAStd2: own factor, AccountHTA skipped (parent), then AccountH.
  EXPECT_EQ(t.shares_norm_classic(idx(t, 512)), (1.0 * (30.0 / 170.0)) * (50.0 / 150.0));
  EXPECT_NEAR(t.shares_norm_classic(idx(t, 512)), 0.058824, 5e-7);  // test24.3 prints 0.058824
  EXPECT_NEAR(t.shares_norm_classic(idx(t, 53)), 0.078431, 5e-7);   // test24.3: UHRA2
  EXPECT_EQ(t.shares_norm_classic(idx(t, 52)), t.shares_norm_classic(idx(t, 5)));
  EXPECT_EQ(t.shares_norm_classic(idx(t, 511)), t.shares_norm_classic(idx(t, 5)));
  EXPECT_EQ(t.shares_norm_classic(idx(t, 41)), 0.0);
}

TEST(AssocTree, LevelSharesWrapLikeSlurmsUint32) {
  const AssocTree t =
      AssocTree::build({acct(1, 0, "root"), acct(2, 1, "a", 4294967294u), acct(3, 1, "b", 5)});
  EXPECT_EQ(t.level_shares(1), 3u);  // (4294967294 + 5) mod 2^32
  EXPECT_EQ(t.shares_norm_fair_tree(2), 5.0 / 3.0);
}

TEST(AssocTree, RawParentMarkerMeansParent) {
  const AssocTree t = AssocTree::build(
      {acct(1, 0, "root"), acct(2, 1, "a", 10), user(3, 2, "a", "u", kSharesUseParent)});
  EXPECT_TRUE(t.uses_parent_shares(2));
}

TEST(AssocTree, DeepTreeSixLevels) {
  std::vector<AssocRecord> r{acct(1, 0, "root")};
  for (uint32_t d = 1; d <= 6; ++d) {
    r.push_back(acct(d + 1, d, "l" + std::to_string(d), 2));
    r.push_back(acct(100 + d, d, "s" + std::to_string(d), 6));  // sibling at every level
  }
  r.push_back(user(1000, 7, "l6", "deep", 1));
  const AssocTree t = AssocTree::build(r);
  const uint32_t u = idx(t, 1000);
  EXPECT_EQ(t.depth(u), 7u);
  double expect = 1.0 * (1.0 / 1.0);
  for (int d = 0; d < 6; ++d) expect *= 2.0 / 8.0;
  EXPECT_EQ(t.shares_norm_classic(u), expect);
  EXPECT_EQ(t.shares_norm_fair_tree(idx(t, 7)), 2.0 / 8.0);
}

TEST(AssocTree, SetUsageUpdatesInPlace) {
  AssocTree t = AssocTree::build(test24_3_shape());
  const long double* before = t.usage_raw().data();
  t.set_usage(idx(t, 53), 123.5L);
  EXPECT_EQ(t.usage_raw(idx(t, 53)), 123.5L);
  EXPECT_EQ(t.usage_raw().data(), before);
  EXPECT_THROW(t.set_usage(idx(t, 53), -1), TreeError);
  EXPECT_THROW(t.set_usage(idx(t, 53), std::numeric_limits<long double>::quiet_NaN()), TreeError);
  EXPECT_THROW(t.set_usage(idx(t, 53), std::numeric_limits<long double>::infinity()), TreeError);
  EXPECT_THROW(t.set_usage(99, 1), std::out_of_range);
  EXPECT_EQ(t.usage_raw(idx(t, 53)), 123.5L);  // unchanged by the rejected calls
}

TEST(AssocTree, AccumulateDirectUsage) {
  std::vector<AssocRecord> r = {
      acct(1, 0, "root", 1, 30),    acct(2, 1, "a", 1, 5), user(3, 2, "a", "u1", 1, 20),
      user(4, 2, "a", "u2", 1, 25), acct(5, 1, "b"),       user(6, 5, "b", "u3", 1, 0.5)};
  accumulate_direct_usage(r);
  EXPECT_EQ(r[0].usage_raw, 80.5L);
  EXPECT_EQ(r[1].usage_raw, 50.0L);  // own 5 (e.g. deleted users) + 45
  EXPECT_EQ(r[2].usage_raw, 20.0L);
  EXPECT_EQ(r[4].usage_raw, 0.5L);
}

TEST(AssocTree, SortHierarchicalPutsUsersFirstThenByName) {
  std::vector<AssocRecord> r = {acct(1, 0, "root"),        acct(3, 1, "zeta"),
                                user(9, 1, "root", "bob"), acct(2, 1, "alpha"),
                                user(4, 2, "alpha", "u2"), user(5, 2, "alpha", "u10"),
                                acct(6, 2, "Beta"),        user(7, 1, "root", "alice")};
  sort_hierarchical(r);
  std::vector<uint32_t> ids;
  for (const auto& a : r) ids.push_back(a.id);
  // Users before accounts under each parent, then strcmp order ("u10" < "u2", "Beta" is the
  // only account under alpha).
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 7, 9, 2, 5, 4, 6, 3}));
}

// Slurm 23.11 and later: ascending lineage ("/root/bloggs/bloggs.prj.high/" before
// "/root/bloggs/bloggs.prj/", users "0-NAME/" first unless an account's name sorts below it).
TEST(AssocTree, SortHierarchicalByLineage) {
  std::vector<AssocRecord> r = {
      acct(1, 0, "root"),           acct(2, 1, "bloggs"),
      acct(3, 2, "bloggs.prj"),     user(4, 3, "bloggs.prj", "fw_u1"),
      acct(5, 2, "bloggs.prj.low"), acct(6, 2, "bloggs.prj.high"),
      user(7, 2, "bloggs", "zed"),  acct(8, 1, "0"),  // "0/" sorts after "0-..." users
      acct(9, 1, "+ops"),                             // "+ops/" sorts before "0-..."
      user(10, 1, "root", "root")};
  std::vector<AssocRecord> by_name = r;
  sort_hierarchical(r, SiblingOrder::kLineage);
  std::vector<uint32_t> ids;
  for (const auto& a : r) ids.push_back(a.id);
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 9, 10, 8, 2, 7, 6, 5, 3, 4}));
  // Slurm 22.05's order of the same tree: users first, then names.
  sort_hierarchical(by_name);
  ids.clear();
  for (const auto& a : by_name) ids.push_back(a.id);
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 10, 9, 8, 2, 7, 3, 4, 6, 5}));
}

// Every rejection names the association.
void expect_rejected(const std::vector<AssocRecord>& r, const std::string& problem, uint32_t id) {
  try {
    (void)AssocTree::build(r);
    ADD_FAILURE() << "accepted a tree with: " << problem;
  } catch (const TreeError& e) {
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    EXPECT_EQ(e.id(), id) << e.what();
    EXPECT_NE(std::string(e.what()).find("id " + std::to_string(id)), std::string::npos);
  }
}

TEST(AssocTree, RejectsMalformedTrees) {
  expect_rejected({acct(1, 0, "root"), acct(2, 7, "a")}, "unknown parent id 7", 2);
  expect_rejected({acct(1, 0, "root"), acct(2, 3, "a"), acct(3, 2, "b")}, "cycle", 2);
  expect_rejected({acct(1, 0, "root"), acct(2, 2, "a")}, "own parent", 2);
  expect_rejected({acct(1, 2, "x"), acct(2, 1, "y")}, "no root", 1);
  expect_rejected({acct(1, 0, "root"), acct(2, 0, "root2")}, "second root", 2);
  expect_rejected({user(1, 0, "root", "alone"), user(2, 1, "root", "u")},
                  "root association is a user", 1);
  expect_rejected({acct(1, 0, "root"), acct(2, 1, "a"), acct(2, 1, "b")}, "duplicate", 2);
  expect_rejected({acct(1, 0, "root"), user(2, 1, "root", "u"), acct(3, 2, "a")},
                  "user association has children", 2);
  expect_rejected({acct(1, 0, "root"), user(2, 1, "root", "u", 1, -1)}, "negative", 2);
  expect_rejected({acct(1, 0, "root"),
                   user(2, 1, "root", "u", 1, std::numeric_limits<long double>::quiet_NaN())},
                  "NaN", 2);
  expect_rejected({acct(1, 0, "root"),
                   user(2, 1, "root", "u", 1, std::numeric_limits<long double>::infinity())},
                  "infinite", 2);
  EXPECT_THROW((void)AssocTree::build({}), TreeError);
}

TEST(AssocTree, TreeErrorCarriesNames) {
  try {
    (void)AssocTree::build({acct(1, 0, "root"), user(5, 9, "acc", "alice")});
    FAIL();
  } catch (const TreeError& e) {
    EXPECT_EQ(e.account(), "acc");
    EXPECT_EQ(e.user(), "alice");
    EXPECT_NE(std::string(e.what()).find("'alice'"), std::string::npos);
  }
}

}  // namespace
}  // namespace fairway
