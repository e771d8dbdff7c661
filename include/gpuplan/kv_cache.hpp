#pragma once
// KV-cache size (DESIGN "Memory model"): per token 2 (K and V) x layers x kv_heads x head_dim x
// bytes; MLA models store (kv_lora_rank + qk_rope_head_dim) per layer; sliding-window layers
// hold at most their window (not under TensorRT-LLM: windows_keep_context). Split over TP by KV heads, never below one
// head per GPU.

#include <cstdint>
#include <vector>

#include <gpuplan/dtype.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan {

/// The KV cache one GPU holds, per token and layer, after TP/PP sharding.
struct KvShape {
  double elements_per_token_per_layer = 0;  ///< whole model: 2 x kv_heads x head_dim, or MLA latent
  double bytes_per_element = 0;             ///< KV dtype width
  std::uint64_t kv_heads_per_gpu = 0;       ///< 0 for MLA (latent, not heads)
  bool replicated = false;                  ///< KV heads (or MLA latent) copied on every TP rank
  /// Where layers differ in KV width (layer_bytes set), their mean: times layers_per_gpu() it is
  /// still the bytes a token takes on this GPU across its layers.
  double bytes_per_token_per_layer_per_gpu = 0;
  std::vector<std::uint64_t> windows;       ///< window per attention layer on the busiest stage (0 = full)
  /// Bytes a token takes in each layer of `windows`, where layers differ in head width or KV heads
  /// (Gemma 4's full-attention layers); empty: bytes_per_token_per_layer_per_gpu in every layer.
  std::vector<double> layer_bytes;
  /// The busiest stage's first layer (0 without PP, or when every layer is alike).
  std::uint64_t stage_first_layer = 0;
  /// Layers on that stage with a fixed state (linear attention, Mamba2): no per-token KV, but for
  /// Falcon-H1's, whose Mamba2 mixers sit beside attention (those are in `windows` too).
  std::uint64_t linear_layers = 0;
  /// Falcon-H1: the state layers above are the attention layers themselves (not more layers).
  bool state_beside_attention = false;
  /// Blocks on that stage with neither attention nor state (Nemotron-H's MLP and MoE blocks).
  std::uint64_t mlp_only_layers = 0;
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

/// The KV cache format engines pick by default ("auto"): the 16-bit format the model is served
/// in, its activations' (`served.vectors`): fp16 for a float16 checkpoint or --dtype float16,
/// else bf16; fp16 on a GPU without bf16 (Volta, Turing), where engines cast bf16 checkpoints.
DType default_kv_dtype(const WeightFormats& served, const GpuSpec& gpu);

/// The per-GPU KV shape for a layout. The model must have an architecture. With
/// `windows_keep_context`, sliding-window and chunked-attention layers count as full attention
/// (TensorRT-LLM without a max_attention_window). With `cross_attention_pooled`, cross-attention
/// layers (mllama) hold a full layer of the paged pool for every token too, as vLLM's V0 cache
/// engine allocates one for every decoder layer (see vllm_pools_cross_attention_layers).
KvShape kv_shape(const ModelSpec& model, DType kv_dtype, const Layout& layout, bool windows_keep_context = false,
                 bool cross_attention_pooled = false);

/// Bytes one sequence of `tokens` occupies on one GPU, with paged allocation in blocks of
/// `block_tokens` (windowed layers of the shape hold at most their window, rounded up to blocks).
double sequence_kv_bytes(const KvShape& shape, std::uint64_t tokens, std::uint64_t block_tokens);

/// How vLLM V1 lays out the KV cache of a model with more than one kind of layer (hybrid
/// allocator, vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size): each kind
/// (full attention, each window, linear attention) is cut into groups of `layers_per_group`
/// layers, the last of a kind padded; every group has its own block table over one pool of
/// `layers_per_group` x page-sized blocks. The group size is the smallest kind's layer count, or
/// the largest's when that is under 1.5x the smallest. A linear-attention layer keeps its state
/// in one page, so the attention block grows to a multiple of 16 tokens whose page holds it
/// (vllm/model_executor/models/config.py HybridAttentionMambaModelConfig). One kind: one group.
struct VllmKvGroups {
  struct Kind {
    bool linear = false;      ///< linear attention: one page of state per request
    std::uint64_t window = 0; ///< attention window (0: full attention)
    std::uint64_t layers = 0;
    std::uint64_t groups = 0; ///< layers / layers_per_group, rounded up
    std::uint64_t padding = 0; ///< layer slots of the last group no layer fills
    double bytes = 0;          ///< a token's bytes in one of its layers
    /// Tokens of its block: vLLM raises the block of a kind of narrower KV until its page is the
    /// widest kind's (kv_cache_utils.py unify_kv_cache_spec_page_size).
    std::uint64_t block_tokens = 0;
  };
  std::uint64_t layers_per_group = 0;
  std::uint64_t groups = 0;
  std::uint64_t block_tokens = 0;  ///< the paged block, raised to hold a linear layer's state
  double page_bytes = 0;           ///< one layer's page: block_tokens of the widest kind
  std::vector<Kind> kinds;         ///< in order of first appearance, linear attention last
  /// How much a page exceeds one linear-attention layer's state, as a share of the state (vLLM
  /// pads the state to the page); 0 without linear attention.
  double state_padding = 0;
};

/// The groups for `shape` with a paged block of `block_tokens`.
VllmKvGroups vllm_kv_groups(const KvShape& shape, std::uint64_t block_tokens);

/// vLLM's num_gpu_blocks: blocks of its shared pool, each a page of every layer slot of a group.
std::uint64_t vllm_pool_block_count(const KvShape& shape, double kv_bytes, std::uint64_t block_tokens);

/// vLLM's "GPU KV cache size: N tokens" up to 0.24: the pool's blocks shared out over the groups, in tokens
/// (num_blocks // groups x block; for one kind of layer, the tokens the cache holds).
std::uint64_t vllm_logged_kv_tokens(const KvShape& shape, double kv_bytes, std::uint64_t block_tokens);

/// vLLM's "Maximum concurrency for N tokens per request": requests of `tokens` its KV cache of
/// `kv_bytes` holds, each reserving whole blocks per layer for its longest use: a full-attention
/// layer its tokens, a sliding-window layer min(window - 1 + `batched_tokens`, tokens) plus one
/// block, a linear-attention layer one page (vllm/v1/kv_cache_interface.py
/// max_memory_usage_bytes, kv_cache_utils.py get_max_concurrency_for_kv_cache_config): the
/// pool's blocks over the blocks one request takes in every group, padding layers included.
/// `state_pages`: pages a linear-attention layer reserves per request, 2 in mamba_cache_mode
/// "align" (prefix caching of a hybrid model keeps the last aligned state beside the running one).
double vllm_max_concurrency(const KvShape& shape, double kv_bytes, std::uint64_t tokens, std::uint64_t block_tokens,
                            std::uint64_t batched_tokens, std::uint64_t state_pages = 1);

/// Largest context such that `sequences` sequences fit in `budget_bytes` on one GPU;
/// 0 if not even one token fits. Searches up to `limit_tokens`.
std::uint64_t max_context_tokens(const KvShape& shape, double budget_bytes, std::uint64_t sequences,
                                 std::uint64_t block_tokens, std::uint64_t limit_tokens);

}  // namespace gpuplan
