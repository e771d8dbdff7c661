#pragma once
// Helpers many test files share, defined once (the asan and fuzz presets build the suite as a
// unity build, where two files' helpers of the same name would collide).

#include <string>
#include <string_view>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan::test {

inline const Catalog& cat() { return Catalog::builtin(); }

inline const ModelSpec& model(std::string_view id) { return Catalog::builtin().model(id); }

inline const GpuSpec& gpu(std::string_view id) { return Catalog::builtin().gpu(id); }

inline ParamCount params(const char* id) { return count_params(Catalog::builtin().model(id)); }

/// A file of tests/fixtures.
inline std::string fixture(const char* name) { return std::string(GPUPLAN_FIXTURES_DIR) + "/" + name; }

/// The InputError reading `text` as a config.json gives, or "(no error)".
inline std::string hf_config_error(const std::string& text) {
  try {
    (void)model_from_hf_config(text, "config.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// DeepSeek-V3's architecture fields (config.json, without model_type or braces): the V3 and
/// V3.2 tests add their own model_type and indexer keys to it.
inline constexpr const char* kDeepseekV3ArchitectureFields =
    R"("hidden_size": 7168, "intermediate_size": 18432, "num_hidden_layers": 61,
      "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
      "max_position_embeddings": 163840, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 256, "n_shared_experts": 1,
      "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "first_k_dense_replace": 3)";

}  // namespace gpuplan::test
