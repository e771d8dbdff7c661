// SGLang's batch cap under pipeline parallelism (session 63). vLLM's max_num_seqs and
// TensorRT-LLM's max_batch_size cap one scheduled batch, and PP keeps one batch a stage in flight,
// so their cap per replica is PP x the flag. SGLang's max_running_requests caps the total: its
// scheduler gives each micro-batch max(max_running_requests // pp_size, 1) (pp_max_micro_batch_size,
// python/sglang/srt/managers/scheduler.py), so PP does not multiply it.
#include <cstdint>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/perf.hpp>

using namespace gpuplan;

namespace {

PerfRequest pp_request(Engine engine, std::uint64_t pp) {
  PerfRequest req;
  req.fit.weights_dtype = DType::bf16;
  req.fit.kv_dtype = DType::bf16;
  req.fit.layout = Layout{.tp = 2, .pp = pp, .ep = 1, .dp = 1};
  req.fit.engine.engine = engine;
  req.input_tokens = 1024;
  req.output_tokens = 256;
  req.max_batch = default_max_batch(engine);
  return req;
}

}  // namespace

TEST_CASE("PP multiplies vLLM's sequence cap but not SGLang's max_running_requests", "[perf][sglang][batch-cap][pp]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& m = catalog.model("llama-3.1-70b");
  const GpuSpec& gpu = catalog.gpu("h100-sxm");

  const PerfModel sglang(m, gpu, pp_request(Engine::sglang, 2));
  REQUIRE(sglang.fit().engine.has_value());
  REQUIRE(sglang.fit().engine->req_to_token_requests > 0);
  CHECK(sglang.engine_max_batch() == sglang.fit().engine->req_to_token_requests);

  const PerfModel vllm1(m, gpu, pp_request(Engine::vllm, 1));
  const PerfModel vllm2(m, gpu, pp_request(Engine::vllm, 2));
  REQUIRE(vllm2.fit().engine.has_value());
  CHECK(vllm1.engine_max_batch() == vllm1.fit().engine->max_seqs);
  CHECK(vllm2.engine_max_batch() == 2 * vllm2.fit().engine->max_seqs);
}
