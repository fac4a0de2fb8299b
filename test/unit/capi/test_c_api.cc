// The C API (fairway.h, fairway_fair_share_table.h): errors, argument checks and the
// fair-share round trip through the table the plugin keeps.  The C-language compile check of
// the headers is test_c_header.c.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "fairway.h"
#include "fairway_fair_share_table.h"

namespace {

TEST(CApi, StrerrorIsDistinctForEveryCode) {
  std::set<std::string> seen;
  for (int e = FAIRWAY_OK; e <= FAIRWAY_EINTERNAL; e++) {
    const char* s = fairway_strerror(static_cast<fairway_error_t>(e));
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(seen.insert(s).second) << s;
  }
  EXPECT_STREQ(fairway_strerror(static_cast<fairway_error_t>(999)), "unknown error");
  EXPECT_STRNE(fairway_version(), "");
}

TEST(CApi, NullArgumentsAreEinval) {
  EXPECT_EQ(fairway_fair_share_table_new(nullptr), FAIRWAY_EINVAL);
  EXPECT_NE(std::string(fairway_last_error()), "");
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  EXPECT_EQ(
      fairway_fair_share_table_load(t, nullptr, 1, FAIRWAY_USAGE_HISTORICAL, nullptr, 0, nullptr),
      FAIRWAY_EINVAL);
  EXPECT_NE(std::string(fairway_last_error()), "");
  EXPECT_EQ(fairway_fair_share_table_compute(nullptr, FAIRWAY_ALGO_FAIR_TREE, 1, 0),
            FAIRWAY_EINVAL);
  fairway_assoc_result_t r;
  EXPECT_EQ(fairway_fair_share_table_result(nullptr, 0, &r), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_job_weigh(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr),
            FAIRWAY_EINVAL);
  fairway_fair_share_table_destroy(&t);
  EXPECT_EQ(t, nullptr);
  fairway_fair_share_table_destroy(nullptr);  // no-ops
  fairway_fair_share_table_destroy(&t);
}

// root -> acct a (users u1, u2 with one share each).
const fairway_assoc_t kTree[] = {
    {1, 0, "root", nullptr, 1, 0, 100.0L},
    {2, 1, "a", nullptr, 1, 0, 100.0L},
    {3, 2, "a", "u1", 1, 0, 100.0L},
    {4, 2, "a", "u2", 1, 0, 0.0L},
};

fairway_error_t load(fairway_fair_share_table_t* t, const fairway_assoc_t* assocs, size_t count) {
  return fairway_fair_share_table_load(t, assocs, count, FAIRWAY_USAGE_HISTORICAL, nullptr, 0,
                                       nullptr);
}

TEST(CApi, FairTreeRoundTrip) {
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  ASSERT_EQ(load(t, kTree, 4), FAIRWAY_OK) << fairway_last_error();
  EXPECT_STREQ(fairway_last_error(), "");
  fairway_assoc_result_t r;
  EXPECT_EQ(fairway_fair_share_table_result(t, 3, &r), FAIRWAY_EINVAL);  // nothing computed yet
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_OK);
  // u2 has no usage: level fair-share infinite, ranked first: 2/2.  u1: 1/2.
  ASSERT_EQ(fairway_fair_share_table_result(t, 3, &r), FAIRWAY_OK);
  EXPECT_TRUE(std::isinf(r.level_fs));
  EXPECT_DOUBLE_EQ(r.fs_factor, 1.0);
  EXPECT_TRUE(r.set & FAIRWAY_SET_FS_FACTOR);
  ASSERT_EQ(fairway_fair_share_table_result(t, 2, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 0.5);
  EXPECT_EQ(static_cast<double>(r.level_fs), 0.5);  // S 1/2 over U 100/100
  EXPECT_EQ(fairway_fair_share_table_result(t, 4, &r), FAIRWAY_EINVAL);

  // New usage on the same tree: now u2 used everything and u1 nothing.
  fairway_assoc_t next[4] = {kTree[0], kTree[1], kTree[2], kTree[3]};
  next[2].usage_raw = 0.0L;
  next[3].usage_raw = 100.0L;
  ASSERT_EQ(load(t, next, 4), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_table_result(t, 2, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 1.0);
  ASSERT_EQ(fairway_fair_share_table_result(t, 3, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 0.5);
  // A negative or NaN usage is refused.
  next[3].usage_raw = -1.0L;
  EXPECT_EQ(load(t, next, 4), FAIRWAY_ETREE);
  next[3].usage_raw = NAN;
  EXPECT_EQ(load(t, next, 4), FAIRWAY_ETREE);

  ASSERT_EQ(load(t, kTree, 4), FAIRWAY_OK);
  EXPECT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_CLASSIC, 0.5, 0), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_table_compute(t, static_cast<fairway_algorithm_t>(7), 1, 0),
            FAIRWAY_EINVAL);
  fairway_fair_share_table_destroy(&t);
  EXPECT_EQ(t, nullptr);
}

TEST(CApi, MalformedTreeNamesTheAssociation) {
  const fairway_assoc_t bad[] = {
      {1, 0, "root", nullptr, 1, 0, 0.0L},
      {7, 42, "lost", nullptr, 1, 0, 0.0L},
  };
  fairway_fair_share_table_t* t = nullptr;
  ASSERT_EQ(fairway_fair_share_table_new(&t), FAIRWAY_OK);
  EXPECT_EQ(load(t, bad, 2), FAIRWAY_ETREE);
  const std::string msg = fairway_last_error();
  EXPECT_NE(msg.find("7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lost"), std::string::npos) << msg;
  // No tree is kept: nothing to compute.
  EXPECT_EQ(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1, 0), FAIRWAY_EINVAL);

  const fairway_assoc_t two_roots[] = {
      {1, 0, "root", nullptr, 1, 0, 0.0L},
      {2, 0, "other", nullptr, 1, 0, 0.0L},
  };
  EXPECT_EQ(load(t, two_roots, 2), FAIRWAY_ETREE);
  const fairway_assoc_t cycle[] = {
      {1, 0, "root", nullptr, 1, 0, 0.0L},
      {2, 3, "x", nullptr, 1, 0, 0.0L},
      {3, 2, "y", nullptr, 1, 0, 0.0L},
  };
  EXPECT_EQ(load(t, cycle, 3), FAIRWAY_ETREE);
  fairway_fair_share_table_destroy(&t);
}

TEST(CApi, ClassicFsFactor) {
  EXPECT_DOUBLE_EQ(fairway_classic_fs_factor(0.25L, 0.25L, 1), 0.5);
  EXPECT_DOUBLE_EQ(fairway_classic_fs_factor(0.5L, 0.25L, 2), 0.5);
  EXPECT_DOUBLE_EQ(fairway_classic_fs_factor(0.0L, 0.25L, 1), 1.0);
  EXPECT_DOUBLE_EQ(fairway_classic_fs_factor(0.3L, 0.0L, 1), 0.0);
  EXPECT_DOUBLE_EQ(fairway_classic_fs_factor(static_cast<long double>(FAIRWAY_NO_VAL), 0.5L, 1),
                   0.0);
}

}  // namespace
