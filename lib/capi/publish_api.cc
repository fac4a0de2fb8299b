// publish_api.cc - fairway_publish(): the metrics file and the per-period snapshot, written
// from what the plugin copied under slurmctld's locks; fairway_options_parse(): the options
// that turn them on (fairway_publish.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api_guard.h"
#include "assoc_tree.h"
#include "atomic_file.h"
#include "capi_types.h"
#include "fair_share.h"
#include "fairshare_tres.h"
#include "fairway.h"
#include "fairway_publish.h"
#include "forecast_file.h"
#include "history.h"
#include "job_starts.h"
#include "job_starts_file.h"
#include "metrics_format.h"
#include "oldest_pending.h"
#include "pending_stats.h"
#include "plugin_options.h"
#include "private_data.h"
#include "published_queue.h"
#include "publisher.h"
#include "shadow_policy.h"
#include "snapshot.h"
#include "starvation.h"
#include "whatif_json.h"

namespace {

fairway::PrivateData hidden(uint32_t bits) {
  return {(bits & FAIRWAY_PRIVATE_DATA_USAGE) != 0, (bits & FAIRWAY_PRIVATE_DATA_USERS) != 0};
}

std::string who(const fairway::AssocTree& t, uint32_t i) {
  const std::string account(t.account(i)), user(t.user(i));
  return user.empty() ? "account " + account : "user " + user + " in account " + account;
}

std::string duration(int64_t s) {
  if (s < 3600) return std::to_string(s / 60) + " min";
  if (s < 86400) return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
  return std::to_string(s / 86400) + " d " + std::to_string(s % 86400 / 3600) + " h";
}

std::string factor_text(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", f);
  return b;
}

// One line when an episode starts and one when it ends.
void report_episodes(fairway_publisher* pub, const fairway::AssocTree& t,
                     const fairway::StarvationReport& r, double quantile, int64_t now,
                     fairway_message_fn say, void* arg) {
  if (!pub) return;
  std::map<uint32_t, int64_t> now_starved;
  for (const fairway::Starved& s : r.starved) {
    const uint32_t id = t.id(s.index);
    auto was = pub->starved.find(id);
    now_starved[id] = was == pub->starved.end() ? now : was->second;
    if (was != pub->starved.end() || !say) continue;
    const int top = static_cast<int>(std::lround((1 - quantile) * 100));
    const std::string line =
        "fair-share starvation: " + who(t, s.index) + " has waited " + duration(s.waited) +
        " (job " + std::to_string(s.job_id) + ", " + std::to_string(s.pending) + " eligible job" +
        (s.pending == 1 ? "" : "s") + " pending) with fair-share factor " + factor_text(s.factor) +
        ", among the highest " + std::to_string(top) +
        "% of the users with jobs pending (at least " + factor_text(r.threshold) +
        "): entitled but not served; a limit, a higher PriorityTier or a weight that drowns "
        "fair-share holds it back ('fairway explain " +
        std::to_string(s.job_id) + "' tells which)";
    say(line.c_str(), arg);
  }
  for (const auto& [id, since] : pub->starved) {
    if (now_starved.count(id) || !say) continue;
    const uint32_t i = t.find(id);
    const std::string line =
        "fair-share starvation of " +
        (i == fairway::kNoIndex ? "association " + std::to_string(id) : who(t, i)) +
        " ended after " + duration(now - since);
    say(line.c_str(), arg);
  }
  pub->starved = std::move(now_starved);
}

// Movers per partition in fairway_shadow.json.
constexpr size_t kShadowTopMovers = 100;

// The queue weighed under the shadow policy in FILE, or nullopt after telling why (once until
// the problem changes; and once when it is weighed again).
std::optional<fairway::WhatIf> weigh_shadow(fairway_publisher* pub, const std::string& file,
                                            const fairway::Queue& q,
                                            const fairway::FairShareInput& fs,
                                            fairway_message_fn say, void* arg) {
  std::string problem;
  std::optional<fairway::WhatIf> w;
  try {
    bool exists = false;
    const std::string text =
        fairway::read_whole_file(file, &exists, fairway::kMaxShadowPolicyBytes + 1);
    if (!exists) fairway::invalid("no such file");
    w = fairway::what_if(q, fs, fairway::parse_shadow_policy(text, q.settings));
  } catch (const std::exception& e) {
    problem = e.what();
  }
  const std::string last = pub ? pub->shadow_problem : std::string();
  std::string line;
  if (!problem.empty() && problem != last)
    line = "shadow policy " + file + " not weighed: " + problem +
           "; the live priorities are not affected, retried every period";
  else if (problem.empty() && !last.empty())
    line = "shadow policy " + file + " weighed again";
  if (!line.empty() && say) say(line.c_str(), arg);
  if (pub) pub->shadow_problem = problem;
  return w;
}

std::vector<std::string> names(const char* const* v, size_t n, const char* what) {
  if (!v && n) fairway::invalid(std::string("fairway_publish: NULL ") + what);
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; i++) out.emplace_back(v[i] ? v[i] : "");
  return out;
}

