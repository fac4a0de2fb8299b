// The live cluster as a snapshot (see live.h).
#include "live.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <vector>

#include "cli_io.h"
#include "conf_values.h"
#include "fair_share.h"
#include "live_fair_share.h"
#include "plugin_options.h"
#include "priority_flags.h"
#include "slurm_values.h"

extern "C" {
#include "slurm_api.h"
}

namespace fairway_cli {
namespace {

std::string slurm_error(const char* what) {
  return std::string(what) + ": " + slurm_strerror(errno);
}

std::string user_name(uint32_t uid) {
  if (const passwd* pw = getpwuid(uid)) return pw->pw_name;
  return std::to_string(uid);
}

std::vector<std::string> split(const char* text) {
  std::vector<std::string> out;
  if (!text) return out;
  std::string s = text;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.find(',', start);
    std::string part =
        s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// PriorityWeightTRES ("CPU=1000,Mem=0.25G,GRES/gpu=2000") as Slurm reads it: a unit divides
// the weight (memory and burst buffers count in MB, other TRES in units).
std::vector<std::pair<std::string, double>> tres_weights(const char* text) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& item : split(text)) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = fairway::ascii_lower(item.substr(0, eq));
    char* end = nullptr;
    double w = std::strtod(item.c_str() + eq + 1, &end);
    const bool mb = name == "mem" || name.rfind("bb", 0) == 0;
    const char* units = mb ? "MGTP" : "KMGTP";
    if (end && *end) {
      const char* u = std::strchr(units, std::toupper(static_cast<unsigned char>(*end)));
      if (u) w /= std::pow(1024.0, static_cast<double>(u - units + (mb ? 0 : 1)));
    }
    out.emplace_back(name, w);
  }
  return out;
}

// "cpu=4,mem=1000M,node=1,billing=4" into counts (memory in MB, as Slurm counts it).
std::vector<std::pair<std::string, uint64_t>> tres_counts(const char* text) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& item : split(text)) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    char* end = nullptr;
    double v = std::strtod(item.c_str() + eq + 1, &end);
    if (end && *end) {
      const char* units = "KMGTP";
      if (const char* u = std::strchr(units, std::toupper(static_cast<unsigned char>(*end))))
        v *= std::pow(1024.0, static_cast<double>(u - units)) / 1024.0;
    }
    out.emplace_back(item.substr(0, eq), static_cast<uint64_t>(v));
  }
  return out;
}

// The job's priority in one partition from its sprio row, as multifactor adds it up.
uint32_t row_priority(const fairway_prio_row_t& r) {
  if (!r.has_factors) return r.direct_prio > 0 ? static_cast<uint32_t>(r.direct_prio) : 0;
  // The partition term, then the others in order, added up first (the same doubles).
  double others = r.factor[FAIRWAY_FACTOR_AGE];
  for (int k = FAIRWAY_FACTOR_ASSOC; k <= FAIRWAY_FACTOR_SITE; k++)
    if (k != FAIRWAY_FACTOR_PARTITION) others += r.factor[k];
  double prio = r.factor[FAIRWAY_FACTOR_PARTITION];
  prio += others - r.factor[FAIRWAY_FACTOR_NICE];
  if (!(prio >= 1)) prio = 1;
  if (prio >= 4294967296.0) return 0xffffffffU;
  return static_cast<uint32_t>(prio);
}

