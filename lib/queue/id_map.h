// A map from association ids to small values for the length of one pass of the weighing:
// open addressing with linear probing, a load of at most four fifths, and forgetting in one
// increment (a slot belongs to the current pass only when its generation is the map's).
// Writers (put, forget) run one at a time; find is const, allocates nothing and takes no lock.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairway {

template <class Value>
class IdMap {
 public:
  // The value put for `id` since the last forget, or nullptr.
  const Value* find(uint32_t id) const noexcept {
    if (!count_) return nullptr;
    for (size_t h = hash(id) & mask_; slots_[h].generation == generation_; h = (h + 1) & mask_)
      if (slots_[h].id == id) return &slots_[h].value;
    return nullptr;
  }
  // Put (or replace) `id`'s value.  std::bad_alloc when the map cannot grow (then unchanged).
  void put(uint32_t id, const Value& value) {
    if ((count_ + 1) * 5 > slots_.size() * 4) grow();
    size_t h = hash(id) & mask_;
    for (; slots_[h].generation == generation_; h = (h + 1) & mask_)
      if (slots_[h].id == id) {
        slots_[h].value = value;
        return;
      }
    slots_[h] = Slot{id, generation_, value};
    count_++;
  }
  // Forget every value put.
  void forget() noexcept {
    count_ = 0;
    if (++generation_ == 0) {  // after 2^32 passes: every slot free again, explicitly
      std::fill(slots_.begin(), slots_.end(), Slot{});
      generation_ = 1;
    }
  }
  size_t size() const noexcept { return count_; }

 private:
  struct Slot {
    uint32_t id = 0;
    uint32_t generation = 0;  // the map's: in use this pass
    Value value{};
  };
  static size_t hash(uint32_t id) noexcept { return static_cast<size_t>((id * 0x9E3779B1u) >> 7); }
  void grow() {
    std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));  // throws: unchanged
    old.swap(slots_);
    const uint32_t kept = generation_;
    mask_ = slots_.size() - 1;
    count_ = 0;
    generation_ = 1;
    for (const Slot& s : old)
      if (s.generation == kept) put(s.id, s.value);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
  uint32_t generation_ = 1;
};

}  // namespace fairway
