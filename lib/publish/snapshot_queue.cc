// A snapshot's pending queue (version 2, see snapshot.h): the priority settings, partitions,
// QOS and pending jobs.
#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <utility>

#include "conf_values.h"
#include "json_fields.h"
#include "slurm_values.h"

namespace fairway::json_fields {
namespace {

std::string at(const std::string& where, const char* key) {
  return fmt::format("{}: \"{}\"", where, key);
}

uint32_t get_u32(const json& obj, const char* key, const std::string& where) {
  return static_cast<uint32_t>(get_uint(require(obj, key, where), 0, UINT32_MAX, at(where, key)));
}

time_t get_time(const json& obj, const char* key, const std::string& where) {
  return static_cast<time_t>(
      get_int(require(obj, key, where), 0, INT64_C(1) << 40, at(where, key)));
}

// Refuses a key of a "weights" (with_unweighted false) or "factors" object that names no
// factor there (kTres is never one: the TRES have objects of their own).
void reject_unknown_factors(const json& obj, bool with_unweighted, const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (Factor f : kFactors)
      ok = ok ||
           (f != Factor::kTres && (with_unweighted || has_weight(f)) && it.key() == factor_name(f));
    if (!ok) error(fmt::format("{}: unknown key {}", where, quoted(it.key())));
  }
}

// {"NAME": number, ...} in file order.
template <typename T, typename Get>
std::vector<std::pair<std::string, T>> get_map(const json& v, const std::string& what, Get get) {
  require_object(v, what);
  std::vector<std::pair<std::string, T>> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string name = get_name(json(it.key()), what + " key");
    out.emplace_back(name, get(it.value(), fmt::format("{}: {}", what, json_fields::quoted(name))));
  }
  return out;
}

PrioritySettings parse_settings(const json& p) {
  const std::string where = "\"priority\"";
  require_object(p, where);
  reject_unknown_keys(p,
                      {"weights", "tres_weights", "flags", "max_age", "favor_small",
                       "decay_half_life", "calc_period", "decay"},
                      where);
  PrioritySettings s;
  const std::string ww = where + ": \"weights\"";
  const json& w = require_object(require(p, "weights", where), ww);
  reject_unknown_factors(w, false, ww);
  for (Factor f : kFactors)
    if (has_weight(f)) s.weight[f] = get_u32(w, factor_name(f), ww);
  s.weight_tres =
      get_map<double>(require(p, "tres_weights", where), at(where, "tres_weights"), get_double);
  const json& flags = require_array(require(p, "flags", where), at(where, "flags"));
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string what = fmt::format("{}: \"flags\"[{}]", where, i);
    const std::string name = get_name(flags[i], what);
    const uint32_t bit = priority_flag_bit(name);
    s.flags |= bit;
    if (!bit) error(fmt::format("{}: unknown PriorityFlag {}", what, json_fields::quoted(name)));
  }
  s.max_age = get_u32(p, "max_age", where);
  s.favor_small = get_bool(require(p, "favor_small", where), at(where, "favor_small"));
  s.decay_half_life = get_u32(p, "decay_half_life", where);
  s.calc_period = get_u32(p, "calc_period", where);
  if (p.contains("decay")) {
    const std::string d = get_name(p.at("decay"), at(where, "decay"));
    if (d != "exact" && d != "slurm")
      error(fmt::format("{}: \"decay\" is {}, not \"slurm\" or \"exact\"", where,
                        json_fields::quoted(d)));
    s.decay_exact = d == "exact";
  }
  return s;
}

