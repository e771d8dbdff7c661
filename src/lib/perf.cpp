#include <gpuplan/perf.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include <gpuplan/context_extension.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/gemm_fill.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/queue_wait.hpp>
#include <gpuplan/rental.hpp>
#include <gpuplan/serving_share.hpp>

#include "detail/fit_basis.hpp"
#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

using detail::d;

using detail::kActivationBytes;

// The tensor-core type a weight format computes in: FP8/FP4/INT8 weights use their own units
// when the GPU has them; weight-only formats (INT4, FP8 on Ampere, FP4 and MXFP4 before
// Blackwell, and vLLM's MXFP4 experts on NVIDIA GPUs: vllm_mxfp4_experts_in_sixteen_bits) dequantize
// to bf16.
std::string compute_type_for(DType weights, const GpuSpec& gpu) {
  const auto has = [&gpu](const char* t) { return gpu.dense_flop_per_s.contains(t); };
  const char* sixteen = gpu.sixteen_bit_type();
  switch (weights) {
    case DType::fp8: return has("fp8") ? "fp8" : sixteen;
    case DType::int8: return has("int8") ? "int8" : sixteen;
    case DType::fp4:
    case DType::mxfp4: return has("fp4") ? "fp4" : sixteen;
    case DType::fp32: return has("tf32") ? "tf32" : sixteen;
    case DType::fp16: return has("fp16") ? "fp16" : sixteen;
    case DType::bf16:
    case DType::int4: return sixteen;
  }
  return sixteen;
}

// W8A16 (GPTQ and AWQ 8-bit, ModelOpt and llm-compressor W8A16): every INT8 part of the weights
// is weight-only, so its kernels dequantize into 16-bit GEMMs and INT8 tensor cores stay idle.
bool weight_only_int8(const std::optional<WeightFormats>& formats) {
  if (!formats) {
    return false;
  }
  bool any = false;
  for (const WeightFormat& f : formats->parts) {
    if (f.element == DType::int8) {
      if (f.activation_bits != 16) {
        return false;
      }
      any = true;
    }
  }
  return any;
}

// The vLLM release whose compressed-tensors MXFP4 scheme runs dense layers as W4A4 on FP4 tensor
// cores (FlashInferMxFp4LinearKernel, SM100 with FlashInfer: vllm#41664, reviewed 2026-05-11;
// 0.21 already profiled CUDA graphs, PR #38284, so its first release is taken as 0.23, INFERRED
// from the dates). Before it CompressedTensorsW4A16Mxfp4 ran them weight-only on Marlin with
// bf16 activations (vllm#31926), and Mxfp4Config had no linear method.
constexpr int kVllmDenseMxfp4W4A4Minor = 23;

// Whether MXFP4 weights in attention or dense MLP layers (not only routed experts, which the MoE
// kernels time) reach FP4 tensor cores: vLLM from kVllmDenseMxfp4W4A4Minor on a GPU with them;
// SGLang's compressed-tensors MXFP4 scheme is bf16-only (W4A16); the engine-neutral estimate and
// TensorRT-LLM keep the GPU's capability.
bool dense_mxfp4_in_sixteen_bits(const ModelSpec& m, const FitRequest& f) {
  if (f.weights_dtype != DType::mxfp4) {
    return false;
  }
  const auto mxfp4 = [&f](WeightPart part) {
    return f.weight_formats && (*f.weight_formats)[part].element == DType::mxfp4;
  };
  const bool dense = f.weight_formats ? mxfp4(WeightPart::attention) || mxfp4(WeightPart::dense_mlp) : !m.is_moe();
  if (!dense) {
    return false;
  }
  switch (f.engine.engine) {
    case Engine::vllm: return f.engine.vllm_minor_version.value_or(kVllmDenseMxfp4W4A4Minor) < kVllmDenseMxfp4W4A4Minor;
    case Engine::sglang: return true;
    case Engine::trtllm:
    case Engine::neutral: break;
  }
  return false;
}

// Whether vLLM runs a model's MXFP4 routed experts with 16-bit activations: every CUDA MoE
// backend it picks unasked takes bf16 activations. Marlin (W4A16: SM 12.x, Ampere, Hopper
// without triton_kernels), OpenAI's Triton kernels (SM 9.0 to 10.x) and FlashInfer's TRT-LLM-gen
// MXFP4_BF16 on SM100 (vllm/model_executor/layers/quantization/mxfp4.py get_mxfp4_backend
// @afdb4a4f; fused_moe/oracle/mxfp4.py _get_priority_backends @001eda31: "Only includes BF16
// backends. MXFP8 backends are selected via env vars", VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8). The
// experts' GEMMs then run on 16-bit tensor cores, not FP4 ones: gpt-oss on RTX PRO 6000 and GB10
// measured a TTFT 43-51 % above the FP4-timed one (community-2026af.json). On ROCm (AITER's CK
// MoE on MI355X) the GPU's own capability stands.
bool vllm_mxfp4_experts_in_sixteen_bits(const ModelSpec& m, const GpuSpec& gpu, const FitRequest& f, Engine kernels) {
  if (f.weights_dtype != DType::mxfp4 || kernels != Engine::vllm || gpu.vendor != "nvidia" || !m.is_moe()) {
    return false;
  }
  return !f.weight_formats || (*f.weight_formats)[WeightPart::routed_experts].element == DType::mxfp4;
}

}  // namespace

std::optional<std::string> timing_problem(const GpuSpec& gpu, DType weights, bool sparse) {
  const std::string type = compute_type_for(weights, gpu);
  if (!(sparse ? gpu.sparse_flop_per_s : gpu.dense_flop_per_s).contains(type)) {
    return fmt::format("perf.sparse: {} has no {} {} figure in the catalog", gpu.id, sparse ? "sparse" : "dense", type);
  }
  return std::nullopt;
}

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
  if (r.cached_input_tokens >= r.input_tokens) {
    throw InputError(fmt::format("perf.cached_input_tokens: expected below the {} input tokens (an engine computes "
                                 "at least a prompt's last token), got {}",
                                 r.input_tokens, r.cached_input_tokens));
  }
  if (r.input_tokens + r.output_tokens > m.max_position_embeddings) {
    // Named after the larger of the two: the one that most likely went wrong.
    throw InputError(fmt::format("perf.{}: {} + {} output tokens exceed the {} tokens of '{}' ({}){}",
                                 r.output_tokens > r.input_tokens ? "output_tokens" : "input_tokens",
                                 r.input_tokens, r.output_tokens, m.max_position_embeddings, m.id,
                                 m.context_limit_source(),
                                 documented_context_extension(m, r.input_tokens + r.output_tokens)));
  }
  if (!(r.network_bytes_per_s_per_gpu > 0) || !std::isfinite(r.network_bytes_per_s_per_gpu)) {
    throw InputError("perf.network_bytes_per_s_per_gpu: expected a positive number");
  }
  if (r.max_batch < 1 || r.max_batch > (1u << 20)) {
    throw InputError(fmt::format("perf.max_batch: expected between 1 and {}, got {}", 1u << 20, r.max_batch));
  }
  validate_efficiency(r.efficiency);
}


double compute_ceiling_tokens_per_s(const ModelSpec& model, const GpuSpec& gpu, std::uint64_t gpus) {
  double peak = 0;
  for (const auto* flops : {&gpu.dense_flop_per_s, &gpu.sparse_flop_per_s}) {
    for (const auto& [type, flop_per_s] : *flops) {
      peak = std::max(peak, flop_per_s);
    }
  }
  const ParamCount p = count_params(model);
  const double per_token_flop = 2.0 * std::max(p.active_without_embedding() - p.vision, 1.0);
  return d(gpus) * peak / per_token_flop;
}

void check_measured_rate(const ModelSpec& model, const GpuSpec& gpu, std::uint64_t gpus, double output_tokens_per_s,
                         std::string_view field) {
  if (const double ceiling = compute_ceiling_tokens_per_s(model, gpu, gpus); output_tokens_per_s > ceiling) {
    throw InputError(fmt::format("{}: {:g} tok/s on {} x {} is more than they can compute for {} at all ({:.0f} "
                                 "tok/s: 2 FLOPs per active parameter per token at the highest peak); check the unit "
                                 "and the digits",
                                 field, output_tokens_per_s, gpus, gpu.id, model.id, ceiling));
  }
}

std::string rocm_serving_note() {
  return fmt::format("AMD GPU: estimate x {:.2f}, the median of measured / estimated throughput over 141 public runs "
                     "on MI300X, MI325X and MI355X (vLLM, SGLang, TGI; tools/heldout), none calibrated: ROCm serving "
                     "reaches less of the peaks than the model's NVIDIA-fitted efficiencies give; the band is those runs' "
                     "spread about it",
                     kRocmServingShare);
}

std::string_view attention_dp_note() {
  static const std::string note = fmt::format(
      "attention DP: estimate x {:.2f} with 2 ranks per expert group, x {:.2f} with 4 and x {:.2f} with 8 or more, "
      "the medians of measured / estimated throughput over 196 held-out runs with it (tools/heldout; TensorRT-LLM's "
      "perf overviews mostly), never calibrated: a cause not modelled here (likely the ranks waiting for the slowest "
      "at each expert all-to-all); the band is at least those runs' spread about it",
      kAttentionDpShare2Ranks, kAttentionDpShare4Ranks, kAttentionDpShare8Ranks);
  return note;
}

std::string_view to_string(Bound bound) {
  switch (bound) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::communication: return "communication";
    case Bound::overhead: return "overhead";
  }
  return "?";
}

Bound StepTime::bound() const {
  if (host_bound()) {
    return Bound::overhead;  // the host's launches: fixed time whatever the GPU does
  }
  Bound b = compute_s > memory_s ? Bound::compute : Bound::memory;
  double largest = std::max(compute_s, memory_s);
  if (communication_s > largest) {
    b = Bound::communication;
    largest = communication_s;
  }
  return overhead_s > largest ? Bound::overhead : b;
}

double StepTime::bound_share() const {
  const double total = total_s();
  if (!(total > 0)) {
    return 0.0;
  }
  switch (bound()) {
    case Bound::memory: return memory_s / total;
    case Bound::compute: return compute_s / total;
    case Bound::communication: return communication_s / total;
    case Bound::overhead: return (host_bound() ? host_launch_s : overhead_s) / total;
  }
  return 0.0;
}

std::string bound_text(const StepTime& step) {
  return fmt::format("{} {:.0f} %", to_string(step.bound()), step.bound_share() * 100.0);
}

