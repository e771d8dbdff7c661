#include <gpuplan/train_memory.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/weight_format.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using detail::kBf16Bytes;
using detail::kFp32Bytes;

template <typename E, std::size_t N>
E parse_enum(std::string_view text, std::string_view field, std::string_view what, const std::array<E, N>& all) {
  std::vector<std::string> names;
  for (E e : all) {
    if (to_string(e) == text) {
      return e;
    }
    names.emplace_back(to_string(e));
  }
  const auto close = closest_names(text, names);
  throw InputError(fmt::format("{}: unknown {} '{}'{}; known: {}", field, what, text,
                               close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")),
                               fmt::join(names, ", ")));
}

using detail::d;

// Bytes per parameter of the optimizer's moments (the fp32 master copy is separate): AdamW keeps
// m and v in fp32 (8, so 4 + 8 = ZeRO's K = 12 with the master); bitsandbytes' 8-bit AdamW keeps
// them in int8 with a block scale per 2048 (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
// Quantization"): 2 bytes; SGD with momentum keeps one fp32 buffer. Without a master copy,
// torch's optimizers create their moments in the parameters' dtype: bf16, half the bytes.
double moment_bytes(Optimizer o, MasterWeights w, Offload offload = Offload::none) {
  // bitsandbytes' 32-bit (paged) optimizers create fp32 states whatever the parameters' type.
  const double fp32_share =
      w == MasterWeights::fp32 || w == MasterWeights::autocast || offload == Offload::paged ? 1.0 : kBf16Bytes / kFp32Bytes;
  switch (o) {
    case Optimizer::adamw: return 8.0 * fp32_share;
    case Optimizer::adamw_8bit: return 2.0;
    case Optimizer::sgd: return 4.0 * fp32_share;
  }
  return 8.0;
}

// Which model-state terms the stage partitions (ZeRO paper: Pos, Pos+g, Pos+g+p; FSDP's
// FULL_SHARD is Pos+g+p).
int stage(Sharding s) {
  switch (s) {
    case Sharding::none: return 0;
    case Sharding::zero1: return 1;
    case Sharding::zero2: return 2;
    case Sharding::zero3:
    case Sharding::fsdp: return 3;
  }
  return 0;
}

// A per-part quantity (parameters or bytes) as one GPU of a pipeline stage holds it.
struct GpuShare {
  double dense = 0;    // attention, dense MLP, shared experts, router, norms, embeddings, head
  double experts = 0;  // routed experts
  double layer = 0;    // one average transformer layer of the shard (ZeRO-3/FSDP's gather unit)
  double ends = 0;     // embedding/head of the stage
};

// One GPU's share of the stage `st` holding `layers` decoder layers. Megatron-LM builds the
// embedding on the first stage (pre_process) and the output layer and loss on the last
// (post_process); a tied table gets its own copy there. Its memory estimate takes the first as
// the most loaded shard: its layers plus the embedding (NVIDIA/Megatron-LM
// megatron/training/theoretical_memory_usage.py @38644dd7, num_parameters_on_most_loaded_model_shard).
GpuShare gpu_share(const ModelSpec& model, const std::array<double, kWeightParts>& by_part, const TrainLayout& l,
                   PipelineStage st, std::uint64_t stage_layers) {
  const auto at = [&by_part](WeightPart p) { return by_part[static_cast<std::size_t>(p)]; };
  const double tp = d(l.tp);
  // K and V past the KV heads: each TP rank keeps a whole head's projection (kv_projection_shards),
  // as BigCode's Megatron-LM fork keeps MQA's K/V layer whole on every rank. Counted as if the TP
  // group held tp / shards copies; the projections share the attention part's format.
  const ParamCount pc = count_params(model);
  const double kv_share = pc.attention > 0 ? pc.kv_projection / pc.attention : 0.0;
  const double attention =
      at(WeightPart::attention) * (1.0 + kv_share * (tp / model.kv_projection_shards(l.tp) - 1.0));
  const double body = attention + at(WeightPart::dense_mlp) + at(WeightPart::shared_experts) +
                      at(WeightPart::router) + at(WeightPart::norms);
  double head = at(WeightPart::lm_head);
  if (model.tie_word_embeddings && l.pp > 1) {
    head = at(WeightPart::embedding);  // the last stage keeps its own copy of a tied table
  }
  const double first = at(WeightPart::embedding) + at(WeightPart::vision);
  const double ends = st == PipelineStage::only    ? first + head
                      : st == PipelineStage::first ? first
                      : st == PipelineStage::last  ? head
                                                   : 0.0;
  const double share = d(stage_layers) / std::max(1.0, d(model.num_hidden_layers));
  GpuShare s;
  s.ends = ends / tp;
  s.dense = body * share / tp + s.ends;
  s.experts = at(WeightPart::routed_experts) * share / (d(l.ep) * d(l.expert_tp()));
  s.layer = (body * share / tp + s.experts) / std::max(1.0, d(stage_layers));
  return s;
}

std::array<double, kWeightParts> params_by_part(const ParamCount& pc) {
  std::array<double, kWeightParts> out{};
  const auto set = [&out](WeightPart p, double v) { out[static_cast<std::size_t>(p)] = v; };
  set(WeightPart::embedding, pc.embedding);
  set(WeightPart::lm_head, pc.lm_head);
  set(WeightPart::attention, pc.attention);
  set(WeightPart::dense_mlp, pc.dense_mlp);
  set(WeightPart::routed_experts, pc.routed_experts);
  set(WeightPart::shared_experts, pc.shared_experts);
  set(WeightPart::router, pc.router);
  set(WeightPart::norms, pc.norms);
  set(WeightPart::vision, pc.vision);
  return out;
}

// QLoRA (Dettmers et al. 2023): NF4 with double quantization on every linear layer; embeddings,
// the LM head, norms and the vision tower stay bf16, or fp32 once PEFT has prepared the model.
// LoRA's frozen base is the checkpoint as from_pretrained loads it: a GPTQ, AWQ or bitsandbytes
// checkpoint (config.json's quantization_config) stays in its formats, the adapters training on
// top (PEFT's LoRA layers for those quantizers, peft src/peft/tuners/lora/{gptq,awq,bnb}.py;
// Hugging Face's "Finetune GPTQ model with peft and trl" gist).
WeightFormats base_formats(const ModelSpec& model, const TrainRequest& r) {
  if (r.method == TrainMethod::lora && quantized_checkpoint(model)) {
    return *model.shipped_formats;
  }
  WeightFormats f;
  const WeightFormat linear =
      r.method == TrainMethod::qlora ? parse_weight_format("nf4-dq", "train.method") : default_format(DType::bf16);
  for (WeightPart p : {WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts,
                       WeightPart::shared_experts, WeightPart::router}) {
    f[p] = linear;
  }
  if (peft_kbit_prepared(r)) {
    for (WeightPart p : {WeightPart::embedding, WeightPart::lm_head, WeightPart::norms, WeightPart::vision}) {
      f[p] = default_format(DType::fp32);
    }
  }
  if (r.master_weights == MasterWeights::autocast) {
    // The checkpoint loaded in fp32 (from_pretrained without torch_dtype), autocast casting per matmul.
    for (WeightPart p : {WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts, WeightPart::shared_experts,
                         WeightPart::router, WeightPart::embedding, WeightPart::lm_head, WeightPart::norms, WeightPart::vision}) {
      f[p] = default_format(DType::fp32);
    }
  }
  return f;
}

// Elements of the model's largest weight matrix (the embedding and LM head counted or not).
double largest_matrix(const ModelSpec& model, bool with_ends) {
  double largest = 0;
  for (const WeightTensor& t : weight_tensors(model)) {
    if (t.matrix && (with_ends || (t.part != WeightPart::embedding && t.part != WeightPart::lm_head))) {
      largest = std::max(largest, d(t.rows) * d(t.cols));
    }
  }
  return largest;
}

void check_range(std::string_view field, std::uint64_t value, std::uint64_t low, std::uint64_t high) {
  if (value < low || value > high) {
    throw InputError(fmt::format("train.{}: must be between {} and {}, got {}", field, low, high, value));
  }
}