bool read_associations(fairway::Snapshot& snap, std::vector<fairway::QosInfo>* qos,
                       LivePolicyInput& policy, std::string& why) {
  assoc_mgr_info_request_msg_t req{};
  req.flags = ASSOC_MGR_INFO_FLAG_ASSOC | (qos ? ASSOC_MGR_INFO_FLAG_QOS : 0);
  assoc_mgr_info_msg_t* msg = nullptr;
  if (slurm_load_assoc_mgr_info(&req, &msg) != SLURM_SUCCESS || !msg) {
    why = slurm_error("cannot read the associations from slurmctld");
    return false;
  }
  // Totals as slurmctld keeps them; the snapshot stores what each association was charged
  // directly (its total minus its children's), so usage of deleted children stays with
  // their parent.
  std::vector<fairway::AssocRecord> recs;
  policy.tracked_tres.clear();
  policy.tres_totals.clear();
  for (uint32_t t = 0; t < msg->tres_cnt && msg->tres_names; ++t)
    policy.tracked_tres.emplace_back(msg->tres_names[t] ? msg->tres_names[t] : "");
  if (msg->assoc_list) {
    list_itr_t* it = slurm_list_iterator_create(msg->assoc_list);
    while (auto* a = static_cast<slurmdb_assoc_rec_t*>(slurm_list_next(it))) {
      fairway::AssocRecord r;
      r.id = a->id;
      r.parent_id = a->parent_id;
      r.account = a->acct ? a->acct : "";
      r.user = a->user ? a->user : "";
      r.shares_parent = a->shares_raw == SLURMDB_FS_USE_PARENT;
      r.shares_raw = r.shares_parent ? 0 : a->shares_raw;
      r.usage_raw = a->usage ? a->usage->usage_raw : 0;
      recs.push_back(std::move(r));
      // Its usage of each TRES (fairway_fairshare_tres), in slurmctld's order of TRES.
      std::vector<long double> tres(policy.tracked_tres.size(), 0);
      for (uint32_t t = 0;
           a->usage && a->usage->usage_tres_raw && t < tres.size() && t < a->usage->tres_cnt; ++t)
        tres[t] = a->usage->usage_tres_raw[t];
      policy.tres_totals.push_back(std::move(tres));
    }
    slurm_list_iterator_destroy(it);
  }
  if (qos && msg->qos_list) {
    list_itr_t* it = slurm_list_iterator_create(msg->qos_list);
    while (auto* q = static_cast<slurmdb_qos_rec_t*>(slurm_list_next(it))) {
      fairway::QosInfo o;
      o.name = q->name ? q->name : "";
      o.priority = q->priority;
      o.usage_factor = q->usage_factor;
      if (!o.name.empty()) qos->push_back(std::move(o));
    }
    slurm_list_iterator_destroy(it);
  }
  slurm_free_assoc_mgr_info_msg(msg);
  if (recs.empty()) {
    why = "slurmctld has no associations (is accounting through slurmdbd enabled?)";
    return false;
  }
  std::map<uint32_t, long double> children_total;
  for (const auto& r : recs)
    if (r.parent_id) children_total[r.parent_id] += r.usage_raw;
  for (auto& r : recs) {
    const long double direct = r.usage_raw - children_total[r.id];
    r.usage_raw = direct > 0 ? direct : 0;
  }
  snap.associations = std::move(recs);
  return true;
}

bool read_partitions(fairway::Queue& q, LivePolicyInput& policy, std::string& why) {
  partition_info_msg_t* parts = nullptr;
  if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS || !parts) {
    why = slurm_error("cannot read the partitions from slurmctld");
    return false;
  }
  for (uint32_t i = 0; i < parts->record_count; ++i) {
    const partition_info_t& p = parts->partition_array[i];
    fairway::PartitionInfo x;
    x.name = p.name ? p.name : "";
    x.priority_job_factor = p.priority_job_factor;
    x.priority_tier = p.priority_tier;
    x.total_cpus = p.total_cpus;
    x.total_nodes = p.total_nodes;
    if (!x.name.empty()) policy.partition_tres[x.name] = tres_counts(p.tres_fmt_str);
    if (!x.name.empty()) q.partitions.push_back(std::move(x));
  }
  slurm_free_partition_info_msg(parts);
  return true;
}

bool read_nodes(fairway::Queue& q, std::string& why) {
  node_info_msg_t* nodes = nullptr;
  if (slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS || !nodes) {
    why = slurm_error("cannot read the nodes from slurmctld");
    return false;
  }
  q.cluster_nodes = nodes->record_count;
  for (uint32_t i = 0; i < nodes->record_count; ++i) q.cluster_cpus += nodes->node_array[i].cpus;
  slurm_free_node_info_msg(nodes);
  return true;
}

