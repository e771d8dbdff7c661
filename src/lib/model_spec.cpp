#include <gpuplan/model_spec.hpp>

#include <algorithm>
#include <numeric>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/units.hpp>

#include "detail/numeric.hpp"
#include "detail/weight_summary.hpp"

namespace gpuplan {
namespace {

using detail::d;

using Tensors = std::vector<WeightTensor>;

void add(Tensors& out, WeightPart part, std::uint64_t rows, std::uint64_t cols, double count,
         double active = -1.0) {
  if (rows == 0 || cols == 0 || count <= 0) {
    return;
  }
  out.push_back({.part = part, .rows = rows, .cols = cols, .count = count,
                 .active_count = active < 0 ? count : active, .matrix = true});
}

void add_vector(Tensors& out, WeightPart part, std::uint64_t size, double count) {
  if (size == 0 || count <= 0) {
    return;
  }
  out.push_back({.part = part, .rows = size, .cols = 1, .count = count, .active_count = count, .matrix = false});
}

/// add() or add_vector() of a tensor every TP rank keeps whole.
void add_replicated(Tensors& out, WeightPart part, std::uint64_t rows, std::uint64_t cols, double count) {
  const std::size_t before = out.size();
  if (cols == 1) {
    add_vector(out, part, rows, count);
  } else {
    add(out, part, rows, cols, count);
  }
  if (out.size() > before) {
    out.back().replicated = true;
  }
}

// One kind of attention layer: its query heads, head width and KV heads, and which of the K and V
// projections it has (a layer reusing another's KV has neither; one whose keys are its values no V).
struct AttentionShape {
  std::uint64_t heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t kv_heads = 0;
  bool has_k = true;
  bool has_v = true;
  bool has_k_norm = true;
  friend bool operator==(const AttentionShape&, const AttentionShape&) = default;
};

AttentionShape attention_shape(const ModelSpec& m, std::uint64_t layer) {
  const bool own_kv = !m.lacks_kv_projections(layer);
  // A CLA follower normalizes the borrowed keys with a key_layernorm of its own (vLLM's and
  // SGLang's HunYuanCrossAttention); a Gemma layer reusing another's KV has no k_norm.
  return {.heads = m.attention_heads_of_layer(layer), .head_dim = m.head_dim_of_layer(layer),
          .kv_heads = m.kv_heads_of_layer(layer), .has_k = own_kv, .has_v = own_kv && !m.value_is_key(layer),
          .has_k_norm = !m.reuses_kv(layer)};
}

// Attention of `layers` layers of one shape, with biases and q/k norms.
void attention_tensors(const ModelSpec& m, const AttentionShape& shape, double layers, Tensors& out) {
  const std::uint64_t heads = shape.heads;
  constexpr WeightPart kPart = WeightPart::attention;
  const std::uint64_t hidden = m.hidden_size;
  if (m.mla) {
    // DeepSeek-V2/V3 MLA: q_a, q_a_layernorm, q_b (or a direct q_proj), kv_a (latent + rope key),
    // kv_a_layernorm, kv_b (latent -> per-head k_nope and v), o_proj. The down-projections to
    // the latents and their norms are whole on every TP rank (vLLM's and SGLang's
    // fused_qkv_a_proj is built with disable_tp, kv_a alone is a ReplicatedLinear).
    const MlaSpec& a = *m.mla;
    const std::uint64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      add_replicated(out, kPart, a.q_lora_rank, hidden, layers);
      add_replicated(out, kPart, a.q_lora_rank, 1, layers);
      add(out, kPart, heads * qk_head, a.q_lora_rank, layers);
    } else {
      add(out, kPart, heads * qk_head, hidden, layers);
    }
    add_replicated(out, kPart, a.kv_lora_rank + a.qk_rope_head_dim, hidden, layers);
    add_replicated(out, kPart, a.kv_lora_rank, 1, layers);
    add(out, kPart, heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, layers);
    add(out, kPart, hidden, heads * a.v_head_dim, layers);
    if (a.index_head_dim > 0) {
      // Indexer (replicated: it scores every head's tokens on each rank): queries from the q
      // latent, one key, its LayerNorm, per-head weights; on the layers that own one (IndexShare),
      // spread evenly over any span of layers.
      const double owners = a.index_layers > 0 && m.num_hidden_layers > 0
                                ? layers * static_cast<double>(a.index_layers) / static_cast<double>(m.num_hidden_layers)
                                : layers;
      add_replicated(out, kPart, a.index_heads * a.index_head_dim, a.q_lora_rank > 0 ? a.q_lora_rank : hidden, owners);
      add_replicated(out, kPart, a.index_head_dim, hidden, owners);
      add_replicated(out, kPart, 2 * a.index_head_dim, 1, owners);
      add_replicated(out, kPart, a.index_heads, hidden, owners);
    }
    return;
  }
  const std::uint64_t head_dim = shape.head_dim;
  const std::uint64_t q_dim = heads * head_dim;
  const std::uint64_t kv_dim = shape.kv_heads * head_dim;
  const std::uint64_t kv_projections = (shape.has_k ? 1u : 0u) + (shape.has_v ? 1u : 0u);
  // K and V (and their biases) split by KV head: past that many TP ranks each keeps one head's.
  const auto by_kv_head = [&out](std::size_t before) {
    for (std::size_t i = before; i < out.size(); ++i) {
      out[i].split_by_kv_head = true;
    }
  };
  add(out, kPart, m.attention_output_gate ? 2 * q_dim : q_dim, hidden, layers);
  std::size_t before = out.size();
  for (std::uint64_t i = 0; i < kv_projections; ++i) {
    add(out, kPart, kv_dim, hidden, layers);
  }
  by_kv_head(before);
  add(out, kPart, hidden, q_dim, layers);
  if (m.attention_bias || m.qkv_bias) {
    add_vector(out, kPart, q_dim, layers);
    before = out.size();
    add_vector(out, kPart, kv_projections * kv_dim, layers);
    by_kv_head(before);
  }
  if (m.attention_bias) {
    add_vector(out, kPart, hidden, layers);
  }
  if (m.qk_norm) {
    // A layer reusing another's keys has no k_norm (Gemma4TextAttention builds it with k_proj).
    const std::uint64_t q = m.qk_norm_full_width ? q_dim : head_dim;
    const std::uint64_t k = shape.has_k_norm ? (m.qk_norm_full_width ? kv_dim : head_dim) : 0;
    add_vector(out, kPart, q + k, layers);
  }
  if (m.model_type == "gpt_oss") {
    add_vector(out, kPart, heads, layers);  // learned attention sinks, one per head
  }
}

// Gated DeltaNet (Qwen3-Next): fused q/k/v/z and b/a input projections, a depthwise causal
// convolution over q, k and v, per-head decay parameters, a gated norm and the output projection.
void linear_attention_tensors(const ModelSpec& m, double layers, Tensors& out) {
  constexpr WeightPart kPart = WeightPart::attention;
  const LinearAttentionSpec& a = *m.linear_attention;
  const std::uint64_t key_dim = a.key_heads * a.key_head_dim;
  const std::uint64_t value_dim = a.value_heads * a.value_head_dim;
  if (a.kind == LinearAttentionSpec::Kind::short_conv) {
    // Lfm2ShortConv (modeling_lfm2.py): in_proj to B, C and x (3 x its width), a depthwise conv1d
    // of conv_L_cache taps, out_proj; biases with conv_bias.
    const std::uint64_t width = value_dim;
    add(out, kPart, 3 * width, m.hidden_size, layers);
    add_vector(out, kPart, width * a.conv_kernel, layers);
    add(out, kPart, m.hidden_size, width, layers);
    if (a.conv_bias) {
      add_vector(out, kPart, 3 * width + width + m.hidden_size, layers);
    }
    return;
  }
  if (a.kind == LinearAttentionSpec::Kind::lightning) {
    // MiniMaxText01LinearAttention (vLLM model_executor/models/minimax_text_01.py @01c91c0):
    // qkv_proj to 3 x heads x head_dim, output_gate and out_proj of heads x head_dim, an RMSNorm
    // over that width; no biases.
    add(out, kPart, 3 * value_dim, m.hidden_size, layers);
    add(out, kPart, value_dim, m.hidden_size, layers);
    add(out, kPart, m.hidden_size, value_dim, layers);
    add_vector(out, kPart, value_dim, layers);
    return;
  }
  if (a.kind == LinearAttentionSpec::Kind::mamba1) {
    // JambaMambaMixer (modeling_jamba.py; vLLM's MambaMixer): in_proj to x and the gate (2 x the
    // width), depthwise conv1d, x_proj to dt (dt_rank), B and C (d_state each), dt_proj back to the
    // width with a bias, A_log (width x d_state) and D, out_proj; RMSNorms on dt, B and C.
    const std::uint64_t width = value_dim;
    const std::uint64_t state = a.key_head_dim;
    add(out, kPart, 2 * width, m.hidden_size, layers);
    add_vector(out, kPart, width * a.conv_kernel + (a.conv_bias ? width : 0), layers);
    add(out, kPart, a.dt_rank + 2 * state, width, layers);
    add(out, kPart, width, a.dt_rank, layers);
    add_vector(out, kPart, width + width * state + width + a.dt_rank + 2 * state, layers);
    add(out, kPart, m.hidden_size, width, layers);
    if (a.proj_bias) {
      add_vector(out, kPart, 2 * width + m.hidden_size, layers);
    }
    return;
  }
  if (a.kind == LinearAttentionSpec::Kind::kda) {
    // KimiDeltaAttention (vLLM model_executor/layers/kda.py @01a7e5d9): q, k and v projections of
    // heads x head_dim, each with a depthwise conv of short_conv_kernel_size taps; the forget gate
    // through f_a (hidden to head_dim, replicated) and f_b (head_dim to heads x head_dim) with
    // dt_bias; b_proj (one beta per head); A_log per head; the output gate through g_a and g_b; a
    // head_dim RMSNorm; o_proj. No biases.
    const std::uint64_t width = value_dim;
    add(out, kPart, 3 * width, m.hidden_size, layers);
    add_vector(out, kPart, 3 * width * a.conv_kernel, layers);
    add_replicated(out, kPart, 2 * a.value_head_dim, m.hidden_size, layers);  // f_a, g_a
    add(out, kPart, 2 * width, a.value_head_dim, layers);                     // f_b, g_b
    add(out, kPart, a.value_heads, m.hidden_size, layers);                    // b_proj
    add_vector(out, kPart, width + a.value_heads + a.value_head_dim, layers);  // dt_bias, A_log, o_norm
    add(out, kPart, m.hidden_size, width, layers);
    return;
  }
  if (a.kind == LinearAttentionSpec::Kind::mamba2) {
    // Mamba2 mixer (transformers' Mamba2Mixer, NemotronHMamba2Mixer, GraniteMoeHybridMambaLayer,
    // FalconH1Mixer; vLLM's MambaMixer2): in_proj to the gate z, x, B, C (n_groups x d_state each)
    // and dt (one per head); a depthwise conv1d over x, B and C; dt_bias, A_log and D per head; the
    // gated RMSNorm over the intermediate width; out_proj back.
    const std::uint64_t conv_dim = value_dim + 2 * key_dim;
    add(out, kPart, value_dim + conv_dim + a.value_heads, m.hidden_size, layers);
    add_vector(out, kPart, conv_dim * a.conv_kernel + (a.conv_bias ? conv_dim : 0), layers);
    add_vector(out, kPart, 3 * a.value_heads + (a.gated_norm ? value_dim : 0), layers);
    add(out, kPart, m.hidden_size, value_dim, layers);
    add_vector(out, kPart, (a.proj_bias ? value_dim + conv_dim + a.value_heads : 0) + (a.out_proj_bias ? m.hidden_size : 0),
               layers);
    return;
  }
  add(out, kPart, 2 * key_dim + 2 * value_dim, m.hidden_size, layers);
  add(out, kPart, 2 * a.value_heads, m.hidden_size, layers);
  add_vector(out, kPart, (2 * key_dim + value_dim) * a.conv_kernel, layers);
  add_vector(out, kPart, 2 * a.value_heads + a.value_head_dim, layers);  // dt_bias, A_log, norm
  add(out, kPart, m.hidden_size, value_dim, layers);
}

// One MLP of width `intermediate`: gated (gate, up, down) or GPT-style (up, down), maybe biased.
// Of `hidden` inputs and outputs where they are not the model's (a latent MoE's experts).
void mlp_tensors(const ModelSpec& m, WeightPart part, std::uint64_t intermediate, double count,
                 double active, Tensors& out, std::uint64_t hidden) {
  const int inputs = m.mlp_gated ? 2 : 1;
  for (int i = 0; i < inputs; ++i) {
    add(out, part, intermediate, hidden, count, active);
  }
  add(out, part, hidden, intermediate, count, active);
  if (m.mlp_bias || m.model_type == "gpt_oss") {  // gpt-oss experts carry biases
    add_vector(out, part, static_cast<std::uint64_t>(inputs) * intermediate + hidden, count);
  }
}

void mlp_tensors(const ModelSpec& m, WeightPart part, std::uint64_t intermediate, double count,
                 double active, Tensors& out) {
  mlp_tensors(m, part, intermediate, count, active, out, m.hidden_size);
}

bool has_router_bias(const ModelSpec& m) {
  // gpt-oss routers carry a bias; DeepSeek-V3 and GLM-4.5 an e_score_correction_bias.
  // Nemotron-H's NemotronHTopkRouter has one too.
  // LongCat-Flash's LongcatFlashTopkRouter: an e_score_correction_bias buffer, saved with the
  // checkpoint, over its real and zero experts.
  return m.model_type == "gpt_oss" || m.model_type == "deepseek_v3" || m.model_type == "glm4_moe" ||
         m.model_type == "nemotron_h" || m.model_type == "longcat_flash";
}

// An encoder's layers (vision tower, audio encoder): q, k, v and o of `width`, an MLP (gated or
// not) of `intermediate`, `layers` times; biases and norms are the caller's.
void encoder_layer_matrices(std::uint64_t width, std::uint64_t intermediate, bool gated, double layers, Tensors& out) {
  constexpr WeightPart kPart = WeightPart::vision;
  for (int i = 0; i < 4; ++i) {
    add(out, kPart, width, width, layers);  // q, k, v, o
  }
  for (int i = 0; i < (gated ? 2 : 1); ++i) {
    add(out, kPart, intermediate, width, layers);
  }
  add(out, kPart, width, intermediate, layers);
}

void vision_tensors(const VisionSpec& v, Tensors& out) {
  constexpr WeightPart kPart = WeightPart::vision;
  const double layers = d(v.layers);
  const std::uint64_t h = v.hidden_size;
  encoder_layer_matrices(h, v.intermediate_size, v.gated_mlp, layers, out);
  if (v.biases) {
    add_vector(out, kPart, 4 * h + (v.gated_mlp ? 2 : 1) * v.intermediate_size + h, layers);
  }
  add_vector(out, kPart, (v.biases ? 4 : 2) * h, layers);  // two norms per layer
  add(out, kPart, h, 3 * v.temporal_patch * v.patch_size * v.patch_size, 1);  // patch embedding (RGB)
  if (v.position_rows > 0) {
    add(out, kPart, v.position_rows, h, 1);  // learned position table
  } else if (v.image_size > 0 && v.patch_size > 0) {
    const std::uint64_t side = v.image_size / v.patch_size;
    add(out, kPart, side * side, h, 1);  // learned position table
  }
  // The projector and Qwen3-VL's deepstack mergers, which project earlier layers' patches alike.
  const double mergers = 1.0 + d(v.extra_mergers);
  if (v.merge > 1 && v.merger_intermediate == 0) {
    // Patch mergers (Qwen2-VL style) mix the merged patches before projecting them.
    add(out, kPart, h * v.merge * v.merge, h * v.merge * v.merge, mergers);
  }
  if (v.projector_intermediate > 0) {
    // Idefics2's modality_projection: gate and up from the tower's width, down to the text model's.
    // Aya Vision's takes shuffle x shuffle patches concatenated, its gate and up fused in one linear.
    const std::uint64_t in = h * v.merge * v.merge * v.shuffle * v.shuffle;
    add(out, kPart, v.projector_intermediate, in, 2);
    add(out, kPart, v.output_size, v.projector_intermediate, 1);
    if (v.projector_norm_and_biases) {
      add_vector(out, kPart, 2 * in + 2 * v.projector_intermediate + v.output_size, 1);
    }
  } else if (v.two_layer_projector) {
    if (v.patch_merger > 1) {
      add(out, kPart, h, h * v.patch_merger * v.patch_merger, 1);  // Mistral3PatchMerger's merging_layer
    }
    add(out, kPart, v.output_size, h * v.feature_layers, 1);  // linear_1
    add(out, kPart, v.output_size, v.output_size, 1);         // linear_2
    if (v.projector_biases) {
      add_vector(out, kPart, 2 * v.output_size, 1);
    }
    if (v.projector_vectors > 0) {
      add_vector(out, kPart, v.projector_vectors, 1);
    }
  } else {
    add(out, kPart, v.output_size, h * v.merge * v.merge * v.shuffle * v.shuffle, mergers);  // projector into the text model
  }
  if (v.resampler) {
    // Idefics2PerceiverResampler: the latents, then per layer q and o over all heads, k and v over
    // the KV heads, a gated MLP and three RMSNorms (latents, context, post-attention); a final norm.
    const ResamplerSpec& p = *v.resampler;
    const double layers_r = d(p.layers);
    add(out, kPart, p.latents, p.hidden_size, 1);
    add(out, kPart, p.heads * p.head_dim, p.hidden_size, layers_r);
    add(out, kPart, p.kv_heads * p.head_dim, p.hidden_size, 2 * layers_r);
    add(out, kPart, p.hidden_size, p.heads * p.head_dim, layers_r);
    if (p.intermediate_size > 0) {
      add(out, kPart, p.intermediate_size, p.hidden_size, 2 * layers_r);
      add(out, kPart, p.hidden_size, p.intermediate_size, layers_r);
    } else {
      // No MLP (intermediate_size 0): MiniCPM-V's Resampler2_5/4_5 end with an E x E post-projection
      // (vllm/model_executor/layers/resampler.py BaseResampler.proj, do_post_projection).
      add(out, kPart, p.hidden_size, p.hidden_size, 1);
    }
    add_vector(out, kPart, 3 * p.hidden_size, layers_r);
    add_vector(out, kPart, p.hidden_size, 1);
  }
  if (v.merger_intermediate > 0) {
    // GLM-4V's merger after its downsample: a square projection, then a gated MLP.
    add(out, kPart, v.output_size, v.output_size, 1);
    add(out, kPart, v.merger_intermediate, v.output_size, 3);
  }
}

// Gemma 4's audio conformer (transformers modeling_gemma4.py @c308a309: Gemma4AudioLayer,
// Gemma4AudioSubSampleConvProjection, Gemma4AudioModel.output_proj, Gemma4MultimodalEmbedder).
void conformer_tensors(const AudioSpec& a, Tensors& out) {
  constexpr WeightPart kPart = WeightPart::vision;
  const double layers = d(a.layers);
  const std::uint64_t h = a.hidden_size;
  add(out, kPart, 4 * h, h, 2 * layers);  // two feed-forward blocks: ffw_layer_1
  add(out, kPart, h, 4 * h, 2 * layers);  // ffw_layer_2
  add(out, kPart, h, h, 5 * layers);      // q, k, v, post and relative_k_proj
  add(out, kPart, 2 * h, h, layers);      // lconv1d linear_start (GLU)
  add(out, kPart, h, h, layers);          // linear_end
  // Feed-forward pre- and post-norms, per_dim_scale, the depthwise convolution, its two norms,
  // and the layer's three norms.
  const std::uint64_t head_dim = a.heads > 0 ? h / a.heads : 0;
  add_vector(out, kPart, 4 * h + head_dim + h * a.conv_kernel + 2 * h + 3 * h, layers);
  const auto [c0, c1] = a.subsampling_channels;
  add_vector(out, kPart, c0 * 9 + c0 + c1 * c0 * 9 + c1, 1);  // two 3 x 3 convolutions and their norms
  add(out, kPart, h, (c0 / 4) * c1, 1);                         // input_proj_linear
  add(out, kPart, a.output_size, h, 1);                         // output_proj
  add_vector(out, kPart, a.output_size, 1);                     // its bias
  add(out, kPart, a.text_hidden, a.output_size, 1);             // embed_audio's projection
}

void audio_tensors(const AudioSpec& a, Tensors& out) {
  constexpr WeightPart kPart = WeightPart::vision;
  const std::size_t first = out.size();
  if (a.conformer) {
    conformer_tensors(a, out);
    for (std::size_t i = first; i < out.size(); ++i) {
      out[i].replicated = true;
    }
    return;
  }
  const double layers = d(a.layers);
  const std::uint64_t h = a.hidden_size;
  encoder_layer_matrices(h, a.intermediate_size, false, layers, out);
  // Biases of q, v, o (Whisper's k has none) and the MLP; two LayerNorms per layer and a final one.
  add_vector(out, kPart, 3 * h + a.intermediate_size + h, layers);
  add_vector(out, kPart, 4 * h, layers);
  add_vector(out, kPart, 2 * h, 1);
  add(out, kPart, h, 3 * a.mel_bins, 1);  // conv1: kernel 3 over the mel bins
  add(out, kPart, h, 3 * h, 1);           // conv2: kernel 3, stride 2
  add_vector(out, kPart, 2 * h, 1);
  add(out, kPart, a.positions, h, 1);
  const std::uint64_t in = a.projector_input > 0 ? a.projector_input : h;
  add(out, kPart, a.output_size, in, 1);
  if (a.two_layer_projector) {
    add(out, kPart, a.output_size, a.output_size, 1);
  }
  if (a.projector_biases) {
    add_vector(out, kPart, (a.two_layer_projector ? 2 : 1) * a.output_size, 1);
  }
  for (std::size_t i = first; i < out.size(); ++i) {
    out[i].replicated = !a.split_over_tp;
  }
}

}  // namespace

