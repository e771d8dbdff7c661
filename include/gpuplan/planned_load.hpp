#pragma once
// The load a deployment is judged at: the concurrency the user plans for, spread over the
// replicas; or a target load (output tokens/s over the deployment), the smallest batch that
// serves it; or (when neither is given) full load, the largest batch memory and the engine
// allow. perf, cost, compare and plan files all use this one rule.

#include <cstdint>
#include <optional>
#include <string>

#include <gpuplan/error.hpp>
#include <gpuplan/load.hpp>
#include <gpuplan/perf.hpp>

namespace gpuplan {

/// ceil(concurrency / replicas) per replica, capped at full load (never below 1).
PlannedLoad planned_load(const PerfModel& model, std::optional<std::uint64_t> concurrency);

/// The smallest batch per replica at which the deployment's estimated output tokens/s reach
/// `target_output_tokens_per_s` (throughput grows with the batch); full load, `capped`, when
/// even that falls short. Also fills `replicas_for_target`.
PlannedLoad planned_load_for_target(const PerfModel& model, double target_output_tokens_per_s);

/// The load as asked for: the target when given, else the concurrency (else full load).
PlannedLoad planned_load(const PerfModel& model, std::optional<std::uint64_t> concurrency,
                         std::optional<double> target_output_tokens_per_s);

/// Replicas of the model's layout (its TP x PP, whatever its DP) that serve the target at full
/// load: ceil(target / one replica's output tokens/s), even past the largest deployment. 0 when
/// not even one sequence fits.
std::uint64_t replicas_for_target(const PerfModel& model, double target_output_tokens_per_s);

/// A target that needs more GPUs than the largest deployment (2^16): an input error, which
/// compare catches to leave that GPU out and compare the others.
class TargetBeyondDeployment : public InputError {
 public:
  using InputError::InputError;
};

/// A deployment given a target and no GPU count: sets `request.fit.layout.dp` (its TP x PP
/// kept) to the replicas that serve the target at full load, in whole expert-parallel groups.
/// Returns them; 0 (DP left at one group) when one replica cannot hold a sequence. Throws
/// TargetBeyondDeployment (perf.target_output_tokens_per_s) when they come to more than 2^16 GPUs, the
/// largest deployment.
std::uint64_t size_replicas_for_target(const ModelSpec& model, const GpuSpec& gpu, PerfRequest& request,
                                       double target_output_tokens_per_s);

/// "20,000": a target as people write it (whole tokens/s, rounded up).
std::string tokens_per_s_text(double tokens_per_s);

/// What a target load takes, one sentence for a command's notes; empty without a target.
/// `layout` is the deployment the load runs on.
std::string target_load_note(const PlannedLoad& load, const Layout& layout);

}  // namespace gpuplan
