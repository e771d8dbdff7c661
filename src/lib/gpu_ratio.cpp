#include <gpuplan/gpu_ratio.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "detail/ascii.hpp"
#include "detail/median.hpp"

namespace gpuplan {
namespace {

// Model, scenario, lengths, the requests in flight when a row fixes them (0: max load) and the
// engine: rows at different concurrencies, or of different software, are no pair.
using Key = std::tuple<std::string, std::string, std::uint64_t, std::uint64_t, std::uint64_t, std::string>;

double per_gpu(double tokens_per_s, const Benchmark& b) {
  return tokens_per_s / static_cast<double>(b.layout.gpus());
}

}  // namespace

std::vector<GpuRatioGroup> gpu_ratios(std::span<const BenchmarkCheck> checks, std::string_view baseline) {
  // One check per (key, GPU): the fewest GPUs, then the first listed.
  std::map<Key, std::map<std::string, const BenchmarkCheck*>> by_key;
  for (const BenchmarkCheck& k : checks) {
    if (!k.has_estimate || k.benchmark == nullptr) {
      continue;
    }
    const Benchmark& b = *k.benchmark;
    const std::uint64_t in_flight = b.scenario == "server" ? b.max_batch * b.layout.dp : 0;
    const BenchmarkCheck*& slot = by_key[{b.model, b.scenario, b.input_tokens, b.output_tokens, in_flight, detail::lower(b.engine)}][b.gpu];
    if (slot == nullptr || b.layout.gpus() < slot->benchmark->layout.gpus()) {
      slot = &k;
    }
  }
  std::map<std::pair<std::string, std::string>, GpuRatioGroup> groups;
  for (const auto& [key, gpus] : by_key) {
    const auto base = gpus.find(std::string(baseline));
    if (base == gpus.end()) {
      continue;
    }
    const BenchmarkCheck& b0 = *base->second;
    const double measured0 = per_gpu(b0.benchmark->output_tokens_per_s, *b0.benchmark);
    const double estimated0 = per_gpu(b0.estimate_tokens_per_s, *b0.benchmark);
    for (const auto& [gpu, k] : gpus) {
      if (gpu == baseline) {
        continue;
      }
      GpuRatioGroup& g = groups[{std::get<0>(key), gpu}];
      g.model = std::get<0>(key);
      g.gpu = gpu;
      g.baseline = std::string(baseline);
      g.ratios.push_back({.input_tokens = std::get<2>(key),
                          .output_tokens = std::get<3>(key),
                          .measured = per_gpu(k->benchmark->output_tokens_per_s, *k->benchmark) / measured0,
                          .estimated = per_gpu(k->estimate_tokens_per_s, *k->benchmark) / estimated0});
    }
  }
  std::vector<GpuRatioGroup> out;
  for (auto& [name, g] : groups) {
    std::vector<double> misses;
    for (const GpuRatio& r : g.ratios) {
      const double p = r.error_points();
      misses.push_back(std::abs(p));
      if (std::abs(p) > std::abs(g.worst_points)) {
        g.worst_points = p;
      }
      g.within_target += std::abs(p) <= kRatioTargetPoints ? 1 : 0;
    }
    g.median_abs_points = detail::median(std::move(misses));
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace gpuplan