double eager_kernels_per_layer(const ModelSpec& m, bool moe_layer, std::uint64_t tp, std::uint64_t ep) {
  // Attention: qkv projection, rotary, KV-cache write, attention, output projection; MLA's
  // low-rank q and kv projections with their norms, the absorbed up-projections around attention.
  double kernels = d(m.norms_per_layer) + (m.mla ? 10.0 : 5.0) + (m.qk_norm ? 2.0 : 0.0);
  if (moe_layer && m.moe) {
    kernels += 7.0;  // router, top-k softmax, align, two grouped GEMMs, activation, sum
    if (m.moe->shared_experts > 0) {
      kernels += 3.0 + (m.moe->shared_expert_gate ? 2.0 : 0.0);
    }
    if (m.moe->beside_dense_mlp || m.moe->shortcut) {
      kernels += 3.0;
    }
  } else {
    kernels += 3.0;  // up (gate and up fused), activation, down
  }
  if (tp > 1 || ep > 1) {
    kernels += 2.0;  // after attention and after the MLP
  }
  return kernels;
}

double format_share(double bf16_over_format_peak, double exponent) {
  if (std::fpclassify(exponent) == FP_ZERO) {
    return 1.0;  // the roofline: every format at its peak
  }
  constexpr double kFp8 = 0.5;  // bf16's peak over FP8's
  // A 16-bit format, or one no faster than bf16 (Gaudi 3's FP8); FP8 at 835.5 of 1670.5 TFLOP/s
  // (H100 NVL) is still FP8.
  constexpr double kWide = 0.75;
  if (bf16_over_format_peak > kWide) {
    return std::min(1.0, std::pow(kFp8, exponent) * kWideOverFp8GemmShare);
  }
  return std::pow(bf16_over_format_peak, exponent);
}

void validate_efficiency(const Efficiency& e) {
  const auto share = [](std::string_view field, double v) {
    if (!(v > 0.0 && v <= 1.0)) {
      throw InputError(fmt::format("efficiency.{}: expected a share in (0, 1], got {}", field, v));
    }
  };
  share("bandwidth", e.bandwidth);
  share("compute", e.compute);
  share("kv_bandwidth", e.kv_bandwidth);
  share("link", e.link);
  const auto seconds = [](std::string_view field, double v) {
    if (!(v >= 0.0 && v <= 10.0)) {
      throw InputError(fmt::format("efficiency.{}: expected seconds in [0, 10], got {}", field, v));
    }
  };
  seconds("step_overhead_s", e.step_overhead_s);
  seconds("layer_overhead_s", e.layer_overhead_s);
  seconds("hop_latency_s", e.hop_latency_s);
  seconds("sequence_overhead_s", e.sequence_overhead_s);
  const auto within = [](std::string_view field, double v, double hi) {
    if (!(v >= 0.0 && v <= hi)) {
      throw InputError(fmt::format("efficiency.{}: expected a number in [0, {:g}], got {}", field, hi, v));
    }
  };
  within("routed_copy_s_per_gb", e.routed_copy_s_per_gb, 1.0);
  within("activation_passes", e.activation_passes, 1000.0);
  within("gemm_half_flop", e.gemm_half_flop, 1e15);
  within("format_exponent", e.format_exponent, 4.0);
}

PerfModel::PerfModel(const ModelSpec& m, const GpuSpec& gpu, const PerfRequest& request)
    : PerfModel(m, gpu, request, nullptr) {}

PerfModel::PerfModel(const ModelSpec& m, const GpuSpec& gpu, const PerfRequest& request,
                     std::optional<detail::FitBasis>& basis)
    : PerfModel(m, gpu, request, &basis) {}

PerfModel::PerfModel(const ModelSpec& m, const GpuSpec& gpu, const PerfRequest& request,
                     std::optional<detail::FitBasis>& basis, Candidate)
    : PerfModel(m, gpu, request, &basis, true) {}

namespace {

const PerfRequest& validated(const ModelSpec& m, const PerfRequest& request) {
  validate_perf_request(m, request);
  return request;
}

/// The fit a model of `request` times: for its whole sequences (prompt and output).
FitResult sequence_fit(const ModelSpec& m, const GpuSpec& gpu, PerfRequest& request,
                       std::optional<detail::FitBasis>* basis, bool candidate) {
  request.fit.context_tokens = request.input_tokens + request.output_tokens;
  request.fit.prompt_tokens = request.input_tokens;
  // A search's candidates leave out the longest context that fits: best_layout adds the
  // chosen one's (some 200 instructions a layout).
  return basis != nullptr ? detail::fit_numbers(m, gpu, request.fit, *basis,
                                                candidate ? detail::FigureSet::without_max_context : detail::FigureSet::all)
                          : gpuplan::fit(m, gpu, request.fit);
}

// The attention layers of the busiest stage with what each reads per context token. Layers that
// differ in width or heads (Gemma 4: 10 full-attention layers 512 wide with 4 KV heads beside 50
// sliding ones 256 wide with 16) weigh by their own bytes and FLOPs, not the mean's: at long
// contexts only the full layers grow, and the mean would charge them at the sliding layers'
// width (1.8x the 31B's reads). KV-sharing layers (Gemma 3n, Gemma 4's E models) cache nothing
// but attend over their source layer's cache, so they read it again.
struct AttentionReads {
  std::vector<std::uint64_t> engine_windows;  // each layer's window under the engine (0: whole context)
  std::vector<std::uint64_t> own_windows;     // the model's own, where the engine keeps the context
  std::vector<double> kv_weights;             // KV bytes read over the stage's mean per holding layer
  std::vector<double> flop_weights;           // attention FLOPs over the mean layer's
};

AttentionReads attention_reads(const ModelSpec& m, const Layout& l, const KvShape& kv, bool keep_context) {
  const auto kv_elements = [&](std::uint64_t layer) {
    // A GPU holds at least one KV head (replicated past TP = KV heads).
    const std::uint64_t heads = std::max<std::uint64_t>(1, (m.kv_heads_of_layer(layer) + l.tp - 1) / l.tp);
    return d(heads) * d(m.head_dim_of_layer(layer));
  };
  const std::uint64_t per_stage = (m.num_hidden_layers + l.pp - 1) / l.pp;
  const std::uint64_t end = std::min(kv.stage_first_layer + per_stage, m.num_hidden_layers);
  AttentionReads r;
  double holding_elements = 0;
  std::size_t holding = 0;
  for (std::uint64_t layer = kv.stage_first_layer; layer < end; ++layer) {
    if (!m.has_attention(layer) || m.is_cross_attention_layer(layer)) {
      continue;
    }
    const std::uint64_t own = m.window_of_layer(layer);
    if (m.holds_token_kv(layer)) {
      if (holding >= kv.windows.size()) {
        break;
      }
      r.engine_windows.push_back(kv.windows[holding++]);
      holding_elements += kv_elements(layer);
    } else {
      r.engine_windows.push_back(keep_context ? 0 : own);
    }
    r.own_windows.push_back(own);
    r.kv_weights.push_back(kv_elements(layer));
    r.flop_weights.push_back(d(m.attention_heads_of_layer(layer)) * d(m.head_dim_of_layer(layer)) /
                             (m.mean_attention_heads() * d(m.head_dim)));
  }
  if (holding != kv.windows.size() || holding == 0) {
    return {};  // not the stage kv_shape walked: the caller counts its layers unweighted
  }
  for (double& w : r.kv_weights) {
    w /= holding_elements / d(holding);
  }
  return r;
}

}  // namespace