// fairway_fairshare_tres: each listed TRES's tree (the shape of `tree`, the usage of that TRES),
// computed as the period computed it.
struct TresTrees {
  std::vector<std::string> names;
  std::vector<fairway::AssocTree> trees;
  std::vector<fairway::FairShareResult> results;
  std::vector<std::vector<long double>> direct;  // per TRES, usage charged directly (snapshot)
};

TresTrees tres_trees(const fairway_publication_t& p, const fairway::AssocTree& tree,
                     fairway::UsageBasis basis, fairway::Algorithm algo) {
  TresTrees out;
  if (!p.fairshare_tres_count) return out;
  const bool held = basis != fairway::UsageBasis::kHistorical;
  if (!p.fairshare_tres) fairway::invalid("fairway_publish: fair-share TRES without names");
  if (held ? !p.fairshare_tres_running || !p.fairshare_tres_running_count : !p.fairshare_tres_usage)
    fairway::invalid("fairway_publish: fair-share TRES without their usage");
  const uint32_t n = tree.size();
  if (n != p.assoc_count) fairway::invalid("fairway_publish: the association tree lost records");
  out.trees.reserve(p.fairshare_tres_count);
  for (size_t k = 0; k < p.fairshare_tres_count; k++) {
    out.names.emplace_back(p.fairshare_tres[k] ? p.fairshare_tres[k] : "");
    fairway::AssocTree& t = out.trees.emplace_back(tree);
    std::vector<long double>& direct = out.direct.emplace_back();
    if (held) {
      direct = fairway::held_direct(
          tree, basis,
          fairway::to_running_jobs(p.fairshare_tres_running[k], p.fairshare_tres_running_count[k]));
      fairway::hold_usage(t, direct);
    } else {
      for (uint32_t i = 0; i < n; i++) t.set_usage(i, p.fairshare_tres_usage[k * n + i]);
      direct = fairway::direct_usage(t);
    }
    fairway::compute_fair_share(t, algo, p.dampening, out.results.emplace_back());
  }
  return out;
}

// The forecast's window after this period's starts: the journal's recent starts read once
// (after a restart or a takeover the window is whole at once), then each period's added.  A
// journal that cannot be read leaves the window to fill from the starts seen from now on.
fairway::ForecastModel forecast_after(fairway_publisher& pub, const char* history_dir,
                                      const std::vector<fairway::StartRecord>& starts,
                                      int64_t now) {
  if (!pub.samples_read) {
    pub.samples_read = true;
    try {
      for (const fairway::StartRecord& r :
           fairway::read_starts(history_dir, now - fairway::kForecastDays * 86400))
        if (auto s = fairway::wait_sample(r)) pub.samples.push_back(std::move(*s));
    } catch (const fairway::Error&) {
      pub.samples.clear();
    }
  }
  for (const fairway::StartRecord& r : starts)
    if (auto s = fairway::wait_sample(r)) pub.samples.push_back(std::move(*s));
  fairway::trim_samples(pub.samples, now);
  return fairway::forecast_model(pub.samples, now);
}

}  // namespace

extern "C" fairway_error_t fairway_publisher_new(fairway_publisher_t** out) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_publisher_new: NULL out");
    *out = new fairway_publisher;
  });
}

extern "C" void fairway_publisher_destroy(fairway_publisher_t** pub) {
  if (!pub || !*pub) return;
  fairway::lanes_free(**pub);
  delete *pub;
  *pub = nullptr;
}