// The memory of pipeline stage `rank` (0 without a pipeline), of kind `st`, holding `layers`.
TrainMemory stage_memory(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& r, PipelineStage st,
                         std::uint64_t rank, std::uint64_t layers) {
  TrainMemory m;
  m.peak_stage = st;
  m.stage_layers = layers;
  const TrainLayout& l = r.layout;
  const ParamCount pc = count_params(model);
  const GpuShare params = gpu_share(model, params_by_part(pc), l, st, layers);
  const double layer_share = d(layers) / std::max(1.0, d(model.num_hidden_layers));
  const bool has_head = st == PipelineStage::only || st == PipelineStage::last;
  const double shard_dense = d(l.dp * l.cp);
  const double shard_experts = d(l.expert_dp());
  const int z = stage(r.sharding);
  // Bytes of `per_param` for every parameter of a share, divided over DP when the stage says so.
  const auto sharded = [&](const GpuShare& s, double per_param, int from_stage) {
    const bool split = z >= from_stage;
    return per_param * (s.dense / (split ? shard_dense : 1.0) + s.experts / (split ? shard_experts : 1.0));
  };
  m.params_per_gpu = params.dense + params.experts;
  m.expert_params_per_gpu = params.experts;
  // Under autocast the weights (and so FSDP's gathered units and the gradients) stay fp32.
  const double weight_bytes = full_weight_bytes(r.master_weights);
  m.working_bytes_per_gpu = weight_bytes * m.params_per_gpu;
  const double moments = moment_bytes(r.optimizer, r.master_weights, r.offload);
  const bool master = r.master_weights == MasterWeights::fp32;
  if (r.method == TrainMethod::full) {
    m.trainable_params = pc.total();
    m.optimizer_params_per_gpu = sharded(params, 1.0, 1);
    // ZeRO section 3.1: 2 bytes of fp16/bf16 parameters, 2 of gradients, K = 12 of optimizer
    // states (fp32 master 4 + Adam's m and v 8); pure bf16 drops the master and halves m and v.
    m.parameters = sharded(params, weight_bytes, 3);
    // Optimizer in backward: a gradient lives from its computation to its own update, so the
    // largest tensor's (the embedding or LM head, vocab-parallel under TP) is the most held.
    m.gradients = r.optimizer_in_backward ? kBf16Bytes * largest_matrix(model, true) / d(l.tp)
                  : fp32_main_grads(r)      ? sharded(params, kFp32Bytes, 2)
                  // Unsharded until the last micro-batch: the gradient takes the FSDP flat
                  // parameter's dtype, fp32 beside an fp32 master (mixed precision), bf16 in pure
                  // bf16 (lit-llama's pretrain/redpajama.py @1444d24a builds the model under
                  // torch.set_default_dtype(torch.bfloat16) and accumulates under no_backward_sync
                  // on 4 A100-40GB).
                  : (r.sync_last_micro_batch.value_or(false) || fsdp_stage_unsharded(r)) && r.micro_batches() > 1
                      ? updated_weight_bytes(r.master_weights) * m.params_per_gpu
                      : sharded(params, weight_bytes, 2);
    m.master_weights = master ? sharded(params, kFp32Bytes, 1) : 0.0;
    m.optimizer_states = sharded(params, moments, 1);
  } else {
    // Frozen base in its format (bf16, or NF4 for QLoRA), sharded only by ZeRO-3/FSDP; the
    // adapters train in fp32 (PEFT's default; bf16 in pure bf16), so they need no master copy.
    m.adapter_params = lora_adapter_params(model, r.lora_rank);
    m.trainable_params = m.adapter_params;
    const double adapter_bytes = updated_weight_bytes(r.master_weights);
    const GpuShare base = gpu_share(model, weight_bytes_by_part(model, base_formats(model, r)), l, st, layers);
    const GpuShare adapters{.dense = m.adapter_params * layer_share / d(l.tp)};
    m.optimizer_params_per_gpu = sharded(adapters, 1.0, 1);
    m.parameters = sharded(base, 1.0, 3) + sharded(adapters, adapter_bytes, 3);
    m.working_bytes_per_gpu = base.dense + base.experts;
    m.gradients = sharded(adapters, adapter_bytes, 2);
    m.optimizer_states = sharded(adapters, moments, 1);
  }
  // ZeRO-Offload moves the optimizer step (states, master and the reduced gradient partition) to
  // the CPU; parameter offload (ZeRO-Infinity / FSDP CPU offload) moves the parameters too.
  // Megatron's --optimizer-cpu-offload moves the master and the moments and steps on the CPU, but
  // the backward still accumulates into the main_grad buffer on the GPU.
  // DeepSpeed's host gradient partition is in the optimizer's type, fp32 beside an fp32 master
  // (stage_1_and_2.py @7dee2e06, initialize_optimizer_states: single_partition_of_fp32_groups[i].grad
  // on the CPU; its estimate_zero2_model_states_mem_needs puts the offload floor at 16 bytes a
  // parameter = 4 master + 8 moments + 4 gradient), one per optimizer partition.
  if (steps_on_cpu(r.offload)) {
    const bool grads_stay = megatron_style(r);
    const double host_gradients = updated_weight_bytes(r.master_weights) * m.optimizer_params_per_gpu;
    m.host_bytes += m.master_weights + m.optimizer_states + (grads_stay ? 0.0 : host_gradients);
    m.master_weights = m.optimizer_states = 0;
    if (!grads_stay) {
      m.gradients = 0;
    }
  }
  if (r.offload == Offload::params) {
    m.host_parameters = m.parameters;
    m.host_bytes += m.parameters;
    m.parameters = 0;
  }

  const LayerActivation a = layer_activation_bytes_per_token(model, r);
  const double tokens = d(r.micro_batch) * d(r.seq_tokens) / d(l.cp);
  m.activations_per_micro_batch = a.stored * tokens * d(layers);
  // 1F1B (Narayanan et al. 2021): stage i keeps p - i micro-batches' activations; the first, p.
  const std::uint64_t mbs = r.micro_batches();
  m.micro_batches_in_flight = l.pp > 1 ? std::min<std::uint64_t>(l.pp - rank, mbs) : 1;
  // Interleaved 1F1B: stage i's warm-up runs (p - i - 1) x 2 + (v - 1) x p model chunks of 1/v of
  // its layers before its first backward (Megatron-LM megatron/core/pipeline_parallel/schedules.py,
  // forward_backward_pipelining_with_interleaving: num_warmup_microbatches), one more in flight:
  // the first stage holds 1 + (p - 1) / (p v) times 1F1B's activations, as Megatron's estimate
  // (NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py @38644dd7,
  // compute_activation_memory: interleaved_schedule_memory_penalty), the last ((v - 1) p + 1) / v.
  if (l.pp > 1 && l.vpp > 1) {
    const double p = d(l.pp);
    const double v = d(l.vpp);
    const double chunks = (p - d(rank) - 1.0) * 2.0 + (v - 1.0) * p + 1.0;
    const double units = chunks / v * std::min(1.0, d(mbs) / p);
    m.interleave_penalty = units / d(m.micro_batches_in_flight);
  }
  m.activations = m.activations_per_micro_batch * d(m.micro_batches_in_flight) * m.interleave_penalty;
  if (r.recompute == Recompute::full) {
    // The backward rebuilds one layer's activations at a time (Korthikanti section 4: 2sbhL plus
    // one layer's working set).
    const double sp = (l.tp > 1 && r.sequence_parallel) ? d(l.tp) : 1.0;
    m.activations += (a.replicated / sp + a.split + (r.flash_attention ? 0.0 : a.scores)) * tokens;
  } else if (r.recompute == Recompute::selective_op) {
    // The backward rebuilds what one layer did not save, a layer at a time.
    const double sp = (l.tp > 1 && r.sequence_parallel) ? d(l.tp) : 1.0;
    m.activations += std::max(0.0, a.replicated / sp + a.split - a.stored) * tokens;
  }
  // Logits of one micro-batch as the loss holds them (loss_bytes_per_logit), split over TP
  // (vocab-parallel), on the stage computing the loss (the last; the only one without a
  // pipeline), beside that stage's own micro-batches in flight. A fused linear cross-entropy never holds
  // them whole: Liger sizes its chunks at about tokens x hidden / vocab rows, so a chunk's fp32
  // logits are about the hidden states' size, and it computes the bf16 input gradient in the
  // forward: 4 + 2 bytes per token and hidden unit.
  const LossKernel loss = r.loss_kernel();
  m.logits = !has_head ? 0.0
             : loss == LossKernel::fused_linear
                 ? (kFp32Bytes + kBf16Bytes) * d(model.hidden_size) / d(l.tp) * tokens
                 : d(model.vocab_size) * loss_bytes_per_logit(loss) / d(l.tp) * tokens;
  // Gemma 2's final logit soft-cap (logits / cap, tanh, x cap: transformers' Gemma2ForCausalLM.forward,
  // huggingface/transformers@006e8693) runs in autograd between the head and the loss, and tanh
  // keeps its output for its backward (1 - tanh^2): one more logits-sized tensor in the head's
  // bf16 output, held from the forward to the backward. The division and the multiplication by a
  // constant keep nothing. A fused linear cross-entropy applies the cap inside its chunks. Gemma 2
  // 9B LoRA at 2 x 8,192 tokens (vocab 256,000) measured 60 GiB against 50.9 without it
  // (tools/heldout/train-public-18.json, ljm565/universal-llm-trainer docs/gpu_test.md).
  if (has_head && loss != LossKernel::fused_linear && model.final_logit_softcap > 0) {
    m.softcap_logits = d(model.vocab_size) * kBf16Bytes / d(l.tp) * tokens;
    m.logits += m.softcap_logits;
  }

  if (z == 3) {
    // FSDP wraps each decoder layer as a unit: one gathered, the next prefetched, and its
    // gradients before the reduce-scatter; the root unit (embeddings, LM head) stays gathered
    // for the whole step. A frozen base needs no gradients.
    const double base_bytes_per_param = r.method == TrainMethod::full
                                            ? full_weight_bytes(r.master_weights)
                                            : gpu_share(model, weight_bytes_by_part(model, base_formats(model, r)), l, st, layers).dense /
                                                  std::max(1.0, params.dense);
    const double layer_copies = r.method == TrainMethod::full ? 3.0 : 2.0;
    m.buckets = base_bytes_per_param * (layer_copies * params.layer + params.ends);
    if (fsdp_stage_unsharded(r)) {
      // Under a pipeline every unit stays gathered: the whole stage's working copy.
      m.buckets = base_bytes_per_param * (params.dense + params.experts);
    }
  } else if (l.dp * l.cp > 1) {
    m.buckets = 2.0 * r.bucket_bytes;
  }
  if (autocast_weight_copies_held(r)) {
    // Autocast's 16-bit copy of each weight (its cast before the matmul): autograd keeps it for
    // the input gradient of every layer not recomputed, and autocast's cache keeps the copies of
    // leaf parameters that require grad until the forward's autocast region exits, recomputed
    // or not (aten/src/ATen/autocast_mode.cpp, cached_cast: fp32 leaf, requires_grad, not a
    // view; torch.autocast.__exit__ clears the cache). FSDP's parameters are views of its flat
    // parameter, not cached. The whole stage's weights, as bf16.
    m.buckets += kBf16Bytes * (params.dense + params.experts);
  }
  if (r.method == TrainMethod::qlora) {
    // The NF4 matrix being multiplied is dequantized to bf16 first.
    m.buckets += kBf16Bytes * largest_matrix(model, false) / d(l.tp);
  }
  if (peft_kbit_prepared(r) && has_head) {
    // Autocast multiplies the fp32 LM head in bf16: its bf16 copy is kept for the backward.
    m.buckets += kBf16Bytes * (model.tie_word_embeddings ? pc.embedding : pc.lm_head) / d(l.tp);
  }
  if (const double group = zero_step_group_params(r, m.optimizer_params_per_gpu); group > 0) {
    // The step flattens the bf16 gradients of the group (a copy) and upcasts it to fp32 before
    // the flat copy is freed: 2 + 4 bytes a parameter at once. Then torch's AdamW (what Hugging
    // Face's Trainer hands DeepSpeed when its config names no optimizer; foreach on CUDA) takes
    // exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs) beside that fp32 gradient: 4 + 4
    // (pytorch/pytorch torch/optim/adam.py @dc80ccde, _multi_tensor_adam). Activations, logits and gathered
    // layers are gone by then (ZeRO-3's step re-partitions every parameter first), so only what
    // exceeds them raises the peak. deepspeedai/DeepSpeed deepspeed/runtime/zero/stage3.py
    // @007cca6a (step: _prepare_sub_group per sub-group, the fp32 grad set to None after it;
    // _prepare_fp32_grad_for_sub_group: self.flatten(averaged_gradients).to(fp32)).
    m.step_transient =
        std::max(0.0, (kFp32Bytes + (r.optimizer == Optimizer::adamw ? kFp32Bytes : kBf16Bytes)) * group -
                          (m.activations + m.logits + m.buckets));
  }
  m.reserve = r.reserve_bytes;
  m.capacity_bytes = gpu.engine_memory_bytes();
  // Paged states take what the rest leaves free; the driver evicts the others to the host. They
  // are not the requirement: the rest is.
  if (r.offload == Offload::paged) {
    m.paged_optimizer_states = m.optimizer_states;
    m.optimizer_states = 0;
  }
  const double rest = m.total();
  if (r.offload == Offload::paged) {
    m.paged_states = std::max(0.0, m.paged_optimizer_states - std::max(0.0, m.capacity_bytes - rest));
    m.host_bytes += m.paged_states;
  }
  m.fits = rest <= m.capacity_bytes;
  m.free_bytes = std::max(0.0, m.capacity_bytes - rest);
  m.tight = m.fits && m.free_bytes < kTightFreeShare * m.capacity_bytes;
  m.shortfall_bytes = std::max(0.0, rest - m.capacity_bytes);
  return m;
}

