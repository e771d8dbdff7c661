#pragma once
// KV-cache size (DESIGN "Memory model"): per token 2 (K and V) x layers x kv_heads x head_dim x
// bytes; MLA models store (kv_lora_rank + qk_rope_head_dim) per layer; sliding-window layers
// hold at most their window (not under TensorRT-LLM: windows_keep_context). Split over TP by KV heads, never below one
// head per GPU.

#include <cstdint>
#include <vector>

#include <gpuplan/dtype.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan {

/// The KV cache one GPU holds, per token and layer, after TP/PP sharding.
struct KvShape {
  double elements_per_token_per_layer = 0;  ///< whole model: 2 x kv_heads x head_dim, or MLA latent
  double bytes_per_element = 0;             ///< KV dtype width
  std::uint64_t kv_heads_per_gpu = 0;       ///< 0 for MLA (latent, not heads)
  bool replicated = false;                  ///< KV heads (or MLA latent) copied on every TP rank
  double bytes_per_token_per_layer_per_gpu = 0;
  std::vector<std::uint64_t> windows;       ///< window per attention layer on the busiest stage (0 = full)
  std::uint64_t linear_layers = 0;          ///< linear-attention layers on that stage (no per-token KV)
  /// Fixed recurrent state one sequence holds on this GPU (linear-attention layers), any length.
  double state_bytes_per_sequence = 0;
  /// Every window is 0 (full attention on every layer of the stage): a sequence's size is then
  /// the layer count times its tokens, without a walk over the layers (a layout search sizes
  /// sequences some 60 times a request). False is always correct, only slower.
  bool full_attention_only = false;

  /// Layers holding per-token KV (linear-attention layers are counted in linear_layers).
  [[nodiscard]] std::uint64_t layers_per_gpu() const { return windows.size(); }
};

/// Bytes of recurrent state a linear-attention layer keeps per sequence, whole model, in the
/// model's 16-bit dtype (vLLM's mamba_cache_dtype "auto"); 0 without linear attention.
double linear_state_bytes_per_sequence(const ModelSpec& model);

/// Whole-model KV bytes per token with every attention layer holding the token (no sharding):
/// 327,680 for Llama-3.1-70B in bf16; 70,272 for DeepSeek-V3 (MLA).
double kv_bytes_per_token(const ModelSpec& model, DType kv_dtype);

/// The per-GPU KV shape for a layout. The model must have an architecture. With
/// `windows_keep_context`, sliding-window and chunked-attention layers count as full attention
/// (TensorRT-LLM without a max_attention_window).
KvShape kv_shape(const ModelSpec& model, DType kv_dtype, const Layout& layout, bool windows_keep_context = false);

/// Bytes one sequence of `tokens` occupies on one GPU, with paged allocation in blocks of
/// `block_tokens` (windowed layers of the shape hold at most their window, rounded up to blocks).
double sequence_kv_bytes(const KvShape& shape, std::uint64_t tokens, std::uint64_t block_tokens);

/// vLLM's "Maximum concurrency for N tokens per request": requests of `tokens` its KV cache of
/// `kv_bytes` holds, each reserving whole blocks per layer for its longest use: a full-attention
/// layer its tokens, a sliding-window layer min(window - 1 + `batched_tokens`, tokens) plus one
/// block (vllm/v1/kv_cache_interface.py SlidingWindowSpec.max_memory_usage_bytes,
/// kv_cache_utils.py get_max_concurrency_for_kv_cache_config). Uniform full attention: the
/// whole blocks of the pool over the blocks of one request.
double vllm_max_concurrency(const KvShape& shape, double kv_bytes, std::uint64_t tokens, std::uint64_t block_tokens,
                            std::uint64_t batched_tokens);

/// Largest context such that `sequences` sequences fit in `budget_bytes` on one GPU;
/// 0 if not even one token fits. Searches up to `limit_tokens`.
std::uint64_t max_context_tokens(const KvShape& shape, double budget_bytes, std::uint64_t sequences,
                                 std::uint64_t block_tokens, std::uint64_t limit_tokens);

}  // namespace gpuplan
