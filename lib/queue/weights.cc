// Which factor decides the order of the pending queue (see weights.h).
#include "weights.h"

#include <algorithm>

namespace fairway {
namespace {

// The factors before kTres have a PriorityWeight*; site and nice none.
double weight_of(const PrioritySettings& s, Factor f) {
  if (f < Factor::kTres) return s.weight[f];
  if (f != Factor::kTres) return 0;
  double sum = 0;
  for (const auto& t : s.weight_tres) sum += t.second;
  return sum;
}

}  // namespace

double gap_share(const PartitionDecisions& d, const FactorUse& u) {
  return d.gap_total > 0 ? u.gap / d.gap_total : 0.0;
}

std::vector<PartitionDecisions> queue_decisions(const Queue& q) {
  std::vector<PartitionDecisions> out;
  for (const PartitionInfo& info : q.partitions) {
    const auto queue = partition_queue(q, info.name);
    if (queue.empty()) continue;
    PartitionDecisions d;
    d.partition = info.name;
    d.tier = info.priority_tier;
    d.jobs = queue.size();
    d.pairs = queue.size() - 1;
    for (Factor f : kFactors) {
      FactorUse u;
      u.factor = f;
      u.weight = weight_of(q.settings, f);
      bool first = true;
      for (const QueueEntry& e : queue) {
        if (e.row->admin) continue;
        const double v = e.row->part(f);
        u.min = first ? v : std::min(u.min, v);
        u.max = first ? v : std::max(u.max, v);
        first = false;
        if (u.weight > 0 && v >= u.weight) ++u.at_weight;
      }
      d.factors.push_back(u);
    }
    for (size_t i = 0; i + 1 < queue.size(); ++i) {
      const Separation s = separation(queue[i], queue[i + 1]);
      switch (s.by) {
        case Separation::By::kTier:
          ++d.by_tier;
          break;
        case Separation::By::kSubmitTime:
          ++d.by_submit_time;
          break;
        case Separation::By::kJobId:
          ++d.by_job_id;
          break;
        case Separation::By::kPriority:
          if (s.admin) {
            ++d.by_admin;
          } else {
            FactorUse& u = d.factors[static_cast<size_t>(s.factor)];
            ++u.decides;
            if (queue[i].job->assoc_id != queue[i + 1].job->assoc_id) {
              const double gap = static_cast<double>(queue[i].row->priority) -
                                 static_cast<double>(queue[i + 1].row->priority);
              ++u.decides_between;
              u.gap += gap;
              ++d.pairs_between;
              d.gap_total += gap;
            }
          }
          break;
      }
    }
    // The verdicts, now that every factor's spread is known.
    for (FactorUse& u : d.factors) {
      using V = FactorUse::Verdict;
      const double spread = u.max - u.min;
      if (u.decides > 0) {
        u.verdict = V::kDecides;
      } else if (u.weight == 0 && u.min == 0 && u.max == 0) {
        u.verdict = V::kUnused;
      } else if (spread == 0) {
        u.verdict = (u.weight > 0 && u.min >= u.weight) ? V::kSaturated : V::kConstant;
      } else {
        u.verdict = V::kNeverDecides;
        double widest = 0;
        for (const FactorUse& o : d.factors) {
          const double os = o.max - o.min;
          if (&o != &u && o.decides > 0 && os >= kDrownedRatio * spread && os > widest) {
            widest = os;
            u.verdict = V::kDrowned;
            u.by = o.factor;
          }
        }
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace fairway