std::uint64_t ModelSpec::window_of_layer(std::uint64_t layer) const {
  return layer < layer_window_tokens.size() ? layer_window_tokens[layer] : 0;
}

bool ModelSpec::is_moe_layer(std::uint64_t layer) const {
  if (!moe || layer < moe->first_dense_layers || layer >= num_hidden_layers) {
    return false;
  }
  if (std::find(moe->dense_layers.begin(), moe->dense_layers.end(), layer) != moe->dense_layers.end()) {
    return false;
  }
  return moe->layer_step <= 1 || (layer + 1) % moe->layer_step == 0;
}

std::string ModelSpec::context_limit_source() const {
  return unscaled_max_position_embeddings == 0
             ? std::string("max_position_embeddings")
             : fmt::format("max_position_embeddings {} scaled by rope_scaling", unscaled_max_position_embeddings);
}

std::uint64_t ModelSpec::moe_layer_count() const {
  // Counted, not walked layer by layer: every fit of a layout search asks (several times).
  if (!moe || moe->first_dense_layers >= num_hidden_layers) {
    return 0;
  }
  const std::uint64_t first = moe->first_dense_layers;
  const std::uint64_t step = moe->layer_step <= 1 ? 1 : moe->layer_step;
  // Layers i in [first, layers) with (i + 1) % step == 0.
  std::uint64_t n = num_hidden_layers / step - first / step;
  // Less each distinct mlp_only layer among them.
  const std::vector<std::uint64_t>& dense = moe->dense_layers;
  for (auto it = dense.begin(); it != dense.end(); ++it) {
    const std::uint64_t layer = *it;
    if (layer >= first && layer < num_hidden_layers && (layer + 1) % step == 0 &&
        std::find(dense.begin(), it, layer) == it) {
      --n;
    }
  }
  return n;
}