// The fit is built in place (a layout choice builds some five models a request; a FitResult
// assigned after the fact took a few hundred instructions each to move).
PerfModel::PerfModel(const ModelSpec& m, const GpuSpec& gpu, const PerfRequest& request,
                     std::optional<detail::FitBasis>* basis, bool candidate)
    : request_(candidate ? request : validated(m, request)), fit_(sequence_fit(m, gpu, request_, basis, candidate)) {
  const Layout& l = request_.fit.layout;
  max_batch_ = fit_.max_concurrent_sequences.value_or(0) / l.dp;
  // Every byte beyond the weights as KV cache: no engine reserve, activation or utilization cap.
  if (fit_.sequence_kv_bytes_per_gpu > 0 && fit_.per_gpu.capacity_bytes > fit_.per_gpu.weights_bytes) {
    const double sequences = (fit_.per_gpu.capacity_bytes - fit_.per_gpu.weights_bytes) / fit_.sequence_kv_bytes_per_gpu;
    physical_max_batch_ = std::max(max_batch_, static_cast<std::uint64_t>(std::min(sequences, 1e15)));
  } else {
    physical_max_batch_ = max_batch_;
  }
  // vLLM V0 gives cross-attention layers a slot of every token's block (the capacity above), but
  // a text-only request skips those layers (mllama.py: skip_cross_attention without an image):
  // the step is timed on the layers that read per-token KV.
  if (vllm_pools_cross_attention_layers(request_.fit, m)) {
    fit_.kv = kv_shape(m, request_.fit.kv_dtype, l, windows_keep_context(request_.fit, m), false);
  }
  // vLLM's max_num_seqs and TensorRT-LLM's max_batch_size cap the sequences of one scheduled
  // batch; under PP, PP batches are in flight. SGLang's cuda_graph_max_bs caps only its graphs.
  if (fit_.engine && (fit_.engine->engine == Engine::vllm || fit_.engine->engine == Engine::trtllm)) {
    engine_max_batch_ = fit_.engine->max_seqs * l.pp;
  }
  // SGLang's scheduler admits at most max_running_requests sequences. Without the flag its
  // ModelRunner derives it from the KV pool it has just made (sglang_default_running_requests:
  // 512 x pool tokens / context_len, clamped to 2048..4096, at most pool / 2), so a large pool
  // runs up to 4096 at once: MiniMax-M2.7 at concurrency 4096 on 8 x MI300X kept about 3,600 in
  // flight (8,344 tok/s x 431 ms TPOT; tools/heldout/community-2026ai.json), more than the 2048
  // of TensorRT-LLM's max_batch_size the request's default cap names. Under PP it is the total in
  // flight, not a batch's: the scheduler splits it over the micro-batches (pp_max_micro_batch_size
  // = max(max_running_requests // pp_size, 1), python/sglang/srt/managers/scheduler.py), so it is
  // not multiplied by the stages as vLLM's and TensorRT-LLM's caps are.
  if (fit_.engine && fit_.engine->engine == Engine::sglang && fit_.engine->req_to_token_requests > 0) {
    engine_max_batch_ = fit_.engine->req_to_token_requests;
  }
  if (candidate && (!fit_.fits || full_load_batch() == 0)) {
    return;
  }
  const ParamCount& p = fit_.params;
  const Engine kernels = request_.fit.engine.engine != Engine::neutral ? request_.fit.engine.engine : request_.kernels;

  compute_type_ = weight_only_int8(fit_.request.weight_formats) || dense_mxfp4_in_sixteen_bits(m, fit_.request) ||
                          vllm_mxfp4_experts_in_sixteen_bits(m, gpu, fit_.request, kernels)
                      ? gpu.sixteen_bit_type()
                      : compute_type_for(request_.fit.weights_dtype, gpu);
  // XQA's supportConfigCommon returns false for any chunked_attention_size (TensorRT-LLM
  // cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttention/decoderXQAImplJIT/kernelUtils.cpp);
  // Blackwell (FP4 tensor cores) decodes with other kernels.
  const bool trtllm_nvidia = fit_.engine && fit_.engine->engine == Engine::trtllm && gpu.vendor == "nvidia";
  const bool blackwell = gpu.dense_flop_per_s.contains("fp4");  // FP4 tensor cores
  // Below one chunk its Llama 4 model turns chunking off (attention_chunk_size = None when
  // max_seq_len < the chunk, PR #6306, August 2025): XQA decodes every layer. trtllm-bench sets
  // max_seq_len to the longest request, input + output.
  hopper_chunked_trtllm_ = trtllm_nvidia && !blackwell &&
                           std::ranges::find(m.layer_is_chunked, true) != m.layer_is_chunked.end();
  const double request_tokens = d(request_.input_tokens) + d(request_.output_tokens);
  for (std::size_t layer = 0; layer < m.layer_is_chunked.size() && layer < m.layer_window_tokens.size(); ++layer) {
    chunked_decode_fallback_ = chunked_decode_fallback_ ||
                               (m.layer_is_chunked[layer] && request_tokens >= d(m.layer_window_tokens[layer]));
  }
  chunked_decode_fallback_ = chunked_decode_fallback_ && hopper_chunked_trtllm_;
  // TensorRT-LLM keeps the whole context in windowed layers' cache (max_attention_window), and
  // on Hopper decodes them over it; Blackwell's decode kernels read only each layer's window or
  // chunk. Measured (its perf overviews, never fitted): gpt-oss-20b on B200/GB200/B300/GB300
  // -22/-24/-29/-34 % (medians) with whole-context reads, -4/-7/-10/-16 % reading windows;
  // Llama 4 Maverick on B200/GB200 -18/-15 % -> -7/-5 %; on Hopper window reads overshoot
  // (gpt-oss-120b on H200 +13 -> +38 %).
  windowed_reads_ = trtllm_nvidia && blackwell && !m.layer_window_tokens.empty();
  const auto& table = request_.sparse ? gpu.sparse_flop_per_s : gpu.dense_flop_per_s;
  const auto peak = table.find(compute_type_);
  if (peak == table.end()) {
    throw InputError(timing_problem(gpu, request_.fit.weights_dtype, request_.sparse).value_or(""));
  }
  peak_flop_per_s_ = peak->second;
  matmul_factor_ = gpuplan::matmul_factor(gpu, kCalibratedMatmulShare);
  // The engine's own step budget when the request does not set one: vLLM V0 runs a whole prompt
  // per step below 32K contexts and 512-token chunks above (to 0.6.4), SGLang sizes its chunk by
  // GPU memory; the figure fit's engine arithmetic profiles with (EngineMemory::batched_tokens).
  prefill_chunk_tokens_ = request_.fit.prefill_chunk_tokens;
  if (fit_.engine && !request_.fit.engine.max_num_batched_tokens && fit_.engine->batched_tokens > 0) {
    prefill_chunk_tokens_ = fit_.engine->batched_tokens;
  }
  vendor_serving_share_ = gpu.vendor == "amd" ? kRocmServingShare : gpu.vendor == "intel" ? kHabanaServingShare : 1.0;
  bandwidth_bytes_per_s_ = gpu.memory_bandwidth_bytes_per_s;

  // Weights read each step: everything but the embedding table (a gather of a few rows) and the
  // vision tower (it runs on images, text requests never touch it); a tied table is read in full
  // as the LM head.
  const WeightsBytes& w = fit_.weights;
  dense_read_bytes_ = w.dense - w.parts[static_cast<std::size_t>(WeightPart::vision)] +
                      (m.tie_word_embeddings ? w.embedding : w.lm_head);
  expert_bytes_ = w.experts;
  if (m.moe) {
    experts_ = d(m.moe->routed_experts);
    experts_per_token_ = d(m.moe->experts_per_token);
    expert_token_multiplier_ = std::max(1.0, d(l.ep) / d(l.tp));
  }
  const double stage_share = d((m.num_hidden_layers + l.pp - 1) / l.pp) / d(m.num_hidden_layers);
  // Every layer of the stage, linear-attention ones included (they hold no per-token KV but have
  // their projections, all-reduces and kernels like any other).
  // Nemotron-H's MLP-only blocks too (an MLP has its all-reduce); Falcon-H1's Mamba2 mixers sit
  // beside attention in the same layers.
  layers_per_stage_ = d(fit_.kv.layers_per_gpu() + (fit_.kv.state_beside_attention ? 0 : fit_.kv.linear_layers) +
                        fit_.kv.mlp_only_layers);
  if (m.norm_per_block || !m.layer_without_mixer.empty() || !m.layer_without_mlp.empty()) {
    // Nemotron-NAS leaves a layer's attention or MLP out (no_op): no kernels, no all-reduce. The
    // blocks present on the stage, two to a layer (Llama-3.1-Nemotron-Ultra: 145 blocks in 162
    // layers, which had counted as 324 all-reduces a step at TP). Nemotron-H's layers are such
    // blocks too, one mixer or one MLP each with one norm and one all-reduce (vLLM nemotron_h.py
    // NemotronHMLP/MoE/Mamba/AttentionDecoderLayer; transformers NemotronHBlock): 52 layers of
    // Nemotron-3-Nano are 26 attention+MLP layers' worth of kernels, not 52 (B200 TP2 batch 1:
    // 2.91 ms measured TPOT, 4.62 ms estimated with 52; community-2026ak-nemotron-nano).
    const std::uint64_t per_stage = (m.num_hidden_layers + l.pp - 1) / l.pp;
    const std::uint64_t end = std::min(fit_.kv.stage_first_layer + per_stage, m.num_hidden_layers);
    double blocks = 0;
    for (std::uint64_t i = fit_.kv.stage_first_layer; i < end; ++i) {
      blocks += (m.has_mixer(i) || m.has_linear_mixer(i) ? 1.0 : 0.0) + (m.has_mlp(i) || m.has_linear_mlp(i) ? 1.0 : 0.0);
    }
    layers_per_stage_ = blocks / 2.0;
  }
  moe_layers_per_stage_ =
      m.moe ? d(m.moe_layer_count()) * stage_share : 0;
  const std::optional<int> vllm_minor = request_.fit.engine.engine == Engine::vllm
                                            ? request_.fit.engine.vllm_minor_version
                                            : request_.vllm_minor_version;
  // The per-kernel figure is CUDA hosts'; AMD and Gaudi estimates carry their vendor's serving
  // share instead, the median of public runs eager ones included (a floor would count them twice).
  const bool eager = (request_.eager || request_.fit.engine.eager) && gpu.vendor == "nvidia";
  eager_v0_ = eager && vllm_minor && *vllm_minor < kEagerVllmV1Minor;
  if (eager && !eager_v0_) {
    const double dense_layers = std::max(0.0, layers_per_stage_ - moe_layers_per_stage_);
    eager_host_s_ = (dense_layers * eager_kernels_per_layer(m, false, l.tp, l.ep) +
                     moe_layers_per_stage_ * eager_kernels_per_layer(m, true, l.tp, l.ep) + kEagerKernelsOutsideLayers) *
                    kEagerHostSPerKernel;
  }
  // 2 FLOPs per multiply-add over the active weights (not the embedding gather, nor the vision or
  // audio encoders, which text tokens never pass); what every rank holds whole (or KV heads copied
  // past TP = KV heads), every rank multiplies.
  const double matmul_params =
      p.active() - p.embedding - p.vision + (m.tie_word_embeddings ? p.embedding : 0.0);
  linear_flop_per_token_ = 2.0 *
                           ((matmul_params - p.replicated - p.kv_projection) / d(l.tp) + p.replicated +
                            p.kv_projection / m.kv_projection_shards(l.tp)) *
                           stage_share;
  // Attention per layer and context token: QK^T and AV, 2 FLOPs each per head dimension.
  const double heads = m.mean_attention_heads() / d(l.tp);
  attention_flop_per_token_context_ = 4.0 * heads * d(m.head_dim);
  prefill_attention_flop_per_token_context_ = attention_flop_per_token_context_;
  if (m.caches_latent()) {
    // MLA decodes in the latent space (weights absorbed): kv_lora + rope for scores, kv_lora for
    // values. Prefill runs "the compute friendly approach": the latents up-projected to per-head
    // K (qk_nope + rope) and V, attended as MHA, 3.4x fewer FLOPs for DeepSeek-V3 (vLLM
    // vllm/v1/attention/backends/mla/common.py @00a817a, module docstring; SGLang
    // python/sglang/srt/models/deepseek_common/attention_forward_methods/forward_mha.py @00cc79f;
    // TensorRT-LLM tensorrt_llm/_torch/modules/attention.py @c6d3bb2, MLA.forward_context).
    const MlaSpec& a = *m.mla;
    attention_flop_per_token_context_ = 2.0 * heads * d(2 * a.kv_lora_rank + a.qk_rope_head_dim);
    prefill_attention_flop_per_token_context_ = attention_flop_per_token_context_;
  }
  // SGLang's MiniCPM3 (the one engine that caches its latent) absorbs in prefill too: it drops
  // kv_b_proj at load (python/sglang/srt/models/minicpm3.py @0e6ed14).
  const bool mha_prefill = m.caches_latent() && m.model_type != "minicpm3";
  if (mha_prefill) {
    const MlaSpec& a = *m.mla;
    prefill_attention_flop_per_token_context_ = 2.0 * heads * d(a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim);
    // A chunk after the first up-projects the cached latents of the earlier ones again, each
    // chunk (vLLM's _compute_prefill_context, SGLang's MHA_ONE_SHOT/MHA_CHUNKED_KV, TensorRT-LLM's
    // forward_context_with_cached_kv/_with_chunked_prefill all run kv_b_proj over them): a GEMM of
    // kv_lora x heads (qk_nope + v) per cached token and layer; the new tokens' own up-projection
    // is in the linear FLOPs.
    cached_latent_flop_per_token_ = 2.0 * d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim) *
                                    d(fit_.kv.layers_per_gpu());
  }
  kv_bytes_per_token_layer_ = fit_.kv.bytes_per_token_per_layer_per_gpu;
  // A decode step of a linear-attention or Mamba2 layer loads each sequence's state and stores
  // the updated one (vLLM's selective_state_update and fused_recurrent_gated_delta_rule update it
  // in place): memory traffic like the KV cache's, fixed whatever the context.
  state_bytes_per_decode_ = 2.0 * fit_.kv.state_bytes_per_sequence;
  // One entry per distinct window, in order of first appearance, each layer weighted as
  // WindowLayers says (1 without weights). With windows a layer is most often like the one
  // before, whose entry is tried first.
  const auto grouped = [](const std::vector<std::uint64_t>& windows, const std::vector<double>& kv_weights,
                          const std::vector<double>& flop_weights) {
    std::vector<WindowLayers> out;
    std::size_t last = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      if (last >= out.size() || out[last].window != windows[i]) {
        auto it = std::find_if(out.begin(), out.end(), [&](const WindowLayers& g) { return g.window == windows[i]; });
        if (it == out.end()) {
          it = out.insert(out.end(), WindowLayers{.window = windows[i]});
        }
        last = static_cast<std::size_t>(it - out.begin());
      }
      out[last].kv_layers += kv_weights.empty() ? 1.0 : kv_weights[i];
      out[last].flop_layers += flop_weights.empty() ? 1.0 : flop_weights[i];
    }
    return out;
  };
  const bool keep_context = !m.layer_window_tokens.empty() && windows_keep_context(request_.fit, m);
  AttentionReads reads;
  if (!m.caches_latent() && (m.kv_width_varies() || !m.layer_reuses_kv.empty() || !m.layer_attention_heads.empty())) {
    reads = attention_reads(m, l, fit_.kv, keep_context);
  }
  if (reads.kv_weights.empty()) {
    // Layers alike: each counts 1.
    reads.engine_windows = fit_.kv.windows;
    if (keep_context) {
      reads.own_windows = kv_shape(m, request_.fit.kv_dtype, l, false).windows;
    }
  }
  window_layers_ = grouped(reads.engine_windows, reads.kv_weights, reads.flop_weights);
  // An engine that keeps the whole context by default may still be told the model's windows
  // (TensorRT-LLM's max_attention_window): the bound reads only the windows.
  if (keep_context) {
    own_window_layers_ = grouped(reads.own_windows, reads.kv_weights, reads.flop_weights);
    // SGLang and vLLM before its hybrid manager keep the whole context but attend over the window.
    if (windowed_reads_ || request_.fit.engine.engine == Engine::sglang || request_.fit.windows_read_window ||
        vllm_windows_as_full(request_.fit, m)) {
      window_layers_ = own_window_layers_;
    }
  }
  activation_bytes_per_token_ = d(m.hidden_size) * kActivationBytes;
  // Work outside the GEMMs runs per token over hidden states and the active FFN width.
  const double ffn_width = m.moe ? d(m.moe->expert_intermediate) * d(m.moe->experts_per_token + m.moe->shared_experts)
                                 : d(m.intermediate_size);
  activation_layer_bytes_per_token_ = kActivationBytes * layers_per_stage_ * (d(m.hidden_size) + ffn_width / d(l.tp));
  vocab_pass_bytes_per_token_ = kActivationBytes * d(m.vocab_size);
  // The GEMM that sizes the work: the gated FFN's up projection; for MoE the layer's grouped
  // expert GEMM (step_parts), whole or split under TP: timed per TP slice, gpt-oss-120b at TP 8
  // under vLLM on H100 came out about 40 % too slow (community-2026b.json).
  if (m.moe) {
    const double expert_split = l.ep >= l.tp ? 1.0 : d(l.ep) / d(l.tp);
    // A latent MoE's experts (Nemotron-3 Super) take and return vectors of the latent width.
    const double expert_io = d(m.moe->latent_width > 0 ? m.moe->latent_width : m.hidden_size);
    expert_flop_per_token_ = 2.0 * 3.0 * expert_io * d(m.moe->expert_intermediate) * experts_per_token_ *
                             moe_layers_per_stage_ / d(l.tp);
    expert_flop_per_token_ = std::min(expert_flop_per_token_, linear_flop_per_token_);
    expert_layer_gemm_flop_per_token_ =
        2.0 * expert_io * d(m.moe->expert_intermediate) * experts_per_token_ * expert_token_multiplier_;
    // Per routed copy, in bf16: read and write the permuted hidden state, quantize it, the SwiGLU
    // over the expert's gate and up outputs, and the weighted combine (about 11 x hidden + 10 x
    // expert width bytes; the width is split when TP exceeds EP). This GPU processes the copies
    // routed to its experts: k / EP of its group's tokens' copies.
    const double copy_bytes = 11.0 * expert_io + 10.0 * d(m.moe->expert_intermediate) * expert_split;
    routed_copy_bytes_per_token_ =
        copy_bytes * experts_per_token_ * moe_layers_per_stage_ * expert_token_multiplier_ / d(l.ep);
  }
  dense_gemm_flop_per_token_ = 2.0 * d(m.hidden_size) * d(m.moe ? m.hidden_size : m.intermediate_size) / d(l.tp);
  // The tables' few entries looked up by name without a std::string per lookup (a layout
  // choice builds some five models a request).
  const auto rate = [](const std::map<std::string, double>& rates, std::string_view type) -> const double* {
    for (const auto& [name, value] : rates) {
      if (name == type) {
        return &value;
      }
    }
    return nullptr;
  };
  const double* bf16 = rate(table, gpu.sixteen_bit_type());
  format_peak_ratio_ = bf16 == nullptr ? 1.0 : std::min(1.0, *bf16 / peak_flop_per_s_);
  request_format_factor_ = format_share(format_peak_ratio_, request_.efficiency.format_exponent);
  // An expert's GEMM pays for whole tiles of tokens. 16-bit experts run kernels tiled like
  // mma.sync's m16n8k16 on every NVIDIA generation (vLLM's fused_moe tables pick BLOCK_SIZE_M 16
  // up to 128-256 tokens on H100, H20 and B200 for BF16 Qwen3 MoE), as do AMD's MFMA 16x16.
  // FP8/FP4 experts run block-scaled grouped GEMMs shaped by the newest tensor-core instruction:
  // wgmma.mma_async m64nNk32 on Hopper (vLLM's block-FP8 tables: BLOCK_SIZE_M 64), tcgen05.mma
  // tiles of 128 rows per CTA on Blackwell data-center parts (PTX ISA). Not fitted.
  const bool narrow_experts = format_peak_ratio_ < 1.0;
  switch (narrow_experts ? nvidia_arch(gpu) : NvidiaArch::unknown) {
    case NvidiaArch::hopper: expert_tile_tokens_ = 64.0; break;
    case NvidiaArch::blackwell_datacenter: expert_tile_tokens_ = 128.0; break;
    case NvidiaArch::unknown:
    case NvidiaArch::pre_hopper:
    case NvidiaArch::blackwell_other: expert_tile_tokens_ = 16.0; break;
  }
  // Attention multiplies queries by the cached keys and values, not by the weights: it runs in
  // the KV cache's format (FP8 attention kernels read an FP8 cache on GPUs with FP8 tensor
  // cores), else in bf16, whatever the weights' format. Never 2:4 sparse.
  const auto& dense = gpu.dense_flop_per_s;
  const bool fp8_attention = request_.fit.kv_dtype == DType::fp8 && rate(dense, "fp8") != nullptr;
  const double* attention = rate(dense, fp8_attention ? "fp8" : gpu.sixteen_bit_type());
  attention_peak_flop_per_s_ = attention == nullptr ? peak_flop_per_s_ : *attention;
  const double* dense_bf16 = rate(dense, gpu.sixteen_bit_type());
  attention_format_ratio_ = dense_bf16 == nullptr ? 1.0 : std::min(1.0, *dense_bf16 / attention_peak_flop_per_s_);
  request_attention_format_factor_ = format_share(attention_format_ratio_, request_.efficiency.format_exponent);
  // MLA prefill attends over K and V the 16-bit kv_b_proj up-projection just produced, whatever
  // the cache's format ("Currently we use BF16 MHA for context phase": TensorRT-LLM's
  // MLA.forward_context @c6d3bb2; SGLang casts K to the queries' dtype, forward_mha.py @00cc79f).
  // optimum-habana's prefill attention on Gaudi is FusedSDPA.apply on the bf16 queries, keys and
  // values (with --use_flash_attention, and always past 8,192 prompt tokens): a function call that
  // Intel Neural Compressor's FP8 hooks, which patch modules (Matmul, KVCache), never reach, so an
  // FP8 cache does not make it FP8 (optimum/habana/transformers/models/mistral/modeling_mistral.py
  // @04daee29, GaudiMistralAttention.forward). Timed at FP8, Mistral-7B's 16K-32K prompts on
  // Gaudi 2 came out 2.9-4.4x too fast (community-2026ag.json). vLLM's Gaudi fork wraps it in a
  // module INC quantizes: its cache's format stands.
  const bool habana_bf16_prefill = gpu.vendor == "intel" && kernels != Engine::vllm;
  prefill_attention_peak_flop_per_s_ =
      (mha_prefill || habana_bf16_prefill) && dense_bf16 != nullptr ? *dense_bf16 : attention_peak_flop_per_s_;
  const std::uint64_t replica = l.tp * l.pp;
  // NCCL's ring pays a PCIe hop's latency (kPcieHopLatencyS); an engine's own one-shot all-reduce
  // over peer-mapped buffers does not: TensorRT-LLM's custom all-reduce on any group of P2P cards,
  // vLLM's and SGLang's on at most two PCIe GPUs (vLLM custom_all_reduce.py: "Custom allreduce is
  // disabled because it's not supported on more than two PCIe-only GPUs"). Cards without peer
  // access (GeForce) have only NCCL, staged through host memory.
  const bool peers = gpu.host_link.peer_to_peer;
  const auto own_allreduce = [&](std::uint64_t group) { return peers && (kernels == Engine::trtllm || group <= 2); };
  const auto peak_link = [&](std::uint64_t group) {
    const double network = request_.network_bytes_per_s_per_gpu;
    const std::uint64_t node = request_.fit.gpus_per_node;
    GroupLink g{.line = group_link(gpu, group, node, network, 1.0, 0.0, PcieRate::line),
                .shared = group_link(gpu, group, node, network, 1.0, 0.0, PcieRate::shared)};
    if (own_allreduce(group)) {
      g.line.over_pcie = false;
      g.shared.over_pcie = false;
    }
    return g;
  };
  tp_link_ = peak_link(l.tp);
  ep_link_ = peak_link(std::max(l.ep, l.tp));
  pp_link_ = peak_link(replica);
}

