#include <gpuplan/train_plan.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/cost.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/units.hpp>
#include <gpuplan/weight_format.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using units::kSecondsPerHour;
using units::kJoulesPerKwh;
using units::kMega;

using detail::d;

int stage_of(Sharding s) { return s == Sharding::zero3 || s == Sharding::fsdp ? 3 : 0; }

// The catalog prices the plan uses: each (provider, mode) for the GPU as find_price takes it (the
// cheapest current region and date, a stale one only when none is current).
std::vector<Price> prices_for(const Catalog& catalog, const GpuSpec& gpu, const TrainPlanRequest& r) {
  std::vector<Price> out;
  if (r.usd_per_gpu_hour) {
    if (!(*r.usd_per_gpu_hour > 0) || *r.usd_per_gpu_hour > 10'000) {
      throw InputError(fmt::format("train_plan.usd_per_gpu_hour: expected a price in (0, 10000] USD per GPU-hour, got {}",
                                   *r.usd_per_gpu_hour));
    }
    if (!r.provider.empty() || r.mode || !r.term.empty()) {
      throw InputError("train_plan.usd_per_gpu_hour: one price typed by hand has no provider, mode or term");
    }
    Price p;
    p.provider = std::string(kGivenProvider);
    p.gpu = gpu.id;
    p.usd_per_gpu_hour = *r.usd_per_gpu_hour;
    p.day = catalog.today();
    p.date = "today";
    p.sources = {"--usd-per-gpu-hour"};
    out.push_back(std::move(p));
    return out;
  }
  try {
    const std::vector<std::string> names = r.provider.empty() ? providers(catalog) : std::vector{r.provider};
    for (const std::string& provider : names) {
      std::vector<PricingMode> modes = modes_for(catalog, provider, gpu.id);
      if (r.mode) {
        if (!r.provider.empty() || std::find(modes.begin(), modes.end(), *r.mode) != modes.end()) {
          modes = {*r.mode};
        } else {
          modes.clear();
        }
      }
      if (!r.provider.empty() && modes.empty()) {
        find_price(catalog, provider, gpu.id, PricingMode::on_demand);  // throws naming what exists
      }
      for (PricingMode mode : modes) {
        if (!mode_has_term(mode)) {
          out.push_back(find_price(catalog, provider, gpu.id, mode));
          continue;
        }
        // Each commitment term is its own offer, as in compare: a 36-hour run is not priced at a
        // 3-year rate alone with the 1-year one out of sight.
        std::vector<std::string> terms;
        for (const Price& p : catalog.prices()) {
          if (p.provider == provider && p.gpu == gpu.id && p.mode == mode && (r.term.empty() || p.term == r.term) &&
              std::find(terms.begin(), terms.end(), p.term) == terms.end()) {
            terms.push_back(p.term);
          }
        }
        if (terms.empty() && !r.term.empty() && !r.provider.empty()) {
          find_price(catalog, provider, gpu.id, mode, {}, r.term);  // throws naming the terms it has
        }
        for (const std::string& term : terms) {
          out.push_back(find_price(catalog, provider, gpu.id, mode, {}, term));
        }
      }
    }
  } catch (const InputError& e) {
    // find_price names the provider field itself when the provider is unknown.
    std::string_view what = e.what();
    for (const std::string_view field : {"provider", "term"}) {
      if (what.starts_with(field) && what.substr(field.size()).starts_with(": ")) {
        what.remove_prefix(field.size() + 2);
        throw InputError(fmt::format("train_plan.{}: {}", field, what));
      }
    }
    throw InputError(fmt::format("train_plan.provider: {}", what));
  }
  if (out.empty() && !r.term.empty()) {
    throw InputError(fmt::format("train_plan.term: no provider has a reserved price for {} with term {}", gpu.id, r.term));
  }
  return out;
}

// The GPUs of a training layout that share one instance: a model replica (TP x CP x PP) up to a
// node.
GpuNeed train_need(const GpuSpec& gpu, const TrainLayout& l) {
  return GpuNeed{.gpus = l.gpus(), .group = instance_group(Layout{.tp = l.tp * l.cp, .pp = l.pp}, gpu, kDefaultGpusPerNode)};
}