namespace {
constexpr double kConvStateBytes = 2.0;  // the model's 16-bit dtype
}  // namespace

double LinearAttentionSpec::ssm_state_elements() const {
  return d(value_heads) * d(key_head_dim) * d(value_head_dim);
}

double LinearAttentionSpec::conv_state_elements() const {
  return d(2 * key_heads * key_head_dim + value_heads * value_head_dim) * d(conv_kernel > 0 ? conv_kernel - 1 : 0);
}

double LinearAttentionSpec::conv_state_bytes() const { return conv_state_elements() * kConvStateBytes; }

double LinearAttentionSpec::state_bytes() const {
  return ssm_state_elements() * ssm_state_element_bytes + conv_state_bytes();
}

std::string_view to_string(WeightPart part) {
  switch (part) {
    case WeightPart::embedding: return "embedding";
    case WeightPart::lm_head: return "lm_head";
    case WeightPart::attention: return "attention";
    case WeightPart::dense_mlp: return "dense_mlp";
    case WeightPart::routed_experts: return "routed_experts";
    case WeightPart::shared_experts: return "shared_experts";
    case WeightPart::router: return "router";
    case WeightPart::norms: return "norms";
    case WeightPart::vision: return "vision";
  }
  return "?";
}

std::vector<WeightTensor> weight_tensors(const ModelSpec& m) {
  Tensors out;
  if (m.bare_params) {
    return out;
  }
  out.reserve(32);  // a MoE model with a vision tower has some twenty shapes
  const std::uint64_t hidden = m.hidden_size;
  const std::uint64_t token_width = m.embedding_width > 0 ? m.embedding_width : hidden;
  add(out, WeightPart::embedding, m.vocab_size, token_width, 1);
  if (m.learned_positions > 0) {
    add(out, WeightPart::embedding, m.learned_positions, hidden, 1);
  }
  if (token_width != hidden) {  // project_in and project_out, no bias
    add(out, WeightPart::embedding, hidden, token_width, 2);
  }
  if (!m.tie_word_embeddings && !m.classification_head) {
    add(out, WeightPart::lm_head, m.vocab_size, token_width, 1);
  }
  double linear_layers = 0;       // a state instead of attention
  double state_layers = 0;        // a state, instead of attention or beside it (Falcon-H1)
  double mlp_only_layers = 0;     // no attention nor state (Nemotron-H's MLP and MoE blocks)
  double mixer_only_layers = 0;   // no MLP (Nemotron-H's attention and Mamba blocks)
  for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
    linear_layers += m.is_linear_layer(i) ? 1.0 : 0.0;
    state_layers += m.has_state(i) ? 1.0 : 0.0;
    mlp_only_layers += m.has_mixer(i) ? 0.0 : 1.0;
    mixer_only_layers += m.has_mlp(i) ? 0.0 : 1.0;
  }
  const double layers = d(m.num_hidden_layers);
  if (m.layer_attention_heads.empty() && !m.kv_width_varies() && m.layer_reuses_kv.empty() &&
      m.layer_value_is_key.empty() && m.layer_borrows_kv.empty()) {
    attention_tensors(m, attention_shape(m, 0), layers - linear_layers - mlp_only_layers, out);
  } else {
    // Layers of each shape (Laguna: q_proj and o_proj 48 or 72 heads wide; Gemma 4: full-attention
    // layers of wider heads, layers without K and V projections).
    std::vector<std::pair<AttentionShape, double>> by_shape;
    for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
      if (!m.has_attention(i)) {
        continue;
      }
      const AttentionShape shape = attention_shape(m, i);
      auto it = std::find_if(by_shape.begin(), by_shape.end(), [&shape](const auto& h) { return h.first == shape; });
      if (it == by_shape.end()) {
        it = by_shape.emplace(by_shape.end(), shape, 0.0);
      }
      it->second += 1.0;
    }
    for (const auto& [shape, count] : by_shape) {
      attention_tensors(m, shape, count, out);
    }
  }
  if (m.linear_attention && state_layers > 0) {
    linear_attention_tensors(m, state_layers, out);
  }
  // Nemotron-NAS's blocks replaced by one hidden x hidden linear (TensorRT-LLM's LinearAttention
  // and LinearMLP: a column-parallel Linear gathered, so split over TP like the layers it replaces).
  double linear_mixers = 0;
  double linear_mlps = 0;
  double blocks = 0;  // attention (or its linear) and MLP (or its linear) blocks present
  for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
    linear_mixers += m.has_linear_mixer(i) ? 1.0 : 0.0;
    linear_mlps += m.has_linear_mlp(i) ? 1.0 : 0.0;
    blocks += (m.has_mixer(i) || m.has_linear_mixer(i) ? 1.0 : 0.0) + (m.has_mlp(i) || m.has_linear_mlp(i) ? 1.0 : 0.0);
  }
  if (linear_mixers > 0) {
    add(out, WeightPart::attention, hidden, hidden, linear_mixers);
  }
  if (linear_mlps > 0) {
    add(out, WeightPart::dense_mlp, hidden, hidden, linear_mlps);
  }
  const double per_norm = m.layer_norm ? 2.0 : 1.0;
  const double layer_norms = m.norm_per_block ? blocks : d(m.norms_per_layer) * layers;
  add_replicated(out, WeightPart::norms, hidden, 1, per_norm * (layer_norms + 1.0));
  const double moe_layers = d(m.moe_layer_count());
  const bool beside = m.moe && (m.moe->beside_dense_mlp || m.moe->shortcut);
  // Blocks without an MLP are never MoE layers (the reader lists them as dense). Gemma 4's MoE
  // layers keep their dense MLP.
  const double dense_layers = layers - (beside ? 0.0 : moe_layers) - mixer_only_layers;
  if (m.layer_intermediate_size.empty()) {
    mlp_tensors(m, WeightPart::dense_mlp, m.intermediate_size, dense_layers, dense_layers, out);
  } else {
    // Widths per layer (Gemma 4's double-wide MLPs on the KV-sharing layers).
    std::vector<std::pair<std::uint64_t, double>> by_width;
    for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
      if (!m.has_mlp(i) || (m.is_moe_layer(i) && !beside)) {
        continue;
      }
      const std::uint64_t width = m.intermediate_of_layer(i);
      auto it = std::find_if(by_width.begin(), by_width.end(), [width](const auto& w) { return w.first == width; });
      if (it == by_width.end()) {
        it = by_width.emplace(by_width.end(), width, 0.0);
      }
      it->second += 1.0;
    }
    for (const auto& [width, count] : by_width) {
      mlp_tensors(m, WeightPart::dense_mlp, width, count, count, out);
    }
  }
  if (m.per_layer_input_width > 0) {
    // Per-layer embeddings (Gemma4TextModel: embed_tokens_per_layer, per_layer_model_projection and
    // per_layer_projection_norm; Gemma4TextDecoderLayer: per_layer_input_gate,
    // per_layer_projection, post_per_layer_input_norm). The table is a lookup, as the token table.
    // vLLM's gemma4.py builds the projections as ReplicatedLinear: whole on every TP rank.
    const std::uint64_t width = m.per_layer_input_width;
    add(out, WeightPart::embedding, m.per_layer_input_vocab, m.num_hidden_layers * width, 1);
    add_replicated(out, WeightPart::dense_mlp, m.num_hidden_layers * width, hidden, 1);
    add_replicated(out, WeightPart::norms, width, 1, 1);
    add_replicated(out, WeightPart::dense_mlp, width, hidden, layers);
    add_replicated(out, WeightPart::dense_mlp, hidden, width, layers);
    add_replicated(out, WeightPart::norms, hidden, 1, layers);
  }
  if (m.moe && moe_layers > 0) {
    const MoeSpec& e = *m.moe;
    if (e.beside_dense_mlp) {
      // Gemma4TextDecoderLayer's post_feedforward_layernorm_1 and _2, pre_feedforward_layernorm_2;
      // Gemma4TextRouter's scale (hidden) and per_expert_scale.
      add_replicated(out, WeightPart::norms, hidden, 1, 3.0 * moe_layers);
      add_replicated(out, WeightPart::router, hidden + e.routed_experts, 1, moe_layers);
    }
    mlp_tensors(m, WeightPart::routed_experts, e.expert_intermediate, d(e.routed_experts) * moe_layers,
                d(e.experts_per_token) * moe_layers, out, e.latent_width > 0 ? e.latent_width : hidden);
    if (e.latent_width > 0) {
      // fc1_latent_proj and fc2_latent_proj, whole on every rank (ReplicatedLinear in vLLM's
      // nemotron_h.py NemotronHMoE), run for every token like the shared expert.
      add_replicated(out, WeightPart::shared_experts, e.latent_width, hidden, moe_layers);
      add_replicated(out, WeightPart::shared_experts, hidden, e.latent_width, moe_layers);
    }
    const std::uint64_t shared_width =
        e.shared_expert_intermediate > 0 ? e.shared_expert_intermediate : e.expert_intermediate;
    mlp_tensors(m, WeightPart::shared_experts, shared_width, d(e.shared_experts) * moe_layers,
                d(e.shared_experts) * moe_layers, out);
    if (e.shared_expert_gate) {
      add(out, WeightPart::shared_experts, 1, hidden, moe_layers);
    }
    add_replicated(out, WeightPart::router, e.routed_experts + e.zero_experts, hidden, moe_layers);
    if (has_router_bias(m)) {
      add_replicated(out, WeightPart::router, e.routed_experts + e.zero_experts, 1, moe_layers);
    }
  }
  if (m.audio) {
    audio_tensors(*m.audio, out);
  }
  if (m.vision) {
    vision_tensors(*m.vision, out);
  }
  return out;
}

