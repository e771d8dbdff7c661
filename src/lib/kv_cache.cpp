#include <gpuplan/kv_cache.hpp>

#include <algorithm>
#include <bit>
#include <array>
#include <cmath>

#include <gpuplan/units.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using detail::d;
using detail::round_up;

double elements_per_token_per_layer(const ModelSpec& m) {
  if (m.caches_latent()) {
    // MLA caches the compressed latent plus the decoupled RoPE key, shared by all heads.
    return d(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim);
  }
  return 2.0 * d(m.num_key_value_heads) * d(m.head_dim);
}

// K and V of layer `layer` (Gemma 4's full-attention layers: global_head_dim wide heads, and with
// attention_k_eq_v num_global_key_value_heads of them; V is cached beside K even where it is K:
// vLLM's gemma4.py loads K's weights into the V slot of qkv_proj and caches both).
double elements_of_layer(const ModelSpec& m, std::uint64_t layer) {
  if (m.caches_latent() || !m.kv_width_varies()) {
    return elements_per_token_per_layer(m);
  }
  return 2.0 * d(m.kv_heads_of_layer(layer)) * d(m.head_dim_of_layer(layer));
}

std::uint64_t attention_layers(const ModelSpec& m, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t n = 0;
  for (std::uint64_t layer = begin; layer < end; ++layer) {
    n += m.holds_token_kv(layer) ? 1u : 0u;
  }
  return n;
}

// DeepSeek-V3.2's indexer keys: fp8 with an fp32 scale per 128 elements, whatever the KV dtype
// (vLLM DeepseekV32IndexerCache), beside the MLA latent on every layer and every TP rank.
double indexer_bytes_per_token_per_layer(const ModelSpec& m) {
  if (!m.mla || m.mla->index_head_dim == 0) {
    return 0.0;
  }
  constexpr double kScaleBytes = 4.0;
  constexpr double kScaleBlock = 128.0;
  const double width = d(m.mla->index_head_dim);
  // IndexShare (GLM-5.2/5.3): only the layers owning an indexer cache its keys; spread over the
  // layers as the indexer's weights are.
  const double owning = m.mla->index_layers > 0 && m.num_hidden_layers > 0
                            ? d(m.mla->index_layers) / d(m.num_hidden_layers)
                            : 1.0;
  return (width + std::ceil(width / kScaleBlock) * kScaleBytes) * owning;
}

// `elements` of one token and layer as the cache stores them: at the KV dtype, or as the engine's
// own fp8 latent record.
double cached_bytes(const ModelSpec& m, double elements, DType kv_dtype) {
  if (m.caches_latent() && m.mla->fp8_record_bytes > 0 && kv_dtype == DType::fp8) {
    return d(m.mla->fp8_record_bytes);
  }
  return elements * bits_per_element(kv_dtype) / units::kBitsPerByte;
}

}  // namespace

double linear_state_bytes_per_sequence(const ModelSpec& m) {
  if (!m.linear_attention) {
    return 0.0;
  }
  double layers = 0;
  for (std::uint64_t layer = 0; layer < m.num_hidden_layers; ++layer) {
    layers += m.has_state(layer) ? 1.0 : 0.0;
  }
  return m.linear_attention->state_bytes() * layers;
}

DType default_kv_dtype(const WeightFormats& served, const GpuSpec& gpu) {
  const bool bf16 = served.vectors != DType::fp16 && std::string_view(gpu.sixteen_bit_type()) == "bf16";
  return bf16 ? DType::bf16 : DType::fp16;
}

double kv_bytes_per_token(const ModelSpec& model, DType kv_dtype) {
  if (model.kv_width_varies() && !model.caches_latent()) {
    double bytes = 0;
    for (std::uint64_t layer = 0; layer < model.num_hidden_layers; ++layer) {
      if (model.holds_token_kv(layer)) {
        bytes += cached_bytes(model, elements_of_layer(model, layer), kv_dtype);
      }
    }
    return bytes;
  }
  return (cached_bytes(model, elements_per_token_per_layer(model), kv_dtype) +
          indexer_bytes_per_token_per_layer(model)) *
         d(attention_layers(model, 0, model.num_hidden_layers));
}

