#include <gpuplan/perf.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan {
namespace {

double d(std::uint64_t v) { return static_cast<double>(v); }

constexpr double kActivationBytes = 2.0;  // bf16 hidden states between layers and over links

// The tensor-core type a weight format computes in: FP8/FP4/INT8 weights use their own units
// when the GPU has them; weight-only formats (INT4, or FP8 on Ampere) dequantize to bf16.
std::string compute_type_for(DType weights, const GpuSpec& gpu) {
  const auto has = [&gpu](const char* t) { return gpu.dense_flop_per_s.contains(t); };
  switch (weights) {
    case DType::fp8: return has("fp8") ? "fp8" : "bf16";
    case DType::int8: return has("int8") ? "int8" : "bf16";
    case DType::fp4:
    case DType::mxfp4: return has("fp4") ? "fp4" : (has("fp8") ? "fp8" : "bf16");
    case DType::fp32: return has("tf32") ? "tf32" : "bf16";
    case DType::fp16: return has("fp16") ? "fp16" : "bf16";
    case DType::bf16:
    case DType::int4: return "bf16";
  }
  return "bf16";
}

}  // namespace

void validate_perf_request(const ModelSpec& m, const PerfRequest& r) {
  if (!m.has_architecture()) {
    throw InputError("perf: a bare parameter count has no architecture to time; give a catalog "
                     "model or a config.json");
  }
  if (!r.fit.mig_profile.empty()) {
    throw InputError("perf.mig_profile: MIG slices are not modelled by perf yet");
  }
  const auto tokens = [](std::string_view field, std::uint64_t v) {
    if (v < 1 || v > (1ull << 32)) {
      throw InputError(fmt::format("perf.{}: expected between 1 and {}, got {}", field, 1ull << 32, v));
    }
  };
  tokens("input_tokens", r.input_tokens);
  tokens("output_tokens", r.output_tokens);
  if (r.input_tokens + r.output_tokens > m.max_position_embeddings) {
    throw InputError(fmt::format("perf.input_tokens: {} + {} output tokens exceed the {} tokens of '{}' "
                                 "(max_position_embeddings)",
                                 r.input_tokens, r.output_tokens, m.max_position_embeddings, m.id));
  }
  if (!(r.network_bytes_per_s_per_gpu > 0) || !std::isfinite(r.network_bytes_per_s_per_gpu)) {
    throw InputError("perf.network_bytes_per_s_per_gpu: expected a positive number");
  }
  validate_efficiency(r.efficiency);
}


std::string_view to_string(Bound bound) {
  switch (bound) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::communication: return "communication";
  }
  return "?";
}

Bound StepTime::bound() const {
  if (communication_s > memory_s && communication_s > compute_s) {
    return Bound::communication;
  }
  return compute_s > memory_s ? Bound::compute : Bound::memory;
}

void validate_efficiency(const Efficiency& e) {
  const auto share = [](std::string_view field, double v) {
    if (!(v > 0.0 && v <= 1.0)) {
      throw InputError(fmt::format("efficiency.{}: expected a share in (0, 1], got {}", field, v));
    }
  };
  share("bandwidth", e.bandwidth);
  share("compute", e.compute);
  share("link", e.link);
  const auto seconds = [](std::string_view field, double v) {
    if (!(v >= 0.0 && v <= 10.0)) {
      throw InputError(fmt::format("efficiency.{}: expected seconds in [0, 10], got {}", field, v));
    }
  };
  seconds("step_overhead_s", e.step_overhead_s);
  seconds("hop_latency_s", e.hop_latency_s);
}

