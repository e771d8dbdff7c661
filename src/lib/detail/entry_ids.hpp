#pragma once
// The ids of catalog entries, for closest-name suggestions (closest_names in catalog.hpp).

#include <string>
#include <vector>

namespace gpuplan::detail {

/// The `id` of each entry, in order.
template <typename T>
std::vector<std::string> ids_of(const std::vector<T>& items) {
  std::vector<std::string> ids;
  ids.reserve(items.size());
  for (const T& item : items) {
    ids.push_back(item.id);
  }
  return ids;
}

}  // namespace gpuplan::detail
