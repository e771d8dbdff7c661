// A published-measurements file (validate --benchmarks with {"measured": [...]}): its rows read
// with the names their source wrote, then a few checked against the performance model, as the
// command does.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/measurement_file.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog& builtin = gpuplan::Catalog::builtin();
  const std::string_view text = gpuplan::fuzz::text_of(data, size);
  gpuplan::fuzz::expect_input_errors_only([&] {
    if (!gpuplan::is_measurement_file(text)) {
      return;  // validate reads it as the catalog format: fuzz_benchmarks covers that
    }
    gpuplan::MeasurementFile file = gpuplan::read_measurement_file(builtin, text, "fuzz.json");
    // A few rows per input keep each execution fast; the fuzzer varies which.
    if (file.benchmarks.size() > 4) {
      file.benchmarks.resize(4);
    }
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(builtin, gpuplan::Efficiency{}, file.benchmarks);
    for (const gpuplan::BenchmarkCheck& k : c.checks) {
      gpuplan::fuzz::require_figure(k.roofline_tokens_per_s, "roofline_tokens_per_s");
      gpuplan::fuzz::require_figure(k.estimate_tokens_per_s, "estimate_tokens_per_s");
    }
  });
  return 0;
}
