#pragma once
// Training step time (DESIGN "Performance model", training): FLOPs per token from the
// architecture (6 x matmul parameters + attention's sequence term, Narayanan et al. 2021 /
// PaLM appendix B; recompute adds forward work), over the dense peak x an achievable share
// calibrated on published runs, plus the communication not hidden under compute: tensor-parallel
// all-reduces, expert all-to-all, context-parallel K/V exchange, pipeline sends and bubble
// (p - 1)/(v m) of a micro-batch's time, and the data-parallel gradient reduction (and ZeRO-3/FSDP
// parameter gathers) beyond what the backward pass overlaps.

#include <cstdint>
#include <optional>
#include <string>

#include <gpuplan/gpu.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/train_memory.hpp>

namespace gpuplan {

/// Achievable shares and links for training.
struct TrainEfficiency {
  /// Share of the dense peak the training FLOPs (recompute included) reach while computing:
  /// the fit to data/train_measurements.json (Megatron-LM on A100, Llama 3 on H100); a test
  /// keeps it in step.
  double compute = 0.56;
  /// The band of tokens/s and MFU for a dense model: measured / estimate - 1 over the 47 dense
  /// runs of tools/heldout/train-public.json (NeMo, Megatron-Bridge, torchtitan, LLM Foundry; the
  /// compute share was not fitted to them, the band was set from them) spans -42 % .. +27 %, its
  /// 10-90 % range -35 % .. +13 %, rounded out (a test keeps 80 % inside as the model changes). The fit's own runs span -10.6 % .. +11.6 %: a run like them lands closer, but
  /// most runs are not Megatron at scale (FSDP stacks run slower, the estimate is optimistic).
  double band_low = -0.36;
  double band_high = 0.15;
  /// MoE training is not calibrated (every fitted run is dense): the 11 MoE runs of that file
  /// (Megatron-Bridge's Qwen3-30B-A3B, Qwen3-235B-A22B, GPT-OSS-120B, DeepSeek-V3) measured
  /// -76 % .. +48 % of the estimate; the band is their range, rounded out.
  double moe_band_low = -0.77;
  double moe_band_high = 0.49;
  double link = 0.80;             ///< share of link bandwidth a ring reaches (as Efficiency::link)
  /// Share of HBM bandwidth the GPU optimizer step's streaming kernels reach: inference's
  /// Efficiency::bandwidth (a test keeps them equal), the same memory-bound regime.
  double bandwidth = 0.793;
  double hop_latency_s = 1e-6;
  /// A GEMM of this many FLOPs per GPU reaches half of `compute` (gemm_fill): inference's
  /// Efficiency::gemm_half_flop (a test keeps them equal), the same GEMMs' tile and SM fill. A
  /// training micro-batch's GEMMs are the micro-batch's tokens x each layer's widths / TP.
  double gemm_half_flop = 1.0e9;
  /// Network bandwidth per GPU between nodes (--network-gbit-per-s); unset: network_rate()'s
  /// figure for the GPU.
  std::optional<double> network_bytes_per_s_per_gpu;
  /// Host memory bandwidth one GPU's CPU optimizer step gets with offload (--host-memory-gb-per-s);
  /// unset: host_memory_rate()'s assumption for the GPU's host. The step is memory-bound
  /// (ZeRO-Offload's vectorised CPU Adam, Ren et al. 2021), and all ranks of a node step at once.
  std::optional<double> host_memory_bytes_per_s_per_gpu;
  /// FP8 GEMMs reach a smaller share of their peak: compute x (bf16 peak / FP8 peak)^this. Training's
  /// GEMMs are large, so the measured max-achievable matmul ratio sets it: H100 FP8 reaches 0.709
  /// of its peak where bf16 reaches 0.803 (stas00/ml-engineering, in reference/calibration.json),
  /// 0.883 = 0.5^0.18. NeMo 24.07's FP8 Llama runs then come within -3 .. +20 % (a test).
  double format_exponent = 0.18;
};

/// The lowest achievable matmul share (GpuSpec::achievable_matmul_share) among the GPUs
/// data/train_measurements.json measures (H100's 0.803; A100's is 0.869): `compute` was fitted at
/// or above it. A GPU measured below it trains proportionally slower (MI300X 0.514: 0.64x, GB200
/// 0.729: 0.91x), one above it no faster; a test keeps every measured GPU at or above it, so the
/// fit is not moved. As perf's kCalibratedMatmulShare, for training's own calibration GPUs.
inline constexpr double kTrainCalibratedMatmulShare = 0.803;

/// FLOPs per trained token, whole model.
struct TrainFlops {
  double matmul_params = 0;          ///< parameters a token multiplies (active experts, LM head; no lookup)
  double attention_forward = 0;      ///< QK^T and attention x V of one token's forward, all layers
  double model_flop_per_token = 0;   ///< what MFU counts: 6N + 3 x attention (LoRA: 4N + 6 x adapters)
  double hardware_flop_per_token = 0;  ///< plus recompute's extra forward work
};
TrainFlops train_flops(const ModelSpec& model, const TrainRequest& request);

/// The FLOP-weighted share of the large-GEMM rate one micro-batch's GEMMs reach on a GPU
/// (gemm_fill of each weight matrix's GEMM: the micro-batch's tokens, over CP, x the matrix's
/// width on this GPU; routed experts see their share of the tokens), the harmonic mean over the
/// FLOPs so that the time is the sum of each GEMM's.
double train_gemm_fill(const ModelSpec& model, const TrainRequest& request, double gemm_half_flop);

/// One optimizer step, per GPU on the critical path.
struct TrainStep {
  std::uint64_t micro_batches = 1;   ///< per replica per step
  double tokens_per_step = 0;        ///< whole job
  std::string compute_type;          ///< "bf16" or "fp8"
  double peak_flop_per_s = 0;        ///< dense, per GPU
  double compute_efficiency = 0;     ///< after the FP8 adjustment and the GPU's matmul factor
  double matmul_factor = 1;          ///< the GPU's measured matmul share over kTrainCalibratedMatmulShare, <= 1
  /// Share of the compute rate the micro-batch's GEMMs reach for their size (train_gemm_fill), <= 1.
  double gemm_fill = 1;
  double compute_s = 0;              ///< all micro-batches' compute
  double tp_comm_s = 0;              ///< tensor-parallel all-reduces (not overlapped)
  double ep_comm_s = 0;              ///< expert all-to-all
  double cp_comm_s = 0;              ///< context-parallel K/V exchange beyond the attention it overlaps
  double pp_comm_s = 0;              ///< pipeline sends
  double bubble_s = 0;               ///< pipeline fill and drain
  double dp_comm_s = 0;              ///< data-parallel collectives in full
  double dp_exposed_s = 0;           ///< the part the backward pass does not hide
  /// CPU offload: host-link transfers (gradients down, parameters up) in full, the part compute
  /// does not hide, and the optimizer step on the CPU (never hidden).
  double offload_transfer_s = 0;
  double offload_exposed_s = 0;
  double cpu_optimizer_s = 0;
  /// QLoRA: dequantizing the NF4 base weights, every pass of every micro-batch (memory-bound).
  double dequant_s = 0;
  /// Eager attention: the s x s scores and probabilities written and read back in HBM by each
  /// head's matmuls, softmax and their backward (memory-bound; FlashAttention keeps them on chip).
  double attention_scores_s = 0;
  /// The optimizer step on the GPU, once per step: memory-bound over this GPU's partition.
  double gpu_optimizer_s = 0;
  double step_s = 0;
  double tokens_per_s = 0;           ///< whole job
  double mfu = 0;                    ///< model FLOPs / (time x GPUs x peak)
  double hfu = 0;                    ///< hardware FLOPs (recompute included) / (time x GPUs x peak)
  double model_flop_per_s_per_gpu = 0;
  std::string tp_link, dp_link;      ///< "nvlink4", "network", "pcie5-x16"
  std::string host_link;             ///< what offload crosses: "pcie4-x16", "nvlink-c2c"
  [[nodiscard]] double exposed_comm_s() const {
    return tp_comm_s + ep_comm_s + cp_comm_s + pp_comm_s + dp_exposed_s + offload_exposed_s;
  }
};

/// The host memory bandwidth one GPU's CPU optimizer step gets: the efficiency's when set; behind
/// NVLink-C2C, Grace's LPDDR5X (up to 512 GB/s per Grace, NVIDIA's GH200 and GB200 NVL72 pages) at
/// 80 %, shared by two GPUs as on GB200 and GB300 (GH200's one GPU has all of it: this is the
/// conservative figure); behind PCIe, a DGX A100's two EPYC 7742 (8 channels of DDR4-3200 each,
/// 409.6 GB/s) at 80 % shared by its 8 GPUs: 40 GB/s.
double host_memory_rate(const GpuSpec& gpu, const TrainEfficiency& e);

/// Network bandwidth per GPU between nodes: the efficiency's when set; else the GPU's catalog
/// scale-out NICs where every system ships the same ones (GB300 NVL72: a ConnectX-8, 800 Gb/s, per
/// GPU); else an 8-GPU server's 8 x 400 Gb/s (ConnectX-7): 50e9 bytes/s per GPU.
double network_rate(const GpuSpec& gpu, const TrainEfficiency& e);

/// An 8-GPU server's 8 x 400 Gb/s NICs: 400 Gb/s = 50e9 bytes/s per GPU.
inline constexpr double kDefaultNetworkBytesPerSPerGpu = 50e9;

/// Whether the data-parallel gradient reduction (--sharding none, zero1, zero2) overlaps the last
/// micro-batch's backward, bucket by bucket: the request's overlap_grad_reduce, else the framework's
/// default. Megatron-LM: off (DistributedDataParallelConfig.overlap_grad_reduce = False; its
/// --overlap-grad-reduce turns it on). DeepSpeed ZeRO-1/2: off (overlap_comm defaults to stage == 3).
/// Unset framework: on, as PyTorch DDP always buckets under the backward and the NeMo and
/// Megatron-Bridge recipes the compute share and band were set on turn overlap_grad_reduce on.
bool overlaps_grad_reduce(const TrainRequest& request);
/// Whether ZeRO-1's all-gather of the updated parameters (after the optimizer step) hides under
/// the next forward: only Megatron's --overlap-param-gather does it (off by default; on in NeMo's
/// and Megatron-Bridge's recipes, so on with the framework unset and --sharding zero1). DeepSpeed's
/// stages 1 and 2 all-gather after the step with nothing to overlap. False without ZeRO-1/2.
bool overlaps_param_gather(const TrainRequest& request);

/// Validates the request and times one step.
TrainStep train_step(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& request,
                     const TrainEfficiency& efficiency);

}  // namespace gpuplan
