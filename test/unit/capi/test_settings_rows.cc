// The C API of fairway_settings.h and fairway_rows.h: arguments checked, the options settled
// and said through the callbacks, rows carved from blocks that go back with their last row.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fairway.h"
#include "fairway_publish.h"
#include "fairway_rows.h"
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

TEST(RowArenaCApi, NullArgumentsAreInvalid) {
  EXPECT_EQ(fairway_row_arena_create(nullptr), FAIRWAY_EINVAL);
  void *row = nullptr, *extra = nullptr;
  EXPECT_EQ(fairway_row_alloc(nullptr, nullptr, 8, 0, &row, &extra), FAIRWAY_EINVAL);
  fairway_row_arena_destroy(nullptr);
  fairway_row_free(nullptr);
}

TEST(RowArenaCApi, RowsAreZeroedAlignedAndShareABlockUntilItIsFull) {
  fairway_row_arena_t* arena = nullptr;
  ASSERT_EQ(fairway_row_arena_create(&arena), FAIRWAY_OK);
  fairway_row_fill_t fill{};
  std::vector<void*> rows;
  for (int i = 0; i < 5000; i++) {
    void *row = nullptr, *extra = nullptr;
    ASSERT_EQ(fairway_row_alloc(arena, &fill, 300, 13, &row, &extra), FAIRWAY_OK);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(row) % 8, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(extra) % 8, 0u);
    EXPECT_GE(static_cast<char*>(extra), static_cast<char*>(row) + 300);
    const char* bytes = static_cast<const char*>(row);
    for (int k = 0; k < 300; k++) ASSERT_EQ(bytes[k], 0);
    std::memset(row, 0xff, 300);
    std::memset(extra, 0xff, 13);
    rows.push_back(row);
  }
  // Freed in any order; the blocks go back to the arena and are used again.
  for (size_t i = 0; i < rows.size(); i += 2) fairway_row_free(rows[i]);
  for (size_t i = 1; i < rows.size(); i += 2) fairway_row_free(rows[i]);
  fairway_row_fill_t next{};
  void *row = nullptr, *extra = nullptr;
  ASSERT_EQ(fairway_row_alloc(arena, &next, 300, 0, &row, &extra), FAIRWAY_OK);
  EXPECT_EQ(static_cast<const char*>(row)[0], 0);
  fairway_row_free(row);
  fairway_row_arena_destroy(arena);
}

TEST(RowArenaCApi, ARowLargerThanABlockGetsItsOwnAndNoArenaKeepsNone) {
  fairway_row_fill_t fill{};
  void *row = nullptr, *extra = nullptr;
  ASSERT_EQ(fairway_row_alloc(nullptr, &fill, 64, size_t{3} << 20, &row, &extra), FAIRWAY_OK);
  std::memset(extra, 1, size_t{3} << 20);
  void *small = nullptr, *small_extra = nullptr;
  ASSERT_EQ(fairway_row_alloc(nullptr, &fill, 64, 8, &small, &small_extra), FAIRWAY_OK);
  fairway_row_free(row);
  fairway_row_free(small);
}

TEST(SprioRowPlaceCApi, PartitionAndQosFactorsAreWeightedAsMultifactorsRowsShowThem) {
  fairway_weights_t w{};
  w.weight[FAIRWAY_FACTOR_PARTITION] = 1000;
  w.weight[FAIRWAY_FACTOR_QOS] = 200;
  fairway_sprio_place_t place{};
  place.has_partition = 1;
  place.part_job_factor = 3;
  place.part_norm_priority = 0.5;
  place.has_qos = 1;
  place.qos_priority = 10;
  place.qos_norm_priority = 0.25;
  double part = -1, qos = -1;
  ASSERT_EQ(fairway_sprio_row_place(&w, &place, nullptr, 0, &part, &qos), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(part, 500);
  EXPECT_DOUBLE_EQ(qos, 50);
  w.flags = FAIRWAY_FLAG_NO_NORMAL_PART | FAIRWAY_FLAG_NO_NORMAL_QOS;
  ASSERT_EQ(fairway_sprio_row_place(&w, &place, nullptr, 0, &part, &qos), FAIRWAY_OK);
  EXPECT_DOUBLE_EQ(part, 3000);
  EXPECT_DOUBLE_EQ(qos, 2000);
  // A QOS of priority 0, or no QOS weight, leaves the copied value; so does no partition.
  place.qos_priority = 0;
  place.has_partition = 0;
  part = qos = -1;
  ASSERT_EQ(fairway_sprio_row_place(&w, &place, nullptr, 0, &part, &qos), FAIRWAY_OK);
  EXPECT_EQ(part, -1);
  EXPECT_EQ(qos, -1);
  EXPECT_EQ(fairway_sprio_row_place(nullptr, &place, nullptr, 0, &part, &qos), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_sprio_row_place(&w, &place, nullptr, 0, nullptr, &qos), FAIRWAY_EINVAL);
}

TEST(SprioRowPlaceCApi, AJobWeighedBeforeTheTresGrewKeepsItsCopysEnd) {
  const double tres_weights[] = {100, 100, 100};
  fairway_weights_t w{};
  w.tres = tres_weights;
  w.tres_count = 3;
  const uint64_t alloc[] = {4, 8, 2}, part_tres[] = {8, 16, 4};
  fairway_sprio_place_t place{};
  place.has_partition = 1;
  place.part_tres = part_tres;
  place.job_tres_alloc = alloc;
  place.job_tres_req = alloc;
  double row[3] = {0, 0, 12345};  // the copy holds 2 TRES; row[2] is the next row's
  double part = 0, qos = 0;
  ASSERT_EQ(fairway_sprio_row_place(&w, &place, row, 2, &part, &qos), FAIRWAY_OK);
  EXPECT_EQ(row[2], 12345);
  EXPECT_GT(row[0], 0);
}

}  // namespace
