// Serving-engine startup logs new to the suite (helper s60 engines; transcriptions with their
// sources in tests/fixtures/engine-logs-s60-sources.md). Tolerance as in test_engine_logs.cpp
// (issue 7): 5 %, or 0.5 GiB for budgets under 10 GiB. Cases that gpuplan does not reproduce record
// the gap instead of tuning a constant to it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

#include "test_support.hpp"

using gpuplan::DType;
using gpuplan::Engine;
using gpuplan::EngineInputs;
using gpuplan::EngineSettings;
using gpuplan::FitRequest;
using gpuplan::Layout;
using gpuplan::test::cat;
using gpuplan::units::kGiB;

namespace {

bool within_tolerance_s60(double predicted_gib, double logged_gib) {
  const double tolerance = std::abs(logged_gib) < 10.0 ? 0.5 : 0.05 * std::abs(logged_gib);
  return std::abs(predicted_gib - logged_gib) <= tolerance;
}

double token_ratio(std::uint64_t predicted, double logged) { return static_cast<double>(predicted) / logged; }

}  // namespace

// A public "8 x L40S" hosting note (code-search file id 38962983769, 2025-09-24): vLLM 0.10.2,
// Qwen/Qwen3-235B-A22B-Instruct-2507-FP8, --tensor-parallel-size 8 --enable-expert-parallel
// --gpu-memory-utilization 0.90 --max-model-len 32K (the note's heading says TP 4; its log is TP 8:
// eight workers of 27.7183 GiB each). Logged: "Available KV cache memory: 10.65 GiB", "GPU KV cache
// size: 238,208 tokens", and "Free memory on device (43.93/44.42 GiB) ... 27.72 GiB for weight, 1.4
// GiB for peak activation, 0.21 GiB for non-torch memory". One 128-wide KV head per GPU x 94 layers.
TEST_CASE("engine logs s60: vLLM 0.10.2 Qwen3-235B-2507 FP8 on 8 x L40S, TP 8 EP 8", "[engine][reference]") {
  FitRequest req{.layout = Layout{.tp = 8, .ep = 8}, .weights_dtype = DType::fp8, .context_tokens = 32768};
  req.engine = EngineSettings{.engine = Engine::vllm, .gpu_memory_utilization = 0.9, .vllm_minor_version = 10,
                              .vllm_patch_version = 2};
  const auto r = gpuplan::fit(cat().model("qwen3-235b-a22b-instruct-2507"), cat().gpu("l40s"), req);
  REQUIRE(r.engine);
  CHECK(r.kv_bytes_per_token_per_gpu == Approx(48128.0));
  CHECK(std::abs(r.engine->weights_bytes / kGiB - 27.72) < 0.1);
  // PCIe beyond two GPUs: no custom all-reduce buffers, NCCL alone (0.21 logged).
  CHECK(r.engine->non_torch_bytes / kGiB < 0.3);
  CHECK(within_tolerance_s60(r.engine->kv_bytes / kGiB, 10.65));
  CHECK(std::abs(token_ratio(r.engine->kv_tokens, 238208.0) - 1.0) < 0.05);
}

// ArmDeveloperEcosystem/arm-learning-paths, content/learning-paths/laptops-and-desktops/
// dgx_spark_voicechatbot/4_vllm.md (code-search file id 9009555428): NGC vLLM 25.11 (0.11.0) on a
// DGX Spark (GB10), TheBloke/Mistral-7B-Instruct-v0.2-GPTQ, --quantization gptq
// --gpu-memory-utilization 0.9 --dtype float16, max_model_len 32768. Logged "Chunked prefill is
// enabled with max_num_batched_tokens=2048" (NVML reports no total on GB10: the small-GPU
// defaults), "Model loading took 3.8844 GiB", "Available KV cache memory: 102.56 GiB", "GPU KV
// cache size: 840,160 tokens". End to end from the checkpoint's config.json.
TEST_CASE("engine logs s60: vLLM 0.11 Mistral-7B GPTQ on a DGX Spark", "[engine][reference]") {
  const auto model = gpuplan::model_from_hf_config_file(std::string(GPUPLAN_FIXTURES_DIR) +
                                                        "/hf-dir-mistral-7b-instruct-v0.2-gptq/config.json");
  REQUIRE(model.shipped_formats);
  FitRequest req{.kv_dtype = DType::fp16, .context_tokens = 32768};
  req.weight_formats = *model.shipped_formats;  // GPTQ 4-bit, as the engine loads the checkpoint
  req.engine = EngineSettings{.engine = Engine::vllm, .gpu_memory_utilization = 0.9, .vllm_minor_version = 11};
  const auto r = gpuplan::fit(model, cat().gpu("gb10"), req);
  REQUIRE(r.engine);
  CHECK(r.engine->batched_tokens == 2048);
  CHECK(r.engine->max_seqs == 256);
  CHECK(std::abs(r.engine->weights_bytes / kGiB - 3.8844) < 0.05);
  CHECK(within_tolerance_s60(r.engine->kv_bytes / kGiB, 102.56));
  CHECK(std::abs(token_ratio(r.engine->kv_tokens, 840160.0) - 1.0) < 0.02);
}

