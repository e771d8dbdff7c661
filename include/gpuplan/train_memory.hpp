#pragma once
// Training memory per GPU, term by term (DESIGN "Memory model", training): model states
// (parameters, gradients, fp32 master weights, optimizer moments) sharded as ZeRO stages 1-3 /
// FSDP do over the data-parallel group (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations
// Toward Training Trillion Parameter Models", section 3), activations per micro-batch under each
// recompute policy with tensor and sequence parallelism (Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models", section 4, extended to GQA, SwiGLU, MoE
// and the logits), pipeline micro-batches in flight (1F1B), communication buckets and a reserve.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/gpu.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/units.hpp>

namespace gpuplan {

/// How model states are partitioned over the data-parallel group.
enum class Sharding { none, zero1, zero2, zero3, fsdp };
/// What the backward pass recomputes instead of storing: selective is Megatron's (the attention
/// core), selective_op torchtitan's op-level SAC (selective_ac_option "op": every other matmul's
/// output and the attention op's are saved, the rest recomputed), full each layer but its input.
enum class Recompute { none, selective, selective_op, full };
enum class Optimizer { adamw, adamw_8bit, sgd };
enum class TrainMethod { full, lora, qlora };
/// What moves to host memory: ZeRO-Offload's optimizer step (states, master and gradients; the
/// step runs on the CPU), ZeRO-Infinity's / FSDP CPU offload's parameters too, or paged:
/// bitsandbytes' Paged* optimizers (PagedAdamW, PagedAdamW8bit: torchtune's single-GPU full
/// recipe), whose moments live in CUDA unified memory, evicted to the host when the GPU runs short
/// and paged back for the step, which still runs on the GPU.
enum class Offload { none, optimizer, params, paged };
/// The optimizer step runs on the CPU (offload optimizer or params, not paged).
[[nodiscard]] bool steps_on_cpu(Offload o);
/// Precision of the matrix multiplications (the weights' storage is MasterWeights' business).
/// fp16: mixed precision with dynamic loss scaling (Volta and Turing have no bf16), the same
/// bytes as bf16's (16-bit weights and gradients, the fp32 master and moments; the loss scaler is
/// a few scalars: DeepSpeed's FP16_Optimizer, Megatron-LM's --fp16 with DynamicGradScaler).
enum class TrainPrecision { bf16, fp8, fp16 };
/// The copy of the trained weights the optimizer updates: fp32 beside the bf16 working copy
/// (mixed precision, as ZeRO counts it), or none: pure bf16 training (torchtune's default,
/// litgpt's bf16-true), where the optimizer updates the bf16 weights and keeps its moments in bf16,
/// or autocast: the weights themselves fp32, multiplied in 16 bits by torch.autocast, no 16-bit
/// copy (a model loaded in fp32 under Hugging Face Trainer's bf16=True or ATorch's amp_native, FSDP
/// without a MixedPrecision policy): fp32 gradients, FSDP gathers fp32, and the residual stream is
/// fp32 (the embedding is not an autocast op, and fp32 + bf16 promotes).
enum class MasterWeights { fp32, none, autocast };
/// How the loss's cross-entropy over the vocabulary is computed, which sets the logits' memory:
/// unfused as Hugging Face Transformers' ForCausalLMLoss (what Trainer, TRL and PEFT run): the bf16
/// logits, their fp32 upcast (`logits.float()`), the fp32 log-softmax autograd keeps and its fp32
/// gradient, 14 bytes per token and vocabulary entry; fused as Megatron's vocab-parallel
/// cross-entropy (in place in fp32) or torchtune's chunked output loss: the bf16 logits and one
/// fp32 copy, 6 bytes; fused_linear as Liger's fused linear cross-entropy or Apple's Cut
/// Cross-Entropy (Unsloth): the head and the loss a chunk of tokens at a time, the whole logits
/// never held.
enum class LossKernel { unfused, fused, fused_linear };
/// The training framework whose model-state bookkeeping applies where layouts alone cannot tell:
/// Megatron-LM/Megatron-Core (fp32 main_grad buffer; --optimizer-cpu-offload keeps that buffer on
/// the GPU) or DeepSpeed (ZeRO's counting; ZeRO-Offload moves the gradients to the host).
enum class TrainFramework { megatron, deepspeed };

/// A pipeline stage whose memory is counted: the only one (no pipeline), the first (the embedding,
/// the most micro-batches in flight), the second standing for the middle ones, or the last (the LM
/// head and the loss's logits).
enum class PipelineStage { only, first, middle, last };
std::string_view to_string(PipelineStage s);

/// Decoder layers per stage: each stage's count with the even split rounded up (the heaviest), or
/// the first and last as given and the rest spread evenly (rounded up) over the middle stages.
struct StageLayers {
  std::uint64_t first = 0;
  std::uint64_t middle = 0;  ///< 0 without middle stages (PP <= 2)
  std::uint64_t last = 0;
  [[nodiscard]] std::uint64_t most() const { return std::max({first, middle, last}); }
};
struct TrainLayout;
[[nodiscard]] StageLayers stage_layers(const ModelSpec& model, const TrainLayout& l);

std::string_view to_string(Sharding s);
std::string_view to_string(Recompute r);
std::string_view to_string(Optimizer o);
std::string_view to_string(TrainMethod m);
std::string_view to_string(Offload o);
std::string_view to_string(TrainPrecision p);
std::string_view to_string(MasterWeights w);
std::string_view to_string(LossKernel k);
std::string_view to_string(TrainFramework f);
/// Parse the names above ("adamw-8bit", "zero3", ...); unknown names throw InputError naming
/// `field` with the closest known names.
Sharding parse_sharding(std::string_view text, std::string_view field);
Recompute parse_recompute(std::string_view text, std::string_view field);
Optimizer parse_optimizer(std::string_view text, std::string_view field);
TrainMethod parse_train_method(std::string_view text, std::string_view field);
Offload parse_offload(std::string_view text, std::string_view field);
TrainPrecision parse_train_precision(std::string_view text, std::string_view field);
MasterWeights parse_master_weights(std::string_view text, std::string_view field);
LossKernel parse_loss_kernel(std::string_view text, std::string_view field);
TrainFramework parse_train_framework(std::string_view text, std::string_view field);

/// A training job's parallel layout. GPUs = TP x CP x PP x DP (Megatron's order, TP innermost);
/// the routed experts are split ETP x EP ways over each stage's TP x CP x DP GPUs.
struct TrainLayout {
  std::uint64_t tp = 1;
  std::uint64_t pp = 1;
  std::uint64_t cp = 1;   ///< context parallel: the sequence split over CP GPUs
  std::uint64_t ep = 1;
  std::uint64_t dp = 1;
  std::uint64_t vpp = 1;  ///< virtual pipeline stages per GPU (interleaved 1F1B)
  /// Expert tensor parallelism (Megatron's --expert-tensor-parallel-size): 0, its default, is TP
  /// (each expert split over the TP group, EP within DP x CP); 1 is MoE parallel folding (each
  /// expert whole on its GPU, EP across the TP ranks too: DeepSeek-V3's TP 2 x EP 64 recipe).
  std::uint64_t etp = 0;
  /// Decoder layers on the first and the last pipeline stage (Megatron-LM's
  /// --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers, uneven PP); 0: the
  /// even split, the other stages sharing what is left evenly.
  std::uint64_t first_stage_layers = 0;
  std::uint64_t last_stage_layers = 0;
  [[nodiscard]] std::uint64_t gpus() const { return tp * cp * pp * dp; }
  [[nodiscard]] std::uint64_t expert_tp() const { return etp == 0 ? tp : etp; }
  /// The ranks each expert's gradients and states are shared by: a stage's GPUs over ETP x EP.
  [[nodiscard]] std::uint64_t expert_dp() const { return tp * cp * dp / (expert_tp() * ep); }
};

struct TrainRequest {
  TrainLayout layout;
  Sharding sharding = Sharding::none;
  Recompute recompute = Recompute::none;
  /// The recompute policy was not given but assumed (default_recompute): said in the output.
  bool recompute_assumed = false;
  std::uint64_t micro_batch = 1;          ///< sequences per micro-batch per replica
  std::uint64_t seq_tokens = 4096;
  /// Tokens per optimizer step over the whole job; 0: one micro-batch per replica (4 x PP with
  /// a pipeline, so the bubble is not the whole step).
  std::uint64_t global_batch_tokens = 0;
  Optimizer optimizer = Optimizer::adamw;
  TrainPrecision precision = TrainPrecision::bf16;
  Offload offload = Offload::none;
  MasterWeights master_weights = MasterWeights::fp32;
  /// The optimizer steps each parameter inside the backward pass as its gradient arrives and
  /// frees the gradient (torchtune's optimizer_in_bwd): no full gradient buffer. Full training
  /// only, one micro-batch per step (nothing to accumulate into).
  bool optimizer_in_backward = false;
  /// FSDP with gradient accumulation under no_sync (Hugging Face Accelerate's and Trainer's
  /// default with FSDP1, sync_each_batch off; KempnerForge; FSDP2's module has no no_sync for
  /// Accelerate to call, so the Trainer reduces every micro-batch there): the reduce-scatter waits for the last
  /// micro-batch, so every rank holds the whole unsharded gradient of its model shard until then,
  /// accumulated in fp32 (FSDP's reduce dtype; KempnerForge's pure-bf16 runs too). Off:
  /// reduce-scattered every micro-batch (torchtitan without a pipeline; NeMo Automodel's FSDP
  /// under PP, which reshards after each forward). Unset: off, except FSDP under a pipeline
  /// (fsdp_stage_unsharded: torchtitan's).
  std::optional<bool> sync_last_micro_batch;
  TrainMethod method = TrainMethod::full;
  std::uint64_t lora_rank = 16;
  /// The loss's cross-entropy; unset: default_loss_kernel(method).
  std::optional<LossKernel> loss;
  /// QLoRA: whether PEFT's prepare_model_for_kbit_training cast the unquantized parameters to fp32;
  /// unset: with the unfused loss (the Hugging Face stack). Answer.AI's FSDP-QLoRA and PEFT on a
  /// GPTQ base skip it while computing the same unfused loss.
  std::optional<bool> kbit_prepared;
  /// Megatron sequence parallelism with TP > 1: norms and dropout activations split TP ways.
  bool sequence_parallel = true;
  /// FlashAttention: the s x s scores are never stored (what selective recompute achieves). Off:
  /// eager attention (pre-2024 Hugging Face recipes), which stores the softmax probabilities.
  bool flash_attention = true;
  /// Unset: inferred from the layout (megatron_style).
  std::optional<TrainFramework> framework;
  /// The data-parallel gradient all-reduce / reduce-scatter (--sharding none, zero1, zero2) runs in
  /// buckets under the last micro-batch's backward (Megatron's --overlap-grad-reduce, DeepSpeed's
  /// overlap_comm, PyTorch DDP's buckets); off: after the backward, exposed. Unset:
  /// overlaps_grad_reduce's default for the framework.
  std::optional<bool> overlap_grad_reduce;
  /// ZeRO-1's all-gather of the updated parameters after the optimizer step runs under the next
  /// step's forward (Megatron's --overlap-param-gather); off: exposed. Unset: overlaps_param_gather.
  std::optional<bool> overlap_param_gather;
  /// Dropout masks stored (GPT-3-era training; today's LLM recipes train without dropout).
  bool dropout = false;
  /// PEFT's lora_dropout > 0 (LoraConfig's default is 0.0): each adapted module drops out its own
  /// copy of its input before lora_A, keeping the mask and the dropped-out copy for the backward.
  bool lora_dropout = false;
  /// DeepSpeed ZeRO-3's sub_group_size: the optimizer step builds the fp32 gradients of this many
  /// parameters of the partition at a time (DeepSpeed's default 1e9).
  double zero_sub_group_params = 1e9;
  double reserve_bytes = 1.5 * units::kGiB;  ///< CUDA context, cuBLAS and NCCL workspaces
  /// PyTorch DDP's gradient bucket (bucket_cap_mb = 25 MiB); two are in flight.
  double bucket_bytes = 25.0 * units::kMiB;