KvShape kv_shape(const ModelSpec& m, DType kv_dtype, const Layout& layout, bool windows_keep_context,
                 bool cross_attention_pooled) {
  KvShape s;
  s.elements_per_token_per_layer = elements_per_token_per_layer(m);
  s.bytes_per_element = bits_per_element(kv_dtype) / units::kBitsPerByte;
  double per_gpu_elements = 0;
  if (m.caches_latent()) {
    // The latent is not split by heads; every TP rank keeps a full copy.
    s.kv_heads_per_gpu = 0;
    s.replicated = layout.tp > 1;
    per_gpu_elements = s.elements_per_token_per_layer;
  } else {
    // Heads split over TP, but a GPU holds at least one head: kv_heads < TP replicates.
    s.kv_heads_per_gpu = std::max<std::uint64_t>(1, (m.num_key_value_heads + layout.tp - 1) / layout.tp);
    s.replicated = layout.tp > m.num_key_value_heads;
    per_gpu_elements = 2.0 * d(s.kv_heads_per_gpu) * d(m.head_dim);
  }
  s.bytes_per_token_per_layer_per_gpu = cached_bytes(m, per_gpu_elements, kv_dtype) + indexer_bytes_per_token_per_layer(m);
  // Stages hold ceil(layers / PP) layers each (the last may hold fewer). With sliding windows
  // stages differ, so keep the one with the most layers, then the most full-attention layers.
  const std::uint64_t per_stage = (m.num_hidden_layers + layout.pp - 1) / layout.pp;
  if (m.layer_window_tokens.empty() && m.layer_is_linear.empty() && m.layer_is_cross_attention.empty() &&
      m.layer_without_mixer.empty() && !m.state_beside_attention && m.layer_reuses_kv.empty() &&
      !m.kv_width_varies()) {
    // All layers alike (full attention): the first stage is the busiest. A layout search asks
    // for this shape with every layout it tries, so the layers are not walked one by one.
    s.windows.assign(std::min(per_stage, m.num_hidden_layers), 0);
    s.full_attention_only = true;
    return s;
  }
  const auto window_of = [&](std::uint64_t layer) {
    return windows_keep_context ? 0 : m.window_of_layer(layer);
  };
  // A layer whose cache the pool keeps for every token: vLLM V0 gives cross-attention layers one
  // too (its cache engine allocates num_layers = hf_text_config.num_hidden_layers of them, cross
  // layers included, and the decoder's blocks take a slot in each).
  const auto pooled = [&](std::uint64_t layer) {
    return m.holds_token_kv(layer) || (cross_attention_pooled && m.is_cross_attention_layer(layer));
  };
  std::uint64_t best_start = 0;
  std::uint64_t best_layers = 0;
  std::uint64_t best_full = 0;
  // One stage (no PP) is the busiest without comparing: the layers are walked once, below.
  const std::uint64_t stages_start = per_stage >= m.num_hidden_layers ? m.num_hidden_layers : 0;
  for (std::uint64_t start = stages_start; start < m.num_hidden_layers; start += per_stage) {
    const std::uint64_t end = std::min(start + per_stage, m.num_hidden_layers);
    std::uint64_t full = 0;
    for (std::uint64_t layer = start; layer < end; ++layer) {
      full += window_of(layer) == 0 && pooled(layer) ? 1u : 0u;
    }
    std::uint64_t attention = 0;
    for (std::uint64_t layer = start; layer < end; ++layer) {
      attention += pooled(layer) ? 1u : 0u;
    }
    if (attention > best_layers || (attention == best_layers && full > best_full)) {
      best_start = start;
      best_layers = attention;
      best_full = full;
    }
  }
  s.windows.reserve(stages_start == 0 ? best_layers : m.num_hidden_layers);
  const std::uint64_t stage_end = std::min(best_start + per_stage, m.num_hidden_layers);
  s.stage_first_layer = best_start;
  for (std::uint64_t layer = best_start; layer < stage_end; ++layer) {
    if (m.has_state(layer)) {
      ++s.linear_layers;
    }
    if (!m.has_mixer(layer)) {
      ++s.mlp_only_layers;
    }
    if (pooled(layer)) {
      s.windows.push_back(window_of(layer));
      if (m.kv_width_varies() && !m.caches_latent()) {
        // Each layer's heads split over TP, at least one a GPU.
        const std::uint64_t kv_heads = m.kv_heads_of_layer(layer);
        const std::uint64_t heads_per_gpu = std::max<std::uint64_t>(1, (kv_heads + layout.tp - 1) / layout.tp);
        s.layer_bytes.push_back(cached_bytes(m, 2.0 * d(heads_per_gpu) * d(m.head_dim_of_layer(layer)), kv_dtype));
      }
    }
  }
  if (!s.layer_bytes.empty()) {
    // Their mean: times the layers, the bytes a token takes on this GPU.
    double sum = 0;
    double elements = 0;
    for (std::size_t i = 0; i < s.layer_bytes.size(); ++i) {
      sum += s.layer_bytes[i];
    }
    for (std::uint64_t layer = 0; layer < m.num_hidden_layers; ++layer) {
      elements += m.holds_token_kv(layer) ? elements_of_layer(m, layer) : 0.0;
    }
    const double kv_layers = d(attention_layers(m, 0, m.num_hidden_layers));
    s.bytes_per_token_per_layer_per_gpu = sum / d(s.layer_bytes.size());
    s.elements_per_token_per_layer = kv_layers > 0 ? elements / kv_layers : 0.0;
    s.replicated = false;
    for (std::uint64_t layer = 0; layer < m.num_hidden_layers; ++layer) {
      s.replicated = s.replicated || (m.holds_token_kv(layer) && layout.tp > m.kv_heads_of_layer(layer));
    }
  }
  s.state_beside_attention = m.state_beside_attention;
  s.full_attention_only = std::all_of(s.windows.begin(), s.windows.end(), [](std::uint64_t w) { return w == 0; });
  if (m.linear_attention && s.linear_layers > 0) {
    // The recurrent state splits over TP by value heads, like KV heads.
    s.state_bytes_per_sequence = m.linear_attention->state_bytes() * d(s.linear_layers) / d(layout.tp);
  }
  return s;
}