FactorRow parse_row(const json& r, const std::string& where) {
  require_object(r, where);
  reject_unknown_keys(r, {"partition", "priority", "admin", "factors", "tres"}, where);
  FactorRow row;
  row.partition = get_name(require(r, "partition", where), at(where, "partition"));
  row.priority = get_u32(r, "priority", where);
  row.admin = get_bool(require(r, "admin", where), at(where, "admin"));
  const std::string fw = where + ": \"factors\"";
  const json& f = require_object(require(r, "factors", where), fw);
  reject_unknown_factors(f, true, fw);
  constexpr int64_t kLimit = INT64_C(1) << 32;
  for (Factor k : kFactors) {
    if (k == Factor::kTres) continue;
    const char* name = factor_name(k);
    const json& v = require(f, name, fw);
    row.factor[k] = factor_info(k).whole
                        ? static_cast<double>(get_int(v, -kLimit, kLimit, at(fw, name)))
                        : get_double(v, at(fw, name));
  }
  row.tres = get_map<double>(require(r, "tres", where), at(where, "tres"), get_double);
  return row;
}

PendingJob parse_job(const json& j, size_t index) {
  std::string where = fmt::format("jobs[{}]", index);
  require_object(j, where);
  PendingJob job;
  job.id = static_cast<uint32_t>(get_uint(require(j, "id", where), 1, UINT32_MAX, at(where, "id")));
  where += fmt::format(" (job {})", job.id);
  reject_unknown_keys(
      j, {"id",       "array_job_id",   "assoc_id",    "user",          "account",
          "qos",      "partitions",     "submit_time", "eligible_time", "accrue_time",
          "min_cpus", "max_cpus",       "min_nodes",   "time_limit",    "nice",
          "held",     "admin_priority", "priority",    "tres_req",      "fairshare_tres",
          "reason",   "array_task_id",  "array_tasks", "het_job_id",    "het_job_offset",
          "rows"},
      where);
  job.array_job_id = get_u32(j, "array_job_id", where);
  // An array task's index, the tasks of a pending array not yet split, a heterogeneous job's
  // component (each absent when it does not apply, and in older snapshots).
  if (const auto it = j.find("array_task_id"); it != j.end())
    job.array_task_id =
        static_cast<uint32_t>(get_uint(*it, 0, kNoArrayTask - 1, at(where, "array_task_id")));
  if (const auto it = j.find("array_tasks"); it != j.end())
    job.array_tasks = get_name(*it, at(where, "array_tasks"));
  if (const auto it = j.find("het_job_id"); it != j.end()) {
    job.het_job_id = get_u32(j, "het_job_id", where);
    job.het_job_offset = get_u32(j, "het_job_offset", where);
  }
  job.assoc_id = get_u32(j, "assoc_id", where);
  job.user = get_name(require(j, "user", where), at(where, "user"));
  job.account = get_name(require(j, "account", where), at(where, "account"));
  const json& qos = require(j, "qos", where);
  if (!qos.is_null()) job.qos = get_name(qos, at(where, "qos") + " (null for none)");
  const json& parts = require_array(require(j, "partitions", where), at(where, "partitions"));
  if (parts.empty()) error(at(where, "partitions") + " must not be empty");
  for (size_t i = 0; i < parts.size(); ++i)
    job.partitions.push_back(get_name(parts[i], fmt::format("{}: \"partitions\"[{}]", where, i)));
  job.submit_time = get_time(j, "submit_time", where);
  job.eligible_time = get_time(j, "eligible_time", where);
  job.accrue_time = get_time(j, "accrue_time", where);
  job.min_cpus = get_u32(j, "min_cpus", where);
  job.max_cpus = get_u32(j, "max_cpus", where);
  job.min_nodes = get_u32(j, "min_nodes", where);
  const json& limit = require(j, "time_limit", where);
  job.time_limit =
      limit.is_null()
          ? kInfinite
          : static_cast<uint32_t>(get_uint(limit, 0, kNoVal - 1, at(where, "time_limit")));
  job.nice =
      get_int(require(j, "nice", where), -(INT64_C(1) << 31), INT64_C(1) << 31, at(where, "nice"));
  job.held = get_bool(require(j, "held", where), at(where, "held"));
  job.admin_priority = get_bool(require(j, "admin_priority", where), at(where, "admin_priority"));
  job.priority = get_u32(j, "priority", where);
  job.tres_req = get_map<uint64_t>(
      require(j, "tres_req", where), at(where, "tres_req"),
      [](const json& v, const std::string& what) { return get_uint(v, 0, UINT64_MAX, what); });
  // fairway_fairshare_tres: the listed TRES that judged the job (absent: billing); that the
  // list holds it is checked with the list (parse_queue_keys).
  if (const auto it = j.find("fairshare_tres"); it != j.end())
    job.fairshare_tres = get_name(*it, at(where, "fairshare_tres"));
  // squeue's Reason (absent in older snapshots: unknown).
  if (const auto it = j.find("reason"); it != j.end())
    job.reason = get_name(*it, at(where, "reason"));
  const json& rows = require_array(require(j, "rows", where), at(where, "rows"));
  for (size_t i = 0; i < rows.size(); ++i) {
    job.rows.push_back(parse_row(rows[i], fmt::format("{}: \"rows\"[{}]", where, i)));
    bool listed = false;
    for (const auto& p : job.partitions) listed = listed || p == job.rows.back().partition;
    if (!listed)
      error(fmt::format("{}: \"rows\"[{}]: partition {} is not one of the job's", where, i,
                        json_fields::quoted(job.rows.back().partition)));
  }
  if (job.held && !job.rows.empty())
    error(where + ": a held job has no rows (sprio does not weigh it)");
  return job;
}

