#pragma once
// The ids of catalog entries, for closest-name suggestions (closest_names in catalog.hpp).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/model_spec.hpp>

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

/// Up to `limit` ids of `items` whose id or alias (a GPU's aliases, a model's repositories without
/// the owner) is closest to `name`, best first, each id once. The names people type most are
/// aliases ("h100", "4090", "dgx-spark"): with ids alone a typo of one never listed its part
/// ("h10x": h20, a10g, a10; helper s57 badinput F4).
template <typename T>
std::vector<std::string> closest_ids(std::string_view name, const std::vector<T>& items, std::size_t limit = 3) {
  std::vector<std::string> names;
  std::vector<const std::string*> owner;  // the id each of `names` is
  for (const T& item : items) {
    names.push_back(item.id);
    owner.push_back(&item.id);
    if constexpr (std::is_same_v<T, GpuSpec>) {
      for (const std::string& alias : item.aliases) {
        names.push_back(alias);
        owner.push_back(&item.id);
      }
    } else if constexpr (std::is_same_v<T, ModelSpec>) {
      const auto repo_name = [](const std::string& repo) { return repo.substr(repo.find('/') + 1); };
      if (!item.hf_repo.empty()) {
        names.push_back(repo_name(item.hf_repo));
        owner.push_back(&item.id);
      }
      for (const ModelAlias& alias : item.aliases) {
        names.push_back(repo_name(alias.hf_repo));
        owner.push_back(&item.id);
      }
    }
  }
  std::vector<std::string> ids;
  // Every name may be an alias of an id already listed: ask for all, keep the first of each id.
  for (const std::string& close : closest_names(name, names, names.size())) {
    const auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), close) - names.begin());
    if (at < names.size() && std::find(ids.begin(), ids.end(), *owner[at]) == ids.end()) {
      ids.push_back(*owner[at]);
      if (ids.size() == limit) {
        break;
      }
    }
  }
  return ids;
}

}  // namespace gpuplan::detail
