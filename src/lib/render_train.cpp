// render_train(): memory per GPU term by term, the step and its split, the run, its cost by
// provider and mode, and the scaling table.
#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuplan/render.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"

namespace gpuplan {
namespace {

using detail::checked;
using detail::OrderedJson;

constexpr double kSecondsPerDay = 86400.0;

std::string train_pct(double share) { return fmt::format("{:.1f} %", checked(share, "a share") * 100.0); }
std::string seconds(double s) { return fmt::format("{:.3f}", checked(s, "a time")); }
std::string train_usd(double v) { return fmt::format("{:.0f}", checked(v, "a price")); }

// The unit a run of `s` seconds is planned in: minutes, hours, or days from two days on.
std::pair<double, const char*> duration_unit(double s) {
  if (s < 3600.0) {
    return {60.0, "min"};
  }
  if (s < 2 * kSecondsPerDay) {
    return {3600.0, "h"};
  }
  return {kSecondsPerDay, "days"};
}

// "3.2 h", "12.4 days": run lengths people plan in.
std::string duration(double s) {
  checked(s, "a duration");
  const auto [per, unit] = duration_unit(s);
  return fmt::format("{:.1f} {}", s / per, unit);
}

// "39.8 h (34.6 .. 62.4 h)": the band in the estimate's unit, not "34.6 h .. 2.6 days" (helper
// s53 tasks F8).
std::string duration_band(double s, double low, double high) {
  checked(s, "a duration");
  checked(low, "a duration");
  checked(high, "a duration");
  const auto [per, unit] = duration_unit(s);
  return fmt::format("{:.1f} {} ({:.1f} .. {:.1f} {})", s / per, unit, low / per, high / per, unit);
}

// 2e10 -> "20 B": token budgets as people state them (decimal).
std::string token_count(double tokens) {
  checked(tokens, "tokens");
  if (tokens >= 1e12) {
    return fmt::format("{:.4g} T", tokens / 1e12);
  }
  if (tokens >= 1e9) {
    return fmt::format("{:.4g} B", tokens / 1e9);
  }
  if (tokens >= 1e6) {
    return fmt::format("{:.4g} M", tokens / 1e6);
  }
  return fmt::format("{:.0f}", tokens);
}

std::string train_layout_text(const TrainLayout& l) {
  std::string out = fmt::format("TP {}, CP {}, PP {}, DP {}", l.tp, l.cp, l.pp, l.dp);
  if (l.ep > 1) {
    out += fmt::format(", EP {}", l.ep);
  }
  if (l.expert_tp() != l.tp) {
    out += fmt::format(", ETP {}", l.expert_tp());
  }
  if (l.vpp > 1) {
    out += fmt::format(", VPP {}", l.vpp);
  }
  if (l.first_stage_layers > 0) {
    out += fmt::format(", first stage {} layers", l.first_stage_layers);
  }
  if (l.last_stage_layers > 0) {
    out += fmt::format(", last stage {} layers", l.last_stage_layers);
  }
  return out;
}

OrderedJson train_layout_json(const TrainLayout& l) {
  return {{"tp", l.tp}, {"cp", l.cp},         {"pp", l.pp},  {"ep", l.ep}, {"etp", l.expert_tp()},
          {"dp", l.dp}, {"vpp", l.vpp}, {"first_stage_layers", l.first_stage_layers},
          {"last_stage_layers", l.last_stage_layers}, {"gpus", l.gpus()}};
}

OrderedJson train_plan_json(const TrainPlan& p) {
  const TrainRequest& t = p.request.train;
  const TrainMemory& m = p.memory;
  const TrainStep& s = p.step;
  OrderedJson j = detail::envelope("train");
  j["inputs"] = {{"model", p.model_id},
                 {"gpu", p.gpu_id},
                 {"layout", train_layout_json(t.layout)},
                 {"method", to_string(t.method)},
                 {"lora_rank", t.method == TrainMethod::full ? OrderedJson(nullptr) : OrderedJson(t.lora_rank)},
                 {"lora_dropout", t.lora_dropout},
                 {"sharding", to_string(t.sharding)},
                 {"recompute", to_string(t.recompute)},
                 {"recompute_assumed", t.recompute_assumed},
                 {"optimizer", to_string(t.optimizer)},
                 {"precision", to_string(t.precision)},
                 {"offload", to_string(t.offload)},
                 {"master_weights", to_string(t.master_weights)},
                 {"optimizer_in_backward", t.optimizer_in_backward},
                 {"grad_sync", t.sync_last_micro_batch.value_or(fsdp_stage_unsharded(t)) ? "last" : "each"},
                 {"overlap_grad_reduce", overlaps_grad_reduce(t)},
                 {"overlap_param_gather", overlaps_param_gather(t)},
                 {"micro_batch", t.micro_batch},
                 {"seq_tokens", t.seq_tokens},
                 {"global_batch_tokens", static_cast<std::uint64_t>(s.tokens_per_step)},
                 {"micro_batches_per_step", s.micro_batches},
                 {"sequence_parallel", t.sequence_parallel},
                 {"attention", t.flash_attention ? "flash" : "eager"},
                 {"flash_attention", t.flash_attention},
                 {"framework", to_string(megatron_style(t) ? TrainFramework::megatron : TrainFramework::deepspeed)},
                 {"framework_assumed", !t.framework.has_value()},
                 {"loss", to_string(t.loss_kernel())},
                 {"loss_assumed", !t.loss.has_value()},
                 {"kbit_prepared", peft_kbit_prepared(t)},
                 {"tokens", p.request.tokens}};
  j["memory_per_gpu"] = {{"params_per_gpu", m.params_per_gpu},
                         {"trainable_params", m.trainable_params},
                         {"adapter_params", m.adapter_params},
                         {"parameters_bytes", m.parameters},
                         {"gradients_bytes", m.gradients},
                         {"master_weights_bytes", m.master_weights},
                         {"optimizer_states_bytes", m.optimizer_states},
                         {"paged_optimizer_states_bytes", m.paged_optimizer_states},
                         {"optimizer_params_per_gpu", m.optimizer_params_per_gpu},
                         {"model_states_bytes", m.model_states()},
                         {"activations_per_micro_batch_bytes", m.activations_per_micro_batch},
                         {"peak_stage", to_string(m.peak_stage)},
                         {"stage_layers", m.stage_layers},
                         {"micro_batches_in_flight", m.micro_batches_in_flight},
                         {"interleave_penalty", m.interleave_penalty},
                         {"activations_bytes", m.activations},
                         {"logits_bytes", m.logits},
                         {"buckets_bytes", m.buckets},
                         {"step_transient_bytes", m.step_transient},
                         {"reserve_bytes", m.reserve},
                         {"allocated_peak_bytes", checked(m.allocated_peak(), "memory")},
                         {"total_bytes", checked(m.total(), "memory")},
                         {"capacity_bytes", m.capacity_bytes},
                         {"host_bytes", m.host_bytes},
                         {"paged_states_bytes", m.paged_states},
                         {"fits", m.fits},
                         {"tight", m.tight},
                         {"free_bytes", m.free_bytes},
                         {"shortfall_bytes", m.shortfall_bytes}};
  j["limits"] = {{"max_micro_batch", p.limits.max_micro_batch}, {"max_seq_tokens", p.limits.max_seq_tokens}};
  j["flops"] = {{"matmul_params", p.flops.matmul_params},
                {"model_flop_per_token", p.flops.model_flop_per_token},
                {"hardware_flop_per_token", p.flops.hardware_flop_per_token}};
  j["step"] = {{"compute_type", s.compute_type},
               {"peak_flop_per_s", s.peak_flop_per_s},
               {"compute_efficiency", s.compute_efficiency},
               {"gemm_fill", s.gemm_fill},
               {"compute_s", s.compute_s},
               {"tp_comm_s", s.tp_comm_s},
               {"ep_comm_s", s.ep_comm_s},
               {"cp_comm_s", s.cp_comm_s},
               {"pp_comm_s", s.pp_comm_s},
               {"bubble_s", s.bubble_s},
               {"dp_comm_s", s.dp_comm_s},
               {"dp_exposed_s", s.dp_exposed_s},
               {"offload_transfer_s", s.offload_transfer_s},
               {"offload_exposed_s", s.offload_exposed_s},
               {"cpu_optimizer_s", s.cpu_optimizer_s},
               {"gpu_optimizer_s", s.gpu_optimizer_s},
               {"dequant_s", s.dequant_s},
               {"attention_scores_s", s.attention_scores_s},
               {"step_s", checked(s.step_s, "step")},
               {"tokens_per_s", checked(s.tokens_per_s, "tokens/s")},
               {"tokens_per_s_low", p.tokens_per_s_low},
               {"tokens_per_s_high", p.tokens_per_s_high},
               {"mfu", s.mfu},
               {"mfu_low", s.mfu * (1.0 + p.band_low)},
               {"mfu_high", s.mfu * (1.0 + p.band_high)},
               {"band_case", p.moe_band ? "moe" : "dense"},
               {"hfu", s.hfu},
               {"model_flop_per_s_per_gpu", s.model_flop_per_s_per_gpu},
               {"tp_link", s.tp_link},
               {"dp_link", s.dp_link},
               {"host_link", s.host_link.empty() ? OrderedJson(nullptr) : OrderedJson(s.host_link)}};
  if (p.run) {
    j["run"] = {{"tokens", p.run->tokens},         {"time_s", p.run->time_s},       {"time_low_s", p.run->time_low_s},
                {"time_high_s", p.run->time_high_s}, {"gpu_hours", p.run->gpu_hours}, {"energy_kwh", p.run->energy_kwh},
                {"power_share_of_tdp", p.request.power_share}, {"pue", p.request.pue}};
  } else {
    j["run"] = nullptr;
  }
  OrderedJson costs = OrderedJson::array();
  for (const TrainCost& c : p.costs) {
    OrderedJson row = detail::price_terms_json(c.price);
    row["rental"] = detail::rental_json(c.rental);
    row["usd_per_hour"] = c.usd_per_hour;
    row["usd_per_million_tokens"] = checked(c.usd_per_million_tokens, "usd/mtok");
    row["usd"] = p.run ? OrderedJson(c.usd) : OrderedJson(nullptr);
    row["usd_low"] = p.run ? OrderedJson(c.usd_low) : OrderedJson(nullptr);
    row["usd_high"] = p.run ? OrderedJson(c.usd_high) : OrderedJson(nullptr);
    costs.push_back(std::move(row));
  }
  j["costs"] = costs;
  OrderedJson scale = OrderedJson::array();
  for (const TrainScaleRow& r : p.scale) {
    if (!r.invalid.empty()) {
      scale.push_back({{"gpus", r.gpus}, {"invalid", r.invalid}});
      continue;
    }
    scale.push_back({{"gpus", r.gpus},
                     {"layout", train_layout_json(r.layout)},
                     {"fits", r.fits},
                     {"memory_bytes", r.memory_bytes},
                     {"tokens_per_s", r.tokens_per_s},
                     {"mfu", r.mfu},
                     {"efficiency", r.efficiency},
                     {"bubble_share", r.bubble_share},
                     {"exposed_comm_share", r.exposed_comm_share},
                     // A layout that does not fit has no run to time or price (s56 tasks F7).
                     {"time_s", p.run && r.fits ? OrderedJson(r.time_s) : OrderedJson(nullptr)},
                     {"usd", r.usd && r.fits ? OrderedJson(*r.usd) : OrderedJson(nullptr)},
                     {"no_run", r.fits ? OrderedJson(nullptr) : OrderedJson("does not fit in memory: no time or cost")}});
  }
  j["scale"] = scale;
  j["scale_price"] = p.scale_price ? OrderedJson{{"provider", p.scale_price->provider},
                                          {"mode", to_string(p.scale_price->mode)},
                                          {"usd_per_gpu_hour", p.scale_price->usd_per_gpu_hour}}
                                   : OrderedJson(nullptr);
  j["notes"] = p.notes;
  return j;
}

}  // namespace

std::string render_train(const TrainPlan& p, const RenderOptions& options) {
  if (options.format == Format::json) {
    return detail::dump_json(train_plan_json(p));
  }
  const TrainRequest& t = p.request.train;
  const TrainMemory& m = p.memory;
  const TrainStep& s = p.step;
  const auto bytes = [&options](double b) { return detail::bytes_value(b, options.units); };
  const std::string unit(detail::unit_name(options.units));
  detail::Document doc;
  const std::string method = t.method == TrainMethod::full ? "full training"
                                                             : fmt::format("{} rank {}", to_string(t.method), t.lora_rank);
  doc.heading.push_back(fmt::format("gpuplan train: {} on {} x {} ({}), {}", p.model_id, t.layout.gpus(), p.gpu_id,
                                    train_layout_text(t.layout), method));
  const bool pure_bf16 = t.master_weights == MasterWeights::none;
  const std::string optimizer = fmt::format("{}{}{}", to_string(t.optimizer),
                                            pure_bf16 ? ", pure bf16 (no fp32 master)"
                                            : t.master_weights == MasterWeights::autocast ? ", autocast over fp32 weights"
                                                                                          : "",
                                            t.optimizer_in_backward ? ", optimizer in backward" : "");
  doc.heading.push_back(fmt::format(
      "sharding {}, recompute {}{}, {}{}{}, {}, micro-batch {} x {} tokens, gradient accumulation {}, global batch {} "
      "tokens",
      to_string(t.sharding), to_string(t.recompute),
      t.recompute_assumed && t.recompute == Recompute::full ? " (assumed: PEFT's gradient checkpointing)" : "",
      t.flash_attention ? "" : "eager attention, ",
      t.layout.tp > 1 ? (t.sequence_parallel ? "sequence parallel on, " : "sequence parallel off, ") : "", optimizer, to_string(t.precision), t.micro_batch,
      detail::group_digits(t.seq_tokens), s.micro_batches,
      detail::group_digits(static_cast<std::uint64_t>(s.tokens_per_step))));

  // Under a pipeline the figures are the heaviest stage's: the title says which.
  const std::uint64_t pp = t.layout.pp;
  const std::string stage =
      m.peak_stage == PipelineStage::only ? ""
      : m.peak_stage == PipelineStage::first
          ? fmt::format(", pipeline stage 1 of {} (the heaviest: {} layers + embedding)", pp, m.stage_layers)
      : m.peak_stage == PipelineStage::last
          ? fmt::format(", pipeline stage {} of {} (the heaviest: {} layers + LM head and logits)", pp, pp, m.stage_layers)
          : fmt::format(", pipeline stage 2 of {} (the heaviest: {} layers)", pp, m.stage_layers);
  detail::Table mem{.title = "memory per GPU" + stage, .header = {"term", unit, "note"}, .rows = {}};
  const bool full = t.method == TrainMethod::full;
  const int zero = t.sharding == Sharding::none ? 0 : t.sharding == Sharding::zero1 ? 1 : t.sharding == Sharding::zero2 ? 2 : 3;
  const auto split_note = [&](int from) {
    const std::uint64_t ranks = t.layout.dp * t.layout.cp;
    if (zero < from || ranks <= 1) {
      return std::string();
    }
    // Under EP the experts' states are split over the expert-data-parallel ranks only.
    return t.layout.ep > 1 || t.layout.expert_tp() != t.layout.tp
               ? fmt::format("/{} (DP x CP), experts /{}", ranks, t.layout.expert_dp())
               : fmt::format("/{} (DP x CP)", ranks);
  };
  const std::string offloaded = steps_on_cpu(t.offload) ? "offloaded to CPU" : "";
  // Megatron's optimizer offload leaves the main_grad buffer on the GPU.
  const std::string grads_offloaded = megatron_style(t) || offloaded.empty() ? ""
                                      : offloaded + (t.master_weights == MasterWeights::fp32 ? " (fp32 there)" : "");
  const std::string adapters = pure_bf16 ? "adapters bf16" : "adapters fp32";
  // fp16 mixed precision keeps the same bytes in fp16 (loss scaling adds a few scalars).
  const std::string half = t.master_weights == MasterWeights::autocast ? "fp32 "
                           : t.precision == TrainPrecision::fp16       ? "fp16 "
                                                                       : "bf16 ";
  mem.rows.push_back({"parameters", bytes(m.parameters),
                      t.offload == Offload::params ? offloaded
                      : full ? half + split_note(3)
                             : fmt::format("frozen base {} + {} {}",
                                           peft_kbit_prepared(t)               ? "nf4 (ends, norms fp32)"
                                           : t.method == TrainMethod::qlora       ? "nf4"
                                           : !p.frozen_base_format.empty() ? p.frozen_base_format + " as shipped"
                                           : t.master_weights == MasterWeights::autocast ? "fp32"
                                                                                  : "bf16",
                                           adapters, split_note(3))});
  mem.rows.push_back({"gradients", bytes(m.gradients),
                      !grads_offloaded.empty()  ? grads_offloaded
                      : t.optimizer_in_backward ? "bf16, the largest tensor's (optimizer in backward)"
                      : fp32_main_grads(t)      ? fmt::format("fp32 (Megatron's main_grad{})",
                                                              offloaded.empty() ? "" : ", on the GPU under offload")
                      : t.sync_last_micro_batch.value_or(false) && t.micro_batches() > 1
                          ? std::string(pure_bf16 ? "bf16" : "fp32") + ", unsharded until the last micro-batch (no_sync)"
                      : full && fsdp_stage_unsharded(t) && t.micro_batches() > 1
                          ? std::string(pure_bf16 ? "bf16" : "fp32") +
                                ", the stage's unsharded until the last micro-batch (FSDP under PP)"
                          : (full ? half : adapters + " ") + split_note(2)});
  mem.rows.push_back({"master weights", bytes(m.master_weights),
                      !offloaded.empty() ? offloaded
                      : pure_bf16        ? "none (pure bf16)"
                      : t.master_weights == MasterWeights::autocast ? std::string("none (the weights are fp32)")
                      : full             ? "fp32 " + split_note(1)
                                         : "adapters are fp32 already"});
  // 8-bit AdamW's moments are int8 whatever the weights' type, bitsandbytes' paged 32-bit ones fp32.
  const bool bf16_moments = pure_bf16 && t.optimizer != Optimizer::adamw_8bit && t.offload != Offload::paged;
  const std::string paged =
      t.offload != Offload::paged ? ""
      : m.paged_states > 0 ? fmt::format(", paged to host under pressure ({} {} do not fit beside the rest); not in the total",
                                         bytes(m.paged_states), unit)
                           : std::string(", paged to host under pressure (all fit beside the rest); not in the total");
  mem.rows.push_back({"optimizer states", t.offload == Offload::paged ? "up to " + bytes(m.paged_optimizer_states)
                                                                      : bytes(m.optimizer_states),
                      !offloaded.empty() ? offloaded
                                         : fmt::format("{}{}{}{}", to_string(t.optimizer), bf16_moments ? " bf16" : "",
                                                       split_note(1).empty() ? "" : " " + split_note(1), paged)});
  mem.rows.push_back({"activations", bytes(m.activations),
                      fmt::format("{} per micro-batch x {} in flight{}{}{}", bytes(m.activations_per_micro_batch),
                                  m.micro_batches_in_flight,
                                  t.layout.vpp > 1 && t.layout.pp > 1
                                      ? fmt::format(" x {:.2f} (interleaved, VPP {})", m.interleave_penalty, t.layout.vpp)
                                      : "",
                                  t.recompute == Recompute::full || t.recompute == Recompute::selective_op ? " + one layer rebuilt" : "",
                                  peft_kbit_prepared(t) || t.master_weights == MasterWeights::autocast ? ", fp32 residual" : "")});
  const LossKernel loss = t.loss_kernel();
  mem.rows.push_back({"logits", bytes(m.logits),
                      m.peak_stage == PipelineStage::first || m.peak_stage == PipelineStage::middle
                          ? std::string("on the last stage, with the LM head")
                          : std::string(loss == LossKernel::unfused ? "unfused loss: bf16 + fp32 copy + log-softmax + gradient"
                                        : loss == LossKernel::fused ? "fused loss: bf16 + fp32, one micro-batch"
                                                                    : "fused linear loss: one chunk + input gradient") +
                                (m.softcap_logits > 0 ? " + soft-cap tanh output" : "")});
  std::string buckets = fsdp_stage_unsharded(t) ? "the stage gathered (FSDP under PP keeps it)"
                        : zero == 3 ? "gathered layers (+ prefetch)"
                        : t.layout.dp * t.layout.cp > 1 ? "gradient buckets"
                                                        : "";
  if (t.method == TrainMethod::qlora) {
    buckets += buckets.empty() ? "dequantized NF4 matrix" : " + dequantized NF4 matrix";
  }
  if (peft_kbit_prepared(t)) {
    buckets += " + bf16 head";
  }
  if (autocast_weight_copies_held(t)) {
    buckets += buckets.empty() ? "autocast's bf16 weight copies" : " + autocast's bf16 weight copies";
  }
  mem.rows.push_back({"buckets", bytes(m.buckets), buckets});
  if (m.step_transient > 0) {
    mem.rows.push_back({"optimizer step", bytes(m.step_transient),
                        fmt::format("fp32 gradients of a {:.2f} B-parameter ZeRO-3 sub-group, past what the backward frees",
                                    zero_step_group_params(t, m.optimizer_params_per_gpu) / 1e9)});
  }
  mem.rows.push_back({"reserve", bytes(m.reserve), "CUDA context, workspaces"});
  // torch.cuda.max_memory_allocated never counts the reserve (the CUDA context): name the two apart.
  mem.rows.push_back({"total", bytes(m.total()),
                      fmt::format("allocated peak {}{} + reserve, of {} {}", bytes(m.allocated_peak()),
                                  t.offload == Offload::paged ? " without the paged states" : "",
                                  bytes(m.capacity_bytes), unit)});
  doc.tables.push_back(std::move(mem));

  detail::Table step{.title = "step", .header = {"part", "seconds", "share"}, .rows = {}};
  const auto part = [&](std::string name, double v) {
    step.rows.push_back({std::move(name), seconds(v), train_pct(v / s.step_s)});
  };
  part("compute", s.compute_s);
  if (s.dequant_s > 0) {
    part("NF4 dequantization (HBM-bound)", s.dequant_s);
  }
  if (s.attention_scores_s > 0) {
    part("eager attention scores (HBM-bound)", s.attention_scores_s);
  }
  if (s.tp_comm_s > 0) {
    part(fmt::format("TP all-reduce ({})", s.tp_link), s.tp_comm_s);
  }
  if (s.ep_comm_s > 0) {
    part("EP all-to-all", s.ep_comm_s);
  }
  if (s.cp_comm_s > 0) {
    part("CP K/V exchange (exposed)", s.cp_comm_s);
  }
  if (s.pp_comm_s > 0) {
    part("PP sends", s.pp_comm_s);
  }
  if (s.bubble_s > 0) {
    part("pipeline bubble", s.bubble_s);
  }
  if (s.dp_comm_s > 0) {
    part(fmt::format("DP {} ({}, {} s in all)", zero == 3 ? "gather/reduce" : "gradient sync", s.dp_link,
                     seconds(s.dp_comm_s)),
         s.dp_exposed_s);
  }
  if (s.offload_transfer_s > 0 && t.offload == Offload::paged) {
    part(fmt::format("optimizer states paged ({})", s.host_link), s.offload_exposed_s);
  } else if (s.offload_transfer_s > 0) {
    part(fmt::format("CPU offload transfers ({}, {} s in all)", s.host_link, seconds(s.offload_transfer_s)),
         s.offload_exposed_s);
    part("CPU optimizer step", s.cpu_optimizer_s);
  }
  if (s.gpu_optimizer_s > 0) {
    part("optimizer step (HBM-bound)", s.gpu_optimizer_s);
  }
  part("step", s.step_s);
  doc.tables.push_back(std::move(step));

  // The answers first: a table, so csv and markdown carry them too.
  detail::Table sum{.title = "", .header = {"answer", "value"}, .rows = {}};
  const auto count = [](double v) { return detail::group_digits(static_cast<std::uint64_t>(checked(v, "a count"))); };
  sum.rows.push_back({"fits", m.fits ? fmt::format("yes, {} {} free{}{}", bytes(m.free_bytes), unit,
                                                   t.offload == Offload::paged ? " (for the paged states)" : "",
                                                   m.tight ? " (tight: at risk, see note)" : "")
                                     : fmt::format("NO, {} {} short", bytes(m.shortfall_bytes), unit)});
  if (m.host_bytes > 0) {
    sum.rows.push_back({t.offload == Offload::paged ? "host memory per GPU (paged states)" : "host memory per GPU (offloaded)",
                        fmt::format("{} {}", bytes(m.host_bytes), unit)});
  }
  sum.rows.push_back({fmt::format("largest micro-batch at {} tokens", detail::group_digits(t.seq_tokens)),
                      p.limits.max_micro_batch == 0 ? "none fits" : std::to_string(p.limits.max_micro_batch)});
  sum.rows.push_back({fmt::format("largest sequence at micro-batch {}", t.micro_batch),
                      p.limits.max_seq_tokens == 0 ? "none fits" : detail::group_digits(p.limits.max_seq_tokens) + " tokens"});
  sum.rows.push_back({"tokens/s (band)", fmt::format("{} ({} .. {})", count(s.tokens_per_s), count(p.tokens_per_s_low),
                                                     count(p.tokens_per_s_high))});
  sum.rows.push_back({"model TFLOP/s per GPU", fmt::format("{:.0f}", s.model_flop_per_s_per_gpu / 1e12)});
  sum.rows.push_back({"MFU (band)", fmt::format("{} ({} .. {})", train_pct(s.mfu), train_pct(s.mfu * (1 + p.band_low)),
                                                train_pct(s.mfu * (1 + p.band_high)))});
  sum.rows.push_back({t.recompute == Recompute::none ? "HFU" : "HFU (with recompute)", train_pct(s.hfu)});
  if (p.run) {
    sum.rows.push_back({fmt::format("time for {} tokens (band)", token_count(p.run->tokens)),
                        duration_band(p.run->time_s, p.run->time_low_s, p.run->time_high_s)});
    // Rounded, with decimals below 100: a 1.84 GPU-hour run is not "1".
    const auto amount = [&count](double v) {
      return v < 10.0 ? fmt::format("{:.2f}", v) : v < 100.0 ? fmt::format("{:.1f}", v) : count(std::round(v));
    };
    sum.rows.push_back({"GPU-hours", amount(p.run->gpu_hours)});
    sum.rows.push_back({"energy (kWh)", amount(p.run->energy_kwh)});
  }
  doc.tables.insert(doc.tables.begin(), std::move(sum));

  if (!p.costs.empty()) {
    // A configuration that does not fit has a cost only to compare with: say so where it is read.
    detail::Table c{.title = m.fits ? "cost" : "cost (if it fit: it does not, see above)",
                    .header = {"provider", "mode", "USD/GPU-h", "price age", "USD/h", "USD/Mtok"},
                    .rows = {}};
    if (p.run) {
      c.header.push_back("run USD");
      c.header.push_back("band");
    }
    for (const TrainCost& tc : p.costs) {
      // A price typed by hand has no mode (--usd-per-gpu-hour refuses --mode).
      std::vector<std::string> row{tc.price.provider,
                                   tc.price.provider == kGivenProvider ? "-" : offer_label(tc.price.mode, tc.price.term),
                                   fmt::format("{:.2f}", tc.price.usd_per_gpu_hour), price_age_label(tc.price),
                                   fmt::format("{:.2f}", tc.usd_per_hour),
                                   fmt::format("{:.3f}", tc.usd_per_million_tokens)};
      if (p.run) {
        row.push_back(train_usd(tc.usd));
        row.push_back(fmt::format("{} .. {}", train_usd(tc.usd_low), train_usd(tc.usd_high)));
      }
      c.rows.push_back(std::move(row));
    }
    doc.tables.push_back(std::move(c));
    for (const TrainCost& tc : p.costs) {
      if (tc.rental.group_split || tc.rental.idle_gpus() > 0) {
        doc.footer.push_back(fmt::format("{} {}: {}", tc.price.provider, offer_label(tc.price.mode, tc.price.term),
                                         rental_note(tc.rental, tc.price)));
      }
    }
  }
  if (!p.scale.empty()) {
    detail::Table sc{.title = "scaling", .header = {"GPUs", "layout", "fits", "tokens/s", "MFU", "efficiency", "bubble",
                                                    "exposed comm"},
                     .rows = {}};
    if (p.run) {
      sc.header.push_back("time");
    }
    if (p.run && p.scale_price) {
      sc.header.push_back(fmt::format("USD ({} {})", p.scale_price->provider, offer_label(p.scale_price->mode, p.scale_price->term)));
    }
    for (const TrainScaleRow& r : p.scale) {
      if (!r.invalid.empty()) {
        std::vector<std::string> row{std::to_string(r.gpus), r.invalid};
        row.resize(sc.header.size(), "-");
        sc.rows.push_back(std::move(row));
        continue;
      }
      std::vector<std::string> row{std::to_string(r.gpus), train_layout_text(r.layout), r.fits ? "yes" : "no",
                                   detail::group_digits(static_cast<std::uint64_t>(r.tokens_per_s)), train_pct(r.mfu),
                                   train_pct(r.efficiency), train_pct(r.bubble_share), train_pct(r.exposed_comm_share)};
      // A layout that does not fit has no run to time or price: the row says so.
      if (p.run) {
        row.push_back(r.fits ? duration(r.time_s) : "- (does not fit)");
      }
      if (p.run && p.scale_price) {
        row.push_back(r.usd && r.fits ? train_usd(*r.usd) : "-");
      }
      sc.rows.push_back(std::move(row));
    }
    doc.tables.push_back(std::move(sc));
  }
  for (const std::string& n : p.notes) {
    doc.footer.push_back("note: " + n);
  }
  return detail::render_document(doc, options.format);
}

}  // namespace gpuplan
