#pragma once
// Workload and efficiency flags shared by perf, cost and compare.

#include <cstdint>
#include <optional>

#include <CLI/CLI.hpp>

#include <gpuplan/perf.hpp>

namespace gpuplan::cli {

struct WorkloadOptions {
  std::uint64_t input = 1024;
  std::uint64_t output = 256;
  bool sparse = false;
  Efficiency efficiency;
  double step_overhead_ms = Efficiency{}.step_overhead_s * 1e3;
  double network_gbit_per_s = 400;
  std::uint64_t max_batch = kDefaultEngineMaxBatch;
  std::uint64_t concurrency = 0;  ///< --concurrency: the planned load; 0: full load
};

/// Adds the workload flags; `concurrency` adds --concurrency (fit has its own).
void add_workload_options(CLI::App& sub, WorkloadOptions& o, bool concurrency = true);
/// The planned load: --concurrency when given, else unset (full load).
std::optional<std::uint64_t> planned_concurrency(const WorkloadOptions& o);
/// Fills a PerfRequest's workload, efficiency and network from the flags.
void apply_workload(const WorkloadOptions& o, PerfRequest& request);

}  // namespace gpuplan::cli
