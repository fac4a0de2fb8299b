// The C API (fairway.h): errors, argument checks and the fair-share round trip.  The
// C-language compile check of the header is test_c_header.c.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "fairway.h"

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
  fairway_fair_share_t* fs = nullptr;
  EXPECT_EQ(fairway_fair_share_new(nullptr, 1, &fs), FAIRWAY_EINVAL);
  EXPECT_EQ(fs, nullptr);
  EXPECT_NE(std::string(fairway_last_error()), "");
  EXPECT_EQ(fairway_fair_share_new(nullptr, 0, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_compute(nullptr, FAIRWAY_ALGO_FAIR_TREE, 1), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_set_usage(nullptr, 0, 1), FAIRWAY_EINVAL);
  fairway_assoc_result_t r;
  EXPECT_EQ(fairway_fair_share_result(nullptr, 0, &r), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_job_weigh(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr),
            FAIRWAY_EINVAL);
  fairway_fair_share_destroy(nullptr);  // no-ops
  fairway_fair_share_destroy(&fs);
  EXPECT_EQ(fairway_fair_share_count(nullptr), 0u);
}

// root -> acct a (users u1, u2 with one share each).
const fairway_assoc_t kTree[] = {
    {1, 0, "root", nullptr, 1, 0, 100.0L},
    {2, 1, "a", nullptr, 1, 0, 100.0L},
    {3, 2, "a", "u1", 1, 0, 100.0L},
    {4, 2, "a", "u2", 1, 0, 0.0L},
};

TEST(CApi, FairTreeRoundTrip) {
  fairway_fair_share_t* fs = nullptr;
  ASSERT_EQ(fairway_fair_share_new(kTree, 4, &fs), FAIRWAY_OK) << fairway_last_error();
  EXPECT_STREQ(fairway_last_error(), "");
  EXPECT_EQ(fairway_fair_share_count(fs), 4u);
  fairway_assoc_result_t r;
  EXPECT_EQ(fairway_fair_share_result(fs, 3, &r), FAIRWAY_EINVAL);  // nothing computed yet
  ASSERT_EQ(fairway_fair_share_compute(fs, FAIRWAY_ALGO_FAIR_TREE, 1), FAIRWAY_OK);
  // u2 has no usage: level fair-share infinite, ranked first: 2/2.  u1: 1/2.
  ASSERT_EQ(fairway_fair_share_result(fs, 3, &r), FAIRWAY_OK);
  EXPECT_TRUE(std::isinf(r.level_fs));
  EXPECT_DOUBLE_EQ(r.fs_factor, 1.0);
  EXPECT_TRUE(r.set & FAIRWAY_SET_FS_FACTOR);
  ASSERT_EQ(fairway_fair_share_result(fs, 2, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 0.5);
  EXPECT_EQ(static_cast<double>(r.level_fs), 0.5);  // S 1/2 over U 100/100
  EXPECT_EQ(fairway_fair_share_result(fs, 4, &r), FAIRWAY_EINVAL);

  // New usage without rebuilding: now u2 used everything and u1 nothing.
  ASSERT_EQ(fairway_fair_share_set_usage(fs, 2, 0.0L), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_set_usage(fs, 3, 100.0L), FAIRWAY_OK);
  EXPECT_EQ(fairway_fair_share_set_usage(fs, 3, -1.0L), FAIRWAY_ETREE);
  EXPECT_EQ(fairway_fair_share_set_usage(fs, 3, NAN), FAIRWAY_ETREE);
  EXPECT_EQ(fairway_fair_share_set_usage(fs, 9, 1.0L), FAIRWAY_EINVAL);
  ASSERT_EQ(fairway_fair_share_compute(fs, FAIRWAY_ALGO_FAIR_TREE, 1), FAIRWAY_OK);
  ASSERT_EQ(fairway_fair_share_result(fs, 2, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 1.0);
  ASSERT_EQ(fairway_fair_share_result(fs, 3, &r), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(r.fs_factor, 0.5);

  EXPECT_EQ(fairway_fair_share_compute(fs, FAIRWAY_ALGO_CLASSIC, 0.5), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_fair_share_compute(fs, static_cast<fairway_algorithm_t>(7), 1), FAIRWAY_EINVAL);
  fairway_fair_share_destroy(&fs);
  EXPECT_EQ(fs, nullptr);
}

TEST(CApi, MalformedTreeNamesTheAssociation) {
  const fairway_assoc_t bad[] = {
      {1, 0, "root", nullptr, 1, 0, 0.0L},
      {7, 42, "lost", nullptr, 1, 0, 0.0L},
  };
  fairway_fair_share_t* fs = nullptr;
  EXPECT_EQ(fairway_fair_share_new(bad, 2, &fs), FAIRWAY_ETREE);
  EXPECT_EQ(fs, nullptr);
  const std::string msg = fairway_last_error();
  EXPECT_NE(msg.find("7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lost"), std::string::npos) << msg;

  const fairway_assoc_t two_roots[] = {
      {1, 0, "root", nullptr, 1, 0, 0.0L},
      {2, 0, "other", nullptr, 1, 0, 0.0L},
  };
  EXPECT_EQ(fairway_fair_share_new(two_roots, 2, &fs), FAIRWAY_ETREE);
  const fairway_assoc_t cycle[] = {
      {1, 0, "root", nullptr, 1, 0, 0.0L},
      {2, 3, "x", nullptr, 1, 0, 0.0L},
      {3, 2, "y", nullptr, 1, 0, 0.0L},
  };
  EXPECT_EQ(fairway_fair_share_new(cycle, 3, &fs), FAIRWAY_ETREE);
  EXPECT_EQ(fs, nullptr);
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