extern "C" fairway_error_t fairway_publish(fairway_publisher_t* pub, const fairway_publication_t* p,
                                           fairway_message_fn say, void* arg) {
  return fairway::guard([&] {
    if (!p) fairway::invalid("fairway_publish: NULL publication");
    if (!p->assocs && p->assoc_count) fairway::invalid("fairway_publish: NULL associations");
    if (!p->rows && p->row_count) fairway::invalid("fairway_publish: NULL pending rows");
    int raw_algo;  // the bytes, not a typed load of the enum (see to_algorithm)
    static_assert(sizeof raw_algo == sizeof p->algo);
    std::memcpy(&raw_algo, &p->algo, sizeof raw_algo);
    const fairway::Algorithm algo = fairway::to_algorithm(raw_algo);

    const fairway::UsageBasis basis = fairway::to_usage_basis(p->usage_basis);
    const bool held = basis != fairway::UsageBasis::kHistorical;

    fairway::MetricsInput in;
    const fairway::AssocTree tree =
        fairway::AssocTree::build(fairway::to_records(p->assocs, p->assoc_count));
    // Under a held usage basis fair-share compares what the running jobs held (as the period
    // did); `tree` keeps the historical usage (sshare's RawUsage).
    std::vector<long double> held_direct;
    std::optional<fairway::AssocTree> held_tree;
    if (held) {
      held_direct =
          fairway::held_direct(tree, basis, fairway::to_running_jobs(p->running, p->running_count));
      held_tree.emplace(tree);
      fairway::hold_usage(*held_tree, held_direct);
    }
    const fairway::AssocTree& compared = held ? *held_tree : tree;
    fairway::FairShareResult result;
    fairway::compute_fair_share(compared, algo, p->dampening, result);
    // fairway_fairshare_tres: a tree per listed TRES with its usage (as the period computed
    // it), its values, and its direct usage for the snapshot.
    const TresTrees tres = tres_trees(*p, tree, basis, algo);
    in.tree = &tree;
    in.compared = &compared;
    in.usage_basis = basis;
    in.result = &result;
    in.algorithm = algo;
    in.dampening_factor = p->dampening;
    in.sibling_order =
        p->lineage_order ? fairway::SiblingOrder::kLineage : fairway::SiblingOrder::kUsersThenName;
    in.version = fairway_version();
    in.slurm_release = p->slurm_release ? p->slurm_release : "";
    in.decay_exact = p->decay_exact != 0;
    in.user_samples = fairway::publish_user_samples(hidden(p->private_data), p->publish_users != 0);
    for (size_t k = 0; k < tres.names.size(); k++)
      in.fairshare_tres.push_back({tres.names[k], &tres.trees[k], &tres.results[k]});
    in.partitions = names(p->partitions, p->partition_count, "partition names");
    in.qos = names(p->qos, p->qos_count, "QOS names");
    std::vector<fairway::PendingRow> rows(p->row_count);
    std::vector<fairway::PendingJobNote> jobs;
    // The order and the jobs pending now serve only the journal of starts (with the history).
    const bool starts_kept = pub && p->history_dir && p->history_days;
    std::vector<fairway::OrderRow> order_rows(starts_kept ? p->row_count : 0);
    std::unordered_set<uint32_t> pending_now;
    for (size_t i = 0; i < p->row_count; i++) {
      const fairway_pending_row_t& r = p->rows[i];
      rows[i] = {r.partition, r.qos == UINT32_MAX ? fairway::kNoQos : r.qos, r.priority,
                 r.submit_time, r.first != 0};
      if (starts_kept) order_rows[i] = {r.partition, r.job_id, r.priority, r.submit_time};
      if (r.first) {
        jobs.push_back({r.assoc_id, r.job_id, r.eligible_time});
        if (starts_kept) pending_now.insert(r.job_id);
      }
    }
    if (!p->started && p->started_count) fairway::invalid("fairway_publish: NULL started jobs");
    std::vector<fairway::StartRecord> starts;
    for (size_t i = 0; i < p->started_count && starts_kept; i++) {
      const fairway_started_job_t& s = p->started[i];
      fairway::StartedJob j;
      j.job_id = s.job_id;
      j.user = s.user ? s.user : "";
      j.account = s.account ? s.account : "";
      j.partition = s.partition ? s.partition : "";
      j.submit_time = s.submit_time;
      j.start_time = s.start_time;
      j.priority = s.priority;
      j.has_factors = s.has_factors != 0;
      for (fairway::Factor f : fairway::kFactors)
        if (f != fairway::Factor::kTres) j.factors[f] = s.factors[static_cast<size_t>(f)];
      starts.push_back(fairway::explain_start(j, pub->last, pending_now, &pub->first));
    }
    const std::vector<std::pair<int64_t, uint32_t>> oldest = fairway::oldest_pending(tree, jobs);
    in.oldest_pending = fairway::oldest_waits(oldest, p->period_end);
    std::optional<fairway::ForecastModel> forecast;
    std::optional<fairway::PeriodOrder> order;
    std::vector<fairway::LineForecast> line_forecast;
    if (starts_kept) {
      forecast = forecast_after(*pub, p->history_dir, starts, p->period_end);
      order = fairway::period_order(order_rows, in.partitions, p->period_end);
      line_forecast = fairway::line_forecasts(*forecast, *order);
      in.forecast = &*forecast;
      in.line_forecast = &line_forecast;
      in.oldest_forecast = fairway::oldest_forecasts(*forecast, *order, oldest);
    }
    fairway::StarvationSettings ss;
    ss.minutes = p->starvation_minutes;
    ss.quantile =
        p->starvation_quantile > 0 && p->starvation_quantile <= 1 ? p->starvation_quantile : 0.75;
    if (ss.minutes) {
      // A job first in line that waits only for resources is served next: not starved.
      std::vector<fairway::LineRow> line(p->row_count);
      for (size_t i = 0; i < p->row_count; i++) {
        const fairway_pending_row_t& r = p->rows[i];
        line[i] = {r.partition,   r.job_id,        r.priority,
                   r.submit_time, r.eligible_time, r.waits_for_resources != 0};
      }
      const std::vector<uint32_t> next =
          fairway::next_for_resources(line, in.partitions.size(), p->period_end);
      for (fairway::PendingJobNote& j : jobs)
        j.next_for_resources = std::binary_search(next.begin(), next.end(), j.job_id);
    }
    const fairway::StarvationReport starvation =
        ss.minutes ? fairway::find_starved(jobs, compared, result, p->period_end, ss)
                   : fairway::StarvationReport{};
    if (ss.minutes) {
      in.starvation = &starvation;
      in.starvation_minutes = ss.minutes;
    }
    in.pending = fairway::pending_stats(rows, in.partitions.size(), in.qos.size(), p->period_end);
    in.period_end = p->period_end;
    in.period_seconds = p->period_seconds;
    in.job_lock_seconds = p->job_lock_seconds;
    in.jobs_weighed = p->jobs_weighed;

    // Episodes first: the log tells them even while the files cannot be written.
    report_episodes(pub, tree, starvation, ss.quantile, p->period_end, say, arg);
    if (p->directory) {
      const std::string dir = p->directory;
      fairway::Snapshot snap = fairway::snapshot_from_tree(tree, algo, p->dampening);
      snap.usage_basis = basis;
      snap.held = held_direct;
      snap.fairshare_tres = tres.names;
      snap.tres_usage = tres.direct;
      std::optional<fairway::WhatIf> shadow;
      if (p->jobs) {
        snap.slurm_release = in.slurm_release;
        snap.queue = fairway::published_queue(*p, tree, in.partitions, in.qos, nullptr);
        if (p->shadow_file && *p->shadow_file) {
          shadow = weigh_shadow(pub, p->shadow_file, *snap.queue,
                                fairway::snapshot_fair_share_input(snap), say, arg);
          in.shadow_on = true;
          in.shadow = shadow ? &*shadow : nullptr;
        }
      }
      fairway::write_file_atomically(dir + "/fairway.prom", fairway::format_metrics(in),
                                     {.mode = 0644, .durable = false});
      fairway::write_file_atomically(dir + "/fairway.json", fairway::write_snapshot(snap),
                                     {.mode = 0600, .durable = false});
      if (forecast)
        fairway::write_file_atomically(dir + "/" + fairway::kForecastFile,
                                       fairway::forecast_model_json(*forecast),
                                       {.mode = 0644, .durable = false});
      if (shadow)
        fairway::write_file_atomically(
            dir + "/fairway_shadow.json",
            fairway::format_shadow_json(*shadow, p->shadow_file, p->period_end, kShadowTopMovers),
            {.mode = 0600, .durable = false});
    }
    if (p->history_dir && p->history_days) {
      fairway::HistoryPeriod period;
      std::vector<fairway::HistoryName> names;
      period.time = p->period_end;
      period.records.reserve(tree.size());
      names.reserve(tree.size());
      // Delivered: the share of the usage fair-share compared (held, under a held basis).
      const long double root = compared.usage_raw(compared.root());
      for (uint32_t i = 0; i < tree.size(); i++) {
        fairway::HistoryRecord r;
        r.id = tree.id(i);
        r.usage_raw = static_cast<double>(tree.usage_raw(i));
        r.delivered = root > 0 ? static_cast<float>(compared.usage_raw(i) / root) : 0.0f;
        r.entitled = static_cast<float>(tree.shares_norm_classic(i));
        r.fs_factor = static_cast<float>(result.fs_factor[i]);
        period.records.push_back(r);
        names.push_back({tree.id(i), std::string(tree.account(i)), std::string(tree.user(i))});
      }
      fairway::append_history(p->history_dir, period, names, p->history_days);
      fairway::append_starts(p->history_dir, p->period_end, starts, p->history_days);
    }
    if (order) {
      pub->last = std::move(*order);
      fairway::note_first_places(pub->last, pub->first);
    }
  });
}

