#include <gpuplan/train_step.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/comm.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/gemm_fill.hpp>
#include <gpuplan/layout.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using detail::kBf16Bytes;
using detail::kFp32Bytes;

using detail::d;

// The link of a group spanning `span` consecutive ranks (TP innermost, then CP, DP, PP), as the
// communication model times it (group_path).
std::string link_name(const GpuSpec& gpu, std::uint64_t span) {
  return span <= 1 ? "-" : path_name(gpu, group_path(gpu, span, kDefaultGpusPerNode));
}

void check_efficiency(const TrainEfficiency& e) {
  const auto share = [](std::string_view name, double v) {
    if (!(v > 0 && v <= 1)) {
      throw InputError(fmt::format("train_efficiency.{}: expected a share in (0, 1], got {}", name, v));
    }
  };
  share("compute", e.compute);
  share("link", e.link);
  share("bandwidth", e.bandwidth);
  if (!(e.band_low > -1 && e.band_low <= 0 && e.band_high >= 0 && e.band_high < 10) ||
      !(e.moe_band_low > -1 && e.moe_band_low <= 0 && e.moe_band_high >= 0 && e.moe_band_high < 10)) {
    throw InputError("train_efficiency.band: expected low in (-1, 0] and high in [0, 10)");
  }
  if (!(e.gemm_half_flop >= 0 && e.gemm_half_flop < 1e15)) {
    throw InputError(fmt::format("train_efficiency.gemm_half_flop: expected a FLOP count in [0, 1e15), got {}",
                                 e.gemm_half_flop));
  }
  if (!(e.hop_latency_s >= 0 && e.hop_latency_s < 1) ||
      (e.network_bytes_per_s_per_gpu &&
       (!(*e.network_bytes_per_s_per_gpu > 0) || !std::isfinite(*e.network_bytes_per_s_per_gpu))) ||
      (e.host_memory_bytes_per_s_per_gpu &&
       (!(*e.host_memory_bytes_per_s_per_gpu > 0) || !std::isfinite(*e.host_memory_bytes_per_s_per_gpu))) || !(e.format_exponent >= 0 && e.format_exponent <= 4)) {
    throw InputError("train_efficiency: latency, network or host memory bandwidth or format exponent out of range");
  }
}

}  // namespace

TrainFlops train_flops(const ModelSpec& model, const TrainRequest& r) {
  TrainFlops f;
  const ParamCount pc = count_params(model);
  // The embedding is a lookup; a tied table still multiplies as the LM head.
  const double head = model.tie_word_embeddings ? pc.embedding : pc.lm_head;
  f.matmul_params = pc.attention + pc.dense_mlp + pc.shared_experts + pc.router + pc.active_routed_experts + head;
  // Per layer and token: QK^T 2 x keys x heads x d_qk and attention x V 2 x keys x heads x d_v,
  // counted over the full sequence as PaLM (appendix B, 12 L H Q T for forward + backward) and
  // Megatron do, causal masking notwithstanding; sliding windows cap the keys.
  double qk = d(model.head_dim);
  double vd = d(model.head_dim);
  if (model.mla) {
    qk = d(model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim);
    vd = d(model.mla->v_head_dim);
  }
  for (std::uint64_t i = 0; i < model.num_hidden_layers; ++i) {
    if (!model.has_attention(i)) {
      continue;
    }
    const double window = d(model.window_of_layer(i));
    const double keys = window > 0 ? std::min(window, d(r.seq_tokens)) : d(r.seq_tokens);
    f.attention_forward += 2.0 * keys * d(model.attention_heads_of_layer(i)) * (qk + vd);
  }
  // Forward 2N, backward 4N (gradients of activations and of weights); a frozen base skips the
  // weight gradients (2N) and the adapters train fully.
  const double adapters = r.method == TrainMethod::full ? 0.0 : lora_adapter_params(model, r.lora_rank);
  const double linear = r.method == TrainMethod::full ? 6.0 * f.matmul_params : 4.0 * f.matmul_params + 6.0 * adapters;
  f.model_flop_per_token = linear + 3.0 * f.attention_forward;
  f.hardware_flop_per_token = f.model_flop_per_token;
  if (r.recompute == Recompute::full) {
    f.hardware_flop_per_token += 2.0 * (f.matmul_params + adapters) + f.attention_forward;
  } else if (r.recompute == Recompute::selective) {
    f.hardware_flop_per_token += f.attention_forward;  // the core attention is recomputed
  } else if (r.recompute == Recompute::selective_op) {
    f.hardware_flop_per_token += 2.0 * op_sac_recomputed_params(model);  // the attention op is saved
  }
  // K and V replicated past the KV heads: without sequence parallelism every rank of a head's
  // replicas runs its projection over all the tokens (BigCode's Megatron-LM fork copies the input
  // to the TP region); with it each runs its own 1/TP of the tokens and gathers the output.
  const double replicas = d(r.layout.tp) / model.kv_projection_shards(r.layout.tp);
  if (replicas > 1.0 && !r.sequence_parallel) {
    const double passes = (r.method == TrainMethod::full ? 6.0 : 4.0) + (r.recompute == Recompute::full ? 2.0 : 0.0);
    f.hardware_flop_per_token += passes * count_params(model).kv_projection * (replicas - 1.0);
  }
  return f;
}

