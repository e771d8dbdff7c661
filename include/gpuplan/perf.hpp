#pragma once
// Roofline performance model (DESIGN "Performance model"): per step,
//   time = max(bytes / (bandwidth x bandwidth efficiency), FLOPs / (dense peak x compute efficiency))
//          + communication + fixed overhead per step and per layer + per-token costs.
// Decode reads the weights once per step (MoE: the experts the batch is expected to touch) plus
// the KV cache; prefill is compute-bound with quadratic attention. Two numbers everywhere: the
// pure roofline bound (efficiency 1, no overhead, no latency) and the calibrated estimate.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuplan/band.hpp>
#include <gpuplan/comm.hpp>
#include <gpuplan/fit_cache.hpp>
#include <gpuplan/load.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/price.hpp>

namespace gpuplan {

/// Achievable shares of the hardware and fixed costs. Every field but link and hop latency (measured
/// figures) is the fit of `calibrate()` to the shipped data/benchmarks.json: `gpuplan validate
/// --calibrate` reproduces them and a test keeps them in step: nine free parameters and the
/// routing rate, held fixed.
struct Efficiency {
  double bandwidth = 0.793;        ///< share of HBM bandwidth (aiconfigurator assumes 0.8)
  double compute = 0.87;          ///< share of dense tensor peak for large GEMMs, scaled by format_share
  double kv_bandwidth = 1.0;      ///< attention reads the paged KV cache at this share of `bandwidth`
  double link = 0.80;             ///< share of link bandwidth in a ring (NCCL: 370 of 450 GB/s)
  double step_overhead_s = 1.5e-3;    ///< per forward pass: launches, scheduling (at its bound)
  /// Per layer and forward pass: each layer runs a dozen-odd kernels (norms, projections,
  /// attention, activation, all-reduce), each with a minimum duration whatever the batch, so a
  /// deep model's step carries more fixed time than a shallow one's (at its bound).
  double layer_overhead_s = 50e-6;
  double hop_latency_s = 1e-6;    ///< per ring hop: an 8-GPU ring all-reduce of a small message ~14 us
  /// Per-token work outside the GEMMs (norms, activations), as passes of bf16 activations through
  /// memory: each token a step carries moves passes x 2 x layers x (hidden + active FFN width)
  /// bytes, and each generated token passes x 2 x vocabulary more (sampling).
  double activation_passes = 0.0;  ///< the fit leaves this per-token cost to the two below
  /// Host-side work per running sequence and decode step (the scheduler's and sampler's
  /// bookkeeping for each request): grows with the batch whatever the model and GPU.
  double sequence_overhead_s = 6.27e-6;
  /// MoE routing outside the expert GEMMs: each routed copy of a token moves about 11 x hidden +
  /// 10 x expert width bytes (permute, activation quantization, SwiGLU, weighted combine), in small
  /// kernels over activations that stay on chip (L2), so at a rate that does not follow HBM
  /// bandwidth. Seconds per GB of those bytes.
  double routed_copy_s_per_gb = 0.45e-3;  ///< 2.2 TB/s; held fixed in the fit (see calibration.cpp)
  /// A GEMM of this many FLOPs reaches half of `compute`: small GEMMs (few tokens) cannot fill
  /// the GPU. Efficiency = compute x W / (W + gemm_half_flop); for MoE, W is a layer's grouped
  /// expert GEMM with its padded tile rows (PerfModel::step_parts).
  double gemm_half_flop = 1.0e9;
  /// Narrow formats reach a smaller share of their peak (scales, non-GEMM work that does not
  /// speed up): `compute` x (bf16 peak / format peak)^format_exponent for FP8 and narrower;
  /// 16-bit formats reach FP8's share times kWideOverFp8GemmShare (format_share).
  double format_exponent = 0.636;  ///< fp8: 0.5^0.636 = 0.64 of `compute`; fp4: 0.41
  /// Communication overlapped with compute (max of the terms) rather than added.
  bool overlap_communication = false;
  /// The bound's side wherever the engine or the server could go either way: GPUs that talk over
  /// PCIe at the link's line rate (not the catalog's shared peer rate), and windowed layers
  /// reading only their window even under an engine that keeps the whole context by default.
  bool best_case = false;

