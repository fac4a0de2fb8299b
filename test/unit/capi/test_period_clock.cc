// test_period_clock.cc - fairway_period_clock.h: the calculation thread's schedule.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include "fairway_period_clock.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Seen {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<int> periods{0};
  std::atomic<int> reranks{0};
  std::atomic<int> interval_reads{0};
  std::atomic<bool> lock_held_in_calls{true};
  uint32_t calc_period = 3600;
  uint32_t rerank_every = 0;
};

void note_lock(Seen* s) {
  // The thread holds the lock: trying it from the thread finds it taken.
  if (pthread_mutex_trylock(&s->lock) != EBUSY) s->lock_held_in_calls = false;
}

void period(time_t, void* arg) {
  auto* s = static_cast<Seen*>(arg);
  note_lock(s);
  s->periods++;
}
uint32_t calc_period(void* arg) { return static_cast<Seen*>(arg)->calc_period; }
uint32_t rerank_interval(void* arg) {
  auto* s = static_cast<Seen*>(arg);
  s->interval_reads++;
  return s->rerank_every;
}
void rerank(time_t, void* arg) {
  auto* s = static_cast<Seen*>(arg);
  note_lock(s);
  s->reranks++;
}

fairway_period_clock_calls_t calls_for(Seen* s) {
  return fairway_period_clock_calls_t{period, calc_period, rerank_interval, rerank, s};
}

// Wait up to `limit` for done() to hold.
template <typename Fn>
bool within(std::chrono::seconds limit, Fn done) {
  const auto end = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(PeriodClock, RunsAPeriodAtOnceAndStopsWithoutWaitingForTheNext) {
  Seen s;  // the next period an hour away
  const fairway_period_clock_calls_t calls = calls_for(&s);
  fairway_period_clock_t* clock = nullptr;
  ASSERT_EQ(fairway_period_clock_start(&s.lock, &calls, "fairway", &clock), FAIRWAY_OK);
  ASSERT_TRUE(within(std::chrono::seconds(30), [&] { return s.periods == 1; }));
  const auto before = Clock::now();
  fairway_period_clock_stop(&clock);
  EXPECT_EQ(clock, nullptr);
  EXPECT_LT(Clock::now() - before, std::chrono::seconds(30));
  EXPECT_EQ(s.periods, 1);
  EXPECT_EQ(s.reranks, 0);
  EXPECT_TRUE(s.lock_held_in_calls);
  // Stopped: the lock is free again.
  EXPECT_EQ(pthread_mutex_trylock(&s.lock), 0);
  pthread_mutex_unlock(&s.lock);
}

TEST(PeriodClock, PeriodsFollowOneAnotherAtTheCalcPeriod) {
  Seen s;
  s.calc_period = 1;
  const fairway_period_clock_calls_t calls = calls_for(&s);
  fairway_period_clock_t* clock = nullptr;
  ASSERT_EQ(fairway_period_clock_start(&s.lock, &calls, "fairway", &clock), FAIRWAY_OK);
  const auto began = Clock::now();
  ASSERT_TRUE(within(std::chrono::seconds(30), [&] { return s.periods >= 3; }));
  fairway_period_clock_stop(&clock);
  // Three periods one second apart take at least about two seconds.
  EXPECT_GE(Clock::now() - began, std::chrono::milliseconds(1000));
  EXPECT_TRUE(s.lock_held_in_calls);
}

TEST(PeriodClock, ReranksBetweenPeriodsEveryInterval) {
  Seen s;  // periods an hour apart, a re-ranking every second
  s.rerank_every = 1;
  const fairway_period_clock_calls_t calls = calls_for(&s);
  fairway_period_clock_t* clock = nullptr;
  ASSERT_EQ(fairway_period_clock_start(&s.lock, &calls, "fairway", &clock), FAIRWAY_OK);
  ASSERT_TRUE(within(std::chrono::seconds(30), [&] { return s.reranks >= 2; }));
  fairway_period_clock_stop(&clock);
  EXPECT_EQ(s.periods, 1);
  EXPECT_TRUE(s.lock_held_in_calls);
}

TEST(PeriodClock, WithNoRerankIntervalTheThreadSleepsUntilTheNextPeriod) {
  Seen s;  // rerank_interval answers 0: the thread must wait, not poll
  const fairway_period_clock_calls_t calls = calls_for(&s);
  fairway_period_clock_t* clock = nullptr;
  ASSERT_EQ(fairway_period_clock_start(&s.lock, &calls, "fairway", &clock), FAIRWAY_OK);
  ASSERT_TRUE(within(std::chrono::seconds(30), [&] { return s.periods == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  fairway_period_clock_stop(&clock);
  EXPECT_EQ(s.reranks, 0);
  EXPECT_LE(s.interval_reads, 3);  // once after the period, once at the stop's wake
}

TEST(PeriodClock, NullArgumentsAreInvalid) {
  Seen s;
  fairway_period_clock_calls_t calls = calls_for(&s);
  fairway_period_clock_t* clock = nullptr;
  EXPECT_EQ(fairway_period_clock_start(nullptr, &calls, "fairway", &clock), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_period_clock_start(&s.lock, nullptr, "fairway", &clock), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_period_clock_start(&s.lock, &calls, nullptr, &clock), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_period_clock_start(&s.lock, &calls, "fairway", nullptr), FAIRWAY_EINVAL);
  calls.rerank = nullptr;
  EXPECT_EQ(fairway_period_clock_start(&s.lock, &calls, "fairway", &clock), FAIRWAY_EINVAL);
  EXPECT_EQ(clock, nullptr);
  fairway_period_clock_stop(nullptr);
  fairway_period_clock_stop(&clock);
}

}  // namespace