std::string number(double d) { return json(d).dump(); }

// `"age": 140.2, ..., "nice": 0`: a row's factors but kTres, whole ones as integers.
std::string factors_json(const FactorRow& r) {
  std::string out;
  for (Factor f : kFactors) {
    if (f == Factor::kTres) continue;
    const double v = r.factor[f];
    out += fmt::format("{}\"{}\": {}", out.empty() ? "" : ", ", factor_name(f),
                       factor_info(f).whole ? std::to_string(static_cast<int64_t>(v)) : number(v));
  }
  return out;
}

// `"age": 1000, ..., "qos": 0`: the weights.
std::string weights_json(const PrioritySettings& p) {
  std::string out;
  for (Factor f : kFactors)
    if (has_weight(f))
      out += fmt::format("{}\"{}\": {}", out.empty() ? "" : ", ", factor_name(f), p.weight[f]);
  return out;
}

// The keys of an array task or heterogeneous component, each followed by a comma ("" for a
// plain job).
std::string job_ids_json(const PendingJob& j) {
  std::string out;
  if (j.array_task_id != kNoArrayTask)
    out += fmt::format(" \"array_task_id\": {},", j.array_task_id);
  if (!j.array_tasks.empty())
    out += " \"array_tasks\": " + json_fields::quoted(j.array_tasks) + ",";
  if (j.het_job_id)
    out +=
        fmt::format(" \"het_job_id\": {}, \"het_job_offset\": {},", j.het_job_id, j.het_job_offset);
  return out;
}

template <typename T>
std::string map_json(const std::vector<std::pair<std::string, T>>& m) {
  std::string out = "{";
  for (size_t i = 0; i < m.size(); ++i)
    out += fmt::format("{}{}: {}", i ? ", " : "", json_fields::quoted(m[i].first),
                       json(m[i].second).dump());
  return out + "}";
}

}  // namespace

