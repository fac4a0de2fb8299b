// settings_api.cc - fairway_settings.h over lib/queue/plugin_options.h, and the holder of the
// settings in force.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "api_guard.h"
#include "capi_types.h"
#include "fairshare_tres.h"
#include "fairway_settings.h"
#include "plugin_options.h"

extern "C" fairway_error_t fairway_options_settle(fairway_options_t* o, fairway_algorithm_t algo,
                                                  const char* const* tracked, size_t tracked_count,
                                                  fairway_options_said_t* said, int* positions,
                                                  fairway_message_fn say_error,
                                                  fairway_message_fn say_info, void* arg) {
  return fairway::guard([&] {
    if (!o || !said || !positions) fairway::invalid("fairway_options_settle: NULL argument");
    if (!tracked && tracked_count) fairway::invalid("fairway_options_settle: NULL tracked TRES");
    if (o->fairshare_tres_count > FAIRWAY_MAX_FAIRSHARE_TRES)
      fairway::invalid("fairway_options_settle: too many fairway_fairshare_tres");
    fairway::PluginOptions p;
    p.usage_basis = fairway::to_usage_basis(o->usage_basis);
    p.rerank_interval = o->rerank_interval;
    for (uint32_t k = 0; k < o->fairshare_tres_count; k++)
      p.fairshare_tres.emplace_back(o->fairshare_tres[k],
                                    strnlen(o->fairshare_tres[k], sizeof o->fairshare_tres[k]));
    // A NULL name is one no option can name.
    std::vector<std::string> names;
    names.reserve(tracked_count);
    for (size_t i = 0; i < tracked_count; i++)
      names.emplace_back(tracked[i] ? tracked[i] : std::string(1, '\0'));
    fairway::OptionsSaid was;
    was.usage_basis = fairway::to_usage_basis(said->usage_basis);
    was.fairshare_tres.assign(said->fairshare_tres,
                              strnlen(said->fairshare_tres, sizeof said->fairshare_tres));
    std::vector<int> pos;
    const std::vector<fairway::OptionsLine> lines =
        fairway::settle_options(p, fairway::to_algorithm(algo), names, was, pos);

    o->usage_basis = fairway::from_usage_basis(p.usage_basis);
    o->rerank_interval = p.rerank_interval;
    std::memset(o->fairshare_tres, 0, sizeof o->fairshare_tres);
    o->fairshare_tres_count = 0;
    for (size_t k = 0; k < p.fairshare_tres.size(); k++) {
      std::memcpy(o->fairshare_tres[k], p.fairshare_tres[k].data(), p.fairshare_tres[k].size());
      positions[k] = pos[k];
      o->fairshare_tres_count++;
    }
    said->usage_basis = fairway::from_usage_basis(was.usage_basis);
    static_assert(fairway::kMaxFairShareTres * (fairway::kMaxFairShareTresName + 1) <=
                  sizeof said->fairshare_tres);
    std::memset(said->fairshare_tres, 0, sizeof said->fairshare_tres);
    std::memcpy(said->fairshare_tres, was.fairshare_tres.data(), was.fairshare_tres.size());
    for (const fairway::OptionsLine& l : lines) {
      fairway_message_fn say = l.error ? say_error : say_info;
      if (say) say(l.text.c_str(), arg);
    }
  });
}

extern "C" const char* fairway_algorithm_log_name(fairway_algorithm_t algo) {
  switch (algo) {
    case FAIRWAY_ALGO_FAIR_TREE:
      return "fair tree";
    case FAIRWAY_ALGO_CLASSIC:
      return "classic fair-share";
    case FAIRWAY_ALGO_DEPTH_OBLIVIOUS:
      break;
  }
  return "depth-oblivious fair-share";
}

// Every object put in force and not yet freed, with its holders: the holder itself counts
// one while the object is in force.
struct fairway_settings_holder {
  struct Held {
    void* obj;
    long refs;
  };
  std::mutex lock;
  fairway_free_fn free_fn = nullptr;
  void* current = nullptr;
  std::vector<Held> held;

  // Drop one reference to obj; the object to free when that was its last one, or NULL.
  // Called with lock held.
  void* drop(const void* obj) {
    for (size_t i = 0; i < held.size(); i++) {
      if (held[i].obj != obj) continue;
      void* gone = held[i].obj;
      if (--held[i].refs > 0) return nullptr;
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      return gone;
    }
    return nullptr;
  }
};

extern "C" fairway_error_t fairway_settings_holder_new(fairway_free_fn free_fn,
                                                       fairway_settings_holder_t** out) {
  return fairway::guard([&] {
    if (!free_fn || !out) fairway::invalid("fairway_settings_holder_new: NULL argument");
    *out = new fairway_settings_holder;
    (*out)->free_fn = free_fn;
  });
}

extern "C" fairway_error_t fairway_settings_holder_set(fairway_settings_holder_t* h, void* obj) {
  void* gone = nullptr;
  fairway_error_t err = fairway::guard([&] {
    if (!h) fairway::invalid("fairway_settings_holder_set: NULL holder");
    std::lock_guard<std::mutex> hold(h->lock);
    if (obj) h->held.reserve(h->held.size() + 1);  // may throw: before any change
    if (h->current) gone = h->drop(h->current);
    h->current = obj;
    if (obj) h->held.push_back({obj, 1});
  });
  if (gone) h->free_fn(gone);
  return err;
}

// acquire and release are called around every job slurmctld submits and every sprio
// call: no guard() (its cost per call is the thread's error message cleared); only the
// lock can throw, and then nothing is held or dropped.
extern "C" void* fairway_settings_holder_acquire(fairway_settings_holder_t* h) {
  void* obj = nullptr;
  if (!h) return obj;
  try {
    std::lock_guard<std::mutex> hold(h->lock);
    for (auto& e : h->held)
      if (e.obj == h->current) {
        e.refs++;
        obj = e.obj;
      }
  } catch (...) {
    fairway::set_last_error("fairway_settings_holder_acquire: the holder's lock failed");
  }
  return obj;
}

extern "C" void fairway_settings_holder_release(fairway_settings_holder_t* h, const void* obj) {
  void* gone = nullptr;
  if (!h || !obj) return;
  try {
    std::lock_guard<std::mutex> hold(h->lock);
    gone = h->drop(obj);
  } catch (...) {
    fairway::set_last_error("fairway_settings_holder_release: the holder's lock failed");
  }
  if (gone) h->free_fn(gone);
}

extern "C" void fairway_settings_holder_destroy(fairway_settings_holder_t** h) {
  if (!h || !*h) return;
  (void)fairway_settings_holder_set(*h, nullptr);
  delete *h;
  *h = nullptr;
}