CommLink PerfModel::GroupLink::at(const Efficiency& e) const {
  const CommLink& link = e.best_case ? line : shared;
  return {.bytes_per_s_per_direction = link.bytes_per_s_per_direction * e.link,
          .hop_latency_s = hop_latency_s(e.hop_latency_s, link.crosses_nodes, link.over_pcie),
          .allreduce_bytes_per_s_per_direction = link.allreduce_bytes_per_s_per_direction * e.link,
          .crosses_nodes = link.crosses_nodes,
          .over_pcie = link.over_pcie};
}

double PerfModel::expert_idle_share(double tokens) const {
  // Uniform routing: each token picks k of E experts; an expert stays idle with probability
  // (1 - k/E)^tokens, so the expected share of experts read is 1 - (1 - k/E)^tokens.
  return experts_ > 0 ? std::pow(1.0 - experts_per_token_ / experts_, tokens * expert_token_multiplier_) : 1.0;
}

double PerfModel::expert_bytes_touched(double idle_share) const {
  return expert_bytes_ <= 0 ? 0.0 : expert_bytes_ * (1.0 - idle_share);
}

PerfModel::ContextSum PerfModel::attention_context_sum(double context, bool best_case) const {
  ContextSum sum;
  for (const WindowLayers& g : best_case && !own_window_layers_.empty() ? own_window_layers_ : window_layers_) {
    const double tokens = g.window == 0 ? context : std::min(context, d(g.window));
    sum.kv_layers += g.kv_layers * tokens;
    sum.flop_layers += g.flop_layers * tokens;
  }
  return sum;
}

