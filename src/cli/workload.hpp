#pragma once
// Workload and efficiency flags shared by perf, cost and compare.

#include <cstdint>

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
};

void add_workload_options(CLI::App& sub, WorkloadOptions& o);
/// Fills a PerfRequest's workload, efficiency and network from the flags.
void apply_workload(const WorkloadOptions& o, PerfRequest& request);

}  // namespace gpuplan::cli