namespace {

/// Bytes by part of the tensors `keep` selects (all of them without it).
template <typename Keep>
std::array<double, kWeightParts> bytes_by_part(const Tensors& tensors, const WeightFormats& f, Keep keep) {
  std::array<double, kWeightParts> bytes{};
  const double vector_bytes = bits_per_element(f.vectors) / units::kBitsPerByte;
  for (const WeightTensor& t : tensors) {
    if (!keep(t)) {
      continue;
    }
    const double one = t.matrix ? f[t.part].matrix_bytes(t.rows, t.cols) : d(t.rows) * vector_bytes;
    bytes[static_cast<std::size_t>(t.part)] += one * t.count;
  }
  return bytes;
}

std::array<double, kWeightParts> bytes_by_part(const Tensors& tensors, const WeightFormats& f) {
  return bytes_by_part(tensors, f, [](const WeightTensor&) { return true; });
}

ParamCount params_of(const ModelSpec& m, const Tensors& tensors) {
  ParamCount c;
  if (m.bare_params) {
    c.dense_mlp = *m.bare_params;  // unknown split: all of it counts as body weights
    return c;
  }
  for (const WeightTensor& t : tensors) {
    const double n = d(t.rows) * d(t.cols) * t.count;
    c.replicated += t.replicated && t.part != WeightPart::vision ? n : 0.0;
    c.kv_projection += t.split_by_kv_head ? n : 0.0;
    switch (t.part) {
      case WeightPart::embedding: c.embedding += n; break;
      case WeightPart::lm_head: c.lm_head += n; break;
      case WeightPart::attention: c.attention += n; break;
      case WeightPart::dense_mlp: c.dense_mlp += n; break;
      case WeightPart::routed_experts:
        c.routed_experts += n;
        c.active_routed_experts += d(t.rows) * d(t.cols) * t.active_count;
        break;
      case WeightPart::shared_experts: c.shared_experts += n; break;
      case WeightPart::router: c.router += n; break;
      case WeightPart::norms: c.norms += n; break;
      case WeightPart::vision: c.vision += n; break;
    }
  }
  return c;
}

}  // namespace

