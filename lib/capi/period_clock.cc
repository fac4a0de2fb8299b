// period_clock.cc - fairway_period_clock.h: the calculation thread and its schedule.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <pthread.h>

#include <cstring>
#include <ctime>
#include <new>
#include <string>

#include "api_guard.h"
#include "fairway_period_clock.h"

struct fairway_period_clock {
  pthread_mutex_t* lock = nullptr;  // the plugin's; guards `stopping` too
  pthread_cond_t wake;
  fairway_period_clock_calls_t calls{};
  std::string name;
  pthread_t thread{};
  bool stopping = false;
};

namespace {

// The schedule, as multifactor's decay thread keeps it: periods PriorityCalcPeriod apart
// from the first one's start (a late period does not shift the next), each starting when
// the wait before it ended; between them a re-ranking every rerank_interval seconds from
// the last one's end, read again at each wake so a reconfigure takes effect at once.
void run(fairway_period_clock* c) {
  const fairway_period_clock_calls_t& k = c->calls;
  struct timespec next;
  time_t start = time(nullptr);

  (void)pthread_setname_np(pthread_self(), c->name.c_str());
  clock_gettime(CLOCK_REALTIME, &next);
  pthread_mutex_lock(c->lock);
  while (!c->stopping) {
    k.period(start, k.arg);
    time_t reranked = time(nullptr);

    next.tv_sec += k.calc_period(k.arg);
    while (!c->stopping) {
      struct timespec now, until = next;
      const uint32_t iv = k.rerank_interval ? k.rerank_interval(k.arg) : 0;

      clock_gettime(CLOCK_REALTIME, &now);
      if (now.tv_sec >= next.tv_sec) break;
      if (iv && now.tv_sec >= reranked + static_cast<time_t>(iv)) {
        k.rerank(now.tv_sec, k.arg);
        reranked = time(nullptr);
        continue;
      }
      if (iv && reranked + static_cast<time_t>(iv) < until.tv_sec) {
        until.tv_sec = reranked + static_cast<time_t>(iv);
        until.tv_nsec = 0;
      }
      (void)pthread_cond_timedwait(&c->wake, c->lock, &until);
    }
    start = time(nullptr);
  }
  pthread_mutex_unlock(c->lock);
}

void* thread_main(void* arg) {
  run(static_cast<fairway_period_clock*>(arg));
  return nullptr;
}

}  // namespace

extern "C" fairway_error_t fairway_period_clock_start(pthread_mutex_t* lock,
                                                      const fairway_period_clock_calls_t* calls,
                                                      const char* name,
                                                      fairway_period_clock_t** out) {
  return fairway::guard([&] {
    if (!lock || !calls || !calls->period || !calls->calc_period || !name || !out)
      fairway::invalid("fairway_period_clock_start: NULL argument");
    if (calls->rerank_interval && !calls->rerank)
      fairway::invalid("fairway_period_clock_start: rerank_interval without rerank");
    auto* c = new fairway_period_clock;
    c->lock = lock;
    c->calls = *calls;
    c->name.assign(name, strnlen(name, 15));  // the kernel keeps 15 characters
    if (pthread_cond_init(&c->wake, nullptr) != 0) {
      delete c;
      throw std::bad_alloc();
    }
    if (int err = pthread_create(&c->thread, nullptr, thread_main, c)) {
      pthread_cond_destroy(&c->wake);
      delete c;
      throw fairway::Error(
          fairway::Errc::kInternal,
          std::string("fairway_period_clock_start: no thread: ") + std::strerror(err));
    }
    *out = c;
  });
}

extern "C" void fairway_period_clock_stop(fairway_period_clock_t** clock) {
  if (!clock || !*clock) return;
  fairway_period_clock* c = *clock;
  pthread_mutex_lock(c->lock);
  c->stopping = true;
  pthread_cond_signal(&c->wake);
  pthread_mutex_unlock(c->lock);
  pthread_join(c->thread, nullptr);
  pthread_cond_destroy(&c->wake);
  delete c;
  *clock = nullptr;
}
