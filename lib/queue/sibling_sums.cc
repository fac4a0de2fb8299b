#include "sibling_sums.h"

#include <string>

#include "error.h"

namespace fairway {

std::optional<long double> SiblingSums::sum(uint32_t parent) const noexcept {
  const Range* r = parents_.find(parent);
  if (!r) return std::nullopt;
  long double s = 0;
  for (uint32_t i = r->begin; i < r->end; i++) s += values_[i];
  return s;
}

void SiblingSums::copy(uint32_t parent, std::span<const uint32_t> ids,
                       std::span<const long double> values) {
  try {
    if (ids.size() != values.size()) invalid("sibling copy: as many ids as values needed");
    if (parents_.find(parent))
      invalid("sibling copy: the children of this parent are copied already");
    if (values_.size() + ids.size() > UINT32_MAX) invalid("sibling copy: too many children");
    const auto begin = static_cast<uint32_t>(values_.size());
    for (size_t i = 0; i < ids.size(); i++) {
      if (children_.find(ids[i]))
        invalid("sibling copy: association " + std::to_string(ids[i]) + " copied twice");
      children_.put(ids[i], static_cast<uint32_t>(values_.size()));
      values_.push_back(values[i]);
    }
    parents_.put(parent, Range{begin, static_cast<uint32_t>(values_.size())});
  } catch (...) {
    forget();
    throw;
  }
}

void SiblingSums::set(uint32_t id, long double value) noexcept {
  if (const uint32_t* at = children_.find(id)) values_[*at] = value;
}

void SiblingSums::forget() noexcept {
  parents_.forget();
  children_.forget();
  values_.clear();
}

}  // namespace fairway