  /// The pure roofline: everything at peak, nothing fixed, communication overlapped.
  static Efficiency roofline() {
    return {.bandwidth = 1.0, .compute = 1.0, .kv_bandwidth = 1.0, .link = 1.0, .step_overhead_s = 0.0,
            .layer_overhead_s = 0.0, .hop_latency_s = 0.0, .activation_passes = 0.0, .sequence_overhead_s = 0.0,
            .routed_copy_s_per_gb = 0.0, .gemm_half_flop = 0.0, .format_exponent = 0.0,
            .overlap_communication = true, .best_case = true};
  }
};

/// 16-bit formats reach FP8's share of peak times this, not the narrow formats' exponent carried
/// up to them (which would put bf16 at `compute`, 0.87 of peak, above what H100 GEMMs reach): the
/// max-achievable matmul share of bf16 over FP8's, measured on H100 (0.803 / 0.709), GH200
/// (0.838 / 0.776), B200 (0.776 / 0.763) and GB200 (0.729 / 0.723), averaged
/// (stas00/ml-engineering "Maximum Achievable Matmul FLOPS", in reference/calibration.json).
inline constexpr double kWideOverFp8GemmShare = 1.06;

/// The lowest achievable matmul share (GpuSpec::achievable_matmul_share) among the GPUs the
/// calibration set measures (B200's 0.776; H100's is 0.803, H200's unmeasured): `compute` was
/// fitted at or above it. A GPU measured below it reaches proportionally less of its peak in the
/// estimate (MI300X: 0.514, so 0.66x), one above it no more (A100's 0.869 does not show in
/// served throughput); the roofline keeps the whole peak. tests/unit/test_perf checks every
/// calibration GPU is at or above it, so the fit is not moved by it.
inline constexpr double kCalibratedMatmulShare = 0.776;

/// Serving on AMD GPUs (ROCm builds of vLLM, SGLang, TGI) reaches this share of the throughput the
/// model gives with the GPU's own peaks and matmul ceiling: the median measured / estimate of the
/// 160 public runs on MI300X, MI325X and MI355X in tools/heldout (2024-2026; at 141 runs:
/// SGLang 0.41x, vLLM 0.63x, TGI 0.67x; prefill-heavy runs 0.44x, batch 1 0.72x). No calibration run is on AMD.
/// Left-one-document-out, the median |error| of those runs falls from 64 % to 30 %.
/// tests/reference/test_heldout_bound.cpp keeps it equal to that median. Estimates only; the
/// roofline keeps the whole peak.
inline constexpr double kRocmServingShare = 0.620;

/// The share of `compute` a format reaches, from bf16's peak over the format's (1 for 16-bit
/// formats, 0.5 for FP8, 0.25 for FP4): ratio^exponent up to FP8 (and a little above, as FP8
/// peaks are not always exactly twice bf16's), FP8's x kWideOverFp8GemmShare for 16-bit formats
/// (ratio above 0.75), at most 1 (the roofline's exponent 0 gives 1 everywhere).
[[nodiscard]] double format_share(double bf16_over_format_peak, double exponent);

/// The batch cap per replica when none is given: TensorRT-LLM's max_batch_size default of 2048
/// (the calibration data's engine). A request naming vLLM or TensorRT-LLM (fit.engine) is also
/// capped by that engine's max_num_seqs / max_batch_size (PerfModel::full_load_batch).
inline constexpr std::uint64_t kDefaultEngineMaxBatch = 2048;

/// The largest batch cap a request may carry (validate_perf_request's range).
inline constexpr std::uint64_t kMaxBatchLimit = std::uint64_t{1} << 20;

/// The request's batch cap when none is given: kDefaultEngineMaxBatch, except for SGLang, whose
/// own cap (max_running_requests, which it derives from its KV pool: up to 4096) PerfModel applies
/// as the engine's; TensorRT-LLM's 2048 is no limit of SGLang's.
[[nodiscard]] constexpr std::uint64_t default_max_batch(Engine engine) {
  return engine == Engine::sglang ? kMaxBatchLimit : kDefaultEngineMaxBatch;
}

/// The first vLLM minor release whose default engine is V1 (0.8): kEagerHostSPerKernel is V1's.
inline constexpr int kEagerVllmV1Minor = 8;

/// Eager runs (vLLM --enforce-eager, SGLang --disable-cuda-graph): no CUDA graph replays the
/// step, so the host launches every kernel of it one by one through the engine's Python modules
/// and PyTorch's dispatcher, and a step cannot end before the host has launched its last kernel.
/// Host seconds per launched kernel: INFERRED from public eager measurements of vLLM V1, at the
/// low (fast-host) side of them, since it is a floor. vllm-project/vllm-omni#7960 (vLLM 0.29, 2 x
/// A800, comment 2026-09-22): eager TPOT of the Qwen2.5-7B thinker (28 layers) ~22-23 ms and of
/// the 24-layer talker ~19-20 ms on the same host, both far above their CUDA-graph TPOT (13, 5.4-6
/// ms): ~0.75 ms a 10-kernel layer, 75 us a kernel with the per-step host work included; vLLM
/// PR #1440 (V0, 2023): Llama-2-7B eager batch 1 at 12 ms a token bounds V0's at 37 us (32
/// layers x 10 kernels); a bare PyTorch op's dispatch alone is 5-25 us
/// (jiahuanglin.xyz gpu_kernel_serving lesson 18). Not fitted on any measurement.
inline constexpr double kEagerHostSPerKernel = 50e-6;
/// Kernels a step launches outside its decoder layers: embedding gather, final norm, LM head,
/// and the sampler's logits processing and sampling (INFERRED from vllm/v1/sample/sampler.py's
/// greedy/top-k path: temperature, softmax/argmax, gather; about five).
inline constexpr double kEagerKernelsOutsideLayers = 8;

/// Kernels one decoder layer launches in an eager vLLM forward, counted from its model code
/// (vllm/model_executor/models/llama.py and qwen3.py @002456df): each norm one (RMSNorm or
/// fused_add_rms_norm), the qkv projection, rotary embedding, the KV-cache write
/// (reshape_and_cache_flash), attention and the output projection (5); q and k norms (Qwen3's
/// qk_norm) 2 more; MLA (deepseek_v2.py) 10 for its low-rank projections, their norms and the
/// absorbed up-projections; a dense MLP 3 (gate_up or up, activation, down); a routed MoE MLP 7
/// (router GEMM, top-k softmax, moe_align_block_size, the two grouped expert GEMMs, activation,
/// moe_sum: fused_moe.py fused_experts_impl) and 3 more for shared experts (2 more for their
/// gate); under TP (or EP) 2 all-reduces (or dispatch/combine). `moe_layer`: the layer's MLP is routed.
[[nodiscard]] double eager_kernels_per_layer(const ModelSpec& model, bool moe_layer, std::uint64_t tp,
                                             std::uint64_t ep);

/// Checks every factor is in (0, 1] and the times are finite and >= 0; names `efficiency.*`.
void validate_efficiency(const Efficiency& e);

/// How requests reach a replica, for the mean TTFT under load. burst: the batch's prompts arrive
/// together (a benchmark at that concurrency: every request sent at once, and again as each wave
/// ends). poisson: at random, at the rate the batch sustains in the steady state (a service
/// carrying a target load), each prompt waiting only for the prefills ahead of it.
enum class Arrivals { burst, poisson };
[[nodiscard]] std::string_view to_string(Arrivals a);
/// burst or poisson; nullopt for another name.
[[nodiscard]] std::optional<Arrivals> parse_arrivals(std::string_view name);

struct PerfRequest {
  FitRequest fit;                   ///< layout, dtypes and engine memory settings
  std::uint64_t input_tokens = 1024;
  std::uint64_t output_tokens = 256;
  /// Tokens at the start of each prompt the engine's prefix cache already holds (vLLM V1's
  /// --enable-prefix-caching and SGLang's radix cache are on by default): prefill computes the
  /// rest only, each attending over the whole prompt; the KV cache and decode still hold all
  /// input_tokens. At most input_tokens - 1: on a full hit vLLM recomputes the last prompt token
  /// for its logits (vllm/v1/core/kv_cache_manager.py get_computed_blocks, max_cache_hit_length =
  /// prompt length - 1). 0: every prompt is new.
  std::uint64_t cached_input_tokens = 0;
  bool sparse = false;              ///< use 2:4-sparse peak FLOPs (off: inference runs dense)
  Efficiency efficiency;
  double network_bytes_per_s_per_gpu = 50e9;  ///< 8 x 400 Gb/s InfiniBand per 8-GPU node
  std::uint64_t max_batch = kDefaultEngineMaxBatch;  ///< engine batch cap per replica
  /// The largest instance the deployment can rent (0: any count): best_layout() keeps replicas
  /// whose GPUs up to a node fit one (instance_group()) while any such layout runs.
  std::uint64_t largest_instance_gpus = 0;
  /// The instance prices of one offer (provider, GPU, mode; empty: none): best_layout() ranks the
  /// layouts by output tokens per USD of the whole instances each rents rather than by tokens/s.
  /// On 2 L40S rented as 1- or 4-GPU instances, TP 2 pays a 4-GPU instance for 2 GPUs; two TP 1
  /// replicas on 1-GPU instances cost 42 % less a token though they serve less.
  std::vector<Price> instance_offers;
  Arrivals arrivals = Arrivals::burst;  ///< what PerfPoint::ttft_s assumes
  /// The engine runs without CUDA graphs (Benchmark::eager; fit.engine.eager, --enforce-eager
  /// or --disable-cuda-graph, implies it): each step takes at least the host's launch time.
  bool eager = false;
  /// The vLLM minor release of an eager run when fit.engine does not name vLLM (validate's rows);
  /// fit.engine.vllm_minor_version otherwise. Below 8 (V0) no floor is applied: kEagerHostSPerKernel
  /// is V1's figure, and V0's lighter path is bounded (<= 37 us a kernel, vLLM PR #1440) but not pinned.
  std::optional<int> vllm_minor_version;
  /// Whose kernels run the step when fit.engine is engine-neutral (validate's rows of vLLM keep
  /// the neutral memory arithmetic but vLLM's MoE kernels): fit.engine's engine otherwise.
  Engine kernels = Engine::neutral;
};

/// Why weights in `weights` cannot be timed on `gpu` (the catalog has no dense, or sparse, peak
/// for the tensor-core type they compute in), naming `perf.sparse`; nullopt when they can.
std::optional<std::string> timing_problem(const GpuSpec& gpu, DType weights, bool sparse);

/// Checks what the fit does not: an architecture, no MIG, input + output within the model's
/// context, efficiency factors. Throws InputError naming `perf.*` or `efficiency.*`.
void validate_perf_request(const ModelSpec& model, const PerfRequest& request);

/// Output tokens/s no deployment of `gpus` x `gpu` can exceed on `model`, whatever its layout,
/// batch or format: each generated token multiplies every active weight once (2 FLOPs each) at
/// the GPU's highest peak, sparse included. Only a forgotten unit or a typo goes above it.
double compute_ceiling_tokens_per_s(const ModelSpec& model, const GpuSpec& gpu, std::uint64_t gpus);

/// A measured rate above that ceiling throws InputError naming `field`.
void check_measured_rate(const ModelSpec& model, const GpuSpec& gpu, std::uint64_t gpus, double output_tokens_per_s,
                         std::string_view field);

/// The largest term of a step: what "bound" names in every renderer (helper s55 meas-amd 6: a step
/// of compute 16, communication 15 and overhead 12 ms out of 48 read "compute" before overhead was
/// a candidate, and one whose overhead dominated could not say so).
enum class Bound { memory, compute, communication, overhead };

/// What the held-out runs say of estimates under data-parallel attention (perf, compare, plan).
std::string_view attention_dp_note();
/// What an estimate on an AMD GPU carries (kRocmServingShare), for perf, compare, plan and scale.
std::string rocm_serving_note();
std::string_view to_string(Bound bound);

/// One forward pass on one pipeline stage, term by term.
struct StepTime {
  double bytes = 0;        ///< per GPU
  double flop = 0;         ///< per GPU
  double memory_s = 0;
  double compute_s = 0;
  double communication_s = 0;
  double overhead_s = 0;          ///< per step, per layer and per token
  double token_s = 0;             ///< the per-token part of overhead_s
  double work_s = 0;              ///< memory and compute as they overlap
  bool overlapped = false;        ///< communication hidden under memory and compute
  /// Eager runs: the host's time to launch the step's kernels one by one (PerfModel::eager_host_s);
  /// the GPU cannot finish before it. 0 with CUDA graphs.
  double host_launch_s = 0;
  /// The GPU's time for the step: work, communication and fixed overhead.
  [[nodiscard]] double gpu_s() const {
    return (overlapped ? (work_s > communication_s ? work_s : communication_s) : work_s + communication_s) +
           overhead_s;
  }
  [[nodiscard]] double total_s() const {
    const double gpu = gpu_s();
    return host_launch_s > gpu ? host_launch_s : gpu;
  }
  /// An eager step whose host launches take longer than the GPU's work.
  [[nodiscard]] bool host_bound() const { return host_launch_s > gpu_s(); }
  /// The largest of memory_s, compute_s, communication_s and overhead_s (overhead too when the
  /// host's launches bind an eager step).
  [[nodiscard]] Bound bound() const;
  /// That term's share of total_s (memory and compute overlap, so shares need not add to 1).
  [[nodiscard]] double bound_share() const;
};
/// "compute 33 %": the step's largest term and its share of the step.
[[nodiscard]] std::string bound_text(const StepTime& step);

/// Everything `gpuplan perf` reports for one batch size (per replica).
struct PerfPoint {
  std::uint64_t batch = 0;
  StepTime decode;                       ///< one stage, one micro-batch, at the mean context
  /// Mean time to first token under this batch's load (PerfModel::loaded_ttft): its prompts
  /// arriving together, as in a benchmark at this concurrency, or at random at the rate the batch
  /// sustains (PerfRequest::arrivals); at batch 1 in a burst, one prompt alone.
  double ttft_s = 0;
  double ttft_alone_s = 0;               ///< prefill of one prompt on an idle replica
  /// Of ttft_alone_s, the last chunk's way through the pipeline's later stages (0 without PP):
  /// a loaded prompt crosses them too.
  double pipeline_traversal_s = 0;
  /// One prompt's prefill work on a stage in the steady state, batched with the others' (what
  /// the Poisson TTFT's M/D/1 queue serves).
  double prefill_busy_s = 0;
  /// One decode step at the mean context: the gap between tokens when no other prompt's prefill
  /// rides in it (the median ITL of an engine that runs prefills in batches of their own, SGLang).
  double step_s = 0;
  /// Mean inter-token latency under load: the decode steps plus the other sequences' prefills
  /// between them, (cycle - own prefill) / output tokens (what a benchmark's mean TPOT measures;
  /// vLLM's chunked prefill rides in every step). The decode step at batch 1.
  double itl_s = 0;
  double tokens_per_s_per_user = 0;      ///< 1 / ITL
  /// One sequence's turn in the steady state: its prefill, its decode steps and the other
  /// sequences' prefills in between (Little's law: batch x output / output tok/s per replica).
  double cycle_s = 0;
  double decode_tokens_per_s = 0;        ///< deployment, decode only
  double output_tokens_per_s = 0;        ///< deployment, steady state with prefill interleaved
  double output_tokens_per_s_per_gpu = 0;
  double e2e_latency_s = 0;              ///< TTFT + (output tokens - 1) x ITL
  bool kv_fits = false;
};

/// A model, GPU and layout with everything batch-independent computed once, so evaluating a
/// batch is a few dozen floating-point operations.
namespace detail {
struct FitBasis;
}

class PerfModel {
 public:
  /// Validates the request (fields named `perf.*`, `layout.*`, `efficiency.*`).
  PerfModel(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request);
  /// For searches over layouts of one request: fit() is left without its notes and formats text
  /// (detail::annotate_fit adds them), and the model's weight figures are reused through `basis`.
  PerfModel(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
            std::optional<detail::FitBasis>& basis);
  /// A layout search's candidate: as above for a request the search validated already. A layout
  /// that cannot hold one sequence (fit() does not fit or full_load_batch() is 0) stops after its
  /// fit, the one thing a search reads of it; the model is not to be evaluated (a search meets
  /// a third of its layouts so, and the rest of a model cost half of it).
  struct Candidate {};
  PerfModel(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
            std::optional<detail::FitBasis>& basis, Candidate);