double train_gemm_fill(const ModelSpec& model, const TrainRequest& r, double gemm_half_flop) {
  const TrainLayout& l = r.layout;
  const double tokens = d(r.micro_batch) * d(r.seq_tokens) / d(l.cp);
  double flop = 0;
  double filled = 0;  // sum of flop / fill: each GEMM timed at its own size's rate
  for (const WeightTensor& t : weight_tensors(model)) {
    // The embedding is a lookup (a tied table multiplies as the LM head); the vision tower is not
    // in the trained FLOPs.
    const bool head = t.part == WeightPart::lm_head || (t.part == WeightPart::embedding && model.tie_word_embeddings);
    if (!t.matrix || t.part == WeightPart::vision || (t.part == WeightPart::embedding && !head)) {
      continue;
    }
    double width_share = d(l.tp);
    double gemm_tokens = tokens;
    if (t.replicated) {
      width_share = 1.0;
    } else if (t.split_by_kv_head) {
      width_share = model.kv_projection_shards(l.tp);
    } else if (t.part == WeightPart::routed_experts && model.moe) {
      // An expert's GEMM sees the tokens routed to it from its EP group: k / E of each rank's.
      width_share = d(l.expert_tp());
      gemm_tokens = tokens * d(model.moe->experts_per_token) * d(l.ep) / d(model.moe->routed_experts);
    }
    const double gemm_flop = 2.0 * d(t.rows) * d(t.cols) / width_share * gemm_tokens;
    const double weight = 2.0 * d(t.rows) * d(t.cols) * t.active_count;
    flop += weight;
    filled += weight / gemm_fill(gemm_flop, gemm_half_flop);
  }
  return filled > 0 ? flop / filled : 1.0;
}

double host_memory_rate(const GpuSpec& gpu, const TrainEfficiency& e) {
  constexpr double kGraceBytesPerS = 512e9;
  constexpr double kDgxA100HostBytesPerS = 409.6e9;
  constexpr double kReachable = 0.8;
  if (e.host_memory_bytes_per_s_per_gpu) {
    return *e.host_memory_bytes_per_s_per_gpu;
  }
  return gpu.host_link.kind == "nvlink-c2c" ? kGraceBytesPerS * kReachable / 2.0 : kDgxA100HostBytesPerS * kReachable / 8.0;
}

double network_rate(const GpuSpec& gpu, const TrainEfficiency& e) {
  return e.network_bytes_per_s_per_gpu.value_or(gpu.scale_out_bytes_per_s.value_or(kDefaultNetworkBytesPerSPerGpu));
}

bool overlaps_grad_reduce(const TrainRequest& r) {
  if (r.overlap_grad_reduce) {
    return *r.overlap_grad_reduce;
  }
  // Megatron-LM megatron/core/distributed/distributed_data_parallel_config.py @00119989:
  // overlap_grad_reduce = False; DeepSpeed deepspeed/runtime/zero/config.py @1b88ac36
  // (overlap_comm_valid): overlap_comm = stage == 3 when not given.
  return !r.framework.has_value();
}

bool overlaps_param_gather(const TrainRequest& r) {
  if (r.sharding != Sharding::zero1 && r.sharding != Sharding::zero2) {
    return false;
  }
  if (r.overlap_param_gather) {
    return *r.overlap_param_gather;
  }
  // Megatron-LM's overlap_param_gather = False (the same config file); ZeRO-2 is DeepSpeed's.
  return !r.framework.has_value() && r.sharding == Sharding::zero1;
}

