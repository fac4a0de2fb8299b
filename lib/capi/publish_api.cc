// publish_api.cc - fairway_publish(): the metrics file and the per-period snapshot, written
// from what the plugin copied under slurmctld's locks; fairway_options_parse(): the options
// that turn them on (fairway.h).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "api_guard.h"
#include "assoc_tree.h"
#include "atomic_file.h"
#include "capi_types.h"
#include "fair_share.h"
#include "history.h"
#include "fairway.h"
#include "metrics_format.h"
#include "pending_stats.h"
#include "plugin_options.h"
#include "snapshot.h"

namespace {

std::vector<std::string> names(const char* const* v, size_t n, const char* what) {
  if (!v && n) fairway::invalid(std::string("fairway_publish: NULL ") + what);
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; i++) out.emplace_back(v[i] ? v[i] : "");
  return out;
}

}  // namespace

extern "C" fairway_error_t fairway_publish(const fairway_publication_t* p) {
  return fairway::guard([&] {
    if (!p) fairway::invalid("fairway_publish: NULL publication");
    if (!p->assocs && p->assoc_count) fairway::invalid("fairway_publish: NULL associations");
    if (!p->rows && p->row_count) fairway::invalid("fairway_publish: NULL pending rows");
    int raw_algo;  // the bytes, not a typed load of the enum (see to_algorithm)
    static_assert(sizeof raw_algo == sizeof p->algo);
    std::memcpy(&raw_algo, &p->algo, sizeof raw_algo);
    const fairway::Algorithm algo = fairway::to_algorithm(raw_algo);

    fairway::MetricsInput in;
    const fairway::AssocTree tree =
        fairway::AssocTree::build(fairway::to_records(p->assocs, p->assoc_count));
    fairway::FairShareResult result;
    fairway::compute_fair_share(tree, algo, p->dampening, result);
    in.tree = &tree;
    in.result = &result;
    in.algorithm = algo;
    in.dampening_factor = p->dampening;
    in.sibling_order = p->lineage_order ? fairway::SiblingOrder::kLineage
                                        : fairway::SiblingOrder::kUsersThenName;
    in.version = fairway_version();
    in.slurm_release = p->slurm_release ? p->slurm_release : "";
    in.partitions = names(p->partitions, p->partition_count, "partition names");
    in.qos = names(p->qos, p->qos_count, "QOS names");
    std::vector<fairway::PendingRow> rows(p->row_count);
    for (size_t i = 0; i < p->row_count; i++) {
      const fairway_pending_row_t& r = p->rows[i];
      rows[i] = {r.partition, r.qos == UINT32_MAX ? fairway::kNoQos : r.qos, r.priority,
                 r.submit_time, r.first != 0};
    }
    in.pending = fairway::pending_stats(rows, in.partitions.size(), in.qos.size(), p->period_end);
    in.period_end = p->period_end;
    in.period_seconds = p->period_seconds;
    in.job_lock_seconds = p->job_lock_seconds;
    in.jobs_weighed = p->jobs_weighed;

    if (p->directory) {
      const std::string dir = p->directory;
      fairway::write_file_atomically(dir + "/fairway.prom", fairway::format_metrics(in),
                                     {.mode = 0644, .durable = false});
      fairway::Snapshot snap = fairway::snapshot_from_tree(tree, algo, p->dampening);
      fairway::write_file_atomically(dir + "/fairway.json", fairway::write_snapshot(snap),
                                     {.mode = 0600, .durable = false});
    }
    if (p->history_dir && p->history_days) {
      fairway::HistoryPeriod period;
      std::vector<fairway::HistoryName> names;
      period.time = p->period_end;
      period.records.reserve(tree.size());
      names.reserve(tree.size());
      const long double root = tree.usage_raw(tree.root());
      for (uint32_t i = 0; i < tree.size(); i++) {
        fairway::HistoryRecord r;
        r.id = tree.id(i);
        r.usage_raw = static_cast<double>(tree.usage_raw(i));
        r.delivered = root > 0 ? static_cast<float>(tree.usage_raw(i) / root) : 0.0f;
        r.entitled = static_cast<float>(tree.shares_norm_classic(i));
        r.fs_factor = static_cast<float>(result.fs_factor[i]);
        period.records.push_back(r);
        names.push_back({tree.id(i), std::string(tree.account(i)), std::string(tree.user(i))});
      }
      fairway::append_history(p->history_dir, period, names, p->history_days);
    }
  });
}

extern "C" fairway_error_t fairway_options_parse(const char* text, fairway_options_t* out,
                                                 fairway_message_fn say, void* arg) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_options_parse: NULL out");
    std::memset(out, 0, sizeof *out);
    std::vector<std::string> problems;
    const fairway::PluginOptions o =
        fairway::parse_priority_parameters(text ? text : "", problems);
    static_assert(fairway::kMaxOptionPath < sizeof out->metrics_dir);
    std::memcpy(out->metrics_dir, o.metrics_dir.data(), o.metrics_dir.size());
    out->history_days = o.history_days;
    if (say)
      for (const std::string& m : problems) say(m.c_str(), arg);
  });
}