  /// Micro-batches per replica per optimizer step (gradient accumulation steps).
  [[nodiscard]] std::uint64_t micro_batches() const;
  /// The loss given, or the method's default.
  [[nodiscard]] LossKernel loss_kernel() const;
};

/// The loss a method is assumed to train with when none is given: LoRA and QLoRA mostly run on
/// Hugging Face PEFT (Trainer, TRL), whose loss is unfused; full training on the stacks the
/// compute share was calibrated on (Megatron-LM, NeMo), whose loss is fused.
LossKernel default_loss_kernel(TrainMethod method);

/// Megatron-LM accumulates bf16 training's gradients in an fp32 main_grad buffer, unsharded by its
/// distributed optimizer (ZeRO-1): 6 + 12/DP bytes per parameter with it, 18 without (Megatron-LM's
/// README, "Distributed Optimizer"), not ZeRO's 2 + 2 + 12/DP. Counted for full mixed-precision
/// training with --sharding none or zero1 (the stages Megatron runs) and TP or PP > 1 (layouts only
/// Megatron-style stacks run; a data-parallel-only run is counted as DeepSpeed/DDP count it).
bool fp32_main_grads(const TrainRequest& request);

/// Megatron's model-state bookkeeping applies: --framework megatron, or unset with --sharding none
/// or zero1 and TP or PP > 1 (layouts only Megatron-style stacks run). Decides fp32_main_grads and
/// what --offload optimizer leaves on the GPU (Megatron's --optimizer-cpu-offload moves the fp32
/// master and the moments and steps on the CPU; the main_grad buffer stays on the GPU).
bool megatron_style(const TrainRequest& request);

/// FSDP under a pipeline (torchtitan's apply_fsdp, reshard_after_forward "default": "For PP, do not
/// reshard after forward to avoid per-microbatch all-gathers", models/llama/parallelize_llama.py
/// @82010c7), and PyTorch's pipeline schedules skip the gradient reduce-scatter until the last
/// micro-batch's backward: each rank holds its whole stage's parameters gathered and, with more
/// than one micro-batch, their unsharded gradients accumulated in fp32 (the reduce dtype). Not with
/// sync_last_micro_batch stated false (--grad-sync each).
bool fsdp_stage_unsharded(const TrainRequest& request);

/// The recompute policy assumed when none is given: full when PEFT's k-bit preparation is assumed
/// (prepare_model_for_kbit_training defaults to use_gradient_checkpointing=True and enables
/// Hugging Face's gradient checkpointing), none otherwise.
Recompute default_recompute(const TrainRequest& request);

/// QLoRA on the Hugging Face stack (the unfused loss's, unless kbit_prepared says otherwise): PEFT's
/// prepare_model_for_kbit_training,
/// which the QLoRA recipe runs, casts every parameter bitsandbytes did not quantize (embeddings, LM
/// head, norms) to fp32. The fp32 embeddings make the residual stream fp32, so each layer's input
/// and its norms' inputs and outputs take 4 bytes, and autocast keeps a bf16 copy of the fp32 LM
/// head for its backward.
bool peft_kbit_prepared(const TrainRequest& request);

/// The model is a checkpoint a Hugging Face quantizer loads (config.json's quantization_config:
/// GPTQ, AWQ, bitsandbytes, ...) with quantized linear layers: LoRA's frozen base keeps those
/// formats, and full training of it is refused (transformers' Trainer refuses it too).
bool quantized_checkpoint(const ModelSpec& model);

/// DeepSpeed ZeRO-3's optimizer step on the GPU (fp32 master, not offloaded): it makes fp32
/// gradients from the bf16 ones a sub-group at a time. Parameters whose gradients one such pass
/// holds; 0 for other stages and stacks.
double zero_step_group_params(const TrainRequest& request, double optimizer_params_per_gpu);

/// Bytes the loss holds per token and vocabulary entry at its peak (before TP's vocab split); 0
/// for fused_linear, which holds one chunk (counted per token and hidden unit by train_memory).
double loss_bytes_per_logit(LossKernel k);

/// Checks the request against the model and GPU: layout degrees, TP dividing the heads, PP at
/// most the layers, EP for MoE only and dividing the experts and DP x CP, CP dividing the
/// sequence, micro-batches dividing the global batch, offload, method and optimizer-in-backward
/// combinations, QLoRA's 4-bit path and FP8's tensor cores. Throws InputError naming
/// `train.<field>` or `layout.<field>`.
void validate_train_request(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& request);

/// Bytes per parameter of the weights the optimizer updates: the fp32 master (or LoRA's fp32
/// adapters), or the bf16 weights themselves in pure bf16.
double updated_weight_bytes(MasterWeights w);
/// Bytes per element of a fully trained weight and its gradient as the GPU holds them: fp32 under
/// autocast (no 16-bit copy), bf16 otherwise (the master, if any, is counted apart).
double full_weight_bytes(MasterWeights w);
/// Autocast over fp32 weights holds its bf16 copy of every weight of the stage at the peak: its cast
/// cache keeps those of leaf parameters that require grad (full training without FSDP) until the
/// forward ends, and autograd keeps those of layers not recomputed.
bool autocast_weight_copies_held(const TrainRequest& request);

/// Bytes of memory traffic per parameter of one optimizer step: it reads and writes the weights it
/// updates and the moments, reads the gradient (kept in the updated weights' type), and with a
/// master copy writes the bf16 weights. AdamW with an fp32 master: 8 + 16 + 4 + 2 = 30.
double optimizer_step_bytes_per_param(const TrainRequest& request);

/// True when bitsandbytes' NF4 kernels (what QLoRA runs on) exist for the GPU: CUDA and ROCm.
bool has_4bit_training_path(const GpuSpec& gpu);

/// The matrices LoRA adapts: every attention projection and every dense or shared-expert MLP
/// projection (q, k, v, o, gate, up, down); routed experts, embeddings and the LM head stay frozen.
double lora_adapter_params(const ModelSpec& model, std::uint64_t rank);

/// Matmul parameters per token whose products torchtitan's op-level SAC recomputes in the backward
/// (the even-numbered matmuls of each block: K, the output projection, SwiGLU's up or the plain
/// MLP's down; a MoE layer's routed experts, whose grouped matmuls its save list omits): the
/// extra forward FLOPs are twice this.
double op_sac_recomputed_params(const ModelSpec& model);

/// QLoRA: bytes of memory traffic one pass over this GPU's stage costs to dequantize its NF4
/// linear weights (bitsandbytes' MatMul4Bit dequantizes each weight to bf16 before its matmul, in
/// the forward and again in the backward): the 4-bit bytes read, the bf16 copy written and read
/// back by the matmul. 0 for other methods.
double qlora_dequant_bytes_per_pass(const ModelSpec& model, const TrainRequest& request);

/// Activation bytes one token leaves in one layer for the backward pass (Korthikanti et al. 2022,
/// section 4.1, generalised): the average over the model's layers, per GPU.
struct LayerActivation {
  double replicated = 0;   ///< norm and linear inputs, dropout masks: split only with SP
  double split = 0;        ///< Q, K, V, projections' inputs, MLP intermediates: split TP ways
  double scores = 0;       ///< the s x s softmax (and dropout) per token: gone with flash/selective
  double stored = 0;       ///< what one token stores per layer under the request's policy
};
LayerActivation layer_activation_bytes_per_token(const ModelSpec& model, const TrainRequest& request);

/// A fit with less than this share of the capacity free is flagged tight: measured peaks of the
/// public runs (tools/heldout/train-public*.json) run 10-45 % above the allocated total when they
/// count the allocator's cache, and a 48 GB QLoRA run counted 0.8 % short of full ran out of memory.
inline constexpr double kTightFreeShare = 0.05;

/// Per-GPU memory of the busiest pipeline stage. Nothing negative; a deficit is shortfall_bytes.
struct TrainMemory {
  double params_per_gpu = 0;          ///< parameters this GPU's model-parallel shard holds (unsharded by DP)
  double expert_params_per_gpu = 0;   ///< the routed experts' part of params_per_gpu
  /// Working copy of this GPU's model-parallel shard before DP sharding (what ZeRO-3 gathers).
  double working_bytes_per_gpu = 0;
  double trainable_params = 0;        ///< whole model: full fine-tuning all, LoRA the adapters
  double adapter_params = 0;          ///< whole model's LoRA adapters (0 for full)
  double parameters = 0;              ///< working copy (bf16; QLoRA base in NF4) on the GPU
  double gradients = 0;               ///< optimizer in backward: the largest tensor's only
  double master_weights = 0;          ///< fp32 copy the optimizer updates (0 in pure bf16)
  /// Trainable parameters whose optimizer step this GPU runs (its ZeRO partition; on the CPU
  /// with offload).
  double optimizer_params_per_gpu = 0;
  double optimizer_states = 0;        ///< moments: Adam's m and v, 8-bit Adam's, SGD's momentum (0 when paged)
  double activations_per_micro_batch = 0;  ///< one micro-batch through this stage's layers
  /// The pipeline stage these figures are of: the one needing the most memory.
  PipelineStage peak_stage = PipelineStage::only;
  std::uint64_t stage_layers = 0;     ///< decoder layers on that stage
  std::uint64_t micro_batches_in_flight = 1;  ///< 1F1B: stage i of p holds p - i of them
  /// Interleaved 1F1B (VPP > 1): the first stage holds 1 + (PP - 1) / (PP x VPP) times that (the last
  /// ((VPP - 1) PP + 1) / VPP); 1 without.
  double interleave_penalty = 1.0;
  double activations = 0;             ///< in flight, plus the layer a full recompute rebuilds
  double logits = 0;                  ///< last stage: the loss's logits for one micro-batch (loss_bytes_per_logit)
  double softcap_logits = 0;          ///< the part of logits Gemma 2's soft-cap tanh keeps for its backward
  double buckets = 0;                 ///< gradient buckets; ZeRO-3/FSDP gathered layers; QLoRA dequant
  /// DeepSpeed ZeRO-3's optimizer step: the fp32 upcast of one sub-group's gradients and the
  /// optimizer's temporary beside it, beyond what the backward's activations, logits and gathered
  /// layers free before the step (0 when those are larger).
  double step_transient = 0;
  double reserve = 0;
  double host_bytes = 0;              ///< offloaded to CPU memory, per GPU
  double host_parameters = 0;         ///< the parameters' part of host_bytes (parameter offload)
  /// Offload paged: the optimizer states in unified memory, all of them: up to this much sits on the
  /// GPU, taking what the rest leaves free and paged to the host under pressure. Not in total(): the
  /// requirement (and the fit) is the rest; PyTorch's allocator counters do not see them either.
  double paged_optimizer_states = 0;
  /// The part of paged_optimizer_states that does not fit beside the rest: on the host, paged in and
  /// out every step (the part of host_bytes they are).
  double paged_states = 0;
  double capacity_bytes = 0;          ///< what CUDA gives the process
  bool fits = false;
  /// Fits with less than kTightFreeShare of the capacity free: what is not counted (the caching
  /// allocator's fragmentation, NCCL and cuBLAS workspaces beyond the reserve) can take that much.
  /// Paged optimizer states fill what is free and yield it under pressure: they count for neither
  /// (free_bytes is what the rest leaves, for the paged states to take).
  bool tight = false;
  double free_bytes = 0;
  double shortfall_bytes = 0;
  [[nodiscard]] double model_states() const { return parameters + gradients + master_weights + optimizer_states; }
  [[nodiscard]] double total() const { return allocated_peak() + reserve; }
  /// What PyTorch's allocator counts at the peak (torch.cuda.max_memory_allocated): the total
  /// without the reserve, which holds the CUDA context and library workspaces it never sees.
  [[nodiscard]] double allocated_peak() const {
    return model_states() + activations + logits + buckets + step_transient;
  }
};

/// Evaluates memory (validates the request first).
TrainMemory train_memory(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& request);

/// Largest micro-batch (at the request's sequence) and sequence (at its micro-batch) whose memory
/// fits, ignoring whether they divide the global batch; 0 when even 1 (or 128 tokens) does not.
struct TrainLimits {
  std::uint64_t max_micro_batch = 0;
  std::uint64_t max_seq_tokens = 0;
};
TrainLimits train_limits(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& request);

}  // namespace gpuplan
