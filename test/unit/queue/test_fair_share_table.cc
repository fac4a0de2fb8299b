// The fair-share table the plugin keeps between periods (fair_share_table.h): the id lookups
// the weighing of every pending job reads, when the tree is built again, and the per-TRES
// trees of fairway_fairshare_tres, the factors classic and depth-oblivious note in a pass,
// depth-oblivious's copies of the children's usage; and the same through the C API.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "error.h"
#include "fair_share.h"
#include "fair_share_table.h"
#include "fairway.h"
#include "fairway_fair_share_table.h"

namespace fairway {
namespace {

// root -> A (1 share) -> uA; root -> B (2 shares) -> uB1, uB2.
std::vector<AssocRecord> small_records() {
  return {
      {1, 0, "root", "", false, 1, 1000}, {2, 1, "A", "", false, 1, 10},
      {3, 2, "A", "uA", false, 1, 10},    {4, 1, "B", "", false, 2, 990},
      {5, 4, "B", "uB1", false, 1, 990},  {6, 4, "B", "uB2", false, 1, 0},
  };
}

AssocShape shape_of(const AssocRecord& r) {
  return {r.id, r.parent_id, r.shares_raw, r.shares_parent, !r.user.empty()};
}

FairShareResult computed_directly(Algorithm algo) {
  AssocTree t = AssocTree::build(small_records());
  FairShareResult r;
  compute_fair_share(t, algo, 1, r);
  return r;
}

TEST(FairShareTable, FairTreeFactorOfEveryUserIsFoundByIdAndAccountsHaveNone) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kFairTree, 1, true, false);
  const FairShareResult want = computed_directly(Algorithm::kFairTree);
  const std::vector<AssocRecord> recs = small_records();
  for (size_t i = 0; i < recs.size(); i++) {
    const double* f = t.factor(recs[i].id);
    if (recs[i].user.empty()) {
      EXPECT_EQ(f, nullptr) << recs[i].id;  // read from the association instead
    } else {
      ASSERT_NE(f, nullptr) << recs[i].id;
      EXPECT_EQ(*f, want.fs_factor[i]) << recs[i].id;
    }
  }
  EXPECT_EQ(t.factor(0), nullptr);
  EXPECT_EQ(t.factor(99), nullptr);
}

TEST(FairShareTable, NoFactorByIdWithoutAskingOrAfterForgetting) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kClassic, 1, false, true);
  EXPECT_EQ(t.factor(3), nullptr);
  t.compute(Algorithm::kFairTree, 1, true, false);
  EXPECT_NE(t.factor(3), nullptr);
  t.forget();
  EXPECT_EQ(t.factor(3), nullptr);
  EXPECT_TRUE(t.has_tree());
}

TEST(FairShareTable, ManyIdsFarApartAreAllFound) {
  // 5000 users under root: more slots than the minimum, ids that collide in the low bits.
  std::vector<AssocRecord> recs = {{1, 0, "root", "", false, 1, 0}};
  for (uint32_t u = 0; u < 5000; u++)
    recs.push_back({2 + u * 1024, 1, "root", "u" + std::to_string(u), false, 1 + u % 7,
                    static_cast<long double>(u % 13)});
  FairShareTable t;
  t.rebuild(recs);
  t.compute(Algorithm::kFairTree, 1, true, false);
  for (uint32_t i = 1; i < recs.size(); i++) {
    const double* f = t.factor(recs[i].id);
    ASSERT_NE(f, nullptr) << recs[i].id;
    EXPECT_EQ(*f, t.result().fs_factor[i]);
  }
  EXPECT_EQ(t.factor(3), nullptr);
}