// The heaviest pipeline stage: the first (embedding, the most micro-batches in flight), the second
// for the middle ones (the most in flight among them: only heavier than the first with fewer
// layers given to it), and the last (LM head and logits, one micro-batch in flight).
TrainMemory memory_unchecked(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& r) {
  const TrainLayout& l = r.layout;
  if (l.pp <= 1) {
    return stage_memory(model, gpu, r, PipelineStage::only, 0, model.num_hidden_layers);
  }
  const StageLayers layers = stage_layers(model, l);
  TrainMemory peak = stage_memory(model, gpu, r, PipelineStage::first, 0, layers.first);
  const auto consider = [&peak](const TrainMemory& m) {
    if (m.total() > peak.total()) {
      peak = m;
    }
  };
  if (l.pp > 2) {
    consider(stage_memory(model, gpu, r, PipelineStage::middle, 1, layers.middle));
  }
  consider(stage_memory(model, gpu, r, PipelineStage::last, l.pp - 1, layers.last));
  return peak;
}

}  // namespace

StageLayers stage_layers(const ModelSpec& model, const TrainLayout& l) {
  const std::uint64_t total = model.num_hidden_layers;
  if (l.pp <= 1) {
    return {.first = total, .middle = 0, .last = total};
  }
  const std::uint64_t given = (l.first_stage_layers > 0 ? 1u : 0u) + (l.last_stage_layers > 0 ? 1u : 0u);
  const std::uint64_t taken = std::min(total, l.first_stage_layers + l.last_stage_layers);
  const std::uint64_t rest_stages = l.pp - given;
  const std::uint64_t even = rest_stages == 0 ? 0 : (total - taken + rest_stages - 1) / rest_stages;
  return {.first = l.first_stage_layers > 0 ? l.first_stage_layers : even,
          .middle = l.pp > 2 ? even : 0,
          .last = l.last_stage_layers > 0 ? l.last_stage_layers : even};
}

std::string_view to_string(PipelineStage s) {
  switch (s) {
    case PipelineStage::only: return "only";
    case PipelineStage::first: return "first";
    case PipelineStage::middle: return "middle";
    case PipelineStage::last: return "last";
  }
  return "?";
}

