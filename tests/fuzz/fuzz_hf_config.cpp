// A Hugging Face config.json (--model-config), quantization_config included; a model it
// yields must give finite KV-cache figures.
#include <cstddef>
#include <cstdint>

#include <gpuplan/catalog.hpp>
#include <gpuplan/kv_cache.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuplan::fuzz::expect_input_errors_only([&] {
    const gpuplan::ModelSpec m = gpuplan::model_from_hf_config(gpuplan::fuzz::text_of(data, size), "config.json");
    gpuplan::fuzz::require_figure(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16), "kv_bytes_per_token");
    gpuplan::fuzz::require_figure(gpuplan::linear_state_bytes_per_sequence(m), "linear_state_bytes_per_sequence");
  });
  return 0;
}
