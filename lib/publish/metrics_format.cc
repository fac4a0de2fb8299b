// metrics_format.cc - see metrics_format.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "metrics_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sshare_format.h"

namespace fairway {

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string metric_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

namespace {

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void sample(std::string& out, std::string_view name, std::string_view labels, double v) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += metric_value(v);
  out += '\n';
}

std::string label(std::string_view key, std::string_view value) {
  return fmt::format("{}=\"{}\"", key, escape_label_value(value));
}

// Entitled share: the product of the shares of each level down the path, a Fairshare=parent
// association taking its parent's (the tree's classic normalized shares).  Delivered share: the
// association's raw usage over the root's.  Their ratio: 1 is served as entitled, below 1 less.
// NaN when neither has anything, +Inf for usage without shares.
double delivered_over_entitled(const AssocTree& t, uint32_t i) {
  const long double root = t.usage_raw(t.root());
  const double delivered = root > 0 ? static_cast<double>(t.usage_raw(i) / root) : 0.0;
  const double entitled = t.shares_norm_classic(i);
  if (entitled <= 0) return delivered > 0 ? INFINITY : NAN;
  return delivered / entitled;
}

void pending_families(std::string& out, std::string_view what, std::string_view key,
                      const std::vector<std::string>& names,
                      const std::vector<PendingFigures>& figures) {
  const std::string jobs = fmt::format("fairway_{}_pending_jobs", what);
  const std::string prio = fmt::format("fairway_{}_pending_priority", what);
  const std::string oldest = fmt::format("fairway_{}_oldest_pending_seconds", what);
  std::vector<std::string> labels;
  for (const std::string& n : names) labels.push_back(label(key, n));
  family(out, jobs, "gauge",
         fmt::format("Pending jobs Fairway weighed in the period, per {}.",
                     what == "qos" ? "QOS" : what));
  for (size_t i = 0; i < names.size() && i < figures.size(); i++)
    sample(out, jobs, labels[i], static_cast<double>(figures[i].jobs));
  family(out, prio, "summary",
         fmt::format("Priorities of the pending jobs per {} (quantiles by nearest rank).",
                     what == "qos" ? "QOS" : what));
  for (size_t i = 0; i < names.size() && i < figures.size(); i++) {
    const PendingFigures& f = figures[i];
    for (size_t k = 0; k < kPriorityQuantiles.size(); k++)
      sample(out, prio, labels[i] + "," + label("quantile", metric_value(kPriorityQuantiles[k])),
             f.jobs ? static_cast<double>(f.quantiles[k]) : NAN);
    sample(out, prio + "_sum", labels[i], f.priority_sum);
    sample(out, prio + "_count", labels[i], static_cast<double>(f.jobs));
  }
  family(out, oldest, "gauge",
         fmt::format("Seconds since the submission of the oldest pending job, per {}.",
                     what == "qos" ? "QOS" : what));
  for (size_t i = 0; i < names.size() && i < figures.size(); i++)
    sample(out, oldest, labels[i], static_cast<double>(figures[i].oldest_wait));
}

// One sample per association of `values` (tree index, value) that has a row: by_index holds
// each row's labels by tree index, nullptr for an association without a row (a user's,
// without user samples).
void association_samples(std::string& out, std::string_view name,
                         const std::vector<const std::string*>& by_index,
                         const std::vector<std::pair<uint32_t, double>>& values) {
  for (const auto& [i, v] : values)
    if (i < by_index.size() && by_index[i]) sample(out, name, *by_index[i], v);
}

// The forecast (doc/forecast.md): per partition at the head of the line and at its median
// place, the jobs without an estimate; per association its oldest pending job's.
void forecast_families(std::string& out, const MetricsInput& in,
                       const std::vector<const std::string*>& by_index) {
  const std::vector<LineForecast>& lf = *in.line_forecast;
  family(out, "fairway_partition_forecast_seconds_per_place", "gauge",
         "Seconds per place ahead in line that the recent starts per partition waited from the "
         "period that first weighed them: 10th, 50th and 90th percentile (the forecast's model; "
         "partitions with enough recent starts).");
  for (const PartitionForecast& p : in.forecast->partitions) {
    if (!p.usable()) continue;
    const std::string l = label("partition", p.partition);
    // A gauge: promtool keeps the label "quantile" for summaries.
    sample(out, "fairway_partition_forecast_seconds_per_place", l + "," + label("percentile", "10"),
           p.per_place_p10);
    sample(out, "fairway_partition_forecast_seconds_per_place", l + "," + label("percentile", "50"),
           p.per_place_p50);
    sample(out, "fairway_partition_forecast_seconds_per_place", l + "," + label("percentile", "90"),
           p.per_place_p90);
  }
  family(out, "fairway_partition_forecast_starts", "gauge",
         "Recent starts per partition the forecast's model holds (the last 200 of 7 days).");
  for (const PartitionForecast& p : in.forecast->partitions)
    sample(out, "fairway_partition_forecast_starts", label("partition", p.partition), p.starts);
  family(out, "fairway_partition_forecast_head_seconds", "gauge",
         "Forecast wait of the job first in line per partition: the median seconds per place "
         "the recent starts there waited (partitions with enough recent starts and a job "
         "pending).");
  for (size_t i = 0; i < in.partitions.size() && i < lf.size(); i++)
    if (lf[i].head)
      sample(out, "fairway_partition_forecast_head_seconds", label("partition", in.partitions[i]),
             *lf[i].head);
  family(out, "fairway_partition_forecast_median_place_seconds", "gauge",
         "Forecast wait of the job at the median place of the line, per partition.");
  for (size_t i = 0; i < in.partitions.size() && i < lf.size(); i++)
    if (lf[i].median_place)
      sample(out, "fairway_partition_forecast_median_place_seconds",
             label("partition", in.partitions[i]), *lf[i].median_place);
  family(out, "fairway_partition_jobs_without_forecast", "gauge",
         "Pending jobs per partition with no forecast: too few jobs started there recently.");
  for (size_t i = 0; i < in.partitions.size() && i < lf.size(); i++)
    sample(out, "fairway_partition_jobs_without_forecast", label("partition", in.partitions[i]),
           static_cast<double>(lf[i].without_estimate));
  family(out, "fairway_association_oldest_pending_forecast_seconds", "gauge",
         "Forecast wait of the association's oldest eligible pending job (its users' jobs "
         "included), where its partition has enough recent starts.");
  association_samples(out, "fairway_association_oldest_pending_forecast_seconds", by_index,
                      in.oldest_forecast);
}

}  // namespace

