// The holder of the settings in force (fairway_settings.h): an object put in force is freed
// once it is neither in force nor held, never before, and exactly once.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "fairway.h"
#include "fairway_settings.h"

namespace {

// The objects freed, in order (free_fn may run on any thread that releases).
std::mutex g_freed_lock;
std::vector<int*> g_freed;

void free_int(void* obj) {
  std::lock_guard<std::mutex> hold(g_freed_lock);
  g_freed.push_back(static_cast<int*>(obj));
  delete static_cast<int*>(obj);
}

class SettingsHolder : public ::testing::Test {
 protected:
  void SetUp() override {
    g_freed.clear();
    ASSERT_EQ(fairway_settings_holder_new(free_int, &h_), FAIRWAY_OK);
  }
  void TearDown() override { fairway_settings_holder_destroy(&h_); }
  fairway_settings_holder_t* h_ = nullptr;
};

TEST(SettingsHolderCApi, NullArgumentsAreInvalidOrNoOps) {
  fairway_settings_holder_t* h = nullptr;
  EXPECT_EQ(fairway_settings_holder_new(nullptr, &h), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_settings_holder_new(free_int, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_settings_holder_set(nullptr, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_settings_holder_acquire(nullptr), nullptr);
  fairway_settings_holder_release(nullptr, &h);
  fairway_settings_holder_destroy(nullptr);
  fairway_settings_holder_destroy(&h);
}

TEST_F(SettingsHolder, NothingIsInForceUntilSet) {
  EXPECT_EQ(fairway_settings_holder_acquire(h_), nullptr);
}

TEST_F(SettingsHolder, AnObjectNotHeldIsFreedWhenReplaced) {
  int* a = new int(1);
  int* b = new int(2);
  ASSERT_EQ(fairway_settings_holder_set(h_, a), FAIRWAY_OK);
  ASSERT_EQ(fairway_settings_holder_set(h_, b), FAIRWAY_OK);
  ASSERT_EQ(g_freed.size(), 1u);
  EXPECT_EQ(g_freed[0], a);
  EXPECT_EQ(fairway_settings_holder_acquire(h_), b);
  fairway_settings_holder_release(h_, b);
  EXPECT_EQ(g_freed.size(), 1u);
}

TEST_F(SettingsHolder, AHeldObjectOutlivesItsReplacementUntilItsLastRelease) {
  int* a = new int(1);
  ASSERT_EQ(fairway_settings_holder_set(h_, a), FAIRWAY_OK);
  EXPECT_EQ(fairway_settings_holder_acquire(h_), a);
  EXPECT_EQ(fairway_settings_holder_acquire(h_), a);
  ASSERT_EQ(fairway_settings_holder_set(h_, nullptr), FAIRWAY_OK);
  EXPECT_EQ(fairway_settings_holder_acquire(h_), nullptr);
  fairway_settings_holder_release(h_, a);
  EXPECT_TRUE(g_freed.empty());
  fairway_settings_holder_release(h_, a);
  ASSERT_EQ(g_freed.size(), 1u);
  EXPECT_EQ(g_freed[0], a);
}

TEST_F(SettingsHolder, ReleasingAnObjectNotHeldChangesNothing) {
  int* a = new int(1);
  int other = 0;
  ASSERT_EQ(fairway_settings_holder_set(h_, a), FAIRWAY_OK);
  fairway_settings_holder_release(h_, &other);
  fairway_settings_holder_release(h_, nullptr);
  EXPECT_EQ(fairway_settings_holder_acquire(h_), a);
  fairway_settings_holder_release(h_, a);
  EXPECT_TRUE(g_freed.empty());
}

TEST_F(SettingsHolder, DestroyFreesTheObjectInForce) {
  int* a = new int(1);
  ASSERT_EQ(fairway_settings_holder_set(h_, a), FAIRWAY_OK);
  fairway_settings_holder_destroy(&h_);
  EXPECT_EQ(h_, nullptr);
  ASSERT_EQ(g_freed.size(), 1u);
  EXPECT_EQ(g_freed[0], a);
}

TEST_F(SettingsHolder, ReadersOnThreadsWhileSetReplacesFreeEachObjectOnce) {
  const int kObjects = 200;
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; t++)
    readers.emplace_back([this] {
      for (int i = 0; i < 2000; i++) {
        void* obj = fairway_settings_holder_acquire(h_);
        if (obj) {
          EXPECT_GE(*static_cast<int*>(obj), 0);
        }
        fairway_settings_holder_release(h_, obj);
      }
    });
  for (int i = 0; i < kObjects; i++)
    ASSERT_EQ(fairway_settings_holder_set(h_, new int(i)), FAIRWAY_OK);
  for (auto& r : readers) r.join();
  fairway_settings_holder_destroy(&h_);
  EXPECT_EQ(g_freed.size(), static_cast<size_t>(kObjects));
}

}  // namespace
