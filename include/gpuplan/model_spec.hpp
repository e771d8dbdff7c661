#pragma once
// An LLM's architecture, with fields named as in Hugging Face config.json, and the parameter
// count computed from it (never typed in): embeddings + per-layer attention/MLP/norms + untied
// LM head; MoE active = everything but the routed experts not chosen for a token.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

/// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent.
struct MlaSpec {
  std::uint64_t q_lora_rank = 0;        ///< 0: queries projected directly (no LoRA)
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
};

/// Mixture of experts (Mixtral, Qwen-MoE, DeepSeek, gpt-oss, GLM-4.5 styles).
struct MoeSpec {
  std::uint64_t routed_experts = 0;         ///< num_local_experts / num_experts / n_routed_experts
  std::uint64_t experts_per_token = 0;      ///< num_experts_per_tok
  std::uint64_t shared_experts = 0;         ///< n_shared_experts
  std::uint64_t expert_intermediate = 0;    ///< moe_intermediate_size (Mixtral: intermediate_size)
  std::uint64_t first_dense_layers = 0;     ///< first_k_dense_replace: leading layers with a dense MLP
};

struct ModelSpec {
  std::string id;                  ///< catalog key, e.g. "llama-3.1-70b"
  std::string name;
  std::string hf_repo;
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;              ///< catalog file or config.json the entry came from

  std::string model_type;          ///< HF model_type: decides biases and norms
  std::uint64_t hidden_size = 0;
  std::uint64_t num_hidden_layers = 0;
  std::uint64_t num_attention_heads = 0;
  std::uint64_t num_key_value_heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t intermediate_size = 0;
  std::uint64_t vocab_size = 0;
  std::uint64_t max_position_embeddings = 0;
  bool tie_word_embeddings = false;
  bool attention_bias = false;     ///< q, k, v and o projections carry biases
  bool qkv_bias = false;           ///< q, k, v (not o) carry biases (Qwen2)
  bool qk_norm = false;            ///< per-head RMSNorm on q and k (Qwen3, Gemma 3, GLM-4.5)
  std::optional<MlaSpec> mla;
  std::optional<MoeSpec> moe;
  /// Attention window per layer in tokens; 0 = full attention. Empty = all layers full.
  std::vector<std::uint64_t> layer_window_tokens;

  /// Set for a bare-size model (`--params 744B`): total parameters, architecture unknown.
  std::optional<double> bare_params;

  [[nodiscard]] bool has_architecture() const { return !bare_params.has_value(); }
  [[nodiscard]] bool is_moe() const { return moe.has_value(); }
  /// Attention window of layer `layer` (0 = full).
  [[nodiscard]] std::uint64_t window_of_layer(std::uint64_t layer) const;
};

/// Parameter counts by part. A total can be explained term by term.
struct ParamCount {
  double embedding = 0;        ///< input embedding table
  double lm_head = 0;          ///< output projection; 0 when tied to the embedding
  double attention = 0;        ///< all layers' attention projections, biases, q/k norms
  double dense_mlp = 0;        ///< dense MLPs (all layers of a dense model, leading layers of MoE)
  double routed_experts = 0;   ///< all routed experts of all MoE layers
  double shared_experts = 0;
  double router = 0;
  double norms = 0;            ///< layer norms and the final norm
  double active_routed_experts = 0;  ///< routed experts one token uses (experts_per_token of them)

  /// Everything stored.
  [[nodiscard]] double total() const {
    return embedding + lm_head + attention + dense_mlp + routed_experts + shared_experts + router + norms;
  }
  /// What one token touches: total minus the routed experts it does not use.
  [[nodiscard]] double active() const { return total() - routed_experts + active_routed_experts; }
  /// Parameters outside the embedding table and LM head (quantized formats cover these).
  [[nodiscard]] double body() const { return total() - embedding - lm_head; }
};

/// Counts parameters from the architecture (or returns the bare size as body parameters).
ParamCount count_params(const ModelSpec& model);

/// Validates a spec built from JSON or by hand; throws InputError naming `origin` and the field.
void validate_model(const ModelSpec& model, std::string_view origin);

/// A model known only by its size, for what-ifs: KV cache and activations are unknown.
ModelSpec bare_model(double params, std::string_view label);

}  // namespace gpuplan
