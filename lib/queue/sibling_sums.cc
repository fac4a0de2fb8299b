#include "sibling_sums.h"

#include <string>

#include "error.h"

namespace fairway {

std::optional<long double> SiblingSums::sum(uint32_t parent) const noexcept {
  const auto it = parents_.find(parent);
  if (it == parents_.end()) return std::nullopt;
  long double s = 0;
  for (size_t i = it->second.begin; i < it->second.end; i++) s += values_[i];
  return s;
}

void SiblingSums::copy(uint32_t parent, std::span<const uint32_t> ids,
                       std::span<const long double> values) {
  if (ids.size() != values.size()) invalid("sibling copy: as many ids as values needed");
  if (parents_.count(parent))
    invalid("sibling copy: the children of this parent are copied already");
  const size_t begin = values_.size();
  size_t added = 0;
  try {
    for (; added < ids.size(); added++) {
      values_.push_back(values[added]);
      if (!children_.emplace(ids[added], begin + added).second)
        invalid("sibling copy: association " + std::to_string(ids[added]) + " copied twice");
    }
    parents_.emplace(parent, Range{begin, values_.size()});
  } catch (...) {  // nothing of this parent kept
    for (size_t i = 0; i < added; i++) children_.erase(ids[i]);
    values_.resize(begin);
    throw;
  }
}

void SiblingSums::set(uint32_t id, long double value) noexcept {
  const auto it = children_.find(id);
  if (it != children_.end()) values_[it->second] = value;
}

void SiblingSums::forget() noexcept {
  parents_.clear();
  children_.clear();
  values_.clear();
}

}  // namespace fairway
