#pragma once
// Workload and efficiency flags shared by perf, cost and compare.

#include <cstdint>
#include <optional>

#include <CLI/CLI.hpp>

#include <gpuplan/perf.hpp>

#include "deployment.hpp"

namespace gpuplan::cli {

struct WorkloadOptions {
  std::uint64_t input = 1024;
  std::uint64_t output = 256;
  bool sparse = false;
  Efficiency efficiency;
  double step_overhead_ms = Efficiency{}.step_overhead_s * 1e3;
  double layer_overhead_us = Efficiency{}.layer_overhead_s * 1e6;
  double network_gbit_per_s = 400;
  std::uint64_t max_batch = kDefaultEngineMaxBatch;
  bool max_batch_given = false;  ///< --max-batch given; else default_max_batch(engine)
  std::uint64_t concurrency = 0;  ///< --concurrency: the planned load; 0: full load
  double target_output_tokens_per_s = 0;  ///< --target-output-tokens-per-s, instead; 0: not given
  std::string arrivals;  ///< --arrivals burst|poisson; empty: poisson under a target rate, else burst
  std::uint64_t cached_input = 0;  ///< --cached-input: prompt tokens the prefix cache holds
};

/// A target output rate (after decimal_number(): a finite decimal): at least 1, at most 1e10 tok/s,
/// past what 2^16 GPUs (the largest deployment) could serve of any model.
CLI::Validator target_validator();

/// Adds the workload flags; `concurrency` adds --concurrency (fit has its own), `target` adds
/// --target-output-tokens-per-s as the other way to give the load (plan has its own).
void add_workload_options(CLI::App& sub, WorkloadOptions& o, bool concurrency = true, bool target = true);
/// Adds --arrivals (perf and plan: the commands that print a TTFT per load).
void add_arrivals_option(CLI::App& sub, WorkloadOptions& o);
/// Adds --cached-input (perf, cost, compare, scale, plan, plan files): prompt tokens per request the engine's prefix cache already holds.
void add_cached_input_option(CLI::App& sub, WorkloadOptions& o);
/// --arrivals when given, else poisson when a target rate drives the load, else burst.
Arrivals arrivals_for(const WorkloadOptions& o, bool target_rate);
/// The planned load: --concurrency when given, else unset (full load).
std::optional<std::uint64_t> planned_concurrency(const WorkloadOptions& o);
/// The planned load as output tokens/s over the deployment, unset when not given.
std::optional<double> planned_target(const WorkloadOptions& o);
/// A target and no GPU count (--gpus, --nodes, --mig): the deployment is as many replicas as the
/// target needs, as a plan file without `gpus` is; the replica is the layout rule's among one
/// node's layouts, or the given TP x PP.
bool size_for_target(const WorkloadOptions& w, const DeploymentOptions& d);
/// The GPUs the layout rule searches for one replica: one node's when the deployment is sized
/// for a target and no TP x PP is given, else `gpus`.
std::uint64_t layout_search_gpus(bool sized_for_target, bool layout_given, std::uint64_t gpus_per_node,
                                 std::uint64_t gpus);
/// Fills a PerfRequest's workload, efficiency and network from the flags.
void apply_workload(const WorkloadOptions& o, PerfRequest& request);

}  // namespace gpuplan::cli
