#pragma once
// Per-layer attention and MLP shapes a config.json states beside the layer types: Gemma 4's
// wider full-attention heads, keys reused as values, layers sharing an earlier layer's KV,
// double-wide MLPs, per-layer input embeddings and an MoE block beside the dense MLP.

#include <gpuplan/model_spec.hpp>

#include "detail/json_reader.hpp"

namespace gpuplan::detail {

/// Reads global_head_dim, num_global_key_value_heads with attention_k_eq_v, num_kv_shared_layers,
/// use_double_wide_mlp, hidden_size_per_layer_input with vocab_size_per_layer_input and
/// enable_moe_block into `m`, whose layer count, heads, head_dim and experts are read. Each field
/// absent, null, 0 or false leaves the model as it was. Throws InputError naming the field where
/// the layout it asks for cannot be built (transformers would fail on it too).
void read_per_layer_shapes(ModelSpec& m, ObjectReader& r);

/// Hunyuan's cross-layer attention (use_cla, cla_share_factor): the layers between two that
/// compute K and V borrow them (layer_borrows_kv).
void read_cross_layer_attention(ModelSpec& m, ObjectReader& r);

/// Reads Nemotron-NAS's (DeciLM's) block_configs, one {"attention", "ffn"} block a layer, into
/// `m`, whose layer count, heads and hidden size are read: per-layer KV heads (num_attention_heads
/// / n_heads_in_group), MLP widths (from ffn_mult), blocks left out (no_op) and blocks replaced by
/// one hidden x hidden linear (replace_with_linear). Sets num_key_value_heads to the fewest KV
/// heads and intermediate_size to the widest MLP. Throws InputError naming the block's field where
/// the list cannot be built into layers.
void read_nemotron_nas_blocks(ModelSpec& m, ObjectReader& r);

}  // namespace gpuplan::detail
