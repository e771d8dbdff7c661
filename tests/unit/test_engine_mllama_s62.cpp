// Helper s62 (engines): vLLM V0 profiles Llama 3.2 Vision (mllama) with the largest image in every
// one of max_num_seqs dummy requests (enc_dec_model_runner.py profile_run), and the tiled vision
// encoder's peak over them ran A100s, L20s and A10s out of memory at the default max_num_seqs 256,
// where gpuplan said the model starts with 51 GiB of KV cache. Sources:
// tests/fixtures/engine-logs-s62-sources.md.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

#include "../../src/lib/detail/vllm_encoder_profile.hpp"
#include "test_support.hpp"

using gpuplan::Engine;
using gpuplan::EngineSettings;
using gpuplan::FitRequest;
using gpuplan::Layout;
using gpuplan::test::cat;

namespace {

using gpuplan::detail::vllm_v0_tiled_encoder_profile_bytes;

const gpuplan::ModelSpec& mllama() {
  static const gpuplan::ModelSpec m =
      gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-s62-llama-3.2-11b-vision-instruct.json"));
  return m;
}

gpuplan::FitResult fit_v0(const char* gpu, std::uint64_t tp, std::uint64_t context,
                          std::optional<std::uint64_t> max_num_seqs, bool eager = false, int minor = 6) {
  FitRequest req{.layout = Layout{.tp = tp}, .context_tokens = context};
  req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = 3};
  req.engine.max_num_seqs = max_num_seqs;
  req.engine.eager = eager;
  return gpuplan::fit(mllama(), cat().gpu(gpu), req);
}

}  // namespace

TEST_CASE("engine: vLLM V0 profiles mllama's vision encoder on max_num_seqs images (s62)", "[engine]") {
  // vllm#9445 (vLLM 0.6.3, A100 80GB, --max-model-len 1024): out of memory at the defaults,
  // started with max_num_seqs 32 (and --enforce-eager).
  REQUIRE(mllama().vision);
  CHECK(mllama().vision->image_size == 560);
  CHECK(mllama().vision->patch_size == 14);
  const auto oom = fit_v0("a100-sxm-80gb", 1, 1024, std::nullopt);
  REQUIRE(oom.engine);
  CHECK(oom.engine->max_seqs == 256);
  // 256 images of 4 tiles x 1608 padded patches: the mask alone is 256 x 6432^2 x 2 bytes; then 7
  // hidden-wide (1280) and 2 fc1-wide (5120) tensors a token.
  const double encoder_256 = vllm_v0_tiled_encoder_profile_bytes(mllama(), Layout{}, 256);
  CHECK(encoder_256 == Approx(256.0 * 6432.0 * (6432.0 + 7 * 1280 + 2 * 5120) * 2.0));
  CHECK(oom.engine->activation_bytes == Approx(encoder_256));
  CHECK(oom.engine->kv_bytes < 0.0);
  CHECK_FALSE(oom.fits);
  const auto started = fit_v0("a100-sxm-80gb", 1, 1024, 32, true);
  REQUIRE(started.engine);
  CHECK(started.fits);
  CHECK(started.engine->activation_bytes == Approx(encoder_256 / 8.0));

  // vllm PR #9352: with --enforce-eager --max-num-seqs 70 it served on an A100 80GB, its profile
  // reading 50,562,334,720 bytes of peak (weights included), about 8 GB under the real one. The
  // lower bound must stay below what was measured, and leave the start.
  const auto seventy = fit_v0("a100-sxm-80gb", 1, 1024, 70, true);
  REQUIRE(seventy.engine);
  CHECK(seventy.fits);
  CHECK(seventy.engine->weights_bytes + seventy.engine->activation_bytes < 50562334720.0);

  // vllm#10569 (0.6.3, L20, default max_model_len): out of memory; max_num_seqs 2 started.
  CHECK_FALSE(fit_v0("l20", 1, 131072, std::nullopt).fits);
  CHECK(fit_v0("l20", 1, 8192, 2).engine->kv_bytes > 0.0);
  // vllm#10034 (2 x A10, TP 2): out of memory; the mask is replicated on both GPUs, fc1 is split.
  CHECK_FALSE(fit_v0("a10", 2, 8192, std::nullopt).fits);
  CHECK(vllm_v0_tiled_encoder_profile_bytes(mllama(), Layout{.tp = 2}, 256) ==
        Approx(256.0 * 6432.0 * (6432.0 + 7 * 1280 + 2 * 2560) * 2.0));
}