namespace {

/// Tokens times layers one sequence of `stored` tokens (a whole number of blocks) keeps. Summed
/// as integers: every partial sum is below 2^53, so the total is the double sum exactly.
std::uint64_t token_layers(const KvShape& shape, std::uint64_t stored, std::uint64_t block_tokens) {
  std::uint64_t sum = 0;
  for (std::uint64_t window : shape.windows) {
    sum += window == 0 ? stored : std::min(stored, round_up(window, block_tokens));
  }
  return sum;
}

double sequence_bytes(const KvShape& shape, std::uint64_t token_layers) {
  return d(token_layers) * shape.bytes_per_token_per_layer_per_gpu + shape.state_bytes_per_sequence;
}

/// A sequence of `stored` tokens where layers differ in KV width: each layer's tokens at its bytes.
double varied_sequence_bytes(const KvShape& shape, std::uint64_t stored, std::uint64_t block_tokens) {
  double bytes = 0;
  for (std::size_t i = 0; i < shape.windows.size(); ++i) {
    const std::uint64_t window = shape.windows[i];
    bytes += d(window == 0 ? stored : std::min(stored, round_up(window, block_tokens))) * shape.layer_bytes[i];
  }
  return bytes + shape.state_bytes_per_sequence;
}

}  // namespace

double sequence_kv_bytes(const KvShape& shape, std::uint64_t tokens, std::uint64_t block_tokens) {
  const std::uint64_t stored = round_up(tokens, block_tokens);
  if (!shape.layer_bytes.empty()) {
    return varied_sequence_bytes(shape, stored, block_tokens);
  }
  return sequence_bytes(shape, shape.full_attention_only ? shape.windows.size() * stored
                                                         : token_layers(shape, stored, block_tokens));
}