TrainCost priced(const Catalog& catalog, const GpuSpec& gpu, const Price& offer, const TrainPlan& plan, double tokens) {
  const GpuNeed need = train_need(gpu, plan.request.train.layout);
  const Price& price = instance_price(catalog, offer, need);
  CostRequest c;
  c.gpus = need.gpus;
  use_price(c, price);
  c.instance_group = need.group;
  c.output_tokens_per_s = plan.step.tokens_per_s;
  const CostResult result = cost(c);
  TrainCost t;
  t.price = price;
  t.rental = result.rental;
  t.usd_per_hour = result.usd_per_hour();
  t.usd_per_million_tokens = result.usd_per_million_tokens;
  t.usd = t.usd_per_million_tokens * tokens / kMega;
  // Slower than estimated costs more: the band's low edge of tokens/s is the high edge of USD.
  t.usd_low = t.usd / (1.0 + plan.band_high);
  t.usd_high = t.usd / (1.0 + plan.band_low);
  return t;
}

std::vector<TrainScaleRow> scale_rows(const ModelSpec& model, const GpuSpec& gpu, const TrainPlan& plan) {
  const TrainPlanRequest& r = plan.request;
  const TrainLayout& base = r.train.layout;
  const std::uint64_t replica = base.tp * base.cp * base.pp;
  std::vector<TrainScaleRow> rows;
  std::optional<double> reference;  // tokens/s per GPU of the first valid row
  for (std::uint64_t gpus : r.scale_gpus) {
    TrainScaleRow row;
    row.gpus = gpus;
    row.layout = base;
    if (gpus == 0 || gpus % replica != 0) {
      row.invalid = fmt::format("TP x CP x PP = {} does not divide {}", replica, gpus);
      rows.push_back(row);
      continue;
    }
    row.layout.dp = gpus / replica;
    TrainRequest t = r.train;
    t.layout = row.layout;
    const std::uint64_t per_step = t.micro_batch * t.seq_tokens * row.layout.dp;
    if (t.global_batch_tokens > 0 && t.global_batch_tokens % per_step != 0) {
      row.invalid = fmt::format("DP {} x micro-batch {} does not divide the global batch of {} sequences",
                                row.layout.dp, t.micro_batch, t.global_batch_tokens / t.seq_tokens);
      rows.push_back(row);
      continue;
    }
    try {
      validate_train_request(model, gpu, t);
    } catch (const InputError& e) {
      // The field name means nothing in a table row: keep the reason.
      const std::string_view what = e.what();
      const auto colon = what.find(": ");
      row.invalid = std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
      rows.push_back(row);
      continue;
    }
    const TrainMemory mem = train_memory(model, gpu, t);
    const TrainStep step = train_step(model, gpu, t, r.efficiency);
    row.fits = mem.fits;
    row.memory_bytes = mem.total();
    row.tokens_per_s = step.tokens_per_s;
    row.mfu = step.mfu;
    row.bubble_share = step.bubble_s / step.step_s;
    row.exposed_comm_share = step.exposed_comm_s() / step.step_s;
    if (!reference) {
      reference = step.tokens_per_s / d(gpus);
    }
    row.efficiency = step.tokens_per_s / d(gpus) / *reference;
    if (r.tokens > 0) {
      row.time_s = r.tokens / step.tokens_per_s;
      if (plan.scale_price) {
        // Whole instances, as the cost table pays them.
        const GpuNeed need = train_need(gpu, row.layout);
        const Price& p = *plan.scale_price;
        row.usd = row.time_s / kSecondsPerHour * d(rent_instances(need.gpus, p.gpus_per_instance, need.group).rented_gpus) *
                  p.usd_per_gpu_hour;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

// What would shrink the memory of a request that does not fit, as flags people can add. ZeRO-3/FSDP
// partitions over the data-parallel ranks, so on one rank only offload, smaller optimizer states
// and dropping the master or the gradient buffer help without more GPUs.
std::string fit_remedies(const TrainRequest& t) {
  std::vector<std::string> out{"a smaller micro-batch or sequence (the largest that fit are above)"};
  const bool one_rank = t.layout.dp * t.layout.cp == 1;
  const bool full = t.method == TrainMethod::full;
  if (t.recompute != Recompute::full) {
    out.emplace_back("full recompute");
  }
  if (t.sync_last_micro_batch.value_or(false) && t.micro_batches() > 1) {
    out.emplace_back("--grad-sync each (sync_each_batch)");
  } else if (fsdp_stage_unsharded(t)) {
    out.emplace_back("--grad-sync each (FSDP resharding after each forward and reduce-scattering every "
                     "micro-batch under the pipeline, as NeMo Automodel does)");
  }
  if (!one_rank && stage_of(t.sharding) != 3) {
    out.emplace_back("ZeRO-3/FSDP sharding");
  }
  // LoRA's optimizer states are the adapters': offloading or shrinking them saves little.
  if (full && t.offload == Offload::none && !t.optimizer_in_backward) {
    out.emplace_back("--offload optimizer");
  }
  // bitsandbytes' paged optimizers belong to the Hugging Face / torchtune stacks, not Megatron's.
  if (full && t.offload == Offload::none && t.optimizer != Optimizer::sgd && !megatron_style(t)) {
    out.emplace_back("--offload paged");
  }
  if (full && t.optimizer == Optimizer::adamw) {
    out.emplace_back("--optimizer adamw-8bit");
  }
  if (full && t.master_weights == MasterWeights::fp32) {
    out.emplace_back("--master-weights none (pure bf16)");
  }
  if (full && !t.optimizer_in_backward && !steps_on_cpu(t.offload) && t.micro_batches() == 1) {
    out.emplace_back("--optimizer-in-backward");
  }
  out.emplace_back(one_rank ? "more GPUs with ZeRO-3/FSDP" : "more GPUs");
  if (t.method != TrainMethod::qlora) {
    out.emplace_back(full ? "LoRA" : "QLoRA");
  }
  const std::string last = out.back();
  out.pop_back();
  return fmt::format("{} or {}", fmt::join(out, ", "), last);
}

}  // namespace

TrainPlan train_plan(const Catalog& catalog, const ModelSpec& model, const GpuSpec& gpu, const TrainPlanRequest& r) {
  // 0: no run asked for; a fraction of one token (1e-300) would cost "0" silently.
  const bool no_run = r.tokens >= 0.0 && r.tokens <= 0.0;
  if (!(no_run || (r.tokens >= 1 && r.tokens <= 1e18))) {
    throw InputError(fmt::format("train_plan.tokens: expected a count between 1 and 1e18, got {}", r.tokens));
  }
  if (!(r.power_share > 0 && r.power_share <= 1) || !(r.pue >= 1 && r.pue <= 5)) {
    throw InputError("train_plan.power_share: expected a share in (0, 1] and a PUE in [1, 5]");
  }
  if (r.scale_gpus.size() > 64) {
    throw InputError(fmt::format("train_plan.scale: at most 64 sizes, got {}", r.scale_gpus.size()));
  }
  // A size given twice prints the same row twice (perf refuses --batch 1,1,1 the same way).
  for (std::size_t i = 0; i < r.scale_gpus.size(); ++i) {
    if (std::find(r.scale_gpus.begin(), r.scale_gpus.begin() + static_cast<std::ptrdiff_t>(i), r.scale_gpus[i]) !=
        r.scale_gpus.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InputError(fmt::format("train_plan.scale: {} is given twice", r.scale_gpus[i]));
    }
  }
  TrainPlan plan;
  plan.model_id = model.id;
  plan.gpu_id = gpu.id;
  plan.request = r;
  const TrainRequest& t = r.train;
  plan.memory = train_memory(model, gpu, t);
  plan.limits = train_limits(model, gpu, t);
  plan.flops = train_flops(model, t);
  plan.step = train_step(model, gpu, t, r.efficiency);
  plan.moe_band = model.is_moe();
  plan.band_low = plan.moe_band ? r.efficiency.moe_band_low : r.efficiency.band_low;
  plan.band_high = plan.moe_band ? r.efficiency.moe_band_high : r.efficiency.band_high;
  plan.tokens_per_s_low = plan.step.tokens_per_s * (1.0 + plan.band_low);
  plan.tokens_per_s_high = plan.step.tokens_per_s * (1.0 + plan.band_high);
  const double gpus = d(t.layout.gpus());
  if (r.tokens > 0) {
    TrainRun run;
    run.tokens = r.tokens;
    run.time_s = r.tokens / plan.step.tokens_per_s;
    run.time_low_s = r.tokens / plan.tokens_per_s_high;
    run.time_high_s = r.tokens / plan.tokens_per_s_low;
    run.gpu_hours = run.time_s / kSecondsPerHour * gpus;
    run.energy_kwh = gpus * gpu.tdp_w * r.power_share * r.pue * run.time_s / kJoulesPerKwh;
    plan.run = run;
  }
  for (const Price& p : prices_for(catalog, gpu, r)) {
    plan.costs.push_back(priced(catalog, gpu, p, plan, r.tokens));
  }
  // Cheapest first by what is paid (whole instances), not by the rate alone.
  std::stable_sort(plan.costs.begin(), plan.costs.end(),
                   [](const TrainCost& a, const TrainCost& b) { return a.usd_per_hour < b.usd_per_hour; });
  // The scaling table prices at the cheapest on-demand price shown (else the cheapest).
  for (const TrainCost& c : plan.costs) {
    if (c.price.mode == PricingMode::on_demand) {
      plan.scale_price = c.price;
      break;
    }
  }
  if (!plan.scale_price && !plan.costs.empty()) {
    plan.scale_price = plan.costs.front().price;
  }
  plan.scale = scale_rows(model, gpu, plan);

  const TrainLayout& l = t.layout;
  if (l.dp * l.cp > 1 && stage_of(t.sharding) < 3 && t.framework && !t.overlap_grad_reduce &&
      !overlaps_grad_reduce(t)) {
    plan.notes.push_back(fmt::format(
        "the data-parallel gradient {} the last backward, unhidden, as {} runs by default; if the run "
        "overlaps it, say --overlap-grad-reduce{}",
        t.sharding == Sharding::none ? "all-reduce follows"
                                     : "reduce-scatter and the parameter all-gather after the step follow",
        *t.framework == TrainFramework::megatron ? "Megatron-LM" : "DeepSpeed ZeRO-1/2 (overlap_comm off)",
        t.sharding == Sharding::zero1 && *t.framework == TrainFramework::megatron ? " (and --overlap-param-gather)" : ""));
  }
  if (t.sharding != Sharding::none && l.dp * l.cp == 1) {
    plan.notes.push_back(fmt::format("--sharding {} with one data-parallel rank partitions nothing: memory is as "
                                     "without sharding", to_string(t.sharding)));
  }
  // Megatron-LM's interleaved schedule splits the layers evenly over the virtual stages unless
  // told otherwise (the embedding and loss counted as layers, or a pipeline_model_parallel_layout,
  // as Megatron Bridge's DeepSeek-V3 at PP 8 x VPP 4 for 61 layers): not a refusal, a note.
  if (const std::uint64_t chunks = l.pp * l.vpp; l.vpp > 1 && model.num_hidden_layers % chunks != 0) {
    plan.notes.push_back(fmt::format("the {} layers do not split evenly into PP {} x VPP {} = {} virtual stages: "
                                     "Megatron-LM takes that only with account_for_embedding_in_pipeline_split, "
                                     "account_for_loss_in_pipeline_split or a pipeline_model_parallel_layout; "
                                     "stages are averaged here",
                                     model.num_hidden_layers, l.pp, l.vpp, chunks));
  }
  if (model.max_position_embeddings > 0 && t.seq_tokens > model.max_position_embeddings) {
    plan.notes.push_back(fmt::format("sequence {} is longer than the model's {} positions (context extension)",
                                     t.seq_tokens, model.max_position_embeddings));
  }
  if (t.precision == TrainPrecision::fp16) {
    plan.notes.push_back(fmt::format(
        "fp16 mixed precision with dynamic loss scaling (DeepSpeed's fp16 optimizer, Megatron-LM's --fp16): the "
        "bytes of bf16's, fp16 weights and gradients beside the fp32 master and moments, the loss scaler a few "
        "scalars; the matmuls at {}'s fp16 peak; steps skipped on overflow are not counted",
        gpu.id));
  }
  const bool pure_bf16 = t.master_weights == MasterWeights::none;
  if (t.master_weights == MasterWeights::autocast) {
    plan.notes.push_back(
        "autocast over fp32 weights (a model loaded in fp32 under torch.autocast: Hugging Face Trainer's bf16=True, "
        "ATorch's amp_native, FSDP without a MixedPrecision policy): fp32 weights, gradients and optimizer moments, "
        "no master copy; FSDP gathers and reduces fp32; the residual stream is fp32 (the embedding is not an "
        "autocast op and the residual adds promote), so each layer's stored input doubles; autocast's bf16 copy "
        "of the weights is held through the forward where its cache keeps it (leaf parameters that require grad: "
        "DDP) or autograd saves it (layers not recomputed)");
  }
  if (t.method == TrainMethod::full && t.master_weights == MasterWeights::autocast) {
    // Said in the note above.
  } else if (t.method == TrainMethod::full && !pure_bf16) {
    plan.notes.push_back(fp32_main_grads(t)
                             ? "model states as Megatron-LM keeps them: bf16 parameters, fp32 main_grad buffer "
                               "(unsharded, also by its distributed optimizer), fp32 master weights and optimizer "
                               "moments: 6 + 12/DP bytes per parameter"
                             : "model states as the ZeRO paper counts them: bf16 parameters and gradients, fp32 "
                               "master weights and optimizer moments");
  } else if (t.method == TrainMethod::full) {
    plan.notes.push_back("pure bf16 (torchtune, litgpt bf16-true): bf16 parameters, gradients and optimizer moments, "
                         "no fp32 master copy; updates smaller than bf16's resolution of a weight are lost unless the "
                         "optimizer compensates (Kahan summation, stochastic rounding)");
  } else {
    plan.notes.push_back(fmt::format("LoRA rank {} on the attention (q, k, v, o) and dense/shared MLP projections; "
                                     "adapters in {}; routed experts, embeddings and LM head frozen",
                                     t.lora_rank, pure_bf16 ? "bf16 (pure bf16)" : "fp32"));
    if (t.method == TrainMethod::lora && quantized_checkpoint(model)) {
      plan.frozen_base_format = to_string((*model.shipped_formats)[WeightPart::attention]);
      plan.notes.push_back(fmt::format("frozen base as the checkpoint ships it ({}: {}), as PEFT's LoRA layers "
                                       "for that quantizer train on it; the dequantization's extra time is not in "
                                       "the step time",
                                       model.checkpoint_quant->method, plan.frozen_base_format));
    }
    if (t.method == TrainMethod::qlora && t.recompute_assumed && t.recompute == Recompute::full) {
      plan.notes.push_back("recompute full assumed: PEFT's prepare_model_for_kbit_training defaults to "
                           "use_gradient_checkpointing=True, Hugging Face's gradient checkpointing (--recompute none "
                           "if the run turned it off)");
    }
    if (t.method == TrainMethod::qlora) {
      plan.notes.push_back(peft_kbit_prepared(t)
                               ? "QLoRA base in NF4 with double quantization, prepared as PEFT's "
                                 "prepare_model_for_kbit_training does on the Hugging Face stack: "
                                 "embeddings, LM head and norms cast to fp32, so the residual stream is fp32 and "
                                 "autocast keeps a bf16 copy of the head (--qlora-prep none: stacks that skip it, "
                                 "Answer.AI's FSDP-QLoRA, PEFT on a GPTQ base); the NF4 dequantization before each "
                                 "matmul is timed in the step (its own row: memory-bound, every pass)"
                               : "QLoRA base in NF4 with double quantization, embeddings, LM head and norms left in "
                                 "bf16 (no PEFT k-bit preparation; --qlora-prep peft counts it); the NF4 "
                                 "dequantization before each matmul is timed in the step (its own row: "
                                 "memory-bound, every pass)");
    }
  }
  if (l.tp > 1) {
    plan.notes.push_back(
        t.sequence_parallel
            ? "sequence parallel on (NeMo's and Megatron-Bridge's recipes set it with TP > 1, e.g. NeMo "
              "llm/recipes/llama3_70b.py): norm and dropout activations split TP ways; --sequence-parallel off for "
              "stacks without it (Megatron-LM's bare --sequence-parallel defaults off, DeepSpeed-Megatron, "
              "nanotron's ALL_REDUCE mode)"
            : "sequence parallel off (--sequence-parallel off): norm and dropout activations and the pipeline's "
              "sends whole on every TP rank");
  }
  if (const double shards = model.kv_projection_shards(l.tp);
      l.tp > 1 && !model.mla && model.num_key_value_heads > 0 && shards < static_cast<double>(l.tp)) {
    plan.notes.push_back(fmt::format(
        "TP {} with {} KV head (MQA): its K and V projection, their weights, gradients and optimizer states and "
        "the K and V activations, whole on each of the {} TP ranks (BigCode's Megatron-LM fork, which trained "
        "StarCoder at TP 4); {}; Megatron-Core itself needs TP to divide the KV heads",
        l.tp, model.num_key_value_heads, static_cast<std::uint64_t>(static_cast<double>(l.tp) / shards),
        t.sequence_parallel ? "with sequence parallelism each rank projects only its own tokens"
                            : "without sequence parallelism every replica projects all the tokens (counted in the "
                              "hardware FLOPs)"));
  }
  if (t.sharding == Sharding::zero3 && l.dp * l.cp > 1) {
    plan.notes.push_back("zero3 is timed as DeepSpeed runs it: each module's parameter all-gather waits in its hook, "
                         "on the critical path, one all-gather per module and pass, each paying a ring's latency over "
                         "all the DP ranks, and only the gradient reduce-scatter (per 5e8-element bucket) overlaps "
                         "the backward; --sharding fsdp prefetches the gathers under compute");
  }
  if (t.sync_last_micro_batch.value_or(false) && t.micro_batches() > 1) {
    plan.notes.push_back(fmt::format(
        "gradients under no_sync (--grad-sync last): each rank accumulates the whole unsharded gradient of its model "
        "shard over the {} micro-batches and reduce-scatters once, so FSDP shards no gradient memory; "
        "--grad-sync each (Accelerate's sync_each_batch, torchtitan) reduce-scatters every micro-batch instead",
        t.micro_batches()));
  }
  if (t.optimizer_in_backward) {
    plan.notes.push_back("optimizer in backward (torchtune's optimizer_in_bwd): each gradient is applied and freed as "
                         "it is produced, so only the largest tensor's is held; no gradient clipping over the whole "
                         "model");
  }
  if (t.offload == Offload::paged) {
    const TrainMemory& m = plan.memory;
    plan.notes.push_back(fmt::format(
        "paged optimizer (bitsandbytes' PagedAdamW{}): the moments live in CUDA unified memory and take what "
        "the rest leaves free, up to {:.2f} GB, paged to the host under pressure; {}. They are not in the total "
        "and count for neither the fit nor the free memory, and PyTorch's memory counters "
        "(torch.cuda.max_memory_allocated) do not see them",
        t.optimizer == Optimizer::adamw_8bit ? "8bit" : "", m.paged_optimizer_states / units::kGB,
        m.paged_states > 0 ? fmt::format("{:.2f} GB do not fit, and as the step walks all {:.2f} GB, least-recently-used "
                                         "eviction sends every page over {} and back each step, at {:.0f} % of its rate",
                                         m.paged_states / units::kGB, m.paged_optimizer_states / units::kGB,
                                         gpu.host_link.kind, r.efficiency.link * 100.0)
                           : std::string("all are resident here, so nothing is paged")));
  }
  if (steps_on_cpu(t.offload)) {
    plan.notes.push_back(
        megatron_style(t)
            ? fmt::format("offload as Megatron-LM's --optimizer-cpu-offload{}: the fp32 master weights and optimizer "
                          "moments on the host and the step on the CPU; the gradients stay in the GPU's main_grad "
                          "buffer (--framework deepspeed: ZeRO-Offload, which moves them to the host too)",
                          t.framework ? "" : " (assumed from the layout: zero1 or none with TP or PP > 1)")
            : fmt::format("offload as DeepSpeed's ZeRO-Offload{}: the gradients, fp32 master weights and optimizer "
                          "moments on the host and the step on the CPU (--framework megatron: Megatron's "
                          "--optimizer-cpu-offload keeps the gradients on the GPU)",
                          t.framework ? "" : " (assumed: no TP or PP > 1 with zero1 or none)"));
    plan.notes.push_back(fmt::format(
        "offload: the optimizer steps on the CPU at {:.0f} GB/s of host memory per GPU ({}), {:.0f} bytes per "
        "parameter; transfers at {:.0f} % of the {} rate, gradients {}",
        host_memory_rate(gpu, r.efficiency) / units::kGB,
        r.efficiency.host_memory_bytes_per_s_per_gpu ? "--host-memory-gb-per-s"
        : gpu.host_link.kind == "nvlink-c2c"
            ? "assumed: Grace's LPDDR5X, 512 GB/s at 80 %, shared by two GPUs; --host-memory-gb-per-s sets it"
            : "assumed: a two-socket DDR4-3200 server's 409.6 GB/s at 80 %, shared by 8 GPUs; --host-memory-gb-per-s "
              "sets it",
        optimizer_step_bytes_per_param(t),
        r.efficiency.link * 100.0, gpu.host_link.kind,
        t.offload == Offload::params ? "down and parameters up every micro-batch, hidden under compute as far as it lasts"
                                     : "down under each backward, the updated parameters up after the step"));
  }
  // A network default the user did not type is one the catalog chose: say which.
  if (!r.efficiency.network_bytes_per_s_per_gpu && gpu.scale_out_bytes_per_s &&
      (plan.step.dp_link == "network" || plan.step.tp_link == "network")) {
    plan.notes.push_back(fmt::format(
        "network between nodes: {:g} Gb/s per GPU, {}'s catalog scale-out NICs (--network-gbit-per-s sets it)",
        *gpu.scale_out_bytes_per_s * 8 / 1e9, gpu.id));
  }
  {
    const LossKernel loss = t.loss_kernel();
    const std::string_view what =
        loss == LossKernel::unfused ? "unfused cross-entropy as Hugging Face Transformers computes it (Trainer, TRL, "
                                      "PEFT): bf16 logits, their fp32 copy, log-softmax and gradient, 14 bytes per "
                                      "token and vocabulary entry"
        : loss == LossKernel::fused ? "fused cross-entropy (Megatron's vocab-parallel loss, torchtune's chunked loss): "
                                      "bf16 logits and one fp32 copy, 6 bytes per token and vocabulary entry"
                                    : "fused linear cross-entropy (Liger, Cut Cross-Entropy as Unsloth runs): the "
                                      "logits a chunk at a time, never whole";
    plan.notes.push_back(fmt::format("loss: {}{}; --loss unfused, fused or fused-linear sets it", what,
                                     t.loss ? "" : fmt::format(" (assumed for {} training)", to_string(t.method))));
  }
  plan.notes.push_back("memory total: the allocated peak (torch.cuda.max_memory_allocated) plus the reserve; "
                       "nvidia-smi's used memory adds the caching allocator's cached blocks and NCCL buffers, "
                       "10-45 % more in FlagPerf's multi-GPU runs");
  if (t.flash_attention) {
    plan.notes.push_back("FlashAttention assumed: attention scores are never stored, so selective recompute only "
                         "adds its FLOPs (--attention eager stores them)");
    if (t.recompute == Recompute::selective) {
      // torchtitan's "selective" (its default selective_ac_option "op") checkpoints operators: a
      // different scheme that frees a share of every layer's activations.
      plan.notes.push_back("--recompute selective is Megatron's (the attention core alone); torchtitan's op-level "
                           "selective activation checkpointing (selective_ac_option \"op\") keeps far fewer "
                           "activations: --recompute selective-op");
    }
  } else {
    plan.notes.push_back(megatron_style(t)
                             ? "eager attention (--attention eager): each layer stores its softmax probabilities, heads "
                               "x keys per token, in bf16 (Megatron's fused softmax) for the backward unless recompute "
                               "rebuilds them; the scores' HBM traffic is timed (22 bytes per score and head, 30 "
                               "with the forward recomputed)"
                             : "eager attention (--attention eager): each layer stores its softmax probabilities, heads "
                               "x keys per token, in fp32 and bf16 (6 bytes, as transformers' eager attention keeps "
                               "them) for the backward unless recompute rebuilds them; the scores' HBM traffic is "
                               "timed (transformers' eager_attention_forward: 62 bytes per score and head, 88 with "
                               "the forward recomputed)");
  }
  if (t.recompute == Recompute::selective_op) {
    plan.notes.push_back("--recompute selective-op: torchtitan's op-level SAC saves each layer's input, every other "
                         "matmul's output (Q, V, the MLP's gate and down projection) and the attention op's, and "
                         "recomputes the rest (K, the output projection, the MLP's up) in the backward");
  }
  plan.notes.push_back(fmt::format(
      "compute at {:.0f} % of the dense {} peak (calibrated on Megatron-LM and Llama 3 runs, "
      "data/train_measurements.json); band {:+.0f} % .. {:+.0f} %: {}",
      plan.step.compute_efficiency * 100.0, plan.step.compute_type, plan.band_low * 100.0, plan.band_high * 100.0,
      plan.moe_band ? "MoE training is not calibrated (every fitted run is dense): the range of 11 public MoE runs "
                      "(Megatron-Bridge), mostly slower than this, whose expert layers run far below the dense rate"
                    : "the 10-90 % range of 47 public dense runs the estimate was not fitted to (NeMo, "
                      "Megatron-Bridge, torchtitan, LLM Foundry); it is optimistic for FSDP stacks and small models"));
  if (plan.step.gemm_fill < 0.995) {
    plan.notes.push_back(fmt::format(
        "GEMMs at {:.0f} % of that rate for their size: a micro-batch's {} tokens x each layer's widths / TP {} "
        "(inference's fill curve, half the rate at {:.2g} GFLOP per GEMM); more tokens per micro-batch or less TP "
        "fills them",
        plan.step.gemm_fill * 100.0,
        t.micro_batch * t.seq_tokens / l.cp, l.tp, r.efficiency.gemm_half_flop / 1e9));
  }
  if (plan.step.matmul_factor < 1.0) {
    plan.notes.push_back(matmul_factor_note(gpu.id, plan.step.matmul_factor, kTrainCalibratedMatmulShare,
                                            "calibrated training GPU (H100)"));
  }
  if (r.tokens > 0) {
    plan.notes.push_back(fmt::format("energy: GPUs at {:.0f} % of their {:.0f} W TDP (assumed) x PUE {:.2f}",
                                     r.power_share * 100.0, gpu.tdp_w, r.pue));
  }
  if (plan.costs.empty()) {
    plan.notes.push_back(fmt::format("no catalog price for {}{}", gpu.id,
                                     r.provider.empty() ? "" : " at " + r.provider));
  }
  if (plan.memory.tight) {
    plan.notes.push_back(fmt::format(
        "tight: {:.1f} % of the memory is free ({:.2f} GB), under the {:.0f} % the allocator's fragmentation and "
        "NCCL/cuBLAS workspaces can take beyond the reserve; expect it to run out of memory unless measured",
        plan.memory.free_bytes / plan.memory.capacity_bytes * 100.0, plan.memory.free_bytes / units::kGB,
        kTightFreeShare * 100.0));
  }
  if (!plan.memory.fits) {
    plan.notes.push_back(fmt::format("does not fit: {:.1f} GB short per GPU; try {}",
                                     plan.memory.shortfall_bytes / units::kGB, fit_remedies(t)));
  }
  return plan;
}

}  // namespace gpuplan