double PerfModel::communication_s(double tokens, const Efficiency& e) const {
  const CommLink tp = tp_link_.at(e);
  const CommLink ep = ep_link_.at(e);
  const Layout& l = request_.fit.layout;
  const double allreduce = allreduce_s(tokens * activation_bytes_per_token_, l.tp, tp);
  if (l.ep <= 1) {
    // Two all-reduces per layer under TP: after attention and after the MLP.
    return 2.0 * layers_per_stage_ * allreduce;
  }
  // Under EP, MoE layers replace the MLP's all-reduce by dispatch and combine all-to-alls in
  // which each GPU sends only its own tokens (a 1/TP share of its replica's) to k experts. With
  // EP over several DP ranks the experts see every rank's tokens, but a GPU still sends (and,
  // by symmetry, receives) only its own share: the rank count does not multiply the message.
  const double own_tokens = tokens / d(l.tp);
  const double routed = 2.0 * alltoall_s(own_tokens * experts_per_token_ * activation_bytes_per_token_, l.ep, ep);
  // Or every GPU gathers the group's tokens and the partial outputs are reduce-scattered (an
  // all-reduce's traffic): cheaper when top-k is at least the group size, and what an EP group
  // that is also the TP group needs anyway, since TP already leaves every token on every GPU.
  // Engines pick the cheaper; so do the estimate and the bound.
  const double gathered = allreduce_s(tokens * expert_token_multiplier_ * activation_bytes_per_token_, l.ep, ep);
  return (2.0 * layers_per_stage_ - moe_layers_per_stage_) * allreduce + moe_layers_per_stage_ * std::min(routed, gathered);
}

PerfModel::StepParts PerfModel::step_parts(const StepWork& w, const Efficiency& e) const {
  const double bandwidth = bandwidth_bytes_per_s_ * e.bandwidth;
  // Each GEMM reaches a share of peak that grows with its size (W / (W + W_half)); narrow formats
  // reach less of their (higher) peak. Expert GEMMs see only k/E of the tokens.
  // Searches time every step at the request's own efficiency: its factor is computed once.
  const bool request_exponent = std::bit_cast<std::uint64_t>(e.format_exponent) ==
                                std::bit_cast<std::uint64_t>(request_.efficiency.format_exponent);
  const auto factor = [&](double ratio, double request_factor) {
    return request_exponent ? request_factor : format_share(ratio, e.format_exponent);
  };
  const double format = factor(format_peak_ratio_, request_format_factor_);
  const double attention_format = factor(attention_format_ratio_, request_attention_format_factor_);
  // The GPU's measured matmul ceiling binds the estimate, not the bound (best_case: the roofline).
  const double compute = e.compute * (e.best_case ? 1.0 : matmul_factor_);
  const auto peak = [&](double gemm_flop) {
    return peak_flop_per_s_ * compute * format * gemm_fill(gemm_flop, e.gemm_half_flop);
  };
  const double expert_flop = std::min(w.linear_flop, w.tokens * expert_flop_per_token_);
  // Only the experts that received tokens run a GEMM: at a small batch few experts each see a
  // whole token, not every expert a fraction of one (same uniform routing as the bytes read).
  const double active_share = experts_ > 0 ? 1.0 - w.idle_share : 1.0;
  // A grouped GEMM runs every active expert's tiles in one kernel: it fills the GPU by the
  // layer's expert FLOPs, rows left empty included, and each expert pays whole tiles.
  double expert_peak = 1.0;
  if (experts_ > 0) {
    const double expert_tokens =
        w.tokens * experts_per_token_ * expert_token_multiplier_ / experts_ / std::max(active_share, 1e-12);
    const double tile = e.best_case ? 0.0 : expert_tile_tokens_;
    // Smooth in the batch: the whole tile for a few tokens, one partial tile beyond (an upper
    // bound there; the expected padding, n + tile / 2, refitted no better: cross-validated
    // 8.1 / 41.0 % against 8.3 / 40.6 %).
    const double padded = (expert_tokens + tile) / std::max(expert_tokens, 1e-12);
    expert_peak = peak(w.tokens * expert_layer_gemm_flop_per_token_ * padded) / padded;
  }
  const double gemm_s = (w.linear_flop - expert_flop) / peak(w.tokens * dense_gemm_flop_per_token_) +
                        expert_flop / expert_peak;
  const bool sixteen_bit_prefill = !w.decode && prefill_attention_peak_flop_per_s_ < attention_peak_flop_per_s_;
  const double attention_s =
      sixteen_bit_prefill ? w.attention_flop / (prefill_attention_peak_flop_per_s_ * compute * format_share(1.0, e.format_exponent))
                          : w.attention_flop / (attention_peak_flop_per_s_ * compute * attention_format);
  return {.weights_s = w.weight_bytes / bandwidth,
          .kv_s = w.kv_bytes / (bandwidth * e.kv_bandwidth),
          .gemm_s = gemm_s,
          .attention_s = attention_s};
}

StepTime PerfModel::timed(const StepWork& w, const Efficiency& e) const {
  StepTime s;
  s.bytes = w.weight_bytes + w.kv_bytes;
  s.flop = w.linear_flop + w.attention_flop;
  const double bandwidth = bandwidth_bytes_per_s_ * e.bandwidth;
  const auto [weights_s, kv_s, gemm_s, attention_s] = step_parts(w, e);
  s.memory_s = weights_s + kv_s;
  s.compute_s = gemm_s + attention_s;
  // The bound overlaps everything; an engine runs the GEMMs (streaming weights) and attention
  // (streaming the KV cache) as separate kernels, each bound by its own limit.
  s.work_s = e.overlap_communication ? std::max(s.memory_s, s.compute_s)
                                     : std::max(weights_s, gemm_s) + std::max(kv_s, attention_s);
  s.communication_s = communication_s(w.tokens, e);
  // Norms, activations and routing run for every token a step carries, prompt tokens included;
  // sampling (the vocabulary pass) only for the tokens it generates.
  s.token_s = e.activation_passes * w.tokens *
              (activation_layer_bytes_per_token_ + (w.decode ? vocab_pass_bytes_per_token_ : 0.0)) / bandwidth;
  s.token_s += w.tokens * routed_copy_bytes_per_token_ * e.routed_copy_s_per_gb * 1e-9;
  if (w.decode) {
    s.token_s += w.tokens * e.sequence_overhead_s;
  }
  // Each stage runs its own layers' kernels.
  s.overhead_s = e.step_overhead_s + e.layer_overhead_s * layers_per_stage_ + s.token_s;
  s.overlapped = e.overlap_communication;
  const double serving_share = vendor_serving_share_ * attention_dp_share(request_.fit.layout);
  if (!e.best_case && serving_share < 1.0) {
    // Public runs on this vendor's GPUs, and with attention DP, serve at this share of the
    // estimate, every part alike.
    const double slower = 1.0 / serving_share;
    for (double* part : {&s.memory_s, &s.compute_s, &s.work_s, &s.communication_s, &s.overhead_s, &s.token_s}) {
      *part *= slower;
    }
  }
  // Host time, not the GPU's: no vendor share scales it; the bound has none.
  s.host_launch_s = e.best_case ? 0.0 : eager_host_s_;
  return s;
}

PerfModel::StepWork PerfModel::decode_work(std::uint64_t micro_batch, double context, bool best_case) const {
  const double b = d(micro_batch);
  const ContextSum context_layers = attention_context_sum(context, best_case);
  const double idle = expert_idle_share(b);
  return {.weight_bytes = dense_read_bytes_ + expert_bytes_touched(idle),
          .kv_bytes = b * (context_layers.kv_layers * kv_bytes_per_token_layer_ + state_bytes_per_decode_),
          .linear_flop = b * linear_flop_per_token_,
          .attention_flop = b * attention_flop_per_token_context_ * context_layers.flop_layers,
          .tokens = b,
          .idle_share = idle,
          .decode = true};
}

