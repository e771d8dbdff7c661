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
  CHECK(note.find("4.15 GB as shipped") != std::string::npos);  // 3.87 GiB

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

// A release before 0.8 on a GPU V1 does not run (Turing) is V0 in its own right: it keeps its own
// step, where 0.8 and 0.9 fall back to V0 with 0.7's (the fallback took 0.4.3 for 0.7 before).
TEST_CASE("engine: vLLM before 0.8 on Turing keeps its own V0 defaults (s60)", "[engine]") {
  const auto& m = cat().model("llama-3.1-8b");
  gpuplan::EngineInputs in{.total_bytes = 14.56 * gpuplan::units::kGiB, .weights_bytes = 7.5 * gpuplan::units::kGiB,
                           .kv_bytes_per_token_per_gpu = 65536.0, .block_tokens = 16, .context_tokens = 65536,
                           .v1_unsupported = true};
  const auto run = [&](int minor, int patch) {
    return gpuplan::engine_memory(m, gpuplan::Layout{.tp = 2}, in,
                                  {.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = patch});
  };
  CHECK(run(4, 3).batched_tokens == 65536);  // no chunked prefill by default before 0.5.3
  CHECK(run(6, 4).batched_tokens == 512);    // chunked above 32K, 512 a step up to 0.6.4
  CHECK(run(8, 5).batched_tokens == 2048);   // V1 release falling back to V0: 0.7's 2048
  CHECK(run(8, 5).vllm_v0);
}

// V0 turns chunked prefill on above 32K only for models that allow it (vllm PR #6666's rule): a
// sliding-window model, a multimodal one (Gemma 3, whose windows interleave with full layers and
// so count as none from 0.6.5, vllm PR #10584) and, from 0.7.1, an MLA model (DeepSeek-V3) profile
// the whole max_model_len; a plain model takes the chunk, and so does Gemma 2 (text only,
// interleaved windows) from 0.6.5 but not before.
TEST_CASE("engine: vLLM V0 profiles sliding-window and MLA models unchunked (s60)", "[engine]") {
  const auto step = [](const char* model, int minor, int patch) {
    gpuplan::EngineInputs in{.total_bytes = 139.8 * gpuplan::units::kGiB, .weights_bytes = 20 * gpuplan::units::kGiB,
                             .kv_bytes_per_token_per_gpu = 65536.0, .block_tokens = 16, .context_tokens = 65536};
    return gpuplan::engine_memory(cat().model(model), gpuplan::Layout{}, in,
                                  {.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = patch})
        .batched_tokens;
  };
  CHECK(step("llama-3.1-8b", 7, 1) == 2048);
  CHECK(step("gemma-3-27b", 7, 3) == 65536);
  CHECK(step("deepseek-v3", 7, 1) == 65536);
  CHECK(step("gemma-3-27b", 8, 5) == 8192);  // V1: no such rule (the H200's large-GPU step)
  CHECK(step("gemma-2-27b", 6, 4) == 65536);
  CHECK(step("gemma-2-27b", 6, 5) == 2048);
  CHECK(step("gemma-2-27b", 7, 3) == 2048);
}