VllmKvGroups vllm_kv_groups(const KvShape& shape, std::uint64_t block_tokens) {
  VllmKvGroups g;
  g.block_tokens = std::max<std::uint64_t>(block_tokens, 1);
  double widest = shape.bytes_per_token_per_layer_per_gpu;
  for (std::size_t i = 0; i < shape.windows.size(); ++i) {
    const std::uint64_t window = shape.windows[i];
    // A kind is a window and a KV width (vLLM's KV cache spec: sliding window, heads, head size).
    const double bytes = shape.layer_bytes.empty() ? shape.bytes_per_token_per_layer_per_gpu : shape.layer_bytes[i];
    auto it = std::find_if(g.kinds.begin(), g.kinds.end(), [window, bytes](const auto& k) {
      return k.window == window && std::bit_cast<std::uint64_t>(k.bytes) == std::bit_cast<std::uint64_t>(bytes);
    });
    if (it == g.kinds.end()) {
      it = g.kinds.insert(g.kinds.end(), {.window = window, .bytes = bytes});
    }
    ++it->layers;
  }
  if (!shape.layer_bytes.empty()) {
    widest = *std::max_element(shape.layer_bytes.begin(), shape.layer_bytes.end());
  }
  for (auto& k : g.kinds) {
    // vLLM's unify_kv_cache_spec_page_size: a narrower kind's block grows by the ratio of pages.
    k.block_tokens = k.bytes > 0 && shape.layer_bytes.size() > 0
                         ? g.block_tokens * std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(widest / k.bytes)))
                         : g.block_tokens;
  }
  g.page_bytes = d(g.block_tokens) * widest;
  if (shape.linear_layers > 0) {
    g.kinds.push_back({.linear = true, .layers = shape.linear_layers});
    g.kinds.back().block_tokens = g.block_tokens;
    const double state_per_layer = shape.state_bytes_per_sequence / d(shape.linear_layers);
    if (shape.bytes_per_token_per_layer_per_gpu > 0) {
      constexpr std::uint64_t kAlign = 16;
      const auto needed = static_cast<std::uint64_t>(
          std::ceil(state_per_layer / (d(kAlign) * shape.bytes_per_token_per_layer_per_gpu)));
      g.block_tokens = std::max(g.block_tokens, kAlign * std::max<std::uint64_t>(needed, 1));
      for (auto& k : g.kinds) {
        k.block_tokens = g.block_tokens;
      }
      const double page = d(g.block_tokens) * shape.bytes_per_token_per_layer_per_gpu;
      g.page_bytes = page;
      g.state_padding = state_per_layer > 0 ? std::max(0.0, page / state_per_layer - 1.0) : 0.0;
    }
  }
  if (g.kinds.empty()) {
    return g;
  }
  const auto [smallest, largest] = std::minmax_element(
      g.kinds.begin(), g.kinds.end(), [](const auto& a, const auto& b) { return a.layers < b.layers; });
  g.layers_per_group = d(largest->layers) < 1.5 * d(smallest->layers) ? largest->layers : smallest->layers;
  for (auto& k : g.kinds) {
    k.groups = (k.layers + g.layers_per_group - 1) / g.layers_per_group;
    k.padding = k.groups * g.layers_per_group - k.layers;
    g.groups += k.groups;
  }
  return g;
}

namespace {

/// Blocks in vLLM's pool: each holds one page of every layer slot of a group.
double vllm_pool_blocks(const KvShape& shape, const VllmKvGroups& g, double kv_bytes) {
  const double block_bytes = shape.layer_bytes.empty()
                                ? d(g.block_tokens) * shape.bytes_per_token_per_layer_per_gpu * d(g.layers_per_group)
                                : g.page_bytes * d(g.layers_per_group);
  return block_bytes > 0 && kv_bytes > 0 ? std::floor(kv_bytes / block_bytes) : 0.0;
}

}  // namespace

std::uint64_t vllm_pool_block_count(const KvShape& shape, double kv_bytes, std::uint64_t block_tokens) {
  return static_cast<std::uint64_t>(vllm_pool_blocks(shape, vllm_kv_groups(shape, block_tokens), kv_bytes));
}

std::uint64_t vllm_logged_kv_tokens(const KvShape& shape, double kv_bytes, std::uint64_t block_tokens) {
  const VllmKvGroups g = vllm_kv_groups(shape, block_tokens);
  if (g.groups == 0) {
    return 0;
  }
  const auto blocks = static_cast<std::uint64_t>(vllm_pool_blocks(shape, g, kv_bytes));
  return blocks / g.groups * g.block_tokens;
}

double vllm_max_concurrency(const KvShape& shape, double kv_bytes, std::uint64_t tokens, std::uint64_t block_tokens,
                            std::uint64_t batched_tokens, std::uint64_t state_pages) {
  const VllmKvGroups g = vllm_kv_groups(shape, block_tokens);
  const double blocks = vllm_pool_blocks(shape, g, kv_bytes);
  if (blocks <= 0 || g.groups == 0 || tokens == 0) {
    return 0.0;
  }
  std::uint64_t request_blocks = 0;
  for (const auto& k : g.kinds) {
    const std::uint64_t block = k.block_tokens > 0 ? k.block_tokens : g.block_tokens;
    const std::uint64_t used = k.window == 0 ? tokens : std::min(k.window - 1 + batched_tokens, tokens);
    request_blocks += k.groups * (k.linear ? state_pages : round_up(used, block) / block + (k.window == 0 ? 0 : 1));
  }
  return blocks / d(request_blocks);
}