TEST(IdMap, EveryIdPutIsFoundUntilForgottenAndNoOtherIs) {
  IdMap<double> n;
  EXPECT_EQ(n.find(7), nullptr);
  // More ids than the first 1024 slots hold, colliding in the low bits.
  for (uint32_t u = 0; u < 5000; u++) n.put(2 + u * 1024, u / 8.0);
  EXPECT_EQ(n.size(), 5000u);
  for (uint32_t u = 0; u < 5000; u++) {
    const double* f = n.find(2 + u * 1024);
    ASSERT_NE(f, nullptr) << u;
    EXPECT_EQ(*f, u / 8.0);
  }
  EXPECT_EQ(n.find(3), nullptr);
  n.put(2, 0.25);  // put again: replaced, not added
  EXPECT_EQ(*n.find(2), 0.25);
  EXPECT_EQ(n.size(), 5000u);
  n.forget();
  EXPECT_EQ(n.size(), 0u);
  EXPECT_EQ(n.find(2), nullptr);
  EXPECT_EQ(n.find(2 + 4999 * 1024), nullptr);
  n.put(1026, 0.5);  // the next pass starts empty
  EXPECT_EQ(*n.find(1026), 0.5);
  EXPECT_EQ(n.find(2), nullptr);
}

TEST(SiblingSums, TheSumIsTheListsAdditionsInItsOrderOfTheValuesAsSet) {
  SiblingSums s;
  EXPECT_FALSE(s.sum(10).has_value());
  // In this order the 1 is lost to rounding (1e20 + 1 == 1e20 in long double); summed in
  // another order it would survive.
  const uint32_t ids[] = {11, 12, 13};
  const long double values[] = {1e20L, 1.0L, -1e20L};
  s.copy(10, ids, values);
  long double want = 0;
  for (long double v : values) want += v;
  ASSERT_TRUE(s.sum(10).has_value());
  EXPECT_EQ(*s.sum(10), want);
  EXPECT_EQ(*s.sum(10), 0.0L);
  s.set(11, 0.25L);  // a child computed in the pass
  s.set(99, 5.0L);   // an association no copy holds: nothing
  EXPECT_EQ(*s.sum(10), 0.25L + 1.0L - 1e20L);
  const uint32_t other[] = {21};
  const long double half[] = {0.5L};
  s.copy(20, other, half);
  EXPECT_EQ(*s.sum(20), 0.5L);
  EXPECT_EQ(*s.sum(10), 0.25L + 1.0L - 1e20L);
  s.forget();
  EXPECT_FALSE(s.sum(10).has_value());
  EXPECT_FALSE(s.sum(20).has_value());
}

TEST(SiblingSums, ARefusedCopyForgetsEveryCopyAndTheListsAreCopiedAgain) {
  SiblingSums s;
  const uint32_t ids[] = {11, 12};
  const long double values[] = {1.0L, 2.0L};
  s.copy(10, ids, values);
  EXPECT_THROW(s.copy(10, ids, values), Error);  // the parent again
  EXPECT_FALSE(s.sum(10).has_value());
  s.copy(10, ids, values);
  const uint32_t clash[] = {30, 12};  // 12 is 10's child
  EXPECT_THROW(s.copy(20, clash, values), Error);
  EXPECT_FALSE(s.sum(20).has_value());
  EXPECT_FALSE(s.sum(10).has_value());
  s.set(30, 7.0L);  // no copy holds it
  const uint32_t fresh[] = {30};
  const long double one[] = {1.0L};
  s.copy(20, fresh, one);  // 30 free again
  EXPECT_EQ(*s.sum(20), 1.0L);
  const uint32_t twice[] = {40, 40};
  EXPECT_THROW(s.copy(50, twice, values), Error);
  EXPECT_FALSE(s.sum(50).has_value());
}

TEST(FairShareTable, ClassicLooksUpTheNotedFactorFairTreeItsOwn) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kClassic, 1, false, false);
  t.note_factor(3, 0.125);
  ASSERT_NE(t.factor(3), nullptr);
  EXPECT_EQ(*t.factor(3), 0.125);
  EXPECT_EQ(t.factor(5), nullptr);  // not noted: the job reads its association
  t.forget_noted();
  EXPECT_EQ(t.factor(3), nullptr);
  t.note_factor(3, 0.125);
  t.compute(Algorithm::kFairTree, 1, true, false);  // forgets what was noted
  ASSERT_NE(t.factor(3), nullptr);
  EXPECT_EQ(*t.factor(3), computed_directly(Algorithm::kFairTree).fs_factor[2]);
  EXPECT_NE(*t.factor(3), 0.125);
}