// AUGMXNT/MI300-testing README.md (code-search file id 43425326930, 2024-10-10): SGLang of that
// month (0.3.3 taken) on one MI300X, `python -m sglang.bench_latency --model-path
// meta-llama/Meta-Llama-3-8B-Instruct` (TP 1, default fraction): "Load weight begin. avail
// mem=191.33 GB", "max_total_num_tokens=1256440".
TEST_CASE("engine logs s60: SGLang 0.3 Llama-3-8B on one MI300X", "[engine][reference]") {
  FitRequest req{.context_tokens = 8192};
  req.engine = EngineSettings{.engine = Engine::sglang, .sglang_version = 303};
  const auto r = gpuplan::fit(cat().model("llama-3-8b"), cat().gpu("mi300x"), req);
  REQUIRE(r.engine);
  CHECK(r.engine->share == Approx(0.88));
  CHECK(std::abs(r.engine->start_free_bytes / kGiB - 191.33) < 0.3);
  CHECK(std::abs(token_ratio(r.engine->kv_tokens, 1256440.0) - 1.0) < 0.005);
}

// A project README's expected SGLang log (code-search file id 49361099215, 2025-07-14, SGLang of
// July 2025: 0.4.9 taken; Docker Desktop on Windows, 24 GB card, RTX 4090 INFERRED from the 22.39
// GiB free at start, 0.75 GiB held by the desktop): Llama-3.1-8B-Instruct bf16, defaults ("Capture
// cuda graph bs [1, 2, 4, 8]", chunked_prefill_size 2048). "Load weight end ... avail mem=7.37 GB,
// mem usage=15.02 GB", "KV Cache is allocated. #tokens: 38141", context_len=131072: it started.
TEST_CASE("engine logs s60: SGLang 0.4.9 Llama-3.1-8B on a 24 GB desktop card", "[engine][reference]") {
  FitRequest req{.context_tokens = 131072};
  req.engine = EngineSettings{.engine = Engine::sglang, .memory_in_use_bytes = 0.75 * kGiB, .sglang_version = 409};
  const auto r = gpuplan::fit(cat().model("llama-3.1-8b"), cat().gpu("rtx-4090"), req);
  REQUIRE(r.engine);
  CHECK(r.engine->max_seqs == 8);
  CHECK(std::abs(r.engine->start_free_bytes / kGiB - 22.39) < 0.05);
  CHECK(std::abs(token_ratio(r.engine->kv_tokens, 38141.0) - 1.0) < 0.02);
  // It starts (what it allocates after the pool fits outside the fraction); the pool caps requests
  // short of 131,072 tokens.
  CHECK(r.engine->outside_need_bytes < r.engine->outside_free_bytes);
  CHECK(r.engine->sglang_default_context == 0);
}

// https://github.com/vllm-project/vllm/issues/41695 (2026-05-05, current vLLM): one RTX 5090,
// `vllm serve Qwen3-Coder-30B-A3B-Instruct-FP8 --max-model-len 16384 --gpu-memory-utilization 0.95`:
// "I will either get a OOM or a 'No available memory for the cache blocks.' no matter how much I
// lower the gpu memory". Same shape as Qwen3-30B-A3B (48 layers, 128 experts, 4 KV heads); the
// FP8 checkpoint's 29 GiB leave nothing at 0.95 of 31.36 GiB.
TEST_CASE("engine logs s60: vLLM refuses Qwen3-Coder-30B-A3B FP8 on one RTX 5090", "[engine][reference]") {
  FitRequest req{.weights_dtype = DType::fp8, .context_tokens = 16384};
  req.engine = EngineSettings{.engine = Engine::vllm, .gpu_memory_utilization = 0.95};
  const auto r = gpuplan::fit(cat().model("qwen3-30b-a3b"), cat().gpu("rtx-5090"), req);
  REQUIRE(r.engine);
  CHECK(r.engine->kv_bytes < 0);
  CHECK_FALSE(r.fits);
}

