// Helper s60 (engines): a checkpoint that packs its linear layers (GPTQ here) sized at 16 bits by
// --weights-dtype, as a user copying vLLM's `--dtype float16` would: the engines load it packed,
// so the fit says what the flag sized and what the checkpoint holds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

#include "test_support.hpp"

using gpuplan::DType;
using gpuplan::Engine;
using gpuplan::FitRequest;
using gpuplan::test::cat;

namespace {

bool has_dequantized_note(const gpuplan::FitResult& r) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [](const std::string& n) { return n.find("de-quantized copy") != std::string::npos; });
}

}  // namespace

TEST_CASE("fit: a GPTQ checkpoint sized at 16 bits says engines load it packed (s60)", "[engine][hf]") {
  const auto model = gpuplan::model_from_hf_config_file(std::string(GPUPLAN_FIXTURES_DIR) +
                                                        "/hf-dir-mistral-7b-instruct-v0.2-gptq/config.json");
  REQUIRE(model.checkpoint_quant);
  REQUIRE(model.shipped_formats);
  FitRequest req{.weights_dtype = DType::fp16, .context_tokens = 32768};
  req.engine.engine = Engine::vllm;
  const auto wide = gpuplan::fit(model, cat().gpu("gb10"), req);
  REQUIRE(has_dequantized_note(wide));
  const auto note = *std::find_if(wide.notes.begin(), wide.notes.end(), [](const std::string& n) {
    return n.find("de-quantized copy") != std::string::npos;
  });
  CHECK(note.find("gptq") != std::string::npos);
  CHECK(note.find("--weights-dtype fp16") != std::string::npos);
  // 7.24 B parameters at 2 bytes against the 4-bit checkpoint vLLM logged at 3.8844 GiB (the
  // arm-learning-paths DGX Spark log, tests/fixtures/engine-logs-s60-sources.md).
  CHECK(wide.per_gpu.weights_bytes / gpuplan::units::kGiB > 13.0);
  CHECK(note.find("3.87 GiB as shipped") != std::string::npos);

  // Served as shipped, or a 16-bit model at 16 bits: no such note.
  FitRequest shipped{.context_tokens = 32768};
  shipped.weight_formats = *model.shipped_formats;
  shipped.engine.engine = Engine::vllm;
  CHECK_FALSE(has_dequantized_note(gpuplan::fit(model, cat().gpu("gb10"), shipped)));
  CHECK_FALSE(has_dequantized_note(gpuplan::fit(cat().model("llama-3.1-8b"), cat().gpu("l4"), FitRequest{})));
  // A format the checkpoint does not pack into 16 bits (fp8 over a GPTQ checkpoint) is another
  // checkpoint, not a de-quantized copy.
  FitRequest fp8{.weights_dtype = DType::fp8, .context_tokens = 32768};
  CHECK_FALSE(has_dequantized_note(gpuplan::fit(model, cat().gpu("h100-sxm"), fp8)));
}
