// The pending queue (see queue.h).
#include "queue.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "slurm_values.h"

namespace fairway {

double FactorRow::part(Factor f) const {
  if (f == Factor::kTres) {
    double sum = 0;
    for (const auto& t : tres) sum += t.second;
    return sum;
  }
  if (f == Factor::kNice) return factor[f] != 0 ? -factor[f] : 0.0;  // never -0
  return factor[f];
}

void FactorRow::set_factors(const double* by_factor) {
  for (Factor f : kFactors) {
    const double v = by_factor[static_cast<size_t>(f)];
    if (f != Factor::kTres)
      factor[f] = factor_info(f).whole ? static_cast<double>(static_cast<int64_t>(v)) : v;
  }
}

const PartitionInfo* Queue::partition(const std::string& name) const {
  for (const auto& p : partitions)
    if (p.name == name) return &p;
  return nullptr;
}

const PendingJob* Queue::job(uint32_t id) const {
  for (const auto& j : jobs)
    if (j.id == id) return &j;
  return nullptr;
}

namespace {

uint32_t queue_id(const PendingJob& j) { return j.array_job_id ? j.array_job_id : j.id; }

}  // namespace

bool runs_before(const QueueEntry& a, const QueueEntry& b) {
  if (a.tier != b.tier) return a.tier > b.tier;
  if (a.row->priority != b.row->priority) return a.row->priority > b.row->priority;
  if (a.job->submit_time != b.job->submit_time) return a.job->submit_time < b.job->submit_time;
  if (queue_id(*a.job) != queue_id(*b.job)) return queue_id(*a.job) < queue_id(*b.job);
  return a.job->id < b.job->id;
}

std::vector<QueueEntry> partition_queue(const Queue& q, const std::string& partition) {
  std::vector<QueueEntry> out;
  const PartitionInfo* p = q.partition(partition);
  const uint32_t tier = p ? p->priority_tier : 0;
  for (const auto& j : q.jobs) {
    if (j.held) continue;
    for (const auto& r : j.rows)
      if (r.partition == partition) out.push_back({&j, &r, tier});
  }
  std::stable_sort(out.begin(), out.end(), runs_before);
  return out;
}

Separation separation(const QueueEntry& ahead, const QueueEntry& behind) {
  Separation s;
  if (ahead.tier != behind.tier) {
    s.by = Separation::By::kTier;
    s.difference = static_cast<double>(ahead.tier) - behind.tier;
    return s;
  }
  if (ahead.row->priority != behind.row->priority) {
    s.by = Separation::By::kPriority;
    s.admin = ahead.row->admin || behind.row->admin;
    s.difference = -std::numeric_limits<double>::infinity();
    for (Factor f : kFactors) {
      const double d = ahead.row->part(f) - behind.row->part(f);
      if (d > s.difference) {
        s.difference = d;
        s.factor = f;
      }
    }
    return s;
  }
  s.by = ahead.job->submit_time != behind.job->submit_time ? Separation::By::kSubmitTime
                                                           : Separation::By::kJobId;
  return s;
}

namespace {

// The age part of a row `t` seconds from now.
double age_at(const PrioritySettings& s, const FactorRow& r, double t) {
  const double w = s.weight[Factor::kAge];
  return std::min(w, r.factor[Factor::kAge] + w * t / s.max_age);
}

// Seconds until the row's age part reaches the weight.
double age_left(const PrioritySettings& s, const FactorRow& r) {
  const double w = s.weight[Factor::kAge];
  return r.factor[Factor::kAge] >= w ? 0 : (w - r.factor[Factor::kAge]) / w * s.max_age;
}

// The priority of a row `t` seconds from now, as a sum of its parts.
double priority_at(const PrioritySettings& s, const FactorRow& r, double t) {
  double sum = 0;
  for (Factor f : kFactors) sum += f == Factor::kAge ? age_at(s, r, t) : r.part(f);
  return sum;
}

}  // namespace

double seconds_until_age_passes(const PrioritySettings& s, const FactorRow& ahead,
                                const FactorRow& behind) {
  if (ahead.admin || behind.admin) return -1;
  if (behind.priority > ahead.priority) return 0;
  if (!s.weight[Factor::kAge] || !s.max_age) return -1;
  // The difference behind - ahead is piecewise linear between the moments each age part
  // saturates: find where it first becomes positive.
  double points[] = {0, age_left(s, ahead), age_left(s, behind)};
  std::sort(std::begin(points), std::end(points));
  const double base = static_cast<double>(behind.priority) - ahead.priority;
  auto diff = [&](double t) {
    return base + (priority_at(s, behind, t) - priority_at(s, behind, 0)) -
           (priority_at(s, ahead, t) - priority_at(s, ahead, 0));
  };
  for (int i = 0; i + 1 < 3; ++i) {
    const double t0 = points[i], t1 = points[i + 1];
    const double d0 = diff(t0), d1 = diff(t1);
    if (d1 > 0 && d1 > d0) return d0 > 0 ? t0 : t0 + (t1 - t0) * (-d0) / (d1 - d0);
  }
  return -1;
}

double seconds_until_age_saturates(const PrioritySettings& s, const FactorRow& a,
                                   const FactorRow& b) {
  if (!s.weight[Factor::kAge] || !s.max_age) return -1;
  if (a.factor[Factor::kAge] == b.factor[Factor::kAge]) return 0;
  return std::max(age_left(s, a), age_left(s, b));
}

}  // namespace fairway