StepTime PerfModel::decode_step(std::uint64_t micro_batch, double context, const Efficiency& e) const {
  return timed(decode_work(micro_batch, context, e.best_case), e);
}

PerfModel::StepWork PerfModel::prefill_work(double tokens, double prompt_tokens, bool best_case) const {
  // Causal attention: token i attends to i tokens of its prompt, on average prompt/2 (capped by
  // sliding windows).
  const double context_layers = attention_context_sum(prompt_tokens / 2.0, best_case).flop_layers;
  const double idle = expert_idle_share(tokens);
  // A chunk of a longer prompt: the chunks before it hold on average (prompt - chunk) / 2 tokens
  // (0, chunk, 2 chunk, ...), whose MLA latents this step up-projects again.
  const double cached_tokens = std::max(0.0, prompt_tokens - tokens) / 2.0;
  return {.weight_bytes = dense_read_bytes_ + expert_bytes_touched(idle),
          .kv_bytes = tokens * d(fit_.kv.layers_per_gpu()) * kv_bytes_per_token_layer_,
          .linear_flop = tokens * linear_flop_per_token_ + cached_tokens * cached_latent_flop_per_token_,
          .attention_flop = tokens * prefill_attention_flop_per_token_context_ * context_layers,
          .tokens = tokens,
          .idle_share = idle,
          .decode = false};
}

StepTime PerfModel::prefill_step(std::uint64_t tokens, const Efficiency& e) const {
  return timed(prefill_work(d(tokens), d(tokens), e.best_case), e);
}

StepTime PerfModel::prefill_step(std::uint64_t tokens, std::uint64_t prompt_tokens, const Efficiency& e) const {
  return timed(prefill_work(d(tokens), d(prompt_tokens), e.best_case), e);
}

namespace {

// Under PP each stage's step for one micro-batch of `own` sequences still walks all `active`
// sequences of the replica on the host (TensorRT-LLM's PP loop schedules and answers over every
// active request once per micro-batch): the per-sequence cost of the others, which the
// micro-batch's own step (timed()) leaves out.
double others_walk_s(std::uint64_t active, std::uint64_t own, const Efficiency& e) {
  return static_cast<double>(active - own) * e.sequence_overhead_s;
}

}  // namespace

PerfModel::PipelineSchedule PerfModel::pipeline_schedule(std::uint64_t batch, double context, const Efficiency& e,
                                                         MicroSteps& steps) const {
  const std::uint64_t pp = request_.fit.layout.pp;
  if (pp <= 1 || batch == 0) {
    const StepTime step = decode_step(batch, context, e);
    return {.largest_step = step, .round_s = step.total_s(), .chain_s = step.total_s(), .largest_micro_batch = batch};
  }
  // Micro-batches are at most ceil(batch / min(PP, batch)) + 1 sequences (balanced_split).
  steps.resize(std::max<std::size_t>(steps.size(), batch / std::min(pp, batch) + 3));
  Split best = balanced_split(batch, batch, context, e, steps);
  double best_share = 1;
  // Or fewer sequences, B', run each round in rotation, so each is active B' / B of the rounds
  // (the host still walks all B). Near-equal micro-batches fit some batch sizes better than the
  // next ones (8 sequences on PP 8 balance, 9 do not), so the B' within the last PP below B
  // are tried; a pipeline balanced at 8 loses only the 9th sequence's host cost when it arrives.
  if (batch > 1) {
    for (std::uint64_t active = batch > pp ? batch - pp : 1; active < batch; ++active) {
      const Split rotating = balanced_split(active, batch, context, e, steps);
      const double share = d(active) / d(batch);
      if (rotating.period_s() / share < best.period_s() / best_share) {
        best = rotating;
        best_share = share;
      }
    }
  }
  StepTime largest = decode_step(best.largest_micro_batch, context, e);
  const double walked_s = others_walk_s(batch, best.largest_micro_batch, e);
  largest.token_s += walked_s;
  largest.overhead_s += walked_s;
  return {.largest_step = largest,
          .round_s = best.round_s,
          .chain_s = best.chain_s,
          .active_share = best_share,
          .largest_micro_batch = best.largest_micro_batch};
}

PerfModel::Split PerfModel::balanced_split(std::uint64_t batch, std::uint64_t active, double context,
                                           const Efficiency& e, MicroSteps& steps) const {
  const Layout& l = request_.fit.layout;
  const CommLink link = pp_link_.at(e);
  const auto step_of = [&](std::uint64_t micro_batch) -> const MicroStep& {
    MicroStep& memo = steps[micro_batch];  // sized by pipeline_schedule for every micro-batch here
    if (!memo.known) {
      memo = {.total_s = decode_step(micro_batch, context, e).total_s(),
              .handoff_s = p2p_s(d(micro_batch) * activation_bytes_per_token_, link),
              .known = true};
    }
    return memo;
  };
  // The batch circulates as m micro-batches of near-equal size (B mod m of them one larger). A
  // micro-batch's next token waits for its last one to leave the final stage (its chain: PP
  // steps and PP - 1 handoffs); every stage runs each micro-batch once per token (its round: the
  // sum of their steps). The period, the ITL of every sequence, is the longer of the two. A
  // scheduler may run more micro-batches than stages: with PP + 1 sequences, PP + 1 micro-batches
  // of one beat PP micro-batches of which one carries two (the chain of the pair sets the pace).
  const auto schedule = [&](std::uint64_t m) {
    const std::uint64_t q = batch / m;
    const std::uint64_t larger = batch % m;
    const std::uint64_t largest = larger > 0 ? q + 1 : q;
    const double small_s = step_of(q).total_s;
    const MicroStep& big = step_of(largest);
    const auto walk_s = [&](std::uint64_t size) { return others_walk_s(active, size, e); };
    return Split{.round_s = d(larger) * (big.total_s + walk_s(largest)) + d(m - larger) * (small_s + walk_s(q)),
                 .chain_s = d(l.pp) * (big.total_s + walk_s(largest)) + d(l.pp - 1) * big.handoff_s,
                 .largest_micro_batch = largest};
  };
  // Fewer than PP micro-batches leave stages idle. The largest micro-batch c sets m = ceil(B / c);
  // the chain grows with c and the round shrinks, so the best c is near where they cross: a
  // bisection over c, then its neighbours.
  const std::uint64_t least = std::min<std::uint64_t>(l.pp, batch);
  const auto count_for = [&](std::uint64_t c) { return std::max(least, (batch + c - 1) / c); };
  const std::uint64_t widest = (batch + least - 1) / least;
  std::uint64_t lo = 1;
  std::uint64_t hi = widest;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const Split s = schedule(count_for(mid));
    if (s.chain_s >= s.round_s) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  constexpr std::uint64_t kNeighbours = 2;
  const std::uint64_t lo_count = count_for(lo);
  Split best = schedule(lo_count);
  std::uint64_t last_count = 0;
  for (std::uint64_t c = lo > kNeighbours ? lo - kNeighbours : 1; c <= std::min(widest, lo + kNeighbours); ++c) {
    // A split is its micro-batch count: one already timed cannot be strictly better.
    const std::uint64_t count = count_for(c);
    if (count == lo_count || count == last_count) {
      continue;
    }
    last_count = count;
    const Split s = schedule(count);
    if (s.period_s() < best.period_s()) {
      best = s;
    }
  }
  return best;
}

PerfPoint PerfModel::evaluate(std::uint64_t batch, const Efficiency& e) const {
  MicroSteps steps;
  std::optional<AloneTtft> ttft_s;
  return evaluate(batch, e, steps, ttft_s);
}

PerfPoint PerfModel::evaluate(std::uint64_t batch, StepCache& cache) const {
  return evaluate(batch, cache.efficiency_, cache.steps_, cache.ttft_s_);
}

PerfPoint PerfModel::evaluate(std::uint64_t batch, const Efficiency& e, MicroSteps& decode_steps,
                              std::optional<AloneTtft>& ttft_s) const {
  const Layout& l = request_.fit.layout;
  const double input = d(request_.input_tokens);
  // The prompt tokens prefill computes: those the prefix cache does not hold. Each attends over
  // the whole prompt (prefill_work's prompt_tokens stays `input`), as a later chunk of it does.
  const double computed = prefilled_tokens();
  const double output = d(request_.output_tokens);
  const double mean_context = input + output / 2.0;
  PerfPoint p;
  p.batch = batch;
  const CommLink pp = pp_link_.at(e);
  const PipelineSchedule schedule = pipeline_schedule(batch, mean_context, e, decode_steps);
  p.decode = schedule.largest_step;
  p.step_s = schedule.itl_s();
  if (!ttft_s) {  // one prompt alone: the same at every batch, and the TTFT at batch 1
    // In steps of the chunk, as the engine runs it and as the loaded rows time it (each step
    // reads the weights again; an MLA chunk up-projects the earlier chunks' latents): whole
    // chunks and the rest. Under PP the chunks follow one another through the stages; the
    // last leaves the first stage and crosses the others.
    const double chunk = std::min(computed, d(std::max<std::uint64_t>(1, prefill_chunk_tokens_)));
    const double whole = std::floor(computed / chunk + 1e-9);
    const double rest = computed - whole * chunk;
    const StepTime step = timed(prefill_work(chunk, input, e.best_case), e);
    const double rest_s = rest >= 1.0 ? timed(prefill_work(rest, input, e.best_case), e).total_s() : 0.0;
    const double last = rest >= 1.0 ? rest : chunk;
    const double last_s = rest >= 1.0 ? rest_s : step.total_s();
    const double prefill_handoff = l.pp > 1 ? p2p_s(last * activation_bytes_per_token_, pp) : 0.0;
    const double traversal_s = d(l.pp - 1) * (last_s + prefill_handoff);
    ttft_s = AloneTtft{.total_s = whole * step.total_s() + rest_s + traversal_s, .traversal_s = traversal_s};
  }
  p.ttft_alone_s = ttft_s->total_s;
  p.pipeline_traversal_s = ttft_s->traversal_s;
  p.ttft_s = p.ttft_alone_s;
  const double replica_decode = d(batch) / p.step_s;
  p.decode_tokens_per_s = replica_decode * d(l.dp);
  // Steady state: every sequence also needs its prefill. Batched with others, a prefill costs
  // its compute (weights are already streaming) on each stage, pipelined across stages.
  const auto steady_prefill_s = [&] {
    // Under load the engine packs queued prompts into prefill steps of up to the chunk size
    // (TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens) and splits longer prompts into
    // chunks: GEMMs and communication are sized by the step's tokens, not by one prompt's.
    const double chunk = d(std::max<std::uint64_t>(1, prefill_chunk_tokens_));
    const double prompts = std::clamp(std::floor(chunk / computed), 1.0, std::max(1.0, d(batch)));
    const double step_tokens = std::min(prompts * computed, chunk);
    const double steps = prompts * computed / step_tokens;
    const StepTime step = timed(prefill_work(step_tokens, input, e.best_case), e);
    const double busy_s = step.overlapped ? std::max(step.compute_s, step.communication_s)
                                          : step.compute_s + step.communication_s;
    return steps * (busy_s + step.token_s) / prompts;
  };
  const double prefill_busy_s = steady_prefill_s();
  p.prefill_busy_s = prefill_busy_s;
  double cycle_s = output * p.step_s + d(batch) * prefill_busy_s;
  if (e.overlap_communication) {
    // The bound: chunked prefill rides in the decode steps, which stream the weights once for
    // both, so a cycle takes its decode steps' time or its compute (every prefill and every decode
    // step's GEMMs), whichever is longer, not their sum. Each stage computes every sequence's
    // token once per period: batch / largest micro-batch of its largest step's compute.
    const double micro_steps = d(batch) / d(std::max<std::uint64_t>(1, schedule.largest_micro_batch));
    cycle_s = std::max(output * p.step_s, d(batch) * prefill_busy_s + output * micro_steps * p.decode.compute_s);
  }
  p.cycle_s = cycle_s;
  p.output_tokens_per_s = d(batch) * output / cycle_s * d(l.dp);
  p.output_tokens_per_s_per_gpu = p.output_tokens_per_s / d(l.gpus());
  // A sequence's own prefill comes before its first token; the others' (batch - 1 of them a
  // cycle) land between its tokens, in the decode steps (vLLM's chunked prefill) or as steps of
  // their own (SGLang): the mean gap a user sees, whatever the median.
  p.itl_s = std::max(p.step_s, (cycle_s - prefill_busy_s) / output);
  loaded_ttft(p, e);
  p.tokens_per_s_per_user = 1.0 / p.itl_s;
  // Prefill yields the first token; each further one takes an ITL.
  p.e2e_latency_s = p.ttft_s + (output - 1.0) * p.itl_s;
  p.kv_fits = batch <= max_batch_;
  return p;
}