TrainStep train_step(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& r, const TrainEfficiency& e) {
  validate_train_request(model, gpu, r);
  check_efficiency(e);
  const TrainLayout& l = r.layout;
  TrainStep s;
  s.micro_batches = r.micro_batches();
  const double m = d(s.micro_batches);
  const double seq_gpu = d(r.seq_tokens) / d(l.cp);      // tokens of a sequence one CP rank holds
  const double tokens_mb = d(r.micro_batch) * seq_gpu;   // per GPU of a TP group, per micro-batch
  s.tokens_per_step = m * d(r.micro_batch) * d(r.seq_tokens) * d(l.dp);

  s.compute_type = std::string(to_string(r.precision));
  // The 16-bit format the non-FP8 work runs in: fp16 with loss scaling where asked (Volta and
  // Turing have no bf16), else bf16.
  const double bf16_peak = gpu.dense_flop_per_s.at(r.precision == TrainPrecision::fp16 ? "fp16" : "bf16");
  s.peak_flop_per_s = gpu.dense_flop_per_s.at(s.compute_type);
  s.matmul_factor = matmul_factor(gpu, kTrainCalibratedMatmulShare);
  s.compute_efficiency = e.compute * s.matmul_factor * std::pow(bf16_peak / s.peak_flop_per_s, e.format_exponent);
  // Each GEMM at its size's share (inference's W / (W + W_half)): a 1B model's TP 8 slices and a
  // short micro-batch's GEMMs do not fill the GPU as a 70B model's do.
  s.gemm_fill = train_gemm_fill(model, r, e.gemm_half_flop);
  const double rate = s.peak_flop_per_s * s.compute_efficiency * s.gemm_fill;
  // FP8 training runs the linear layers in FP8; the core attention (FlashAttention under
  // Transformer Engine and torchao alike) stays in bf16, at bf16's rate.
  const double attention_rate = bf16_peak * e.compute * s.matmul_factor;

  const TrainFlops f = train_flops(model, r);
  const double model_parallel = d(l.tp * l.cp * l.pp);
  const bool attention_saved = r.recompute == Recompute::none || r.recompute == Recompute::selective_op;
  const double attention_hw = f.attention_forward * (attention_saved ? 3.0 : 4.0);
  const double mb_tokens = d(r.micro_batch) * d(r.seq_tokens) / model_parallel;
  const double mb_attention_s = attention_hw * mb_tokens / attention_rate;
  const double mb_compute_s = (f.hardware_flop_per_token - attention_hw) * mb_tokens / rate + mb_attention_s;

  // `stride`: a group whose members are every stride-th GPU of the span (DP over TP x CP ranks)
  // shares each node's NICs with the other groups there.
  const auto link = [&](std::uint64_t span, std::uint64_t stride = 1) {
    return group_link(gpu, span, kDefaultGpusPerNode, network_rate(gpu, e), e.link, e.hop_latency_s,
                      PcieRate::shared, stride);
  };
  // The slowest stage's: the one with the most layers (uneven stages as given).
  const double layers = d(stage_layers(model, l).most());
  const double moe_layers = std::ceil(d(model.moe_layer_count()) * layers / std::max(1.0, d(model.num_hidden_layers)));
  const double h = d(model.hidden_size);
  // Per layer: two all-reduces forward, two backward (with SP: all-gather + reduce-scatter, the
  // same bytes); a full recompute repeats the forward's, op-level SAC the output projection's (the
  // MLP's down projection is saved).
  const double passes = r.recompute == Recompute::full ? 3.0 : r.recompute == Recompute::selective_op ? 2.5 : 2.0;
  const double tp_mb = layers * 2.0 * passes * allreduce_s(tokens_mb * h * kBf16Bytes, l.tp, link(l.tp));
  s.tp_link = link_name(gpu, l.tp);
  // Expert all-to-all: dispatch and combine per MoE layer and pass, each token's k copies.
  double ep_mb = 0;
  if (model.moe && l.ep > 1) {
    const double sp = l.tp > 1 && r.sequence_parallel ? d(l.tp) : 1.0;
    const double bytes = tokens_mb / sp * d(model.moe->experts_per_token) * h * kBf16Bytes;
    // EP's ranks sit ETP apart: across the TP group's (each expert whole, MoE parallel folding)
    // or beyond it.
    ep_mb = moe_layers * 2.0 * passes * alltoall_s(bytes, l.ep, link(l.expert_tp() * l.ep));
  }
  // Context parallelism (ring attention): each rank gathers the others' K and V chunks forward
  // and reduce-scatters their gradients backward, overlapped with the attention it feeds.
  double cp_mb = 0;
  if (l.cp > 1) {
    const double kv_width = model.mla ? d(model.num_attention_heads) * d(model.mla->qk_nope_head_dim +
                                                                           model.mla->qk_rope_head_dim + model.mla->v_head_dim)
                                      : 2.0 * d(model.num_key_value_heads) * d(model.head_dim);
    const double kv_ranks = model.mla ? d(l.tp) : model.kv_projection_shards(l.tp);
    const double chunk = tokens_mb * kv_width / kv_ranks * kBf16Bytes;
    const double total = layers * allreduce_s(chunk * d(l.cp), l.cp, link(l.tp * l.cp, l.tp));
    cp_mb = std::max(0.0, total - mb_attention_s);
  }
  // Pipeline: one activation forward and one gradient backward per micro-batch (split TP ways
  // with SP's scatter-gather; whole on every TP rank without it).
  double pp_mb = 0;
  if (l.pp > 1) {
    const double sp = l.tp > 1 && r.sequence_parallel ? d(l.tp) : 1.0;
    pp_mb = 2.0 * p2p_s(tokens_mb * h * kBf16Bytes / sp, link(l.gpus()));
  }
  // QLoRA: bitsandbytes dequantizes each NF4 weight to bf16 before its matmul, in the forward, in
  // a recompute and in the backward (the input gradient's matmul), whatever the micro-batch's
  // size: a fixed, memory-bound time per pass that dominates short sequences (Qwen-72B Q-LoRA on
  // one A100: 3.4 s a micro-batch at 256 tokens, 7.4 s at 2048; QwenLM/Qwen README @03cd81f).
  double dequant_mb = 0;
  if (r.method == TrainMethod::qlora) {
    const double dequant_passes = r.recompute == Recompute::full           ? 3.0
                                  : r.recompute == Recompute::selective_op ? 2.5
                                                                           : 2.0;
    dequant_mb = dequant_passes * qlora_dequant_bytes_per_pass(model, r) /
                 (gpu.memory_bandwidth_bytes_per_s * e.bandwidth);
  }
  // Eager attention (--attention eager) materializes each head's s x s scores in HBM. Hugging Face
  // Transformers' eager_attention_forward (src/transformers/models/llama/modeling_llama.py): the
  // QK^T matmul writes them (bf16, 2 B), `* scaling` reads and writes them (4), the mask's add
  // reads them and the mask and writes (6), softmax(dtype=float32) reads bf16 and writes fp32 (6),
  // `.to(query.dtype)` reads fp32 and writes bf16 (6), the matmul with V reads them (2): 26 B a
  // score forward (dropout at p = 0 returns its input). Backward: the V matmul's grad writes dP
  // (2) and dV's matmul reads P (2), the cast back reads bf16 and writes fp32 (6), softmax's
  // backward reads its fp32 output and gradient and writes fp32 (12), the cast to bf16 (6), the
  // scaling's (4) and the QK^T matmul's two reads (4): 36 B. A recompute (full, or Megatron's
  // selective: the core attention) runs the forward's again. Causal masking skips nothing here,
  // and sliding windows are masks too: every layer's full s x s, memory-bound at the streaming
  // share of HBM bandwidth. FlashAttention keeps the scores on chip (no such traffic).
  // Megatron's core attention (megatron/core/transformer/dot_product_attention.py) folds the scale
  // into baddbmm (writes 2) and runs FusedScaleMaskSoftmax in one kernel (reads 2, writes 2) before
  // the V bmm reads 2: 8 B forward; backward dP (2), dV's read of P (2), the fused softmax backward
  // (reads 4, writes 2), dQ's and dK's reads (4): 14 B.
  double scores_mb = 0;
  if (!r.flash_attention) {
    const bool megatron = megatron_style(r);
    const double forward_bytes = megatron ? 8.0 : 26.0;
    const double backward_bytes = megatron ? 14.0 : 36.0;
    const bool recomputes_attention = r.recompute == Recompute::full || r.recompute == Recompute::selective;
    const double bytes_per_score = forward_bytes * (recomputes_attention ? 2.0 : 1.0) + backward_bytes;
    double attention_layers = 0;
    for (std::uint64_t i = 0; i < model.num_hidden_layers; ++i) {
      attention_layers += model.has_attention(i) ? 1.0 : 0.0;
    }
    // This GPU's heads (TP splits them), its stage's layers, its CP share of the query rows.
    const double scores = d(r.micro_batch) * seq_gpu * d(r.seq_tokens) * model.mean_attention_heads() / d(l.tp) *
                          attention_layers / d(l.pp);
    scores_mb = scores * bytes_per_score / (gpu.memory_bandwidth_bytes_per_s * e.bandwidth);
  }
  const double mb_s = mb_compute_s + dequant_mb + scores_mb + tp_mb + ep_mb + cp_mb + pp_mb;
  s.compute_s = m * mb_compute_s;
  s.dequant_s = m * dequant_mb;
  s.attention_scores_s = m * scores_mb;
  s.tp_comm_s = m * tp_mb;
  s.ep_comm_s = m * ep_mb;
  s.cp_comm_s = m * cp_mb;
  s.pp_comm_s = m * pp_mb;
  // 1F1B's fill and drain: (p - 1) micro-batch times, divided by the virtual stages when
  // interleaved (Narayanan et al. 2021, section 2.2): bubble share (p - 1)/(v m + p - 1).
  s.bubble_s = d(l.pp - 1) / d(l.vpp) * mb_s;

  // Data parallelism over DP x CP ranks (CP ranks hold the same weights); experts over
  // TP x CP x DP / (ETP x EP). Gradients move in bf16 (fp32 under autocast; LoRA's adapters in theirs: fp32, bf16 in pure bf16).
  const TrainMemory mem = train_memory(model, gpu, r);
  const CommLink dp_link = link(l.tp * l.cp * l.dp, l.tp * l.cp);
  s.dp_link = link_name(gpu, l.tp * l.cp * l.dp);
  const bool full = r.method == TrainMethod::full;
  const double experts_group = d(l.expert_dp());
  const double expert_share = full ? mem.expert_params_per_gpu / std::max(1.0, mem.params_per_gpu) : 0.0;
  // EP is carved out of the DP x CP ranks next to TP (the all-to-all's link(tp x ep)), so an
  // expert-data-parallel group takes every (TP x EP)-th GPU: with EP filling a node, one rank a
  // node, whose ring gets one NIC while the node's other groups use the rest.
  const CommLink expert_link = link(l.tp * l.cp * l.dp, l.expert_tp() * l.ep);
  // A ring over the dense group for the dense share, over the expert group for the experts'.
  const auto reduce = [&](double bytes) {
    return allreduce_s(bytes * (1.0 - expert_share), l.dp * l.cp, dp_link) +
           allreduce_s(bytes * expert_share, static_cast<std::uint64_t>(experts_group), expert_link);
  };
  const double grad_bytes =
      full ? mem.params_per_gpu * full_weight_bytes(r.master_weights)
           : mem.adapter_params / d(l.tp * l.pp) * updated_weight_bytes(r.master_weights);
  const bool zero3 = r.sharding == Sharding::zero3 || r.sharding == Sharding::fsdp;
  if (zero3) {
    // ZeRO section 7.2.2: per pass, an all-gather of the parameters forward and again backward
    // (each half an all-reduce) plus a reduce-scatter of the gradients: 1.5x an all-reduce.
    // Both repeat it every micro-batch; a frozen base is gathered but not reduced. FSDP prefetches
    // the next unit's gather on its own stream, hiding it under that micro-batch's compute.
    // DeepSpeed's ZeRO-3 fetches each module's parameters in its forward and backward hooks and
    // waits for them there, so its gathers stay on the critical path; its reduce-scatter overlaps
    // the backward (overlap_comm, on for stage 3). FlagPerf's Llama-2-7B on 8 H800s ran at 7,151
    // tokens/s per GPU where full overlap gave 12,018 (a test).
    double gathers = reduce(mem.working_bytes_per_gpu);
    // Under no_sync only the last micro-batch reduce-scatters (the step's one, spread per micro-batch).
    double scatter = 0.5 * reduce(grad_bytes) / (r.sync_last_micro_batch.value_or(false) ? m : 1.0);
    if (r.sharding == Sharding::zero3) {
      // That is the bytes; DeepSpeed moves them in many collectives, each paying a ring's latency
      // over all the DP ranks. Its ZeRO-3 hooks every module holding parameters and
      // fetch_sub_module issues an all_gather_coalesced for the module's parameters (and one for the
      // next modules' prefetch, up to stage3_prefetch_bucket_size elements) in the forward and
      // again in the backward (deepspeedai/DeepSpeed deepspeed/runtime/zero/
      // partitioned_param_coordinator.py @00a31c9): one all-gather per module and pass, n - 1
      // hops each. Modules per layer: q, k, v, o, gate, up, down and two norms for a gated-MLP
      // (Llama-style) block, qkv, dense, fc1, fc2 and two norms for a GPT-style one; a MoE
      // layer's experts are modules of their own. Gradients are reduce-scattered per
      // reduce_bucket_size (5e8 elements by default, DeepSpeed's zero/config.py): one more ring
      // latency per bucket. Both are charged beyond the one all-reduce's latency above.
      const double modules_per_layer =
          (model.mlp_gated ? 9.0 : 6.0) +
          (model.moe ? d(model.moe->routed_experts) * (model.mlp_gated ? 3.0 : 2.0) : 0.0);
      const double ring_s = d(l.dp * l.cp - 1) * dp_link.hop_latency_s;
      gathers += 2.0 * std::max(0.0, layers * modules_per_layer - 1.0) * ring_s;
      constexpr double kReduceBucketBytes = 5e8 * kBf16Bytes;
      const double buckets = std::ceil(grad_bytes / kReduceBucketBytes);
      scatter += std::max(0.0, buckets - 1.0) * ring_s / (r.sync_last_micro_batch.value_or(false) ? m : 1.0);
    }
    const double per_mb = gathers + scatter;
    s.dp_comm_s = m * per_mb;
    s.dp_exposed_s = r.sharding == Sharding::zero3
                         ? m * (gathers + std::max(0.0, scatter - 2.0 / 3.0 * mb_compute_s))
                         : m * std::max(0.0, per_mb - mb_compute_s);
  } else {
    // One all-reduce after the last micro-batch; ZeRO-1/2 split it into a reduce-scatter of the
    // gradients and, after the optimizer step, an all-gather of the updated parameters (half each).
    const bool sharded = r.sharding == Sharding::zero1 || r.sharding == Sharding::zero2;
    const double all_reduce_s = reduce(grad_bytes);
    const double grad_s = sharded ? 0.5 * all_reduce_s : all_reduce_s;
    const double gather_s = all_reduce_s - grad_s;
    s.dp_comm_s = all_reduce_s;
    // With overlap the buckets reduce as the last micro-batch's backward produces them (2/3 of
    // its compute), but the last bucket (the first layers and the embedding) is only ready as
    // the backward ends: it is always exposed. Megatron-Core's bucket is max(4e7, 1e6 x DP)
    // parameters (distributed_data_parallel.py @00119989), DeepSpeed's reduce_bucket_size 5e8
    // elements, PyTorch DDP's bucket_cap_mb 25 MiB. Without overlap it all follows the backward.
    const double elements = std::max(1.0, grad_bytes / (full ? full_weight_bytes(r.master_weights) : updated_weight_bytes(r.master_weights)));
    const double bucket_elements =
        r.framework == TrainFramework::deepspeed ? 5e8
        : r.sharding == Sharding::none && !megatron_style(r)
            ? r.bucket_bytes / kBf16Bytes
            : std::max(4e7, 1e6 * d(l.dp * l.cp));
    const double last_bucket = std::min(1.0, bucket_elements / elements);
    const auto hidden_under = [&](double comm_s, bool overlap, double window_s) {
      return overlap ? std::max(0.0, comm_s * (1.0 - last_bucket) - window_s) + comm_s * last_bucket : comm_s;
    };
    // The parameter all-gather follows the step: Megatron's --overlap-param-gather launches it
    // bucket by bucket in the next step's first forward (1/3 of a micro-batch's compute), the
    // first bucket waited for; otherwise it runs before that forward, exposed.
    s.dp_exposed_s = hidden_under(grad_s, overlaps_grad_reduce(r), 2.0 / 3.0 * mb_compute_s) +
                     hidden_under(gather_s, overlaps_param_gather(r), 1.0 / 3.0 * mb_compute_s);
  }
  // What crosses the host link does so on every GPU of a server at once (the shared PCIe rate
  // where the catalog gives one).
  const double host_rate =
      (l.gpus() > 1 ? gpu.host_link.peer_rate() : gpu.host_link.bytes_per_s_per_direction) * e.link;
  if (r.offload == Offload::paged && mem.paged_states > 0) {
    // Paged states (bitsandbytes prefetches each tensor's before its update): the step walks all
    // of them in order, and least-recently-used eviction then misses on every page, so all of
    // them come in as much goes out, both directions of the host link at once, every step, with
    // nothing to hide behind (the step follows the backward, or is inside it and waits).
    s.host_link = gpu.host_link.kind;
    s.offload_transfer_s = mem.paged_optimizer_states / host_rate;
    s.offload_exposed_s = s.offload_transfer_s;
  }
  // CPU offload (ZeRO-Offload, Ren et al. 2021; FSDP's CPUOffload): the optimizer step runs on
  // the host over this GPU's partition and tensors cross the host link. Gradients and the updated
  // weights cross in bf16 (LoRA's adapters in their own type).
  if (steps_on_cpu(r.offload)) {
    s.host_link = gpu.host_link.kind;
    const double trained = mem.optimizer_params_per_gpu * (full ? full_weight_bytes(r.master_weights) : updated_weight_bytes(r.master_weights));
    s.cpu_optimizer_s = mem.optimizer_params_per_gpu * optimizer_step_bytes_per_param(r) / host_memory_rate(gpu, e);
    if (r.offload == Offload::params) {
      // FSDP copies each unit's parameter shard up before its all-gather, forward and backward,
      // and its gradient shard down after the reduce-scatter, every micro-batch, on the stream
      // of the gathers it prefetches: they share the gathers' window under the compute. The step
      // updates the host copy in place, so nothing goes up after it.
      const double per_mb = (2.0 * mem.host_parameters + trained) / host_rate;
      s.offload_transfer_s = m * per_mb;
      s.offload_exposed_s = std::max(0.0, m * std::max(0.0, s.dp_comm_s / m + per_mb - mb_compute_s) - s.dp_exposed_s);
    } else {
      // ZeRO-Offload copies each micro-batch's gradient partition down during its backward (2/3
      // of its compute) and accumulates on the host; the step and the copy of the updated
      // partition back follow the last backward unhidden (the one-step delayed update that
      // would overlap them is off by default).
      const double partition_s = trained / host_rate;
      s.offload_transfer_s = (m + 1.0) * partition_s;
      s.offload_exposed_s = m * std::max(0.0, partition_s - 2.0 / 3.0 * mb_compute_s) + partition_s;
    }
  }
  // The optimizer step on the GPU, once per global batch after the last backward (or inside it
  // with optimizer-in-backward, on the same memory): each rank updates its ZeRO/FSDP partition, a
  // memory-bound pass over the weights it updates, the gradients and the moments
  // (optimizer_step_bytes_per_param: a fused AdamW's traffic, as Megatron's, DeepSpeed's and
  // torchtitan's kernels run it). Pure bf16 AdamW on a 3.2 B model streams 45 GB: 66 ms on an L40S.
  if (!steps_on_cpu(r.offload)) {
    s.gpu_optimizer_s = mem.optimizer_params_per_gpu * optimizer_step_bytes_per_param(r) /
                        (gpu.memory_bandwidth_bytes_per_s * e.bandwidth);
  }
  s.step_s = m * mb_s + s.bubble_s + s.dp_exposed_s + s.offload_exposed_s + s.cpu_optimizer_s + s.gpu_optimizer_s;
  s.tokens_per_s = s.tokens_per_step / s.step_s;
  const double gpus = d(l.gpus());
  s.model_flop_per_s_per_gpu = f.model_flop_per_token * s.tokens_per_s / gpus;
  s.mfu = s.model_flop_per_s_per_gpu / s.peak_flop_per_s;
  s.hfu = f.hardware_flop_per_token * s.tokens_per_s / gpus / s.peak_flop_per_s;
  return s;
}

}  // namespace gpuplan
