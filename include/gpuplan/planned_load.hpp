#pragma once
// The load a deployment is judged at: the concurrency the user plans for, spread over the
// replicas, or (when none is given) full load, the largest batch memory and the engine allow.
// perf, cost, compare and plan files all use this one rule.

#include <cstdint>
#include <optional>

#include <gpuplan/perf.hpp>

namespace gpuplan {

struct PlannedLoad {
  std::optional<std::uint64_t> concurrency;  ///< over the deployment; unset: full load
  std::uint64_t batch = 1;                   ///< sequences per replica the estimate runs at
  bool capped = false;  ///< the concurrency needs more than memory and the engine allow per replica
  [[nodiscard]] bool full_load() const { return !concurrency.has_value(); }
};

/// ceil(concurrency / replicas) per replica, capped at full load (never below 1).
PlannedLoad planned_load(const PerfModel& model, std::optional<std::uint64_t> concurrency);

}  // namespace gpuplan