std::string_view to_string(Sharding s) {
  switch (s) {
    case Sharding::none: return "none";
    case Sharding::zero1: return "zero1";
    case Sharding::zero2: return "zero2";
    case Sharding::zero3: return "zero3";
    case Sharding::fsdp: return "fsdp";
  }
  return "?";
}
std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::selective_op: return "selective-op";
    case Recompute::full: return "full";
  }
  return "?";
}
std::string_view to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return "adamw";
    case Optimizer::adamw_8bit: return "adamw-8bit";
    case Optimizer::sgd: return "sgd";
  }
  return "?";
}
std::string_view to_string(TrainMethod m) {
  switch (m) {
    case TrainMethod::full: return "full";
    case TrainMethod::lora: return "lora";
    case TrainMethod::qlora: return "qlora";
  }
  return "?";
}
std::string_view to_string(Offload o) {
  switch (o) {
    case Offload::none: return "none";
    case Offload::optimizer: return "optimizer";
    case Offload::params: return "params";
    case Offload::paged: return "paged";
  }
  return "?";
}
std::string_view to_string(TrainPrecision p) {
  return p == TrainPrecision::fp8 ? "fp8" : p == TrainPrecision::fp16 ? "fp16" : "bf16";
}
std::string_view to_string(MasterWeights w) {
  switch (w) {
    case MasterWeights::fp32: return "fp32";
    case MasterWeights::none: return "none";
    case MasterWeights::autocast: return "autocast";
  }
  return "fp32";
}
std::string_view to_string(TrainFramework f) {
  return f == TrainFramework::megatron ? "megatron" : "deepspeed";
}
std::string_view to_string(LossKernel k) {
  switch (k) {
    case LossKernel::unfused: return "unfused";
    case LossKernel::fused: return "fused";
    case LossKernel::fused_linear: return "fused-linear";
  }
  return "?";
}

Sharding parse_sharding(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "sharding",
                    std::array{Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3, Sharding::fsdp});
}
Recompute parse_recompute(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "recompute policy", std::array{Recompute::none, Recompute::selective, Recompute::selective_op, Recompute::full});
}
Optimizer parse_optimizer(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "optimizer", std::array{Optimizer::adamw, Optimizer::adamw_8bit, Optimizer::sgd});
}
TrainMethod parse_train_method(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "method", std::array{TrainMethod::full, TrainMethod::lora, TrainMethod::qlora});
}
Offload parse_offload(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "offload", std::array{Offload::none, Offload::optimizer, Offload::params, Offload::paged});
}

bool steps_on_cpu(Offload o) { return o == Offload::optimizer || o == Offload::params; }
TrainPrecision parse_train_precision(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "precision", std::array{TrainPrecision::bf16, TrainPrecision::fp8, TrainPrecision::fp16});
}
MasterWeights parse_master_weights(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "master weights",
                    std::array{MasterWeights::fp32, MasterWeights::none, MasterWeights::autocast});
}

LossKernel parse_loss_kernel(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "loss", std::array{LossKernel::unfused, LossKernel::fused, LossKernel::fused_linear});
}

TrainFramework parse_train_framework(std::string_view text, std::string_view field) {
  return parse_enum(text, field, "framework", std::array{TrainFramework::megatron, TrainFramework::deepspeed});
}

double zero_step_group_params(const TrainRequest& r, double optimizer_params_per_gpu) {
  // ZeRO-3 only. stage_1_and_2.py (deepspeedai/DeepSpeed @7dee2e06, step) upcasts each parameter
  // group's whole partition the same way, but a measured ZeRO-2 run contradicts charging it on
  // top of the sharded states (Qwen-1-7B full on 2 A100s at 1,024 tokens ran at 81 GB, where
  // 6-8 bytes x 3.9 B parameters would have needed 95-102): what it frees first is not modeled.
  if (r.sharding != Sharding::zero3 || megatron_style(r) || r.offload != Offload::none ||
      r.master_weights != MasterWeights::fp32 || r.optimizer_in_backward) {
    return 0.0;
  }
  return std::min(optimizer_params_per_gpu, r.zero_sub_group_params);
}

LossKernel default_loss_kernel(TrainMethod method) {
  return method == TrainMethod::full ? LossKernel::fused : LossKernel::unfused;
}

LossKernel TrainRequest::loss_kernel() const { return loss.value_or(default_loss_kernel(method)); }

bool megatron_style(const TrainRequest& r) {
  if (r.framework) {
    return *r.framework == TrainFramework::megatron;
  }
  return (r.sharding == Sharding::none || r.sharding == Sharding::zero1) && (r.layout.tp > 1 || r.layout.pp > 1);
}

bool fsdp_stage_unsharded(const TrainRequest& r) {
  // --grad-sync each under a pipeline: reshard after each forward and reduce-scatter every
  // micro-batch (NeMo Automodel's FSDP2 under PP, NVIDIA-NeMo/Automodel PR 2673), as without one.
  return r.sharding == Sharding::fsdp && r.layout.pp > 1 && r.sync_last_micro_batch.value_or(true);
}

bool fp32_main_grads(const TrainRequest& r) {
  return r.method == TrainMethod::full && r.master_weights == MasterWeights::fp32 && !r.optimizer_in_backward &&
         megatron_style(r);
}

Recompute default_recompute(const TrainRequest& r) {
  return peft_kbit_prepared(r) ? Recompute::full : Recompute::none;
}

bool quantized_checkpoint(const ModelSpec& model) {
  if (!model.checkpoint_quant || !model.shipped_formats) {
    return false;
  }
  const WeightFormats& f = *model.shipped_formats;
  return std::ranges::any_of(std::array{WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts},
                             [&f](WeightPart p) { return f[p].quantized(); });
}

bool peft_kbit_prepared(const TrainRequest& r) {
  return r.method == TrainMethod::qlora && r.kbit_prepared.value_or(r.loss_kernel() == LossKernel::unfused);
}

double loss_bytes_per_logit(LossKernel k) {
  switch (k) {
    // transformers' ForCausalLMLoss: logits.float() then F.cross_entropy, whose log-softmax output
    // autograd keeps; its backward makes the fp32 gradient beside them: 2 + 4 + 4 + 4.
    case LossKernel::unfused: return kBf16Bytes + 3.0 * kFp32Bytes;
    case LossKernel::fused: return kBf16Bytes + kFp32Bytes;
    case LossKernel::fused_linear: return 0.0;
  }
  return kBf16Bytes + kFp32Bytes;
}

double updated_weight_bytes(MasterWeights w) {
  return w == MasterWeights::none ? kBf16Bytes : kFp32Bytes;
}

double full_weight_bytes(MasterWeights w) {
  return w == MasterWeights::autocast ? kFp32Bytes : kBf16Bytes;
}

bool autocast_weight_copies_held(const TrainRequest& r) {
  return r.master_weights == MasterWeights::autocast && r.method != TrainMethod::qlora &&
         (r.recompute != Recompute::full || (r.method == TrainMethod::full && stage(r.sharding) < 3));
}

double optimizer_step_bytes_per_param(const TrainRequest& r) {
  const double weights = updated_weight_bytes(r.master_weights);
  const double master_to_bf16 = r.master_weights == MasterWeights::fp32 && r.method == TrainMethod::full ? kBf16Bytes : 0.0;
  return 2.0 * weights + 2.0 * moment_bytes(r.optimizer, r.master_weights, r.offload) + weights + master_to_bf16;
}

std::uint64_t TrainRequest::micro_batches() const {
  const std::uint64_t per_step = micro_batch * seq_tokens * layout.dp;
  if (global_batch_tokens == 0 || per_step == 0) {
    return layout.pp > 1 ? 4 * layout.pp : 1;
  }
  return std::max<std::uint64_t>(1, global_batch_tokens / per_step);
}

bool has_4bit_training_path(const GpuSpec& gpu) {
  // bitsandbytes ships NF4 kernels for CUDA and (multi-backend) ROCm; not for Gaudi.
  return gpu.vendor == "nvidia" || gpu.vendor == "amd";
}

