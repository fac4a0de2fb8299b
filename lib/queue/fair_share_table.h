// The plugin's fair-share state between periods: the association tree of the last calculation
// (kept while the associations keep their shape, so that a period only replaces usage and
// recomputes), its results, every association's fair-share factor by id for the weighing of
// jobs, and with fairway_fairshare_tres one more tree per listed TRES with each association's
// factor from it.
//
// Writers (load, hold, compute, compute_tres, forget) run one at a time (the plugin holds the
// assoc write lock); the lookups (factor, tres_factor) are const, allocate nothing and take no
// lock, so that any number of weighing threads may call them between two writers.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "assoc_tree.h"
#include "fair_share.h"
#include "fairshare_tres.h"
#include "held_usage.h"
#include "id_map.h"
#include "sibling_sums.h"

namespace fairway {

// What decides whether a kept tree still fits the associations: everything AssocTree::build
// derives its shape from (names and usage are not part of it).
struct AssocShape {
  uint32_t id = 0;
  uint32_t parent_id = 0;
  uint32_t shares_raw = 0;
  bool shares_parent = false;
  bool is_user = false;
  bool operator==(const AssocShape&) const = default;
};

// Association ids to positions and fair-share factors: open addressing with linear probing,
// at least 1024 slots and a load of at most 0.8.
class FactorIndex {
 public:
  // Every id of the tree, with its factor where its FieldMask in `set` has kFsFactor (empty
  // spans: ids only).
  void build(const AssocTree& tree, std::span<const double> factors, std::span<const uint8_t> set);
  void clear() noexcept { valid_ = false; }
  bool valid() const noexcept { return valid_; }
  // The slot of `id`, or nullptr (never for id 0: association ids start at 1).
  struct Slot {          // 16 bytes: four to a cache line
    uint32_t id = 0;     // 0: empty
    uint32_t index = 0;  // position in the tree, kHasFactor set when factor is
    double factor = 0;
  };
  static constexpr uint32_t kHasFactor = 0x80000000u;
  const Slot* find(uint32_t id) const noexcept {
    if (!valid_ || !id) return nullptr;
    for (size_t h = hash(id) & mask_; slots_[h].id; h = (h + 1) & mask_)
      if (slots_[h].id == id) return &slots_[h];
    return nullptr;
  }

 private:
  static size_t hash(uint32_t id) noexcept { return static_cast<size_t>((id * 0x9E3779B1u) >> 7); }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  bool valid_ = false;
};

class FairShareTable {
 public:
  // The associations of this period, `shape(i)` for i < count in the caller's order: true when
  // a tree is kept and has that shape (then usage is all that may have changed).
  template <class ShapeAt>
  bool same_shape(size_t count, ShapeAt shape) const {
    if (!tree_ || count != shape_.size()) return false;
    for (size_t i = 0; i < count; i++)
      if (!(shape(i) == shape_[i])) return false;
    return true;
  }
  // A new tree from records (AssocTree::build's errors); forgets the lookups and, when it
  // throws, the tree.
  void rebuild(std::vector<AssocRecord> records);
  // Replace association i's usage (AssocTree::set_usage's errors; on an error the tree goes).
  void set_usage(uint32_t i, long double usage_raw);
  // Every association's usage becomes what the jobs hold under `basis` (kAllocated or
  // kCommitted), summed up the tree; jobs of associations not in the tree are counted in
  // *unknown.  On an error the tree goes.
  void hold(UsageBasis basis, std::span<const RunningJob> jobs, size_t* unknown);
  // Fair-share of every association.  by_id: index the factors by id afterwards (Fair Tree's
  // weighing pass); index_ids: index the positions only (for compute_tres's lookups).
  void compute(Algorithm algorithm, double dampening, bool by_id, bool index_ids);
  // fairway_fairshare_tres: `count` TRES follow, compute_tres for k = 0 to count - 1 in turn;
  // their factors are looked up once the last has been computed.  count 0: none.
  void begin_tres(size_t count);
  // TRES k, at position pos of the TRES arrays: a copy of the tree (made again when the tree
  // was rebuilt) given usage[i] (usage not empty) or what jobs hold under basis, computed with
  // `algorithm`; every association's factor kept.  On an error no TRES has factors.
  void compute_tres(size_t k, int pos, std::span<const long double> usage, UsageBasis basis,
                    std::span<const RunningJob> jobs, Algorithm algorithm, double dampening);
  // Classic and depth-oblivious: association `id`'s factor for the rest of this pass, noted
  // by the walk that computed it on demand, once per association (the effective usage it
  // reads is not computed again in the pass); std::bad_alloc.
  void note_factor(uint32_t id, double factor) { noted_.put(id, factor); }
  // Depth-oblivious: the children's usage_norm copied for this pass (SiblingSums).
  SiblingSums& siblings() noexcept { return siblings_; }
  const SiblingSums& siblings() const noexcept { return siblings_; }
  // The end of a pass: the noted factors and the children's copies forgotten.
  void forget_noted() noexcept {
    noted_.forget();
    siblings_.forget();
  }
  // Forget the lookups and what the pass noted (the associations changed); the tree stays.
  void forget() noexcept;
  // Forget everything.
  void drop() noexcept;

  bool has_tree() const noexcept { return tree_.has_value(); }
  size_t size() const noexcept { return tree_ ? tree_->size() : 0; }
  const FairShareResult& result() const noexcept { return result_; }
  bool computed() const noexcept { return computed_; }

  // The factor of association `id` after the last compute with by_id (else the one noted),
  // or nullptr (none, or an association the algorithm gave none).
  const double* factor(uint32_t id) const noexcept {
    if (!factors_by_id_) return noted_.find(id);
    const FactorIndex::Slot* s = index_.find(id);
    return s && (s->index & FactorIndex::kHasFactor) ? &s->factor : nullptr;
  }
  // The factor association `id` has when fair-share compares its usage of the TRES at
  // position `pos`, from the last compute_tres; nullopt when there is none.
  std::optional<double> tres_factor(uint32_t id, int pos) const noexcept;

 private:
  std::optional<AssocTree> tree_;
  std::vector<AssocShape> shape_;
  FairShareResult result_;
  bool computed_ = false;
  uint64_t generation_ = 0;  // of tree_, one more per rebuild
  FactorIndex index_;
  bool factors_by_id_ = false;
  IdMap<double> noted_;
  SiblingSums siblings_;
  // fairway_fairshare_tres
  struct TresTree {
    std::optional<AssocTree> tree;
    FairShareResult result;
    uint64_t generation = 0;
  };
  std::array<TresTree, kMaxFairShareTres> tres_;
  std::array<int, kMaxFairShareTres> tres_pos_{};
  std::vector<double> tres_factors_;  // [k * size() + i]
  size_t tres_pending_ = 0;           // begin_tres's count
  size_t tres_done_ = 0;              // computed of them
  size_t tres_n_ = 0;                 // TRES looked up; 0: none
};

}  // namespace fairway