std::uint64_t max_context_tokens(const KvShape& shape, double budget_bytes, std::uint64_t sequences,
                                 std::uint64_t block_tokens, std::uint64_t limit_tokens) {
  if (sequences == 0 || !(budget_bytes > 0)) {
    return 0;
  }
  // The search below sizes a sequence some 30 times: with full attention on every layer
  // (most models) that is the layer count times the tokens, without a walk over the layers.
  const bool all_full = shape.full_attention_only ||
                        std::all_of(shape.windows.begin(), shape.windows.end(), [](std::uint64_t w) { return w == 0; });
  const std::uint64_t layers = shape.windows.size();
  // With sliding windows, the few distinct windows (rounded up to blocks) and their layer counts:
  // each probe then sums a handful of terms instead of walking every layer.
  struct WindowGroup {
    std::uint64_t stored_window = 0;  ///< 0: full attention
    std::uint64_t layers = 0;
  };
  std::array<WindowGroup, 8> groups{};
  std::size_t group_count = 0;
  bool grouped = !all_full;
  for (std::size_t i = 0; grouped && i < shape.windows.size(); ++i) {
    const std::uint64_t w = shape.windows[i];
    const std::uint64_t stored_window = w == 0 ? 0 : round_up(w, block_tokens);
    std::size_t g = 0;
    while (g < group_count && groups[g].stored_window != stored_window) {
      ++g;
    }
    if (g == group_count) {
      if (group_count == groups.size()) {
        grouped = false;  // many distinct windows: walk the layers
        break;
      }
      groups[group_count++].stored_window = stored_window;
    }
    ++groups[g].layers;
  }
  const auto grouped_token_layers = [&](std::uint64_t stored) {
    std::uint64_t sum = 0;
    for (std::size_t g = 0; g < group_count; ++g) {
      const std::uint64_t w = groups[g].stored_window;
      sum += groups[g].layers * (w == 0 ? stored : std::min(stored, w));
    }
    return sum;
  };
  const auto fits = [&](std::uint64_t tokens) {
    const std::uint64_t stored = round_up(tokens, block_tokens);
    if (!shape.layer_bytes.empty()) {
      return d(sequences) * varied_sequence_bytes(shape, stored, block_tokens) <= budget_bytes;
    }
    const std::uint64_t token_layer_count = all_full  ? layers * stored
                                            : grouped ? grouped_token_layers(stored)
                                                      : token_layers(shape, stored, block_tokens);
    return d(sequences) * sequence_bytes(shape, token_layer_count) <= budget_bytes;
  };
  if (!fits(1)) {
    return 0;
  }
  if (fits(limit_tokens)) {
    return limit_tokens;
  }
  // With full attention a sequence's size grows by whole blocks, so the answer is the last
  // fitting multiple of the block: estimated by division, then confirmed with fits() itself (so
  // it is exactly what the search below finds).
  const double block_bytes = d(layers * block_tokens) * shape.bytes_per_token_per_layer_per_gpu;
  if (all_full && block_tokens > 0 && block_bytes > 0) {
    const double blocks = std::floor((budget_bytes / d(sequences) - shape.state_bytes_per_sequence) / block_bytes);
    if (blocks >= 1 && blocks < d(limit_tokens / block_tokens) + 1) {
      auto stored = static_cast<std::uint64_t>(blocks) * block_tokens;
      while (stored > block_tokens && !fits(stored)) {
        stored -= block_tokens;
      }
      while (stored + block_tokens < limit_tokens && fits(stored + block_tokens)) {
        stored += block_tokens;
      }
      if (stored < limit_tokens && fits(stored) && !fits(stored + 1)) {
        return stored;
      }
    }
  }
  // Sequence size grows monotonically with tokens: binary search the last fitting length.
  std::uint64_t lo = 1;
  std::uint64_t hi = limit_tokens;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace gpuplan