double lora_adapter_params(const ModelSpec& model, std::uint64_t rank) {
  // Each adapted [out x in] matrix gains A (r x in) and B (out x r) (Hu et al. 2021, "LoRA").
  double total = 0;
  for (const WeightTensor& t : weight_tensors(model)) {
    if (t.matrix && (t.part == WeightPart::attention || t.part == WeightPart::dense_mlp ||
                     t.part == WeightPart::shared_experts)) {
      total += d(rank) * (d(t.rows) + d(t.cols)) * t.count;
    }
  }
  return total;
}

LayerActivation layer_activation_bytes_per_token(const ModelSpec& model, const TrainRequest& r) {
  // Korthikanti et al. 2022, section 4.1, per token and layer (bytes, 16-bit activations):
  // attention 11h + 5as (QKV input 2h, Q and K 4h, softmax 2as, its dropout mask as, dropout
  // output 2as, V 2h, output projection input 2h, dropout mask h), MLP 19h (input 2h, GeLU input
  // 8h, GeLU output 8h, mask h), two norms 4h: 34h + 5as. Here Q, K, V take their own widths
  // (GQA, MLA), the MLP its width (SwiGLU stores gate, up and their product: 6f; GeLU 4f), MoE
  // layers the top-k experts' intermediates, and the masks only with dropout.
  LayerActivation out;
  if (!model.has_architecture() || model.num_hidden_layers == 0) {
    return out;
  }
  const double h = d(model.hidden_size);
  const double heads = d(model.num_attention_heads);
  double q = heads * d(model.head_dim);
  // K and V as the TP group holds them: replicated past the KV heads (each rank a whole head's).
  double k = d(model.num_key_value_heads) * d(model.head_dim) * d(r.layout.tp) /
             model.kv_projection_shards(r.layout.tp);
  double v = k;
  double o = q;
  if (model.mla) {
    // Training materialises per-head keys and values from the latent.
    q = heads * d(model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim);
    k = q;
    v = heads * d(model.mla->v_head_dim);
    o = v;
  }
  const double mask = r.dropout ? 1.0 : 0.0;
  // PEFT's fp32 embeddings make the residual stream fp32 (fp32 + bf16 promotes), and its fp32
  // norm weights the norms' outputs: the layer inputs and norm inputs and outputs double.
  // Under autocast over fp32 weights the same holds: the embedding (not an autocast op) returns
  // fp32 and every residual add promotes (pytorch docs, "Automatic Mixed Precision package":
  // CUDA ops that can autocast to float16 are matmuls, linear, convolutions; others run in
  // their inputs' widest type; transformers' LlamaRMSNorm returns weight * x.to(input_dtype)).
  const double residual =
      peft_kbit_prepared(r) || r.master_weights == MasterWeights::autocast ? kFp32Bytes / kBf16Bytes : 1.0;
  const double tp = d(r.layout.tp);
  const double sp = (r.layout.tp > 1 && r.sequence_parallel) ? tp : 1.0;
  const double mlp_per_f = model.mlp_gated ? 6.0 : 4.0;
  const double layers = d(model.num_hidden_layers);
  double replicated = 0;
  double split = 0;
  double scores = 0;
  double op_saved = 0;
  const double softmax_bytes = megatron_style(r) ? 2.0 : 6.0;
  for (std::uint64_t i = 0; i < model.num_hidden_layers; ++i) {
    // Norm inputs (2 x 2h), QKV and MLP inputs (2 x 2h), two dropout masks: 10h in the paper.
    replicated += 8.0 * h * residual + 2.0 * mask * h;
    split += kBf16Bytes * (q + k + v + o) / tp;
    // torchtitan's op-level SAC (models/llama/parallelize_llama.py, _save_list and
    // _apply_ac_to_transformer_block @82010c7): the block's input, the outputs of aten.mm calls
    // 1, 3, 5, 7 of the block (Q, V, SwiGLU's gate, its down projection: every other one) and the
    // attention op's output and log-sum-exp. The down projection's output has every token's rows
    // before TP's reduce-scatter; a plain MLP's down is the 6th, recomputed.
    op_saved += kBf16Bytes * h * residual / sp + kBf16Bytes * (q + v + o) / tp;
    if (model.has_attention(i)) {
      op_saved += kFp32Bytes * heads / tp;
    }
    if (model.has_attention(i)) {  // linear-attention layers keep no scores
      const double window = d(model.window_of_layer(i));
      const double keys = window > 0 ? std::min(window, d(r.seq_tokens)) : d(r.seq_tokens);
      // Megatron's fused softmax keeps its bf16 output (2 bytes a score, Korthikanti et al.);
      // transformers' eager attention runs softmax in fp32 and keeps its 4-byte output for the
      // backward and the 2-byte bf16 copy for the value matmul. A dropout mask 1 and dropout
      // output 2 per score.
      scores += heads * keys * (softmax_bytes + 3.0 * mask) / tp;
      if (r.flash_attention) {
        split += kFp32Bytes * heads / tp;  // FlashAttention keeps the softmax log-sum-exp
      }
    }
    if (model.is_moe_layer(i)) {
      const MoeSpec& e = *model.moe;
      const double shared_f = d(e.shared_expert_intermediate > 0 ? e.shared_expert_intermediate : e.expert_intermediate);
      // Each token's copy to its k experts, their intermediates, the shared experts', and the
      // router's fp32 logits.
      split += d(e.experts_per_token) * (kBf16Bytes * h + mlp_per_f * d(e.expert_intermediate) / tp) +
               d(e.shared_experts) * mlp_per_f * shared_f / tp + kFp32Bytes * d(e.routed_experts);
      // Op-level SAC: the router's matmul (the 5th) is saved; the routed experts' grouped matmuls
      // are not on the save list and are rebuilt.
      op_saved += kBf16Bytes * d(e.routed_experts);
    } else {
      split += mlp_per_f * d(model.intermediate_size) / tp;
      op_saved += kBf16Bytes * d(model.intermediate_size) / tp + (model.mlp_gated ? kBf16Bytes * h : 0.0);
    }
  }
  if (r.method != TrainMethod::full) {
    // LoRA keeps x A (r values) per adapted matrix: 4 attention and 3 (gated) or 2 MLP matrices.
    split += layers * kBf16Bytes * d(r.lora_rank) * (4.0 + (model.mlp_gated ? 3.0 : 2.0)) / tp;
    op_saved += layers * kBf16Bytes * d(r.lora_rank) * (4.0 + (model.mlp_gated ? 3.0 : 2.0)) / tp;
    // And each adapted module's own copy of its input: PEFT's Linear.forward runs
    // x = self._cast_input_dtype(x, lora_A.weight.dtype), then lora_B(lora_A(dropout(x)))
    // (huggingface/peft src/peft/tuners/lora/layer.py @00336949). fp32 adapters under autocast:
    // x is copied to fp32 and autocast's linear copies it back to 16 bits, and that copy (2 bytes
    // an element) is what lora_A keeps, one per module (q, k and v each cast the same input).
    // lora_dropout > 0 adds the mask (1 byte), and with 16-bit adapters the dropped-out copy.
    // PEFT's layers only: the Hugging Face stack, told by its unfused loss as peft_kbit_prepared
    // is (NeMo's, litgpt's, torchtune's and Unsloth's LoRA layers run their own forward).
    const bool peft = r.loss_kernel() == LossKernel::unfused;
    const double cast = peft && updated_weight_bytes(r.master_weights) > kBf16Bytes ? kBf16Bytes : 0.0;
    const double per_input = cast + (r.lora_dropout ? 1.0 + (cast > 0 ? 0.0 : kBf16Bytes) : 0.0);
    double inputs = 0;  // elements per token over the adapted modules' inputs, all layers
    for (std::uint64_t i = 0; i < model.num_hidden_layers; ++i) {
      inputs += 3.0 * h + o / tp;  // q, k, v read the norm's output; o the attention's output
      if (!model.is_moe_layer(i)) {
        inputs += (model.mlp_gated ? 2.0 : 1.0) * h + d(model.intermediate_size) / tp;
      }
    }
    split += per_input * inputs;
    op_saved += per_input * inputs;
  }
  out.replicated = replicated / layers;
  out.split = split / layers;
  out.scores = scores / layers;
  const bool keep_scores = r.recompute == Recompute::none && !r.flash_attention;
  switch (r.recompute) {
    case Recompute::full:
      out.stored = kBf16Bytes * residual * h / sp;  // only each layer's input
      break;
    case Recompute::selective_op:
      out.stored = op_saved / layers;
      break;
    case Recompute::none:
    case Recompute::selective:
      out.stored = out.replicated / sp + out.split + (keep_scores ? out.scores : 0.0);
      break;
  }
  return out;
}