std::array<double, kWeightParts> weight_bytes_by_part(const ModelSpec& m, const WeightFormats& f) {
  return bytes_by_part(weight_tensors(m), f);
}

ParamCount count_params(const ModelSpec& m) { return params_of(m, weight_tensors(m)); }

MtpBytes mtp_weight_bytes(const ModelSpec& m, const WeightFormats& f) {
  MtpBytes out;
  if (m.mtp_layers == 0 || m.bare_params) {
    return out;
  }
  ModelSpec base = m;
  base.vision.reset();
  base.audio.reset();
  ModelSpec more = base;
  more.num_hidden_layers += m.mtp_layers;
  const auto extend = [&more](auto& per_layer, auto value) {
    if (!per_layer.empty()) {
      per_layer.resize(more.num_hidden_layers, value);
    }
  };
  extend(more.layer_window_tokens, std::uint64_t{0});
  extend(more.layer_is_chunked, false);
  extend(more.layer_is_linear, false);
  extend(more.layer_without_mixer, false);
  extend(more.layer_without_mlp, false);
  extend(more.layer_linear_mixer, false);
  extend(more.layer_linear_mlp, false);
  extend(more.layer_is_cross_attention, false);
  // An MTP layer is the model's last layer kind.
  const auto extend_last = [&more](auto& per_layer) {
    if (!per_layer.empty()) {
      const typename std::decay_t<decltype(per_layer)>::value_type last = per_layer.back();
      per_layer.resize(more.num_hidden_layers, last);
    }
  };
  extend_last(more.layer_head_dim);
  extend_last(more.layer_kv_heads);
  extend_last(more.layer_intermediate_size);
  extend(more.layer_reuses_kv, false);
  extend(more.layer_borrows_kv, false);
  extend_last(more.layer_value_is_key);
  const auto total = [&f](const ModelSpec& s) {
    double sum = 0;
    for (const double b : weight_bytes_by_part(s, f)) {
      sum += b;
    }
    return sum;
  };
  const double vector_bytes = bits_per_element(f.vectors) / units::kBitsPerByte;
  // eh_proj joins the token's embedding and the hidden state; enorm, hnorm and the shared head's norm.
  const double joint = f[WeightPart::attention].matrix_bytes(m.hidden_size, 2 * m.hidden_size) +
                       3.0 * d(m.hidden_size) * vector_bytes;
  out.layers = total(more) - total(base) + d(m.mtp_layers) * joint;
  out.copies = d(m.mtp_layers) * (f[WeightPart::embedding].matrix_bytes(m.vocab_size, m.hidden_size) +
                                  f[WeightPart::lm_head].matrix_bytes(m.vocab_size, m.hidden_size));
  return out;
}

