// A benchmarks file (validate --benchmarks): merged like a catalog, then its benchmarks are
// checked against the performance model, as the command does.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog& builtin = gpuplan::Catalog::builtin();
  gpuplan::fuzz::expect_input_errors_only([&] {
    gpuplan::Catalog catalog = builtin;
    (void)catalog.merge_text(gpuplan::fuzz::text_of(data, size), "fuzz.json");
    std::vector<gpuplan::Benchmark> chosen;
    for (const gpuplan::Benchmark& b : catalog.benchmarks()) {
      // A few per input keep each execution fast; the fuzzer varies which.
      if (b.origin == "fuzz.json" && chosen.size() < 4) {
        chosen.push_back(b);
      }
    }
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(catalog, gpuplan::Efficiency{}, chosen);
    for (const gpuplan::BenchmarkCheck& k : c.checks) {
      gpuplan::fuzz::require_figure(k.roofline_tokens_per_s, "roofline_tokens_per_s");
      gpuplan::fuzz::require_figure(k.estimate_tokens_per_s, "estimate_tokens_per_s");
    }
  });
  return 0;
}
