// Helper s61 (engines): serving-engine startup results the earlier cases did not use, each
// reproduced with gpuplan's engine arithmetic. Sources and the lines read are in
// tests/fixtures/engine-logs-s61-sources.md. Tolerance as in test_engine_logs.cpp: 5 %, or
// 0.5 GiB under 10 GiB.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

#include "test_support.hpp"

using gpuplan::DType;
using gpuplan::Engine;
using gpuplan::EngineSettings;
using gpuplan::FitRequest;
using gpuplan::test::cat;
using gpuplan::units::kGiB;

// myoceane.fr "[AI] vLLM 部署地端模型系統訊息記錄 A100" (2026-04-18): vLLM 0.19.0, `vllm serve
// openai/gpt-oss-20b --max-model-len 131072 --gpu-memory-utilization 0.65` on an A100 (80 GB:
// the same post runs Gemma-4-26B-A4B's 48.5 GiB of weights beside 21.5 GiB of KV cache at 0.9).
// Logged "Model loading took 13.72 GiB", "Available KV cache memory: 36.56 GiB".
TEST_CASE("engine logs: vLLM 0.19 gpt-oss-20b on an A100 80GB at 0.65 (s61)", "[engine][reference]") {
  const auto& m = cat().model("gpt-oss-20b");
  REQUIRE(m.shipped_formats);
  FitRequest req{.weight_formats = *m.shipped_formats, .context_tokens = 131072};
  req.engine = EngineSettings{.engine = Engine::vllm, .gpu_memory_utilization = 0.65, .vllm_minor_version = 19,
                              .vllm_patch_version = 0};
  const auto r = gpuplan::fit(m, cat().gpu("a100-sxm-80gb"), req);
  REQUIRE(r.engine);
  CHECK(std::abs(r.engine->weights_bytes / kGiB - 13.72) < 0.15);
  CHECK(std::abs(r.engine->kv_bytes / kGiB - 36.56) <= 0.05 * 36.56);
  CHECK(r.fits);
}

// "Running OpenAI gpt-oss-20b with 128k context on a single L4 GPU" (Alexey Nizhegolenko, dev.to,
// May 2026, mirrored at ai-navigate-news.com): in production on one L4 (24 GB) since November
// 2025 at a 128,000-token context. The KV cache must hold one such sequence at vLLM's default
// share.
TEST_CASE("engine logs: gpt-oss-20b at 128K on one L4 starts under vLLM (s61)", "[engine][reference]") {
  const auto& m = cat().model("gpt-oss-20b");
  FitRequest req{.weight_formats = *m.shipped_formats, .context_tokens = 128000};
  req.engine = EngineSettings{.engine = Engine::vllm, .gpu_memory_utilization = 0.9, .vllm_minor_version = 11};
  const auto r = gpuplan::fit(m, cat().gpu("l4"), req);
  REQUIRE(r.engine);
  CHECK(r.fits);
}

// https://github.com/QwenLM/Qwen3/issues/12 (2024-02-06, vLLM of that month: 0.3.0 taken):
// `--model Qwen1.5-14B-Chat --dtype half --gpu-memory-utilization 0.95` on a 32 GB V100 stops at
// "No available memory for the cache blocks". Qwen1.5-14B is MHA (40 KV heads): 26.4 GiB of fp16
// weights and V0's profiling step of max_model_len = 32,768 tokens leave no room for one
// 32K-token sequence (25 GiB of KV cache): it must not fit.
TEST_CASE("engine logs: vLLM 0.3 Qwen1.5-14B fp16 on a V100 32GB does not start (s61)", "[engine][reference]") {
  const auto m =
      gpuplan::model_from_hf_config_file(std::string(GPUPLAN_FIXTURES_DIR) + "/hf-s61-qwen1.5-14b-chat.json");
  FitRequest req{.weights_dtype = DType::fp16, .kv_dtype = DType::fp16, .context_tokens = 32768};
  req.engine = EngineSettings{.engine = Engine::vllm, .gpu_memory_utilization = 0.95, .vllm_minor_version = 3,
                              .vllm_patch_version = 0};
  const auto r = gpuplan::fit(m, cat().gpu("v100-pcie-32gb"), req);
  REQUIRE(r.engine);
  CHECK(std::abs(r.engine->weights_bytes / kGiB - 26.39) < 0.1);
  CHECK_FALSE(r.fits);
  CHECK(r.engine->kv_bytes / kGiB < 1.0);
}