void parse_queue_keys(const json& doc, Snapshot& s) {
  const std::string top = "top level";
  s.slurm_release = get_name(require(doc, "slurm_release", top), "\"slurm_release\"");
  Queue q;
  q.taken_at = get_time(doc, "taken_at", top);
  const json& c = require_object(require(doc, "cluster", top), "\"cluster\"");
  reject_unknown_keys(c, {"cpus", "nodes", "name"}, "\"cluster\"");
  q.cluster_cpus = get_u32(c, "cpus", "\"cluster\"");
  q.cluster_nodes = get_u32(c, "nodes", "\"cluster\"");
  // ClusterName (absent in older snapshots).
  if (const auto it = c.find("name"); it != c.end())
    q.cluster_name = get_name(*it, "\"cluster\": \"name\"");
  q.settings = parse_settings(require(doc, "priority", top));

  const json& parts = require_array(require(doc, "partitions", top), "\"partitions\"");
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string where = fmt::format("partitions[{}]", i);
    require_object(parts[i], where);
    reject_unknown_keys(
        parts[i], {"name", "priority_job_factor", "priority_tier", "total_cpus", "total_nodes"},
        where);
    PartitionInfo p;
    p.name = get_name(require(parts[i], "name", where), at(where, "name"));
    if (q.partition(p.name))
      error(fmt::format("{}: partition {} twice", where, json_fields::quoted(p.name)));
    p.priority_job_factor = get_u32(parts[i], "priority_job_factor", where);
    p.priority_tier = get_u32(parts[i], "priority_tier", where);
    p.total_cpus = get_u32(parts[i], "total_cpus", where);
    p.total_nodes = get_u32(parts[i], "total_nodes", where);
    q.partitions.push_back(std::move(p));
  }

  const json& qos = require_array(require(doc, "qos", top), "\"qos\"");
  for (size_t i = 0; i < qos.size(); ++i) {
    const std::string where = fmt::format("qos[{}]", i);
    require_object(qos[i], where);
    reject_unknown_keys(qos[i], {"name", "priority", "usage_factor"}, where);
    QosInfo o;
    o.name = get_name(require(qos[i], "name", where), at(where, "name"));
    o.priority = get_u32(qos[i], "priority", where);
    o.usage_factor = get_double(require(qos[i], "usage_factor", where), at(where, "usage_factor"));
    if (o.usage_factor < 0) error(at(where, "usage_factor") + " is negative");
    q.qos.push_back(std::move(o));
  }

  const json& jobs = require_array(require(doc, "jobs", top), "\"jobs\"");
  q.jobs.reserve(jobs.size());
  std::unordered_set<uint32_t> ids;
  ids.reserve(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    PendingJob job = parse_job(jobs[i], i);
    if (!ids.insert(job.id).second) error(fmt::format("jobs[{}]: job {} twice", i, job.id));
    for (const auto& p : job.partitions)
      if (!q.partition(p))
        error(fmt::format("jobs[{}] (job {}): unknown partition {}", i, job.id,
                          json_fields::quoted(p)));
    if (!job.fairshare_tres.empty() &&
        std::none_of(s.fairshare_tres.begin(), s.fairshare_tres.end(), [&](const std::string& t) {
          return ascii_lower(t) == ascii_lower(job.fairshare_tres);
        }))
      error(
          fmt::format("jobs[{}] (job {}): \"fairshare_tres\" {} is not in the top level's "
                      "\"fairshare_tres\"",
                      i, job.id, json_fields::quoted(job.fairshare_tres)));
    q.jobs.push_back(std::move(job));
  }
  s.queue = std::move(q);
}

