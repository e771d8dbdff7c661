#pragma once
// Inference memory model and fit verdict (DESIGN "Memory model"): per GPU, weights (sharded by
// TP/PP, experts by EP) + activations/workspace + runtime reserve + KV cache must stay within the
// serving engine's memory cap (the neutral estimate's 0.9, vLLM's gpu_memory_utilization) of the GPU or MIG slice.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gpuplan/dtype.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/units.hpp>
#include <gpuplan/weight_choice.hpp>

namespace gpuplan {

/// The serving load and engine settings a fit is asked about.
struct FitRequest {
  Layout layout;
  std::string mig_profile;                ///< empty: the whole GPU
  DType weights_dtype = DType::bf16;
  /// Embedding table and LM head. Unset: bf16 for quantized weights (as FP8/INT4 checkpoints
  /// ship them), otherwise the weights dtype.
  std::optional<DType> embeddings_dtype;
  /// Per-part formats (see choose_weight_formats). Unset: every linear layer in weights_dtype's
  /// default format and the embeddings as above.
  std::optional<WeightFormats> weight_formats;
  DType kv_dtype = DType::bf16;
  std::uint64_t context_tokens = 8192;    ///< tokens per sequence (prompt + output)
  /// Tokens of the longest prompt (perf, cost and plan files: the input); 0: not given (fit), when
  /// a prompt may take the whole context.
  std::uint64_t prompt_tokens = 0;
  std::uint64_t concurrency = 1;          ///< concurrent sequences over the whole deployment
  double memory_utilization = 0.9;        ///< engine cap as a share of GPU memory (vLLM's default before 0.21)
  double reserve_bytes = 1.5 * units::kGiB;  ///< CUDA context, framework, NCCL buffers
  std::uint64_t prefill_chunk_tokens = 8192; ///< tokens per prefill step (vLLM max_num_batched_tokens)
  std::uint64_t block_tokens = kDefaultBlockTokens;  ///< paged KV block (vLLM default)
  /// GPUs per node: where NVLink boards and a node's PCIe end, and the network begins (group_path).
  std::uint64_t gpus_per_node = kDefaultGpusPerNode;
  /// A serving engine's own KV arithmetic replaces the cap/activations/reserve above when named.
  EngineSettings engine;
  /// Sliding-window and chunked-attention layers (Mistral 7B v0.1, Gemma, gpt-oss, Llama 4) keep
  /// every token of the context, as TensorRT-LLM does unless its max_attention_window is set
  /// (implied by engine trtllm; see windows_keep_context). vLLM frees the KV outside the window.
  bool windows_keep_context = false;
  /// Windowed layers keep the whole context but attention reads only the window (SGLang, the
  /// launch engine of a plan; see windows_keep_context below).
  bool windows_read_window = false;
};

/// Whether the request's windowed layers keep the whole context. TensorRT-LLM attends and keeps
/// KV over max_attention_window tokens a layer, which defaults to the whole sequence whatever the
/// model's config says (KvCacheConfig.max_attention_window, "Only the last tokens will be stored
/// in the KV cache", default None); and it applies chunked attention to context requests only
/// (docs/source/features/long-sequence.md). Its perf overview's Mistral 7B runs at 20,000-token
/// prompts match a whole-context cache (-14 .. +1 %), not a 4,096-token window (+124 .. +222 %).
/// vLLM before 0.14 keeps every layer of a chunked-attention model (Llama 4) at full attention:
/// the hybrid KV cache manager learnt chunked local attention in 0.9.2 (PR #19351), PR #21761
/// (0.10.1) turned it off for it by default (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0)
/// and PR #29627, merged 2025-12-16, three days before 0.13.0 shipped, turned it back on. Only
/// 0.9.2 and 0.10.0 held one chunk, which a minor version cannot tell apart.
[[nodiscard]] inline bool vllm_chunked_attention_as_full(const FitRequest& r, const ModelSpec& m) {
  constexpr int kLast = 13;
  return r.engine.engine == Engine::vllm && r.engine.vllm_minor_version && *r.engine.vllm_minor_version <= kLast &&
         std::find(m.layer_is_chunked.begin(), m.layer_is_chunked.end(), true) != m.layer_is_chunked.end();
}

/// vLLM before its hybrid KV cache manager (PR #17996; its coordinator is in 0.9.2's API, in use by
/// 0.10) gives sliding-window layers a whole-context allocation: V0 since 0.6.5 (PR #10584: "sliding
/// window is only used for computation"), V1 by turning every sliding spec into a full one
/// (unify_hybrid_kv_cache_specs) when full and sliding layers mix. 0.9 is taken as before it:
/// 0.9.0 and 0.9.1 were.
[[nodiscard]] inline bool vllm_windows_as_full(const FitRequest& r, const ModelSpec& m) {
  constexpr int kLast = 9;
  // Only a mix is unified: a model whose every layer slides (Mistral 7B v0.1) keeps its window.
  const auto& w = m.layer_window_tokens;
  const bool mixed = std::find(w.begin(), w.end(), 0u) != w.end() &&
                     std::any_of(w.begin(), w.end(), [](std::uint64_t t) { return t > 0; });
  return r.engine.engine == Engine::vllm && r.engine.vllm_minor_version && *r.engine.vllm_minor_version <= kLast &&
         mixed;
}

/// SGLang allocates whole-context KV for windowed layers too: it turns its SWA memory pool off for
/// Gemma 2/3 ("not yet supported", ServerArgs), Llama 4's hybrid cache was opt-in
/// (--hybrid-kvcache-ratio, default None; its Llama 4 page: 1M tokens on 8 x H100, 5M "when hybrid
/// kv cache is enabled"), and the SWA pool that later took Llama 4 and gpt-oss by default gives the
/// windowed layers 0.8 x the full layers' tokens (--swa-full-tokens-ratio), not a window each. Its
/// attention kernels still read only the window.
[[nodiscard]] inline bool windows_keep_context(const FitRequest& r, const ModelSpec& m) {
  return r.windows_keep_context || r.engine.engine == Engine::trtllm || r.engine.engine == Engine::sglang ||
         vllm_chunked_attention_as_full(r, m) || vllm_windows_as_full(r, m);
}

/// vLLM ran cross-attention models (Llama 3.2 Vision, mllama) on its V0 engine only, and V0's
/// cache engine allocates a KV cache for every decoder layer, the cross-attention ones included:
/// CacheEngine.get_cache_block_size takes num_layers = model_config.get_num_layers(), that is
/// hf_text_config.num_hidden_layers (vllm-project/vllm vllm/worker/cache_engine.py
/// @017e7a4cea78f72b95f2ee3cbfa85a1f8981bd2c). Llama 3.2 11B Vision's 40 layers (8 cross) make a
/// 16-token block 2.5 MiB: 14.65 GiB logged as 6,001 blocks on an H100 (vllm PR #12126), where its
/// 32 self-attention layers alone would make 7,501.
[[nodiscard]] inline bool vllm_pools_cross_attention_layers(const FitRequest& r, const ModelSpec& m) {
  return r.engine.engine == Engine::vllm && !m.layer_is_cross_attention.empty();
}

/// Weights one GPU holds, by part.
struct WeightsBytes {
  double embedding = 0;
  double lm_head = 0;
  double dense = 0;      ///< attention, dense MLP, shared experts, router, norms
  double experts = 0;    ///< routed experts
  std::array<double, kWeightParts> parts{};  ///< the same bytes by WeightPart
  [[nodiscard]] double total() const { return embedding + lm_head + dense + experts; }
};

/// Transient memory of one prefill chunk plus the logits buffer, per GPU.
struct ActivationBytes {
  double prefill = 0;    ///< largest live tensors of one layer for a prefill chunk (bf16)
  double logits = 0;     ///< fp32 logits for the sequences sampled in one step
  [[nodiscard]] double total() const { return prefill + logits; }
};

/// Per-GPU memory. None of these is negative; a deficit shows as shortfall_bytes.
struct PerGpuMemory {
  double capacity_bytes = 0;     ///< usable memory of the GPU (or MIG slice)
  double engine_cap_bytes = 0;   ///< capacity x memory_utilization
  double weights_bytes = 0;
  double activation_bytes = 0;
  double reserve_bytes = 0;
  double kv_budget_bytes = 0;    ///< engine cap - weights - activations - reserve (>= 0)
  double kv_cache_bytes = 0;     ///< KV cache the requested load needs
  double free_bytes = 0;         ///< KV budget left after the requested load (>= 0)
  double shortfall_bytes = 0;    ///< how much is missing when it does not fit, this load's KV included (>= 0)
  double fixed_over_cap_bytes = 0;  ///< weights + activations + reserve beyond the cap, no KV (>= 0)
};

/// A gap between the weights computed from config.json and the checkpoint's safetensors index
/// beyond this share is reported: quantization scales, MTP layers and vocabulary padding stay
/// below it (DeepSeek-V3's MTP layer is 2 % of its total).
inline constexpr double kCheckpointGapShare = 0.03;
/// Checkpoint files holding more than this share above the computed weights: no verdict (fit_numbers).
inline constexpr double kCheckpointRefuseShare = 0.10;

struct FitResult {
  std::string model_id;
  std::string gpu_id;
  std::string gpu_vendor;  ///< "nvidia", "amd", ...: torch names its allocator CUDA or HIP
  FitRequest request;            ///< with embeddings_dtype and weight_formats resolved
  bool formats_as_shipped = false;  ///< the formats are the checkpoint's own
  std::string formats_text;      ///< "experts mxfp4, rest bf16"
  /// Whole-model weight bytes by WeightPart in those formats (unsharded).
  std::array<double, kWeightParts> model_weight_bytes{};
  /// One copy of the model: model_weight_bytes summed.
  [[nodiscard]] double model_weight_total_bytes() const {
    double total = 0;
    for (double b : model_weight_bytes) {
      total += b;
    }
    return total;
  }
  /// The checkpoint's own size (safetensors index metadata.total_size) when known.
  std::optional<double> checkpoint_bytes;
  /// What the checkpoint files should hold by this count: model_weight_bytes, each part served in
  /// 16 bits twice over for a float32 checkpoint (ModelSpec::stored_float32; quantized parts as served).
  double expected_checkpoint_bytes = 0;
  /// What the checkpoint files also hold of the MTP layers config.json declares (mtp_weight_bytes,
  /// as stored): each one's layer, and the embedding and LM head copies some checkpoints add.
  MtpBytes mtp_checkpoint_bytes;
  bool layout_automatic = false; ///< TP/PP chosen by a layout search
  std::optional<MigMemory> mig;  ///< set when fitting a MIG slice
  ParamCount params;
  WeightsBytes weights;          ///< per GPU
  ActivationBytes activations;   ///< per GPU
  PerGpuMemory per_gpu;
  bool kv_known = false;         ///< false for a bare-size model (architecture unknown)
  KvShape kv;
  double kv_bytes_per_token = 0;          ///< whole model, unsharded
  double kv_bytes_per_token_per_gpu = 0;  ///< this GPU's share, all its layers, full attention
  double sequence_kv_bytes_per_gpu = 0;   ///< one sequence at the requested context
  std::uint64_t concurrency_per_replica = 0;
  std::optional<std::uint64_t> max_concurrent_sequences;   ///< whole deployment, at the context
  std::optional<std::uint64_t> max_context_tokens;         ///< at the requested concurrency
  bool max_context_limited_by_model = false;  ///< capped by max_position_embeddings, not memory
  /// That cap's source (ModelSpec::context_limit_source: the field, or it scaled by rope_scaling).
  std::string model_context_source = "max_position_embeddings";
  bool weights_fit = false;      ///< weights + activations + reserve within the engine cap
  bool fits = false;             ///< ... and the requested KV cache too
  /// With no engine named: every engine gpuplan knows refuses these weights on this GPU (fp8
  /// before Turing, fp4 before Ampere), so the deployment does not run whatever its memory.
  std::optional<std::string> no_engine_runs;
  double datasheet_total_bytes = 0;  ///< datasheet memory x GPUs (8 x H200 = 1,128 GB)
  double capacity_total_bytes = 0;   ///< usable memory x GPUs
  std::vector<std::string> notes;    ///< assumptions worth reading next to the numbers
  std::optional<EngineMemory> engine;  ///< set when request.engine names an engine
};

/// Evaluates one layout. Throws InputError for invalid requests (fields named `fit.*` or
/// `layout.*`); "does not fit" is a result (`fits == false`).
FitResult fit(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request);

/// Why the engine would not serve the load although memory suffices, with the setting that
/// would: no engine runs the weights' format on the GPU (no engine named), vLLM does not start with fewer linear-attention state blocks than max_num_seqs, and
/// SGLang's state pool admits fewer running requests than the load; nullopt otherwise.
std::optional<std::string> engine_start_problem(const FitResult& fit);

/// " (a --prefill-chunk of N tokens)" when the prefill chunk's activations are more than half of
/// what does not fit, else "": a "does not fit" message names the flag that sizes them.
std::string prefill_chunk_blame(const FitResult& fit);

/// " (vLLM V0's recurrent-state cache of N sequences, X GB of it; --max-num-seqs sets it)" when
/// that cache is in the reserve a does-not-fit message names; else empty.
std::string reserve_blame(const FitResult& fit);

}  // namespace gpuplan
