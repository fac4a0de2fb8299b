// charge_api.cc - the C API of fairway_charge.h: a job's charge added to the records the
// shim passes (lib/priority/tres_charge.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "api_guard.h"
#include "fairway_charge.h"
#include "tres_charge.h"

namespace {

struct Reported {
  fairway_underflow_fn fn;
  void* arg;
  size_t record;
  fairway_run_secs_t which;
};

void report(void* arg, size_t tres, uint64_t tried, uint64_t remained) {
  const auto* r = static_cast<const Reported*>(arg);
  if (r->fn) r->fn(r->arg, r->record, r->which, tres, tried, remained);
}

// Each record's TRES usage, then its run seconds, in fairway_run_secs_t order.
fairway_error_t charge(const fairway::TresAmounts& a, fairway_charged_record_t* records, size_t n,
                       fairway_underflow_fn fn, void* arg) {
  return fairway::guard([&] {
    for (size_t k = 0; k < n; k++) {
      fairway_charged_record_t& r = records[k];
      const bool nodecay = r.nodecay != 0;
      if (a.charge) fairway::charge_usage(*a.charge, nodecay, r.usage_raw, r.grp_used_wall);
      for (int w = 0; w < FAIRWAY_RUN_SECS_COUNT; w++) {
        Reported rep{fn, arg, k, static_cast<fairway_run_secs_t>(w)};
        if (w == FAIRWAY_RUN_SECS_GRP)
          fairway::charge_tres(a, nodecay, r.usage_tres_raw, r.run_secs[w], report, &rep);
        else if (r.run_secs[w])
          fairway::charge_tres(a, nodecay, nullptr, r.run_secs[w], report, &rep);
      }
    }
  });
}

bool invalid(const char* fn, bool given, const fairway_charged_record_t* records, size_t n) {
  if (given && (records || !n)) return false;
  fairway::set_last_error((std::string(fn) + ": NULL argument").c_str());
  return true;
}

}  // namespace

extern "C" {

fairway_error_t fairway_charge_records(const fairway_job_charge_t* c,
                                       const fairway_tres_charge_t* t,
                                       fairway_charged_record_t* records, size_t n,
                                       fairway_underflow_fn fn, void* arg) {
  if (invalid("fairway_charge_records", c && t, records, n)) return FAIRWAY_EINVAL;
  fairway::JobCharge jc;
  jc.run_delta = c->run_delta;
  jc.run_decay = c->run_decay;
  jc.run_nodecay = c->run_nodecay;
  jc.real_decay = c->real_decay;
  jc.real_nodecay = c->real_nodecay;
  jc.tres_time_delta = c->tres_time_delta;
  fairway::TresAmounts a;
  a.alloc = t->tres_alloc;
  a.count = t->tres_count;
  a.skip = t->skip_tres;
  a.charge = &jc;
  return charge(a, records, n, fn, arg);
}

fairway_error_t fairway_release_run_secs(const fairway_tres_charge_t* t, double used_seconds,
                                         fairway_charged_record_t* records, size_t n,
                                         fairway_underflow_fn fn, void* arg) {
  if (invalid("fairway_release_run_secs", t != nullptr, records, n)) return FAIRWAY_EINVAL;
  fairway::TresAmounts a;
  a.alloc = t->tres_alloc;
  a.count = t->tres_count;
  a.skip = t->skip_tres;
  a.started_seconds = used_seconds;
  return charge(a, records, n, fn, arg);
}

}  // extern "C"
