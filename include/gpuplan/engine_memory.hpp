#pragma once
// The serving engine's own KV-cache arithmetic (issue 7): how vLLM, SGLang and TensorRT-LLM size
// the KV cache at startup from the GPU's total memory, the weights they loaded and what their
// profiling run measured. gpuplan's default fit stays engine-neutral; these reproduce the figure
// the engine itself logs ("Available KV cache memory: X GiB", "max_total_num_tokens=N", ...).
//
//   vLLM V1      kv = gpu_memory_utilization x total - weights - peak activation of the profiling
//                     run (forward of max_num_batched_tokens, then the sampler on max_num_seqs
//                     rows of full-vocabulary logits) - non-torch memory (NCCL, cuBLAS)
//                     - CUDA-graph memory (subtracted only from v0.21, which profiles it)
//                     (vllm/v1/worker/gpu_worker.py determine_available_memory)
//   SGLang       kv = mem_fraction_static x free-at-start - weights
//                     (model_runner.py profile_max_num_token: rest = free after weights -
//                     free at start x (1 - mem_fraction_static)); the default fraction is
//                     (total MiB - reserved MiB) / total MiB (server_args.py
//                     _handle_gpu_memory_settings)
//   TensorRT-LLM kv = kv_cache_free_gpu_mem_fraction x (total - weights - peak activation of the
//                     warm-up of max_num_tokens - non-torch memory) (KvCacheConfig; PyTorch
//                     backend's KV-cache creator)

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/gpu.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan {

enum class Engine { neutral, vllm, sglang, trtllm };

/// TensorRT-LLM's two runtimes: the PyTorch backend (trtllm-serve --backend pytorch, the default
/// from 1.0) and the TensorRT-engine flow (an engine built by trtllm-build, the default before).
enum class TrtllmBackend { pytorch, tensorrt };
[[nodiscard]] std::string_view to_string(TrtllmBackend backend);
/// "pytorch" or "tensorrt" (also "trt"); anything else throws InputError `engine.trtllm_backend:`.
[[nodiscard]] TrtllmBackend parse_trtllm_backend(std::string_view name);

struct EngineSettings;

/// vLLM's top-k/top-p sampler (vllm/v1/sample/ops/topk_topp_sampler.py): FlashInfer's kernels on
/// CUDA with FlashInfer installed and VLLM_USE_FLASHINFER_SAMPLER not 0, else the PyTorch-native
/// path (also on ROCm, whose aiter sampler falls back to it). From 0.19 it sets the profiling peak.
enum class VllmSampler { flashinfer, native };
[[nodiscard]] std::string_view to_string(VllmSampler sampler);

/// The MoE kernel vLLM runs MXFP4 experts with (vllm_mxfp4_backend): each allocates the experts
/// at its own padded shape. `flashinfer_trtllm` is FlashInfer's TRT-LLM-gen kernel (SM100).
enum class VllmMxfp4Backend { marlin, triton, flashinfer_trtllm };
[[nodiscard]] std::string_view to_string(VllmMxfp4Backend backend);

/// Paged KV block in tokens: vLLM's default block_size, and TensorRT-LLM's tokens_per_block
/// (KvCacheConfig, 32 for its PyTorch backend, trtllm-serve and trtllm-bench).
inline constexpr std::uint64_t kDefaultBlockTokens = 16;
inline constexpr std::uint64_t kTrtllmBlockTokens = 32;

[[nodiscard]] std::string_view to_string(Engine engine);

/// The KV-cache format an engine serves `model` in when none is asked for: TensorRT-LLM takes the
/// checkpoint's calibrated FP8 cache (ModelSpec::checkpoint_kv_dtype); SGLang serves a
/// sparse-attention MLA model (DeepSeek-V3.2's NSA) in fp8 on datacenter Blackwell; the others, and
/// the neutral estimate, the 16-bit format of the served weights ("auto").
[[nodiscard]] DType engine_default_kv_dtype(const ModelSpec& model, const WeightFormats& served, const GpuSpec& gpu,
                                           Engine engine);
/// The cache layout `engine` builds where engines differ: SGLang caches MiniCPM3's MLA latent
/// (its MiniCPM3AttentionMLA), where vLLM (and the neutral estimate, after it) expands K and V per head;
/// vLLM before 0.7.1 expands every MLA model's (vllm_expands_mla). Returns whether it changed `model`.
bool apply_engine_cache_layout(ModelSpec& model, const EngineSettings& engine);
/// The same for `engine`'s current release.
bool apply_engine_cache_layout(ModelSpec& model, Engine engine);
/// Why `engine` cannot hold `model`'s KV cache in `kv`, or nothing. vLLM and SGLang have no int8
/// cache (--kv-cache-dtype: auto, bf16 or fp8 formats). TensorRT-LLM's PyTorch backend
/// takes kv_cache_config dtype auto (the checkpoint's), fp8 or nvfp4, and refuses to override a
/// checkpoint's calibrated cache with another format (validate_and_set_kv_cache_quant).
[[nodiscard]] std::optional<std::string> engine_kv_refusal(const ModelSpec& model, Engine engine, DType kv);
/// The paged KV block an engine uses when none is asked for: TensorRT-LLM's tokens_per_block (32),
/// SGLang's page_size (1: its pool is token-granular), else vLLM's block_size (16).
[[nodiscard]] std::uint64_t engine_default_block_tokens(Engine engine);
/// Whether the engine takes a block of `block_tokens`: TensorRT-LLM powers of two, vLLM 1, 8, 16,
/// 32, 64, 128 or 256, SGLang any.
[[nodiscard]] bool engine_accepts_block_tokens(Engine engine, std::uint64_t block_tokens);
/// "vllm", "sglang", "trtllm" (also "tensorrt-llm", "trt-llm"); anything else throws InputError
/// `engine.name:` with the closest names.
[[nodiscard]] Engine parse_engine(std::string_view name);

/// The engine and its memory settings; unset settings take the engine's defaults. Each setting
/// belongs to one engine; setting it for another throws InputError naming the setting.
struct EngineSettings {
  Engine engine = Engine::neutral;
  std::optional<double> gpu_memory_utilization;          ///< vLLM (default 0.92 from 0.21, 0.9 before)
  std::optional<double> mem_fraction_static;             ///< SGLang (default from GPU memory, TP)
  std::optional<double> kv_cache_free_gpu_mem_fraction;  ///< TensorRT-LLM (default 0.9)
  /// Tokens of one forward step: vLLM max_num_batched_tokens, SGLang chunked_prefill_size,
  /// TensorRT-LLM max_num_tokens. Unset: the engine's default for this GPU.
  std::optional<std::uint64_t> max_num_batched_tokens;
  /// Memory other processes (a desktop, WSL, another engine) hold on each GPU when the engine
  /// starts (--memory-in-use). SGLang and TensorRT-LLM size their cache from the free memory they
  /// measure, so it comes off it; vLLM sizes its share of the total from its own usage and
  /// refuses to start (V1) when less than that share is free.
  double memory_in_use_bytes = 0;
  /// Sequences of one step: vLLM max_num_seqs (sizes the sampler's profiling run), SGLang
  /// cuda_graph_max_bs, TensorRT-LLM max_batch_size. Unset: the engine's default.
  std::optional<std::uint64_t> max_num_seqs;
  /// A cap on the KV cache in tokens: SGLang's max_total_tokens, TensorRT-LLM's
  /// kv_cache_config.max_tokens (trtllm-bench passes its dataset's). The engine allocates the
  /// smaller of it and what its memory share holds. Unset: no cap.
  std::optional<std::uint64_t> max_kv_tokens;
  /// vLLM release as major.minor x 100 (0.10 -> 10, 0.21 -> 21): from 0.21 vLLM profiles CUDA
  /// graphs and subtracts them; before, graphs come out of the memory above the cap; before 0.8
  /// the V0 engine's step defaults apply. Unset: the current behaviour (subtracted, V1).
  std::optional<int> vllm_minor_version;
  /// The vLLM release's patch number (0.6.4 -> 4), where a default changed within a minor release
  /// (V0's chunked step, vllm_step_defaults). Unset: the release's earliest modelled rule.
  std::optional<int> vllm_patch_version;
  /// SGLang release as minor x 100 + patch (0.4.7 -> 407, 0.5.3 -> 503): its default
  /// mem_fraction_static followed a TP table before 0.4.7, a reserve by GPU memory class up to
  /// 0.5.2 and a formula from 0.5.3 (server_args.py). Unset: the current formula.
  std::optional<int> sglang_version;
  /// TensorRT-LLM release as major x 100 + minor (0.19 -> 19, 1.0 -> 100): before 1.0 (its
  /// TensorRT-engine flow, before the PyTorch backend became the default) the C++ runtime holds
  /// buffers sized by max_batch_size that are not modelled (a note says so). Unset: the PyTorch backend.
  std::optional<int> trtllm_version;
  /// vLLM's sampler. Unset: FlashInfer where EngineInputs::flashinfer_sampler says vLLM takes it.
  std::optional<VllmSampler> vllm_sampler;
  /// TensorRT-LLM's backend where a release had both (0.17 to 0.21 ran the PyTorch backend with
  /// --backend pytorch; from 1.0 it is the default). Unset: the release's default
  /// (trtllm_tensorrt_flow()).
  std::optional<TrtllmBackend> trtllm_backend;
  /// TensorRT-LLM's enable_chunked_prefill (--extra_llm_api_options). Off, a prompt longer than
  /// max_num_tokens is refused. Unset: off, trtllm-serve's default (kTrtllmChunkedPrefillDefault).
  std::optional<bool> trtllm_chunked_prefill;
  /// No CUDA graphs: vLLM's --enforce-eager, SGLang's --disable-cuda-graph. Memory only: their
  /// graph pool (or capture from above the share) goes, and vLLM's linear-attention state-block
  /// check, which guards graph capture, is not made; decode timing is not slowed here.
  bool eager = false;
};

/// TensorRT-LLM runs the TensorRT-engine flow (its C++ runtime's buffers, trtllm-build's
/// max_num_tokens cap) rather than the PyTorch backend: asked for, or before 1.0 unless asked.
[[nodiscard]] bool trtllm_tensorrt_flow(const EngineSettings& settings);
/// TensorRT-LLM has no TensorRT-engine path for the model (DeepSeek-V3, Llama 4, gpt-oss, ...): it
/// runs on the PyTorch backend whatever the release.
[[nodiscard]] bool trtllm_pytorch_only(const ModelSpec& model);
/// vLLM caches an MLA model's K and V expanded per head, not the latent: releases before 0.7.1
/// (kVllmMlaLatentMinor, kVllmMlaLatentPatch).
[[nodiscard]] bool vllm_expands_mla(const EngineSettings& settings);

/// What the engine's startup arithmetic gives for one GPU. Figures in bytes; `kv_bytes` is
/// negative when the engine would refuse to start (vLLM logs such figures).
struct EngineMemory {
  Engine engine = Engine::neutral;
  std::string share_name;          ///< "gpu_memory_utilization", "mem_fraction_static", ...
  double share = 0;                ///< the share in effect
  bool share_default = true;       ///< the engine's default, not a user setting
  std::uint64_t batched_tokens = 0;  ///< forward tokens of the profiling run
  std::uint64_t max_seqs = 0;        ///< sequences of the sampler run / graphs
  double total_bytes = 0;          ///< GPU memory as the engine sees it
  double start_free_bytes = 0;     ///< free after CUDA context and communicators (SGLang's base)
  double weights_bytes = 0;        ///< as the engine holds them (with weight_padding_bytes)
  double weight_padding_bytes = 0; ///< vLLM: MXFP4 experts padded for its MoE kernel
  VllmMxfp4Backend mxfp4_backend = VllmMxfp4Backend::marlin;  ///< vLLM: the kernel padding it
  double activation_bytes = 0;     ///< peak of the profiling forward
  double sampler_bytes = 0;        ///< vLLM: logits and sampling of max_num_seqs rows
  VllmSampler sampler = VllmSampler::flashinfer;  ///< vLLM: the sampler sampler_bytes is for
  /// TensorRT-LLM and SGLang on memory the host shares (GB10): the checkpoint the engine just read,
  /// still in the OS page cache, which CUDA's free memory (the host's MemFree) counts as used and
  /// kv_bytes leaves out; 0 elsewhere.
  double page_cache_bytes = 0;
  double kv_bytes_without_page_cache = 0;  ///< kv_bytes had the page cache been dropped
  double non_torch_bytes = 0;      ///< CUDA context (where counted), NCCL, cuBLAS workspaces
  double cuda_graph_bytes = 0;     ///< CUDA-graph pool the engine subtracts (0 where it does not)
  double kv_bytes = 0;             ///< the KV cache the engine allocates (may be < 0: no start)
  /// vLLM with PP > 1 (EngineInputs::pp_stages): each stage's own "Available KV cache memory",
  /// first to last, and the stage whose budget holds the fewest tokens (vLLM keeps the smallest
  /// block count of its workers). kv_bytes is then that stage's budget over the busiest stage's
  /// layers (so kv_bytes over the fit's per-token bytes gives its tokens); sampler_bytes and
  /// cuda_graph_bytes are its own (the sampler runs on the last stage only).
  std::vector<double> stage_kv_bytes;
  std::size_t binding_stage = 0;
  /// Tokens as the engine logs them, 0 when kv_bytes <= 0: whole blocks; vLLM V1 shares the
  /// blocks out over its KV cache groups (a hybrid model's figure is not what one request holds).
  std::uint64_t kv_tokens = 0;
  bool kv_capped = false;          ///< max_kv_tokens, not the memory share, set the pool
  std::uint64_t block_tokens = 0;
  bool block_holds_state = false;  ///< vLLM raised the block so one page holds a linear layer's state
  bool vllm_v0 = false;            ///< vLLM's V0 engine (releases before 0.8): its defaults and log lines
  bool trtllm_tensorrt_flow = false;  ///< TensorRT-LLM's TensorRT-engine flow (trtllm_tensorrt_flow())
  bool trtllm_chunked_prefill = false;  ///< TensorRT-LLM's enable_chunked_prefill in effect
  /// TensorRT-LLM without chunked prefill refuses a prompt longer than max_num_tokens ("The sum of
  /// prompt length (9351.0), query length (0) should not exceed max_num_tokens (8192)",
  /// NVIDIA/TensorRT-LLM#9277; trtllm-serve with long inputs, #6539): set by fit to the prompt
  /// length refused (the request's prompt, or its context when no prompt is given); 0: none.
  std::uint64_t trtllm_refused_prompt_tokens = 0;
  /// TensorRT-LLM before 1.0 (TensorRT-engine flow): one fp32 logits buffer of max_batch_size x
  /// vocabulary, the unit its runtime and decoder buffers come in, and those buffers as subtracted
  /// from free memory (a multiple of it inferred from logs). 0 elsewhere.
  double trtllm_logits_buffer_bytes = 0;
  double trtllm_runtime_buffer_bytes = 0;
  /// TensorRT-LLM's PyTorch backend from 1.2: the temporary KV cache its estimation runs on (one
  /// max_seq_len request, a graph warm-up's and max_batch_size blocks), what its profiling forward
  /// and graphs need beside it, and what is left there. 0 elsewhere.
  double trtllm_estimation_cache_bytes = 0;
  double trtllm_estimation_need_bytes = 0;
  double trtllm_estimation_left_bytes = 0;
  /// Less is left beside the estimation cache than the profiling run needs (a warning).
  [[nodiscard]] bool trtllm_estimation_short() const {
    return trtllm_estimation_cache_bytes > 0 && trtllm_estimation_need_bytes > trtllm_estimation_left_bytes;
  }
  /// vLLM V1 with linear-attention (Mamba) layers keeps one block of state per decoding sequence
  /// and refuses to start with fewer blocks than max_num_seqs; set by fit.
  bool state_blocks_below_seqs = false;
  /// The blocks that check counts ("exceeds available Mamba cache blocks (N)"): the shared pool's
  /// blocks from 0.25 (0.27.1 and 0.29 logs), its blocks per KV-cache group before (a 0.24 log).
  std::uint64_t state_block_ceiling = 0;
  /// The same with vLLM's PyTorch-native sampler peaking no higher than FlashInfer's (its Triton
  /// top-k/top-p masking for 8 rows or more, vllm PR #33538, v0.16.1): where the native sampler's
  /// peak sets the profiling peak, its figure is uncertain by that much; else state_block_ceiling.
  std::uint64_t state_block_ceiling_high = 0;
  /// The sampler peak at FlashInfer's bytes a logit (vLLM with the native sampler; else sampler_bytes).
  double sampler_bytes_low = 0;
  /// vLLM's "GPU KV cache size: N tokens" line: from 0.25 the maximum concurrency times
  /// max_model_len (a 0.25.1 log), before the pool's blocks per group in tokens (kv_tokens).
  std::uint64_t logged_kv_tokens = 0;
  /// vLLM V1 checks at start that the GPU has its share of the total free; on unified memory
  /// (GB10) the OS holds a part that varies by system. Set by fit: the catalog's free figure when
  /// the share is more (a warning: the engine may not start), else 0.
  double start_free_short_of_bytes = 0;
  /// vLLM with memory in use by other processes (EngineSettings::memory_in_use_bytes): what is
  /// free when it checks, below its share of the total, so it does not start (in_use_blocks_start).
  bool in_use_blocks_start = false;
  /// vLLM V1 before 0.9.1 (PR #18974) counted memory other processes hold as its own non-torch
  /// memory: --memory-in-use came off its KV cache (kv_bytes is after it).
  bool in_use_counted_in_share = false;
  double in_use_start_free_bytes = 0;
  /// vLLM without --max-model-len serves the model's max_position_embeddings and refuses to start
  /// when the KV cache cannot hold one request of that length (check_enough_kv_cache_memory). Set
  /// by fit when the request's context is shorter than that default and the default does not fit:
  /// the default, the KV cache one request of it needs on this GPU, and the longest --max-model-len
  /// that fits. 0: the default fits, or the figures assume it (the context is the model's maximum).
  std::uint64_t default_max_model_len = 0;
  double default_max_model_len_kv_bytes = 0;
  std::uint64_t max_model_len_that_fits = 0;
  /// With default_max_model_len set: the KV cache one request of the request's context needs,
  /// when that is more than the cache too (vLLM refuses --max-model-len = the context as well);
  /// 0 when the context's request fits.
  double asked_max_model_len_kv_bytes = 0;
  /// SGLang keeps linear-attention (Mamba) state in a pool of its own beside the token pool:
  /// mamba_full_memory_ratio (0.9) of the token pool's size, in slots of one request's state
  /// (its SSM state fp32, SGLANG_MAMBA_SSM_DTYPE's default); with the radix cache on a running
  /// request takes 3 slots. kv_bytes and kv_tokens are then the token pool's alone.
  double state_pool_bytes = 0;
  double state_slot_bytes = 0;      ///< one request's state on this GPU
  /// vLLM's V0 engine keeps a Mamba / linear-attention model's state in a cache of its own, one
  /// slot per sequence of max_num_seqs (padded to a CUDA-graph batch), allocated by the profiling
  /// run's first forward: it comes off the KV cache (engine_memory.cpp, MambaCacheManager).
  double v0_state_cache_bytes = 0;
  std::uint64_t v0_state_slots = 0;  ///< sequences that cache holds
  double state_conv_bytes = 0;      ///< of the pool: the convolution windows (its log's conv_state)
  std::uint64_t state_slots = 0;    ///< max_mamba_cache_size
  std::uint64_t state_requests = 0; ///< running requests the pool admits (its max_running_requests cap)
  /// More running requests than the state pool admits (SGLang's hybrid models; false without a pool).
  [[nodiscard]] bool state_pool_full(std::uint64_t running) const {
    return state_slot_bytes > 0 && running > state_requests;
  }
  /// SGLang with the AITER attention backend (its default on AMD for MHA/GQA models, and for MLA
  /// ones with 16 or 128 KV heads per rank) and a context above 8192: mem_fraction_static was
  /// cut by 0.85 (share holds the cut value).
  bool aiter_share_cut = false;
  /// SGLang's AITER paged-decode workspace, allocated after the KV pool outside it (fp32 partial
  /// outputs plus two fp32 stats per request, query head and 256-token partition), and the
  /// requests it is sized for (the token pool's max_running_requests); 0 where none is made.
  double aiter_workspace_bytes = 0;
  std::uint64_t aiter_workspace_requests = 0;
  /// What is free after the pool, (1 - mem_fraction_static) of free-at-start: less than the
  /// workspace means the server stops with an out-of-memory error at start.
  double aiter_free_after_pool_bytes = 0;
  /// SGLang's request-to-token table (ReqToTokenPool: int32, max_running_requests + 1 rows of
  /// context_len + 4), allocated after the KV pool from the (1 - mem_fraction_static) left outside
  /// it, so part of outside_need_bytes; the requests it is sized for and the context_len (the
  /// fit's context, passed as --context-length). 0 for other engines.
  double req_to_token_bytes = 0;
  std::uint64_t req_to_token_requests = 0;
  std::uint64_t req_to_token_context = 0;
  /// SGLang without --context-length takes the model's maximum: set by fit when the request's
  /// context is shorter and the table at that default does not fit outside the fraction (the server
  /// stops out of memory at start): the default, its table, the longest --context-length that
  /// starts and the most --max-running-requests that start at the default (0: none). 0: it fits.
  std::uint64_t sglang_default_context = 0;
  double sglang_default_table_bytes = 0;
  std::uint64_t sglang_context_that_starts = 0;
  std::uint64_t sglang_requests_that_start = 0;
  /// TensorRT-LLM up to 1.2 on Blackwell with block-FP8 linear layers: what resmoothing them to
  /// E8M0 scales after loading holds at its peak beyond the weights (fp32 copies of the largest
  /// tensor, and the block-FP8 weights it has replaced), and what the weights leave free there. 0
  /// where it does not run (trtllm_resmooth_bytes).
  double trtllm_resmooth_peak_bytes = 0;
  double trtllm_resmooth_transient_bytes = 0;
  double trtllm_resmooth_free_bytes = 0;
  [[nodiscard]] bool trtllm_resmooth_short() const {
    return trtllm_resmooth_peak_bytes > 0 && trtllm_resmooth_peak_bytes > trtllm_resmooth_free_bytes;
  }
  [[nodiscard]] bool aiter_workspace_short() const {
    return aiter_workspace_bytes > 0 && aiter_workspace_bytes > aiter_free_after_pool_bytes;
  }
  /// What the engine allocates after sizing its cache, outside its share, and the memory left
  /// there for it: vLLM before 0.21 captures its CUDA graphs from what is above
  /// gpu_memory_utilization (less the CUDA context and other processes' memory); SGLang runs its
  /// prefill activations, CUDA graphs and attention metadata from the (1 - mem_fraction_static)
  /// of free-at-start. 0 where nothing is checked (vLLM from 0.21 subtracts its graphs inside the
  /// share; TensorRT-LLM sizes from what is free after its warm-up).
  double outside_need_bytes = 0;
  double outside_free_bytes = 0;
  /// vLLM before 0.21: what an eager start (--enforce-eager) still allocates above the share after
  /// sizing its cache (kVllmEagerOutsideBytes), so whether --enforce-eager is a remedy; and whether
  /// the run is eager (EngineSettings::eager: then outside_need_bytes is this figure).
  double eager_outside_need_bytes = 0;
  bool eager = false;
  /// vLLM V0 with TP over PCIe or across nodes captures NCCL into its graphs: what the logs put that
  /// at (outside_nccl_graph_bytes), a warning when less is left, not part of outside_need_bytes.
  bool outside_nccl_graphs = false;
  double outside_nccl_graph_bytes = 0;
  /// Less is left above the share than V0's graphs with NCCL took in the logs.
  [[nodiscard]] bool outside_nccl_risk() const {
    return outside_nccl_graphs && outside_nccl_graph_bytes > outside_free_bytes;
  }
  /// The engine sizes its cache, then stops out of memory at start (vLLM: capturing CUDA graphs).
  [[nodiscard]] bool outside_short() const {
    return outside_need_bytes > 0 && outside_need_bytes > outside_free_bytes;
  }
  /// Whole blocks of the cache (vLLM's "# GPU blocks").
  [[nodiscard]] std::uint64_t blocks() const { return kv_tokens / std::max<std::uint64_t>(block_tokens, 1); }
  /// Requests at the fit's context the cache holds, as the engine counts them (vLLM's log line;
  /// others: tokens over the context); set by fit once the KV shape is known.
  double max_concurrency = 0;
};

/// Inputs the engines need: the GPU total as CUDA reports it, the weights one GPU holds, the
/// KV bytes per token on that GPU (all its layers) and the paged block.
struct EngineInputs {
  double total_bytes = 0;
  double weights_bytes = 0;
  double kv_bytes_per_token_per_gpu = 0;
  std::uint64_t block_tokens = 16;
  double mxfp4_expert_bytes = 0;  ///< of weights_bytes: routed experts held in MXFP4
  std::string_view device_name;   ///< the GPU's name: vLLM's defaults single out the A100
  /// Tokens per sequence (vLLM's max_model_len): V0 releases size their step from it.
  std::uint64_t context_tokens = 0;
  /// The tensor-parallel group is not one NVLink domain (PCIe only, or across nodes): vLLM keeps
  /// no NVLink communicator buffers (NVLS, symmetric memory), about 0.25 GiB in all.
  bool tp_outside_nvlink = false;
  /// The tensor-parallel group spans nodes: vLLM turns its custom all-reduce off at any size
  /// ("Custom allreduce is disabled because this process group spans across nodes").
  bool tp_across_nodes = false;
  /// Compute capability below 8.0 (Volta, Turing), an encoder-decoder model (mllama), or a model
  /// with recurrent state (Mamba, linear attention): vLLM 0.8 to 0.10.1 fall back to V0 ("Compute
  /// Capability < 8.0 is not supported by the V1 Engine. Falling back to V0"; "No Mamba or
  /// Encoder-Decoder so far"; "Mamba is experimental on VLLM_USE_V1=1. Falling back to V0 Engine.").
  bool v1_unsupported = false;
  /// The KV shape on this GPU, when known: vLLM V1 groups its cache by kinds of layer.
  const KvShape* kv_shape = nullptr;
  /// Memory shared with the host (GB10): NVML reports no total, so vLLM takes its small-GPU defaults;
  /// TensorRT-LLM and SGLang see the page cache of the checkpoint they read as used memory.
  bool unified_memory = false;
  /// On unified memory, the most CUDA reports free at boot with the CUDA context up (the OS holds
  /// the rest): TensorRT-LLM's and SGLang's base, which count the OS's share as used. Unset: none.
  std::optional<double> free_at_start_bytes;
  /// vLLM's default sampler here is FlashInfer's (an NVIDIA GPU); false: PyTorch-native (ROCm).
  bool flashinfer_sampler = true;
  /// The GPU's generation: which MXFP4 MoE kernel vLLM picks (vllm_mxfp4_backend).
  NvidiaArch nvidia_arch = NvidiaArch::unknown;
  /// OpenAI's triton_kernels package is installed: vllm/vllm-openai images ship it, a plain
  /// `pip install vllm` does not (vLLM then runs MXFP4 experts with Marlin on Hopper too).
  bool triton_kernels = true;
  /// An AMD GPU: SGLang's default attention backend there is AITER (ServerArgs._get_default_attn_backend).
  bool rocm = false;
  /// TensorRT-LLM on Blackwell (SM 10.x, SM 12.0): of weights_bytes, the 128 x 128 block-FP8
  /// linear layers (attention, dense MLP, shared experts) its post-load resmoothing rewrites, and
  /// the elements of the largest such tensor on one GPU (trtllm_resmooth_inputs); 0: none.
  double block_fp8_linear_bytes = 0;
  double block_fp8_largest_elements = 0;
  /// With PP > 1, each stage's weights on one GPU and its decoder layers, first stage to last (the
  /// first holds the embedding, the last the LM head); vLLM sizes each worker's cache from its own
  /// profile and keeps the fewest blocks. Empty: every GPU is the busiest stage (weights_bytes).
  struct PipelineStage {
    double weights_bytes = 0;
    std::uint64_t layers = 0;
  };
  std::vector<PipelineStage> pp_stages;
};

/// vLLM's layers per pipeline stage (vllm/distributed/utils.py get_pp_indices without
/// VLLM_PP_LAYER_PARTITION): layers / PP each, the remainder one each to the stages before the
/// last, from the second-to-last backwards (27 layers over 2 stages: 14, 13).
[[nodiscard]] std::vector<std::uint64_t> vllm_pp_layers(std::uint64_t layers, std::uint64_t pp);

/// From this release vLLM's sampler peak depends on which sampler runs (VllmSampler): 16 bytes a
/// logit with FlashInfer's, 28.7 with the PyTorch-native one; before, 38.5 (as measured on 0.11).
inline constexpr int kVllmLeanSamplerMinor = 19;
/// TensorRT-LLM 1.0 (major x 100 + minor): the PyTorch backend is the default; before it, the
/// TensorRT-engine flow.
inline constexpr int kTrtllmPytorchDefault = 100;
/// The first TensorRT-LLM release with the PyTorch backend (trtllm-serve --backend pytorch): 0.17.
inline constexpr int kTrtllmPytorchBackendFrom = 17;
/// TensorRT-LLM's max_num_tokens when none is given (BuildConfig and the LLM API, from 0.11).
inline constexpr std::uint64_t kTrtllmDefaultMaxNumTokens = 8192;
/// TensorRT-LLM's enable_chunked_prefill default: False in every release whose llm_args.py the
/// project has read (`enable_chunked_prefill: bool = Field(default=False, description="Enable
/// chunked prefill.")`, NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py, 0.19 to 1.x), and
/// trtllm-serve has no flag for it (NVIDIA/TensorRT-LLM#4947). PR #9499 ("BREAKING: Enable
/// chunked prefill by default") and main's docs/source/features/long-sequence.md @1ec63b44 turn it
/// on, but no release is pinned to that change, so unset stays off: a plan's YAML sets it.
inline constexpr bool kTrtllmChunkedPrefillDefault = false;
/// vLLM caches MLA's latent from 0.7.1 (vllm#12890, mgoin: "With vllm==0.7.1 we fully implement
/// MLA"; PR #12601, DeepSeek-V3 MLA, in v0.7.1); before, K and V per head (vllm_expands_mla).
inline constexpr int kVllmMlaLatentMinor = 7;
inline constexpr int kVllmMlaLatentPatch = 1;
/// Before MLA, vLLM's deepseek_v2.py padded q, k and v of every head to 256 for its attention
/// backend (the "Before" log of vllm PR #10927: 35.42 GiB for 85,968 tokens of DeepSeek-V2-Lite is
/// 442,400 bytes a token = 27 layers x 16 heads x 256 x 2 (K, V) x 2 bytes).
inline constexpr std::uint64_t kVllmPreMlaHeadDim = 256;
/// The newest vLLM release whose arithmetic gpuplan follows (0.29, logs of 2026): what a request
/// that names no --engine-version gets where releases differ after 0.21.
inline constexpr int kVllmNewestMinor = 29;
/// The newest --engine-version accepted for TensorRT-LLM and SGLang: the newest release seen in
/// public deployments, plus a margin for releases since (a version beyond it is a typo, as
/// vLLM's beyond kVllmNewestMinor is). TensorRT-LLM: 1.3.0rc22 on pypi.nvidia.com (deployment
/// notes of 2026; 1.3.0rc14 was "latest pre-release" in SemiAnalysisAI/InferenceX PR #1487,
/// May 2026), so up to 1.5 (major x 100 + minor). SGLang: lmsysorg/sglang:v0.6.0 images pinned
/// beside vllm-openai:v0.27.1 (2026), after 0.5.21, so up to 0.7.x (minor).
inline constexpr int kTrtllmNewestAccepted = 105;
inline constexpr unsigned kSglangNewestAcceptedMinor = 7;
/// From this release vLLM counts its shared pool's blocks for the linear-attention state check and
/// logs "GPU KV cache size" as concurrency x max_model_len (0.24 logs did neither, 0.25.1 and
/// 0.27.1 logs both).
inline constexpr int kVllmPoolCountMinor = 25;
/// From this release a hybrid model runs with prefix caching in mamba_cache_mode "align" by
/// default, each linear-attention layer reserving two state pages per request (0.28 and 0.29
/// logs; 0.10.2 ran without; the release between is not pinned, taken with the pool count).
inline constexpr int kVllmMambaAlignMinor = 25;

/// vLLM's large-GPU serve defaults (max_num_batched_tokens 8192, max_num_seqs 1024) apply: a
/// CUDA total of at least 70 GiB, and not an A100 ("a100" not in the device name,
/// vllm/engine/arg_utils.py and tests/engine/test_arg_utils.py); otherwise 2048 and 256.
bool vllm_large_gpu_defaults(double total_bytes, std::string_view device_name);

/// vLLM V0's defaults (releases before 0.8, where V1 became the default engine): max_num_seqs
/// 256 and, with chunked prefill off (the default up to a 32K max_model_len), a step of
/// max(max_model_len, 2048) tokens; above 32K chunked prefill is on at 512 tokens (2048 from 0.6.5)
/// (vllm/config.py SchedulerConfig.__post_init__, vllm/engine/arg_utils.py in 0.6-0.7).
struct VllmStepDefaults {
  std::uint64_t max_num_batched_tokens = 0;
  std::uint64_t max_num_seqs = 0;
};
/// On unified memory (GB10) NVML reports no memory total, vLLM's arg_utils.py falls back to a
/// device memory of 0 and so to the small-GPU defaults (a DGX Spark log shows 2048 tokens).
/// V0's chunked step is 512 tokens up to 0.6.4, 2048 from 0.6.5 (`patch_version`; unset: 0.6.4).
/// `v0_unchunked_model`: V0 leaves chunked prefill off for this model at any length (a sliding
/// window, an MLA cache), so its step is max(max_model_len, 2048).
VllmStepDefaults vllm_step_defaults(double total_bytes, std::string_view device_name, std::uint64_t context_tokens,
                                    std::optional<int> minor_version, bool unified_memory = false,
                                    std::optional<int> patch_version = std::nullopt,
                                    bool v0_unchunked_model = false);

/// "vLLM 0.6.3", "SGLang 0.4.3", "TensorRT-LLM 0.20", or the engine's name and "(current)" without
/// a release.
[[nodiscard]] std::string engine_release_label(const EngineSettings& settings);
/// The line perf prints with an engine: the prefill step and batch cap the estimate used, under
/// the engine's own names, and whether each is a flag's or the engine's default (helper s55 tasks
/// F7: two releases' TTFTs differed with no reason shown). `pp`: pipeline stages (PP micro-batches).
[[nodiscard]] std::string engine_step_line(const EngineMemory& e, const EngineSettings& settings, std::uint64_t pp);

/// Validates settings against the engine named (ranges, NaN, a setting of another engine);
/// throws InputError with `engine.<setting>:`.
void validate_engine_settings(const EngineSettings& settings);

/// For EngineInputs: the bytes of `formats`' 128 x 128 block-FP8 linear parts in `weight_parts` (one
/// GPU's bytes by WeightPart) and the elements of the largest such tensor one GPU holds (fused QKV,
/// gate-up, an MLA projection, one routed expert's projection), for TensorRT-LLM's resmoothing.
struct BlockFp8Linears {
  double bytes = 0;
  double largest_elements = 0;
};
[[nodiscard]] BlockFp8Linears trtllm_resmooth_inputs(const ModelSpec& m, const Layout& l, const WeightFormats& formats,
                                                     const std::array<double, kWeightParts>& weight_parts);

/// SGLang's max_running_requests without --max-running-requests: clamp(int(pool tokens /
/// context_len x 512), 2048, 4096), at most pool tokens / 2 (ModelRunner.resolve_max_num_reqs).
[[nodiscard]] std::uint64_t sglang_default_running_requests(std::uint64_t pool_tokens, std::uint64_t context_len);
/// SGLang's request-to-token table for `requests` at `context_len`: (requests + 1) x (context_len + 4) x 4 bytes.
[[nodiscard]] double sglang_req_to_token_bytes(std::uint64_t requests, std::uint64_t context_len);

/// The line fit, perf and cost print when vLLM would refuse to start at its default
/// max_model_len (EngineMemory::default_max_model_len set), or SGLang would stop out of memory at
/// its default context_len (EngineMemory::sglang_default_context set); nothing otherwise.
std::optional<std::string> default_max_model_len_line(const EngineMemory& e, std::uint64_t context_tokens);

/// The engine's KV budget for one GPU of `layout`. The model must have an architecture.
EngineMemory engine_memory(const ModelSpec& model, const Layout& layout, const EngineInputs& in,
                           const EngineSettings& settings);

/// The MXFP4 MoE backend vLLM `minor` (unset: the newest) picks on `arch` (get_mxfp4_backend,
/// select_mxfp4_moe_backend): FlashInfer's TRT-LLM-gen kernel on SM100; from 0.11 OpenAI's Triton
/// kernels on Hopper where triton_kernels is installed; Marlin elsewhere (Ampere, Ada, SM120) and
/// before 0.11. Not NVIDIA (`unknown`): Marlin's shape, as before this choice was modelled.
[[nodiscard]] VllmMxfp4Backend vllm_mxfp4_backend(NvidiaArch arch, std::optional<int> vllm_minor,
                                                  bool triton_kernels);

/// Bytes vLLM adds to `mxfp4_expert_bytes` (one GPU's MXFP4 routed experts) as `backend` holds
/// them: Marlin pads the hidden size to a multiple of 256 and each rank's expert intermediate size
/// to 128; FlashInfer's TRT-LLM-gen kernel both to 256; Triton pads the intermediate size to 64 and
/// keeps the checkpoint's scales beside its swizzled copy. 0 for dense models or no MXFP4 experts.
double vllm_mxfp4_padding_bytes(const ModelSpec& model, const Layout& layout, double mxfp4_expert_bytes,
                                VllmMxfp4Backend backend = VllmMxfp4Backend::marlin);
/// The same for TensorRT-LLM's CUTLASS MoE backend (its default), which pads both the hidden size
/// and each rank's expert intermediate size to a multiple of 128 (MXFP4WeightCutlassFusedMoEMethod).
double trtllm_mxfp4_padding_bytes(const ModelSpec& model, const Layout& layout, double mxfp4_expert_bytes);

/// Peak activation bytes of one forward of `tokens` tokens on one GPU (bf16): the residual stream
/// and its normed copy, q/k/v, the MLP's gate/up outputs (or the fused-MoE intermediate caches of
/// the top-k experts), split over TP.
double forward_activation_bytes(const ModelSpec& model, const Layout& layout, std::uint64_t tokens);

}  // namespace gpuplan