detail::WeightTotals detail::weight_totals(const ModelSpec& m, const WeightFormats& f) {
  const Tensors tensors = weight_tensors(m);
  return {.params = params_of(m, tensors), .bytes = bytes_by_part(tensors, f),
          .replicated_bytes = bytes_by_part(tensors, f, [](const WeightTensor& t) { return t.replicated; }),
          .kv_projection_bytes = bytes_by_part(tensors, f, [](const WeightTensor& t) { return t.split_by_kv_head; })};
}

double ModelSpec::mean_attention_heads() const {
  if (layer_attention_heads.empty()) {
    return d(num_attention_heads);
  }
  double heads = 0;
  double layers = 0;
  for (std::uint64_t i = 0; i < num_hidden_layers; ++i) {
    if (has_attention(i)) {
      heads += d(attention_heads_of_layer(i));
      layers += 1.0;
    }
  }
  return layers > 0 ? heads / layers : d(num_attention_heads);
}

std::uint64_t ModelSpec::tp_divisible_heads() const {
  std::uint64_t g = num_attention_heads;
  for (const std::uint64_t heads : layer_attention_heads) {
    g = std::gcd(g, heads);
  }
  return g;
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
    if (m.moe_layer_count() == 0) {
      throw InputError(fmt::format("{}/mlp_only_layers: no MoE layer is left of {}", where,
                                   m.num_hidden_layers));
    }
  }
  if (!m.layer_is_linear.empty() &&
      (m.layer_is_linear.size() != m.num_hidden_layers || !m.linear_attention)) {
    throw InputError(fmt::format("{}/layer_types: linear-attention layers need {} entries and the "
                                 "linear_* sizes", where, m.num_hidden_layers));
  }
  if ((!m.layer_without_mixer.empty() && m.layer_without_mixer.size() != m.num_hidden_layers) ||
      (!m.layer_without_mlp.empty() && m.layer_without_mlp.size() != m.num_hidden_layers)) {
    throw InputError(fmt::format("{}/hybrid_override_pattern: one block a layer, {} layers", where,
                                 m.num_hidden_layers));
  }
  if (!m.layer_is_cross_attention.empty() && m.layer_is_cross_attention.size() != m.num_hidden_layers) {
    throw InputError(fmt::format("{}/cross_attention_layers: {} entries for {} layers", where,
                                 m.layer_is_cross_attention.size(), m.num_hidden_layers));
  }
  if (!m.layer_attention_heads.empty()) {
    if (m.layer_attention_heads.size() != m.num_hidden_layers) {
      throw InputError(fmt::format("{}/num_attention_heads_per_layer: {} entries for {} layers", where,
                                   m.layer_attention_heads.size(), m.num_hidden_layers));
    }
    for (std::size_t i = 0; i < m.layer_attention_heads.size(); ++i) {
      const std::uint64_t heads = m.layer_attention_heads[i];
      if (heads < 1 || heads > 10'000 || (!m.mla && heads % m.num_key_value_heads != 0)) {
        throw InputError(fmt::format("{}/num_attention_heads_per_layer/{}: expected a multiple of "
                                     "num_key_value_heads {} between 1 and 10000, got {}",
                                     where, i, m.num_key_value_heads, heads));
      }
    }
  }
  const auto per_layer = [&](std::string_view key, std::size_t size) {
    if (size != 0 && size != m.num_hidden_layers) {
      throw InputError(fmt::format("{}/{}: {} entries for {} layers", where, key, size, m.num_hidden_layers));
    }
  };
  per_layer("layer_types", m.layer_head_dim.size());
  per_layer("layer_types", m.layer_kv_heads.size());
  per_layer("num_kv_shared_layers", m.layer_reuses_kv.size());
  per_layer("attention_k_eq_v", m.layer_value_is_key.size());
  per_layer("use_cla", m.layer_borrows_kv.size());
  per_layer("intermediate_size", m.layer_intermediate_size.size());
  per_layer("block_configs", m.layer_linear_mixer.size());
  per_layer("block_configs", m.layer_linear_mlp.size());
  for (std::uint64_t i = 0; i < m.layer_kv_heads.size(); ++i) {
    const std::uint64_t kv = m.layer_kv_heads[i];
    if (kv < 1 || m.attention_heads_of_layer(i) % kv != 0) {
      throw InputError(fmt::format("{}/num_global_key_value_heads: {} does not divide num_attention_heads {} (layer {})",
                                   where, kv, m.attention_heads_of_layer(i), i));
    }
  }
  if (!m.layer_window_tokens.empty() && m.layer_window_tokens.size() != m.num_hidden_layers) {
    throw InputError(fmt::format("{}/layer_types: {} entries for {} layers", where,
                                 m.layer_window_tokens.size(), m.num_hidden_layers));
  }
}