// https://github.com/LMCache/LMCache/issues/3430 (2026-05-28): vLLM 0.21.0, Qwen/Qwen3-8B bf16 on one
// RTX A5000, --gpu-memory-utilization 0.9764, max_model_len 16384, 256 sequences. Logged "Profiling
// CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)", "Estimated CUDA graph
// memory: 0.52 GiB total", "Available KV cache memory: 6.37 GiB", "GPU KV cache size: 46,368
// tokens", and "The current --gpu-memory-utilization=0.9764 is equivalent to
// --gpu-memory-utilization=0.9543 without CUDA graph memory profiling": the 0.52 GiB comes off the
// share, and the GPU's total is 0.52 / (0.9764 - 0.9543) = 23.5 GiB (INFERRED from that line; the
// A5000 is not in the catalog). NOT reproduced: gpuplan's graph term (the largest graph's
// activations and 2 MiB a layer, 0.11 GiB) is a quarter of vLLM's estimate, so its budget is about
// 0.4 GiB high; with the logged estimate in its place the rest of the arithmetic gives 6.37.
TEST_CASE("engine logs s60: vLLM 0.21 estimates CUDA graphs above gpuplan's term (LMCache#3430)",
          "[engine][reference]") {
  const auto& m = cat().model("qwen3-8b");
  const auto shape = gpuplan::kv_shape(m, DType::bf16, Layout{});
  const double weights = gpuplan::fit(m, cat().gpu("rtx-4090"), FitRequest{}).per_gpu.weights_bytes;
  const EngineInputs in{.total_bytes = 23.53 * kGiB, .weights_bytes = weights,
                        .kv_bytes_per_token_per_gpu =
                            shape.bytes_per_token_per_layer_per_gpu * static_cast<double>(shape.layers_per_gpu()),
                        .block_tokens = 16, .context_tokens = 16384};
  const auto e = gpuplan::engine_memory(m, Layout{}, in,
                                        {.engine = Engine::vllm, .gpu_memory_utilization = 0.9764,
                                         .vllm_minor_version = 21});
  CHECK(e.cuda_graph_bytes / kGiB < 0.2);  // vLLM's own estimate: 0.52
  const double gap_gib = e.kv_bytes / kGiB - 6.37;
  CHECK(gap_gib > 0.3);
  CHECK(gap_gib < 0.6);
  CHECK(std::abs((e.kv_bytes - (0.52 * kGiB - e.cuda_graph_bytes)) / kGiB - 6.37) < 0.1);
}

// https://github.com/vllm-project/vllm/issues/17462 (2025-04-30): vLLM 0.8.4/0.8.5 (V1), `vllm serve
// Qwen3-32B --tensor-parallel-size 2` on 2 x L20 (48 GB), max_model_len 16,384 as its concurrency
// line gives: "GPU KV cache size: 67,856 tokens", "Maximum concurrency for 16,384 tokens per request:
// 4.14x", then out of memory capturing CUDA graphs, which the thread traced to the NVIDIA driver
// (535 -> 550 fixed it, and vllm#17469's same symptom on 4 x A10). NOT reproduced within 5 %:
// gpuplan holds 6 % fewer tokens. Its sampler run (256 rows of 151,936 logits at 38.5 bytes, 1.39
// GiB) is measured on 0.11; what 0.8.5's profiling sampler held is not pinned down, and about 0.9
// GiB there would match. Its graphs fit above the share, as the driver fix found.
TEST_CASE("engine logs s60: vLLM 0.8.5 Qwen3-32B on 2 x L20 (vllm#17462)", "[engine][reference]") {
  FitRequest req{.layout = Layout{.tp = 2}, .context_tokens = 16384};
  req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = 8, .vllm_patch_version = 5};
  const auto r = gpuplan::fit(cat().model("qwen3-32b"), cat().gpu("l20"), req);
  REQUIRE(r.engine);
  const double ratio = token_ratio(r.engine->kv_tokens, 67856.0);
  CHECK(ratio > 0.9);
  CHECK(ratio < 0.97);
  CHECK(r.engine->outside_need_bytes < r.engine->outside_free_bytes);
  CHECK(r.fits);
}
