// Helper s61 (engines): --engine-version names a vLLM release older than the model's
// architecture. That release stops at start-up ("Model architectures [...] are not supported"),
// so the fit must refuse it (exit 2) instead of sizing a KV cache for an engine that never
// starts. First releases and their sources are in engine_flags.cpp (kVllmFirstReleases).
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>

#include "test_support.hpp"

using gpuplan::Engine;
using gpuplan::EngineSettings;
using gpuplan::FitRequest;
using gpuplan::test::cat;

namespace {

/// The fit's refusal message under vLLM 0.`minor`[.`patch`], or "" when it sizes the KV cache.
std::string refusal(const std::string& model, int minor, std::optional<int> patch) {
  FitRequest req{.context_tokens = 8192};
  req.engine = EngineSettings{.engine = Engine::vllm, .vllm_minor_version = minor, .vllm_patch_version = patch};
  try {
    (void)gpuplan::fit(cat().model(model), cat().gpu("h100-sxm"), req);
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("fit: a vLLM release older than the architecture is refused (s61)", "[engine]") {
  // gpt-oss came in 0.10.1 (vllm PR #22259): 0.9.2 and 0.10.0 cannot load it.
  const std::string old = refusal("gpt-oss-20b", 9, 2);
  CHECK(old.find("engine.vllm_version: vLLM 0.9.2 cannot load gpt-oss-20b (model_type gpt_oss)") != std::string::npos);
  CHECK(old.find("from 0.10.1") != std::string::npos);
  CHECK_FALSE(refusal("gpt-oss-20b", 10, 0).empty());
  CHECK(refusal("gpt-oss-20b", 10, 1).empty());
  // A minor without its patch stands for its latest patch: "0.10" is not refused.
  CHECK(refusal("gpt-oss-20b", 10, std::nullopt).empty());
  // Qwen3 and Qwen3-MoE from 0.8.4 (vllm#17327); Llama 4 from 0.8.3 (vllm PR #16104).
  CHECK_FALSE(refusal("qwen3-8b", 8, 3).empty());
  CHECK(refusal("qwen3-8b", 8, 4).empty());
  CHECK_FALSE(refusal("qwen3-30b-a3b", 7, 3).empty());
  CHECK_FALSE(refusal("llama-4-scout", 8, 2).empty());
  CHECK(refusal("llama-4-scout", 8, 3).empty());
  // Gemma 3's text model from 0.8.0 (vllm PR #14971).
  CHECK_FALSE(refusal("gemma-3-27b", 7, 3).empty());
  // DeepSeek-V3 (R1's model_type too) from 0.6.6 (vllm#11559).
  CHECK(refusal("deepseek-r1", 6, 5).find("from 0.6.6") != std::string::npos);
  // Qwen3-Next from 0.10.2 (vllm-ascend PR #2919).
  CHECK(refusal("qwen3-next-80b-a3b", 10, 1).find("from 0.10.2") != std::string::npos);
  // A type without a known first release is not judged by this rule.
  CHECK(refusal("llama-3.1-8b", 5, 4).empty());
}

TEST_CASE("engine_release_refusal: only a release given is judged (s61)", "[engine]") {
  const auto& m = cat().model("gpt-oss-120b");
  CHECK_FALSE(gpuplan::engine_release_refusal(Engine::vllm, std::nullopt, std::nullopt, std::nullopt, m));
  CHECK(gpuplan::engine_release_refusal(Engine::vllm, 9, std::nullopt, std::nullopt, m));
  CHECK_FALSE(gpuplan::engine_release_refusal(Engine::trtllm, 9, 0, std::nullopt, m));
  // SGLang: gpt-oss from 0.5.0 (sglang#8833); a type without a row is not judged.
  const auto sglang = gpuplan::engine_release_refusal(Engine::sglang, std::nullopt, std::nullopt, 410, m);
  REQUIRE(sglang);
  CHECK(sglang->find("engine.sglang_version: SGLang 0.4.10 cannot load gpt-oss-120b") != std::string::npos);
  CHECK_FALSE(gpuplan::engine_release_refusal(Engine::sglang, std::nullopt, std::nullopt, 500, m));
  // 0.5.0rc2 (read as 499, before its release) is where support began (review s61: it was refused as "0.4.99").
  CHECK_FALSE(gpuplan::engine_release_refusal(Engine::sglang, std::nullopt, std::nullopt, 499, m));
  const auto rc = gpuplan::engine_release_refusal(Engine::sglang, std::nullopt, std::nullopt, 399, m);
  REQUIRE(rc);
  CHECK(rc->find("SGLang a 0.4.0 candidate cannot load") != std::string::npos);
  CHECK_FALSE(gpuplan::engine_release_refusal(Engine::sglang, std::nullopt, std::nullopt, 300, cat().model("qwen3-8b")));
}

// Review s61: the omni thinker reads as qwen3_moe, whose 0.8.4 release row had judged it (0.9.0
// sized Qwen3-Omni; 0.8.3 cited Qwen3-MoE's release). The wrapper's type decides.
TEST_CASE("fit: Qwen3-Omni is judged by its own vLLM release, not Qwen3-MoE's", "[engine]") {
  const gpuplan::ModelSpec m =
      gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-s61-qwen3-omni-30b-a3b-instruct.json"));
  REQUIRE(m.model_type == "qwen3_moe");
  REQUIRE(m.served_model_type() == "qwen3_omni_moe");
  const auto old = gpuplan::engine_release_refusal(Engine::vllm, 9, 0, std::nullopt, m);
  REQUIRE(old);
  CHECK(old->find("model_type qwen3_omni_moe") != std::string::npos);
  CHECK(old->find("vllm-project/vllm#25834") != std::string::npos);
  CHECK_FALSE(gpuplan::engine_release_refusal(Engine::vllm, 11, 0, std::nullopt, m));
}