TEST(FairShareTable, SameShapeOnlyWhenIdsParentsSharesAndUsersMatch) {
  FairShareTable t;
  std::vector<AssocRecord> recs = small_records();
  auto at = [&](const std::vector<AssocRecord>& r) {
    return [&r](size_t i) { return shape_of(r[i]); };
  };
  EXPECT_FALSE(t.same_shape(recs.size(), at(recs)));  // no tree yet
  t.rebuild(recs);
  EXPECT_TRUE(t.same_shape(recs.size(), at(recs)));
  std::vector<AssocRecord> usage = recs;
  usage[2].usage_raw = 77;  // usage is not shape
  EXPECT_TRUE(t.same_shape(usage.size(), at(usage)));
  std::vector<AssocRecord> shares = recs;
  shares[4].shares_raw = 3;
  EXPECT_FALSE(t.same_shape(shares.size(), at(shares)));
  std::vector<AssocRecord> parent = recs;
  parent[5].parent_id = 2;
  EXPECT_FALSE(t.same_shape(parent.size(), at(parent)));
  EXPECT_FALSE(t.same_shape(recs.size() - 1, at(recs)));
}

TEST(FairShareTable, ReplacedUsageGivesWhatABuildFromItGives) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kFairTree, 1, true, false);
  std::vector<AssocRecord> later = small_records();
  later[2].usage_raw = 500;
  later[1].usage_raw = 500;
  later[0].usage_raw = 1490;
  for (uint32_t i = 0; i < later.size(); i++) t.set_usage(i, later[i].usage_raw);
  t.compute(Algorithm::kFairTree, 1, true, false);
  FairShareResult want;
  compute_fair_share(AssocTree::build(later), Algorithm::kFairTree, 1, want);
  EXPECT_EQ(t.result().fs_factor, want.fs_factor);
  EXPECT_EQ(*t.factor(3), want.fs_factor[2]);
}

TEST(FairShareTable, BadUsageDropsTheTree) {
  FairShareTable t;
  t.rebuild(small_records());
  EXPECT_ANY_THROW(t.set_usage(2, std::numeric_limits<long double>::quiet_NaN()));
  EXPECT_FALSE(t.has_tree());
  EXPECT_ANY_THROW(t.compute(Algorithm::kFairTree, 1, true, false));
}

TEST(FairShareTable, TresFactorsAreEachTreesFactorsByIdAndPosition) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kFairTree, 1, true, true);
  // TRES at position 4 (GPUs, say): uA used all of them.
  const std::vector<long double> gpu = {100, 100, 100, 0, 0, 0};
  t.begin_tres(1);
  t.compute_tres(0, 4, gpu, UsageBasis::kHistorical, {}, Algorithm::kFairTree, 1);
  std::vector<AssocRecord> recs = small_records();
  for (size_t i = 0; i < recs.size(); i++) recs[i].usage_raw = gpu[i];
  FairShareResult want;
  compute_fair_share(AssocTree::build(recs), Algorithm::kFairTree, 1, want);
  for (size_t i = 0; i < recs.size(); i++) {
    const std::optional<double> f = t.tres_factor(recs[i].id, 4);
    ASSERT_TRUE(f) << recs[i].id;
    EXPECT_EQ(*f, want.fs_factor[i]) << recs[i].id;
  }
  EXPECT_FALSE(t.tres_factor(3, 5));   // not a listed TRES
  EXPECT_FALSE(t.tres_factor(99, 4));  // not an association
}

