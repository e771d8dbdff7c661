#pragma once
// The load a deployment is judged at: the concurrency the user plans for, spread over the
// replicas; or a target load (output tokens/s over the deployment, plan files), the smallest
// batch that serves it; or (when neither is given) full load, the largest batch memory and the
// engine allow. perf, cost, compare and plan files all use this one rule.

#include <cstdint>
#include <optional>

#include <gpuplan/perf.hpp>

namespace gpuplan {

struct PlannedLoad {
  std::optional<std::uint64_t> concurrency;  ///< over the deployment; unset: full load
  std::optional<double> target_output_tokens_per_s;  ///< over the deployment, instead of a concurrency
  std::uint64_t batch = 1;                   ///< sequences per replica the estimate runs at
  /// The concurrency or the target needs more than memory and the engine allow per replica.
  bool capped = false;
  [[nodiscard]] bool full_load() const { return !concurrency && !target_output_tokens_per_s; }
};

/// ceil(concurrency / replicas) per replica, capped at full load (never below 1).
PlannedLoad planned_load(const PerfModel& model, std::optional<std::uint64_t> concurrency);

/// The smallest batch per replica at which the deployment's estimated output tokens/s reach
/// `target_output_tokens_per_s` (throughput grows with the batch); full load, `capped`, when
/// even that falls short.
PlannedLoad planned_load_for_target(const PerfModel& model, double target_output_tokens_per_s);

/// Replicas of the model's layout (its TP x PP, whatever its DP) that serve the target at full
/// load: ceil(target / one replica's output tokens/s). 0 when not even one sequence fits.
std::uint64_t replicas_for_target(const PerfModel& model, double target_output_tokens_per_s);

}  // namespace gpuplan
