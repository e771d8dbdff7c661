// A benchmarks file (validate --benchmarks), read as the command reads it: published measurements
// ({"measured": [...]}, names and layouts as their source wrote them) or the catalog format
// (merged like a catalog); then a few benchmarks are checked against the performance model.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/measurement_file.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog& builtin = gpuplan::Catalog::builtin();
  const std::string_view text = gpuplan::fuzz::text_of(data, size);
  gpuplan::fuzz::expect_input_errors_only([&] {
    gpuplan::Catalog catalog = builtin;
    std::vector<gpuplan::Benchmark> chosen;
    if (gpuplan::is_measurement_file(text)) {
      chosen = gpuplan::read_measurement_file(catalog, text, "fuzz.json").benchmarks;
    } else {
      (void)catalog.merge_text(text, "fuzz.json");
      for (const gpuplan::Benchmark& b : catalog.benchmarks()) {
        if (b.origin == "fuzz.json") {
          chosen.push_back(b);
        }
      }
    }
    // A few per input keep each execution fast; the fuzzer varies which.
    if (chosen.size() > 4) {
      chosen.resize(4);
    }
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(catalog, gpuplan::Efficiency{}, chosen);
    for (const gpuplan::BenchmarkCheck& k : c.checks) {
      gpuplan::fuzz::require_figure(k.roofline_tokens_per_s, "roofline_tokens_per_s");
      gpuplan::fuzz::require_figure(k.estimate_tokens_per_s, "estimate_tokens_per_s");
    }
  });
  return 0;
}
