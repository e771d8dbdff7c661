#pragma once
// The median of a sample: validation and cross-validation errors, GPU-ratio misses.

#include <algorithm>
#include <vector>

namespace gpuplan::detail {

/// The middle value (the mean of the two middle ones for an even count); 0 for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) {
    return 0.0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace gpuplan::detail
