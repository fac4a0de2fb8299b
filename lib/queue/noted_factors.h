// The fair-share factor each association's jobs get in one pass of classic or depth-oblivious
// weighing, noted by the walk of job_list when it computes the first of them on demand (the
// effective usage that factor reads is computed once per pass and not changed again), so
// that the weighing threads look up one value per association, as Fair Tree's, instead of
// computing it again for every job.
//
// Open addressing with linear probing, a load of at most one half; forgetting is one
// increment (a slot belongs to the current pass only when its generation is the table's).
// Writers (note, forget) run one at a time; find is const, allocates nothing and takes no
// lock.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairway {

class NotedFactors {
 public:
  // The factor noted for association `id` since the last forget, or nullptr.
  const double* find(uint32_t id) const noexcept {
    if (!count_) return nullptr;
    for (size_t h = hash(id) & mask_; slots_[h].generation == generation_; h = (h + 1) & mask_)
      if (slots_[h].id == id) return &slots_[h].factor;
    return nullptr;
  }
  // Note (or replace) association `id`'s factor.  std::bad_alloc when the table cannot grow.
  void note(uint32_t id, double factor);
  // Forget every factor noted.
  void forget() noexcept;
  size_t size() const noexcept { return count_; }

 private:
  struct Slot {  // 16 bytes: four to a cache line
    uint32_t id = 0;
    uint32_t generation = 0;  // the table's: in use this pass
    double factor = 0;
  };
  static size_t hash(uint32_t id) noexcept { return static_cast<size_t>((id * 0x9E3779B1u) >> 7); }
  void grow();
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
  uint32_t generation_ = 1;
};

}  // namespace fairway