TEST_CASE("engine: vLLM 0.8 and 0.9 run an encoder-decoder model on V0 (s62)", "[engine]") {
  // _is_v1_supported_oracle: "No Mamba or Encoder-Decoder so far" falls back to V0, so 0.8 and
  // 0.9 profile mllama as 0.6 and 0.7 did (max_num_seqs 256, the encoder on 256 images).
  for (const int minor : {8, 9}) {
    const auto r = fit_v0("a100-sxm-80gb", 1, 4096, std::nullopt, false, minor);
    REQUIRE(r.engine);
    CHECK(r.engine->vllm_v0);
    CHECK(r.engine->max_seqs == 256);
    CHECK_FALSE(r.fits);
  }
  // A decoder-only model on an Ampere GPU stays on V1 there.
  FitRequest req{.context_tokens = 8192};
  req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = 9};
  const auto text = gpuplan::fit(cat().model("llama-3.1-8b"), cat().gpu("a100-sxm-80gb"), req);
  REQUIRE(text.engine);
  CHECK_FALSE(text.engine->vllm_v0);
}

TEST_CASE("engine: the tiled-encoder term is V0's and mllama's only (s62)", "[engine]") {
  // V1 releases profile the encoder within its own token budget: not this term. An
  // encoder-decoder model kept V0 until its removal in 0.11 (review s62: 0.10.1 said FITS where
  // 0.9.2 ran out of memory), so 0.10 still charges it.
  // From 0.11 vLLM does not load mllama at all (vllm PR #24907; helper s63): refused, not sized.
  CHECK_THROWS_WITH(fit_v0("a100-sxm-80gb", 1, 1024, std::nullopt, false, 11),
                    Catch::Contains("removed it in 0.11.0") && Catch::Contains("model_type mllama)"));
  const auto v010 = fit_v0("a100-sxm-80gb", 1, 1024, std::nullopt, false, 10);
  REQUIRE(v010.engine);
  CHECK(v010.engine->vllm_v0);
  CHECK(v010.engine->activation_bytes > 1e10);
  // A decoder-only model on a GPU before Ampere runs V1 from 0.10.2 (vllm PRs #23614, #24022).
  const auto t4 = [](int minor, std::optional<int> patch) {
    FitRequest req{.context_tokens = 2048};
    req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = patch};
    const auto r = gpuplan::fit(cat().model("llama-3.2-1b"), cat().gpu("t4"), req);
    REQUIRE(r.engine);
    return r.engine->vllm_v0;
  };
  CHECK(t4(9, 2));
  CHECK(t4(10, 1));
  CHECK_FALSE(t4(10, 2));
  CHECK_FALSE(t4(11, std::nullopt));
  // A vision model without tiles or cross-attention layers (Gemma 3), or a text model, adds
  // nothing; a V0 fit of a text model keeps its forward's activation.
  CHECK(vllm_v0_tiled_encoder_profile_bytes(cat().model("gemma-3-12b"), Layout{}, 256) <= 0.0);
  CHECK(vllm_v0_tiled_encoder_profile_bytes(cat().model("llama-3.1-8b"), Layout{}, 256) <= 0.0);
  FitRequest req{.context_tokens = 8192};
  req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = 6, .vllm_patch_version = 3};
  const auto text = gpuplan::fit(cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), req);
  REQUIRE(text.engine);
  CHECK(text.engine->activation_bytes ==
        Approx(gpuplan::forward_activation_bytes(cat().model("llama-3.1-8b"), Layout{}, text.engine->batched_tokens)));
}

TEST_CASE("fit: vLLM releases before GLM-4.5's and Llama 3.2 Vision's are refused (s62)", "[engine]") {
  const auto refused = [](const gpuplan::ModelSpec& m, int minor, std::optional<int> patch) {
    FitRequest req{.context_tokens = 4096};
    req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = patch};
    try {
      (void)gpuplan::fit(m, cat().gpu("h200-sxm"), req);
    } catch (const gpuplan::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // glm4_moe: vllm PR #20736 came after 0.9.2; 0.10.0 serves GLM-4.5 (zai-org/GLM-4.5 PR #5).
  CHECK(refused(cat().model("glm-4.5-air"), 9, 2).find("from 0.10.0") != std::string::npos);
  CHECK(refused(cat().model("glm-4.5-air"), 10, 0).empty());
  // mllama: 0.6.2 (vllm#8826).
  CHECK(refused(mllama(), 6, 1).find("from 0.6.2") != std::string::npos);
  // The message names the config's own model_type, not its text_config's (helper s63).
  CHECK(refused(mllama(), 6, 1).find("(model_type mllama)") != std::string::npos);
  CHECK(refused(mllama(), 6, 1).find("mllama_text_model") == std::string::npos);
  CHECK(refused(mllama(), 6, 2).empty());
}
