// Uses gpuplan as a library: does Llama-3.1-70B in FP8 fit one H200, and how many 32K-token
// users can it serve? Links only gpuplan::gpuplan.
#include <cstdio>

#include <gpuplan/catalog.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

int main() {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const gpuplan::FitResult r = gpuplan::fit(
      catalog.model("llama-3.1-70b"), catalog.gpu("h200-sxm"),
      gpuplan::FitRequest{.weights_dtype = gpuplan::DType::fp8, .context_tokens = 32768, .concurrency = 4});
  std::printf("fits: %s, weights %.1f GB, KV budget %.1f GB, max users at 32K: %llu\n",
              r.fits ? "yes" : "no", r.per_gpu.weights_bytes / gpuplan::units::kGB,
              r.per_gpu.kv_budget_bytes / gpuplan::units::kGB,
              static_cast<unsigned long long>(r.max_concurrent_sequences.value_or(0)));
  return r.fits ? 0 : 1;
}