extern "C" fairway_error_t fairway_options_parse(const char* text, fairway_options_t* out,
                                                 fairway_message_fn say, void* arg) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_options_parse: NULL out");
    std::memset(out, 0, sizeof *out);
    std::vector<std::string> problems;
    const fairway::PluginOptions o = fairway::parse_priority_parameters(text ? text : "", problems);
    static_assert(fairway::kMaxOptionPath < sizeof out->metrics_dir);
    std::memcpy(out->metrics_dir, o.metrics_dir.data(), o.metrics_dir.size());
    out->history_days = o.history_days;
    out->starvation_minutes = o.starvation_minutes;
    out->starvation_quantile = o.starvation_quantile;
    static_assert(fairway::kMaxOptionPath < sizeof out->shadow_file);
    std::memcpy(out->shadow_file, o.shadow_file.data(), o.shadow_file.size());
    out->queue_jobs = o.queue_jobs;
    out->decay_exact = o.decay_exact ? 1 : 0;
    out->usage_basis = fairway::from_usage_basis(o.usage_basis);
    out->rerank_interval = o.rerank_interval;
    static_assert(fairway::kMaxWeighThreads == FAIRWAY_MAX_WEIGH_THREADS);
    out->weigh_threads = o.weigh_threads;
    out->publish_users = o.publish_users ? 1 : 0;
    static_assert(fairway::kMaxFairShareTres == FAIRWAY_MAX_FAIRSHARE_TRES);
    static_assert(fairway::kMaxFairShareTresName < sizeof out->fairshare_tres[0]);
    for (const std::string& t : o.fairshare_tres)
      std::memcpy(out->fairshare_tres[out->fairshare_tres_count++], t.data(), t.size());
    if (say)
      for (const std::string& m : problems) say(m.c_str(), arg);
  });
}

