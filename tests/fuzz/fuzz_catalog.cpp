// A user catalog (--catalog, GPUPLAN_CATALOG, catalog validate) merged over the built-in one,
// so overrides of shipped GPUs and models are reached too.
#include <cstddef>
#include <cstdint>

#include <gpuplan/catalog.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog& builtin = gpuplan::Catalog::builtin();
  gpuplan::fuzz::expect_input_errors_only([&] {
    gpuplan::Catalog catalog = builtin;
    (void)catalog.merge_text(gpuplan::fuzz::text_of(data, size), "fuzz.json");
  });
  return 0;
}
