#include "noted_factors.h"

#include <algorithm>

namespace fairway {

void NotedFactors::note(uint32_t id, double factor) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  size_t h = hash(id) & mask_;
  for (; slots_[h].generation == generation_; h = (h + 1) & mask_)
    if (slots_[h].id == id) {
      slots_[h].factor = factor;
      return;
    }
  slots_[h] = Slot{id, generation_, factor};
  count_++;
}

void NotedFactors::forget() noexcept {
  count_ = 0;
  if (++generation_ == 0) {  // after 2^32 passes: every slot free again, explicitly
    std::fill(slots_.begin(), slots_.end(), Slot{});
    generation_ = 1;
  }
}

void NotedFactors::grow() {
  std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));  // throws: nothing changed
  old.swap(slots_);
  const uint32_t kept = generation_;
  mask_ = slots_.size() - 1;
  count_ = 0;
  generation_ = 1;
  for (const Slot& s : old)
    if (s.generation == kept) note(s.id, s.factor);
}

}  // namespace fairway