PerfModel::PerfModel(const ModelSpec& m, const GpuSpec& gpu, const PerfRequest& request)
    : request_(request) {
  validate_perf_request(m, request);
  request_.fit.context_tokens = request.input_tokens + request.output_tokens;
  fit_ = gpuplan::fit(m, gpu, request_.fit);
  const Layout& l = request_.fit.layout;
  const ParamCount& p = fit_.params;

  compute_type_ = compute_type_for(request_.fit.weights_dtype, gpu);
  const auto& table = request_.sparse ? gpu.sparse_flop_per_s : gpu.dense_flop_per_s;
  const auto peak = table.find(compute_type_);
  if (peak == table.end()) {
    throw InputError(fmt::format("perf.sparse: {} has no {} {} figure in the catalog", gpu.id,
                                 request_.sparse ? "sparse" : "dense", compute_type_));
  }
  peak_flop_per_s_ = peak->second;
  bandwidth_bytes_per_s_ = gpu.memory_bandwidth_bytes_per_s;

  // Weights read each step: everything but the embedding table (a gather of a few rows); a tied
  // table is read in full as the LM head.
  const WeightsBytes& w = fit_.weights;
  dense_read_bytes_ = w.dense + (m.tie_word_embeddings ? w.embedding : w.lm_head);
  expert_bytes_ = w.experts;
  if (m.moe) {
    experts_ = d(m.moe->routed_experts);
    experts_per_token_ = d(m.moe->experts_per_token);
    expert_token_multiplier_ = std::max(1.0, d(l.ep) / d(l.tp));
  }
  const double stage_share = d((m.num_hidden_layers + l.pp - 1) / l.pp) / d(m.num_hidden_layers);
  layers_per_stage_ = d(fit_.kv.layers_per_gpu());
  moe_layers_per_stage_ =
      m.moe ? d(m.moe_layer_count()) * stage_share : 0;
  // 2 FLOPs per multiply-add over the active weights (not the embedding gather).
  linear_flop_per_token_ = 2.0 * (p.active() - p.embedding + (m.tie_word_embeddings ? p.embedding : 0.0)) *
                           stage_share / d(l.tp);
  // Attention per layer and context token: QK^T and AV, 2 FLOPs each per head dimension.
  // MLA decodes in the latent space (weights absorbed): kv_lora + rope for scores, kv_lora for values.
  const double heads = d(m.num_attention_heads) / d(l.tp);
  attention_flop_per_token_context_ =
      m.mla ? 2.0 * heads * d(2 * m.mla->kv_lora_rank + m.mla->qk_rope_head_dim)
            : 4.0 * heads * d(m.head_dim);
  kv_bytes_per_token_layer_ = fit_.kv.bytes_per_token_per_layer_per_gpu;
  for (std::uint64_t window : fit_.kv.windows) {
    auto it = std::find_if(window_layers_.begin(), window_layers_.end(),
                           [window](const auto& wl) { return wl.first == window; });
    if (it == window_layers_.end()) {
      window_layers_.emplace_back(window, 1);
    } else {
      ++it->second;
    }
  }
  activation_bytes_per_token_ = d(m.hidden_size) * kActivationBytes;
  const std::uint64_t replica = l.tp * l.pp;
  const Efficiency peak_links = Efficiency::roofline();
  tp_link_peak_ = group_link(gpu, l.tp, request_.network_bytes_per_s_per_gpu, peak_links.link, 0.0);
  ep_link_peak_ = group_link(gpu, std::max(l.ep, l.tp), request_.network_bytes_per_s_per_gpu, peak_links.link, 0.0);
  pp_link_peak_ = group_link(gpu, replica, request_.network_bytes_per_s_per_gpu, peak_links.link, 0.0);
  max_batch_ = fit_.max_concurrent_sequences.value_or(0) / l.dp;
}

double PerfModel::expert_bytes_touched(double tokens) const {
  if (expert_bytes_ <= 0) {
    return 0.0;
  }
  // Uniform routing: each token picks k of E experts; an expert stays idle with probability
  // (1 - k/E)^tokens, so the expected share of experts read is 1 - (1 - k/E)^tokens.
  const double idle = std::pow(1.0 - experts_per_token_ / experts_, tokens * expert_token_multiplier_);
  return expert_bytes_ * (1.0 - idle);
}

double PerfModel::attention_context_sum(double context) const {
  double sum = 0;
  for (const auto& [window, layers] : window_layers_) {
    sum += d(layers) * (window == 0 ? context : std::min(context, d(window)));
  }
  return sum;
}

double PerfModel::communication_s(double tokens, const Efficiency& e) const {
  const CommLink tp{tp_link_peak_.bytes_per_s_per_direction * e.link, e.hop_latency_s};
  const CommLink ep{ep_link_peak_.bytes_per_s_per_direction * e.link, e.hop_latency_s};
  const Layout& l = request_.fit.layout;
  // Two all-reduces per layer under TP (after attention and after the MLP); MoE layers
  // dispatch and combine tokens with two all-to-alls under EP.
  return 2.0 * layers_per_stage_ * allreduce_s(tokens * activation_bytes_per_token_, l.tp, tp) +
         2.0 * moe_layers_per_stage_ * alltoall_s(tokens * experts_per_token_ * activation_bytes_per_token_, l.ep, ep);
}

StepTime PerfModel::timed(double bytes, double flop, double tokens, const Efficiency& e) const {
  StepTime s;
  s.bytes = bytes;
  s.flop = flop;
  s.memory_s = bytes / (bandwidth_bytes_per_s_ * e.bandwidth);
  s.compute_s = flop / (peak_flop_per_s_ * e.compute);
  s.communication_s = communication_s(tokens, e);
  s.overhead_s = e.step_overhead_s;
  return s;
}

StepTime PerfModel::decode_step(std::uint64_t micro_batch, double context, const Efficiency& e) const {
  const double b = d(micro_batch);
  const double context_layers = attention_context_sum(context);
  return timed(dense_read_bytes_ + expert_bytes_touched(b) + b * context_layers * kv_bytes_per_token_layer_,
               b * (linear_flop_per_token_ + attention_flop_per_token_context_ * context_layers), b, e);
}

StepTime PerfModel::prefill_step(std::uint64_t tokens, const Efficiency& e) const {
  const double t = d(tokens);
  // Causal attention: token i attends to i tokens, on average t/2 (capped by sliding windows).
  const double context_layers = attention_context_sum(t / 2.0);
  return timed(dense_read_bytes_ + expert_bytes_touched(t) + t * d(fit_.kv.layers_per_gpu()) * kv_bytes_per_token_layer_,
               t * (linear_flop_per_token_ + attention_flop_per_token_context_ * context_layers), t, e);
}

