// Size, count, date and measured-point strings as flags and files give them ("80GiB", "744B",
// "2026-04-15", "4=3600"). The first byte picks the parser; the rest is the text.
#include <cstddef>
#include <cstdint>

#include <gpuplan/measured_points.hpp>
#include <gpuplan/price.hpp>
#include <gpuplan/units.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view text = gpuplan::fuzz::text_of(data + 1, size - 1);
  gpuplan::fuzz::expect_input_errors_only([&] {
    switch (data[0] % 4) {
      case 0:
        gpuplan::fuzz::require_figure(gpuplan::units::parse_bytes(text, "--size"), "parse_bytes");
        break;
      case 1:
        gpuplan::fuzz::require_figure(gpuplan::units::parse_count(text, "--count"), "parse_count");
        break;
      case 2:
        (void)gpuplan::parse_iso_date(text, "date");
        break;
      default: {
        const gpuplan::ScalingPoint p = gpuplan::parse_measured_entry(text, "--measured");
        gpuplan::fuzz::require_figure(p.throughput, "throughput");
      }
    }
  });
  return 0;
}