  [[nodiscard]] PerfPoint evaluate(std::uint64_t batch, const Efficiency& efficiency) const;

  /// One prompt's prefill on an idle replica, and of it the last chunk's way through the later stages.
  struct AloneTtft {
    double total_s = 0;
    double traversal_s = 0;
  };
  /// The decode steps (and the prompt's prefill) of one PerfModel at one efficiency, timed once
  /// for all the batches a search evaluates (under PP each batch tries many micro-batch splits
  /// over the same few sizes).
  class StepCache {
   public:
    explicit StepCache(const Efficiency& efficiency) : efficiency_(efficiency) {}

   private:
    friend class PerfModel;
    struct MicroStep {
      double total_s = 0;
      double handoff_s = 0;
      bool known = false;
    };
    Efficiency efficiency_;
    std::vector<MicroStep> steps_;
    std::optional<AloneTtft> ttft_s_;  // one prompt's prefill, the same at every batch
  };
  /// evaluate(batch, efficiency) with the cache's efficiency; the same figures, fewer steps timed.
  /// A cache serves one PerfModel only.
  [[nodiscard]] PerfPoint evaluate(std::uint64_t batch, StepCache& cache) const;
  [[nodiscard]] StepTime decode_step(std::uint64_t micro_batch, double context_tokens,
                                     const Efficiency& efficiency) const;
  [[nodiscard]] StepTime prefill_step(std::uint64_t tokens, const Efficiency& efficiency) const;
  /// One step of `tokens` prompt tokens of prompts of `prompt_tokens` each: a chunk of a longer
  /// prompt (tokens < prompt_tokens) or several whole prompts.
  [[nodiscard]] StepTime prefill_step(std::uint64_t tokens, std::uint64_t prompt_tokens,
                                      const Efficiency& efficiency) const;
  /// Smallest batch at which decode stops being memory-bound at the mean context (pure roofline);
  /// nullopt when the KV cache keeps it memory-bound at any batch.
  [[nodiscard]] std::optional<double> ridge_batch() const;
  /// Largest batch per replica whose KV cache fits at input + output tokens.
  [[nodiscard]] std::uint64_t max_batch_by_memory() const { return max_batch_; }
  /// Largest batch per replica the GPU's whole memory beyond the weights could hold as KV cache
  /// (no engine reserve, activations or utilization cap; at least max_batch_by_memory()): what a
  /// bound on throughput may assume where the engine's own arithmetic is not known to be exact.
  [[nodiscard]] std::uint64_t physical_max_batch() const { return physical_max_batch_; }
  /// The batch an engine runs at full load: memory's limit, capped by the request's batch cap and,
  /// with --engine vllm or trtllm, by the engine's own (max_num_seqs, max_batch_size).
  [[nodiscard]] std::uint64_t full_load_batch() const {
    return std::min(std::min(max_batch_, request_.max_batch), engine_max_batch_);
  }
  /// The most sequences one replica runs whatever the memory: the request's batch cap and, with
  /// --engine vllm or trtllm, the engine's own (max_num_seqs or max_batch_size, times PP).
  [[nodiscard]] std::uint64_t batch_cap() const { return std::min(request_.max_batch, engine_max_batch_); }
  /// The named engine's cap alone (UINT64_MAX without one).
  [[nodiscard]] std::uint64_t engine_max_batch() const { return engine_max_batch_; }
  /// Steady-state output tokens/s of the deployment at full load (0 when nothing fits).
  [[nodiscard]] double full_load_tokens_per_s(const Efficiency& efficiency) const;
  [[nodiscard]] const FitResult& fit() const { return fit_; }
  [[nodiscard]] double peak_flop_per_s() const { return peak_flop_per_s_; }
  [[nodiscard]] const std::string& compute_type() const { return compute_type_; }
  /// The share of the compute type's peak large GEMMs reach at the request's efficiency.
  [[nodiscard]] double gemm_share() const {
    return request_.efficiency.compute * matmul_factor_ * request_format_factor_;
  }
  /// This GPU's measured matmul share over the calibrated GPUs' (kCalibratedMatmulShare), at most 1.
  [[nodiscard]] double matmul_factor() const { return matmul_factor_; }
  /// kRocmServingShare on AMD GPUs, else 1: the estimate's steps take 1 / this longer.
  [[nodiscard]] double vendor_serving_share() const { return vendor_serving_share_; }
  [[nodiscard]] const PerfRequest& request() const { return request_; }
  /// TensorRT-LLM on a GPU before Blackwell serving a model with chunked attention (Llama 4): its
  /// measured throughput falls below the estimate, for a cause not modelled.
  [[nodiscard]] bool hopper_chunked_trtllm() const { return hopper_chunked_trtllm_; }
  /// And the request reaches a chunk: XQA refuses chunked attention, so those layers decode with
  /// the slower MMHA kernel, which the estimate does not time (below a chunk the engine turns
  /// chunking off).
  [[nodiscard]] bool chunked_decode_fallback() const { return chunked_decode_fallback_; }
  /// TensorRT-LLM on Blackwell: windowed layers read their window, though the cache keeps the context.
  [[nodiscard]] bool windowed_reads() const { return windowed_reads_; }
  /// Eager requests (PerfRequest::eager or fit.engine.eager): the host's time to launch one step's
  /// kernels on a stage, (its layers' eager_kernels_per_layer + kEagerKernelsOutsideLayers) x
  /// kEagerHostSPerKernel, the floor of every step's time in the estimate (not the roofline). 0
  /// otherwise, for vLLM V0 releases (eager_v0()) and on AMD and Intel GPUs, whose serving shares
  /// (kRocmServingShare, kHabanaServingShare) are medians of public runs eager ones included.
  [[nodiscard]] bool eager_v0() const { return eager_v0_; }
  [[nodiscard]] double eager_host_s() const { return eager_host_s_; }