double qlora_dequant_bytes_per_pass(const ModelSpec& model, const TrainRequest& r) {
  if (r.method != TrainMethod::qlora) {
    return 0.0;
  }
  const auto bytes = weight_bytes_by_part(model, base_formats(model, r));
  const auto params = params_by_part(count_params(model));
  double quantized = 0;
  double elements = 0;
  for (WeightPart p : {WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts,
                       WeightPart::shared_experts, WeightPart::router}) {
    quantized += bytes[static_cast<std::size_t>(p)];
    elements += params[static_cast<std::size_t>(p)];
  }
  // ZeRO-3/FSDP gathers each layer whole before it dequantizes it: not divided over DP.
  return (quantized + 2.0 * kBf16Bytes * elements) / d(r.layout.tp * r.layout.pp);
}

double op_sac_recomputed_params(const ModelSpec& model) {
  const double h = d(model.hidden_size);
  double k = d(model.num_key_value_heads) * d(model.head_dim);
  double o = d(model.num_attention_heads) * d(model.head_dim);
  if (model.mla) {
    k = d(model.num_attention_heads) * d(model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim);
    o = d(model.num_attention_heads) * d(model.mla->v_head_dim);
  }
  const double mlp_matrices = model.mlp_gated ? 3.0 : 2.0;
  double total = 0;
  for (std::uint64_t i = 0; i < model.num_hidden_layers; ++i) {
    total += h * k + o * h;
    if (model.is_moe_layer(i)) {
      const MoeSpec& e = *model.moe;
      total += d(e.experts_per_token) * mlp_matrices * h * d(e.expert_intermediate);
    } else {
      total += h * d(model.intermediate_size);  // SwiGLU's up, or a plain MLP's down
    }
  }
  return total;
}

