// Speed of the performance model (Google Benchmark; run by hand, see README "Building and testing"):
// one configuration evaluated over and over; a sweep of every catalog GPU x TP layout x weight
// dtype x batch for a fixed model, counting PerfModel construction; construction alone.
#include <vector>

#include <benchmark/benchmark.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/perf.hpp>

namespace {

void BM_PerfEvaluate(benchmark::State& state) {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  gpuplan::PerfRequest request;
  request.fit.weights_dtype = gpuplan::DType::fp8;
  const gpuplan::PerfModel model(catalog.model("llama-3.1-70b"), catalog.gpu("h200-sxm"), request);
  const gpuplan::Efficiency efficiency;
  std::uint64_t batch = 0;
  for (auto _ : state) {
    batch = 1 + ((batch + 1) & 255);
    benchmark::DoNotOptimize(model.evaluate(batch, efficiency).output_tokens_per_s);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PerfEvaluate);

// Every GPU x TP {1,2,4,8} x {bf16, fp8, int4, fp4} x batch 1..1024 (powers of two) for
// llama-3.1-8b; items are batch evaluations, PerfModel construction included.
void BM_PerfSweep(benchmark::State& state) {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const gpuplan::ModelSpec& model = catalog.model("llama-3.1-8b");
  const gpuplan::Efficiency efficiency;
  const std::vector<gpuplan::DType> dtypes{gpuplan::DType::bf16, gpuplan::DType::fp8, gpuplan::DType::int4,
                                           gpuplan::DType::fp4};
  std::int64_t evaluations = 0;
  std::int64_t models = 0;
  for (auto _ : state) {
    for (const gpuplan::GpuSpec& gpu : catalog.gpus()) {
      for (std::uint64_t tp : {1U, 2U, 4U, 8U}) {
        for (gpuplan::DType dtype : dtypes) {
          gpuplan::PerfRequest r;
          r.fit.layout.tp = tp;
          r.fit.weights_dtype = dtype;
          r.input_tokens = 1024;
          r.output_tokens = 256;
          try {
            const gpuplan::PerfModel pm(model, gpu, r);
            ++models;
            for (std::uint64_t b = 1; b <= 1024; b *= 2) {
              benchmark::DoNotOptimize(pm.evaluate(b, efficiency).output_tokens_per_s);
              ++evaluations;
            }
          } catch (const gpuplan::InputError&) {
            // e.g. no figure for a type on this GPU: not a configuration
          }
        }
      }
    }
  }
  state.SetItemsProcessed(evaluations);
  state.counters["perf_models"] = benchmark::Counter(static_cast<double>(models) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_PerfSweep);

// Construction alone (fit, KV shape, layout checks): the cost of a new (GPU, layout, dtype).
void BM_PerfModelConstruction(benchmark::State& state) {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const gpuplan::ModelSpec& model = catalog.model("llama-3.1-8b");
  const gpuplan::GpuSpec& gpu = catalog.gpu("h100-sxm");
  gpuplan::PerfRequest request;
  request.fit.weights_dtype = gpuplan::DType::fp8;
  for (auto _ : state) {
    const gpuplan::PerfModel pm(model, gpu, request);
    benchmark::DoNotOptimize(pm.max_batch_by_memory());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PerfModelConstruction);

}  // namespace
