#pragma once
// The load a deployment is judged at, as a result carries it (planned_load.hpp computes it).

#include <cstdint>
#include <optional>

namespace gpuplan {

struct PlannedLoad {
  std::optional<std::uint64_t> concurrency;  ///< over the deployment; unset: full load
  std::optional<double> target_output_tokens_per_s;  ///< over the deployment, instead of a concurrency
  std::uint64_t batch = 1;                   ///< sequences per replica the estimate runs at
  /// The concurrency or the target needs more than memory and the engine allow per replica.
  bool capped = false;
  /// With a target: replicas of the layout's TP x PP that serve it at full load.
  std::uint64_t replicas_for_target = 0;
  /// With a target and no GPU count: the replicas the deployment was sized to (0: count given).
  std::uint64_t sized_replicas = 0;
  [[nodiscard]] bool full_load() const { return !concurrency && !target_output_tokens_per_s; }
};

}  // namespace gpuplan