std::string_view to_string(Arrivals a) { return a == Arrivals::poisson ? "poisson" : "burst"; }

std::optional<Arrivals> parse_arrivals(std::string_view name) {
  if (name == "burst") {
    return Arrivals::burst;
  }
  if (name == "poisson") {
    return Arrivals::poisson;
  }
  return std::nullopt;
}

void PerfModel::loaded_ttft(PerfPoint& p, const Efficiency& e) const {
  p.ttft_s = p.ttft_alone_s;
  if (request_.arrivals == Arrivals::poisson) {
    // Random arrivals at the rate this batch sustains (batch / cycle per replica): a prompt lands
    // mid-step (half a step to the next), waits for the prefills queued before it (M/D/1), then
    // rides in the steps that carry its chunks, each a decode step plus its share of the prefill,
    // and under PP its last chunk crosses the later stages as it does alone (helper s58 tasks F3:
    // without that crossing the sum fell below one prompt alone, whose floor hid the wait: 405B
    // on TP8 PP2 showed 1.82 s at batch 1, 22 and 40). Not below one prompt alone. An
    // approximation: the engine serves queued prompts a chunk of tokens a step, not one by one,
    // so a deep queue drains faster than M/D/1 says.
    const double prefill_s = p.prefill_busy_s;
    const double requests_per_s = p.cycle_s > 0 ? d(p.batch) / p.cycle_s : 0.0;
    const double chunks =
        std::ceil(prefilled_tokens() / d(std::max<std::uint64_t>(1, prefill_chunk_tokens_)) - 1e-9);
    const double wait_s = poisson_prefill_wait_s(requests_per_s, prefill_s);
    if (std::isfinite(wait_s)) {  // prefill's share of the cycle is below 1 by construction
      p.ttft_s = std::max(p.ttft_alone_s,
                          p.pipeline_traversal_s + 0.5 * p.step_s + wait_s + chunks * p.step_s + prefill_s);
      return;
    }
  }
  if (p.batch <= 1) {
    return;
  }
  // The batch's prompts arrive together, as they do in a benchmark at this concurrency (every
  // request sent at once, and again each time a wave of fixed-length outputs ends), and are
  // prefilled in steps of up to the chunk size (vLLM max_num_batched_tokens, TensorRT-LLM
  // max_num_tokens): a prompt's first token comes with the step that holds its last prompt
  // token. Set against the 58 public runs at batch > 1 that publish a mean TTFT, this is +13 %
  // at the median (one prompt alone: -89 %; prompts spread evenly over the cycle: -81 %).
  // Traffic that arrives spread out waits less, down to ttft_alone_s.
  // Each prompt's computed tokens (prefilled_tokens) fill the steps; they attend over the whole
  // prompt. `input` below counts the computed tokens, `prompt` the prompt.
  const double prompt = d(request_.input_tokens);
  const double input = prefilled_tokens();
  const double batch = d(p.batch);
  const double chunk = d(std::max<std::uint64_t>(1, prefill_chunk_tokens_));
  const double step_tokens = std::min(batch * input, chunk);
  const double stage_s = timed(prefill_work(step_tokens, prompt, e.best_case), e).total_s();
  // Mean over the prompts j = 1..batch of the step count ceil(j x input / step_tokens), summed
  // by steps when they are fewer than the prompts (step k ends the prompts j <= k x step / input),
  // else by prompts; past a few thousand of either, the mean (rounding up adds half a step).
  constexpr double kSummed = 4096;
  const double steps = std::ceil(batch * input / step_tokens - 1e-9);
  double mean_steps = 0;
  if (std::min(steps, batch) > kSummed) {
    mean_steps = (batch + 1.0) / 2.0 * input / step_tokens + 0.5;
  } else if (steps < batch) {
    double done = 0;  // prompts ended by the steps before
    for (double k = 1; k <= steps; ++k) {
      const double ended = std::min(batch, std::floor(k * step_tokens / input + 1e-9));
      mean_steps += k * (ended - done);
      done = ended;
    }
    mean_steps /= batch;
  } else {
    for (double j = 1; j <= batch; ++j) {
      mean_steps += std::ceil(j * input / step_tokens - 1e-9);
    }
    mean_steps /= batch;
  }
  // Under PP the last step leaves the first stage and crosses the others.
  const double stages = d(request_.fit.layout.pp);
  p.ttft_s = std::max(p.ttft_alone_s, (mean_steps + stages - 1.0) * stage_s);
}

double PerfModel::full_load_tokens_per_s(const Efficiency& e) const {
  const std::uint64_t batch = full_load_batch();
  return batch == 0 ? 0.0 : evaluate(batch, e).output_tokens_per_s;
}