TEST(FairShareTable, TresFactorsOnlyOnceEveryListedTresIsComputed) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kFairTree, 1, true, true);
  const std::vector<long double> u = {10, 5, 5, 5, 5, 0};
  t.begin_tres(2);
  t.compute_tres(0, 4, u, UsageBasis::kHistorical, {}, Algorithm::kFairTree, 1);
  EXPECT_FALSE(t.tres_factor(3, 4));
  EXPECT_ANY_THROW(
      t.compute_tres(0, 4, u, UsageBasis::kHistorical, {}, Algorithm::kFairTree, 1));  // turn
  EXPECT_FALSE(t.tres_factor(3, 4));
  t.begin_tres(2);
  t.compute_tres(0, 4, u, UsageBasis::kHistorical, {}, Algorithm::kFairTree, 1);
  t.compute_tres(1, 6, u, UsageBasis::kHistorical, {}, Algorithm::kFairTree, 1);
  EXPECT_TRUE(t.tres_factor(3, 4));
  EXPECT_TRUE(t.tres_factor(3, 6));
  // A period that recomputes forgets them until its own TRES are computed.
  t.compute(Algorithm::kFairTree, 1, true, true);
  EXPECT_FALSE(t.tres_factor(3, 4));
}

TEST(FairShareTable, HeldTresUsageIsWhatTheJobsHold) {
  FairShareTable t;
  t.rebuild(small_records());
  t.compute(Algorithm::kClassic, 1, false, true);
  const std::vector<RunningJob> jobs = {{3, 4, 100}, {5, 3, 600}, {6, 3, 10}};
  t.begin_tres(1);
  t.compute_tres(0, 2, {}, UsageBasis::kAllocated, jobs, Algorithm::kClassic, 1);
  AssocTree want_tree = AssocTree::build(small_records());
  hold_usage(want_tree, held_direct(want_tree, UsageBasis::kAllocated, jobs));
  FairShareResult want;
  compute_fair_share(want_tree, Algorithm::kClassic, 1, want);
  EXPECT_EQ(*t.tres_factor(5, 2), want.fs_factor[4]);
  EXPECT_EQ(t.factor(5), nullptr);  // classic: no factors by id
}

TEST(FairShareTableCApi, LoadComputeLookUpAndRebuildOnANewShape) {
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  EXPECT_EQ(fairway_fair_share_table_factor(t, 3), nullptr);
  std::vector<fairway_assoc_t> in = {
      {1, 0, "root", nullptr, 1, 0, 1000}, {2, 1, "A", nullptr, 1, 0, 10},
      {3, 2, "A", "uA", 1, 0, 10},         {4, 1, "B", nullptr, 2, 0, 990},
      {5, 4, "B", "uB1", 1, 0, 990},       {6, 4, "B", "uB2", 1, 0, 0},
  };
  ASSERT_EQ(fairway_fair_share_table_load(t, in.data(), in.size(), FAIRWAY_USAGE_HISTORICAL,
                                          nullptr, 0, nullptr),
            FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_OK);
  const FairShareResult want = computed_directly(Algorithm::kFairTree);
  const double* f = fairway_fair_share_table_factor(t, 5);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(*f, want.fs_factor[4]);
  fairway_assoc_result_t r;
  ASSERT_EQ(fairway_fair_share_table_result(t, 4, &r), FAIRWAY_OK);
  EXPECT_EQ(r.fs_factor, want.fs_factor[4]);
  EXPECT_EQ(fairway_fair_share_table_result(t, 6, &r), FAIRWAY_EINVAL);
  // A new user: the next load builds the tree again.
  in.push_back({7, 2, "A", "uA2", 1, 0, 0});
  ASSERT_EQ(fairway_fair_share_table_load(t, in.data(), in.size(), FAIRWAY_USAGE_HISTORICAL,
                                          nullptr, 0, nullptr),
            FAIRWAY_OK);
  EXPECT_EQ(fairway_fair_share_table_factor(t, 5), nullptr);  // until computed
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_OK);
  EXPECT_EQ(fairway_fair_share_table_result(t, 6, &r), FAIRWAY_OK);  // 7 associations now
  EXPECT_EQ(fairway_fair_share_table_result(t, 7, &r), FAIRWAY_EINVAL);
  EXPECT_NE(fairway_fair_share_table_factor(t, 7), nullptr);
  // TRES through the C API.
  double g = -1;
  EXPECT_EQ(fairway_fair_share_table_tres_factor(t, 7, 4, &g), 0);
  const std::vector<long double> gpu(7, 1.0L);
  ASSERT_EQ(fairway_fair_share_table_tres_begin(t, 1), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_tres(t, 0, 4, gpu.data(), FAIRWAY_USAGE_HISTORICAL, nullptr, 0,
                                          FAIRWAY_ALGO_FAIR_TREE, 1),
            FAIRWAY_OK);
  EXPECT_EQ(fairway_fair_share_table_tres_factor(t, 7, 4, &g), 1);
  EXPECT_GE(g, 0.0);
  fairway_fair_share_table_forget(t);
  EXPECT_EQ(fairway_fair_share_table_tres_factor(t, 7, 4, &g), 0);
  fairway_fair_share_table_destroy(&t);
  EXPECT_EQ(t, nullptr);
}

