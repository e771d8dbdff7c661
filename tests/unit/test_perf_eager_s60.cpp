// Eager runs (vLLM --enforce-eager, SGLang --disable-cuda-graph): the host launches every kernel
// of a step, so no step is shorter than the host's launch time (kEagerHostSPerKernel per kernel,
// the kernels counted from vLLM's model code). Session 60: held-out 4-bit eager rows were
// +37..+106 % too fast because perf had no such floor.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/render.hpp>

#include <nlohmann/json.hpp>

using namespace gpuplan;

namespace {

PerfRequest eager_request(bool eager, DType weights) {
  PerfRequest req;
  req.fit.weights_dtype = weights;
  req.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 1};
  req.input_tokens = 512;
  req.output_tokens = 256;
  req.eager = eager;
  return req;
}

}  // namespace

TEST_CASE("eager floor: recomputed from the kernel count of each layer", "[perf][eager]") {
  const Catalog& catalog = Catalog::builtin();
  const GpuSpec& gpu = catalog.gpu("a100-pcie-80gb");
  // Llama 3.1 8B: 2 norms, qkv, rotary, cache write, attention, o_proj, gate_up, act, down.
  const ModelSpec& llama = catalog.model("llama-3.1-8b");
  REQUIRE(!llama.qk_norm);
  REQUIRE(llama.norms_per_layer == 2);
  CHECK(eager_kernels_per_layer(llama, false, 1, 1) == Approx(10.0));
  CHECK(eager_kernels_per_layer(llama, false, 2, 1) == Approx(12.0));  // two all-reduces
  const PerfModel l(llama, gpu, eager_request(true, DType::bf16));
  CHECK(l.eager_host_s() == Approx((32.0 * 10.0 + 8.0) * 50e-6));  // 16.4 ms
  // Qwen3 32B adds q and k norms: 64 layers x 12 kernels + 8 outside them.
  const ModelSpec& qwen = catalog.model("qwen3-32b");
  REQUIRE(qwen.qk_norm);
  REQUIRE(qwen.num_hidden_layers == 64);
  const PerfModel q(qwen, gpu, eager_request(true, DType::int4));
  CHECK(q.eager_host_s() == Approx((64.0 * 12.0 + kEagerKernelsOutsideLayers) * kEagerHostSPerKernel));
  CHECK(q.eager_host_s() == Approx(38.8e-3));
  // Not eager: no floor.
  const PerfModel graphs(qwen, gpu, eager_request(false, DType::int4));
  CHECK(graphs.eager_host_s() == Approx(0.0).margin(1e-15));
}

TEST_CASE("eager floor: MoE layers count the routed kernels, shared experts and their gate", "[perf][eager]") {
  ModelSpec m = Catalog::builtin().model("llama-3.1-8b");
  m.moe = MoeSpec{.routed_experts = 8, .experts_per_token = 2, .expert_intermediate = 14336};
  CHECK(eager_kernels_per_layer(m, true, 1, 1) == Approx(2.0 + 5.0 + 7.0));
  CHECK(eager_kernels_per_layer(m, false, 1, 1) == Approx(10.0));  // a dense layer of the same model
  m.moe->shared_experts = 1;
  CHECK(eager_kernels_per_layer(m, true, 1, 1) == Approx(17.0));
  m.moe->shared_expert_gate = true;
  CHECK(eager_kernels_per_layer(m, true, 1, 8) == Approx(21.0));  // EP: dispatch and combine
}

TEST_CASE("eager floor: the step is the longer of the GPU's work and the host's launches", "[perf][eager]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& qwen = catalog.model("qwen3-32b");
  const GpuSpec& gpu = catalog.gpu("a100-pcie-80gb");
  const PerfModel eager(qwen, gpu, eager_request(true, DType::int4));
  const PerfModel graphs(qwen, gpu, eager_request(false, DType::int4));
  const Efficiency e;
  for (std::uint64_t b : {1U, 4U, 32U, 256U}) {
    INFO("batch " << b);
    const StepTime with = eager.decode_step(b, 640, e);
    const StepTime without = graphs.decode_step(b, 640, e);
    CHECK(without.host_launch_s == Approx(0.0).margin(1e-15));
    CHECK(with.host_launch_s == Approx(eager.eager_host_s()));
    // The GPU's part is untouched; the step is the longer of the two.
    CHECK(with.gpu_s() == Approx(without.total_s()));
    CHECK(with.total_s() == Approx(std::max(without.total_s(), eager.eager_host_s())));
    CHECK(with.host_bound() == (eager.eager_host_s() > without.total_s()));
    if (with.host_bound()) {
      CHECK(with.bound() == Bound::overhead);
      CHECK(with.bound_share() == Approx(1.0));
    }
    // The roofline keeps no fixed time: the bound is the same with or without graphs.
    const PerfPoint r1 = eager.evaluate(b, Efficiency::roofline());
    const PerfPoint r2 = graphs.evaluate(b, Efficiency::roofline());
    CHECK(r1.output_tokens_per_s == Approx(r2.output_tokens_per_s).epsilon(1e-12));
  }
  // At batch 4, 4-bit weights (16 GB) stream in ~10 ms on an A100: the host's 38.8 ms binds.
  CHECK(eager.decode_step(4, 640, e).host_bound());
  CHECK(eager.evaluate(4, e).step_s == Approx(eager.eager_host_s()));
  CHECK(eager.evaluate(4, e).output_tokens_per_s < graphs.evaluate(4, e).output_tokens_per_s);
}

TEST_CASE("eager floor: --enforce-eager (fit.engine.eager) implies it", "[perf][eager]") {
  const Catalog& catalog = Catalog::builtin();
  PerfRequest req = eager_request(false, DType::bf16);
  req.fit.engine.engine = Engine::vllm;
  req.fit.engine.eager = true;
  const PerfModel pm(catalog.model("llama-3.1-8b"), catalog.gpu("h100-sxm"), req);
  CHECK(pm.eager_host_s() == Approx(16.4e-3));
}

// Session 61: perf's JSON inputs say which engine's arithmetic the figures assume and whether the
// steps were floored at the host's launches; a script gating on the ITL could not tell before.
TEST_CASE("eager floor: perf's JSON inputs name the engine and the eager run", "[perf][eager][render]") {
  const Catalog& catalog = Catalog::builtin();
  for (const bool eager : {false, true}) {
    PerfRequest req = eager_request(false, DType::int4);
    req.fit.engine.engine = Engine::vllm;
    req.fit.engine.eager = eager;
    const PerfResult r = perf(catalog.model("llama-3.1-8b"), catalog.gpu("l40s"), req, {8}, EstimateBand{});
    const auto j = nlohmann::json::parse(render_perf(r, RenderOptions{.format = Format::json}));
    CHECK(j["inputs"]["engine"] == "vllm");
    CHECK(j["inputs"]["eager"] == eager);
    CHECK(j["rows"][0]["decode_step"].contains("host_launch_s") == eager);
  }
}
