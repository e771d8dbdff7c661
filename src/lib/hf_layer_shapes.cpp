#include "detail/hf_layer_shapes.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan::detail {
namespace {

// Per layer: true for a full-attention layer. layer_types where written; else Gemma4TextConfig's
// default of every sixth layer global (sliding_window_pattern 6). Gemma4TextConfig forces the last
// layer to full attention whatever the list says (configuration_gemma4.py __post_init__).
std::vector<bool> full_attention_layers(const ModelSpec& m, ObjectReader& r) {
  std::vector<bool> full(m.num_hidden_layers, false);
  const Json* types = r.value("layer_types");
  const bool listed = types != nullptr && types->is_array() && types->size() == m.num_hidden_layers;
  for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
    full[i] = listed ? (*types)[i] != "sliding_attention" : (i + 1) % 6 == 0;
  }
  if (m.model_type.starts_with("gemma4") && !full.empty()) {
    full.back() = true;
  }
  return full;
}

}  // namespace

void read_per_layer_shapes(ModelSpec& m, ObjectReader& r) {
  const std::uint64_t layers = m.num_hidden_layers;
  const bool global_head = r.optional_integer("global_head_dim", 0, 1u << 16).value_or(0) > 0;
  const bool k_eq_v = r.boolean("attention_k_eq_v", false);
  const std::uint64_t shared = r.optional_integer("num_kv_shared_layers", 0, 10'000).value_or(0);
  const bool double_wide = r.boolean("use_double_wide_mlp", false);
  const std::uint64_t per_layer_width = r.optional_integer("hidden_size_per_layer_input", 0, 1u << 16).value_or(0);
  if (!global_head && !k_eq_v && shared == 0 && per_layer_width == 0 && !r.has("enable_moe_block") &&
      !double_wide) {
    return;
  }
  if (m.mla) {
    r.fail(r.has("global_head_dim") ? "global_head_dim" : "num_kv_shared_layers",
           "Gemma 4's per-layer attention shapes beside MLA are not modeled");
  }
  const std::vector<bool> full = full_attention_layers(m, r);
  // Gemma4TextAttention (transformers modeling_gemma4.py @c308a309) and vLLM's gemma4.py
  // Gemma4DecoderLayer: a full-attention layer's heads are global_head_dim wide; with
  // attention_k_eq_v it has no v_proj (V is K) and num_global_key_value_heads KV heads. Without
  // attention_k_eq_v both ignore num_global_key_value_heads.
  if (global_head) {
    const std::uint64_t global = r.integer("global_head_dim", 1, 1u << 16);
    m.layer_head_dim.assign(layers, m.head_dim);
    for (std::uint64_t i = 0; i < layers; ++i) {
      m.layer_head_dim[i] = full[i] ? global : m.head_dim;
    }
  }
  if (k_eq_v) {
    const std::uint64_t global_kv =
        r.optional_integer("num_global_key_value_heads", 1, 10'000).value_or(m.num_key_value_heads);
    m.layer_value_is_key.assign(layers, false);
    m.layer_kv_heads.assign(layers, m.num_key_value_heads);
    for (std::uint64_t i = 0; i < layers; ++i) {
      m.layer_value_is_key[i] = full[i];
      m.layer_kv_heads[i] = full[i] ? global_kv : m.num_key_value_heads;
      if (full[i] && m.attention_heads_of_layer(i) % global_kv != 0) {
        r.fail("num_global_key_value_heads",
               fmt::format("{} does not divide num_attention_heads {}", global_kv, m.attention_heads_of_layer(i)));
      }
    }
  }
  if (shared > 0) {
    if (shared >= layers) {
      r.fail("num_kv_shared_layers", fmt::format("{} of {} layers leaves no layer whose KV they share", shared, layers));
    }
    // The last `shared` layers attend over the KV of the last earlier layer of their own type
    // (kv_shared_layer_index; vLLM's kv_sharing_target_layer_name): no k_proj, v_proj or k_norm,
    // and no cache of their own. A type with no earlier layer has nothing to share.
    const std::uint64_t first = layers - shared;
    m.layer_reuses_kv.assign(layers, false);
    for (std::uint64_t i = first; i < layers; ++i) {
      const bool found = std::find(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(first), full[i]) !=
                         full.begin() + static_cast<std::ptrdiff_t>(first);
      if (!found) {
        r.fail("num_kv_shared_layers",
               fmt::format("layer {} ({} attention) shares the KV of an earlier layer of its type, but the first {} "
                           "layers have none",
                           i, full[i] ? "full" : "sliding", first));
      }
      m.layer_reuses_kv[i] = true;
    }
    if (double_wide) {
      // Gemma4TextMLP: twice intermediate_size on the KV-sharing layers.
      m.layer_intermediate_size.assign(layers, m.intermediate_size);
      for (std::uint64_t i = first; i < layers; ++i) {
        m.layer_intermediate_size[i] = 2 * m.intermediate_size;
      }
    }
  }
  if (per_layer_width > 0) {
    m.per_layer_input_width = per_layer_width;
    m.per_layer_input_vocab =
        r.optional_integer("vocab_size_per_layer_input", 1, 100'000'000).value_or(m.vocab_size);
  }
  if (r.has("enable_moe_block")) {
    const bool moe_block = r.boolean("enable_moe_block", false);
    if (moe_block && !m.moe) {
      r.fail("num_experts", "missing or at most 1, while enable_moe_block is true: the MoE block needs its experts "
                            "(num_experts, top_k_experts, moe_intermediate_size)");
    }
    if (!moe_block && m.moe) {
      // Gemma4TextDecoderLayer builds its router and experts only with enable_moe_block.
      m.moe.reset();
    }
    if (m.moe) {
      // Gemma4TextDecoderLayer: the experts run beside the dense MLP on every layer.
      m.moe->beside_dense_mlp = true;
    }
  }
}

void read_cross_layer_attention(ModelSpec& m, ObjectReader& r) {
  if (!r.boolean("use_cla", false)) {
    return;
  }
  // HunYuanConfig (Tencent-Hunyuan-Large configuration_hunyuan.py): cla_share_factor defaults to 1.
  const std::uint64_t layers = m.num_hidden_layers;
  const std::uint64_t factor = r.optional_integer("cla_share_factor", 1, 10'000).value_or(1);
  if (factor == 1) {
    return;  // every layer computes its own K and V
  }
  if (m.mla || !m.layer_reuses_kv.empty() || m.linear_attention || !m.layer_is_cross_attention.empty()) {
    r.fail("use_cla", "cross-layer attention beside MLA, KV-sharing, linear or cross-attention layers is not modeled");
  }
  // Hunyuan-Large's HunYuanModel.forward keeps the K and V of a layer whose index is a multiple of
  // cla_share_factor and hands them to the layers after it; those (vLLM's and SGLang's
  // HunYuanCrossAttention, `layer_id % cla_factor != 0`) have q_proj and o_proj only. Both engines
  // still give each of them its own cache slot (vLLM: AttentionType.ENCODER_DECODER; SGLang: a
  // RadixAttention of the layer's id, "the master K/V are stored in this layer's own KV cache
  // slot"), so the KV cache counts every layer.
  m.layer_borrows_kv.assign(layers, false);
  for (std::uint64_t i = 0; i < layers; ++i) {
    m.layer_borrows_kv[i] = i % factor != 0;
  }
}

}  // namespace gpuplan::detail
