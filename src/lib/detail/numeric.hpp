#pragma once
// Small numeric helpers and constants the library's model files share (each defined once, so
// the files can also be compiled together, as the unity builds of the asan and fuzz presets do).

#include <cstdint>

namespace gpuplan::detail {

/// A count as a double, for the model's arithmetic.
constexpr double d(std::uint64_t v) { return static_cast<double>(v); }

/// `value` rounded up to a multiple of `step` (unchanged when step is 0).
constexpr std::uint64_t round_up(std::uint64_t value, std::uint64_t step) {
  return step == 0 ? value : (value + step - 1) / step * step;
}

/// Bytes per element of the bf16 hidden states that pass between layers and over links.
inline constexpr double kActivationBytes = 2.0;

/// Bytes per bf16 and fp32 element (training's weights, gradients and optimizer state).
inline constexpr double kBf16Bytes = 2.0;
inline constexpr double kFp32Bytes = 4.0;

}  // namespace gpuplan::detail