void validate_train_request(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& r) {
  if (!model.has_architecture()) {
    throw InputError("train: a bare parameter count has no architecture to train; give a catalog model or a config.json");
  }
  const TrainLayout& l = r.layout;
  constexpr std::uint64_t kMax = 1u << 16;
  check_range("cp", l.cp, 1, kMax);
  check_range("vpp", l.vpp, 1, 1024);
  check_range("micro_batch", r.micro_batch, 1, 1u << 20);
  check_range("seq_tokens", r.seq_tokens, 1, std::uint64_t{1} << 24);
  check_range("lora_rank", r.lora_rank, 1, 1u << 16);
  validate_layout(Layout{.tp = l.tp, .pp = l.pp, .ep = l.ep, .dp = l.dp * l.cp}, model);
  // KV heads are split over the TP ranks: Megatron-Core's divide(num_query_groups, tp) must be
  // exact, as torchtitan's TP plan needs. MQA's single head is the exception: BigCode's Megatron-LM
  // fork trained StarCoder at TP 4 with the K/V layer whole on every rank (megatron/model/
  // transformer.py @182df0c, get_linear_layer for 'multiquery'), and the memory and step count
  // that replica. MLA has no KV heads to split.
  if (l.tp > 1 && !model.caches_latent() && model.num_key_value_heads > 1 &&
      model.num_key_value_heads % l.tp != 0) {
    throw InputError(fmt::format("layout.tp: {} does not divide the {} KV heads of '{}' (Megatron-LM splits them "
                                 "over the TP ranks; only a single MQA head is replicated on each, as BigCode's "
                                 "fork trained StarCoder; inference engines replicate any)",
                                 l.tp, model.num_key_value_heads, model.id));
  }
  if (l.etp != 0 && l.etp != 1 && l.etp != l.tp) {
    throw InputError(fmt::format("layout.etp: {} is neither 1 (MoE parallel folding) nor TP = {}", l.etp, l.tp));
  }
  if (l.etp != 0 && !model.moe) {
    throw InputError(fmt::format("layout.etp: '{}' has no routed experts", model.id));
  }
  if (l.expert_tp() == l.tp && l.ep > 1 && (l.dp * l.cp) % l.ep != 0) {
    throw InputError(fmt::format("layout.ep: {} does not divide DP x CP = {} (with each expert split over the TP "
                                 "group, EP is carved out of the data-parallel ranks; --etp 1, MoE parallel "
                                 "folding, spreads it over TP x CP x DP)", l.ep, l.dp * l.cp));
  }
  if (l.expert_tp() == 1 && l.tp > 1 && (l.tp * l.cp * l.dp) % l.ep != 0) {
    throw InputError(fmt::format("layout.ep: {} does not divide TP x CP x DP = {} (under --etp 1 the experts are "
                                 "split over each stage's GPUs)", l.ep, l.tp * l.cp * l.dp));
  }
  // Load-balanced ring attention (Megatron, Transformer Engine) cuts each sequence into 2 x CP
  // chunks, rank i holding chunks i and 2 CP - 1 - i.
  if (l.cp > 1 && r.seq_tokens % (2 * l.cp) != 0) {
    throw InputError(fmt::format("train.cp: CP {} cuts a sequence into {} chunks (two per rank, load-balanced ring "
                                 "attention), which do not divide the {}-token sequence",
                                 l.cp, 2 * l.cp, r.seq_tokens));
  }
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0) {
    const std::uint64_t given = (l.first_stage_layers > 0 ? 1u : 0u) + (l.last_stage_layers > 0 ? 1u : 0u);
    const std::uint64_t taken = l.first_stage_layers + l.last_stage_layers;
    const std::uint64_t rest_stages = l.pp > given ? l.pp - given : 0;
    const std::string_view field = l.first_stage_layers > 0 ? "train.first_stage_layers" : "train.last_stage_layers";
    if (l.pp == 1) {
      throw InputError(fmt::format("{}: uneven pipeline stages need PP > 1", field));
    }
    if ((rest_stages == 0 && taken != model.num_hidden_layers) || taken > model.num_hidden_layers ||
        (rest_stages > 0 && model.num_hidden_layers - taken < rest_stages)) {
      throw InputError(fmt::format("{}: {} layers on the first stage and {} on the last (0: an even share) do not "
                                   "split the {} layers over PP {} with a layer on every stage",
                                   field, l.first_stage_layers, l.last_stage_layers, model.num_hidden_layers, l.pp));
    }
  }
  if (l.vpp > 1 && (l.pp == 1 || l.pp * l.vpp > model.num_hidden_layers)) {
    throw InputError(fmt::format("train.vpp: {} virtual stages need PP > 1 and PP x VPP at most the {} layers",
                                 l.vpp, model.num_hidden_layers));
  }
  if (r.global_batch_tokens > 0) {
    if (r.global_batch_tokens % r.seq_tokens != 0) {
      throw InputError(fmt::format("train.global_batch_tokens: {} is not a whole number of {}-token sequences",
                                   r.global_batch_tokens, r.seq_tokens));
    }
    const std::uint64_t sequences = r.global_batch_tokens / r.seq_tokens;
    const std::uint64_t per_step = r.micro_batch * l.dp;
    if (sequences % per_step != 0) {
      throw InputError(fmt::format("train.micro_batch: {} sequences per micro-batch x DP {} does not divide the "
                                   "global batch of {} sequences ({} tokens)",
                                   r.micro_batch, l.dp, sequences, r.global_batch_tokens));
    }
  }
  if (r.offload == Offload::params && stage(r.sharding) < 3) {
    throw InputError(fmt::format("train.offload: parameter offload needs --sharding zero3 or fsdp, got {}",
                                 to_string(r.sharding)));
  }
  if (r.framework == TrainFramework::megatron &&
      !(r.sharding == Sharding::none || r.sharding == Sharding::zero1)) {
    throw InputError(fmt::format("train.framework: Megatron shards optimizer states only (its distributed optimizer: "
                                 "--sharding zero1, or none); got --sharding {}: DeepSpeed runs ZeRO-2/3 beside TP and DP, "
                                 "without PP (--framework deepspeed --pp 1)",
                                 to_string(r.sharding)));
  }
  if (r.overlap_grad_reduce && stage(r.sharding) >= 3) {
    throw InputError(fmt::format("train.overlap_grad_reduce: applies to --sharding none, zero1 "
                                 "or zero2; {} is timed with its own overlap (FSDP prefetches its gathers, "
                                 "ZeRO-3's overlap_comm is on)",
                                 to_string(r.sharding)));
  }
  if (r.overlap_param_gather && (r.sharding != Sharding::zero1 || r.framework == TrainFramework::deepspeed)) {
    throw InputError(fmt::format("train.overlap_param_gather: Megatron's distributed optimizer "
                                 "(--sharding zero1) overlaps its parameter all-gather (overlap_param_gather); {} has no such option",
                                 r.framework == TrainFramework::deepspeed ? "DeepSpeed's ZeRO-1/2"
                                                                          : fmt::format("--sharding {}", to_string(r.sharding))));
  }
  if (r.framework == TrainFramework::deepspeed && r.sharding == Sharding::fsdp) {
    throw InputError("train.framework: FSDP is PyTorch's, not DeepSpeed's; use --sharding zero3 with deepspeed");
  }
  // DeepSpeed's pipeline engine runs one schedule, schedule.TrainSchedule (1F1B with no virtual
  // stages), and asserts zero_optimization_stage() < ZeroStageEnum.gradients, "ZeRO-2 and ZeRO-3
  // are incompatible with pipeline parallelism" (deepspeedai/DeepSpeed@03f6f75c5caadf213b53a7b3f5438bb46a30d278
  // deepspeed/runtime/pipe/engine.py, PipelineEngine.__init__ and train_batch; interleaving is the
  // open request deepspeedai/DeepSpeed#4035). Priced anyway, --vpp 4 put tokens/s 15 % over what
  // DeepSpeed runs, and ZeRO-3 beside PP priced a run it refuses to start (helper s55 bad-input F2).
  // The framework counts whether given or assumed: ZeRO-2/3 without --framework is DeepSpeed's.
  const bool deepspeed = r.framework ? *r.framework == TrainFramework::deepspeed
                                     : !megatron_style(r) && (r.sharding == Sharding::zero2 || r.sharding == Sharding::zero3);
  if (deepspeed && l.pp > 1 && (r.sharding == Sharding::zero2 || r.sharding == Sharding::zero3)) {
    throw InputError(fmt::format("train.sharding: DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3 beside "
                                 "pipeline parallelism (\"ZeRO-2 and ZeRO-3 are incompatible with pipeline "
                                 "parallelism\"); got --sharding {} with --pp {}{}: use --sharding zero1 or --pp 1",
                                 to_string(r.sharding), l.pp,
                                 r.framework ? "" : " (ZeRO-2/3 is DeepSpeed's, assumed without --framework)"));
  }
  if (deepspeed && l.vpp > 1) {
    throw InputError(fmt::format("train.vpp: DeepSpeed's pipeline engine runs plain 1F1B (schedule.TrainSchedule), "
                                 "with no virtual stages: --vpp {} needs --framework megatron, or give --vpp 1",
                                 l.vpp));
  }
  // Op-level selective activation checkpointing is torchtitan's (selective_ac_option "op", a
  // torch.utils.checkpoint policy: torchtitan/models/llama3/infra/parallelize.py); Megatron's
  // --recompute-granularity is selective (the core attention) or full, DeepSpeed's checkpointing
  // is per layer.
  if (r.framework && r.recompute == Recompute::selective_op) {
    throw InputError(fmt::format("train.recompute: selective-op is torchtitan's op-level selective activation "
                                 "checkpointing, not {}'s (Megatron: --recompute selective or full; DeepSpeed: "
                                 "full)",
                                 to_string(*r.framework)));
  }
  if (r.framework == TrainFramework::megatron && r.offload == Offload::paged) {
    throw InputError("train.framework: paged optimizers are bitsandbytes' (Hugging Face, torchtune stacks), not "
                     "Megatron's");
  }
  if (!(r.zero_sub_group_params >= 1 && r.zero_sub_group_params <= 1e15)) {
    throw InputError(fmt::format("train.zero_sub_group_params: expected a parameter count from 1 to 1e15, got {:g}",
                                 r.zero_sub_group_params));
  }
  if (r.lora_dropout && r.method == TrainMethod::full) {
    throw InputError("train.lora_dropout: PEFT's lora_dropout applies to --method lora or qlora");
  }
  if (r.kbit_prepared && r.method != TrainMethod::qlora) {
    throw InputError("train.kbit_prepared: PEFT's k-bit preparation applies to QLoRA (--method qlora) only");
  }
  if (r.sync_last_micro_batch.value_or(false) && (r.sharding != Sharding::fsdp || r.method != TrainMethod::full)) {
    throw InputError("train.sync_last_micro_batch: applies to full training with --sharding fsdp (no_sync holds "
                     "the unsharded gradients; DeepSpeed reduces every micro-batch into its partitions)");
  }
  if (r.offload == Offload::paged && r.optimizer == Optimizer::sgd) {
    throw InputError("train.offload: paged optimizers are bitsandbytes' PagedAdamW and PagedAdamW8bit; there is no "
                     "paged SGD (use --optimizer adamw or adamw-8bit)");
  }
  // CPU offload moves the optimizer step to the host, and no stack steps an 8-bit AdamW there:
  // DeepSpeed's ZeRO-Offload runs its own DeepSpeedCPUAdam (fp32 moments) and raises
  // ZeRORuntimeException for a client optimizer unless zero_force_ds_cpu_optimizer is false
  // (deepspeed/runtime/engine.py, _configure_basic_optimizer), and bitsandbytes' 8-bit update
  // kernels take CUDA tensors only (bitsandbytes/functional.py, is_on_gpu: "All input tensors need
  // to be on the same GPU"), so FSDP's CPU-resident shards cannot be stepped by it either. Priced
  // anyway, the host held 8-bit states (10 bytes a parameter instead of DeepSpeed's 16) for a run
  // that does not start (helper s64 bad-input).
  if (r.optimizer == Optimizer::adamw_8bit && steps_on_cpu(r.offload)) {
    throw InputError(fmt::format(
        "train.optimizer: adamw-8bit (bitsandbytes' 8-bit AdamW) has no CPU step, and --offload {} steps the "
        "optimizer on the host: DeepSpeed's ZeRO-Offload runs its fp32 DeepSpeedCPUAdam and refuses a client "
        "optimizer (zero_force_ds_cpu_optimizer), and bitsandbytes' 8-bit kernels take GPU tensors only; use "
        "--optimizer adamw with the offload, or keep the 8-bit states on the GPU (--offload none, or --offload "
        "paged: PagedAdamW8bit)",
        to_string(r.offload)));
  }
  if (r.optimizer_in_backward) {
    if (r.method != TrainMethod::full) {
      throw InputError("train.optimizer_in_backward: applies to full training; LoRA's adapter gradients are a "
                       "small fraction of its memory already");
    }
    if (steps_on_cpu(r.offload)) {
      throw InputError("train.optimizer_in_backward: with --offload the optimizer steps on the CPU after the "
                       "backward pass, and the gradients leave the GPU anyway; use one or the other");
    }
    if (r.micro_batches() > 1) {
      throw InputError(fmt::format("train.optimizer_in_backward: each gradient is applied and freed within the "
                                   "backward pass, so {} micro-batches per step have nothing to accumulate into "
                                   "(torchtune refuses it too); use one micro-batch per replica per step",
                                   r.micro_batches()));
    }
  }
  if (r.method == TrainMethod::qlora && !has_4bit_training_path(gpu)) {
    throw InputError(fmt::format("train.method: QLoRA needs bitsandbytes' NF4 kernels (CUDA or ROCm); {} ({}) has "
                                 "none; use --method lora", gpu.id, gpu.vendor));
  }
  // An adapter of rank r is two matrices of r x the layer's sides: past the hidden size it adds
  // parameters and no expressiveness (the product's rank stays at most the smaller side).
  if (r.method != TrainMethod::full && model.hidden_size > 0 && r.lora_rank > model.hidden_size) {
    throw InputError(fmt::format("train.lora_rank: {} exceeds the model's hidden size {}: every matrix it adapts "
                                 "has a side no longer, so the extra rank adds parameters and nothing else (ranks "
                                 "are commonly 8 to 256)",
                                 r.lora_rank, model.hidden_size));
  }
  if (r.method == TrainMethod::qlora && r.precision == TrainPrecision::fp8) {
    throw InputError("train.precision: QLoRA dequantizes its NF4 weights to bf16 for every matmul; fp8 does not "
                     "apply (use --precision bf16, or --method lora with fp8)");
  }
  if (r.precision == TrainPrecision::fp8 && !gpu.dense_flop_per_s.contains("fp8")) {
    throw InputError(fmt::format("train.precision: {} has no FP8 tensor cores{}", gpu.id,
                                 gpu.dense_flop_per_s.contains("bf16") ? "; use --precision bf16"
                                                                       : ", nor bf16; use --precision fp16"));
  }
  if (r.precision == TrainPrecision::fp16 && !gpu.dense_flop_per_s.contains("fp16")) {
    throw InputError(fmt::format("train.precision: {} has no fp16 tensor cores", gpu.id));
  }
  if (r.precision != TrainPrecision::fp16 && !gpu.dense_flop_per_s.contains("bf16")) {
    throw InputError(fmt::format("train.precision: {} has no bf16 (Volta and Turing): use --precision fp16 (mixed "
                                 "precision with loss scaling, as DeepSpeed's and Megatron-LM's fp16 runs on V100)",
                                 gpu.id));
  }
  if (r.precision == TrainPrecision::fp16 && r.master_weights == MasterWeights::none) {
    throw InputError("train.master_weights: fp16 training keeps an fp32 master copy (loss scaling's small updates "
                     "vanish in fp16 weights); pure 16-bit training is bf16's");
  }
  if (r.master_weights == MasterWeights::autocast) {
    // torch.autocast over fp32 weights is the PyTorch stack's (DDP or FSDP without a
    // MixedPrecision policy): DeepSpeed's ZeRO and Megatron keep 16-bit weights beside an fp32
    // master, and QLoRA's NF4 base is dequantized, not autocast.
    const auto refuse = [](std::string_view why) {
      throw InputError(fmt::format("train.master_weights: autocast (fp32 weights under torch.autocast) {}", why));
    };
    if (r.sharding != Sharding::none && r.sharding != Sharding::fsdp) {
      refuse(fmt::format("is PyTorch DDP's or FSDP's, not DeepSpeed ZeRO's (--sharding {}: 16-bit weights beside an "
                         "fp32 master, --master-weights fp32)",
                         to_string(r.sharding)));
    }
    if (r.framework) {
      refuse("is PyTorch DDP's or FSDP's, not Megatron-LM's or DeepSpeed's (--framework: 16-bit weights beside an "
             "fp32 master, --master-weights fp32)");
    }
    // TP or PP without FSDP is read as Megatron-LM's (megatron_style): name the flags that made it so
    // (review s62: the message named --framework, which the user had not given).
    if (megatron_style(r)) {
      refuse(fmt::format("is PyTorch DDP's or FSDP's: --tp {} --pp {} without --sharding fsdp is read as "
                         "Megatron-LM, which keeps 16-bit weights beside an fp32 master; give --master-weights fp32, "
                         "or --sharding fsdp",
                         r.layout.tp, r.layout.pp));
    }
    if (r.method == TrainMethod::qlora) {
      refuse("does not apply to QLoRA's NF4 base (PEFT's k-bit preparation, --qlora-prep peft, already keeps the "
             "rest fp32)");
    }
    if (r.precision == TrainPrecision::fp8) {
      refuse("multiplies in bf16 or fp16, not fp8 (--precision bf16 or fp16)");
    }
    if (r.offload == Offload::optimizer || r.offload == Offload::params || r.optimizer_in_backward) {
      refuse("is not modeled with CPU offload or the optimizer in backward (use --master-weights fp32)");
    }
  }
  // transformers' Trainer refuses to train a quantized checkpoint without adapters: "You cannot
  // perform fine-tuning on purely quantized models. Please attach trainable adapters on top of the
  // quantized model" (huggingface/transformers src/transformers/trainer.py, Trainer.__init__).
  // With adapters it refuses quantizers whose layers cannot backpropagate: "The model you are
  // trying to fine-tune is quantized with {quant_method} but that quantization method do not
  // support training" (the same place; seen for QuantizationMethod.FP8 on Qwen3-4B-FP8, MXFP4 on
  // gpt-oss, BITNET; review s52 finding 2).
  if (quantized_checkpoint(model)) {
    const std::string& method = model.checkpoint_quant->method;
    constexpr std::array<std::string_view, 4> kNotTrainable{"fp8", "fbgemm_fp8", "mxfp4", "bitnet"};
    if (std::ranges::find(kNotTrainable, method) != kNotTrainable.end()) {
      throw InputError(fmt::format("train.method: the checkpoint is quantized with {}, which transformers' Trainer "
                                   "does not train (\"that quantization method do not support training\"), with "
                                   "adapters or without: give the 16-bit checkpoint",
                                   method));
    }
    if (r.method == TrainMethod::full) {
      throw InputError(fmt::format("train.method: the checkpoint is quantized ({}); full training of it is refused "
                                   "by transformers' Trainer (\"You cannot perform fine-tuning on purely quantized "
                                   "models\"): use --method lora, or the unquantized checkpoint",
                                   method));
    }
    // from_pretrained keeps a checkpoint's own quantization_config over one passed in (a
    // BitsAndBytesConfig is set aside with a warning): QLoRA of an AWQ or GPTQ checkpoint is LoRA
    // on its shipped weights, not NF4 (review s52 finding 3).
    if (r.method == TrainMethod::qlora && !to_string((*model.shipped_formats)[WeightPart::attention]).starts_with("nf4")) {
      throw InputError(fmt::format("train.method: the checkpoint is already quantized ({}): from_pretrained keeps "
                                   "its quantization_config over a BitsAndBytesConfig, so the base trains as "
                                   "shipped: use --method lora",
                                   method));
    }
  }
  if (!(r.reserve_bytes >= 0 && r.reserve_bytes < 1e15) || !(r.bucket_bytes >= 0 && r.bucket_bytes < 1e15)) {
    throw InputError("train.reserve_bytes: expected a size >= 0");
  }
}

