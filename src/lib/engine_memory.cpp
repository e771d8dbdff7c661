// engine_memory(): vLLM, SGLang and TensorRT-LLM KV-cache sizing (see engine_memory.hpp for the
// formulas and the engine source files they follow).
#include <gpuplan/engine_memory.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/units.hpp>

#include "detail/ascii.hpp"
#include "detail/document.hpp"
#include "detail/numeric.hpp"
#include "detail/vllm_encoder_profile.hpp"

namespace gpuplan {
namespace {

using detail::d;
using detail::round_up;

using detail::kActivationBytes;
// vLLM's profiling sampler run on full-vocabulary logits, bytes per logit at its peak: bf16
// logits (2) and their fp32 copy (4), top-k/top-p sort values (4) and int64 indices (8), softmax
// and cumulative sum (4 + 4), the boolean mask (1), the scattered result and the probabilities
// (4 + 4) (vllm/v1/sample/ops/topk_topp_sampler.py) make 35; measured peaks are 38.4-39 with the
// forward far below them: llm-d's vLLM 0.11.0 notes log the profiling peak of Llama-3.1-8B (38.9),
// Qwen3-0.6B (38.4), Qwen3-32B at TP 1 and 2 (38.9) and gpt-oss-20b (38.5) for 1,024 rows, and
// gemma-3-4b's 9.96 GiB for 1,024 x 262,208 logits is 39 (vllm#21489). Taken as measured.
constexpr double kSamplerBytesPerLogit = 38.5;
// vLLM 0.19's profiling peak is 15-16 bytes a logit for every dense model of llm-d-planner's
// sweep (Llama-3.1-8B 1.89 GiB, Qwen2.5-7B 2.21, gemma-2 3.62-3.66, phi-4 1.52 GiB at
// max_num_seqs 1,024; llm-d-incubation/llm-d-planner accuracy/results/v0.19.0/accuracy_report.md):
// the sampler no longer keeps the sorted copies. The release in between is not pinned down;
// releases from 0.19 (and an unset version) use the measured figure.
constexpr double kSamplerBytesPerLogitV19 = 16.0;
// From 0.19 the 16 bytes hold for FlashInfer's sampler only: with VLLM_USE_FLASHINFER_SAMPLER=0
// vLLM 0.26 logged a 1.04 GiB peak for 256 rows of Qwen2.5-7B's 152,064 logits, the 2048-token
// forward being 0.24 GiB: 28.7 bytes a logit (a lab notebook's RTX 4080 run, audit s46 F2 row 02).
// One measurement; the PyTorch-native path sorts the full vocabulary (apply_top_k_top_p).
constexpr double kNativeSamplerBytesPerLogitV19 = 28.7;
// Memory outside PyTorch's allocator that grows after the engine's start snapshot: cuBLAS and
// cuBLASLt workspaces, Triton/torch.compile kernels (a few hundred MiB on Hopper).
constexpr double kWorkspaceBytes = 0.25 * units::kGiB;
// With more than one GPU per replica: NCCL channels and vLLM's custom all-reduce IPC buffers.
constexpr double kCommunicatorBytes = 1.0 * units::kGiB;
// vLLM with TP > 1 measures 2.07-2.17 GiB of non-torch memory per GPU (TP 2 and 4, v0.19, same
// report): NCCL channels, the custom all-reduce IPC buffers and the symmetric-memory
// all-reduce, against 0.25 GiB at TP 1.
constexpr double kVllmCommunicatorBytes = 1.85 * units::kGiB;
// SGLang's free memory at start is taken after torch.distributed is up: "Init torch distributed
// ends. mem usage=2.01 GB" on 8 x H200 (sglang#11716; "avail mem=137.29 GB" of 139.80 GiB), NCCL
// with NVLink (NVLS) and the custom all-reduce buffers; 0.13 GB on 4 x L4 over PCIe, where
// neither allocates.
constexpr double kSglangNvlinkCommunicatorBytes = 2.0 * units::kGiB;
constexpr double kSglangPcieCommunicatorBytes = 0.13 * units::kGiB;
// The CUDA context itself (driver, loaded modules): counted where the engine's base is the free
// memory after start (SGLang's free-at-start, TensorRT-LLM's free memory), not in vLLM's
// increase over its start snapshot.
constexpr double kCudaContextBytes = 0.5 * units::kGiB;
// vLLM serve defaults (vllm/engine/arg_utils.py, V1): GPUs with at least 70 GiB get
// max_num_batched_tokens 8192 and max_num_seqs 1024; smaller ones, and the A100 whatever its
// memory ("a100" not in the device name, tests/engine/test_arg_utils.py), 2048 and 256.
constexpr double kVllmLargeGpuBytes = 70.0 * units::kGiB;
// V0: vLLM became V1 by default in 0.8.0; V0's max_num_seqs default was 256 (kVllmSmallMaxSeqs),
// its chunked prefill on by default only above a 32K max_model_len (vllm/engine/arg_utils.py,
// 0.6-0.7).
constexpr int kVllmV1DefaultMinor = 8;
constexpr std::uint64_t kVllmSmallMaxSeqs = 256;
constexpr std::uint64_t kVllmLargeMaxSeqs = 1024;
constexpr std::uint64_t kVllmLargeBatchedTokens = 8192;
constexpr std::uint64_t kVllmV0ChunkedPrefillAbove = 32768;
// That default came with vllm PR #6666 ("Enable chunked prefill by default for long context
// models ... to avoid possible OOM errors during the initial memory profiling", merged 2024-07-23,
// the day 0.5.3 shipped with Llama 3.1 support: 0.5.3 taken as its first release, INFERRED from the
// dates). Before it V0 profiled one step of max(max_model_len, 2048) tokens at any length
// (SchedulerConfig), 163,840 for DeepSeek-Coder-V2-Lite (vllm#6156, 0.5.1: 63,040 tokens of cache).
constexpr int kVllmV0AutoChunkedMinor = 5;
constexpr int kVllmV0AutoChunkedPatch = 3;
constexpr std::uint64_t kVllmSmallBatchedTokens = 2048;
// V0's step under chunked prefill: 512 tokens ("the best balance between ITL and TTFT on A100",
// vllm/config.py SchedulerConfig, 0.4-0.6.4) until vllm#10544 (merged 2024-11-21, after
// 0.6.4.post1) made it 2048 (0.6.6.post1's SchedulerConfig.__post_init__). A 0.6 release without
// its patch number is taken as 0.6.4 and before, most of 0.6's releases.
constexpr std::uint64_t kVllmV0ChunkedBatchedTokens = 512;
constexpr int kVllmV0Chunked2048Patch = 5;  // 0.6.5
// V0's profiling run samples its dummy rows from the bf16 logits (vllm#10517's 0.6 log: a torch
// peak 0.06 GiB over the weights for 256 rows of Llama-3.1-8B's 128,256 logits, 2 bytes each,
// at a 512-token chunked step); V1's sampler peak (kSamplerBytesPerLogit) does not show there.
constexpr double kV0SamplerBytesPerLogit = 2.0;
constexpr int kVllmOthersExcludedMinor = 9;  // 0.9.1: V1 leaves other processes' memory out of its share
constexpr int kVllmGraphProfilingMinor = 21;  // "CUDA graph memory profiling ... default since v0.21.0"
constexpr std::uint64_t kVllmMaxCaptureTokens = 512;
constexpr double kGraphBytesPerLayer = 2.0 * units::kMiB;  // captured graph nodes and metadata
// Full-graph capture (TensorRT-LLM's PyTorch backend, SGLang): each captured batch size keeps its
// MoE layers' buffers; per graph and MoE layer (trtllm_cuda_graph_bytes has the logs).
constexpr double kMoeGraphBytesPerLayer = 2.0 * units::kMiB;
// vLLM V0 with its TP all-reduce on NCCL (PCIe GPUs, across nodes: no custom all-reduce) captures
// NCCL into every graph, and "NCCL's internal buffer is captured in the graph" (vllm PR #2192: 0.6
// to 1.0 GB more at TP 2-4 than the custom all-reduce); V0 warns "CUDA graphs can take additional
// 1~3 GiB memory per GPU" (vllm/worker/model_runner.py capture_model, 0.5.x; vllm#7593's log).
// What that leaves to fit above gpu_memory_utilization (less the CUDA context), net of the
// profiling peak vLLM frees before capturing, lies between two logs: 4 x RTX 4090 at TP 4 (0.5.4,
// util 0.9) started with 1.86 GiB there, its graphs taking 2.41 GiB by nvidia-smi against
// --enforce-eager (vllm#7553); 8 x L4 at TP 8 (0.5.x, defaults) ran out capturing with 1.70 GiB
// (vllm#7593). One figure inside that range, no finer model: V1's piecewise graphs at TP 4 over
// PCIe take 0.17 GiB (vLLM 0.21's estimate, 4 x RTX 3090, noonghunna/club-3090 #44), so V1 keeps
// the per-layer term below. A warning, not the verdict (below): the verdict adds the least PR #2192
// measured, 0.6 GB.
constexpr double kVllmV0NcclGraphBytes = 1.8 * units::kGiB;
constexpr double kVllmV0NcclGraphMinBytes = 0.6e9;
// vLLM before 0.21 under --enforce-eager: nothing is captured after the cache is sized, yet some
// memory is still first touched above gpu_memory_utilization then: NCCL's point-to-point buffers
// (a pipeline stage's first send/recv: V0's profile_run feeds later stages empty intermediate
// tensors and sends nothing, vllm/worker/model_runner.py 0.6.x), lazily created communicator
// channels, and the allocator's slack around the cache. Two eager logs bound it: DeepSeek-V3 on
// 32 x RTX 4090 at TP 8 PP 4 (vLLM 0.6.6, util 0.98, expandable segments) ran out of memory with
// about 0 GiB left there (deepseek-ai/DeepSeek-V3#205); 4 x RTX 4090 at TP 4 (0.5.4, util 0.9)
// started with 1.86 GiB (vllm#7553). INFERRED inside that range: 0.5 GiB, the CUDA context's size.
constexpr double kVllmEagerOutsideBytes = 0.5 * units::kGiB;
// TensorRT-LLM's TensorRT-engine flow: "runtime buffers" plus "decoder" together, in fp32 logits
// buffers of max_batch_size x vocabulary. INFERRED from logs, not the source (the decoder's
// penalty and sampling workspaces are [batch, vocab], its output ids and log-probs [batch,
// max_seq_len], so no one multiple holds): TensorRT-LLM#1188 7.3 (Qwen 0.5B, 2,048 x 151,936:
// 2.66 GB + 5.76 GB), a 0.19 RTX 5090 log 4.3 (2,048 x 128,256), the 0.12 trtllm-bench docs log
// 11.2 (Llama-2-7B FP8, 4,096 x 32,000 at max_seq_len 4,098: 1.14 GB + 4.35 GB). The middle one
// is subtracted; the note gives the range.
constexpr double kTrtllmEngineBuffersPerLogitsBuffer = 7.3;
// SGLang's own account of what lives outside mem_fraction_static (its default's reserve,
// server_args.py _handle_gpu_memory_settings, PR #10975): "Constant meta data (e.g., from attention
// backend)" 512 MiB, the prefill activations (1.5 MiB a chunked-prefill token there; the model's
// own forward here) and 2 MiB per cuda_graph_max_bs "for cuda graphs".
constexpr double kSglangMetadataBytes = 512.0 * units::kMiB;
constexpr double kSglangGraphBytesPerBatch = 2.0 * units::kMiB;

std::string_view share_name(Engine e) {
  switch (e) {
    case Engine::vllm: return "gpu_memory_utilization";
    case Engine::sglang: return "mem_fraction_static";
    case Engine::trtllm: return "kv_cache_free_gpu_mem_fraction";
    case Engine::neutral: break;
  }
  return "";
}

void check_share(std::string_view field, const std::optional<double>& v, Engine owner, Engine named) {
  if (!v) {
    return;
  }
  if (owner != named) {
    throw InputError(fmt::format("engine.{}: is a {} setting, but the engine is {}", field,
                                 to_string(owner), named == Engine::neutral ? "not named (use --engine)"
                                                                            : std::string(to_string(named))));
  }
  if (!(*v > 0.0 && *v <= 1.0)) {
    throw InputError(fmt::format("engine.{}: expected a share in (0, 1], got {}", field, *v));
  }
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

/// SGLang's default chunked_prefill_size and cuda_graph_max_bs by GPU memory (MiB) and TP
/// (server_args.py _handle_gpu_memory_settings).
std::pair<std::uint64_t, std::uint64_t> sglang_defaults(double gpu_mib, std::uint64_t tp) {
  const bool small_tp = tp < 4;
  if (gpu_mib < 20 * 1024.0) {
    return {2048, small_tp ? 8 : 80};
  }
  if (gpu_mib < 35 * 1024.0) {
    return {2048, small_tp ? 24 : 80};
  }
  if (gpu_mib < 60 * 1024.0) {
    return {4096, small_tp ? 32 : 160};
  }
  if (gpu_mib < 160 * 1024.0) {
    return {8192, small_tp ? 256 : 512};
  }
  return {16384, 512};
}

/// SGLang's default mem_fraction_static: (GPU MiB - reserved MiB) / GPU MiB, reserved = 512 of
/// metadata + 1.5 MiB per chunked-prefill token + 2 MiB per CUDA-graph batch + 1 GiB per 8 GPUs
/// of TP x PP, at least 10 GiB on GPUs over 60 GiB; rounded to 3 decimals.
double sglang_default_fraction(double gpu_mib, std::uint64_t chunk, std::uint64_t graph_bs,
                               std::uint64_t tp, std::uint64_t pp) {
  double reserved = 512.0 + d(std::max<std::uint64_t>(chunk, 2048)) * 1.5 + d(graph_bs) * 2.0 +
                    d(tp * pp) / 8.0 * 1024.0;
  if (gpu_mib > 60 * 1024.0) {
    reserved = std::max(reserved, 10.0 * 1024.0);
  }
  return round3((gpu_mib - reserved) / gpu_mib);
}

/// SGLang releases whose default fraction rule changed (minor x 100 + patch). The boundaries come
/// from forks' copies of server_args.py dated by their version.py and the PRs' merge dates; all but
/// 0.5.3 (PR #11076, 2025-09-30; 0.5.3 bumped 2025-10-06) may be off by a patch release.
constexpr int kSglangTp8At083 = 207;   // about 0.2.7 (PR #823): 0.88 / 0.87 / 0.85 / 0.83 / 0.79
constexpr int kSglangTp8At081 = 306;   // about 0.3.6 (PR #2044): TP 8 at 0.81
constexpr int kSglangReserveTable = 407;  // 0.4.7 (PR #7054, 2025-06-10): reserve by GPU memory
// About 0.4.6 (April 2025): over 96 GiB (H200) a 13 GiB reserve, "(gpu_mem - 1024 * 13) / gpu_mem"
// (0.909 on an H200), and CUDA graphs up to batch 256, "recently increased ... from 160 to 256 for
// GPUs with more than 80 GB" (sgl-project/sglang PR #5893, 2025-04-29, quoting main; capture list
// `if gpu_mem > 96 * 1024: capture_bs += list(range(160, 257, 8))`, cuda_graph_runner.py). #5893
// raised the reserve to 18 GB in a 0.4.6 post release, which the version here cannot name; the
// first release with the 13 GiB rule is not pinned (0.4.5 may have had it).
constexpr int kSglangLargeGpuRule = 406;
constexpr double kSglangLargeGpuMib = 96.0 * 1024.0;
constexpr int kSglangFormula = 503;    // 0.5.3 (PRs #10975, #11076): sglang_default_fraction
constexpr int kSglangVlmByTower = 409; // PR #6881 (July 2025, about 0.4.9; in 0.5.0rc0): adjust_mem_fraction_for_vlm

/// chunked_prefill_size and cuda_graph_max_bs before the formula: 2048 and 8 / 80 (TP < 4 / >= 4)
/// under 25,000 MiB, else 8192 and 160, up to 0.4.6 (graphs to 256 above 96 GiB in 0.4.6); then
/// 2048 / 8192 / 16384 by 35 and 160 GiB with graphs up to 160, 256 above 96 GiB, 512 above
/// 180,000 MiB.
std::pair<std::uint64_t, std::uint64_t> sglang_old_defaults(double gpu_mib, std::uint64_t tp, int version) {
  const bool small_tp = tp < 4;
  if (version < kSglangReserveTable) {
    if (version >= kSglangLargeGpuRule && gpu_mib > kSglangLargeGpuMib) {
      return {8192, 256};
    }
    return gpu_mib < 25'000.0 ? std::pair<std::uint64_t, std::uint64_t>{2048, small_tp ? 8 : 80}
                              : std::pair<std::uint64_t, std::uint64_t>{8192, 160};
  }
  if (gpu_mib < 35 * 1024.0) {
    return {2048, small_tp ? 8 : 80};
  }
  const std::uint64_t graphs = gpu_mib > 180'000.0 ? 512 : gpu_mib > 96 * 1024.0 ? 256 : 160;
  return {gpu_mib < 160 * 1024.0 ? 8192 : 16384, graphs};
}

/// The default fraction before 0.5.3: by TP degree (in 0.4.6 a 13 GiB reserve above 96 GiB), or
/// (from 0.4.7) the GPU memory less a reserve
/// by memory class, ps = TP x PP GPUs: 2.8 + ps / 10 GiB under 35 GiB, 9.5 + ps / 2 under 90,
/// 12 + ps / 2 under 160, else 32 GiB.
double sglang_old_fraction(double gpu_mib, std::uint64_t tp, std::uint64_t pp, int version) {
  if (version >= kSglangReserveTable) {
    const double gib = gpu_mib / 1024.0;
    const double ps = d(tp * pp);
    const double reserved_gib = gib < 35.0 ? 2.8 + ps / 10.0 : gib < 90.0 ? 9.5 + ps / 2.0 : gib < 160.0 ? 12.0 + ps / 2.0 : 32.0;
    return round3((gib - reserved_gib) / gib);
  }
  if (version >= kSglangLargeGpuRule && gpu_mib > kSglangLargeGpuMib) {
    return round3((gpu_mib - 13.0 * 1024.0) / gpu_mib);
  }
  if (version < kSglangTp8At083) {
    return tp >= 8 ? 0.80 : tp >= 4 ? 0.82 : tp >= 2 ? 0.85 : 0.90;
  }
  const double tp8 = version < kSglangTp8At081 ? 0.83 : 0.81;
  return tp >= 16 ? 0.79 : tp >= 8 ? tp8 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
}

/// SGLang's CUDA graphs: its own reserve's 2 MiB per cuda_graph_max_bs (server_args.py), and each
/// captured batch size's MoE buffers per MoE layer (kMoeGraphBytesPerLayer): DeepSeek-V3 on 8 x
/// H200 logged "Capture cuda graph end ... mem usage=6.22 GB" for its 35 graphs to batch 256 (PR
/// #5893), where 2 MiB x 256 is 0.5 GiB. The batch sizes captured: 1, 2, 4, 8, 12, then every 8 to
/// 256, every 16 to 512, every 32 beyond (cuda_graph_runner.py get_batch_sizes_to_capture; 0.4.x
/// had no 12), up to cuda_graph_max_bs.
double sglang_cuda_graph_bytes(const ModelSpec& m, const Layout& l, std::uint64_t max_bs) {
  std::uint64_t graphs = 0;
  for (const std::uint64_t bs : std::initializer_list<std::uint64_t>{1, 2, 4, 8, 12}) {
    graphs += bs <= max_bs ? 1 : 0;
  }
  graphs += max_bs >= 16 ? (std::min<std::uint64_t>(max_bs, 256) - 16) / 8 + 1 : 0;
  graphs += max_bs >= 272 ? (std::min<std::uint64_t>(max_bs, 511) - 272) / 16 + 1 : 0;
  graphs += max_bs >= 512 ? (max_bs - 512) / 32 + 1 : 0;
  const std::uint64_t pp = std::max<std::uint64_t>(l.pp, 1);
  const double moe_layers = m.moe ? d(m.moe_layer_count()) / d(pp) : 0.0;
  return d(max_bs) * kSglangGraphBytesPerBatch + d(graphs) * moe_layers * kMoeGraphBytesPerLayer;
}

/// A multimodal model's fraction: from about 0.4.9 scaled by the vision tower's size (L x H^2 over
/// 24 x 1024^2: 0.95 x (1 - 0.1 (ratio - 1)), clamped to 0.8 .. 1.05 before the 0.95), a default
/// only; before, x 0.95 of any value (ModelRunner). L and H are vision_config's num_hidden_layers
/// and hidden_size as SGLang reads them, 24 and 1024 when not written: Qwen2.5-VL writes `depth`
/// (32), so SGLang takes 24 layers (x 0.897, not the tower's x 0.847), and Qwen2-VL's hidden_size
/// is its projector's 3584, not the tower's 1280 (x 0.76).
double sglang_vlm_factor(const ModelSpec& m, int version) {
  if (!m.vision_config_keys && !m.vision) {
    return 1.0;
  }
  if (version < kSglangVlmByTower) {
    return 0.95;
  }
  // A model built without a config file (no keys kept) is read by its tower's own sizes.
  const ModelSpec::VisionConfigKeys keys =
      m.vision_config_keys ? *m.vision_config_keys : ModelSpec::VisionConfigKeys{m.vision->layers, m.vision->hidden_size};
  const double layers = keys.num_hidden_layers > 0 ? d(keys.num_hidden_layers) : 24.0;
  const double hidden = keys.hidden_size > 0 ? d(keys.hidden_size) : 1024.0;
  const double ratio = layers * hidden * hidden / (24.0 * 1024.0 * 1024.0);
  return 0.95 * std::clamp(1.0 - 0.1 * (ratio - 1.0), 0.8, 1.05);
}

/// vLLM's CUDA-graph term from 0.21: the pool keeps the intermediates of the largest captured
/// batch (min(2 x max_num_seqs, 512) tokens); each graph adds its nodes, 2 MiB a layer of the stage.
/// vLLM's own estimate (gpu_model_runner.py profile_cudagraph_memory) is larger on small GPUs
/// (0.48 GiB logged for Qwen2.5-7B, 51 + 35 graphs), but logs' KV figures do not follow it
/// (log 01's terms with it sum to 7.52 GiB against the 8.0 logged; a Qwen3-Coder-Next log's 134
/// state blocks would drop to 90): kept as it was until that is understood.
double vllm_cuda_graph_bytes(const ModelSpec& m, const Layout& l, std::uint64_t layers, std::uint64_t max_seqs,
                             std::uint64_t batched_tokens) {
  const std::uint64_t largest =
      std::min({2 * max_seqs, kVllmMaxCaptureTokens, std::max<std::uint64_t>(batched_tokens, 1)});
  return forward_activation_bytes(m, l, largest) + d(layers) * kGraphBytesPerLayer;
}

/// TensorRT-LLM's PyTorch backend captures its CUDA graphs while it profiles: the executor built
/// for the estimation warms up ("Run generation only CUDA graph warmup for batch size=64 ..."),
/// then KvCacheCreator.configure_kv_cache_capacity reads the peak, graphs included ("Memory used
/// outside torch (e.g., NCCL and CUDA graphs) in memory usage profiling"), and takes
/// free_gpu_memory_fraction x (total - peak) (tensorrt_llm/_torch/pyexecutor/_util.py,
/// NVIDIA/TensorRT-LLM @0004396720054fd8e205cbf616f21f0b57c6b412; the DGX Spark log of 1.1.0rc3,
/// library file 2263047771, in that order). The graphs come from CudaGraphConfig: up to
/// min(max_batch_size, 128) when its max_batch_size is unset (llmapi/llm_args.py); with padding,
/// as that log lists them, 1, 2, 4 and the multiples of 8; without, TensorRT-LLM captures 1-31, 32,
/// 64 and 128 (34 graphs), so this is the smaller count of the two.
/// Each full-graph capture records its own kernels and the MoE layers' routing and expert buffers
/// at its batch size: memory that grows with graphs x MoE layers. SGLang's capture of DeepSeek-V3
/// (35 graphs to batch 256, 58 MoE layers) logged 6.22 GB (sgl-project/sglang PR #5893), 2.9 MiB
/// a graph and MoE layer. Without a graph term, three TensorRT-LLM logs had 5-7 % less KV cache
/// than gpuplan: 3.1 and 3.7 MiB a graph and MoE layer over the graphs counted here (Qwen3-235B-FP8
/// TP 4 EP 4 on H200 and B200 at 0.85, ai-dynamo/dynamo PR #9746), 8 for Kimi-K2.5 on 8 x B300
/// (1.3.0rc7; its NVFP4 checkpoint is read as int4 here). 2 MiB is taken, below each, since part of
/// those gaps may be other terms; dense layers keep vLLM's per-layer figure, and the pool holds the
/// largest graph's decode forward.
double trtllm_cuda_graph_bytes(const ModelSpec& m, const Layout& l, std::uint64_t max_batch_size) {
  constexpr std::uint64_t kDefaultGraphMaxBatch = 128;
  const std::uint64_t largest = std::min(std::max<std::uint64_t>(max_batch_size, 1), kDefaultGraphMaxBatch);
  // 1, 2 and 4 (largest is at least 1), then the multiples of 8.
  const std::uint64_t graphs = 1U + (largest >= 2 ? 1U : 0U) + (largest >= 4 ? 1U : 0U) + largest / 8;
  const std::uint64_t pp = std::max<std::uint64_t>(l.pp, 1);
  const double layers = d((m.num_hidden_layers + pp - 1) / pp);
  const double moe_layers = m.moe ? d(m.moe_layer_count()) / d(pp) : 0.0;
  return forward_activation_bytes(m, l, largest) + layers * kGraphBytesPerLayer +
         d(graphs) * moe_layers * kMoeGraphBytesPerLayer;
}

}  // namespace

namespace {

// MXFP4 experts allocated at a padded shape: the hidden size rounded up to `hidden_align`, each
// rank's expert intermediate size to `inter_align`.
double mxfp4_padding_bytes(const ModelSpec& m, const Layout& l, double mxfp4_expert_bytes, std::uint64_t hidden_align,
                           std::uint64_t inter_align) {
  if (!m.moe || mxfp4_expert_bytes <= 0.0 || m.hidden_size == 0) {
    return 0.0;
  }
  const std::uint64_t shard = l.ep > 1 ? 1 : l.tp;
  const std::uint64_t inter = std::max<std::uint64_t>(1, m.moe->expert_intermediate / shard);
  const double ratio = d(round_up(m.hidden_size, hidden_align)) * d(round_up(inter, inter_align)) /
                       (d(m.hidden_size) * d(inter));
  return mxfp4_expert_bytes * (ratio - 1.0);
}

// vLLM's MXFP4 MoE backends by release and GPU (vllm/model_executor/layers/quantization/mxfp4.py
// get_mxfp4_backend @007d50058a06, later fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend
// @001eda31e3d0): SM100 with FlashInfer (in vLLM's images and wheels' [flashinfer] extra) takes
// FlashInfer's TRT-LLM-gen BF16 kernel; Hopper takes OpenAI's Triton kernels when triton_kernels
// is installed and torch is at least 2.8, Marlin otherwise; compute capability below 9.0 and, in
// the newer files, 11.0 and up (SM120: "SM120 needs this fix", triton#8498) take Marlin. torch 2.8
// came with vLLM 0.10.2; 0.10.1 on H100 logs Marlin's 65.97 GiB for gpt-oss-120b (vllm#23278),
// 0.11.0 (llm-d-benchmark's vllm/vllm-openai runs) and 0.14.1 ("mxfp4.py:165 Using Triton
// backend", vllm#33155) the Triton figure, 64.38 GiB. 0.10.2 is not pinned down: Triton from 0.11.
constexpr int kVllmMxfp4TritonMinor = 11;

}  // namespace

VllmMxfp4Backend vllm_mxfp4_backend(NvidiaArch arch, std::optional<int> vllm_minor, bool triton_kernels) {
  switch (arch) {
    case NvidiaArch::blackwell_datacenter: return VllmMxfp4Backend::flashinfer_trtllm;
    case NvidiaArch::hopper:
      return triton_kernels && vllm_minor.value_or(kVllmNewestMinor) >= kVllmMxfp4TritonMinor
                 ? VllmMxfp4Backend::triton
                 : VllmMxfp4Backend::marlin;
    case NvidiaArch::unknown:
    case NvidiaArch::pre_hopper:
    case NvidiaArch::blackwell_other: break;
  }
  return VllmMxfp4Backend::marlin;
}

std::string_view to_string(VllmMxfp4Backend backend) {
  switch (backend) {
    case VllmMxfp4Backend::marlin: return "Marlin";
    case VllmMxfp4Backend::triton: return "Triton";
    case VllmMxfp4Backend::flashinfer_trtllm: return "FlashInfer TRT-LLM";
  }
  return "";
}

double vllm_mxfp4_padding_bytes(const ModelSpec& m, const Layout& l, double mxfp4_expert_bytes,
                                VllmMxfp4Backend backend) {
  // Each backend allocates the experts at its padded shape (create_weights, from the oracle's
  // mxfp4_round_up_hidden_size_and_intermediate_size): Marlin rounds the hidden size up to a
  // multiple of 256 and each rank's expert intermediate size to 128, FlashInfer's TRT-LLM-gen
  // kernel both to 256, the Triton kernels the intermediate size to 64.
  switch (backend) {
    case VllmMxfp4Backend::marlin: return mxfp4_padding_bytes(m, l, mxfp4_expert_bytes, 256, 128);
    case VllmMxfp4Backend::flashinfer_trtllm: return mxfp4_padding_bytes(m, l, mxfp4_expert_bytes, 256, 256);
    case VllmMxfp4Backend::triton: break;
  }
  if (!m.moe || mxfp4_expert_bytes <= 0.0) {
    return 0.0;
  }
  // The Triton path swizzles weights and scales into new tensors and deletes the layer's weight
  // parameters but not its scale parameters (process_weights_after_loading / convert_to_mxfp4_moe_
  // kernel_format: `del layer.w13_weight`, `del layer.w2_weight` only), so the checkpoint's E8M0
  // scales, 8 of each 4 x 32 + 8 bits, are held twice. gpt-oss-120b on H100: 60.77 GiB as shipped
  // + 3.34 GiB of scales = 64.11 against the 64.38 logged (the float32 copies of the biases and
  // the swizzled layout's own padding, not modelled, are the rest).
  const double scale_bytes = mxfp4_expert_bytes * 8.0 / (32.0 * 4.0 + 8.0);
  return mxfp4_padding_bytes(m, l, mxfp4_expert_bytes, 1, 64) + scale_bytes;
}

double trtllm_mxfp4_padding_bytes(const ModelSpec& m, const Layout& l, double mxfp4_expert_bytes) {
  // TensorRT-LLM's PyTorch backend allocates MXFP4 experts at hidden_size and
  // intermediate_size_per_partition rounded up to weight_alignment, 128 for its CUTLASS MoE (the
  // default moe_backend), and pads the checkpoint's tensors to it before sharding
  // (_torch/modules/fused_moe/quantization.py MXFP4WeightFusedMoEMethod.create_weights,
  // MXFP4WeightCutlassFusedMoEMethod; the TRTLLM backend aligns to 256, not modelled). gpt-oss-120b:
  // 2,880 -> 2,944 both ways, +2.55 GiB, and TensorRT-LLM 1.1.0rc3 logs "Use 63.32 GB for model
  // weights" on a DGX Spark where the unpadded weights are 60.77 GiB (audit s46, logs row 03).
  return mxfp4_padding_bytes(m, l, mxfp4_expert_bytes, 128, 128);
}

std::string_view to_string(VllmSampler sampler) {
  return sampler == VllmSampler::native ? "native" : "flashinfer";
}

std::string_view to_string(Engine engine) {
  switch (engine) {
    case Engine::neutral: return "none";
    case Engine::vllm: return "vllm";
    case Engine::sglang: return "sglang";
    case Engine::trtllm: return "trtllm";
  }
  return "none";
}

std::uint64_t engine_default_block_tokens(Engine engine) {
  switch (engine) {
    case Engine::trtllm: return kTrtllmBlockTokens;
    case Engine::sglang: return 1;  // page_size
    case Engine::vllm:
    case Engine::neutral: break;
  }
  return kDefaultBlockTokens;
}

bool engine_accepts_block_tokens(Engine engine, std::uint64_t block_tokens) {
  if (block_tokens == 0) {
    return false;
  }
  // TensorRT-LLM's tokens_per_block is a power of two; vLLM's block_size one of its choices
  // (1, 8, 16, 32, 64, 128, 256); SGLang's page_size any count.
  const bool power_of_two = (block_tokens & (block_tokens - 1)) == 0;
  switch (engine) {
    case Engine::trtllm: return power_of_two;
    case Engine::vllm: return power_of_two && block_tokens <= 256 && block_tokens != 2 && block_tokens != 4;
    case Engine::sglang:
    case Engine::neutral: break;
  }
  return true;
}

bool apply_engine_cache_layout(ModelSpec& model, Engine engine) {
  return apply_engine_cache_layout(model, EngineSettings{.engine = engine});
}

std::string_view to_string(TrtllmBackend backend) {
  return backend == TrtllmBackend::pytorch ? "pytorch" : "tensorrt";
}

TrtllmBackend parse_trtllm_backend(std::string_view name) {
  const std::string lower = detail::lower(name);
  if (lower == "pytorch") {
    return TrtllmBackend::pytorch;
  }
  if (lower == "tensorrt" || lower == "trt") {
    return TrtllmBackend::tensorrt;
  }
  throw InputError(fmt::format("engine.trtllm_backend: unknown backend '{}' (known: pytorch, tensorrt)", name));
}

bool trtllm_tensorrt_flow(const EngineSettings& s) {
  if (s.trtllm_backend) {
    return *s.trtllm_backend == TrtllmBackend::tensorrt;
  }
  return s.trtllm_version && *s.trtllm_version < kTrtllmPytorchDefault;
}

bool trtllm_pytorch_only(const ModelSpec& m) {
  constexpr std::array kPytorchOnly{std::string_view("deepseek_v3"), std::string_view("deepseek_v32"),
                                    std::string_view("kimi_k2"),     std::string_view("llama4"),
                                    std::string_view("llama4_text"), std::string_view("gpt_oss"),
                                    std::string_view("glm4_moe"),    std::string_view("qwen3_next")};
  return std::ranges::find(kPytorchOnly, std::string_view(m.model_type)) != kPytorchOnly.end();
}

bool vllm_expands_mla(const EngineSettings& s) {
  if (s.engine != Engine::vllm || !s.vllm_minor_version) {
    return false;
  }
  const int minor = *s.vllm_minor_version;
  // A version without its patch number (0.7) is the release's first (0.7.0), as elsewhere.
  return minor < kVllmMlaLatentMinor || (minor == kVllmMlaLatentMinor && s.vllm_patch_version.value_or(0) < kVllmMlaLatentPatch);
}

bool apply_engine_cache_layout(ModelSpec& model, const EngineSettings& settings) {
  const Engine engine = settings.engine;
  bool changed = false;
  if (engine == Engine::sglang && model.mla && !model.mla->latent_cache) {
    model.mla->latent_cache = true;
    changed = true;
  }
  // vLLM before 0.7.1 ran DeepSeek-V2/V3 attention as plain MHA: K and V up-projected per head and
  // cached, q, k and v each padded to 256 (kVllmPreMlaHeadDim); the KV heads are the query heads.
  if (vllm_expands_mla(settings) && model.mla && model.mla->latent_cache) {
    model.mla->latent_cache = false;
    model.head_dim = std::max(kVllmPreMlaHeadDim, model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim);
    model.num_key_value_heads = model.num_attention_heads;
    return true;
  }
  // Sparse-attention MLA (DeepSeek-V3.2, GLM-5) in fp8: FlashMLA's sparse kernels read their own
  // record, the latent in fp8 with an fp32 scale per 128 and the rope part in bf16 (vLLM's
  // fp8_ds_mla, which it forces for any fp8 cache of such a model; SGLang alike).
  if ((engine == Engine::vllm || engine == Engine::sglang) && model.mla && model.mla->index_head_dim > 0) {
    constexpr std::uint64_t kScaleBlock = 128;
    constexpr std::uint64_t kScaleBytes = 4;
    constexpr std::uint64_t kRopeBytes = 2;
    const MlaSpec& a = *model.mla;
    model.mla->fp8_record_bytes = a.kv_lora_rank + (a.kv_lora_rank + kScaleBlock - 1) / kScaleBlock * kScaleBytes +
                                  a.qk_rope_head_dim * kRopeBytes;
    changed = true;
  }
  return changed;
}

DType engine_default_kv_dtype(const ModelSpec& model, const WeightFormats& served, const GpuSpec& gpu, Engine engine) {
  if (engine == Engine::trtllm && model.checkpoint_kv_dtype) {
    return *model.checkpoint_kv_dtype;
  }
  // SGLang's NSA backend (DeepSeek-V3.2's sparse attention) defaults its cache to fp8_e4m3 on B200
  // and bf16 on H200 ("B200: ... flashmla_kv decode attention, fp8_e4m3 kv cache dtype",
  // sgl-project/sglang docs/basic_usage/deepseek_v32.md @01253e4e). PR #11309's 8 x B200 log, run
  // without --kv-cache-dtype, holds 656 bytes a layer-token: FlashMLA's fp8 record.
  if (engine == Engine::sglang && model.mla && model.mla->index_head_dim > 0 &&
      nvidia_arch(gpu) == NvidiaArch::blackwell_datacenter) {
    return DType::fp8;
  }
  return default_kv_dtype(served, gpu);
}

std::optional<std::string> default_max_model_len_line(const EngineMemory& e, std::uint64_t context_tokens) {
  if (e.sglang_default_context > 0) {
    return fmt::format("SGLang starts only with --context-length <= {}{}: without it, it takes the model's {} tokens "
                       "and stops out of memory at start allocating its request-to-token table, {:.2f} GiB, where "
                       "{:.2f} GiB is left for it outside mem_fraction_static (sglang issue #5755)",
                       detail::group_digits(e.sglang_context_that_starts),
                       e.sglang_requests_that_start > 0
                           ? fmt::format(" (or, at the model's length, --max-running-requests <= {})",
                                         e.sglang_requests_that_start)
                           : std::string(),
                       detail::group_digits(e.sglang_default_context), e.sglang_default_table_bytes / units::kGiB,
                       std::max(e.outside_free_bytes - (e.outside_need_bytes - e.req_to_token_bytes), 0.0) / units::kGiB);
  }
  if (e.default_max_model_len == 0) {
    return std::nullopt;
  }
  if (e.asked_max_model_len_kv_bytes > 0) {
    // The length asked for is refused too: name it first, not only the model's default.
    return fmt::format("vLLM does not start with --max-model-len {} (one request of it needs {:.2f} GiB of KV cache, "
                       "{:.2f} GiB available); the longest that starts is {}; its default, the model's {} tokens, needs "
                       "{:.2f} GiB",
                       detail::group_digits(context_tokens), e.asked_max_model_len_kv_bytes / units::kGiB,
                       e.kv_bytes / units::kGiB, detail::group_digits(e.max_model_len_that_fits),
                       detail::group_digits(e.default_max_model_len), e.default_max_model_len_kv_bytes / units::kGiB);
  }
  return fmt::format("vLLM starts only with --max-model-len <= {} (its default, the model's {} tokens, needs {:.2f} "
                     "GiB of KV cache for one request, {:.2f} GiB available)",
                     detail::group_digits(e.max_model_len_that_fits), detail::group_digits(e.default_max_model_len),
                     e.default_max_model_len_kv_bytes / units::kGiB, e.kv_bytes / units::kGiB);
}

std::optional<std::string> engine_kv_refusal(const ModelSpec& model, Engine engine, DType kv) {
  // vLLM's and SGLang's --kv-cache-dtype take no int8: vLLM's CacheDType is auto, bfloat16 and the
  // fp8 formats (fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla; vllm/config/cache.py, and its docs'
  // "Quantized KV Cache" page is FP8 only), SGLang's choices auto, fp8_e5m2, fp8_e4m3 (later bf16,
  // bfloat16, fp4_e2m1; python/sglang/srt/server_args.py add_cli_args). One vLLM tree in the code
  // index lists an "experimental" int8, not pinned to a release: until one is, gpuplan would size
  // an int8 cache and launch a 16-bit one ("auto"), 24 % more capacity than the server has (helper
  // s56 tasks F2).
  if (engine == Engine::vllm && kv == DType::int8) {
    return std::string("vLLM's --kv-cache-dtype takes auto (the model's 16-bit type), bfloat16 or fp8 (fp8_e4m3, "
                       "fp8_e5m2), not int8: use --kv-dtype fp8 or bf16");
  }
  if (engine == Engine::sglang && kv == DType::int8) {
    return std::string("SGLang's --kv-cache-dtype takes auto (the model's 16-bit type), bf16, fp8_e4m3 or fp8_e5m2 "
                       "(fp4_e2m1 on recent releases), not int8: use --kv-dtype fp8 or bf16");
  }
  if (engine != Engine::trtllm) {
    return std::nullopt;
  }
  if (model.checkpoint_kv_dtype && kv != *model.checkpoint_kv_dtype) {
    return fmt::format("TensorRT-LLM does not override a checkpoint's calibrated {} KV cache (its quantization "
                       "config) with {}",
                       to_string(*model.checkpoint_kv_dtype), to_string(kv));
  }
  if ((kv == DType::int8 || kv == DType::fp32) && !model.checkpoint_kv_dtype) {
    return fmt::format("TensorRT-LLM's PyTorch backend sets its KV cache to auto (16-bit, or the checkpoint's), "
                       "fp8 or nvfp4, not {}",
                       to_string(kv));
  }
  return std::nullopt;
}

Engine parse_engine(std::string_view name) {
  const std::string lower = detail::lower(name);
  if (lower == "vllm") {
    return Engine::vllm;
  }
  if (lower == "sglang") {
    return Engine::sglang;
  }
  if (lower == "trtllm" || lower == "trt-llm" || lower == "tensorrt-llm" || lower == "tensorrt_llm") {
    return Engine::trtllm;
  }
  const std::vector<std::string> known = {"vllm", "sglang", "trtllm"};
  const auto close = closest_names(name, known);
  throw InputError(fmt::format("engine.name: unknown engine '{}'{} (known: {})", name,
                               close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")),
                               fmt::join(known, ", ")));
}

std::string engine_release_label(const EngineSettings& s) {
  switch (s.engine) {
    case Engine::vllm:
      return s.vllm_minor_version ? fmt::format("vLLM 0.{}{}", *s.vllm_minor_version,
                                                s.vllm_patch_version ? fmt::format(".{}", *s.vllm_patch_version) : "")
                                  : "vLLM (current)";
    case Engine::sglang:
      return s.sglang_version ? fmt::format("SGLang 0.{}.{}", *s.sglang_version / 100, *s.sglang_version % 100)
                              : "SGLang (current)";
    case Engine::trtllm:
      return s.trtllm_version ? fmt::format("TensorRT-LLM {}.{}", *s.trtllm_version / 100, *s.trtllm_version % 100)
                              : "TensorRT-LLM (current)";
    case Engine::neutral: break;
  }
  return "engine-neutral";
}

std::string engine_step_line(const EngineMemory& e, const EngineSettings& s, std::uint64_t pp) {
  const std::string release = engine_release_label(s);
  const std::string step_from = s.max_num_batched_tokens ? std::string("--prefill-chunk")
                                                          : fmt::format("{}'s default for this GPU and context", release);
  const std::string seqs_from =
      s.max_num_seqs ? std::string("--max-num-seqs") : fmt::format("{}'s default", release);
  const std::string in_flight = pp > 1 ? fmt::format(", {} in flight over PP {}", e.max_seqs * pp, pp) : "";
  switch (e.engine) {
    case Engine::vllm:
      return fmt::format("engine step: prefill in steps of max_num_batched_tokens {} tokens ({}); batch cap "
                         "max_num_seqs {} ({}){}",
                         e.batched_tokens, step_from, e.max_seqs, seqs_from, in_flight);
    case Engine::sglang:
      // max_running_requests: derived from the KV pool without the flag (sglang_default_running_requests).
      return e.req_to_token_requests > 0
                 ? fmt::format("engine step: prefill in chunks of chunked_prefill_size {} tokens ({}); cuda_graph_max_bs {} "
                               "({}) sizes its CUDA graphs only, the batch is capped by memory and by "
                               "max_running_requests {} (SGLang's default from its KV pool and --context-length {}; "
                               "without the flag it divides by the model's own length, which gives fewer, down to 2048)",
                               e.batched_tokens, step_from, e.max_seqs, seqs_from, e.req_to_token_requests,
                               e.req_to_token_context)
                 : fmt::format("engine step: prefill in chunks of chunked_prefill_size {} tokens ({}); cuda_graph_max_bs {} "
                               "({}) sizes its CUDA graphs only, the batch is capped by memory",
                               e.batched_tokens, step_from, e.max_seqs, seqs_from);
    case Engine::trtllm:
      return fmt::format("engine step: max_num_tokens {} tokens ({}), chunked prefill {}; batch cap max_batch_size {} "
                         "({}){}",
                         e.batched_tokens, step_from,
                         e.trtllm_chunked_prefill ? (s.trtllm_chunked_prefill ? "on (--enable-chunked-prefill)" : "on")
                                                  : "off (trtllm-serve's default: longer prompts are refused)",
                         e.max_seqs, seqs_from, in_flight);
    case Engine::neutral: break;
  }
  return "";
}

void validate_engine_settings(const EngineSettings& s) {
  check_share("gpu_memory_utilization", s.gpu_memory_utilization, Engine::vllm, s.engine);
  check_share("mem_fraction_static", s.mem_fraction_static, Engine::sglang, s.engine);
  check_share("kv_cache_free_gpu_mem_fraction", s.kv_cache_free_gpu_mem_fraction, Engine::trtllm, s.engine);
  const auto tokens_check = [&](std::string_view field, const std::optional<std::uint64_t>& v,
                                std::uint64_t max) {
    if (!v) {
      return;
    }
    if (s.engine == Engine::neutral) {
      throw InputError(fmt::format("engine.{}: is an engine setting; name the engine (--engine)", field));
    }
    if (*v < 1 || *v > max) {
      throw InputError(fmt::format("engine.{}: expected between 1 and {}, got {}", field, max, *v));
    }
  };
  tokens_check("max_num_batched_tokens", s.max_num_batched_tokens, 1u << 24);
  tokens_check("max_num_seqs", s.max_num_seqs, 1u << 20);
  if (s.vllm_minor_version) {
    if (s.engine != Engine::vllm) {
      throw InputError("engine.vllm_version: is a vllm setting; use it with --engine vllm");
    }
    if (*s.vllm_minor_version < 0 || *s.vllm_minor_version > 999) {
      throw InputError(fmt::format("engine.vllm_version: expected 0.N with N between 0 and 999, got 0.{}",
                                   *s.vllm_minor_version));
    }
  }
  if (s.eager && s.engine != Engine::vllm && s.engine != Engine::sglang) {
    throw InputError("engine.eager: is vLLM's --enforce-eager or SGLang's --disable-cuda-graph; use it with --engine "
                     "vllm or sglang");
  }
  if (s.vllm_sampler && s.engine != Engine::vllm) {
    throw InputError("engine.vllm_sampler: is a vllm setting; use it with --engine vllm");
  }
  if (s.trtllm_version) {
    if (s.engine != Engine::trtllm) {
      throw InputError("engine.trtllm_version: is a trtllm setting; use it with --engine trtllm");
    }
    if (*s.trtllm_version < 0 || *s.trtllm_version > 9999) {
      throw InputError(fmt::format("engine.trtllm_version: expected major x 100 + minor between 0 and 9999, got {}",
                                   *s.trtllm_version));
    }
  }
  if (s.trtllm_backend) {
    if (s.engine != Engine::trtllm) {
      throw InputError("engine.trtllm_backend: is a trtllm setting; use it with --engine trtllm");
    }
    if (*s.trtllm_backend == TrtllmBackend::pytorch && s.trtllm_version && *s.trtllm_version < kTrtllmPytorchBackendFrom) {
      throw InputError(fmt::format("engine.trtllm_backend: TensorRT-LLM {}.{} has no PyTorch backend (it came in 0.17)",
                                   *s.trtllm_version / 100, *s.trtllm_version % 100));
    }
  }
  if (s.trtllm_chunked_prefill && s.engine != Engine::trtllm) {
    throw InputError("engine.trtllm_chunked_prefill: is a trtllm setting (vLLM and SGLang chunk long prompts by "
                     "default); use it with --engine trtllm");
  }
  if (s.sglang_version) {
    if (s.engine != Engine::sglang) {
      throw InputError("engine.sglang_version: is an sglang setting; use it with --engine sglang");
    }
    if (*s.sglang_version < 0 || *s.sglang_version > 9999) {
      throw InputError(fmt::format("engine.sglang_version: expected minor x 100 + patch between 0 and 9999, got {}",
                                   *s.sglang_version));
    }
  }
}

double forward_activation_bytes(const ModelSpec& m, const Layout& l, std::uint64_t tokens) {
  if (!m.has_architecture()) {
    return 0.0;
  }
  const double tp = d(l.tp);
  double qkv_dim = 0;
  double attn_out = 0;
  if (m.mla) {
    const MlaSpec& a = *m.mla;
    qkv_dim = d(m.num_attention_heads) *
              d(a.qk_nope_head_dim + a.qk_rope_head_dim + a.qk_nope_head_dim + a.v_head_dim) / tp;
    attn_out = d(m.num_attention_heads * a.v_head_dim) / tp;
  } else {
    qkv_dim = d(m.num_attention_heads + 2 * m.num_key_value_heads) * d(m.head_dim) / tp;
    attn_out = d(m.num_attention_heads * m.head_dim) / tp;
  }
  // Dense MLP: gate/up output (2 I) and the activated product (I).
  double mlp = 3.0 * d(m.intermediate_size) / tp;
  if (m.moe) {
    const MoeSpec& e = *m.moe;
    // Fused MoE keeps, per token and chosen expert, the gate/up output, the activated product and
    // the down output before the weighted sum; experts split by EP are not TP-split.
    const double shard = l.ep > 1 ? 1.0 : tp;
    const double routed = d(e.experts_per_token) * (3.0 * d(e.expert_intermediate) / shard + d(m.hidden_size));
    const double shared = d(e.shared_experts) * 3.0 * d(e.expert_intermediate) / tp;
    const double router_logits = d(e.routed_experts) * 2.0;  // fp32 logits, in bf16 units
    const double moe = routed + shared + router_logits;
    mlp = e.first_dense_layers > 0 ? std::max(mlp, moe) : moe;
  }
  // The residual stream and its normed copy stay alive across the layer.
  const double per_token = 2.0 * d(m.hidden_size) + std::max(qkv_dim + attn_out, mlp);
  return d(tokens) * per_token * kActivationBytes;
}

bool vllm_large_gpu_defaults(double total_bytes, std::string_view device_name) {
  return total_bytes >= kVllmLargeGpuBytes && detail::lower(device_name).find("a100") == std::string::npos;
}

namespace {

// V0 left vLLM in 0.11.0: "the V0 engine has been completely removed from vLLM starting with
// version 0.11.0" (huggingface/optimum-neuron PR #1027); its core went in vllm-project/vllm PR
// #25321 (September 2025, after 0.10.2), so 0.10.x still falls back to it (review s62: 0.10.1
// sized Llama 3.2 Vision as V1 and said FITS where 0.9.2 ran out of memory).
constexpr int kVllmV0RemovedMinor = 11;
// V1 runs GPUs before Ampere from 0.10.2: "[V1] Enable V1 for compute capability < 8.0 + FP32"
// (vllm-project/vllm PR #23614) and "Enable V1 FP16 inference on pre-Ampere GPUs" (PR #24022),
// both in the 0.10.2 release notes; an encoder-decoder model kept V0 until its removal.
constexpr int kVllmV1PreAmpereMinor = 10;
constexpr int kVllmV1PreAmperePatch = 2;

bool vllm_v0(std::optional<int> minor_version) { return minor_version && *minor_version < kVllmV1DefaultMinor; }

}  // namespace

namespace {

// vLLM's EngineArgs takes its default max_num_seqs as min(default, max_num_batched_tokens) in V1
// (arg_utils.py _set_default_args, as of 0.9.1); V0 set the default as it stood.
constexpr int kVllmSeqsCapMinor = 9;

// SchedulerConfig refuses a step of fewer tokens than sequences ("max_num_batched_tokens (16) must
// be greater than or equal to max_num_seqs (1024)"), chunked prefill or not: no engine starts.
void vllm_check_step_budget(const EngineSettings& s, EngineMemory& r, std::uint64_t default_max_seqs,
                            std::optional<int> minor_version) {
  if (r.batched_tokens >= r.max_seqs) {
    return;
  }
  if (!s.max_num_seqs && !vllm_v0(minor_version) && minor_version.value_or(kVllmNewestMinor) >= kVllmSeqsCapMinor) {
    r.max_seqs = r.batched_tokens;
    return;
  }
  const std::string release = minor_version ? fmt::format(" in 0.{}", *minor_version) : std::string();
  constexpr std::string_view kRule = "vLLM refuses to start (max_num_batched_tokens must be at least max_num_seqs); "
                                     "raise --max-num-batched-tokens or lower --max-num-seqs";
  if (!s.max_num_batched_tokens) {
    throw InputError(fmt::format("engine.max_num_seqs: {} is above vLLM's default max_num_batched_tokens {} here{}: {}",
                                 r.max_seqs, r.batched_tokens, release, kRule));
  }
  throw InputError(fmt::format("engine.max_num_batched_tokens: {} is below {}: {}", r.batched_tokens,
                               s.max_num_seqs ? fmt::format("--max-num-seqs {}", r.max_seqs)
                                              : fmt::format("vLLM's default max_num_seqs {}{}", default_max_seqs, release),
                               kRule));
}

}  // namespace

VllmStepDefaults vllm_step_defaults(double total_bytes, std::string_view device_name, std::uint64_t context_tokens,
                                    std::optional<int> minor_version, bool unified_memory,
                                    std::optional<int> patch_version, bool v0_unchunked_model) {
  if (vllm_v0(minor_version)) {
    const bool auto_chunked = *minor_version > kVllmV0AutoChunkedMinor ||
                              (*minor_version == kVllmV0AutoChunkedMinor &&
                               patch_version.value_or(0) >= kVllmV0AutoChunkedPatch);
    const bool chunked = auto_chunked && !v0_unchunked_model && context_tokens > kVllmV0ChunkedPrefillAbove;
    const bool chunk_2048 = *minor_version > 6 || (*minor_version == 6 && patch_version.value_or(0) >= kVllmV0Chunked2048Patch);
    const std::uint64_t chunk = chunk_2048 ? kVllmSmallBatchedTokens : kVllmV0ChunkedBatchedTokens;
    return {.max_num_batched_tokens =
                chunked ? chunk : std::max(context_tokens, kVllmSmallBatchedTokens),
            .max_num_seqs = kVllmSmallMaxSeqs};  // V0's default on every GPU
  }
  const bool large = !unified_memory && vllm_large_gpu_defaults(total_bytes, device_name);
  return {.max_num_batched_tokens = large ? kVllmLargeBatchedTokens : kVllmSmallBatchedTokens,
          .max_num_seqs = large ? kVllmLargeMaxSeqs : kVllmSmallMaxSeqs};
}

namespace {

// SGLang's handle_max_mamba_cache (model_runner, 0.5): with the radix cache on, what is left after
// the weights splits into a state pool and a token pool in mamba_full_memory_ratio (0.9 : 1),
// and each running request holds MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO (3) state slots.
// A request's state: the SSM state in fp32 (SGLANG_MAMBA_SSM_DTYPE), the convolution window in
// the model's 16-bit dtype, both split over TP by heads.
void sglang_state_pool(const ModelSpec& m, const Layout& l, const EngineInputs& in, EngineMemory& r) {
  if (!m.linear_attention || in.kv_shape == nullptr || in.kv_shape->linear_layers == 0 || !(r.kv_bytes > 0)) {
    return;
  }
  constexpr double kMambaFullMemoryRatio = 0.9;
  constexpr std::uint64_t kSlotsPerRunningRequest = 3;
  constexpr double kSsmStateBytes = 4.0;
  const LinearAttentionSpec& state = *m.linear_attention;
  const double layers = d(in.kv_shape->linear_layers);
  r.state_slot_bytes = (state.ssm_state_elements() * kSsmStateBytes + state.conv_state_bytes()) * layers / d(l.tp);
  const double pool = r.kv_bytes * kMambaFullMemoryRatio / (1.0 + kMambaFullMemoryRatio);
  r.state_slots = static_cast<std::uint64_t>(std::floor(pool / r.state_slot_bytes));
  r.state_pool_bytes = d(r.state_slots) * r.state_slot_bytes;
  r.state_conv_bytes = d(r.state_slots) * state.conv_state_bytes() * layers / d(l.tp);
  r.state_requests = r.state_slots / kSlotsPerRunningRequest;
  r.kv_bytes -= r.state_pool_bytes;
}

// TensorRT-LLM sizes its cache from the memory free after loading the weights (KvCacheCreator:
// total - peak of torch and non-torch, non-torch = total - free - torch) and SGLang from what is
// free after loading. On memory the host shares (GB10) CUDA's free memory is the host's MemFree,
// which the OS page cache lowers: the checkpoint just read stays cached, up to what is left. A
// DGX Spark log of gpt-oss-120b under TensorRT-LLM 1.1.0rc3 counts 49.78 GiB "outside torch" right
// after loading (18.4 GiB of it the OS's, as free-at-boot says) and gets 5.95 GiB of cache, where
// the weights and warm-up leave 51.7 (audit s46, logs row 03); NVIDIA's xr-ai#462 and eugr/spark-
// vllm-docker#286 report the same page-cache share on vLLM's cold starts. The cache there held
// 49.78 - 18.4 = 31.4 GiB of the 63.3 GiB checkpoint: half of it, the share taken here (one log;
// taking the whole checkpoint called that very run, which started, one that does not fit).
constexpr double kUnifiedPageCacheShare = 0.5;

double unified_page_cache_bytes(const EngineInputs& in, double left_bytes) {
  return in.unified_memory ? std::clamp(left_bytes, 0.0, kUnifiedPageCacheShare * in.weights_bytes) : 0.0;
}

// TensorRT-LLM's and SGLang's free memory at start: the total less the CUDA context and their
// other non-torch memory; on unified memory what is free at boot (context up, the OS's share
// taken) less the rest of it. Both measure it (SGLang's get_available_gpu_memory before loading,
// TensorRT-LLM's cudaMemGetInfo after), so what other processes hold comes off too.
double start_free_bytes(const EngineInputs& in, double non_torch_bytes, double in_use_bytes) {
  const double from_total = in.total_bytes - non_torch_bytes;
  // Free memory is never below nothing (fit refuses --memory-in-use at or above the total; what is
  // just below it leaves less than the context and communicators need).
  return std::max(0.0, (in.free_at_start_bytes
                            ? std::min(from_total, *in.free_at_start_bytes - (non_torch_bytes - kCudaContextBytes))
                            : from_total) -
                           in_use_bytes);
}

// vLLM with PP: each worker profiles its own stage and sizes its own cache; the engine keeps the
// smallest block count of them (v1/core/kv_cache_utils.py get_kv_cache_configs). A stage's budget
// counts its own weights (the embedding on the first, the LM head on the last), graphs of its own
// layers, and the sampler's peak on the last stage only: one DeepSeek-V2-Lite log at TP 2 x PP 2
// shows 12.13 GiB on the 14-layer first stage and 11.33 GiB on the last (vllm#20665).
void vllm_pipeline_budget(const ModelSpec& m, const Layout& l, const EngineInputs& in, bool graphs,
                          std::uint64_t busiest_layers, EngineMemory& r) {
  const double sampler_bytes = r.sampler_bytes;
  double fewest_per_layer = 0;
  for (std::size_t i = 0; i < in.pp_stages.size(); ++i) {
    const EngineInputs::PipelineStage& stage = in.pp_stages[i];
    const bool last = i + 1 == in.pp_stages.size();
    const double graph_bytes =
        graphs ? vllm_cuda_graph_bytes(m, l, stage.layers, r.max_seqs, r.batched_tokens) : 0.0;
    // MXFP4 padding scales with the stage's experts, which scale with its layers.
    const double padding = r.weight_padding_bytes * d(stage.layers) / d(std::max<std::uint64_t>(busiest_layers, 1));
    const double kv = r.share * in.total_bytes - stage.weights_bytes - padding -
                      std::max(r.activation_bytes, last ? sampler_bytes : 0.0) - r.non_torch_bytes - graph_bytes;
    r.stage_kv_bytes.push_back(kv);
    if (stage.layers == 0) {
      continue;  // no KV layers: no blocks to count
    }
    const double per_layer = kv / d(stage.layers);
    if (i == 0 || in.pp_stages[r.binding_stage].layers == 0 || per_layer < fewest_per_layer) {
      fewest_per_layer = per_layer;
      r.binding_stage = i;
      r.sampler_bytes = last ? sampler_bytes : 0.0;
      r.cuda_graph_bytes = graph_bytes;
    }
  }
  // Over the busiest stage's layers, which the per-token bytes of the fit count.
  r.kv_bytes = fewest_per_layer * d(busiest_layers);
}

}  // namespace

std::vector<std::uint64_t> vllm_pp_layers(std::uint64_t layers, std::uint64_t pp) {
  std::vector<std::uint64_t> stages(std::max<std::uint64_t>(pp, 1), layers / std::max<std::uint64_t>(pp, 1));
  const std::uint64_t remainder = layers % stages.size();
  for (std::uint64_t i = 2; i < remainder + 2; ++i) {
    stages[stages.size() - i] += 1;
  }
  return stages;
}

namespace {

/// SGLang's default attention backend on AMD is AITER: for MHA/GQA models always, for MLA ones
/// when the KV heads per rank are 16 or 128 ("current aiter only support head number 16 or 128",
/// ServerArgs._get_default_attn_backend, sgl-project/sglang server_args.py @001067ff).
bool sglang_aiter_default(const ModelSpec& m, const Layout& l) {
  if (!m.mla) {
    return true;
  }
  const std::uint64_t heads = std::max<std::uint64_t>(1, m.num_key_value_heads / std::max<std::uint64_t>(1, l.tp));
  return heads == 16 || heads == 128;
}

/// The AITER backend's paged-decode workspace (AiterAttnBackend.__init__, sgl-project/sglang
/// python/sglang/srt/layers/attention/aiter_backend.py @003c5589): for MHA/GQA models without
/// SGLang's sliding-window pool (those run unified attention, which makes none),
///   max_bs x heads per rank x ceil(context_len / 256) x (head_dim x 4 + 2 x 4) bytes,
/// max_bs being the request pool's size: without --max-running-requests,
/// clamp(int(pool tokens / context_len x 512), 2048, 4096), at most pool tokens / 2
/// (ModelRunner resolve_max_num_reqs). It is allocated after the KV pool, from what the pool
/// left: the PR #18263 log shows 51.75 GB for 3261 requests of 32 heads at 262,144 tokens, and a
/// server that stopped with 60.65 GB free after a pool whose workspace needed 4096 requests' worth.
void sglang_aiter_workspace(const ModelSpec& m, const Layout& l, const EngineInputs& in, EngineMemory& r) {
  if (m.mla || !m.layer_window_tokens.empty() || in.context_tokens == 0 || r.kv_tokens == 0) {
    return;
  }
  constexpr std::uint64_t kPartitionTokens = 256;  // _AITER_PARTITION_SIZE_ROCM
  // gpuplan's --max-num-seqs is SGLang's cuda_graph_max_bs, not --max-running-requests: the default.
  const std::uint64_t requests = sglang_default_running_requests(r.kv_tokens, in.context_tokens);
  const std::uint64_t heads = std::max<std::uint64_t>(1, m.num_attention_heads / std::max<std::uint64_t>(1, l.tp));
  const std::uint64_t partitions = (in.context_tokens + kPartitionTokens - 1) / kPartitionTokens;
  r.aiter_workspace_requests = requests;
  r.aiter_workspace_bytes = d(requests) * d(heads) * d(partitions) * (d(m.head_dim) * 4.0 + 8.0);
  r.aiter_free_after_pool_bytes = std::max(0.0, (1.0 - r.share) * r.start_free_bytes);
}

}  // namespace

namespace {

// TensorRT-LLM engines built before max_num_tokens had a default of its own: an engine built with
// remove_input_padding (in-flight batching needs it) and no --max_num_tokens sizes its activations
// for max_batch_size x max_input_len tokens ("If max_num_tokens is not specified, the max number of
// input tokens will be derived as max_batch_size*max_input_len", docs/source/memory.md,
// NVIDIA/TensorRT-LLM @250d9c29). The build defaults were those of examples/<model>/build.py up to
// 0.7 (llama: --max_batch_size 8, --max_input_len 2048, --max_num_tokens None; library file
// 91605123) and of trtllm-build in 0.8-0.10 (tensorrt_llm/commands/build.py: --max_batch_size 1,
// --max_input_len 1024, --max_num_tokens None; library files 5665806461, 5657377103). From 0.11
// trtllm-build takes --max_seq_len in place of max_input_len/max_output_len and BuildConfig's
// max_num_tokens of 8192 (the release is inferred from that change, not pinned by a changelog).
constexpr int kTrtllmMaxNumTokensDefault = 11;
constexpr int kTrtllmBuildCommand = 8;

void trtllm_old_engine_defaults(const EngineSettings& s, std::uint64_t context_tokens, EngineMemory& r) {
  const bool build_py = *s.trtllm_version < kTrtllmBuildCommand;
  r.max_seqs = s.max_num_seqs.value_or(build_py ? 8 : 1);
  if (s.max_num_batched_tokens) {
    return;
  }
  // max_input_len is the build's default, no longer than the sequence (max_input_len +
  // max_output_len) asked for.
  const std::uint64_t default_input = build_py ? 2048 : 1024;
  const std::uint64_t input = context_tokens > 0 ? std::min(context_tokens, default_input) : default_input;
  r.batched_tokens = r.max_seqs * input;
}

}  // namespace

namespace {

// TensorRT-LLM's estimation runs on a temporary KV cache sized for its warm-up: the dummy
// requests of max_num_tokens, and (in the source of 2026) one max_seq_len request beside a
// decode step of the largest CUDA-graph batch, at least max_batch_size blocks, at most
// free_gpu_memory_fraction of what is free ("cuda_graph_warmup_block = max_seq_len_blocks +
// max_cuda_graph_bs - 1", KvCacheCreator._get_token_num_for_estimation,
// tensorrt_llm/_torch/pyexecutor/_util.py, NVIDIA/TensorRT-LLM @0004396720054fd8e205cbf616f21f0b57c6b412).
// The profiling forward and the graphs must fit beside it: NVIDIA/TensorRT-LLM PR #17470 (2026)
// found gpt-oss-120b on one H100 at max_batch_size 720 and a 131K max_seq_len running out of memory
// there ("temporary KV-cache estimation and executor resources exhausted H100 memory"), and started
// at 512 and 12,416. 1.1.0rc3 sized that cache for max_num_tokens only ("max_tokens ... 8224" in
// the DGX Spark log, library file 2263047771): from 1.2, the first release not pinned. A warning,
// not the verdict: the release is not pinned, and this arithmetic does not reproduce PR #17470's
// failure (it leaves 5.7 GiB there for 2.2 needed), so how much the warm-up needs is not checked.
constexpr int kTrtllmSeqLenEstimation = 102;

void trtllm_estimation_cache(const EngineInputs& in, const EngineSettings& s, EngineMemory& r) {
  if ((s.trtllm_version && *s.trtllm_version < kTrtllmSeqLenEstimation) || in.context_tokens == 0 ||
      in.kv_bytes_per_token_per_gpu <= 0.0 || r.block_tokens == 0) {
    return;
  }
  constexpr std::uint64_t kGraphMaxBatch = 128;  // CudaGraphConfig's default (trtllm_cuda_graph_bytes)
  const std::uint64_t block = r.block_tokens;
  const auto blocks_of = [block](std::uint64_t tokens) { return (tokens + block - 1) / block; };
  const std::uint64_t graph_bs = std::min(std::max<std::uint64_t>(r.max_seqs, 1), kGraphMaxBatch);
  // The dummy requests hold max_num_tokens, each with a generated token (and the overlap
  // scheduler's one more).
  const std::uint64_t blocks = std::max({blocks_of(r.batched_tokens + 2), blocks_of(in.context_tokens + 1) + graph_bs - 1,
                                         r.max_seqs});
  // Its cap is a share of what CUDA reports free; on memory the host shares the page cache is out
  // of that figure, but the kernel gives it back to the allocations that follow.
  const double free_bytes = r.start_free_bytes - r.weights_bytes;
  if (free_bytes - r.page_cache_bytes <= 0.0) {
    return;  // the weights alone do not fit: that is the verdict
  }
  r.trtllm_estimation_cache_bytes = std::min(d(blocks * block) * in.kv_bytes_per_token_per_gpu,
                                             std::max(0.0, r.share * (free_bytes - r.page_cache_bytes)));
  r.trtllm_estimation_need_bytes = r.activation_bytes + r.cuda_graph_bytes;
  r.trtllm_estimation_left_bytes = free_bytes - r.trtllm_estimation_cache_bytes;
}

}  // namespace

BlockFp8Linears trtllm_resmooth_inputs(const ModelSpec& m, const Layout& l, const WeightFormats& formats,
                                       const std::array<double, kWeightParts>& weight_parts) {
  const auto block_fp8 = [&formats](WeightPart p) {
    const WeightFormat& f = formats[p];
    return f.element == DType::fp8 && f.scheme == ScaleScheme::per_block;
  };
  BlockFp8Linears out;
  const double tp = d(std::max<std::uint64_t>(l.tp, 1));
  const double hidden = d(m.hidden_size);
  double largest = 0.0;
  if (block_fp8(WeightPart::attention)) {
    out.bytes += weight_parts[static_cast<std::size_t>(WeightPart::attention)];
    if (m.mla) {
      const MlaSpec& a = *m.mla;
      const double heads = d(m.num_attention_heads) / tp;
      const double q_in = a.q_lora_rank > 0 ? d(a.q_lora_rank) : hidden;
      largest = std::max({heads * d(a.qk_nope_head_dim + a.qk_rope_head_dim) * q_in,
                          heads * d(a.qk_nope_head_dim + a.v_head_dim) * d(a.kv_lora_rank),
                          hidden * heads * d(a.v_head_dim)});
    } else {
      // TensorRT-LLM fuses q, k and v into one linear (WeightMode.FUSED_QKV_LINEAR).
      const double kv_heads = std::max(1.0, d(m.num_key_value_heads) / tp);
      largest = std::max((d(m.num_attention_heads) / tp + 2.0 * kv_heads) * d(m.head_dim) * hidden,
                         hidden * d(m.num_attention_heads) / tp * d(m.head_dim));
    }
  }
  if (block_fp8(WeightPart::dense_mlp) && weight_parts[static_cast<std::size_t>(WeightPart::dense_mlp)] > 0.0) {
    out.bytes += weight_parts[static_cast<std::size_t>(WeightPart::dense_mlp)];
    largest = std::max(largest, 2.0 * d(m.intermediate_size) / tp * hidden);  // fused gate and up
  }
  if (m.moe && block_fp8(WeightPart::shared_experts) &&
      weight_parts[static_cast<std::size_t>(WeightPart::shared_experts)] > 0.0) {
    out.bytes += weight_parts[static_cast<std::size_t>(WeightPart::shared_experts)];
    const double width = d(m.moe->shared_expert_intermediate > 0 ? m.moe->shared_expert_intermediate
                                                                 : m.moe->shared_experts * m.moe->expert_intermediate);
    largest = std::max(largest, 2.0 * width / tp * hidden);
  }
  if (m.moe && block_fp8(WeightPart::routed_experts)) {
    // Routed experts are resmoothed one checkpoint tensor (one expert's projection) at a time as
    // they load; they are not held twice.
    const double shard = l.ep > 1 ? 1.0 : tp;
    largest = std::max(largest, d(m.moe->expert_intermediate) / shard * hidden);
  }
  out.largest_elements = largest;
  return out;
}

std::uint64_t sglang_default_running_requests(std::uint64_t pool_tokens, std::uint64_t context_len) {
  const std::uint64_t estimated = std::clamp<std::uint64_t>(
      static_cast<std::uint64_t>(d(pool_tokens) / d(std::max<std::uint64_t>(context_len, 1)) * 512.0), 2048, 4096);
  return std::min(estimated, std::max<std::uint64_t>(1, pool_tokens / 2));
}

// SGLang's ReqToTokenPool holds one int32 slot index per request row and context position:
// ModelRunner.init_memory_pool builds it after the KV pool as ReqToTokenPool(size=max_num_reqs + 1,
// max_context_len=context_len + 4), a torch.zeros((size, max_context_len), dtype=torch.int32)
// (sgl-project/sglang python/sglang/srt/model_executor/model_runner.py and mem_cache/memory_pool.py,
// 0.4.x; later releases pass max_num_reqs and add the padding row inside the pool). It comes from
// the (1 - mem_fraction_static) the pool leaves: sglang#5755 (Llama-4-Scout, TP 8 on H100, no
// --context-length, so 10,485,760) stopped with "Tried to allocate 80.04 GiB", 2049 x 10,485,764 x 4
// bytes. sglang#6817 (0.4.6.post5, --context-length 1000000 on 8 x H200) hit the same; PR #6744,
// which proposed sizing it by the pool, was closed unmerged, and the code of 2026 still builds it so.
double sglang_req_to_token_bytes(std::uint64_t requests, std::uint64_t context_len) {
  return d(requests + 1) * d(context_len + 4) * 4.0;
}

namespace {

// TensorRT-LLM's PyTorch backend rescales 128 x 128 block-FP8 weights to power-of-two (E8M0) scales
// for DeepGEMM on Blackwell: FP8BlockScalesLinearMethod.post_load_weights calls
// resmooth_to_fp8_e8m0 on each linear "if is_sm_100f() ... or get_sm_version() == 120"
// (tensorrt_llm/_torch/modules/linear.py, NVIDIA/TensorRT-LLM @00bbf71e796406ea8593a77cbfb828356182db16;
// GB10 is SM 12.1 and does not). Until PR #10327 ("impl fused triton kernel for e8m0 resmooth to
// reduce memory footprint", merged 2026-01-16; the first release with it taken as 1.3) that
// function built fp32 copies per tensor (quantization/utils/fp8_utils.py): weight.float(), the
// scales expanded to every element, their product, the padded copy, its abs and its rescaled copy,
// at most three alive at once beside the product and the new FP8 tensor: 13 bytes an element of the
// tensor. TensorRT-LLM 1.2.0rc7 on an RTX 5080 (15.44 GiB, 2.1 GiB of it a desktop's) loaded
// Qwen3-8B-FP8 ("8.79 GB for model weights", 12.78 GiB free before) and ran out of memory in the
// resmoothing, a 384 MiB allocation (one fp32 copy of the fused gate-up) with 365 MiB free, with
// expandable segments too (helper s58 logs, library file 59573137469): 3.6 GiB more than the
// weights, where one tensor's copies are 1.2. The replaced FP8 weights are taken as held until
// the load ends (INFERRED from that log: about half of Qwen3-8B's 6.5 GiB of linears when it
// stopped; fragmentation would not survive expandable segments).
constexpr int kTrtllmInPlaceResmooth = 103;
constexpr double kResmoothBytesPerElement = 13.0;

void trtllm_resmooth(const EngineInputs& in, const EngineSettings& s, EngineMemory& r) {
  if (in.block_fp8_linear_bytes <= 0.0 || in.block_fp8_largest_elements <= 0.0 ||
      s.trtllm_version.value_or(kTrtllmInPlaceResmooth) >= kTrtllmInPlaceResmooth) {
    return;
  }
  const bool sm100 = in.nvidia_arch == NvidiaArch::blackwell_datacenter;
  const bool sm120 = in.nvidia_arch == NvidiaArch::blackwell_other && !in.unified_memory;  // not GB10's SM 12.1
  const double free_bytes = r.start_free_bytes - r.weights_bytes;
  if ((!sm100 && !sm120) || free_bytes <= 0.0) {
    return;  // no resmoothing, or the weights alone do not fit: that is the verdict
  }
  r.trtllm_resmooth_transient_bytes = kResmoothBytesPerElement * in.block_fp8_largest_elements;
  r.trtllm_resmooth_peak_bytes = in.block_fp8_linear_bytes + r.trtllm_resmooth_transient_bytes;
  r.trtllm_resmooth_free_bytes = free_bytes;
}

}  // namespace

EngineMemory engine_memory(const ModelSpec& m, const Layout& l, const EngineInputs& in,
                           const EngineSettings& s) {
  validate_engine_settings(s);
  if (s.engine == Engine::neutral) {
    throw InputError("engine.name: no engine named");
  }
  if (!(in.total_bytes > 0.0) || !std::isfinite(in.total_bytes) || !(in.weights_bytes >= 0.0) ||
      !std::isfinite(in.weights_bytes)) {
    throw InputError(fmt::format("engine.inputs: GPU total {} and weights {} bytes must be finite and positive",
                                 in.total_bytes, in.weights_bytes));
  }
  EngineMemory r;
  r.engine = s.engine;
  r.share_name = share_name(s.engine);
  r.total_bytes = in.total_bytes;
  r.weights_bytes = in.weights_bytes;
  r.block_tokens = in.block_tokens;
  const bool multi_gpu = l.tp * l.pp > 1 || l.ep > 1;
  const double communicators = multi_gpu ? kCommunicatorBytes : 0.0;

  switch (s.engine) {
    case Engine::vllm: {
      // What V1 does not run falls back to V0: an encoder-decoder model until V0's removal (0.11),
      // a GPU before Ampere until 0.10.2. A release before 0.8 is V0 already and keeps its own
      // defaults (0.5.2's unchunked step, 0.6.4's 512 tokens).
      const bool v0_until_removal = !m.layer_is_cross_attention.empty();
      const bool v1_runs_it =
          s.vllm_minor_version &&
          (v0_until_removal ? *s.vllm_minor_version >= kVllmV0RemovedMinor
                            : *s.vllm_minor_version > kVllmV1PreAmpereMinor ||
                                  (*s.vllm_minor_version == kVllmV1PreAmpereMinor &&
                                   s.vllm_patch_version.value_or(0) >= kVllmV1PreAmperePatch));
      const bool v0_fallback = in.v1_unsupported && s.vllm_minor_version &&
                               *s.vllm_minor_version >= kVllmV1DefaultMinor && !v1_runs_it;
      const std::optional<int> v0_minor = v0_fallback ? std::optional<int>(kVllmV1DefaultMinor - 1) : s.vllm_minor_version;
      // V0 turns chunked prefill on above 32K only where the model allows it: not with a sliding
      // window (`not use_sliding_window`, vllm PR #6666's rule, in vllm/engine/arg_utils.py
      // _set_default_args_v0 as late as 0.10) nor an MLA cache (0.7.1-0.7.3 VllmConfig: "MLA is
      // enabled; forcing chunked prefill and prefix caching to be disabled", vllm PR #13374's log;
      // arg_utils: "Chunked prefill not supported for Multimodal or MLA in V0"). Llama 4's
      // attention chunks are no sliding window (get_sliding_window() is None).
      // From 0.6.5 vLLM deletes sliding_window where windows interleave with full layers (Gemma 2
      // and 3, Cohere2; vllm PR #10584): those models chunk like any other.
      bool sliding = false;
      bool full_layer = false;
      for (std::size_t i = 0; i < m.layer_window_tokens.size(); ++i) {
        sliding = sliding || (m.layer_window_tokens[i] > 0 && !(i < m.layer_is_chunked.size() && m.layer_is_chunked[i]));
        full_layer = full_layer || m.layer_window_tokens[i] == 0;
      }
      const int release_minor = v0_minor.value_or(kVllmV1DefaultMinor - 1);
      if (full_layer && (release_minor > 6 || (release_minor == 6 && s.vllm_patch_version.value_or(0) >= 5))) {
        sliding = false;
      }
      // "Chunked prefill not supported for Multimodal or MLA in V0" (arg_utils, from 0.7): a model
      // with a vision tower profiles the whole length whatever its windows (Gemma 3 on Turing).
      sliding = sliding || (m.vision.has_value() && release_minor >= 7);
      const VllmStepDefaults step = vllm_step_defaults(in.total_bytes, in.device_name, in.context_tokens, v0_minor,
                                                             in.unified_memory, s.vllm_patch_version,
                                                             sliding || m.caches_latent());
      r.vllm_v0 = vllm_v0(v0_minor);
      const int minor = s.vllm_minor_version.value_or(kVllmGraphProfilingMinor);
      // 0.92 from the release that profiles CUDA graphs into the budget (config/cache.py
      // `Field(default=0.92, gt=0, le=1)`, PR #38284), 0.9 before.
      r.share = s.gpu_memory_utilization.value_or(minor >= kVllmGraphProfilingMinor ? 0.92 : 0.9);
      r.share_default = !s.gpu_memory_utilization;
      r.batched_tokens = s.max_num_batched_tokens.value_or(step.max_num_batched_tokens);
      r.max_seqs = s.max_num_seqs.value_or(step.max_num_seqs);
      vllm_check_step_budget(s, r, step.max_num_seqs, v0_minor);
      r.activation_bytes = forward_activation_bytes(m, l, r.batched_tokens);
      if (r.vllm_v0) {  // the tiled vision encoder's profiling run (mllama); 0 for other models
        r.activation_bytes = std::max(r.activation_bytes, detail::vllm_v0_tiled_encoder_profile_bytes(m, l, r.max_seqs));
      }
      // The sampler's profiling run samples min(max_num_seqs, max_num_batched_tokens) rows of
      // the full vocabulary on every rank (logits are gathered before sampling).
      const std::uint64_t rows = std::min(r.max_seqs, r.batched_tokens);
      r.sampler = s.vllm_sampler.value_or(in.flashinfer_sampler ? VllmSampler::flashinfer : VllmSampler::native);
      const double per_logit = r.vllm_v0                            ? kV0SamplerBytesPerLogit
                               : minor < kVllmLeanSamplerMinor        ? kSamplerBytesPerLogit
                               : r.sampler == VllmSampler::native ? kNativeSamplerBytesPerLogitV19
                                                                  : kSamplerBytesPerLogitV19;
      r.sampler_bytes = d(rows) * d(m.vocab_size) * per_logit;
      // The native figure is one 0.26 log's; from v0.16.1 the native path masks top-k/top-p with a
      // Triton kernel for 8 rows or more instead of sorting the vocabulary (vllm PR #33538,
      // vllm/v1/sample/ops/topk_topp_triton.py: "does not use extra memory"), so its peak may be as
      // low as FlashInfer's: a Qwen3-Coder-Next log on 4 x L40S (0.24, native) had 134 state blocks
      // where 28.7 B a logit gives 103 and 16 gives 140. Where that decides a count, fit gives both.
      r.sampler_bytes_low = !r.vllm_v0 && minor >= kVllmLeanSamplerMinor && r.sampler == VllmSampler::native
                                ? d(rows) * d(m.vocab_size) * kSamplerBytesPerLogitV19
                                : r.sampler_bytes;
      // Over PCIe NCCL alone stays, about the workspace: 0.21 GiB of non-torch memory at TP 8 on
      // L40S (vLLM 0.10.2, custom all-reduce off beyond two PCIe GPUs), 0.25 GiB at TP 2 on two RTX
      // 4090s without peer access (vllm#13061, 0.7.2). Across nodes too: 0.28 GiB at TP 2 over two
      // A100 nodes (vLLM 0.10.1, dennislee22/vLLM-benchmarking), against 2.1 on one node.
      // Two PCIe GPUs with peer access keep custom all-reduce, but its IPC buffers are small: the
      // 2.1 GiB is NVLink's (NCCL's NVLS buffers, the symmetric-memory all-reduce). Logged over PCIe
      // at TP 2: two RTX PRO 6000 Blackwell with P2P leave 1.66 GiB for activation, non-torch and
      // graphs together (vLLM 0.27.1), two L4s about 0.14 GiB beside the weights and cache, two
      // A100 PCIe without P2P 0.68 (activation included).
      const bool nccl_only = in.tp_across_nodes || in.tp_outside_nvlink;
      // The all-reduce buffers are the TP (or EP) group's: pipeline stages alone only send and
      // receive (0.07 GiB of non-torch memory at PP 2 against 2.10 at TP 2, llm-d-planner's
      // v0.19 report).
      const bool all_reduce_group = l.tp > 1 || l.ep > 1;
      r.non_torch_bytes = kWorkspaceBytes + (all_reduce_group && !nccl_only ? kVllmCommunicatorBytes : 0.0);
      r.mxfp4_backend = vllm_mxfp4_backend(in.nvidia_arch, s.vllm_minor_version, in.triton_kernels);
      r.weight_padding_bytes = vllm_mxfp4_padding_bytes(m, l, in.mxfp4_expert_bytes, r.mxfp4_backend);
      r.weights_bytes += r.weight_padding_bytes;
      const bool graph_profiling = minor >= kVllmGraphProfilingMinor;
      const bool graphs = graph_profiling && !s.eager;
      r.eager = s.eager;
      const std::uint64_t busiest_layers = (m.num_hidden_layers + l.pp - 1) / l.pp;
      if (graphs) {
        r.cuda_graph_bytes = vllm_cuda_graph_bytes(m, l, busiest_layers, r.max_seqs, r.batched_tokens);
      }
      r.start_free_bytes = in.total_bytes;
      // V1 takes a snapshot once NCCL is up and refuses to start when less than its share of the
      // total is free ("Free memory on device ... on startup is less than desired GPU memory
      // utilization", v1/worker/gpu_worker.py init_device); its budget then counts only its own
      // usage against that share, so memory held by others changes nothing else. V0 measures its
      // peak from a snapshot at init as well, and runs out of memory allocating the cache instead.
      if (s.memory_in_use_bytes > 0) {
        const double free_at_check = in.total_bytes - s.memory_in_use_bytes - kCudaContextBytes;
        if (free_at_check < r.share * in.total_bytes) {
          r.in_use_blocks_start = true;
          r.in_use_start_free_bytes = std::max(free_at_check, 0.0);
        }
      }
      // Before 0.21 the graphs are captured after the cache is allocated, from what is left above
      // the share: the CUDA context (outside vLLM's start snapshot) and other processes' memory
      // sit there too ("If out-of-memory error occurs during cudagraph capture, consider
      // decreasing `gpu_memory_utilization` or switching to eager mode", model_runner.py; vllm#15598
      // at 0.98 and vllm#7593 ran out there). With --enforce-eager nothing is captured, but an eager
      // start still needs kVllmEagerOutsideBytes there.
      if (!graph_profiling) {
        double need = vllm_cuda_graph_bytes(m, l, busiest_layers, r.max_seqs, r.batched_tokens);
        // The NCCL share is known from two logs only, 1.70 GiB short and 1.86 enough, at TP 8 and 4
        // of 42- and 60-layer models, and PR #2192 measured 0.6-1.0 GB at TP 2-4: too loose to fail
        // every V0 deployment with that much left (each 2 x L4 at the defaults); a warning says it.
        // Two PCIe GPUs keep the custom all-reduce (NCCL stays out of the graphs) where P2P works.
        if (r.vllm_v0 && all_reduce_group && (in.tp_across_nodes || (in.tp_outside_nvlink && l.tp > 2))) {
          // The verdict takes the least NCCL's buffers were measured to add (vllm#15598 had 0.39 GiB).
          need += kVllmV0NcclGraphMinBytes;
          r.outside_nccl_graphs = !s.eager;
          r.outside_nccl_graph_bytes = s.eager ? 0.0 : kVllmV0NcclGraphBytes;
        }
        // Eager needs no more than the graphs would (a lone GPU's graphs are small, and so is what an
        // eager start first touches there).
        r.eager_outside_need_bytes = std::min(kVllmEagerOutsideBytes, need);
        r.outside_need_bytes = s.eager ? r.eager_outside_need_bytes : need;
        r.outside_free_bytes = (1.0 - r.share) * in.total_bytes - kCudaContextBytes - s.memory_in_use_bytes;
      }
      // V0 holds a Mamba / linear-attention model's state in a cache of its own, allocated by the
      // model's first forward (the profiling run), so it sits in the torch peak and comes off the KV
      // cache: "max_batch_size = vllm_config.scheduler_config.max_num_seqs; if not
      // vllm_config.model_config.enforce_eager: max_batch_size = vllm_config.pad_for_cudagraph(
      // max_batch_size)", then conv and temporal state tensors of (num_mamba_layers, max_batch_size)
      // + their shapes (MambaCacheManager, vllm/model_executor/models/mamba_cache.py, 0.8-0.10,
      // code-search file id 59388229; ConvCacheManager and the MiniMax cache alike). vllm#23230
      // (0.10.1, Nemotron-Nano-9B-v2 on an L40S): "CUDA out of memory. Tried to allocate 33.75
      // GiB" right after 16.56 GiB of weights = 256 sequences x 27 Mamba layers x 5 MiB of fp32
      // SSM state. V1 keeps the state in its KV blocks instead (kv_cache.cpp).
      if (r.vllm_v0 && in.kv_shape != nullptr && in.kv_shape->state_bytes_per_sequence > 0) {
        // V0's capture sizes: 1, 2, 4 and every 8 beyond (pad_for_cudagraph rounds up to one).
        const std::uint64_t seqs = std::max<std::uint64_t>(r.max_seqs, 1);
        r.v0_state_slots = s.eager || seqs <= 2 ? seqs : seqs <= 4 ? 4 : (seqs + 7) / 8 * 8;
        r.v0_state_cache_bytes = d(r.v0_state_slots) * in.kv_shape->state_bytes_per_sequence;
      }
      // Forward and sampler runs follow each other: the torch peak is the larger of the two.
      r.kv_bytes = r.share * in.total_bytes - r.weights_bytes - r.v0_state_cache_bytes -
                   std::max(r.activation_bytes, r.sampler_bytes) - r.non_torch_bytes - r.cuda_graph_bytes;
      if (l.pp > 1 && in.pp_stages.size() == l.pp) {
        vllm_pipeline_budget(m, l, in, graphs, busiest_layers, r);
        // Each stage holds its own layers' state; the busiest stage's (kv_shape) bounds them.
        for (double& stage : r.stage_kv_bytes) {
          stage -= r.v0_state_cache_bytes;
        }
        r.kv_bytes -= r.v0_state_cache_bytes;
      }
      // V1 before PR #18974 took total - free after profiling as its non-torch memory, what other
      // processes hold included ("V1's memory profiling incorrectly counts memory used by other
      // processes as non_torch_allocations", PR #19312, rebased on it): that memory came off the
      // share. vllm#19125 (two Qwen2.5-0.5B at 0.4 on an 8 GB RTX 4060 Ti, V1 of June 2025): the
      // second failed sizing its cache, "fixed by #18974" (PR #19804). #18974 landed by 2025-06-09
      // (PR #18296's thread), after 0.9.0 and a day before 0.9.1, taken as its first release.
      if (!r.vllm_v0 && s.memory_in_use_bytes > 0 && s.vllm_minor_version &&
          (*s.vllm_minor_version < kVllmOthersExcludedMinor ||
           (*s.vllm_minor_version == kVllmOthersExcludedMinor && s.vllm_patch_version.value_or(0) < 1))) {
        r.kv_bytes -= s.memory_in_use_bytes;
        for (double& stage : r.stage_kv_bytes) {
          stage -= s.memory_in_use_bytes;
        }
        r.in_use_counted_in_share = true;
      }
      break;
    }
    case Engine::sglang: {
      const double gpu_mib = in.total_bytes / units::kMiB;
      const int version = s.sglang_version.value_or(kSglangFormula);
      const auto [chunk, graph_bs] =
          version >= kSglangFormula ? sglang_defaults(gpu_mib, l.tp) : sglang_old_defaults(gpu_mib, l.tp, version);
      r.batched_tokens = s.max_num_batched_tokens.value_or(chunk);
      r.max_seqs = s.max_num_seqs.value_or(graph_bs);
      r.share = s.mem_fraction_static.value_or(
          version >= kSglangFormula ? sglang_default_fraction(gpu_mib, r.batched_tokens, r.max_seqs, l.tp, l.pp)
                                    : sglang_old_fraction(gpu_mib, l.tp, l.pp, version));
      r.share_default = !s.mem_fraction_static;
      if (r.share_default || version < kSglangVlmByTower) {
        r.share *= sglang_vlm_factor(m, version);
      }
      // The AITER attention backend, SGLang's default on AMD (ServerArgs._get_default_attn_backend:
      // "aiter" for MHA/GQA on HIP, and for MLA when get_num_kv_heads(tp) is 16 or 128), cuts the
      // fraction, the user's too, for a context above 8192: "if resolved_view(self).attention_backend
      // == 'aiter': if model_config.context_len > 8192: ... mem_fraction_static * 0.85"
      // (sgl-project/sglang python/sglang/srt/server_args.py @001067ff,
      // _handle_attention_backend_compatibility; PR #36563 proposes to replace it by the workspace).
      if (in.rocm && sglang_aiter_default(m, l) && in.context_tokens > 8192) {
        r.share *= 0.85;
        r.aiter_share_cut = true;
      }
      // The base is the free memory measured after the CUDA context and communicators exist;
      // activations and CUDA graphs live in the (1 - mem_fraction_static) left outside.
      r.non_torch_bytes =
          kCudaContextBytes +
          (multi_gpu ? (in.tp_outside_nvlink ? kSglangPcieCommunicatorBytes : kSglangNvlinkCommunicatorBytes) : 0.0);
      r.start_free_bytes = start_free_bytes(in, r.non_torch_bytes, s.memory_in_use_bytes);
      r.activation_bytes = forward_activation_bytes(m, l, r.batched_tokens);
      r.kv_bytes = r.share * r.start_free_bytes - in.weights_bytes;
      // What SGLang allocates after its pool comes from the rest of free-at-start (profile_max_num_token:
      // rest = free after weights - free at start x (1 - mem_fraction_static)): its own reserve's
      // terms, with this model's prefill activations. Too high a fraction leaves less and the server
      // stops out of memory at start (sglang#1869: Gemma-2-9B on 24 GB "out-of-memory errors when
      // increasing" the fraction).
      r.eager = s.eager;
      r.outside_need_bytes =
          kSglangMetadataBytes + r.activation_bytes + (s.eager ? 0.0 : sglang_cuda_graph_bytes(m, l, r.max_seqs));
      r.outside_free_bytes = (1.0 - r.share) * r.start_free_bytes;
      // Its rest is what is free after loading less the (1 - share) kept out of free-at-start: the
      // page cache of the checkpoint just read counts as used on unified memory.
      r.page_cache_bytes = unified_page_cache_bytes(in, r.kv_bytes);
      r.kv_bytes_without_page_cache = r.kv_bytes;
      r.kv_bytes -= r.page_cache_bytes;
      sglang_state_pool(m, l, in, r);
      // page_size (1 unless asked): the pool rounds its tokens down to whole pages.
      break;
    }
    case Engine::trtllm: {
      r.share = s.kv_cache_free_gpu_mem_fraction.value_or(0.9);
      r.share_default = !s.kv_cache_free_gpu_mem_fraction;
      r.batched_tokens = s.max_num_batched_tokens.value_or(kTrtllmDefaultMaxNumTokens);  // max_num_tokens
      r.max_seqs = s.max_num_seqs.value_or(2048);                  // max_batch_size
      // Before 1.0 the TensorRT-engine flow is the default only where the model has one: its
      // MODEL_MAP (tensorrt_llm/models/__init__.py, library file 820782731, a 0.2x tree) maps
      // DeepseekV2 and Qwen3/Qwen3-MoE but no DeepseekV3, Llama 4, gpt-oss, GLM-4.5 MoE or Qwen3-Next,
      // which run on the PyTorch backend only (helper s58 U2: DeepSeek-R1 on 0.20 got the engine
      // flow's arithmetic and note).
      r.trtllm_tensorrt_flow = trtllm_tensorrt_flow(s) && (s.trtllm_backend || !trtllm_pytorch_only(m));
      r.trtllm_chunked_prefill = s.trtllm_chunked_prefill.value_or(kTrtllmChunkedPrefillDefault);
      if (s.trtllm_version && *s.trtllm_version < kTrtllmMaxNumTokensDefault) {
        trtllm_old_engine_defaults(s, in.context_tokens, r);
      }
      // trtllm-build lowers max_num_tokens to max_seq_len x max_batch_size (check_max_num_tokens,
      // tensorrt_llm/_common.py, NVIDIA/TensorRT-LLM 0fccc5b): the engine's activation profile is
      // no larger. The PyTorch flow (1.0 on) is not known to, so it keeps the setting.
      if (r.trtllm_tensorrt_flow && in.context_tokens > 0) {
        r.batched_tokens = std::min(r.batched_tokens, in.context_tokens * r.max_seqs);
      }
      r.non_torch_bytes = kCudaContextBytes + kWorkspaceBytes + communicators;
      r.activation_bytes = forward_activation_bytes(m, l, r.batched_tokens);
      if (!r.trtllm_tensorrt_flow) {
        r.cuda_graph_bytes = trtllm_cuda_graph_bytes(m, l, r.max_seqs);
      }
      r.start_free_bytes = start_free_bytes(in, r.non_torch_bytes, s.memory_in_use_bytes);
      r.weight_padding_bytes = trtllm_mxfp4_padding_bytes(m, l, in.mxfp4_expert_bytes);
      r.weights_bytes += r.weight_padding_bytes;
      if (r.trtllm_tensorrt_flow) {
        // RuntimeBuffers and the batched decoder (cpp/tensorrt_llm/batch_manager, runtime/) allocate
        // before free memory is measured, in units of max_batch_size x vocabulary fp32 logits.
        r.trtllm_logits_buffer_bytes = d(r.max_seqs) * d(m.vocab_size) * 4.0;
        r.trtllm_runtime_buffer_bytes = kTrtllmEngineBuffersPerLogitsBuffer * r.trtllm_logits_buffer_bytes;
      }
      const double free_after_load = r.start_free_bytes - r.weights_bytes - r.activation_bytes - r.cuda_graph_bytes -
                                     r.trtllm_runtime_buffer_bytes;
      r.page_cache_bytes = unified_page_cache_bytes(in, free_after_load);
      const double free_after = free_after_load - r.page_cache_bytes;
      // A fraction of free memory: when nothing is free the engine gets nothing (or less).
      r.kv_bytes = free_after > 0 ? r.share * free_after : free_after;
      r.kv_bytes_without_page_cache = free_after_load > 0 ? r.share * free_after_load : free_after_load;
      if (!r.trtllm_tensorrt_flow) {
        trtllm_estimation_cache(in, s, r);
        trtllm_resmooth(in, s, r);
      }
      break;
    }
    case Engine::neutral: break;
  }
  if (s.engine == Engine::vllm && !r.vllm_v0 && in.kv_shape != nullptr && in.kv_bytes_per_token_per_gpu > 0) {
    const std::uint64_t block = vllm_kv_groups(*in.kv_shape, r.block_tokens).block_tokens;
    r.block_holds_state = block != r.block_tokens;
    r.block_tokens = block;
    r.kv_tokens = vllm_logged_kv_tokens(*in.kv_shape, r.kv_bytes, block);
  } else if (r.kv_bytes > 0 && in.kv_bytes_per_token_per_gpu > 0) {
    const double block_bytes = in.kv_bytes_per_token_per_gpu * d(r.block_tokens);
    r.kv_tokens = static_cast<std::uint64_t>(std::floor(r.kv_bytes / block_bytes)) * r.block_tokens;
  }
  if (s.engine == Engine::sglang && r.aiter_share_cut) {
    sglang_aiter_workspace(m, l, in, r);
  }
  // TensorRT-LLM rounds the cap up to whole blocks (kvCacheManager's ceilDiv); SGLang's pages
  // hold no more than the cap.
  const std::uint64_t cap_blocks = !s.max_kv_tokens ? 0
                                   : s.engine == Engine::trtllm
                                       ? (*s.max_kv_tokens + r.block_tokens - 1) / r.block_tokens
                                       : *s.max_kv_tokens / r.block_tokens;
  if (s.max_kv_tokens && cap_blocks * r.block_tokens < r.kv_tokens && in.kv_bytes_per_token_per_gpu > 0) {
    r.kv_tokens = cap_blocks * r.block_tokens;
    r.kv_bytes = d(r.kv_tokens) * in.kv_bytes_per_token_per_gpu;
    r.kv_capped = true;
  }
  // SGLang sizes max_running_requests from the pool it has just made (--max-total-tokens
  // included), then allocates its request-to-token table outside the fraction.
  if (s.engine == Engine::sglang && in.context_tokens > 0 && r.kv_tokens > 0) {
    r.req_to_token_requests = sglang_default_running_requests(r.kv_tokens, in.context_tokens);
    r.req_to_token_context = in.context_tokens;
    r.req_to_token_bytes = sglang_req_to_token_bytes(r.req_to_token_requests, in.context_tokens);
    r.outside_need_bytes += r.req_to_token_bytes;
  }
  return r;
}

namespace detail {

double vllm_v0_tiled_encoder_profile_bytes(const ModelSpec& m, const Layout& l, std::uint64_t seqs) {
  // vLLM V0's encoder-decoder runner (vllm/worker/enc_dec_model_runner.py profile_run, unchanged
  // from 0.6.2, vllm-project/vllm@01b9fe6977d2f0a83c1776d3bed03e8497c56fe4) builds max_num_seqs
  // dummy requests and gives every one the largest image (dummy_encoder_data_for_mllama: one image
  // of max_num_tiles tiles, limit_mm_per_prompt's default), unlike the decoder-only runner, which
  // cuts the sequences to max_num_batched_tokens / the image's tokens. The vision tower then runs
  // on max_num_seqs images at once (vllm/model_executor/models/mllama.py, MllamaVisionModel.forward
  // and _prepare_aspect_ratio_attention_mask, 0.6.x):
  // - each tile's (image_size / patch_size)^2 + 1 patches are padded to a multiple of 8, and the
  //   tiles of an image attend to each other: L = tiles x padded patches tokens an image;
  // - a dense attention mask of images x L x L in the model's 16-bit dtype lives through both
  //   encoders (its matmul and scaling need two such tensors for a moment, not counted);
  // - the hidden states of intermediate_layers_indices are kept to the end (images x L x hidden);
  // - each local layer's MLP (CLIPMLP: fc1, an out-of-place GELU, fc2) holds the residual and its
  //   normed copy (hidden wide, replicated: the patch embedding is all-gathered) and fc1's output
  //   and its activation (intermediate / TP wide).
  // A lower bound: the attention kernel's own workspace, the global layers and the cross-attention
  // states that follow are left out. It is what made Llama 3.2 11B Vision run out of memory at the
  // default max_num_seqs 256 on an A100 80GB with --max-model-len 1024 (vllm#9445, vLLM 0.6.3;
  // started with max_num_seqs 32), on an L20 (vllm#10569: started with 2) and on 2 x A10 at TP 2
  // (vllm#10034).
  // The tiles and kept states are MllamaVisionConfig's max_num_tiles 4 and intermediate_layers_indices
  // [3, 7, 15, 23, 30] (transformers configuration_mllama.py defaults, the values both released
  // checkpoints, 11B and 90B, ship): the config's own are not kept in VisionSpec.
  constexpr std::uint64_t kMllamaTiles = 4;
  constexpr std::uint64_t kMllamaKeptStates = 5;
  if (!m.vision || m.layer_is_cross_attention.empty() || m.vision->patch_size == 0 || m.vision->image_size == 0 ||
      (m.vision->model_type != "mllama_vision_model" && m.vision->model_type != "mllama")) {
    return 0.0;
  }
  const VisionSpec& v = *m.vision;
  const std::uint64_t side = v.image_size / v.patch_size;
  const std::uint64_t patches = side * side + 1;
  const double image_tokens = d(kMllamaTiles) * d((patches + 7) / 8 * 8);
  const double images = d(seqs);
  const double mask = images * image_tokens * image_tokens * kActivationBytes;
  const double per_token = d(kMllamaKeptStates + 2) * d(v.hidden_size) +
                           2.0 * d(v.intermediate_size) / d(std::max<std::uint64_t>(l.tp, 1));
  return mask + images * image_tokens * per_token * kActivationBytes;
}

}  // namespace detail

}  // namespace gpuplan