std::string write_queue_keys(const Snapshot& s) {
  const Queue& q = *s.queue;
  const PrioritySettings& p = q.settings;
  std::string flags;
  for (uint32_t bit : kPriorityFlagBits)
    if (p.flags & bit)
      flags += fmt::format("{}\"{}\"", flags.empty() ? "" : ", ", priority_flag_name(bit));
  std::string out = fmt::format(
      ",\n \"slurm_release\": {}, \"taken_at\": {},\n \"cluster\": {{{}\"cpus\": {}, \"nodes\": "
      "{}}},"
      "\n \"priority\": {{\"weights\": {{{}}}, \"tres_weights\": {}, \"flags\": [{}], "
      "\"max_age\": {}, \"favor_small\": {}, \"decay_half_life\": {}, \"calc_period\": {}{}}}",
      json_fields::quoted(s.slurm_release), static_cast<int64_t>(q.taken_at),
      q.cluster_name.empty() ? std::string()
                             : "\"name\": " + json_fields::quoted(q.cluster_name) + ", ",
      q.cluster_cpus, q.cluster_nodes, weights_json(p), map_json(p.weight_tres), flags, p.max_age,
      p.favor_small ? "true" : "false", p.decay_half_life, p.calc_period,
      // Written only when set, so that a snapshot of the default settings reads as before.
      p.decay_exact ? ", \"decay\": \"exact\"" : "");
  out += ",\n \"partitions\": [";
  for (size_t i = 0; i < q.partitions.size(); ++i) {
    const auto& x = q.partitions[i];
    out += fmt::format(
        "{}\n  {{\"name\": {}, \"priority_job_factor\": {}, \"priority_tier\": {}, "
        "\"total_cpus\": {}, \"total_nodes\": {}}}",
        i ? "," : "", json_fields::quoted(x.name), x.priority_job_factor, x.priority_tier,
        x.total_cpus, x.total_nodes);
  }
  out += "],\n \"qos\": [";
  for (size_t i = 0; i < q.qos.size(); ++i)
    out += fmt::format("{}\n  {{\"name\": {}, \"priority\": {}, \"usage_factor\": {}}}",
                       i ? "," : "", json_fields::quoted(q.qos[i].name), q.qos[i].priority,
                       number(q.qos[i].usage_factor));
  out += "],\n \"jobs\": [";
  for (size_t i = 0; i < q.jobs.size(); ++i) {
    const PendingJob& j = q.jobs[i];
    std::string parts, rows;
    for (size_t k = 0; k < j.partitions.size(); ++k)
      parts += fmt::format("{}{}", k ? ", " : "", json_fields::quoted(j.partitions[k]));
    for (size_t k = 0; k < j.rows.size(); ++k) {
      const FactorRow& r = j.rows[k];
      rows += fmt::format(
          "{}\n    {{\"partition\": {}, \"priority\": {}, \"admin\": {}, \"factors\": {{{}}}, "
          "\"tres\": {}}}",
          k ? "," : "", json_fields::quoted(r.partition), r.priority, r.admin ? "true" : "false",
          factors_json(r), map_json(r.tres));
    }
    out += fmt::format(
        "{}\n  {{\"id\": {}, \"array_job_id\": {}, \"assoc_id\": {}, \"user\": {}, \"account\": "
        "{}, \"qos\": {}, \"partitions\": [{}], \"submit_time\": {}, \"eligible_time\": {}, "
        "\"accrue_time\": {}, \"min_cpus\": {}, \"max_cpus\": {}, \"min_nodes\": {}, "
        "\"time_limit\": {}, \"nice\": {}, \"held\": {}, \"admin_priority\": {}, \"priority\": "
        "{}, \"tres_req\": {},{}{}{}\n   \"rows\": [{}]}}",
        i ? "," : "", j.id, j.array_job_id, j.assoc_id, json_fields::quoted(j.user),
        json_fields::quoted(j.account), j.qos.empty() ? "null" : json_fields::quoted(j.qos), parts,
        static_cast<int64_t>(j.submit_time), static_cast<int64_t>(j.eligible_time),
        static_cast<int64_t>(j.accrue_time), j.min_cpus, j.max_cpus, j.min_nodes,
        j.time_limit == kInfinite ? "null" : std::to_string(j.time_limit), j.nice,
        j.held ? "true" : "false", j.admin_priority ? "true" : "false", j.priority,
        map_json(j.tres_req),
        j.fairshare_tres.empty()
            ? std::string()
            : " \"fairshare_tres\": " + json_fields::quoted(j.fairshare_tres) + ",",
        j.reason.empty() ? std::string() : " \"reason\": " + json_fields::quoted(j.reason) + ",",
        job_ids_json(j), rows);
  }
  return out + "]";
}

}  // namespace fairway::json_fields