bool read_jobs(fairway::Queue& q, LivePolicyInput& policy, std::string& why) {
  job_info_msg_t* jobs = nullptr;
  if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS || !jobs) {
    why = slurm_error("cannot read the jobs from slurmctld");
    return false;
  }
  q.taken_at = std::time(nullptr);
  std::map<uint32_t, size_t> index;
  for (uint32_t i = 0; i < jobs->record_count; ++i) {
    const slurm_job_info_t& j = jobs->job_array[i];
    if ((j.job_state & JOB_STATE_BASE) == JOB_RUNNING) {
      // What it holds (fairway_usage) and was allocated (fairway_fairshare_tres).
      LiveRunningJob r;
      r.assoc_id = j.assoc_id;
      r.billable_tres = j.billable_tres;
      r.qos = j.qos ? j.qos : "";
      r.end_time = j.end_time;
      r.alloc = tres_counts(j.tres_alloc_str);
      policy.running.push_back(std::move(r));
    }
    if ((j.job_state & JOB_STATE_BASE) != JOB_PENDING) {
      fairway::Queue::OtherJob o;
      o.id = j.job_id;
      o.array_job_id = j.array_task_id != NO_VAL ? j.array_job_id : 0;
      o.array_task_id = j.array_task_id != NO_VAL ? j.array_task_id : fairway::kNoArrayTask;
      o.het_job_id = j.het_job_id != NO_VAL ? j.het_job_id : 0;
      o.het_job_offset = j.het_job_offset != NO_VAL ? j.het_job_offset : 0;
      switch (j.job_state & JOB_STATE_BASE) {  // squeue's words
        case JOB_RUNNING:
          o.state = "running";
          break;
        case JOB_SUSPENDED:
          o.state = "suspended";
          break;
        case JOB_COMPLETE:
          o.state = "completed";
          break;
        case JOB_CANCELLED:
          o.state = "cancelled";
          break;
        case JOB_FAILED:
          o.state = "failed";
          break;
        case JOB_TIMEOUT:
          o.state = "timed out";
          break;
        case JOB_NODE_FAIL:
          o.state = "ended by a node failure";
          break;
        case JOB_PREEMPTED:
          o.state = "preempted";
          break;
        case JOB_BOOT_FAIL:
          o.state = "ended by a boot failure";
          break;
        case JOB_DEADLINE:
          o.state = "past its deadline";
          break;
        case JOB_OOM:
          o.state = "ended out of memory";
          break;
        default:
          o.state = "not pending";
          break;
      }
      q.other_jobs.push_back(std::move(o));
      continue;
    }
    fairway::PendingJob p;
    p.id = j.job_id;
    p.array_job_id = j.array_task_id != NO_VAL ? j.array_job_id : 0;
    // A task split off its array has its index; the array's own record, its tasks not yet
    // split, has them as text ("1-5%2") and array_task_id NO_VAL.
    if (j.array_task_id != NO_VAL) p.array_task_id = j.array_task_id;
    if (j.array_task_str && *j.array_task_str) {
      p.array_tasks = j.array_task_str;
      p.array_job_id = j.array_job_id;
    }
    if (j.het_job_id && j.het_job_id != NO_VAL) {
      p.het_job_id = j.het_job_id;
      p.het_job_offset = j.het_job_offset;
    }
    p.assoc_id = j.assoc_id;
    p.user = user_name(j.user_id);
    p.account = j.account ? j.account : "";
    p.qos = j.qos ? j.qos : "";
    p.partitions = split(j.partition);
    p.submit_time = j.submit_time;
    p.eligible_time = j.eligible_time;
    p.accrue_time = j.accrue_time;
    p.min_cpus = j.num_cpus;
    p.max_cpus = j.max_cpus;
    p.min_nodes = j.num_nodes;
    p.time_limit =
        j.time_limit == INFINITE || j.time_limit == NO_VAL ? fairway::kInfinite : j.time_limit;
    p.nice = static_cast<int64_t>(j.nice) - NICE_OFFSET;
    p.priority = j.priority;
    p.held = j.priority == 0;
    if (const char* reason = fairway_job_reason_string(j.state_reason)) p.reason = reason;
    p.planned_start = j.start_time > 0 ? j.start_time : 0;
    if (j.resv_name) p.reservation = j.resv_name;
    p.tres_req = tres_counts(j.tres_req_str);
    if (p.account.empty() || p.partitions.empty()) continue;
    index[p.id] = q.jobs.size();
    q.jobs.push_back(std::move(p));
  }
  slurm_free_job_info_msg(jobs);

  priority_factors_response_msg_t* resp = nullptr;
  if (fairway_load_job_prio(&resp) != SLURM_SUCCESS || !resp) {
    why = slurm_error("cannot read the jobs' priority factors from slurmctld");
    return false;
  }
  if (resp->priority_factors_list) {
    list_itr_t* it = slurm_list_iterator_create(resp->priority_factors_list);
    while (auto* o = static_cast<priority_factors_object_t*>(slurm_list_next(it))) {
      fairway_prio_row_t r;
      fairway_prio_row(o, &r);
      auto at = index.find(r.job_id);
      if (at == index.end() || !r.partition) continue;
      fairway::PendingJob& job = q.jobs[at->second];
      if (job.held) continue;
      fairway::FactorRow row;
      row.partition = r.partition;
      row.admin = !r.has_factors;
      if (r.has_factors) {
        row.set_factors(r.factor);
        for (uint32_t i = 0; i < r.tres_cnt && r.tres && r.tres_names; ++i)
          if (r.tres[i] != 0)
            row.tres.emplace_back(fairway::ascii_lower(r.tres_names[i]), r.tres[i]);
      }
      job.admin_priority = job.admin_priority || row.admin;
      // The priority the scheduler uses: the job's own with one partition, else the row's.
      row.priority = job.partitions.size() == 1 ? job.priority : row_priority(r);
      bool listed = false;
      for (const auto& p : job.partitions) listed = listed || p == row.partition;
      if (listed) job.rows.push_back(std::move(row));
    }
    slurm_list_iterator_destroy(it);
  }
  slurm_free_priority_factors_response_msg(resp);
  return true;
}

