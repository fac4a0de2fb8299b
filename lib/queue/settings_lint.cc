// settings_lint.cc - see settings_lint.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "settings_lint.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "conf_values.h"
#include "error.h"
#include "job_factors.h"
#include "plugin_options.h"
#include "quoted_text.h"
#include "slurm_conf_text.h"

namespace fairway {
namespace {

constexpr double kMaxPriority = 4294967295.0;
// Slurm's defaults where slurm.conf says nothing.
constexpr const char* kDefaultMaxAge = "7-0";
constexpr const char* kDefaultHalfLife = "7-0";
constexpr const char* kDefaultCalcPeriod = "5";
// TRES that Slurm tracks whatever AccountingStorageTRES says.
constexpr const char* kDefaultTres[] = {"billing", "cpu",  "energy", "fs/disk",
                                        "mem",     "node", "pages",  "vmem"};

struct Partition {
  std::string name, nodes = "";
  double tier = 1, job_factor = 1;
};

struct Conf {
  std::map<std::string, ConfPair> global;  // by lower-case key; the last one wins
  std::vector<Partition> partitions;

  std::optional<ConfPair> get(const std::string& key) const {
    const auto it = global.find(key);
    if (it == global.end()) return std::nullopt;
    return it->second;
  }
  std::string value(const std::string& key, const char* fallback = "") const {
    const auto p = get(key);
    return p ? p->value : fallback;
  }
};

std::string setting(const ConfPair& p) { return p.name + "=" + p.value; }

[[noreturn]] void bad(const ConfPair& p, const std::string& what) {
  invalid("slurm.conf line " + std::to_string(p.line) + ": " + quoted_text(setting(p), 80) + ": " +
          what);
}

double number_of(const ConfPair& p, bool whole) {
  const auto v = plain_number(p.value);
  if (!v || (whole && (*v != std::floor(*v) || *v > kMaxPriority)))
    bad(p, whole ? "not a whole number from 0 to 4294967295" : "not a number");
  return *v;
}

Conf read_conf(std::string_view text) {
  Conf c;
  Partition defaults;
  static const std::set<std::string> kOtherRecords = {
      "nodename",   "nodeset", "frontendname",   "downnodes",
      "switchname", "include", "suspendexcparts"};
  for (const auto& line : slurm_conf_lines(text)) {
    const ConfPair& first = line.front();
    if (first.key == "partitionname") {
      const bool is_default = ascii_lower(first.value) == "default";
      Partition p = defaults;
      p.name = first.value;
      for (size_t k = 1; k < line.size(); k++) {
        const ConfPair& kv = line[k];
        if (kv.key == "nodes") p.nodes = kv.value;
        if (kv.key == "prioritytier") p.tier = number_of(kv, true);
        if (kv.key == "priorityjobfactor") p.job_factor = number_of(kv, true);
      }
      if (is_default)
        defaults = p;
      else
        c.partitions.push_back(p);
      continue;
    }
    if (kOtherRecords.count(first.key)) continue;
    for (const ConfPair& kv : line) c.global[kv.key] = kv;
  }
  return c;
}

// A time setting in seconds (slurm.conf's minutes or [DAYS-]HOURS:MINUTES[:SECONDS]).
uint32_t seconds_of(const Conf& c, const std::string& key, const char* name, const char* fallback) {
  const auto p = c.get(key);
  const ConfPair kv = p ? *p : ConfPair{key, name, fallback, 0};
  const auto v = parse_max_age(kv.value);
  if (!v) bad(kv, "not a time as slurm.conf takes it (minutes, or [DAYS-]HOURS:MINUTES[:SECONDS])");
  return *v;
}

std::string shown_setting(const Conf& c, const std::string& key, const char* name,
                          const char* fallback) {
  const auto p = c.get(key);
  return p ? setting(*p) : std::string(name) + "=" + fallback + " (the default)";
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Each TRES=WEIGHT of PriorityWeightTRES.
std::vector<std::pair<std::string, double>> tres_weights(const Conf& c) {
  const auto p = c.get("priorityweighttres");
  if (!p) return {};
  std::string bad_item;
  auto out = parse_tres_weights(p->value, bad_item);
  if (!out)
    bad(*p, quoted_text(bad_item, 60) +
                " is not TRES=WEIGHT (a TRES name such as CPU or GRES/gpu, a number)");
  return *out;
}

std::set<std::string> tracked_tres(const Conf& c) {
  std::set<std::string> t(std::begin(kDefaultTres), std::end(kDefaultTres));
  const std::string v = ascii_lower(c.value("accountingstoragetres"));
  size_t start = 0;
  while (start < v.size()) {
    const size_t comma = v.find(',', start);
    const std::string item = v.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) t.insert(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return t;
}

std::string tracked_list(const std::set<std::string>& t) {
  std::string s;
  for (const auto& name : t) s += (s.empty() ? "" : ",") + name;
  return s;
}

bool same_nodes(const Partition& a, const Partition& b) {
  const std::string x = ascii_lower(a.nodes), y = ascii_lower(b.nodes);
  return x == y || x == "all" || y == "all";
}

}  // namespace

std::vector<LintFinding> lint_slurm_conf(std::string_view text) {
  const Conf c = read_conf(text);
  std::vector<LintFinding> out;

  // The factors' weights, as slurm.conf has them.
  struct Weight {
    std::string key, shown;
    double value;
  };
  std::vector<Weight> weights;
  for (Factor f : kFactors) {
    if (!has_weight(f)) continue;
    const std::string key = ascii_lower(factor_info(f).weight_key);
    const auto p = c.get(key);
    weights.push_back({factor_info(f).weight_key,
                       p ? setting(*p) : std::string(factor_info(f).weight_key) + "=0",
                       p ? number_of(*p, true) : 0.0});
  }
  const auto tres = tres_weights(c);
  const auto weight_of = [&](const char* key) {
    for (const auto& w : weights)
      if (w.key == key) return w;
    return Weight{key, std::string(key) + "=0", 0};
  };

  // 1. fair-share factors 0.001 apart
  const Weight fs = weight_of("PriorityWeightFairshare");
  if (fs.value > 0 && fs.value < 1000)
    out.push_back({fs.shown,
                   "fair-share factors 0.001 apart (what Slurm's documentation asks weights to "
                   "resolve) differ by " +
                       number_text(fs.value / 1000) + " priority points and get the same priority",
                   "set PriorityWeightFairshare to 1000 or more"});

  // 2. the sum
  double sum = 0;
  for (const auto& w : weights) sum += w.value;
  for (const auto& [name, w] : tres) sum += std::fabs(w);
  if (sum > kMaxPriority)
    out.push_back({"PriorityWeight*",
                   "the weights add up to " + number_text(sum) +
                       ", above 4294967295: the priorities of the jobs with the largest factors "
                       "are clamped there and tie",
                   "scale every PriorityWeight* down so that they add up to 4294967295 or less"});

  // 3. a weight drowned by another
  const Weight* top = nullptr;
  for (const auto& w : weights)
    if (!top || w.value > top->value) top = &w;
  if (top && top->value > 0)
    for (const auto& w : weights)
      if (&w != top && w.value > 0 && w.value * 1000 <= top->value)
        out.push_back({w.shown,
                       "at most 1/1000 of " + top->shown +
                           ": it changes the order only of jobs "
                           "whose " +
                           top->key.substr(14) + " factors differ by less than " +
                           number_text(w.value / top->value),
                       "raise " + w.key + " to at least " + number_text(top->value / 1000) +
                           ", or set it to 0 if it is not meant to count"});

  // 4. age full within one period; 5. half-life shorter than a period
  const uint32_t max_age = seconds_of(c, "prioritymaxage", "PriorityMaxAge", kDefaultMaxAge);
  const uint32_t calc =
      seconds_of(c, "prioritycalcperiod", "PriorityCalcPeriod", kDefaultCalcPeriod);
  const uint32_t half_life =
      seconds_of(c, "prioritydecayhalflife", "PriorityDecayHalfLife", kDefaultHalfLife);
  const Weight age = weight_of("PriorityWeightAge");
  if (age.value > 0 && max_age < calc)
    out.push_back(
        {shown_setting(c, "prioritymaxage", "PriorityMaxAge", kDefaultMaxAge),
         std::string(max_age == 0 ? "0: every job's age factor is 1"
                                  : "shorter than " +
                                        shown_setting(c, "prioritycalcperiod", "PriorityCalcPeriod",
                                                      kDefaultCalcPeriod) +
                                        ": every job's age factor reaches 1 within "
                                        "one period") +
             ", so " + age.shown + " adds the same to every job",
         "set PriorityMaxAge to the wait after which age should stop counting (days), "
         "or PriorityWeightAge to 0"});
  if (half_life > 0 && half_life < calc)
    out.push_back(
        {shown_setting(c, "prioritydecayhalflife", "PriorityDecayHalfLife", kDefaultHalfLife),
         "shorter than " +
             shown_setting(c, "prioritycalcperiod", "PriorityCalcPeriod", kDefaultCalcPeriod) +
             ": usage more than halves between two periods, so fair-share follows only the "
             "last period's jobs",
         "set PriorityDecayHalfLife to days (the default is 7-0), or PriorityCalcPeriod "
         "shorter"});

  // 6. TRES that are not tracked
  const auto tracked = tracked_tres(c);
  for (const auto& [name, w] : tres)
    if (w != 0 && !tracked.count(ascii_lower(name)))
      out.push_back({c.get("priorityweighttres") ? setting(*c.get("priorityweighttres")) : "",
                     name + " is not a tracked TRES (" + tracked_list(tracked) +
                         "): its factor is 0 for every job",
                     "add " + name +
                         " to AccountingStorageTRES, or take it out of "
                         "PriorityWeightTRES"});

  // 7. PriorityParameters
  if (const auto pp = c.get("priorityparameters")) {
    std::vector<std::string> problems;
    const PluginOptions o = parse_priority_parameters(pp->value, problems);
    for (const auto& why : problems) {
      const std::string_view prefix = "PriorityParameters: ";
      out.push_back({setting(*pp), why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why,
                     "correct or remove that option"});
    }
    for (const auto& name : o.fairshare_tres)
      if (!tracked.count(ascii_lower(name)))
        out.push_back({setting(*pp),
                       "fairway_fairshare_tres names " + name + ", not a tracked TRES (" +
                           tracked_list(tracked) +
                           "): its usage is always 0, so every job it judges ties on fair-share",
                       "add " + name +
                           " to AccountingStorageTRES, or take it out of "
                           "fairway_fairshare_tres"});
    if (!o.fairshare_tres.empty() && fs.value == 0)
      out.push_back({setting(*pp),
                     "fairway_fairshare_tres with " + fs.shown +
                         ": every fair-share factor it makes is weighed 0, so the jobs tie on it",
                     "set PriorityWeightFairshare, or take fairway_fairshare_tres out"});
  }

  // 8. tiers against partition factors
  const Weight part = weight_of("PriorityWeightPartition");
  if (part.value > 0)
    for (const auto& hi : c.partitions)
      for (const auto& lo : c.partitions)
        if (hi.tier > lo.tier && hi.job_factor < lo.job_factor && same_nodes(hi, lo))
          out.push_back(
              {"PartitionName=" + lo.name + " PriorityJobFactor=" + number_text(lo.job_factor),
               "gives " + lo.name + "'s jobs a larger partition factor than " + hi.name +
                   "'s (PriorityJobFactor=" + number_text(hi.job_factor) + "), but " + hi.name +
                   " has the higher PriorityTier (" + number_text(hi.tier) + " against " +
                   number_text(lo.tier) +
                   ") on the same nodes, which schedules its jobs first whatever their priority",
               "order the partitions' PriorityJobFactor as their PriorityTier, or give them one "
               "PriorityTier"});
  return out;
}

}  // namespace fairway
