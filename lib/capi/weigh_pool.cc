// weigh_pool.cc - the weighing pool behind fairway_weigh_pool.h: the threads, the pass handed
// to them, and how many take part.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "api_guard.h"
#include "fairway_weigh_pool.h"

namespace {

constexpr int kDefaultMaxThreads = 16;
constexpr size_t kDefaultParallelMinJobs = 4096;

// The CPUs this process may run on (its affinity mask), or those online.
int cpus_usable() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

// A whole decimal number from lo to hi in text, as strtol reads it; false otherwise.
bool whole_number(const char* text, long lo, long hi, long* out) {
  char* end = nullptr;
  errno = 0;
  long n = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || n < lo || n > hi) return false;
  *out = n;
  return true;
}

}  // namespace

struct fairway_weigh_pool {
  fairway_message_fn say = nullptr;
  void* say_arg = nullptr;
  int env_threads = 0;      // FAIRWAY_WEIGH_THREADS, 0: none
  int default_threads = 1;  // the CPUs we may run on, capped
  size_t parallel_min_jobs = kDefaultParallelMinJobs;
  bool told = false;  // a thread that could not start, said

  std::mutex lock;  // what follows
  std::condition_variable work, done;
  std::vector<std::thread> threads;  // thread k + 1 is lane k + 1
  bool stop = false;
  struct {
    uint64_t posted = 0;  // passes handed out
    int parts = 0;        // lanes taking part, the caller's too
    int running = 0;      // pool threads of this pass not done yet
    size_t n = 0;
    fairway_weigh_range_fn weigh = nullptr;
    void* arg = nullptr;
    bool changed = false;
  } pass;

  void tell(const std::string& line) { say(line.c_str(), say_arg); }

  // Lane k's range of a pass of n jobs cut into parts.
  static size_t range_begin(size_t n, int parts, int k) {
    return static_cast<size_t>((static_cast<uint64_t>(n) * static_cast<uint64_t>(k)) /
                               static_cast<uint64_t>(parts));
  }

  void lane_main(int k, uint64_t seen) {
    std::string name = "fw_weigh" + std::to_string(k);
    (void)pthread_setname_np(pthread_self(), name.c_str());
    std::unique_lock<std::mutex> held(lock);
    while (!stop) {
      if (pass.posted == seen) {
        work.wait(held);
        continue;
      }
      seen = pass.posted;
      if (k >= pass.parts) continue;  // not needed for this pass
      size_t begin = range_begin(pass.n, pass.parts, k);
      size_t end = range_begin(pass.n, pass.parts, k + 1);
      fairway_weigh_range_fn weigh = pass.weigh;
      void* arg = pass.arg;
      held.unlock();
      bool changed = weigh(arg, k, begin, end) != 0;
      held.lock();
      pass.changed = pass.changed || changed;
      if (--pass.running == 0) done.notify_one();
    }
  }

  // Threads 1 .. want - 1 running, as far as they start; how many lanes can take part.
  int grow(int want) {
    while (static_cast<int>(threads.size()) < want - 1) {
      int k = static_cast<int>(threads.size()) + 1;
      try {
        // Only the caller of run hands out passes: what it posted so far is seen.
        threads.emplace_back(&fairway_weigh_pool::lane_main, this, k, pass.posted);
      } catch (const std::system_error& e) {
        if (!told)
          tell("cannot start weighing thread " + std::to_string(k) + " (" +
               std::strerror(e.code().value()) + "): weighing in " + std::to_string(k));
        told = true;
        break;
      }
      told = false;
    }
    int can = static_cast<int>(threads.size()) + 1;
    return can < want ? can : want;
  }

  ~fairway_weigh_pool() {
    {
      std::lock_guard<std::mutex> held(lock);
      stop = true;
    }
    work.notify_all();
    for (std::thread& t : threads) t.join();
  }
};

extern "C" {

fairway_error_t fairway_weigh_pool_create(const char* env_threads, const char* env_min_jobs,
                                          fairway_message_fn say, void* say_arg,
                                          fairway_weigh_pool_t** pool) {
  return fairway::guard([&]() -> fairway_error_t {
    if (!pool || !say) return FAIRWAY_EINVAL;
    auto p = std::make_unique<fairway_weigh_pool>();
    p->say = say;
    p->say_arg = say_arg;
    p->default_threads = cpus_usable();
    if (p->default_threads > kDefaultMaxThreads) p->default_threads = kDefaultMaxThreads;
    long n = 0;
    if (env_threads) {
      if (whole_number(env_threads, 1, FAIRWAY_MAX_WEIGH_THREADS, &n))
        p->env_threads = static_cast<int>(n);
      else
        p->tell(std::string("FAIRWAY_WEIGH_THREADS='") + env_threads +
                "' is not a number of threads from 1 to " +
                std::to_string(FAIRWAY_MAX_WEIGH_THREADS) + ", using " +
                std::to_string(p->default_threads));
    }
    if (env_min_jobs) {
      if (whole_number(env_min_jobs, 2, LONG_MAX, &n))
        p->parallel_min_jobs = static_cast<size_t>(n);
      else
        p->tell(std::string("FAIRWAY_PARALLEL_MIN_JOBS='") + env_min_jobs +
                "' is not a number of at least 2, using " + std::to_string(p->parallel_min_jobs));
    }
    *pool = p.release();
    return FAIRWAY_OK;
  });
}

fairway_error_t fairway_weigh_pool_run(fairway_weigh_pool_t* pool, size_t n, uint32_t threads,
                                       int parallel, fairway_weigh_range_fn weigh, void* arg,
                                       int* changed, int* parts_out) {
  return fairway::guard([&]() -> fairway_error_t {
    if (!pool || !weigh) return FAIRWAY_EINVAL;
    int want = threads             ? static_cast<int>(threads)
               : pool->env_threads ? pool->env_threads
                                   : pool->default_threads;
    if (want > FAIRWAY_MAX_WEIGH_THREADS) want = FAIRWAY_MAX_WEIGH_THREADS;
    size_t most = n / ((pool->parallel_min_jobs + 1) / 2);  // at least this many jobs each
    int parts = static_cast<size_t>(want) > most ? static_cast<int>(most) : want;
    if (!parallel || parts < 2 || n < pool->parallel_min_jobs || (parts = pool->grow(parts)) < 2) {
      int c = weigh(arg, 0, 0, n);
      if (changed) *changed = c != 0;
      if (parts_out) *parts_out = 1;
      return FAIRWAY_OK;
    }
    std::unique_lock<std::mutex> held(pool->lock);
    pool->pass.n = n;
    pool->pass.parts = parts;
    pool->pass.running = parts - 1;
    pool->pass.weigh = weigh;
    pool->pass.arg = arg;
    pool->pass.changed = false;
    pool->pass.posted++;
    held.unlock();
    pool->work.notify_all();

    bool any = weigh(arg, 0, 0, fairway_weigh_pool::range_begin(n, parts, 1)) != 0;

    held.lock();
    pool->done.wait(held, [pool] { return pool->pass.running == 0; });
    any = any || pool->pass.changed;
    if (changed) *changed = any;
    if (parts_out) *parts_out = parts;
    return FAIRWAY_OK;
  });
}

void fairway_weigh_pool_destroy(fairway_weigh_pool_t** pool) {
  if (!pool || !*pool) return;
  delete *pool;
  *pool = nullptr;
}

}  // extern "C"
