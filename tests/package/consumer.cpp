#include <cstdio>

#include <gpuplan/catalog.hpp>
#include <gpuplan/memory.hpp>

int main() {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const gpuplan::FitResult r = gpuplan::fit(catalog.model("llama-3.1-8b"), catalog.gpu("h100-sxm"),
                                            gpuplan::FitRequest{});
  std::printf("fits=%d weights_bytes=%.0f\n", r.fits ? 1 : 0, r.per_gpu.weights_bytes);
  return r.fits ? 0 : 1;
}