extern "C" fairway_error_t fairway_publish_settings_from_options(const fairway_options_t* o,
                                                                 const char** names,
                                                                 fairway_publish_settings_t* s) {
  return fairway::guard([&] {
    if (!o || !names || !s)
      fairway::invalid("fairway_publish_settings_from_options: NULL argument");
    if (o->fairshare_tres_count > FAIRWAY_MAX_FAIRSHARE_TRES)
      fairway::invalid("fairway_publish_settings_from_options: too many fairway_fairshare_tres");
    s->metrics_dir = o->metrics_dir[0] ? o->metrics_dir : nullptr;
    s->history_days = o->history_days;
    s->starvation_minutes = o->starvation_minutes;
    s->queue_jobs = o->queue_jobs;
    for (uint32_t k = 0; k < o->fairshare_tres_count; k++) names[k] = o->fairshare_tres[k];
    s->fairshare_tres = names;
    s->fairshare_tres_count = o->fairshare_tres_count;
  });
}

extern "C" fairway_error_t fairway_publication_from_options(const fairway_options_t* o,
                                                            fairway_publication_t* p) {
  return fairway::guard([&] {
    if (!o || !p) fairway::invalid("fairway_publication_from_options: NULL argument");
    p->directory = o->metrics_dir[0] ? o->metrics_dir : nullptr;
    p->history_days = o->history_days;
    p->starvation_minutes = o->starvation_minutes;
    p->starvation_quantile = o->starvation_quantile;
    p->shadow_file = o->shadow_file[0] ? o->shadow_file : nullptr;
    p->decay_exact = o->decay_exact;
    p->usage_basis = o->usage_basis;
    p->publish_users = o->publish_users;
  });
}

extern "C" int fairway_private_data_tell(const fairway_options_t* o, uint32_t private_data,
                                         fairway_message_fn say, void* arg) {
  if (!o) return 1;
  int out = 1;
  (void)fairway::guard([&] {
    const fairway::PrivateData h = hidden(private_data);
    out = fairway::publish_user_samples(h, o->publish_users != 0) ? 1 : 0;
    const auto line = fairway::private_data_line(h, o->publish_users != 0, o->metrics_dir[0]);
    if (line && say) say(line->c_str(), arg);
  });
  return out;
}