std::optional<double> PerfModel::ridge_batch() const {
  const Efficiency peak = Efficiency::roofline();
  const double context = d(request_.input_tokens) + d(request_.output_tokens) / 2.0;
  // Only memory and compute decide it: the step's other terms (communication, overheads) are
  // left out, a request probes some 25 batches here. Same parts, same sums as timed().
  const auto compute_bound = [&](double b) {
    const StepParts s = step_parts(decode_work(static_cast<std::uint64_t>(b), context, peak.best_case), peak);
    return s.gemm_s + s.attention_s >= s.weights_s + s.kv_s;
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

namespace {

void check_batches(const std::vector<std::uint64_t>& batches) {
  if (batches.empty()) {
    throw InputError("perf.batches: give at least one batch size");
  }
  for (std::uint64_t b : batches) {
    if (b < 1 || b > (1u << 20)) {
      throw InputError(fmt::format("perf.batches: expected batch sizes between 1 and {}, got {}", 1u << 20, b));
    }
  }
}

}  // namespace

PerfResult perf(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
                const std::vector<std::uint64_t>& batches, const EstimateBand& band) {
  check_batches(batches);
  const PerfModel pm(model, gpu, request);
  return perf(pm, pm.fit().notes, batches, band);
}

PerfResult perf(const PerfModel& pm, std::vector<std::string> fit_notes, const std::vector<std::uint64_t>& batches,
                const EstimateBand& band) {
  check_batches(batches);
  const PerfRequest& request = pm.request();
  PerfResult r;
  r.model_id = pm.fit().model_id;
  r.gpu_id = pm.fit().gpu_id;
  r.request = request;
  r.compute_type = pm.compute_type() + (request.sparse ? " (2:4 sparse)" : "");
  r.peak_flop_per_s = pm.peak_flop_per_s();
  r.gemm_share = pm.gemm_share();
  r.ridge_batch = pm.ridge_batch();
  r.max_batch_by_memory = pm.max_batch_by_memory();
  r.full_load_batch = pm.full_load_batch();
  // measured = estimate x (1 + residual): the band spans the residuals of this distance.
  r.band_low = 1.0 + std::min(0.0, band.band.low);
  r.band_high = 1.0 + std::max(0.0, band.band.high);
  r.band_case = band.band_case;
  r.engine_calibrated = band.engine_calibrated;
  r.layout_calibrated = band.layout_calibrated;
  // Each efficiency's prefill (TTFT) and decode steps are timed once for all the batches.
  PerfModel::StepCache estimate(request.efficiency);
  PerfModel::StepCache roofline(Efficiency::roofline());
  r.rows.reserve(batches.size());  // one allocation each, not one per doubling
  r.roofline.reserve(batches.size());
  for (std::uint64_t b : batches) {
    r.rows.push_back(pm.evaluate(b, estimate));
    r.roofline.push_back(pm.evaluate(b, roofline));
  }
  r.notes = std::move(fit_notes);
  if (pm.fit().engine) {
    r.notes.push_back(engine_step_line(*pm.fit().engine, request.fit.engine, request.fit.layout.pp));
  }
  if (pm.fit().engine) {
    if (std::optional<std::string> line = default_max_model_len_line(*pm.fit().engine, pm.fit().request.context_tokens)) {
      r.notes.push_back(std::move(*line));
    }
  }
  if (request.sparse) {
    r.notes.push_back("peak FLOPs are the 2:4-sparse figure; dense inference cannot reach it");
  }
  if ((pm.compute_type() == "bf16" || pm.compute_type() == "fp16") && is_quantized(request.fit.weights_dtype)) {
    r.notes.push_back(fmt::format("{} weights are dequantized and multiplied in {}",
                                  to_string(request.fit.weights_dtype), pm.compute_type()));
  }
  if (pm.matmul_factor() < 1.0) {
    r.notes.push_back(
        matmul_factor_note(r.gpu_id, pm.matmul_factor(), kCalibratedMatmulShare, "calibrated GPU (B200)"));
  }
  if (pm.vendor_serving_share() < 1.0) {
    r.notes.push_back(pm.fit().gpu_vendor == "intel" ? habana_serving_note() : rocm_serving_note());
  }
  if (pm.eager_v0()) {
    r.notes.push_back("eager (no CUDA graphs) on a vLLM V0 release: the host's launch time is not modelled (V0's "
                      "lighter Python path has no measured figure), so the estimate may be fast for small or 4-bit "
                      "models");
  }
  if ((request.eager || request.fit.engine.eager) && !pm.eager_v0() && pm.eager_host_s() <= 0) {
    r.notes.push_back("eager (no CUDA graphs) off NVIDIA: the host's launch time is not floored, the vendor's serving "
                      "share (the median of public runs, eager ones included) stands for it");
  }
  if (pm.eager_host_s() > 0) {
    // Which batches the floor binds: where it is the step's largest part.
    std::uint64_t bound_rows = 0;
    for (const PerfPoint& p : r.rows) {
      bound_rows += p.decode.host_bound() ? 1U : 0U;
    }
    r.notes.push_back(fmt::format(
        "eager (no CUDA graphs): the host launches each step's {:.0f} kernels one by one, so no step on a stage takes "
        "less than {:.1f} ms ({:.0f} us a kernel, INFERRED from public vLLM eager runs; not calibrated); {}",
        pm.eager_host_s() / kEagerHostSPerKernel, pm.eager_host_s() * 1e3, kEagerHostSPerKernel * 1e6,
        bound_rows == 0 ? std::string("the GPU's work is longer at every batch shown")
        : bound_rows == r.rows.size()
            ? std::string("it binds the decode step at every batch shown (bound: overhead)")
            : fmt::format("it binds the decode step at {} of the {} batches shown (bound: overhead)", bound_rows,
                          r.rows.size())));
  }
  if (pm.windowed_reads()) {
    r.notes.push_back("TensorRT-LLM on Blackwell: windowed layers decode over their window only, while their cache "
                      "holds the whole context (max_attention_window)");
  }
  if (pm.hopper_chunked_trtllm()) {
    r.notes.push_back(fmt::format(
        "estimate likely high: 53 Llama 4 FP8 runs under TensorRT-LLM on H100 and H200 (its perf overview, v0.20 to "
        "v1.0; H100 lowest) measured a median 0.71x of such estimates (0.44x to 1.58x), for a cause not modelled "
        "here{}",
        pm.chunked_decode_fallback()
            ? "; at this length (a chunk or more) its chunked layers also decode with the MMHA kernel, XQA refusing "
              "chunked attention, which is not timed either"
            : "; below a chunk TensorRT-LLM turns chunking off when max_seq_len is that short (trtllm-bench sets it "
              "to input + output), while a server with a longer max_seq_len decodes those layers with the slower "
              "MMHA kernel at any length"));
  }
  if (request.fit.layout.dp_attention()) {
    r.notes.emplace_back(attention_dp_note());
  }
  // GPUs are taken in order: a TP group that does not tile the node straddles two of them.
  const std::uint64_t tp = request.fit.layout.tp;
  const std::uint64_t node = request.fit.gpus_per_node;
  if (request.fit.layout.gpus() > node && (tp < node ? node % tp != 0 : tp % node != 0)) {
    r.notes.push_back(fmt::format("TP {} does not tile nodes of {} GPUs: some TP groups span two nodes and would "
                                  "talk over the network, which this estimate does not charge",
                                  tp, node));
  }
  return r;
}

namespace {

/// Expert-parallel degrees a layout search weighs for TP x PP x DP: the one the request names;
/// else, for a MoE model, experts TP-sharded (EP 1), split over each TP group (EP = TP), and split
/// over groups of k TP groups with data-parallel attention (EP = TP x k for every k dividing DP,
/// up to every GPU; one pipeline stage; TensorRT-LLM's attention-DP ranks are single GPUs), where
/// the experts divide evenly. Groups smaller than the deployment matter: DeepSeek-V3's 256 experts
/// do not split 24 ways, and on 24 H200 three EP 8 groups serve 1.4x what TP 8 x 3 does (2.6x before attention DP's held-out share).
std::vector<std::uint64_t> expert_parallel_choices(const ModelSpec& model, const PerfRequest& request,
                                                   std::uint64_t tp, std::uint64_t pp, std::uint64_t dp) {
  if (request.fit.layout.ep > 1 || !model.moe) {
    return {request.fit.layout.ep};
  }
  std::vector<std::uint64_t> eps{1};
  const auto splits = [&](std::uint64_t ways) { return model.moe->routed_experts % ways == 0; };
  if (tp > 1 && splits(tp)) {
    eps.push_back(tp);
  }
  const bool rank_tp_allowed = tp == 1 || request.fit.engine.engine != Engine::trtllm;
  if (pp == 1 && rank_tp_allowed) {
    for (std::uint64_t k = 2; k <= dp; ++k) {
      if (dp % k == 0 && splits(tp * k)) {
        eps.push_back(tp * k);
      }
    }
  }
  return eps;
}

}  // namespace

ThroughputLayout best_layout(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request, std::uint64_t gpus,
                             FitCache* cache) {
  validate_perf_request(model, request);
  ThroughputLayout best;
  std::optional<detail::FitBasis> own;
  std::optional<detail::FitBasis>& basis = cache != nullptr ? cache->basis(model, request.fit) : own;
  // First TP replicas inside a node, and pipelines whose stages are whole nodes (TP = the node's
  // GPUs, PP = nodes: vLLM's "common practice" for a model beyond one node, docs.vllm.ai
  // serving/distributed_serving), each charged its chain, hand-offs and idle stages
  // (pipeline_schedule): 405B fp8 at 32K prompts on two 8 x H100 nodes runs TP 8 x PP 2 at 268
  // tok/s against TP 8 x DP 2's 221 (tasks s57), the pipeline's halved weights leaving room for a
  // larger batch. Pipeline stages inside a node, and TP over the network, only when none of those
  // holds a sequence; they compete with one another then (DeepSeek-R1 on two 8 x H100 nodes: TP 8 x
  // PP 2 estimates 1.9x TP 16's throughput).
  const auto tp_over_network = [&](std::uint64_t tp) {
    return group_path(gpu, tp, request.fit.gpus_per_node) == GroupPath::network;
  };
  const auto first_pass_layout = [&](std::uint64_t tp, std::uint64_t pp) {
    return !tp_over_network(tp) && (pp == 1 || tp == request.fit.gpus_per_node);
  };
  // A replica no instance of the price holds is rented as if it could span instances (a lower
  // bound, rental_note()): taken only when no replica that fits an instance runs.
  const auto rentable = [&](const Layout& l, bool constrained) {
    return !constrained || request.largest_instance_gpus == 0 ||
           instance_group(l, gpu, request.fit.gpus_per_node) <= request.largest_instance_gpus;
  };
  // With instance prices, what the whole instances a layout rents cost an hour (every layout of
  // `gpus` costs the same without them, 1): the rate per USD ranks them.
  const auto usd_per_hour = [&](const Layout& l) {
    if (request.instance_offers.empty()) {
      return 1.0;
    }
    const std::uint64_t group = std::min(gpus, instance_group(l, gpu, request.fit.gpus_per_node));
    const Price& p = best_for(request.instance_offers, GpuNeed{.gpus = gpus, .group = group});
    return d(rent_instances(gpus, p.gpus_per_instance, group).rented_gpus) * p.usd_per_gpu_hour;
  };
  double best_score = 0;
  for (int attempt = 0; attempt < 4 && best.candidates == 0 && request.fit.mig_profile.empty(); ++attempt) {
    const int pass = attempt % 2;
    const bool constrained = attempt < 2;
    if (!constrained && request.largest_instance_gpus == 0) {
      break;
    }
    PerfRequest r = request;
    for (std::uint64_t tp = 1; tp <= gpus; tp *= 2) {
      for (std::uint64_t pp = 1; tp * pp <= gpus && pp <= model.num_hidden_layers; ++pp) {
        if (gpus % (tp * pp) != 0 || first_pass_layout(tp, pp) != (pass == 0)) {
          continue;
        }
        const std::uint64_t dp = gpus / (tp * pp);
        for (std::uint64_t ep : expert_parallel_choices(model, request, tp, pp, dp)) {
          r.fit.layout = Layout{.tp = tp, .pp = pp, .ep = ep, .dp = dp};
          // The fit would reject it with the same words; an exception costs more than the model.
          if (layout_problem(r.fit.layout, model) || !rentable(r.fit.layout, constrained)) {
            continue;
          }
          try {
            PerfModel pm(model, gpu, r, basis, PerfModel::Candidate{});
            if (!pm.fit().fits || pm.full_load_batch() == 0) {
              continue;
            }
            const double rate = pm.full_load_tokens_per_s(r.efficiency);
            const double score = rate / usd_per_hour(r.fit.layout);
            ++best.candidates;
            // Strictly more wins: on a tie the smaller replica (found first) stays.
            if (score > best_score * (1.0 + 1e-9)) {
              best_score = score;
              best.tokens_per_s = rate;
              best.chosen = std::move(pm);  // its fit is copied once the choice is made
            }
          } catch (const InputError&) {
            // TP that does not divide the heads, EP that does not divide the GPUs: not a candidate
          }
        }
      }
    }
  }
  if (!best.chosen) {
    best.fit = fit_smallest_layout(model, gpu, request.fit, gpus);
  } else {
    best.fit = best.chosen->fit();
    detail::add_max_context(best.fit, model);
    best.fit.layout_automatic = true;
    detail::annotate_fit(best.fit, model, gpu, *basis);
  }
  return best;
}

ThroughputLayout serving_layout(const ModelSpec& model, const GpuSpec& gpu, const PerfRequest& request,
                                bool layout_given, std::uint64_t gpus, FitCache* cache) {
  if (layout_given) {
    return ThroughputLayout{.fit = fit(model, gpu, request.fit)};
  }
  return best_layout(model, gpu, request, gpus, cache);
}

}  // namespace gpuplan