ModelSpec bare_model(double params, std::string_view label, std::string_view field) {
  // A count below a million is a forgotten suffix ("70" for 70B), not a language model: sizing
  // it would call a 140 GB model a fit on one GPU.
  constexpr double kMinParams = 1e6;
  constexpr double kMaxParams = 1e15;
  if (std::isfinite(params) && params >= 1.0 && params < kMinParams) {
    // "70" is 70B with its suffix forgotten; "999999" is no count of billions.
    throw InputError(params < 1e4 ? fmt::format("{}: {:g} parameters is no language model (a million at least); for "
                                                "{:g} billion write {:g}B (suffixes k, M, B, T)",
                                                field, params, params, params)
                                  : fmt::format("{}: {:g} parameters is no language model (a million at least); give "
                                                "a suffix (k, M, B, T), e.g. 70B",
                                                field, params));
  }
  if (!(params >= kMinParams) || !std::isfinite(params) || params > kMaxParams) {
    throw InputError(fmt::format("{}: expected between {:g} and {:g} parameters, got {:g}", field, kMinParams,
                                 kMaxParams, params));
  }
  ModelSpec m;
  m.id = std::string(label);
  m.name = fmt::format("{:g}B parameters (architecture unknown)", params / units::kGiga);
  m.bare_params = params;
  m.origin = "bare parameter count";
  return m;
}

}  // namespace gpuplan
