// Measured scaling points: a --measured-file (JSON or CSV).
#include <cstddef>
#include <cstdint>

#include <gpuplan/measured_points.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuplan::fuzz::expect_input_errors_only([&] {
    const gpuplan::MeasuredPoints p = gpuplan::parse_measured_text(gpuplan::fuzz::text_of(data, size), "points.csv");
    for (const gpuplan::ScalingPoint& point : p.points) {
      gpuplan::fuzz::require_figure(point.throughput, "throughput");
    }
  });
  return 0;
}
