// The C API of fairway_settings.h: arguments checked, the options settled and said through the
// callbacks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_settings.h"

namespace {

struct Said {
  std::vector<std::string> errors, infos;
};

void say_error(const char* m, void* arg) { static_cast<Said*>(arg)->errors.push_back(m); }
void say_info(const char* m, void* arg) { static_cast<Said*>(arg)->infos.push_back(m); }

TEST(OptionsSettleCApi, NullArgumentsAreInvalid) {
  fairway_options_t o{};
  fairway_options_said_t said{};
  int pos[FAIRWAY_MAX_FAIRSHARE_TRES];
  EXPECT_EQ(fairway_options_settle(nullptr, FAIRWAY_ALGO_FAIR_TREE, nullptr, 0, &said, pos, nullptr,
                                   nullptr, nullptr),
            FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_options_settle(&o, FAIRWAY_ALGO_FAIR_TREE, nullptr, 2, &said, pos, nullptr,
                                   nullptr, nullptr),
            FAIRWAY_EINVAL);
  EXPECT_NE(std::string(fairway_last_error()), "");
  o.usage_basis = 7;
  EXPECT_EQ(fairway_options_settle(&o, FAIRWAY_ALGO_FAIR_TREE, nullptr, 0, &said, pos, nullptr,
                                   nullptr, nullptr),
            FAIRWAY_EINVAL);
}

TEST(OptionsSettleCApi, ParsedOptionsAreSettledAndSaidThroughTheCallbacks) {
  fairway_options_t o;
  ASSERT_EQ(fairway_options_parse("fairway_usage=allocated,fairway_fairshare_tres=gres/gpu,"
                                  "license/x",
                                  &o, nullptr, nullptr),
            FAIRWAY_OK);
  const char* tracked[] = {"cpu", nullptr, "gres/gpu"};
  fairway_options_said_t said{};
  int pos[FAIRWAY_MAX_FAIRSHARE_TRES] = {};
  Said s;
  ASSERT_EQ(fairway_options_settle(&o, FAIRWAY_ALGO_FAIR_TREE, tracked, 3, &said, pos, say_error,
                                   say_info, &s),
            FAIRWAY_OK);
  ASSERT_EQ(o.fairshare_tres_count, 1u);
  EXPECT_STREQ(o.fairshare_tres[0], "gres/gpu");
  EXPECT_EQ(pos[0], 2);
  EXPECT_EQ(o.usage_basis, FAIRWAY_USAGE_ALLOCATED);
  EXPECT_EQ(said.usage_basis, FAIRWAY_USAGE_ALLOCATED);
  EXPECT_STREQ(said.fairshare_tres, "gres/gpu");
  EXPECT_EQ(s.errors.size(), 1u);
  EXPECT_EQ(s.infos.size(), 2u);
  // Settled again with the same: nothing said.
  Said again;
  ASSERT_EQ(fairway_options_settle(&o, FAIRWAY_ALGO_FAIR_TREE, tracked, 3, &said, pos, say_error,
                                   say_info, &again),
            FAIRWAY_OK);
  EXPECT_TRUE(again.errors.empty() && again.infos.empty());
}

TEST(OptionsSettleCApi, EachAlgorithmHasTheNameThePluginsStartLineGivesIt) {
  EXPECT_STREQ(fairway_algorithm_log_name(FAIRWAY_ALGO_FAIR_TREE), "fair tree");
  EXPECT_STREQ(fairway_algorithm_log_name(FAIRWAY_ALGO_CLASSIC), "classic fair-share");
  EXPECT_STREQ(fairway_algorithm_log_name(FAIRWAY_ALGO_DEPTH_OBLIVIOUS),
               "depth-oblivious fair-share");
}

}  // namespace