std::string format_metrics(const MetricsInput& in) {
  if (!in.tree || !in.result) throw std::invalid_argument("metrics: no association tree");
  const AssocTree& t = *in.tree;
  SshareOptions opt;
  opt.dampening_factor = in.dampening_factor;
  opt.sibling_order = in.sibling_order;
  std::vector<SshareRow> rows = sshare_rows(t, *in.result, in.algorithm, opt);
  if (!in.user_samples)
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const SshareRow& r) { return t.is_user(r.index); }),
               rows.end());

  std::string out;
  out.reserve(512 + rows.size() * 7 * 110);
  family(
      out, "fairway_info", "gauge",
      "Fairway's version, the Slurm release, the fair-share algorithm, how usage decays "
      "(slurm: as multifactor, exact: fairway_decay=exact) and what usage fair-share compares "
      "(historical, or fairway_usage=allocated or committed) and the TRES whose usage judges "
      "the jobs asking mostly for them (fairway_fairshare_tres, comma-separated; no label: none) "
      "(always 1).");
  std::string tres_list;
  for (const auto& x : in.fairshare_tres) tres_list += (tres_list.empty() ? "" : ",") + x.name;
  sample(out, "fairway_info",
         label("version", in.version) + "," + label("slurm_release", in.slurm_release) + "," +
             label("algorithm", algorithm_name(in.algorithm)) + "," +
             label("decay", in.decay_exact ? "exact" : "slurm") + "," +
             label("usage", usage_basis_name(in.usage_basis)) +
             (tres_list.empty() ? "" : "," + label("fairshare_tres", tres_list)),
         1);

  std::vector<std::string> labels;
  labels.reserve(rows.size());
  for (const SshareRow& r : rows) {
    const uint32_t i = r.index;
    const std::string parent = i == t.root() ? std::string() : std::string(t.account(t.parent(i)));
    labels.push_back(label("id", std::to_string(t.id(i))) + "," + label("account", r.account) +
                     "," + label("user", r.user) + "," + label("parent", parent));
  }
  // Each row's labels by tree index; nullptr for an association without a row.
  std::vector<const std::string*> by_index(t.size(), nullptr);
  for (size_t k = 0; k < rows.size(); k++) by_index[rows[k].index] = &labels[k];
  struct Column {
    const char* name;
    const char* help;
    std::optional<double> SshareRow::*value;
  };
  const Column columns[] = {
      {"fairway_association_shares_normalized",
       "Normalized shares (sshare NormShares): Fair Tree within the parent, classic down the path.",
       &SshareRow::norm_shares},
      {"fairway_association_usage_normalized", "Normalized usage (sshare NormUsage).",
       &SshareRow::norm_usage},
      {"fairway_association_usage_effective", "Effective usage (sshare EffectvUsage).",
       &SshareRow::effective_usage},
      {"fairway_association_level_fs", "Fair Tree's Level FS (sshare LevelFS); +Inf without usage.",
       &SshareRow::level_fs},
      {"fairway_association_fairshare_factor", "Fair-share factor (sshare FairShare), 0 to 1.",
       &SshareRow::fairshare},
  };
  family(out, "fairway_association_shares_raw", "gauge",
         "Raw shares (sshare RawShares); no sample for Fairshare=parent.");
  for (size_t k = 0; k < rows.size(); k++)
    if (rows[k].raw_shares)
      sample(out, "fairway_association_shares_raw", labels[k], *rows[k].raw_shares);
  family(out, "fairway_association_usage_raw", "gauge",
         "Raw usage, decayed billing-TRES-seconds (sshare RawUsage, unrounded).");
  for (size_t k = 0; k < rows.size(); k++)
    sample(out, "fairway_association_usage_raw", labels[k],
           static_cast<double>(t.usage_raw(rows[k].index)));
  for (const Column& c : columns) {
    family(out, c.name, "gauge", c.help);
    for (size_t k = 0; k < rows.size(); k++)
      if (rows[k].*c.value) sample(out, c.name, labels[k], *(rows[k].*c.value));
  }
  family(out, "fairway_association_delivered_entitled_ratio", "gauge",
         "Share of all usage this association received over the share of the cluster its shares "
         "entitle it to (1: as entitled, below 1: less).");
  for (size_t k = 0; k < rows.size(); k++)
    sample(out, "fairway_association_delivered_entitled_ratio", labels[k],
           delivered_over_entitled(in.compared ? *in.compared : t, rows[k].index));

  // Associations with an eligible job pending: how long the oldest has been eligible.
  family(out, "fairway_association_oldest_pending_seconds", "gauge",
         "Seconds since the association's oldest eligible pending job became eligible (its "
         "descendants' jobs included); associations with eligible jobs pending.");
  association_samples(out, "fairway_association_oldest_pending_seconds", by_index,
                      in.oldest_pending);

  // fairway_fairshare_tres: each listed TRES's usage and factor, in the same rows.
  if (!in.fairshare_tres.empty()) {
    for (const auto& x : in.fairshare_tres)
      if (!x.compared || !x.result || x.compared->size() != t.size() ||
          x.result->fs_factor.size() != t.size())
        throw std::invalid_argument("metrics: the tree of " + x.name + " does not match");
    family(out, "fairway_association_tres_usage_raw", "gauge",
           "Raw usage of a TRES listed in fairway_fairshare_tres (decayed TRES-seconds; under "
           "fairway_usage what running jobs hold of it), the usage compared for the jobs "
           "asking mostly for it.");
    for (const auto& x : in.fairshare_tres)
      for (size_t k = 0; k < rows.size(); k++)
        sample(out, "fairway_association_tres_usage_raw", labels[k] + "," + label("tres", x.name),
               static_cast<double>(x.compared->usage_raw(rows[k].index)));
    family(out, "fairway_association_tres_fairshare_factor", "gauge",
           "Fair-share factor from the usage of a TRES listed in fairway_fairshare_tres, 0 to 1: "
           "the factor of the association's jobs asking mostly for it.");
    for (const auto& x : in.fairshare_tres)
      for (size_t k = 0; k < rows.size(); k++)
        if (rows[k].fairshare)  // where sshare shows billing's
          sample(out, "fairway_association_tres_fairshare_factor",
                 labels[k] + "," + label("tres", x.name), x.result->fs_factor[rows[k].index]);
  }

  if (in.starvation) {
    std::vector<uint8_t> starved(t.size(), 0);
    for (const Starved& s : in.starvation->starved) starved[s.index] = 1;
    family(out, "fairway_association_starved", "gauge",
           fmt::format("1 when the association's oldest eligible pending job has waited {} "
                       "minutes or more while its fair-share factor is among the highest "
                       "(fairway_starvation_*), else 0; associations with eligible jobs pending.",
                       in.starvation_minutes));
    for (uint32_t i : in.starvation->with_pending)
      if (in.user_samples || !t.is_user(i))
        sample(out, "fairway_association_starved", by_index[i] ? *by_index[i] : std::string(),
               starved[i]);
    family(out, "fairway_starvation_factor_threshold", "gauge",
           "The fair-share factor from which a waiting association counts as starved.");
    sample(out, "fairway_starvation_factor_threshold", "", in.starvation->threshold);
  }

  if (in.shadow_on) {
    family(out, "fairway_shadow_weighed", "gauge",
           "1 when the last period weighed the queue under the shadow policy (fairway_shadow), "
           "0 when it could not (the log says why).");
    sample(out, "fairway_shadow_weighed", "", in.shadow ? 1 : 0);
  }
  if (in.shadow) {
    family(out, "fairway_shadow_jobs_moved", "gauge",
           "Pending jobs per partition that would change place under the shadow policy.");
    for (const PartitionMoves& m : in.shadow->partitions)
      sample(out, "fairway_shadow_jobs_moved", label("partition", m.partition),
             static_cast<double>(m.moved));
    family(out, "fairway_shadow_rank_correlation", "gauge",
           "Spearman rank correlation per partition of the live order and the shadow policy's "
           "(1: the same order).");
    for (const PartitionMoves& m : in.shadow->partitions)
      sample(out, "fairway_shadow_rank_correlation", label("partition", m.partition), m.spearman);
    family(out, "fairway_shadow_fairshare_factor_change", "gauge",
           "Change of the fair-share factor under the shadow policy, for the associations whose "
           "factor changes (an account: the highest of its users').");
    for (const AssocChange& a : in.shadow->associations)
      if (in.user_samples || a.user.empty())
        sample(out, "fairway_shadow_fairshare_factor_change",
               label("account", a.account) + "," + label("user", a.user), a.after - a.before);
  }

  pending_families(out, "partition", "partition", in.partitions, in.pending.partitions);
  pending_families(out, "qos", "qos", in.qos, in.pending.qos);
  if (in.forecast && in.line_forecast) forecast_families(out, in, by_index);

  family(out, "fairway_associations", "gauge", "Associations in the tree.");
  sample(out, "fairway_associations", "", static_cast<double>(t.size()));
  family(out, "fairway_period_end_timestamp_seconds", "gauge",
         "When the last period ended (Unix time).");
  sample(out, "fairway_period_end_timestamp_seconds", "", static_cast<double>(in.period_end));
  family(out, "fairway_period_duration_seconds", "gauge", "Wall time of the last period.");
  sample(out, "fairway_period_duration_seconds", "", in.period_seconds);
  family(out, "fairway_period_job_lock_seconds", "gauge",
         "Time the last period held slurmctld's job write lock.");
  sample(out, "fairway_period_job_lock_seconds", "", in.job_lock_seconds);
  family(out, "fairway_period_jobs_weighed", "gauge", "Pending jobs the last period weighed.");
  sample(out, "fairway_period_jobs_weighed", "", static_cast<double>(in.jobs_weighed));
  return out;
}

}  // namespace fairway
