// Helper s64 (engines): vLLM 0.8 to 0.10.1 ran a model with recurrent state (Mamba, linear
// attention) on its V0 engine unless VLLM_USE_V1=1 was set ("Mamba is experimental on
// VLLM_USE_V1=1. Falling back to V0 Engine."), and V0 allocates that state for max_num_seqs
// sequences during its profiling run (MambaCacheManager). gpuplan sized such a launch with V1's
// arithmetic and said FITS where vllm#23230 ran out of memory.
// Sources: tests/fixtures/engine-logs-s64-sources.md.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

#include "test_support.hpp"

using gpuplan::Engine;
using gpuplan::EngineSettings;
using gpuplan::FitRequest;
using gpuplan::Layout;
using gpuplan::test::cat;
using gpuplan::units::kGiB;
using gpuplan::units::kMiB;

namespace {

const gpuplan::ModelSpec& nemotron_nano_9b_v2() {
  static const gpuplan::ModelSpec m =
      gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-s64-nemotron-nano-9b-v2.json"));
  return m;
}

FitRequest vllm_request(int minor, int patch, std::uint64_t context) {
  FitRequest req{.layout = Layout{}, .context_tokens = context};
  req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = patch};
  return req;
}

}  // namespace

TEST_CASE("engine: vLLM 0.10.1 runs Nemotron-H on V0 and its state cache runs an L40S out (s64, vllm#23230)",
          "[engine][reference]") {
  // vllm#23230: `vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2` with vLLM 0.10.1 on an L40S: "Model
  // loading took 16.5557 GiB", then "CUDA out of memory. Tried to allocate 33.75 GiB. GPU 0 has a
  // total capacity of 44.40 GiB" in V0's engine.py.
  const auto r = gpuplan::fit(nemotron_nano_9b_v2(), cat().gpu("l40s"), vllm_request(10, 1, 131072));
  REQUIRE(r.engine);
  CHECK(r.engine->vllm_v0);
  CHECK(r.engine->max_seqs == 256);
  CHECK(r.engine->v0_state_slots == 256);
  // 27 Mamba layers x (128 heads x 80 x 128 fp32 SSM state = 5 MiB, + the conv window): the
  // logged 33.75 GiB is the SSM tensor alone (27 x 256 x 5 MiB).
  CHECK(r.engine->v0_state_cache_bytes > 33.75 * kGiB);
  CHECK(r.engine->v0_state_cache_bytes < 33.75 * kGiB + 256.0 * 27.0 * 0.1 * kMiB);
  CHECK(r.per_gpu.weights_bytes / kGiB == Approx(16.5557).epsilon(0.01));
  CHECK(r.engine->kv_bytes < 0);
  CHECK_FALSE(r.fits);

  // 0.10.2 made V1 the default for Mamba models (vllm PR #23650): the state sits in the KV blocks.
  const auto v1 = gpuplan::fit(nemotron_nano_9b_v2(), cat().gpu("l40s"), vllm_request(10, 2, 131072));
  REQUIRE(v1.engine);
  CHECK_FALSE(v1.engine->vllm_v0);
  CHECK(v1.engine->v0_state_slots == 0);
  CHECK(v1.fits);
}

TEST_CASE("engine: V0's state cache follows max_num_seqs, padded to a CUDA-graph batch (s64)", "[engine]") {
  FitRequest req = vllm_request(10, 1, 131072);
  req.engine.max_num_seqs = 61;  // padded to 64 with CUDA graphs
  const auto r = gpuplan::fit(nemotron_nano_9b_v2(), cat().gpu("l40s"), req);
  REQUIRE(r.engine);
  CHECK(r.engine->v0_state_slots == 64);
  CHECK(r.fits);  // 64 sequences' state (about 8.5 GiB) leaves room for the cache
  req.engine.eager = true;  // no padding without graphs
  const auto eager = gpuplan::fit(nemotron_nano_9b_v2(), cat().gpu("l40s"), req);
  REQUIRE(eager.engine);
  CHECK(eager.engine->v0_state_slots == 61);
  CHECK(eager.engine->v0_state_cache_bytes == Approx(r.engine->v0_state_cache_bytes * 61.0 / 64.0));
  // The state is held once, outside the KV budget: the budget is not charged it again per sequence.
  CHECK(eager.engine->kv_bytes > r.engine->kv_bytes);
}

TEST_CASE("engine: a model without recurrent state keeps V1 on 0.10.1 (s64)", "[engine]") {
  const auto r = gpuplan::fit(cat().model("llama-3.1-8b"), cat().gpu("l40s"), vllm_request(10, 1, 8192));
  REQUIRE(r.engine);
  CHECK_FALSE(r.engine->vllm_v0);
  CHECK(r.engine->v0_state_slots == 0);
}
