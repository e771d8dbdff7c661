#include <gpuplan/model_spec.hpp>

#include <cmath>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/units.hpp>

namespace gpuplan {
namespace {

double d(std::uint64_t v) { return static_cast<double>(v); }

// Attention projections of one layer, with biases and q/k norms.
double attention_params_per_layer(const ModelSpec& m) {
  const double hidden = d(m.hidden_size);
  const double heads = d(m.num_attention_heads);
  if (m.mla) {
    // DeepSeek-V2/V3 MLA: q_a, q_a_layernorm, q_b (or a direct q_proj), kv_a (latent + rope key),
    // kv_a_layernorm, kv_b (latent -> per-head k_nope and v), o_proj.
    const MlaSpec& a = *m.mla;
    const double qk_head = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
    double q = 0;
    if (a.q_lora_rank > 0) {
      q = hidden * d(a.q_lora_rank) + d(a.q_lora_rank) + d(a.q_lora_rank) * heads * qk_head;
    } else {
      q = hidden * heads * qk_head;
    }
    const double kv_a = hidden * d(a.kv_lora_rank + a.qk_rope_head_dim) + d(a.kv_lora_rank);
    const double kv_b = d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim);
    const double o = heads * d(a.v_head_dim) * hidden;
    return q + kv_a + kv_b + o;
  }
  const double q_dim = heads * d(m.head_dim);
  const double kv_dim = d(m.num_key_value_heads) * d(m.head_dim);
  double params = hidden * q_dim + 2.0 * hidden * kv_dim + q_dim * hidden;
  if (m.attention_bias) {
    params += q_dim + 2.0 * kv_dim + hidden;
  } else if (m.qkv_bias) {
    params += q_dim + 2.0 * kv_dim;
  }
  if (m.qk_norm) {
    params += 2.0 * d(m.head_dim);
  }
  if (m.model_type == "gpt_oss") {
    params += heads;  // learned attention sinks, one per head
  }
  return params;
}

// One gated MLP (gate, up, down); gpt-oss experts also carry biases.
double gated_mlp_params(const ModelSpec& m, std::uint64_t intermediate) {
  const double p = 3.0 * d(m.hidden_size) * d(intermediate);
  if (m.model_type == "gpt_oss") {
    return p + 2.0 * d(intermediate) + d(m.hidden_size);
  }
  return p;
}

double norms_per_layer(const ModelSpec& m) {
  // Gemma 3 wraps both attention and MLP in pre- and post-norms.
  const double count = m.model_type.starts_with("gemma3") ? 4.0 : 2.0;
  return count * d(m.hidden_size);
}

bool has_router_bias(const ModelSpec& m) {
  // gpt-oss routers carry a bias; DeepSeek-V3 and GLM-4.5 an e_score_correction_bias.
  return m.model_type == "gpt_oss" || m.model_type == "deepseek_v3" || m.model_type == "glm4_moe";
}

}  // namespace

std::uint64_t ModelSpec::window_of_layer(std::uint64_t layer) const {
  return layer < layer_window_tokens.size() ? layer_window_tokens[layer] : 0;
}

ParamCount count_params(const ModelSpec& m) {
  ParamCount c;
  if (m.bare_params) {
    c.dense_mlp = *m.bare_params;  // unknown split: all of it counts as body weights
    return c;
  }
  const double hidden = d(m.hidden_size);
  c.embedding = d(m.vocab_size) * hidden;
  c.lm_head = m.tie_word_embeddings ? 0.0 : d(m.vocab_size) * hidden;
  const double layers = d(m.num_hidden_layers);
  c.attention = attention_params_per_layer(m) * layers;
  c.norms = norms_per_layer(m) * layers + hidden;
  if (!m.moe) {
    c.dense_mlp = gated_mlp_params(m, m.intermediate_size) * layers;
    return c;
  }
  const MoeSpec& e = *m.moe;
  const double dense_layers = d(std::min(e.first_dense_layers, m.num_hidden_layers));
  const double moe_layers = layers - dense_layers;
  c.dense_mlp = gated_mlp_params(m, m.intermediate_size) * dense_layers;
  const double expert = gated_mlp_params(m, e.expert_intermediate);
  c.routed_experts = expert * d(e.routed_experts) * moe_layers;
  c.active_routed_experts = expert * d(e.experts_per_token) * moe_layers;
  c.shared_experts = expert * d(e.shared_experts) * moe_layers;
  const double router_bias = has_router_bias(m) ? d(e.routed_experts) : 0.0;
  c.router = (hidden * d(e.routed_experts) + router_bias) * moe_layers;
  return c;
}

void validate_model(const ModelSpec& m, std::string_view where) {
  if (m.bare_params) {
    return;
  }
  const auto require = [&](std::string_view key, std::uint64_t value, std::uint64_t max) {
    if (value < 1 || value > max) {
      throw InputError(fmt::format("{}/{}: expected an integer between 1 and {}, got {}", where,
                                   key, max, value));
    }
  };
  require("hidden_size", m.hidden_size, 1u << 20);
  require("num_hidden_layers", m.num_hidden_layers, 10'000);
  require("num_attention_heads", m.num_attention_heads, 10'000);
  require("vocab_size", m.vocab_size, 100'000'000);
  require("max_position_embeddings", m.max_position_embeddings, 1ull << 32);
  require("intermediate_size", m.intermediate_size, 1u << 22);
  if (m.mla) {
    require("kv_lora_rank", m.mla->kv_lora_rank, 1u << 16);
    require("qk_nope_head_dim", m.mla->qk_nope_head_dim, 1u << 16);
    require("qk_rope_head_dim", m.mla->qk_rope_head_dim, 1u << 16);
    require("v_head_dim", m.mla->v_head_dim, 1u << 16);
  } else {
    require("head_dim", m.head_dim, 1u << 16);
    require("num_key_value_heads", m.num_key_value_heads, m.num_attention_heads);
    if (m.num_attention_heads % m.num_key_value_heads != 0) {
      throw InputError(fmt::format(
          "{}/num_key_value_heads: {} does not divide num_attention_heads {}", where,
          m.num_key_value_heads, m.num_attention_heads));
    }
  }
  if (m.moe) {
    require("num_experts", m.moe->routed_experts, 1u << 16);
    require("num_experts_per_tok", m.moe->experts_per_token, m.moe->routed_experts);
    require("moe_intermediate_size", m.moe->expert_intermediate, 1u << 22);
    if (m.moe->first_dense_layers >= m.num_hidden_layers) {
      throw InputError(fmt::format("{}/first_k_dense_replace: {} leaves no MoE layer of {}", where,
                                   m.moe->first_dense_layers, m.num_hidden_layers));
    }
  }
  if (!m.layer_window_tokens.empty() && m.layer_window_tokens.size() != m.num_hidden_layers) {
    throw InputError(fmt::format("{}/layer_types: {} entries for {} layers", where,
                                 m.layer_window_tokens.size(), m.num_hidden_layers));
  }
}

ModelSpec bare_model(double params, std::string_view label) {
  constexpr double kMaxParams = 1e15;
  if (!(params >= 1.0) || !std::isfinite(params) || params > kMaxParams) {
    throw InputError(fmt::format("model.params: expected between 1 and {:g}, got {:g}", kMaxParams,
                                 params));
  }
  ModelSpec m;
  m.id = std::string(label);
  m.name = fmt::format("{:g}B parameters (architecture unknown)", params / units::kGiga);
  m.bare_params = params;
  m.origin = "bare parameter count";
  return m;
}

}  // namespace gpuplan