// How many associations slurmctld showed whose parent it did not show (PrivateData=usage shows
// a user only their own associations, a coordinator their accounts'), 0 for a whole tree; a
// list with no root counts as hidden too.
size_t hidden_associations(const std::vector<fairway::AssocRecord>& recs) {
  std::map<uint32_t, bool> ids;
  for (const auto& r : recs) ids[r.id] = true;
  size_t orphans = 0, roots = 0;
  for (const auto& r : recs) {
    if (!r.parent_id)
      ++roots;
    else if (!ids.count(r.parent_id))
      ++orphans;
  }
  return orphans ? orphans : (roots ? 0 : recs.size());
}

}  // namespace

std::optional<fairway::Snapshot> live_snapshot(const LiveRequest& req, std::string& why,
                                               LiveVisibility* seen) {
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf) {
    why = slurm_error("cannot read slurmctld's configuration");
    return std::nullopt;
  }
  fairway::Snapshot snap;
  const uint32_t flags = fairway_flags_from_slurm(conf->priority_flags);
  if (req.algorithm == "classic")
    snap.algorithm = fairway::Algorithm::kClassic;
  else if (req.algorithm == "depth_oblivious")
    snap.algorithm = fairway::Algorithm::kDepthOblivious;
  else if (req.algorithm == "fair_tree")
    snap.algorithm = fairway::Algorithm::kFairTree;
  else
    snap.algorithm = fairway::algorithm_from_flags(flags);
  snap.dampening_factor =
      req.dampening ? *req.dampening : (conf->fs_dampening_factor ? conf->fs_dampening_factor : 1);
  fairway::Queue q;
  fairway::PrioritySettings& s = q.settings;
  s.weight[fairway::Factor::kAge] = conf->priority_weight_age;
  s.weight[fairway::Factor::kAssoc] = conf->priority_weight_assoc;
  s.weight[fairway::Factor::kFairshare] = conf->priority_weight_fs;
  s.weight[fairway::Factor::kJobSize] = conf->priority_weight_js;
  s.weight[fairway::Factor::kPartition] = conf->priority_weight_part;
  s.weight[fairway::Factor::kQos] = conf->priority_weight_qos;
  s.weight_tres = tres_weights(conf->priority_weight_tres);
  s.flags = flags;
  s.max_age = conf->priority_max_age;
  s.favor_small = conf->priority_favor_small != 0;
  s.decay_half_life = conf->priority_decay_hl;
  s.calc_period = conf->priority_calc_period;
  // Fairway's own settings: what fair-share compares and how usage decays (a bad option is the
  // plugin's to log; the others apply, as in the plugin).
  LivePolicyInput policy;
  std::vector<std::string> problems;
  policy.options = fairway::parse_priority_parameters(
      conf->priority_params ? conf->priority_params : "", problems);
  s.decay_exact = policy.options.decay_exact;
  // PrivateData hides other users' jobs from all but root and SlurmUser (and operators,
  // whom the command cannot tell apart here).
  const uid_t uid = getuid();
  const bool jobs_private =
      (conf->private_data & PRIVATE_DATA_JOBS) && uid != 0 && uid != conf->slurm_user_id;
  snap.slurm_release = conf->version && *conf->version
                           ? conf->version
                           : std::to_string(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER)) + "." +
                                 std::to_string(SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)) + "." +
                                 std::to_string(SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
  q.cluster_name = conf->cluster_name ? conf->cluster_name : "";
  fairway_free_ctl_conf(conf);

  if (!read_associations(snap, req.queue ? &q.qos : nullptr, policy, why)) return std::nullopt;
  if (req.queue) {
    if (!read_partitions(q, policy, why) || !read_nodes(q, why) || !read_jobs(q, policy, why))
      return std::nullopt;
    q.jobs_private = jobs_private;
    policy.now = q.taken_at;
    snap.queue = std::move(q);
  }
  // A tree with hidden parts (PrivateData=usage) has no fair-share to compute: a caller that
  // asks what was hidden says so and uses slurmctld's factors; for the others it is an error.
  const size_t hidden = hidden_associations(snap.associations);
  if (seen) {
    seen->jobs_private = jobs_private;
    seen->hidden_associations = hidden;
    if (hidden) return snap;
  } else if (hidden) {
    why =
        "slurmctld shows you only your own associations, not the whole tree "
        "(PrivateData=usage): this needs the whole tree; ask an administrator";
    return std::nullopt;
  }
  try {
    apply_live_policy(snap, policy);
  } catch (const std::exception& e) {
    why = "the live association tree is not usable: " + std::string(snapshot_message(e));
    return std::nullopt;
  }
  return snap;
}