TEST(FairShareTableCApi, DepthObliviousNotesFactorsWithoutATree) {
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_note_factor(t, 42, 0.75), FAIRWAY_OK);
  const double* f = fairway_fair_share_table_factor(t, 42);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(*f, 0.75);
  fairway_fair_share_table_forget_noted(t);
  EXPECT_EQ(fairway_fair_share_table_factor(t, 42), nullptr);
  fairway_fair_share_table_destroy(&t);
}

TEST(FairShareTableCApi, SiblingSumsLastThePassAndFollowEveryUsageSet) {
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  long double sum = -1;
  EXPECT_EQ(fairway_fair_share_table_sibling_sum(t, 5, &sum), 0);
  const uint32_t ids[] = {6, 7};
  const long double values[] = {0.125L, 0.5L};
  ASSERT_EQ(fairway_fair_share_table_copy_children(t, 5, ids, values, 2), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_sibling_sum(t, 5, &sum), 1);
  EXPECT_EQ(sum, 0.625L);
  fairway_fair_share_table_set_usage_norm(t, 7, 0.25L);
  ASSERT_EQ(fairway_fair_share_table_sibling_sum(t, 5, &sum), 1);
  EXPECT_EQ(sum, 0.375L);
  EXPECT_EQ(fairway_fair_share_table_copy_children(t, 5, ids, values, 2), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_copy_children(t, 8, nullptr, nullptr, 1), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_copy_children(nullptr, 8, ids, values, 2), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_sibling_sum(nullptr, 5, &sum), 0);
  EXPECT_EQ(fairway_fair_share_table_sibling_sum(t, 5, nullptr), 0);
  fairway_fair_share_table_set_usage_norm(nullptr, 7, 1.0L);
  fairway_fair_share_table_forget_noted(t);  // the end of the pass
  EXPECT_EQ(fairway_fair_share_table_sibling_sum(t, 5, &sum), 0);
  fairway_fair_share_table_destroy(&t);
}

TEST(FairShareTableCApi, ARejectedTreeIsForgottenAndNullArgumentsAreErrors) {
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  const fairway_assoc_t two_roots[] = {{1, 0, "root", nullptr, 1, 0, 0},
                                       {2, 0, "other", nullptr, 1, 0, 0}};
  EXPECT_EQ(
      fairway_fair_share_table_load(t, two_roots, 2, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr),
      FAIRWAY_ETREE);
  // No tree kept: nothing to compute.
  EXPECT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_load(nullptr, two_roots, 2, 0, nullptr, 0, nullptr),
            FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_new(nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_factor(nullptr, 1), nullptr);
  EXPECT_EQ(fairway_fair_share_table_note_factor(nullptr, 1, 0.5), FAIRWAY_EINVAL);
  fairway_fair_share_table_forget_noted(nullptr);
  double out;
  EXPECT_EQ(fairway_fair_share_table_tres_factor(nullptr, 1, 0, &out), 0);
  fairway_fair_share_table_destroy(&t);
  fairway_fair_share_table_destroy(nullptr);
}

}  // namespace
}  // namespace fairway