TrainMemory train_memory(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& request) {
  validate_train_request(model, gpu, request);
  return memory_unchecked(model, gpu, request);
}

TrainLimits train_limits(const ModelSpec& model, const GpuSpec& gpu, const TrainRequest& request) {
  validate_train_request(model, gpu, request);
  // Keep the micro-batches per step (and so the pipeline's in-flight count) as requested.
  const std::uint64_t steps = request.micro_batches();
  const auto fits = [&](std::uint64_t micro_batch, std::uint64_t seq) {
    TrainRequest r = request;
    r.micro_batch = micro_batch;
    r.seq_tokens = seq;
    r.global_batch_tokens = micro_batch * seq * r.layout.dp * steps;
    return memory_unchecked(model, gpu, r).fits;
  };
  // Largest x in [1, high] with pred(x), memory growing with x; 0 when none.
  const auto largest = [](std::uint64_t high, const auto& pred) -> std::uint64_t {
    if (!pred(1)) {
      return 0;
    }
    std::uint64_t lo = 1;
    std::uint64_t hi = 2;
    while (hi <= high && pred(hi)) {
      lo = hi;
      hi *= 2;
    }
    hi = std::min(hi, high + 1);
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (pred(mid) ? lo : hi) = mid;
    }
    return lo;
  };
  TrainLimits out;
  out.max_micro_batch = largest(1u << 16, [&](std::uint64_t b) { return fits(b, request.seq_tokens); });
  // Sequences in steps of 128 x CP tokens (CP must divide them).
  const std::uint64_t step = 128 * request.layout.cp;
  out.max_seq_tokens = step * largest((std::uint64_t{1} << 24) / step,
                                      [&](std::uint64_t n) { return fits(request.micro_batch, n * step); });
  return out;
}

}  // namespace gpuplan