namespace {

// Fairway's PriorityParameters as slurmctld runs them, and its StateSaveLocation.
struct LiveOptions {
  fairway::PluginOptions options;
  std::string state_save;
};
std::optional<LiveOptions> live_options(std::string& why) {
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf) {
    why = slurm_error("cannot read slurmctld's configuration");
    return std::nullopt;
  }
  std::vector<std::string> problems;
  LiveOptions o;
  o.options = fairway::parse_priority_parameters(conf->priority_params ? conf->priority_params : "",
                                                 problems);
  if (conf->state_save_location) o.state_save = conf->state_save_location;
  fairway_free_ctl_conf(conf);
  return o;
}

}  // namespace

std::optional<std::string> live_history_dir(std::string& why) {
  const std::optional<LiveOptions> o = live_options(why);
  if (!o) return std::nullopt;
  if (!o->options.history_days) {
    why =
        "slurmctld keeps no history: PriorityParameters has no fairway_history_days (or "
        "name a history with --dir)";
    return std::nullopt;
  }
  const std::string& base = o->options.metrics_dir.empty() ? o->state_save : o->options.metrics_dir;
  return base + "/fairway_history";
}

std::optional<std::string> live_metrics_dir(std::string& why) {
  const std::optional<LiveOptions> o = live_options(why);
  if (!o) return std::nullopt;
  if (o->options.metrics_dir.empty()) {
    why = "slurmctld publishes nothing: PriorityParameters has no fairway_metrics_dir";
    return std::nullopt;
  }
  return o->options.metrics_dir;
}

}  // namespace fairway_cli
