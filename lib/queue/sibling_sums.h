// Depth-oblivious's sum of usage_norm over an association's children, for one pass of the
// walk that computes users on demand.  Multifactor's _depth_oblivious_set_usage_efctv walks
// the children list for every association it computes (the list's nodes, each child's record
// and usage: three scattered reads per sibling) and adds each child's usage_norm as stored at
// that moment, Fairshare=parent children left out.  Here the children's values are copied
// once per parent and pass, in the list's order, every usage_norm the pass writes is written
// into the copy too, and the sum is the same additions, in the same order, of the same
// values, over contiguous memory.
//
// Writers (copy, set, forget) run one at a time; sum is const and takes no lock.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "id_map.h"

namespace fairway {

class SiblingSums {
 public:
  // The sum over the children of `parent`, or nullopt when they were not copied this pass.
  std::optional<long double> sum(uint32_t parent) const noexcept;
  // The children of `parent` that the sum adds (not Fairshare=parent), in the list's order:
  // their ids and usage_norm as stored now.  Errors (std::bad_alloc; Error kInvalid for spans
  // of different sizes, a parent copied already this pass, a child copied twice) forget every
  // copy: the next sums copy the lists again, with the values they hold by then, which are
  // the ones the copies were kept at.
  void copy(uint32_t parent, std::span<const uint32_t> ids, std::span<const long double> values);
  // Association `id`'s usage_norm is now `value`: so is its copy's, where one was made.
  void set(uint32_t id, long double value) noexcept;
  // Forget every copy (the end of the pass).
  void forget() noexcept;

 private:
  struct Range {
    uint32_t begin = 0, end = 0;
  };
  IdMap<Range> parents_;
  IdMap<uint32_t> children_;  // id -> position in values_
  std::vector<long double> values_;
};

}  // namespace fairway