 private:
  double expert_idle_share(double tokens) const;  // share of routed experts no token of the step picks
  double expert_bytes_touched(double idle_share) const;
  // Sum over attention layers of min(L, window), each layer weighted by its KV bytes read
  // (kv_layers) and its attention FLOPs (flop_layers) relative to the means they multiply: the
  // engine's windows, or (best case) the model's own.
  struct ContextSum {
    double kv_layers = 0;
    double flop_layers = 0;
  };
  ContextSum attention_context_sum(double context_tokens, bool best_case) const;
  double communication_s(double tokens, const Efficiency& e) const;  // per stage, per forward pass
  struct StepWork {
    double weight_bytes, kv_bytes, linear_flop, attention_flop, tokens;
    double idle_share;  // expert_idle_share(tokens): the bytes read and the expert GEMMs share it
    bool decode;  // per-token work (sampling, scheduling, per-sequence state) is paid per generated token
  };
  // A prefill step carrying `tokens` of prompts `prompt_tokens` long.
  /// The prompt tokens one prefill computes: input_tokens less those the prefix cache holds.
  [[nodiscard]] double prefilled_tokens() const {
    return static_cast<double>(request_.input_tokens - request_.cached_input_tokens);
  }
  StepWork prefill_work(double tokens, double prompt_tokens, bool best_case) const;
  StepWork decode_work(std::uint64_t micro_batch, double context_tokens, bool best_case) const;
  StepTime timed(const StepWork& work, const Efficiency& e) const;  // the roofline of one step
  // The memory terms (weights, KV) and compute terms (GEMMs, attention) timed() sums.
  struct StepParts {
    double weights_s, kv_s, gemm_s, attention_s;
  };
  StepParts step_parts(const StepWork& work, const Efficiency& e) const;
  // Decode under pipeline parallelism: how the batch splits into micro-batches, and the period.
  struct PipelineSchedule {
    StepTime largest_step;  // one stage, the largest micro-batch
    double round_s = 0;     // one stage runs every micro-batch once
    double chain_s = 0;     // one micro-batch crosses every stage
    double active_share = 1;  // share of the rounds a sequence runs in (rotation)
    std::uint64_t largest_micro_batch = 0;  // the sequences largest_step carries
    [[nodiscard]] double period_s() const { return std::max(round_s, chain_s); }
    [[nodiscard]] double itl_s() const { return period_s() / active_share; }
  };
  PerfModel(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
            std::optional<detail::FitBasis>* basis, bool candidate = false);
  // One micro-batch size's decode step (its total) and PP handoff, at one context and
  // efficiency: the schedules of one batch under PP try about PP x log(batch) micro-batch
  // splits over only batch / PP distinct sizes, so each size is timed once.
  using MicroStep = StepCache::MicroStep;
  using MicroSteps = std::vector<MicroStep>;
  // `steps` holds the decode steps at this context and efficiency timed so far.
  /// Sets p.ttft_s from p.ttft_alone_s and the batch's load.
  void loaded_ttft(PerfPoint& p, const Efficiency& e) const;
  PipelineSchedule pipeline_schedule(std::uint64_t batch, double context_tokens, const Efficiency& e,
                                     MicroSteps& steps) const;
  PerfPoint evaluate(std::uint64_t batch, const Efficiency& e, MicroSteps& decode_steps,
                     std::optional<AloneTtft>& ttft_s) const;
  // A schedule's figures without its step (built only for the schedule chosen).
  struct Split {
    double round_s = 0;
    double chain_s = 0;
    std::uint64_t largest_micro_batch = 0;
    [[nodiscard]] double period_s() const { return std::max(round_s, chain_s); }
  };
  // Every sequence in every round, in the best number of near-equal micro-batches (PP > 1, batch > 0).
  // `active`: the replica's sequences, which every stage's step walks on the host (>= batch).
  Split balanced_split(std::uint64_t batch, std::uint64_t active, double context_tokens, const Efficiency& e,
                       MicroSteps& steps) const;

