// Speed of the planner behind `gpuplan plan` (the sweep): llama-3.1-70b at 2,048 input +
// 256 output tokens, 50,000 output tok/s with ITL <= 50 ms and TTFT <= 2 s, over every priced
// GPU x every weights and KV format it takes x every replica layout up to 64 GPUs x batches
// 1..4096. The goal: the whole search within 1 s on one core, at least 1 M configurations/s.
// Counters: layouts enumerated and timed, (layout, batch) configurations evaluated, and their rate.
// `bisect` is what plan runs (latency grows with the batch); `exhaustive` evaluates every batch.
#include <benchmark/benchmark.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/planner.hpp>

namespace {

gpuplan::PlanRequest sweep_request(const gpuplan::Catalog& catalog, gpuplan::BatchSearch search) {
  gpuplan::PlanRequest r;
  // As `gpuplan plan --input 2048 --output 256 --max-batch 4096` fills it (apply_workload; the sweep).
  r.perf.input_tokens = 2048;
  r.perf.output_tokens = 256;
  r.perf.fit.context_tokens = r.perf.input_tokens + r.perf.output_tokens;
  r.perf.fit.concurrency = 1;
  r.perf.max_batch = 4096;
  r.max_gpus_per_replica = 64;
  r.today = catalog.today();
  r.targets.output_tokens_per_s = 50000;
  r.targets.max_itl_s = 0.050;
  r.targets.max_ttft_s = 2.0;
  r.batch_search = search;
  return r;
}

void plan_sweep(benchmark::State& state, gpuplan::BatchSearch search) {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const gpuplan::ModelSpec& model = catalog.model("llama-3.1-70b");
  const gpuplan::PlanRequest request = sweep_request(catalog, search);
  gpuplan::PlanCounts counts;
  for (auto _ : state) {
    const gpuplan::PlanResult result = gpuplan::plan(catalog, model, request);
    benchmark::DoNotOptimize(result.configurations.data());
    counts = result.counts;
  }
  const auto per_search = [](std::uint64_t n) { return benchmark::Counter(static_cast<double>(n)); };
  state.counters["layouts"] = per_search(counts.layouts);
  state.counters["pruned"] = per_search(counts.pruned);
  state.counters["timed"] = per_search(counts.timed);
  state.counters["evaluated"] = per_search(counts.evaluated);
  state.counters["feasible"] = per_search(counts.feasible);
  state.counters["configurations_per_s"] = benchmark::Counter(
      static_cast<double>(counts.evaluated) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(counts.evaluated));
}

void BM_PlanSweep_bisect(benchmark::State& state) { plan_sweep(state, gpuplan::BatchSearch::bisect); }
void BM_PlanSweep_exhaustive(benchmark::State& state) { plan_sweep(state, gpuplan::BatchSearch::exhaustive); }
BENCHMARK(BM_PlanSweep_bisect)->Unit(benchmark::kMillisecond);
// Minutes on this machine: one run is enough.
BENCHMARK(BM_PlanSweep_exhaustive)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