PerfPoint PerfModel::evaluate(std::uint64_t batch, const Efficiency& e) const {
  const Layout& l = request_.fit.layout;
  const double input = d(request_.input_tokens);
  const double output = d(request_.output_tokens);
  const double mean_context = input + output / 2.0;
  PerfPoint p;
  p.batch = batch;
  // PP keeps every stage busy with min(PP, batch) micro-batches; a token crosses all stages.
  const std::uint64_t micro_batches = std::min<std::uint64_t>(l.pp, batch);
  const std::uint64_t micro = (batch + micro_batches - 1) / micro_batches;
  p.decode = decode_step(micro, mean_context, e);
  const CommLink pp{pp_link_peak_.bytes_per_s_per_direction * e.link, e.hop_latency_s};
  const double handoff = l.pp > 1 ? p2p_s(d(micro) * activation_bytes_per_token_, pp) : 0.0;
  p.itl_s = d(l.pp) * p.decode.total_s() + d(l.pp - 1) * handoff;
  const StepTime prefill = prefill_step(request_.input_tokens, e);
  const double prefill_handoff = l.pp > 1 ? p2p_s(input * activation_bytes_per_token_, pp) : 0.0;
  p.ttft_s = d(l.pp) * prefill.total_s() + d(l.pp - 1) * prefill_handoff;
  p.tokens_per_s_per_user = 1.0 / p.itl_s;
  const double replica_decode = d(batch) / p.itl_s;
  p.decode_tokens_per_s = replica_decode * d(l.dp);
  // Steady state: every sequence also needs its prefill. Batched with others, a prefill costs
  // its compute (weights are already streaming) on each stage, pipelined across stages.
  const double prefill_busy_s = prefill.compute_s + prefill.communication_s;
  const double cycle_s = output * p.itl_s + d(batch) * prefill_busy_s;
  p.output_tokens_per_s = d(batch) * output / cycle_s * d(l.dp);
  p.output_tokens_per_s_per_gpu = p.output_tokens_per_s / d(l.gpus());
  // Prefill yields the first token; each further one takes an ITL.
  p.e2e_latency_s = p.ttft_s + (output - 1.0) * p.itl_s;
  p.kv_fits = batch <= max_batch_;
  return p;
}

std::optional<double> PerfModel::ridge_batch() const {
  const Efficiency peak = Efficiency::roofline();
  const double context = d(request_.input_tokens) + d(request_.output_tokens) / 2.0;
  const auto compute_bound = [&](double b) {
    const StepTime s = decode_step(static_cast<std::uint64_t>(b), context, peak);
    return s.compute_s >= s.memory_s;
  };
  constexpr double kLimit = 1 << 24;
  double hi = 1;
  while (!compute_bound(hi)) {
    hi *= 2;
    if (hi > kLimit) {
      return std::nullopt;
    }
  }
  if (hi <= 1) {
    return 1.0;
  }
  double lo = hi / 2;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (compute_bound(mid) ? hi : lo) = mid;
  }
  return hi;
}

PerfResult perf(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
                const std::vector<std::uint64_t>& batches, std::pair<double, double> band) {
  if (batches.empty()) {
    throw InputError("perf.batches: give at least one batch size");
  }
  for (std::uint64_t b : batches) {
    if (b < 1 || b > (1u << 20)) {
      throw InputError(fmt::format("perf.batches: expected batch sizes between 1 and {}, got {}", 1u << 20, b));
    }
  }
  const PerfModel pm(model, gpu, request);
  PerfResult r;
  r.model_id = model.id;
  r.gpu_id = gpu.id;
  r.request = pm.request();
  r.compute_type = pm.compute_type() + (request.sparse ? " (2:4 sparse)" : "");
  r.peak_flop_per_s = pm.peak_flop_per_s();
  r.ridge_batch = pm.ridge_batch();
  r.max_batch_by_memory = pm.max_batch_by_memory();
  // measured = estimate x (1 + residual): the band spans the calibration's residuals.
  r.band_low = 1.0 + std::min(0.0, band.first);
  r.band_high = 1.0 + std::max(0.0, band.second);
  for (std::uint64_t b : batches) {
    r.rows.push_back(pm.evaluate(b, request.efficiency));
    r.roofline.push_back(pm.evaluate(b, Efficiency::roofline()));
  }
  r.notes = pm.fit().notes;
  if (request.sparse) {
    r.notes.push_back("peak FLOPs are the 2:4-sparse figure; dense inference cannot reach it");
  }
  if (pm.compute_type() == "bf16" && is_quantized(request.fit.weights_dtype)) {
    r.notes.push_back(fmt::format("{} weights are dequantized and multiplied in bf16",
                                  to_string(request.fit.weights_dtype)));
  }
  return r;
}

}  // namespace gpuplan