  PerfRequest request_;
  FitResult fit_;  // after request_: the constructor builds it from request_
  std::string compute_type_;
  bool chunked_decode_fallback_ = false;
  bool hopper_chunked_trtllm_ = false;
  bool windowed_reads_ = false;
  double peak_flop_per_s_ = 0;
  double matmul_factor_ = 1.0;  ///< matmul_factor(); the estimate's, never the roofline's
  double vendor_serving_share_ = 1.0;  ///< vendor_serving_share(); the estimate's only
  double eager_host_s_ = 0;            ///< eager_host_s(); the estimate's only
  bool eager_v0_ = false;              ///< an eager request on a vLLM V0 release: no floor
  double bandwidth_bytes_per_s_ = 0;
  double dense_read_bytes_ = 0;       // weights read every step, per GPU
  double expert_bytes_ = 0;           // routed experts held per GPU
  double experts_ = 0;                // routed experts per MoE layer
  double experts_per_token_ = 0;
  double expert_token_multiplier_ = 1;  // EP wider than TP: experts see other replicas' tokens
  double linear_flop_per_token_ = 0;    // per GPU
  double attention_flop_per_token_context_ = 0;  // decode: per GPU, per layer, per context token
  double prefill_attention_flop_per_token_context_ = 0;  // prefill (MLA: MHA form), same units
  // MLA prefill chunks up-project the cached latents of the prompt's earlier chunks (kv_b_proj):
  // per GPU, per cached token, over the stage's attention layers. 0 without a latent cache.
  double cached_latent_flop_per_token_ = 0;
  double kv_bytes_per_token_layer_ = 0;  // per GPU
  double state_bytes_per_decode_ = 0;    // per sequence and GPU: the recurrent state read and written back
  // Attention layers by window: a layer counts 1 where layers are alike, else its KV bytes over
  // kv_bytes_per_token_layer_ and its FLOPs over attention_flop_per_token_context_'s.
  struct WindowLayers {
    std::uint64_t window = 0;  // 0: the whole context
    double kv_layers = 0;
    double flop_layers = 0;
  };
  std::vector<WindowLayers> window_layers_;
  // The model's own windows where the engine keeps the whole context (TensorRT-LLM); else empty.
  std::vector<WindowLayers> own_window_layers_;
  double layers_per_stage_ = 0;      // all layers on a stage, linear-attention ones included
  double moe_layers_per_stage_ = 0;
  double activation_bytes_per_token_ = 0;  // hidden x 2 bytes
  double activation_layer_bytes_per_token_ = 0;  // one pass: 2 x layers x (hidden + FFN width), per GPU
  double vocab_pass_bytes_per_token_ = 0;        // and 2 x vocabulary for a generated token (sampling)
  double attention_peak_flop_per_s_ = 0;         // dense peak of the attention kernels' format
  double attention_format_ratio_ = 1;            // bf16 peak / that peak
  double request_attention_format_factor_ = 1;   // the same for attention_format_ratio_
  double prefill_attention_peak_flop_per_s_ = 0;  // MLA prefill: the 16-bit peak (K, V up-projected)
  double expert_flop_per_token_ = 0;      // per GPU, routed-expert share of linear_flop_per_token_
  double dense_gemm_flop_per_token_ = 0;  // FLOPs one token adds to a typical dense GEMM
  double expert_layer_gemm_flop_per_token_ = 0;  // one token's share of a layer's grouped up projection
  double expert_tile_tokens_ = 16;
  std::uint64_t prefill_chunk_tokens_ = 8192;  // the request's, or the engine's own step budget  // rows of one tensor-core MMA: an expert pays whole tiles
  double routed_copy_bytes_per_token_ = 0;  // bytes the routed copies of one token move on this GPU
  double format_peak_ratio_ = 1;          // bf16 peak / compute-type peak
  double request_format_factor_ = 1;      // format_share(format_peak_ratio_, the request's format_exponent)
  std::uint64_t max_batch_ = 0;
  std::uint64_t physical_max_batch_ = 0;
  std::uint64_t engine_max_batch_ = UINT64_MAX;  // the named engine's sequence cap per replica
  /// A group's link at peak: PCIe at its line rate and at the rate each GPU gets while all share it.
  struct GroupLink {
    CommLink line, shared;
    [[nodiscard]] CommLink at(const Efficiency& e) const;
  };
  GroupLink tp_link_, ep_link_, pp_link_;
};

/// One run of the model over a list of batch sizes, with both numbers for each.
struct PerfResult {
  std::string model_id;
  std::string gpu_id;
  PerfRequest request;
  std::string compute_type;            ///< "fp8", "bf16", ... (and whether sparse)
  double peak_flop_per_s = 0;
  double gemm_share = 0;               ///< of that peak, large GEMMs (PerfModel::gemm_share)
  std::optional<double> ridge_batch;
  std::uint64_t max_batch_by_memory = 0;
  std::uint64_t full_load_batch = 0;   ///< memory's limit under the request's and the engine's caps
  double band_low = 1.0;               ///< estimate x band_low .. x band_high (cross-validation residuals)
  double band_high = 1.0;
  BandCase band_case = BandCase::calibrated;  ///< how far the request is from the calibration data
  bool engine_calibrated = true;               ///< false: band widened for vLLM/SGLang
  bool layout_calibrated = true;               ///< false: the layout also widened it
  std::vector<PerfPoint> rows;         ///< calibrated estimate
  std::vector<PerfPoint> roofline;     ///< pure bound, same batches
  /// The load planned with --concurrency or a target (JSON `load`); unset: the batches given.
  std::optional<PlannedLoad> load;
  std::vector<std::string> notes;
};

/// Evaluates `batches` (per replica). `band` is the relative error range of the estimate
/// (measured / estimate - 1) for the request's distance from the calibration data.
PerfResult perf(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
                const std::vector<std::uint64_t>& batches, const EstimateBand& band);
/// The same with a model already built (best_layout's choice: not built twice), its request's
/// fit notes given, as fit() writes them.
PerfResult perf(const PerfModel& model, std::vector<std::string> fit_notes, const std::vector<std::uint64_t>& batches,
                const EstimateBand& band);

/// The layout perf, cost and compare use when none is given: among TP (powers of two) replicas
/// over `gpus` GPUs (with pipelines of whole-node stages, TP = the node's GPUs; other TP x PP and TP
/// over the network only when none of those holds a sequence), the one with the most estimated output
/// tokens/s at full load (fewer GPUs per replica on a tie); the smallest layout that holds the
/// weights when none can hold a sequence. `request.fit.layout.ep` is kept.
struct ThroughputLayout {
  FitResult fit;                  ///< the fit of the chosen layout
  double tokens_per_s = 0;        ///< its estimate at full load (0: fallback)
  int candidates = 0;             ///< layouts that could run
  /// The chosen layout's model (unset: fallback, or a layout given); its fit() leaves out the
  /// longest context that fits, which `fit` holds.
  std::optional<PerfModel> chosen;
};
ThroughputLayout best_layout(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request, std::uint64_t gpus,
                             FitCache* cache = nullptr);

/// The one layout rule of perf, cost, compare and plan files (one function, so they cannot
/// drift apart): the request's own layout when given (--tp/--pp), else best_layout over `gpus`.
/// fit deliberately differs: it answers how many sequences N GPUs can hold, so it ranks layouts
/// by concurrent sequences (search_layouts); give --tp/--pp to evaluate one layout everywhere.
/// With `cache`, the figures of the model and formats are kept there across requests (see
/// FitCache for the models it takes).
ThroughputLayout serving_layout(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
                                bool layout_given, std::uint64_t gpus, FitCache* cache = nullptr);

}  // namespace gpuplan
