// SGLang's batch cap (session 62). Its scheduler admits at most max_running_requests sequences;
// without the flag ModelRunner derives it from the KV pool it has just made: 512 x pool tokens /
// context_len, clamped to 2048..4096, at most half the pool (engine_memory.cpp,
// sglang_default_running_requests). perf capped SGLang at TensorRT-LLM's max_batch_size default
// of 2048 instead: `perf --engine sglang --batch 4096` was refused naming TensorRT-LLM, though
// MiniMax-M2.7 at concurrency 4096 on 8 x MI300X under SGLang 0.5.13 kept about 3,600 sequences
// in flight (8,344 tok/s x 431 ms mean TPOT; sglang PR #31044, tools/heldout/community-2026ai.json).
#include <algorithm>
#include <cstdint>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/perf.hpp>

using namespace gpuplan;

namespace {

PerfRequest sglang_request(std::uint64_t max_batch) {
  PerfRequest req;
  req.fit.weights_dtype = DType::bf16;
  req.fit.kv_dtype = DType::bf16;
  req.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 1};
  req.fit.engine.engine = Engine::sglang;
  req.input_tokens = 1000;
  req.output_tokens = 1000;
  req.max_batch = max_batch;
  return req;
}

}  // namespace

TEST_CASE("SGLang: the batch cap is its max_running_requests from the KV pool, not TensorRT-LLM's 2048",
          "[perf][sglang][batch-cap]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& m = catalog.model("llama-3.1-8b");
  const GpuSpec& gpu = catalog.gpu("h200-sxm");
  // No --max-batch: SGLang's own cap is the only one.
  CHECK(default_max_batch(Engine::sglang) == kMaxBatchLimit);
  CHECK(default_max_batch(Engine::trtllm) == kDefaultEngineMaxBatch);
  CHECK(default_max_batch(Engine::vllm) == kDefaultEngineMaxBatch);
  CHECK(default_max_batch(Engine::neutral) == kDefaultEngineMaxBatch);

  const PerfModel pm(m, gpu, sglang_request(default_max_batch(Engine::sglang)));
  REQUIRE(pm.fit().engine.has_value());
  const std::uint64_t pool = pm.fit().engine->kv_tokens;
  // 16 GB of weights on a 141 GB GPU leave a pool of several hundred thousand tokens: 512 x pool /
  // 2,000 (the request's context, SGLang's --context-length) is far above 4096, so the clamp's top.
  REQUIRE(pool > 100'000);
  const auto derived = std::min<std::uint64_t>(
      std::clamp<std::uint64_t>(static_cast<std::uint64_t>(static_cast<double>(pool) / 2000.0 * 512.0), 2048, 4096),
      pool / 2);
  CHECK(derived == 4096);
  CHECK(pm.engine_max_batch() == derived);
  CHECK(pm.engine_max_batch() == sglang_default_running_requests(pool, 2000));
  CHECK(pm.batch_cap() == 4096);
  CHECK(pm.batch_cap() > kDefaultEngineMaxBatch);

  // A given --max-batch lowers it; it never raises SGLang's own.
  CHECK(PerfModel(m, gpu, sglang_request(1000)).batch_cap() == 1000);
  CHECK(PerfModel(m, gpu, sglang_request(kMaxBatchLimit)).batch_cap() == 4096);

  // TensorRT-LLM keeps its max_batch_size, 2048 by default.
  PerfRequest trt = sglang_request(default_max_batch(Engine::trtllm));
  trt.fit.engine.engine = Engine::trtllm;
  CHECK(PerfModel(m, gpu, trt).batch_cap() == 2048);
}

TEST_CASE("SGLang: a small pool holds at most half its tokens in requests", "[perf][sglang][batch-cap]") {
  // The library's rule, checked at its edges (the clamp's floor yields to pool / 2).
  CHECK(sglang_default_running_requests(3000, 2000) == 1500);
  CHECK(sglang_default_running_requests(8000, 2000) == 2048);
  CHECK(sglang_default_running_requests(12'000, 1000) == 4096);  // 6,144 clamped
}
