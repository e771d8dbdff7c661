// Speed of the performance model, run by hand (never by ctest):
//   cmake --build --preset release --target gpuplan_bench_perf && ./build/release/tests/gpuplan_bench_perf
// 1. one configuration evaluated over and over; 2. a sweep of every catalog GPU x TP layout x
// weight dtype x batch for a fixed model, counting PerfModel construction.
#include <chrono>
#include <cstdio>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/perf.hpp>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main() {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const gpuplan::Efficiency efficiency;

  // 1. One configuration.
  gpuplan::PerfRequest request;
  request.fit.weights_dtype = gpuplan::DType::fp8;
  const gpuplan::PerfModel one(catalog.model("llama-3.1-70b"), catalog.gpu("h200-sxm"), request);
  constexpr int kRepeats = 2'000'000;
  double sink = 0;
  auto start = Clock::now();
  for (int i = 0; i < kRepeats; ++i) {
    sink += one.evaluate(static_cast<std::uint64_t>(1 + (i & 255)), efficiency).output_tokens_per_s;
  }
  const double single_s = seconds_since(start);
  std::printf("single configuration: %d evaluations in %.3f s = %.1f ns each\n", kRepeats, single_s,
              single_s / kRepeats * 1e9);

  // 2. The sweep.
  const std::vector<gpuplan::DType> dtypes{gpuplan::DType::bf16, gpuplan::DType::fp8, gpuplan::DType::int4,
                                           gpuplan::DType::fp4};
  std::vector<std::uint64_t> batches;
  for (std::uint64_t b = 1; b <= 1024; b *= 2) {
    batches.push_back(b);
  }
  const auto& model = catalog.model("llama-3.1-8b");
  long long configurations = 0;
  long long models = 0;
  start = Clock::now();
  for (const gpuplan::GpuSpec& gpu : catalog.gpus()) {
    for (std::uint64_t tp : {1u, 2u, 4u, 8u}) {
      for (gpuplan::DType dtype : dtypes) {
        gpuplan::PerfRequest r;
        r.fit.layout.tp = tp;
        r.fit.weights_dtype = dtype;
        r.input_tokens = 1024;
        r.output_tokens = 256;
        try {
          const gpuplan::PerfModel pm(model, gpu, r);
          ++models;
          for (int repeat = 0; repeat < 1000; ++repeat) {
            for (std::uint64_t b : batches) {
              sink += pm.evaluate(b, efficiency).output_tokens_per_s;
              ++configurations;
            }
          }
        } catch (const gpuplan::InputError&) {
          // e.g. no sparse/dense figure for a type on this GPU: not a configuration
        }
      }
    }
  }
  const double sweep_s = seconds_since(start);
  std::printf("sweep: %lld PerfModels (GPU x TP x dtype), %lld batch evaluations in %.3f s = %.2f M/s\n", models,
              configurations, sweep_s, static_cast<double>(configurations) / sweep_s / 1e6);

  // Construction alone (fit, KV shape, layout checks), the cost of a new (GPU, layout, dtype).
  start = Clock::now();
  constexpr int kBuilds = 20'000;
  for (int i = 0; i < kBuilds; ++i) {
    const gpuplan::PerfModel pm(model, catalog.gpu("h100-sxm"), request);
    sink += static_cast<double>(pm.max_batch_by_memory());
  }
  const double build_s = seconds_since(start);
  std::printf("PerfModel construction: %.2f us each\n", build_s / kBuilds * 1e6);
  return sink > 0 ? 0 : 1;
}
