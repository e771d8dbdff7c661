#include <gpuplan/memory.hpp>

#include <algorithm>
#include <optional>
#include <utility>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/comm.hpp>
#include <gpuplan/context_extension.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/error.hpp>

#include "detail/document.hpp"
#include "detail/fit_basis.hpp"
#include "detail/numeric.hpp"
#include "detail/vllm_encoder_profile.hpp"

namespace gpuplan {
namespace {

// Which KV heads TP replicates. Where layers differ (Gemma 4: 16 KV heads on sliding layers, 4 on
// full ones) only the layers with fewer heads than TP are named.
std::string replicated_kv_note(const ModelSpec& m, std::uint64_t tp) {
  if (!m.kv_width_varies()) {
    return fmt::format("TP {} exceeds the {} KV heads: each GPU keeps one KV head (replicated)", tp,
                       m.num_key_value_heads);
  }
  std::uint64_t fewest = 0;
  std::uint64_t most = 0;
  std::uint64_t short_layers = 0;
  std::uint64_t kv_layers = 0;
  for (std::uint64_t layer = 0; layer < m.num_hidden_layers; ++layer) {
    if (!m.holds_token_kv(layer)) {
      continue;
    }
    ++kv_layers;
    if (const std::uint64_t heads = m.kv_heads_of_layer(layer); heads < tp) {
      ++short_layers;
      fewest = fewest == 0 ? heads : std::min(fewest, heads);
      most = std::max(most, heads);
    }
  }
  return fmt::format("TP {} exceeds the {} KV heads of {} of the {} layers that cache KV: each GPU keeps one of "
                     "their KV heads (replicated)",
                     tp, fewest == most ? fmt::format("{}", fewest) : fmt::format("{} to {}", fewest, most),
                     short_layers, kv_layers);
}

using detail::d;

using detail::kActivationBytes;
constexpr double kLogitBytes = 4.0;       // fp32 logits

void validate_request(const FitRequest& r) {
  validate_engine_settings(r.engine);
  const auto in_range = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
    if (v < 1 || v > max) {
      throw InputError(fmt::format("fit.{}: expected between 1 and {}, got {}", field, max, v));
    }
  };
  in_range("concurrency", r.concurrency, 100'000'000);
  in_range("context_tokens", r.context_tokens, 1ull << 32);
  in_range("prefill_chunk_tokens", r.prefill_chunk_tokens, 1u << 24);
  in_range("block_tokens", r.block_tokens, 1u << 16);
  in_range("gpus_per_node", r.gpus_per_node, 1024);  // plan's bound (perf's flag stops at 72)
  if (!(r.memory_utilization >= 0.01 && r.memory_utilization <= 1.0)) {
    throw InputError(fmt::format("fit.memory_utilization: expected a share in [0.01, 1], got {}",
                                 r.memory_utilization));
  }
  constexpr double kMaxReserveBytes = 1e13;  // 10 TB: far above any GPU
  if (!(r.reserve_bytes >= 0.0) || !(r.reserve_bytes <= kMaxReserveBytes)) {
    throw InputError(fmt::format("fit.reserve_bytes: expected a size between 0 and 10 TB, got {}",
                                 r.reserve_bytes));
  }
}

// Attention's and the dense MLP's shares on the busiest pipeline stage (the contiguous ceil(layers
// / PP) of kv_shape), where layers differ in what they hold: Nemotron-NAS's blocks of their own
// widths, no_op and linear. Llama-3.1-Nemotron-Ultra's four widest MLPs (ffn_mult 27.6 to 39, a
// third of its weights) sit in its second half: split by layer count at PP 2 that stage would be
// taken for half the weights. Only where every layer's attention is the plain q, k, v, o of its
// KV heads and the MLP is dense (no state-space mixers, experts or per-layer inputs, whose tensors
// sit in the same parts); elsewhere nullopt, and the stage share by layer count stands.
std::optional<std::pair<double, double>> nas_stage_shares(const ModelSpec& m, std::uint64_t pp) {
  if (pp <= 1 || !m.norm_per_block || m.linear_attention || m.moe || m.per_layer_input_width > 0 ||
      !m.layer_head_dim.empty() || !m.layer_attention_heads.empty() || !m.layer_reuses_kv.empty() ||
      !m.layer_value_is_key.empty() || !m.layer_borrows_kv.empty() || m.mla) {
    return std::nullopt;
  }
  const double h = d(m.hidden_size);
  const double gated = m.mlp_gated ? 3.0 : 2.0;
  const auto attention_of = [&](std::uint64_t i) {
    if (m.has_linear_mixer(i)) {
      return h * h;
    }
    if (!m.has_attention(i)) {
      return 0.0;
    }
    const double q = d(m.attention_heads_of_layer(i)) * d(m.head_dim);
    return 2.0 * h * q + 2.0 * h * d(m.kv_heads_of_layer(i)) * d(m.head_dim);
  };
  const auto mlp_of = [&](std::uint64_t i) {
    return m.has_linear_mlp(i) ? h * h : m.has_mlp(i) ? gated * h * d(m.intermediate_of_layer(i)) : 0.0;
  };
  const std::uint64_t per_stage = (m.num_hidden_layers + pp - 1) / pp;
  double attention_total = 0;
  double mlp_total = 0;
  double best = -1;
  std::pair<double, double> best_parts{0, 0};
  for (std::uint64_t start = 0; start < m.num_hidden_layers; start += per_stage) {
    double attention = 0;
    double mlp = 0;
    for (std::uint64_t i = start; i < std::min(start + per_stage, m.num_hidden_layers); ++i) {
      attention += attention_of(i);
      mlp += mlp_of(i);
    }
    attention_total += attention;
    mlp_total += mlp;
    if (attention + mlp > best) {
      best = attention + mlp;
      best_parts = {attention, mlp};
    }
  }
  if (attention_total <= 0 || mlp_total <= 0) {
    return std::nullopt;
  }
  return std::pair{best_parts.first / attention_total, best_parts.second / mlp_total};
}

WeightsBytes weights_per_gpu(const ModelSpec& m, const std::array<double, kWeightParts>& whole,
                             const std::array<double, kWeightParts>& replicated,
                             const std::array<double, kWeightParts>& kv_projection, const Layout& l) {
  WeightsBytes w;
  const auto at = [&whole](WeightPart p) { return whole[static_cast<std::size_t>(p)]; };
  const auto whole_on_each = [&replicated](WeightPart p) { return replicated[static_cast<std::size_t>(p)]; };
  const auto set = [&w](WeightPart p, double bytes) { w.parts[static_cast<std::size_t>(p)] = bytes; };
  // TP converted once (a conversion from 64 bits unsigned is a dozen instructions, and a layout
  // search sizes a few dozen layouts a request).
  const double tp = d(l.tp);
  if (!m.has_architecture()) {
    w.dense = at(WeightPart::dense_mlp) / tp / d(l.pp);
    set(WeightPart::dense_mlp, w.dense);
    return w;
  }
  // What one TP rank holds of a part: its split share, what every rank keeps whole, and K and V
  // over at most the KV heads.
  const auto per_rank = [&](WeightPart p) {
    const double kv = kv_projection[static_cast<std::size_t>(p)];
    return (at(p) - whole_on_each(p) - kv) / tp + whole_on_each(p) + kv / m.kv_projection_shards(l.tp);
  };
  // The busiest stage holds ceil(layers / PP) layers.
  const double stage_share =
      d((m.num_hidden_layers + l.pp - 1) / l.pp) / d(m.num_hidden_layers);
  const auto shares = nas_stage_shares(m, l.pp);
  for (WeightPart p : {WeightPart::attention, WeightPart::dense_mlp, WeightPart::shared_experts,
                       WeightPart::router, WeightPart::norms}) {
    const double share = !shares                         ? stage_share
                         : p == WeightPart::attention    ? shares->first
                         : p == WeightPart::dense_mlp    ? shares->second
                                                         : stage_share;
    set(p, per_rank(p) * share);
    w.dense += w.parts[static_cast<std::size_t>(p)];
  }
  // The vision tower runs before the first layer, split over TP (audio encoders engines build
  // from transformers' modules are whole on every rank).
  const double encoders = per_rank(WeightPart::vision);
  set(WeightPart::vision, encoders);
  w.dense += encoders;
  w.experts = at(WeightPart::routed_experts) * stage_share / d(l.expert_shards());
  set(WeightPart::routed_experts, w.experts);
  // Vocab-parallel embedding and LM head are split over TP. Without PP one GPU holds both; with
  // PP the first stage holds the embedding and the last the head (a tied head is a copy).
  const double embedding = at(WeightPart::embedding) / tp;
  const double head = (m.tie_word_embeddings ? at(WeightPart::embedding) : at(WeightPart::lm_head)) / tp;
  if (l.pp == 1) {
    w.embedding = embedding;
    w.lm_head = at(WeightPart::lm_head) / tp;
  } else if (head > embedding) {
    w.lm_head = head;
  } else {
    w.embedding = embedding;
  }
  set(WeightPart::embedding, w.embedding);
  set(WeightPart::lm_head, w.lm_head);
  return w;
}


/// The largest engine share, in the flags' 0.01 steps, that leaves `need_bytes` free outside it
/// (vLLM's share is of the total, SGLang's of free-at-start); what else sits outside the share
/// (the CUDA context, other processes) stays whatever the share.
double largest_share_leaving(const EngineMemory& e, double need_bytes) {
  const double base = e.engine == Engine::vllm ? e.total_bytes : e.start_free_bytes;
  const double others = (1.0 - e.share) * base - e.outside_free_bytes;
  return std::floor((1.0 - (need_bytes + others) / base) * 100.0) / 100.0;
}

}  // namespace

namespace detail {

WeightFormats resolve_formats(const ModelSpec& m, const FitRequest& r) {
  if (r.weight_formats) {
    return *r.weight_formats;
  }
  WeightChoice choice{.all = default_format(r.weights_dtype)};
  if (r.embeddings_dtype) {
    choice.embeddings = default_format(*r.embeddings_dtype);
  }
  return choose_weight_formats(m, choice);
}

TokenWidths token_widths(const ModelSpec& m) {
  TokenWidths w;
  if (!m.has_architecture()) {
    return w;
  }
  // Largest tensors alive in one layer during a prefill chunk: the residual stream and its
  // normed copy, the q/k/v projections, and the MLP's gate and up outputs (TP-split).
  if (m.mla) {
    const MlaSpec& a = *m.mla;
    w.qkv = d(m.num_attention_heads) * d(a.qk_nope_head_dim + a.qk_rope_head_dim + a.qk_nope_head_dim + a.v_head_dim);
  } else {
    w.qkv = d(m.num_attention_heads + 2 * m.num_key_value_heads) * d(m.head_dim);
  }
  w.mlp = d(m.intermediate_size);
  if (m.moe) {
    const double routed = d(m.moe->experts_per_token + m.moe->shared_experts) * d(m.moe->expert_intermediate);
    w.mlp = m.moe_layer_count() < m.num_hidden_layers ? std::max(w.mlp, routed) : routed;
  }
  w.residual = 2.0 * d(m.hidden_size);
  return w;
}

}  // namespace detail

namespace {

/// `widths` are token_widths(m), kept in the basis (the same for every layout and load).
ActivationBytes activations_per_gpu(const ModelSpec& m, const detail::TokenWidths& widths, const FitRequest& r,
                                    std::uint64_t sequences_per_replica) {
  ActivationBytes a;
  if (!m.has_architecture()) {
    return a;
  }
  const double tp = d(r.layout.tp);
  const double per_token = widths.residual + widths.qkv / tp + 2.0 * widths.mlp / tp;
  a.prefill = d(r.prefill_chunk_tokens) * per_token * kActivationBytes;
  a.logits = d(sequences_per_replica) * d(m.vocab_size) * kLogitBytes;
  return a;
}

/// FP8 weights for a model that ships 16-bit: a pre-quantized FP8 checkpoint, as fit sizes it, or
/// the 16-bit one quantized as it loads (--quantization fp8), which gpuplan cannot tell apart. The
/// latter builds every layer in the checkpoint's dtype first: Fp8LinearMethod.create_weights takes
/// float8 "if self.quant_config.is_checkpoint_fp8_serialized else params_dtype" and quantizes in
/// process_weights_after_loading (vLLM's and SGLang's layers/quantization/fp8.py; MoE alike), so
/// the load peaks at the 16-bit size where the engine loads the whole model before quantizing it
/// (engine_loads_sixteen_bit_whole: SGLang, vLLM before 0.15). sglang#5576: Gemma-3-12B on 16 GB
/// ran out of memory building its layers with --quantization fp8. The figure, and whether it fits.
std::string online_fp8_load_note(const FitResult& res, const ModelSpec& m) {
  if (!res.engine || !res.request.weight_formats || !m.has_architecture() ||
      !engine_loads_sixteen_bit_whole(res.engine->engine, res.request.engine.vllm_minor_version)) {
    return "";
  }
  const WeightFormats& asked = *res.request.weight_formats;
  const WeightPart main = m.moe ? WeightPart::routed_experts : WeightPart::dense_mlp;
  const auto sixteen = [](DType t) { return t == DType::bf16 || t == DType::fp16 || t == DType::fp32; };
  if (asked[main].element != DType::fp8 || (m.shipped_formats && !sixteen((*m.shipped_formats)[main].element))) {
    return "";
  }
  const WeightFormats whole = choose_weight_formats(m, WeightChoice{.all = default_format(DType::bf16)});
  const detail::WeightTotals totals = detail::weight_totals(m, whole);
  const double load = weights_per_gpu(m, totals.bytes, totals.replicated_bytes, totals.kv_projection_bytes,
                                      res.request.layout)
                          .total();
  const EngineMemory& e = *res.engine;
  // What is free when it loads: SGLang's free-at-start; for vLLM the total less other processes'.
  const double free = e.engine == Engine::sglang ? e.start_free_bytes
                                                 : e.total_bytes - res.request.engine.memory_in_use_bytes;
  const std::string_view engine = e.engine == Engine::sglang ? "SGLang" : "vLLM";
  return fmt::format(
      "fp8 weights sized as a pre-quantized FP8 checkpoint ships them; a 16-bit checkpoint quantized as it loads "
      "(--quantization fp8) is built at 16 bits first (fp8.py Fp8LinearMethod.create_weights), {:.2f} GiB per GPU "
      "here, {} the {:.2f} GiB free when {} loads{}",
      load / units::kGiB, load > free ? "more than" : "within", free / units::kGiB, engine,
      load > free ? ": it runs out of memory loading (sglang#5576); serve an FP8 checkpoint (often named -FP8)" : "");
}

/// A checkpoint whose quantization_config packs its linear layers (GPTQ, AWQ, ...) sized at 16 or
/// 32 bits. Engines load such a checkpoint in its own format whatever their --dtype says: vLLM's
/// GPTQLinearMethod.create_weights allocates qweight as packed int32 and only scales and unquantized
/// layers in params_dtype (vllm/model_executor/layers/quantization/gptq.py; awq.py alike, SGLang
/// keeps vLLM's layout). A --weights-dtype copied from `--dtype float16` therefore sizes a
/// de-quantized copy 3-4 times the checkpoint, and a fit that holds reads DOES NOT FIT; say so.
std::string dequantized_checkpoint_note(const FitResult& res, const ModelSpec& m) {
  if (res.formats_as_shipped || !m.checkpoint_quant || !m.shipped_formats || !res.request.weight_formats ||
      !m.has_architecture()) {
    return "";
  }
  const WeightPart main = m.moe ? WeightPart::routed_experts : WeightPart::dense_mlp;
  const WeightFormat& shipped = (*m.shipped_formats)[main];
  const DType asked = (*res.request.weight_formats)[main].element;
  if (!shipped.quantized() || !(asked == DType::bf16 || asked == DType::fp16 || asked == DType::fp32)) {
    return "";
  }
  const detail::WeightTotals totals = detail::weight_totals(m, *m.shipped_formats);
  const double as_shipped = weights_per_gpu(m, totals.bytes, totals.replicated_bytes, totals.kv_projection_bytes,
                                            res.request.layout)
                                .total();
  return fmt::format(
      "{} packs the {} in {} ({}), as engines load it whatever their --dtype; --weights-dtype {} sizes a "
      "de-quantized copy: {:.2f} GB of weights per GPU against {:.2f} GB as shipped (vLLM's and SGLang's --dtype "
      "float16 sets activations and unquantized layers, not --weights-dtype); leave --weights-dtype out to size "
      "this checkpoint",
      m.checkpoint_quant->where, m.moe ? "experts" : "linear layers", to_string(shipped), m.checkpoint_quant->method,
      to_string(asked), res.per_gpu.weights_bytes / units::kGB, as_shipped / units::kGB);
}

void add_notes(FitResult& res, const ModelSpec& m, const GpuSpec& g) {
  const FitRequest& r = res.request;
  if (res.engine && res.engine->trtllm_logits_buffer_bytes > 0) {
    // Three logs, not the source, give the multiple (kTrtllmEngineBuffersPerLogitsBuffer,
    // engine_memory.cpp): 4.3 (0.19, RTX 5090), 7.3 (TensorRT-LLM#1188), 11.2 (0.12 docs log at
    // max_batch_size 4,096); 7.3 is subtracted, the rest is the range around it.
    const double buffer = res.engine->trtllm_logits_buffer_bytes;
    const double share = res.engine->share;
    const double taken = res.engine->trtllm_runtime_buffer_bytes;
    const std::string more = fmt::format("{:.1f}", share * (11.2 * buffer - taken) / units::kGiB);
    const std::string less = fmt::format("{:.1f}", share * (taken - 4.3 * buffer) / units::kGiB);
    // Below the printed precision the buffers change nothing worth a line of advice.
    const std::string expect =
        more == "0.0" ? std::string()
                      : fmt::format("; logs put them at 4.3 to 11.2 times that, so the KV cache may be {} GiB smaller "
                                    "or {} GiB larger per GPU; build the engine with a max_batch_size near the "
                                    "concurrency you serve",
                                    more, less);
    res.notes.push_back(fmt::format(
        "TensorRT-LLM's TensorRT-engine flow (its default before 1.0; --trtllm-backend pytorch for a PyTorch-backend "
        "run): its C++ runtime allocates \"runtime buffers\" (the logits "
        "of max_batch_size sequences) and \"decoder\" buffers (per-sequence outputs up to max_seq_len, sampling "
        "workspaces) before it measures free memory, all sized by the engine's max_batch_size ({}, --max-num-seqs; "
        "trtllm-build's default: 2048 from 0.11, 1 in 0.8 to 0.10, 8 before). One fp32 logits buffer of "
        "max_batch_size x vocabulary is {:.2f} GiB; {:.2f} GiB (7.3 times that, TensorRT-LLM#1188) is subtracted "
        "before free memory{}",
        res.engine->max_seqs, buffer / units::kGiB, taken / units::kGiB, expect));
  }
  if (res.engine && res.engine->trtllm_estimation_short()) {
    const EngineMemory& e = *res.engine;
    res.notes.push_back(fmt::format(
        "TensorRT-LLM (from about 1.2) estimates its KV cache on a temporary one sized for one max_seq_len request, "
        "a CUDA-graph warm-up and max_batch_size blocks ({:.2f} GiB here, at most kv_cache_free_gpu_mem_fraction of "
        "what is free): that leaves {:.2f} GiB for its profiling forward of {} tokens and its CUDA graphs, about "
        "{:.2f} GiB, and it may run out of memory there (NVIDIA/TensorRT-LLM PR #17470: gpt-oss-120b on one H100 "
        "did at max_batch_size 720 and a 131K max_seq_len, and started at 512 and 12,416); a shorter max_seq_len "
        "(--context) or a smaller max_batch_size (--max-num-seqs) leaves more",
        e.trtllm_estimation_cache_bytes / units::kGiB, std::max(e.trtllm_estimation_left_bytes, 0.0) / units::kGiB,
        detail::group_digits(e.batched_tokens), e.trtllm_estimation_need_bytes / units::kGiB));
  }
  if (res.engine && res.engine->in_use_counted_in_share) {
    res.notes.push_back(fmt::format("vLLM V1 before 0.9.1 counts the {:.2f} GiB other processes hold (--memory-in-use) "
                                    "as its own non-torch memory, taken off the KV cache above (fixed by vllm PR "
                                    "#18974; vllm#19125)",
                                    res.request.engine.memory_in_use_bytes / units::kGiB));
  }
  if (std::string note = online_fp8_load_note(res, m); !note.empty()) {
    res.notes.push_back(std::move(note));
  }
  if (std::string note = dequantized_checkpoint_note(res, m); !note.empty()) {
    res.notes.push_back(std::move(note));
  }
  if (res.engine && res.engine->engine == Engine::vllm) {
    res.notes.push_back(
        res.engine->cuda_graph_bytes > 0
            ? std::string("vLLM from 0.21 profiles CUDA graphs and subtracts them from the KV cache "
                          "(older releases: --engine-version)")
        : res.engine->eager
            ? (res.engine->outside_need_bytes > 0
                   ? fmt::format("--enforce-eager: no CUDA graphs; vLLM before 0.21 still allocates about {:.2f} GiB "
                                 "above gpu_memory_utilization after sizing the KV cache: {:.2f} GiB left there (less "
                                 "the CUDA context)",
                                 res.engine->outside_need_bytes / units::kGiB,
                                 std::max(res.engine->outside_free_bytes, 0.0) / units::kGiB)
                   : std::string("--enforce-eager: no CUDA graphs, none subtracted from the KV cache"))
            : fmt::format("vLLM before 0.21 captures CUDA graphs after sizing the KV cache, from the memory above "
                          "gpu_memory_utilization: {:.2f} GiB left there (less the CUDA context), about {:.2f} GiB "
                          "needed",
                          std::max(res.engine->outside_free_bytes, 0.0) / units::kGiB,
                          res.engine->outside_need_bytes / units::kGiB));
    if (res.engine->outside_nccl_risk() && !res.engine->outside_short()) {
      const EngineMemory& e = *res.engine;
      const double lower = largest_share_leaving(e, e.outside_nccl_graph_bytes);
      res.notes.push_back(fmt::format(
          "vLLM V0 captures NCCL into each CUDA graph with TP over more than two PCIe GPUs or across nodes (0.6-1.0 "
          "GB more at TP 2-4, vllm PR #2192; \"1~3 GiB\", its own warning) from the {:.2f} GiB left above "
          "gpu_memory_utilization here, and may run out of memory capturing: vllm#7593 did with 1.70 GiB left (8 x "
          "L4, TP 8), vllm#7553 started with 1.86 (4 x RTX 4090, TP 4); --gpu-memory-utilization {:.2f} or "
          "--enforce-eager leaves room",
          std::max(e.outside_free_bytes, 0.0) / units::kGiB, std::max(lower, 0.01)));
    }
    if (g.vendor == "intel") {
      // No Gaudi startup log has been checked: say whose arithmetic this is.
      res.notes.push_back(fmt::format("vLLM runs on {} through Intel's vllm-gaudi plugin (HPU graphs, HCCL), whose "
                                      "memory profile no log has checked here: the graph and non-torch terms above "
                                      "are vLLM's on NVIDIA GPUs",
                                      g.id));
    }
    const double tiled_encoder =
        res.engine->vllm_v0 ? detail::vllm_v0_tiled_encoder_profile_bytes(m, r.layout, res.engine->max_seqs) : 0.0;
    if (tiled_encoder > 0) {
      // Sources and terms: engine_memory.cpp, vllm_v0_tiled_encoder_profile_bytes.
      res.notes.push_back(fmt::format(
          "vLLM V0 profiles this model with its largest image in each of max_num_seqs ({}) dummy requests: its "
          "tiled vision encoder needs at least {:.2f} GiB there (the attention mask over the image's tiles, kept "
          "hidden states, MLP), counted as the activation peak; at the default 256 Llama 3.2 Vision ran out of memory "
          "on an A100 80GB (vllm#9445) and an L20 (vllm#10569): lower --max-num-seqs (vLLM's guide, vllm#8826: 16 for "
          "11B, 32 for 90B at TP 8)",
          res.engine->max_seqs, tiled_encoder / units::kGiB));
    } else if (m.vision) {
      // One log so far: too little to size it, enough to say it is missing.
      res.notes.push_back("vLLM's profiling run also feeds the vision encoder its largest dummy images, and that peak "
                          "is not counted here: a Qwen2.5-VL-72B log at TP 4 on A100-40GB showed 2.51 GiB per GPU "
                          "(against 0.15 counted), which left 0.04 GiB of KV cache where this arithmetic finds "
                          "sequences; leave that much headroom, or lower vLLM's --limit-mm-per-prompt");
    }
    if (res.engine->start_free_short_of_bytes > 0) {
      const double total = res.engine->total_bytes;
      const double free = res.engine->start_free_short_of_bytes;
      res.notes.push_back(fmt::format(
          "vLLM may not start: it wants {:g} x {:.2f} GiB free at start, and this GPU shares its memory with the "
          "host; one source found {:.1f} GiB free at boot, other systems more. If vLLM says \"Free memory on device "
          "... is less than desired GPU memory utilization\", --gpu-memory-utilization {:.2f} or less starts there",
          res.engine->share, total / units::kGiB, free / units::kGiB, std::floor(free / total * 100.0) / 100.0));
    }
    // vLLM's logged concurrency reserves each sliding-window layer min(window - 1 +
    // max_num_batched_tokens, context) tokens, as a request's prefill needs; a decoding request
    // keeps only its window, which is what the sequences figure counts.
    const double per_replica = res.max_concurrent_sequences
                                   ? static_cast<double>(*res.max_concurrent_sequences) /
                                         static_cast<double>(r.layout.dp)
                                   : 0.0;
    if (!res.engine->vllm_v0 && res.kv_known && !res.kv.full_attention_only && res.engine->max_concurrency > 0 &&
        per_replica >= 1.0 &&
        std::abs(per_replica - res.engine->max_concurrency) > 0.1 * res.engine->max_concurrency) {
      res.notes.push_back(fmt::format(
          "vLLM's 'Maximum concurrency' ({:.2f}x) reserves each sliding-window layer its window plus a "
          "prefill chunk (max_num_batched_tokens {}); decoding requests hold only their window, so about {:.0f} run at once "
          "(the max concurrent sequences above) once their prefills are done",
          res.engine->max_concurrency, res.engine->batched_tokens, per_replica));
    }
    if (res.engine->sampler == VllmSampler::native &&
        r.engine.vllm_minor_version.value_or(kVllmNewestMinor) >= kVllmLeanSamplerMinor &&
        res.engine->sampler_bytes > res.engine->activation_bytes) {
      res.notes.push_back(fmt::format(
          "vLLM's profiling peak here is its PyTorch-native sampler ({}): 28.7 bytes a logit against FlashInfer's 16 "
          "(--vllm-sampler flashinfer where FlashInfer is installed and VLLM_USE_FLASHINFER_SAMPLER is not 0)",
          r.engine.vllm_sampler ? "--vllm-sampler native" : fmt::format("the default on {} GPUs", g.vendor)));
    }
    if (res.engine->vllm_v0) {
      res.notes.push_back(fmt::format("vLLM {} runs its V0 engine: max_num_seqs 256, a step of max(max_model_len, "
                                      "2048) tokens (with chunked prefill, on above 32K from 0.5.3 for models without a "
                                      "sliding window (windows between full layers count as none from 0.6.5), an MLA "
                                      "cache or (from 0.7) a vision tower, 512 up to 0.6.4 and 2048 from 0.6.5), its "
                                      "profiling sampler the bf16 logits alone; its log counts GPU "
                                      "blocks",
                                      r.engine.vllm_minor_version.value_or(0) < 8 ? "before 0.8"
                                      : !m.layer_is_cross_attention.empty()
                                          ? "0.8 to 0.10 with an encoder-decoder model (V1 runs none)"
                                      : res.kv.state_bytes_per_sequence > 0
                                          ? "0.8 to 0.10.1 with a Mamba or linear-attention model (V1 ran them only "
                                            "with VLLM_USE_V1=1 before 0.10.2)"
                                          : "0.8 to 0.10.1 on a GPU before Ampere (V1 needs compute capability 8.0 before 0.10.2)"));
      if (res.engine->v0_state_cache_bytes > 0) {
        res.notes.push_back(fmt::format(
            "vLLM's V0 engine allocates the recurrent state of max_num_seqs {} sequences ({:.2f} GiB per GPU) in its "
            "profiling run, before the KV cache is sized; --max-num-seqs sets it (vllm#23230: 33.75 GiB for 256 "
            "sequences of Nemotron-Nano-9B-v2 ran an L40S out of memory)",
            res.engine->v0_state_slots, res.engine->v0_state_cache_bytes / units::kGiB));
      }
    }
  }
  if (res.engine && g.unified_memory() &&
      (res.engine->engine == Engine::trtllm || res.engine->engine == Engine::sglang)) {
    const EngineMemory& e = *res.engine;
    const bool trtllm = e.engine == Engine::trtllm;
    res.notes.push_back(fmt::format(
        "{} on {}, whose memory the host shares, sizes its KV cache from what CUDA reports free after loading, which "
        "is the host's free memory: what the OS holds and the page cache of the checkpoint it just read count as "
        "used. The KV cache above takes the page cache to keep half the checkpoint ({:.1f} GiB), as a DGX Spark "
        "log of gpt-oss-120b under TensorRT-LLM found (5.95 GiB of KV cache): {:.2f} GiB, against {:.2f} with it "
        "dropped, and less when the kernel keeps more of it. Dropping caches before launch is not enough, since the "
        "engine reads the checkpoint again: drop them once its weights are loaded (sync; echo 3 > "
        "/proc/sys/vm/drop_caches){}",
        trtllm ? "TensorRT-LLM" : "SGLang", g.id, e.page_cache_bytes / units::kGiB, std::max(0.0, e.kv_bytes) / units::kGiB,
        std::max(0.0, e.kv_bytes_without_page_cache) / units::kGiB,
        trtllm ? ". TensorRT-LLM does not refuse a cache too small for max_seq_len: it lowers max_seq_len to the "
                 "tokens the cache holds"
               : ""));
  }
  if (!res.mig && !g.usable_memory_bytes) {
    res.notes.push_back(fmt::format("{} usable memory estimated: no driver-reported figure in the catalog, so the "
                                    "datasheet's {:.2f} GiB is used (drivers report a few percent less)",
                                    g.id, g.memory_bytes / units::kGiB));
  } else if (res.engine && !res.mig && !g.cuda_memory_bytes) {
    res.notes.push_back(fmt::format("{} total as the GPU runtime reports it (cudaMemGetInfo/hipMemGetInfo) is not "
                                    "in the catalog; the engine figures use the driver's {:.2f} GiB, estimated",
                                    g.id, g.fit_memory_bytes() / units::kGiB));
  }
  // A bridge the card takes as an option is not assumed: say so where it would carry the group.
  // Only a group inside the node that the bridge would join: across nodes it could not.
  if (!g.scale_up && g.optional_scale_up && r.layout.tp > 1 &&
      r.layout.tp <= static_cast<std::uint64_t>(g.optional_scale_up->domain_gpus) &&
      group_path(g, r.layout.tp, r.gpus_per_node) == GroupPath::pcie) {
    res.notes.push_back(fmt::format("{}'s NVLink bridge ({} GPUs) is an option and not assumed: TP {} talks over "
                                    "{}; a catalog override giving scale_up fits it "
                                    "(examples/catalog-nvlink-bridge.json)",
                                    g.id, g.optional_scale_up->domain_gpus, r.layout.tp,
                                    path_name(g, GroupPath::pcie)));
  }
  if (!m.has_architecture()) {
    res.notes.push_back(
        "bare parameter count: weights only; KV cache and activations need an architecture "
        "(use a catalog model or a config.json)");
  }
  const WeightFormats& f = *r.weight_formats;
  if (m.has_architecture() && !res.formats_as_shipped && f[WeightPart::attention].quantized() &&
      f[WeightPart::embedding] == WeightFormat{}) {
    res.notes.push_back(fmt::format("{} weights with bf16 embedding table and LM head, as "
                                    "quantized checkpoints ship them",
                                    to_string(f[WeightPart::attention])));
  }
  if (res.formats_as_shipped && m.shipped_formats && !m.shipped_source.empty()) {
    res.notes.push_back(fmt::format("checkpoint formats from {}", m.shipped_source));
  }
  if (m.vision && m.vision->estimated) {
    res.notes.push_back("vision tower size estimated from vision_config (generic ViT layout)");
  } else if (m.vision_unsized) {
    res.notes.push_back("vision_config gives no size gpuplan reads (hidden size and layer count): the vision "
                        "tower is not counted");
  }
  // The checkpoint's own total is the check on a layout read from config.json: a gap of more than
  // a few percent (scales, MTP layers, vocabulary padding account for less) means a part is
  // missing or counted wrongly.
  // The MTP layers config.json declares are in the files and not in the weights: a gap they
  // account for (with or without their own embedding and head copies) is no missing part
  // (GLM-4.7-Flash: -4.1 %, its one MTP layer, helper s47 F2).
  std::string mtp_in_checkpoint;
  if (m.checkpoint_bytes && !m.checkpoint_unloaded_parts.empty()) {
    // An omni model's files also hold the talker and token2wav, which the engines skip: their
    // total is no check on the thinker's weights.
    res.notes.push_back(fmt::format("the checkpoint files' total (safetensors index, {:.2f} GB) also holds the {}, "
                                    "which the engines do not load: the weights here are not compared with it",
                                    *m.checkpoint_bytes / units::kGB, m.checkpoint_unloaded_parts));
  } else if (res.checkpoint_bytes && res.formats_as_shipped) {
    const double gap = res.expected_checkpoint_bytes / *res.checkpoint_bytes - 1.0;
    const MtpBytes& mtp = res.mtp_checkpoint_bytes;
    std::optional<double> mtp_share;  // of the two estimates, the one closer to the files' total
    for (const double extra : {mtp.layers, mtp.layers + mtp.copies}) {
      const double with_mtp = std::abs((res.expected_checkpoint_bytes + extra) / *res.checkpoint_bytes - 1.0);
      if (mtp.layers > 0 && with_mtp <= kCheckpointGapShare &&
          (!mtp_share || with_mtp < std::abs((res.expected_checkpoint_bytes + *mtp_share) / *res.checkpoint_bytes - 1.0))) {
        mtp_share = extra;
      }
    }
    if (std::abs(gap) > kCheckpointGapShare && mtp_share) {
      mtp_in_checkpoint = fmt::format("; the checkpoint files hold {}: the weights here are {:+.1f} % off the "
                                      "safetensors index's total, which {} estimated {:.2f} GB account{} for",
                                      m.mtp_layers == 1 ? "it" : "them", 100.0 * gap,
                                      m.mtp_layers == 1 ? "its" : "their", *mtp_share / units::kGB,
                                      m.mtp_layers == 1 ? "s" : "");
    } else if (std::abs(gap) > kCheckpointGapShare) {
      res.notes.push_back(fmt::format("the weights computed from config.json are {:+.1f} % off the checkpoint files' "
                                      "total (safetensors index): a part of the model is missing or read wrongly; "
                                      "the memory rows here still use the computed weights, so size the deployment "
                                      "from the checkpoint's total",
                                      100.0 * gap));
    }
  }
  if (!m.unsized_encoder_field.empty()) {
    res.notes.push_back(fmt::format("config.json names an image or audio encoder or connector ({}) that gpuplan does "
                                    "not size: it is not counted in the weights",
                                    m.unsized_encoder_field));
  }
  if (!m.unsized_lora_fields.empty()) {
    res.notes.push_back(fmt::format("config.json ships LoRA adapters for its modalities ({}) that engines load beside "
                                    "the language model: not counted (Phi-4-multimodal's two come to 0.83 B)",
                                    m.unsized_lora_fields));
  }
  if (m.mtp_layers > 0) {
    res.notes.push_back(fmt::format("config.json declares {} multi-token-prediction layer{}: engines load {} only for "
                                    "MTP speculative decoding, and the weights here leave {} out{}",
                                    m.mtp_layers, m.mtp_layers == 1 ? "" : "s", m.mtp_layers == 1 ? "it" : "them",
                                    m.mtp_layers == 1 ? "it" : "them", mtp_in_checkpoint));
  }
  if (!m.layout_from_architecture.empty()) {
    res.notes.push_back(m.layout_from_architecture);
  }
  if (!m.assumed_defaults.empty()) {
    res.notes.push_back(m.assumed_defaults);
  }
  if (m.mla && !m.mla->latent_cache && vllm_expands_mla(r.engine)) {
    res.notes.push_back(fmt::format("vLLM before 0.7.1 caches MLA's K and V expanded per head, not the latent: {} heads "
                                    "x {} wide (q, k and v padded to 256 in its deepseek_v2.py), {:g} bytes a token and "
                                    "layer where 0.7.1 and later cache {:g} (vllm PR #10927's log; vllm#12890)",
                                    m.num_key_value_heads, m.head_dim,
                                    d(2 * m.num_key_value_heads * m.head_dim) * bits_per_element(r.kv_dtype) / 8.0,
                                    d(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * bits_per_element(r.kv_dtype) / 8.0));
  } else if (m.mla && !m.mla->latent_cache) {
    res.notes.push_back(fmt::format("model_type \"{}\" has MLA's low-rank projections, but vLLM caches K and V "
                                    "expanded per head ({} heads x {} wide, V padded to K's width, its "
                                    "minicpm3.py), not the latent; SGLang caches the latent (--engine sglang)",
                                    m.model_type, m.num_key_value_heads, m.head_dim));
  }
  if (m.mla && m.mla->fp8_record_bytes > 0 && r.kv_dtype == DType::fp8) {
    res.notes.push_back(fmt::format("fp8 KV cache of sparse-attention MLA: {} bytes a token and layer, FlashMLA's "
                                    "record (fp8 latent, an fp32 scale per 128, rope in bf16), not {}",
                                    m.mla->fp8_record_bytes, m.mla->kv_lora_rank + m.mla->qk_rope_head_dim));
  }
  if (m.checkpoint_kv_dtype && r.kv_dtype != *m.checkpoint_kv_dtype) {
    res.notes.push_back(fmt::format("the checkpoint ships {} KV-cache scales (its quantization config): TensorRT-LLM "
                                    "uses that cache by default, vLLM and SGLang with --kv-cache-dtype {}; sized "
                                    "here in {} (--kv-dtype {})",
                                    to_string(*m.checkpoint_kv_dtype), to_string(*m.checkpoint_kv_dtype),
                                    to_string(r.kv_dtype), to_string(*m.checkpoint_kv_dtype)));
  }
  // NVIDIA's NVFP4 checkpoints (ModelOpt exports, nvidia/*-FP4) ship FP8 KV-cache scales
  // (nvidia/Llama-3.3-70B-Instruct-FP4's hf_quant_config.json: "kv_cache_quant_algo": "FP8"), which
  // TensorRT-LLM serves by default; NVFP4 asked of a model with no checkpoint config cannot tell,
  // and a 16-bit cache was +82 % against TensorRT-LLM 0.20's log for DeepSeek-R1-FP4 (helper s58 N1,
  // NVIDIA/TensorRT-LLM#5766).
  if (res.engine && res.engine->engine == Engine::trtllm && !m.checkpoint_kv_dtype && r.weight_formats &&
      bits_per_element(r.kv_dtype) >= 16.0) {
    const WeightFormats& asked = *r.weight_formats;
    const bool nvfp4 = std::ranges::any_of(
        std::array{WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts, WeightPart::shared_experts},
        [&asked](WeightPart p) { return asked[p].element == DType::fp4; });
    const bool shipped_nvfp4 = m.shipped_formats && (*m.shipped_formats)[WeightPart::attention].element == DType::fp4;
    if (nvfp4 && !shipped_nvfp4) {
      res.notes.push_back(fmt::format("NVIDIA's NVFP4 checkpoints (ModelOpt exports, nvidia/*-FP4) ship FP8 KV-cache "
                                      "scales, which TensorRT-LLM serves by default: with one the cache is fp8, not {} "
                                      "as sized here (--kv-dtype fp8, or --model-config the checkpoint's directory)",
                                      to_string(r.kv_dtype)));
    }
  }
  if (m.classification_head) {
    res.notes.push_back("config.json's architectures class is a classifier or reward model: no LM head "
                        "is counted (its task head, a few outputs, is left out)");
  }
  if (const auto sharing = std::count(m.layer_reuses_kv.begin(), m.layer_reuses_kv.end(), true); sharing > 0) {
    res.notes.push_back(fmt::format("{} of {} layers attend over an earlier layer's K and V (num_kv_shared_layers): "
                                    "they keep no KV cache of their own (vLLM's kv_sharing_target_layer_name)",
                                    sharing, m.num_hidden_layers));
  }
  if (const auto borrowing = std::count(m.layer_borrows_kv.begin(), m.layer_borrows_kv.end(), true); borrowing > 0) {
    res.notes.push_back(fmt::format("{} of {} layers attend over the K and V of the layer before them (use_cla): "
                                    "no K or V projections of their own; the KV cache counts every layer, as vLLM "
                                    "and SGLang keep those K and V in each layer's own slot",
                                    borrowing, m.num_hidden_layers));
  }
  if (m.layout_unchecked) {
    // What the file's own fields lay out (MLA, experts, windows, cross-attention) is read from them;
    // only what no field says is the generic guess. The note said "read as a Llama-style decoder,
    // no biases" for GLM-5's MLA, indexer and experts and GLM-4.5V's attention biases, all counted
    // as their fields say (helper s47 F5).
    std::vector<std::string_view> from_fields;
    if (m.mla) {
      from_fields.push_back(m.mla->index_head_dim > 0 ? "MLA attention with its sparse-attention indexer"
                                                      : "MLA attention");
    }
    if (m.moe) {
      from_fields.push_back("the experts");
    }
    if (!m.layer_window_tokens.empty()) {
      from_fields.push_back("sliding windows");
    }
    if (!m.layer_is_cross_attention.empty()) {
      from_fields.push_back("cross-attention layers");
    }
    if (!m.layer_is_linear.empty()) {
      from_fields.push_back("linear-attention layers");
    }
    const std::string_view biases = m.attention_bias ? "biases on the attention projections as attention_bias says"
                                    : m.qkv_bias     ? "biases on q, k and v"
                                                     : "no biases";
    const std::string type = m.model_type.empty() ? "(none)" : m.model_type;
    std::string listed;  // "A", "A and B", "A, B and C"
    for (std::size_t i = 0; i < from_fields.size(); ++i) {
      listed += fmt::format("{}{}", i == 0 ? "" : i + 1 == from_fields.size() ? " and " : ", ", from_fields[i]);
    }
    res.notes.push_back(
        from_fields.empty()
            ? fmt::format("model_type \"{}\" is not one whose layout gpuplan has checked: its layers are read as a "
                          "Llama-style decoder's (gated MLP of intermediate_size, RMSNorm, {}); compare the total with "
                          "the checkpoint's",
                          type, biases)
            : fmt::format("model_type \"{}\" is not one whose layout gpuplan has checked: its fields give {}, and the "
                          "rest of each layer is read as a Llama-style decoder's (gated MLP, RMSNorm, {}); compare the "
                          "total with the checkpoint's",
                          type, listed, biases));
  }
  if (m.linear_attention) {
    using Kind = LinearAttentionSpec::Kind;
    const Kind kind = m.linear_attention->kind;
    res.notes.push_back(kind == Kind::mamba2       ? "Mamba2 (state-space) layers hold a fixed state per sequence, not per token"
                        : kind == Kind::mamba1     ? "Mamba (state-space) layers hold a fixed state per sequence, not per token"
                        : kind == Kind::short_conv ? "short-convolution layers hold a fixed state (their last inputs) per "
                                                     "sequence, not per token"
                        : kind == Kind::lightning  ? "lightning-attention (linear) layers hold a fixed state of heads x "
                                                     "head_dim x head_dim per sequence, not per token"
                        : kind == Kind::kda        ? "Kimi Delta Attention layers hold a fixed state per sequence (heads x "
                                                     "head_dim x head_dim in float32 and short-convolution windows), not "
                                                     "per token"
                                                   : "linear-attention layers hold a fixed state per sequence, not per token");
  }
  if (res.kv_known && res.kv.replicated) {
    res.notes.push_back(m.caches_latent() ? fmt::format("MLA latent cache is replicated on each of the {} TP ranks",
                                                        r.layout.tp)
                                          : replicated_kv_note(m, r.layout.tp));
  }
  if (res.mig && res.mig->estimated) {
    res.notes.push_back(fmt::format(
        "MIG profile {} memory estimated from its share of the GPU; no measured figure in the "
        "catalog",
        r.mig_profile));
  }
  // Volta and Turing have no bf16: engines cast a bf16 checkpoint to fp16 (vLLM: "Bfloat16 is
  // only supported on GPUs with compute capability of at least 8.0"); the bytes are the same.
  if (!g.dense_flop_per_s.contains("bf16") &&
      std::ranges::any_of(f.parts, [](const WeightFormat& part) { return part.element == DType::bf16; })) {
    res.notes.push_back(fmt::format("{} has no bf16: engines serve the bf16 weights and KV cache as fp16 (same bytes; "
                                    "vLLM --dtype float16)",
                                    g.id));
  }
  // Only FP8 and FP4 need tensor cores of their own; INT8/INT4 run on older parts too.
  const DType main = detail::dominant_dtype(m, f, res.model_weight_bytes);
  const bool fp4 = main == DType::fp4 || main == DType::mxfp4;
  const std::string type = fp4 ? "fp4" : "fp8";
  if ((fp4 || main == DType::fp8) && !g.dense_flop_per_s.contains(type)) {
    // Weight-only FP8/FP4 (vLLM's Marlin kernels) needs compute capability 8.0.
    // Turing (int8 tensor cores, no bf16) runs FP8 weight-only in vLLM releases whose FP8 Marlin
    // takes compute capability 7.5, and in no older one: engine_weights_refusal() leaves it be.
    const bool turing_fp8 = !fp4 && g.dense_flop_per_s.contains("int8");
    res.notes.push_back(g.dense_flop_per_s.contains("bf16")
                            ? fmt::format("{} has no {} tensor cores: {} weights would run as weight-only quantization",
                                          g.id, type, to_string(main))
                        : turing_fp8
                            ? fmt::format("{} has no fp8 tensor cores: fp8 weights run as weight-only quantization "
                                          "only where the engine's FP8 Marlin kernels take Turing (recent vLLM "
                                          "releases); older ones and TensorRT-LLM refuse them (int8 or int4 run "
                                          "everywhere)",
                                          g.id)
                            : fmt::format("{} has no {} tensor cores and, before Ampere, no weight-only kernels for "
                                          "{} weights either: engines refuse them there (use int8 or int4)",
                                          g.id, type, to_string(main)));
  }
  if (std::string note = sglang_unscaled_context_note(m.unscaled_max_position_embeddings, r.context_tokens,
                                                      fmt::format("a context of {}", r.context_tokens));
      r.engine.engine == Engine::sglang && !note.empty()) {
    res.notes.push_back(std::move(note));
  }
  // SGLang's DeepSeek recipes run MLA MoE models with --enable-dp-attention (docs: "DP attention
  // ... recommended for DeepSeek models"), which keeps the attention weights and each rank's MLA
  // cache at attention TP tp-size / dp-size; with the MoE still at TP (no --ep-size) gpuplan has no
  // layout for it. sglang#7691 (0.4.8, DeepSeek-R1 bf16 on 8 x MI300X, DP 8 x TP 8): the engine
  // held 166.59 GB of weights a GPU and profiled a negative KV pool where plain TP 8 fits.
  if (r.engine.engine == Engine::sglang && m.mla && m.is_moe() && r.layout.tp > 1 && !r.layout.dp_attention()) {
    res.notes.push_back(fmt::format(
        "estimated for plain TP {0}; SGLang's recipes run MLA MoE models with --enable-dp-attention, which is not "
        "modelled with the experts at TP (each DP rank then holds the attention weights at TP {0} / --dp-size and "
        "its own cache, more memory a GPU: sglang#7691 refused DeepSeek-R1 on 8 x MI300X so where TP 8 fits); "
        "for DP attention with expert parallelism give --tp 1 --dp {0} --ep {0}",
        r.layout.tp));
  }
  if (res.engine && res.engine->aiter_share_cut) {
    const EngineMemory& e = *res.engine;
    res.notes.push_back(fmt::format(
        "SGLang's AITER attention backend (its default on {}) cuts mem_fraction_static by 0.85 above a context of "
        "8192, a --mem-fraction-static given too: {:.3f} in effect{}",
        g.id, e.share,
        e.aiter_workspace_bytes > 0
            ? fmt::format("; its decode workspace, {:.2f} GiB for {} requests, comes from the {:.2f} GiB left outside "
                          "the pool",
                          e.aiter_workspace_bytes / units::kGiB, e.aiter_workspace_requests,
                          e.aiter_free_after_pool_bytes / units::kGiB)
            : std::string()));
  }
  if (m.has_architecture() && !m.layer_window_tokens.empty()) {
    const bool chunked = !m.layer_is_chunked.empty() || m.model_type.starts_with("llama4");
    res.notes.push_back(
        vllm_chunked_attention_as_full(r, m)
            ? "chunked-attention layers keep the whole context: vLLM before 0.14 runs its hybrid KV cache manager "
              "without chunked attention (from 0.10.1 unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1)"
        : vllm_windows_as_full(r, m) && !r.windows_keep_context
            ? "windowed layers keep the whole context: vLLM before its hybrid KV cache manager (0.10; 0.9.2 may "
              "already group them) allocates them as full attention and applies the window to computation only"
        : r.engine.engine == Engine::sglang && !r.windows_keep_context
            ? "windowed layers keep the whole context: SGLang's KV pool is full-context for Gemma's sliding windows "
              "and, before its SWA pool, Llama 4's chunks; where that pool is on (Llama 4, gpt-oss in later releases) "
              "windowed layers hold 0.8 x the full layers' tokens, up to about 18 % more than here"
        : windows_keep_context(r, m)
            ? chunked
                  ? "chunked-attention layers keep the whole context: TensorRT-LLM chunks context requests only"
                  : "sliding-window layers keep the whole context: TensorRT-LLM's max_attention_window defaults to it"
        : chunked ? "chunked-attention layers hold at most one chunk of KV cache"
                  : "sliding-window layers hold at most their window of KV cache");
  }
  if (const auto cross = std::count(m.layer_is_cross_attention.begin(), m.layer_is_cross_attention.end(), true);
      cross > 0) {
    res.notes.push_back(
        vllm_pools_cross_attention_layers(r, m)
            ? fmt::format("{} cross-attention layers keep the image's KV, once per request with an image; vLLM's V0 "
                          "cache engine still gives them a slot of every token's block, so the KV cache figures count "
                          "all {} layers a token (vllm/worker/cache_engine.py; vllm PR #12126: 6,001 blocks in 14.65 "
                          "GiB for Llama 3.2 11B Vision)",
                          cross, m.num_hidden_layers)
            : fmt::format("{} cross-attention layers keep the image's KV, once per request with an "
                          "image, not per token: not in the KV cache figures (text-only requests)",
                          cross));
  }
}

/// vLLM's pipeline stages on one GPU each: the busiest stage's per-GPU weights with its layers
/// replaced by the stage's own (vllm_pp_layers), the embedding on the first stage only (with the
/// vision tower, which runs before the first layer) and the LM head (a tied one a copy) on the
/// last only. Empty without PP or for another engine.
std::vector<EngineInputs::PipelineStage> pipeline_stages(const detail::FitFigures& f, const ModelSpec& m,
                                                         const FitRequest& r,
                                                         const std::array<double, kWeightParts>& weight_bytes) {
  const Layout& l = r.layout;
  if (r.engine.engine != Engine::vllm || l.pp <= 1 || !m.has_architecture()) {
    return {};
  }
  const auto part = [&f](WeightPart p) { return f.weights.parts[static_cast<std::size_t>(p)]; };
  const double tp = static_cast<double>(l.tp);
  const double embedding = weight_bytes[static_cast<std::size_t>(WeightPart::embedding)] / tp;
  const double head =
      weight_bytes[static_cast<std::size_t>(m.tie_word_embeddings ? WeightPart::embedding : WeightPart::lm_head)] / tp;
  const double vision = part(WeightPart::vision);
  const std::uint64_t busiest = (m.num_hidden_layers + l.pp - 1) / l.pp;
  // What the busiest stage holds besides its layers, as weights_per_gpu counted it.
  const double ends = f.weights.embedding + f.weights.lm_head + vision;
  const double per_layer = (f.per_gpu.weights_bytes - ends) / static_cast<double>(std::max<std::uint64_t>(busiest, 1));
  std::vector<EngineInputs::PipelineStage> stages;
  const std::vector<std::uint64_t> layers = vllm_pp_layers(m.num_hidden_layers, l.pp);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool first = i == 0;
    const bool last = i + 1 == layers.size();
    stages.push_back({.weights_bytes = per_layer * static_cast<double>(layers[i]) + (first ? embedding + vision : 0.0) +
                                       (last ? head : 0.0),
                      .layers = layers[i]});
  }
  return stages;
}

/// The engine's refusal of a part's format, prefixed by the field that set it: a part in the
/// format of the dense MLP (which --weights-dtype alone sets) blames --weights-dtype, so that a
/// refused --weights-dtype is named before the parts it reaches; another blames its own flag.
std::optional<std::string> engine_parts_refusal(Engine engine, const ModelSpec& m, const GpuSpec& gpu,
                                                const WeightFormats& formats,
                                                const std::array<double, kWeightParts>& weight_bytes) {
  // A format the checkpoint itself ships was not asked for: say so, and that the flag sizes another one.
  const WeightFormats shipped = choose_weight_formats(m, WeightChoice{});
  const auto shipped_note = [&](WeightPart part, DType element) -> std::string {
    if (shipped[part].element != element) {
      return "";
    }
    const bool experts = part == WeightPart::routed_experts || part == WeightPart::shared_experts;
    const bool embeddings = part == WeightPart::embedding || part == WeightPart::lm_head;
    return fmt::format("{} ships its {} in {}, and ", m.id,
                       experts ? "experts" : part == WeightPart::attention ? "attention" : embeddings ? "embeddings" : "weights",
                       to_string(element));
  };

  const auto field = [](WeightPart p) -> std::string_view {
    switch (p) {
      case WeightPart::attention: return "weights.attention";
      case WeightPart::routed_experts:
      case WeightPart::shared_experts: return "weights.experts";
      case WeightPart::embedding:
      case WeightPart::lm_head: return "weights.embeddings";
      default: return "fit.weights_dtype";
    }
  };
  const DType general = formats[WeightPart::dense_mlp].element;
  std::optional<std::string> own;
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    if (!(weight_bytes[i] > 0)) {
      continue;  // a part the model does not have
    }
    const DType element = formats[part].element;
    const bool experts = part == WeightPart::routed_experts || part == WeightPart::shared_experts;
    if (bitsandbytes_int8_checkpoint(m, formats[part], shipped[part])) {
      continue;
    }
    std::optional<std::string> refusal = engine_weights_refusal(engine, gpu, formats[part], experts);
    if (!refusal) {
      continue;
    }
    if (element == general) {
      const std::string note = shipped_note(WeightPart::dense_mlp, element);
      return fmt::format("fit.weights_dtype: {}{}{}", note, *refusal,
                         note.empty() ? "" : "; this flag sizes another checkpoint");
    }
    if (!own) {
      const std::string note = shipped_note(part, element);
      own = fmt::format("{}: {}{}{}", field(part), note, *refusal, note.empty() ? "" : "; this flag sizes another checkpoint");
    }
  }
  return own;
}

/// Whether the weights are served in the checkpoint's own quantization (a linear part in the
/// format config.json ships), so that its quant_method decides what the engine loads.
bool serves_checkpoint_quant(const ModelSpec& m, const WeightFormats& formats) {
  if (!m.shipped_formats || !m.checkpoint_quant) {
    return false;
  }
  return std::ranges::any_of(std::array{WeightPart::attention, WeightPart::dense_mlp, WeightPart::routed_experts},
                             [&](WeightPart part) {
                               const WeightFormat& shipped = (*m.shipped_formats)[part];
                               return shipped.quantized() && formats[part] == shipped;
                             });
}

/// The engine's refusal of these weights: the checkpoint's quantization method, then each part's format.
std::optional<std::string> engine_load_refusal(Engine engine, const ModelSpec& m, const GpuSpec& gpu,
                                               const WeightFormats& formats,
                                               const std::array<double, kWeightParts>& weight_bytes) {
  if (serves_checkpoint_quant(m, formats)) {
    if (std::optional<std::string> refusal = engine_checkpoint_refusal(engine, gpu, m)) {
      return refusal;
    }
  }
  return engine_parts_refusal(engine, m, gpu, formats, weight_bytes);
}

/// With no engine named, why no engine would start: each engine gpuplan models (TensorRT-LLM on
/// NVIDIA only) refuses a part's format on this GPU (engine_weights_refusal's rules, from each
/// engine's sources). vLLM's refusal is quoted: it is the most permissive (FP8 Marlin from 7.5).
std::optional<std::string> no_engine_refusal(const ModelSpec& m, const GpuSpec& gpu, const WeightFormats& formats,
                                             const std::array<double, kWeightParts>& weight_bytes) {
  std::optional<std::string> first;
  for (const Engine engine : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
    if (!engine_runs_on(engine, gpu)) {
      continue;
    }
    std::optional<std::string> refusal = engine_load_refusal(engine, m, gpu, formats, weight_bytes);
    if (!refusal) {
      return std::nullopt;
    }
    if (!first) {
      first = std::move(refusal);
    }
  }
  // Drop a flag's field prefix: no flag is wrong on its own, the GPU and the format are (a
  // config.json field stays: the checkpoint is what no engine loads).
  const bool flag_field = first->starts_with("fit.") || first->starts_with("weights.");
  const std::string why = flag_field ? first->substr(first->find(": ") + 2) : *first;
  return fmt::format("no engine runs these weights on {} ({}): {}", gpu.id,
                     engine_runs_on(Engine::trtllm, gpu)
                         ? "vLLM, SGLang and TensorRT-LLM all refuse them"
                         : "vLLM and SGLang refuse them; TensorRT-LLM does not run there",
                     why);
}

/// Replaces the neutral cap, activations and reserve by the engine's own terms, so that
/// cap - weights - activations - reserve is the KV cache the engine allocates.
void apply_engine(detail::FitFigures& f, const ModelSpec& m, const FitRequest& r, const WeightFormats& formats,
                  const std::array<double, kWeightParts>& weight_bytes, double capacity, const GpuSpec& gpu) {
  if (std::optional<std::string> refusal = engine_hardware_refusal(r.engine.engine, gpu, r.engine.trtllm_version)) {
    throw InputError(fmt::format("engine.name: {}", *refusal));
  }

  // A release older than the architecture stops before sizing anything: no verdict on its memory.
  if (std::optional<std::string> refusal =
          engine_release_refusal(r.engine.engine, r.engine.vllm_minor_version, r.engine.vllm_patch_version,
                                 r.engine.sglang_version, m)) {
    throw InputError(*refusal);
  }
  if (std::optional<std::string> refusal = engine_kv_refusal(m, r.engine.engine, r.kv_dtype)) {
    throw InputError(fmt::format("fit.kv_dtype: {}", *refusal));
  }
  if (!m.has_architecture()) {
    throw InputError("engine.name: the engine's memory arithmetic needs an architecture (use a catalog "
                     "model or a config.json, not a bare parameter count)");
  }
  // The engine would not start: a verdict on its memory would say a deployment works that does not.
  // Every part the model has is checked, not the dominant format alone: an fp8 attention under
  // bf16 MLPs needs the same kernels.
  // A request of gpt-oss's own format by its dtype alone (measurement files, the planner) means
  // its checkpoint, MXFP4 experts beside bf16 layers: judged as shipped, though sized in the dtype.
  const bool own_mxfp4 = !r.weight_formats && r.weights_dtype == DType::mxfp4 && m.shipped_formats &&
                         (*m.shipped_formats)[WeightPart::routed_experts].element == DType::mxfp4;
  if (std::optional<std::string> refusal = engine_load_refusal(r.engine.engine, m, gpu,
                                                               own_mxfp4 ? *m.shipped_formats : formats, weight_bytes)) {
    throw InputError(*refusal);
  }
  // Other processes cannot hold the whole GPU (or slice) and leave the engine anything.
  if (r.engine.memory_in_use_bytes >= capacity) {
    throw InputError(fmt::format("engine.memory_in_use: {:.2f} GiB ({:.2f} GB) held by other processes is at or above "
                                 "the {:.2f} GiB ({:.2f} GB) {}{} has in all",
                                 r.engine.memory_in_use_bytes / units::kGiB, r.engine.memory_in_use_bytes / units::kGB,
                                 capacity / units::kGiB, capacity / units::kGB, gpu.id,
                                 f.mig ? fmt::format(" MIG {}", r.mig_profile) : std::string()));
  }
  PerGpuMemory& mem = f.per_gpu;
  const BlockFp8Linears block_fp8 =
      r.engine.engine == Engine::trtllm ? trtllm_resmooth_inputs(m, r.layout, formats, f.weights.parts) : BlockFp8Linears{};
  const EngineInputs in{.total_bytes = capacity,
                        .weights_bytes = mem.weights_bytes,
                        .kv_bytes_per_token_per_gpu = f.kv_bytes_per_token_per_gpu,
                        .block_tokens = f.block_tokens,
                        .mxfp4_expert_bytes =
                            formats[WeightPart::routed_experts].element == DType::mxfp4 ? f.weights.experts : 0.0,
                        .device_name = gpu.name,
                        .context_tokens = r.context_tokens,
                        .tp_outside_nvlink = group_path(gpu, r.layout.tp, r.gpus_per_node) != GroupPath::scale_up,
                        .tp_across_nodes = group_path(gpu, r.layout.tp, r.gpus_per_node) == GroupPath::network,
                        // V1 needs compute capability 8.0, and ran no encoder-decoder model (cross-attention
                        // layers: mllama) before V0's removal: "No Mamba or Encoder-Decoder so far. if not
                        // model_config.is_v1_compatible: _raise_or_fallback(...)" (vllm/engine/arg_utils.py
                        // _is_v1_supported_oracle, a 0.9-era copy, public-file index id 143850341).
                        // A model with recurrent state (Mamba, linear attention) fell back too until
                        // 0.10.2: "V1 mamba models are unoptimized. if model_config.has_inner_state and
                        // _warn_or_fallback(feature_name="Mamba")" (a 0.10 copy, public-file index id
                        // 41526715), logged "Mamba is experimental on VLLM_USE_V1=1. Falling back to V0
                        // Engine." under 0.10.0 (file id 71132288543); vllm-project/vllm PR #23650
                        // ("Enable V1 by default for Mamba Models", August 2025) ended it in 0.10.2.
                        .v1_unsupported = (gpu.vendor == "nvidia" && !gpu.dense_flop_per_s.contains("bf16")) ||
                                          !m.layer_is_cross_attention.empty() || (f.kv != nullptr && f.kv->state_bytes_per_sequence > 0),
                        .kv_shape = f.kv,
                        .unified_memory = gpu.unified_memory(),
                        .free_at_start_bytes = gpu.free_at_start_bytes,
                        .flashinfer_sampler = gpu.vendor == "nvidia",
                        .nvidia_arch = nvidia_arch(gpu),
                        .rocm = gpu.vendor == "amd",
                        .block_fp8_linear_bytes = block_fp8.bytes,
                        .block_fp8_largest_elements = block_fp8.largest_elements,
                        .pp_stages = pipeline_stages(f, m, r, weight_bytes)};
  const EngineMemory e = engine_memory(m, r.layout, in, r.engine);
  mem.weights_bytes = e.weights_bytes;  // as the engine holds them (vLLM pads MXFP4 experts)
  switch (e.engine) {
    case Engine::vllm:
      mem.activation_bytes = std::max(e.activation_bytes, e.sampler_bytes);
      mem.reserve_bytes = e.non_torch_bytes + e.cuda_graph_bytes + e.v0_state_cache_bytes;
      break;
    case Engine::trtllm:
      mem.activation_bytes = e.activation_bytes;
      mem.reserve_bytes = e.non_torch_bytes + e.cuda_graph_bytes;
      break;
    case Engine::sglang:  // activations and graphs live outside mem_fraction_static
      mem.activation_bytes = 0;
      mem.reserve_bytes = e.state_pool_bytes;  // a hybrid model's state pool, beside the tokens'
      break;
    case Engine::neutral:
      mem.activation_bytes = 0;
      mem.reserve_bytes = 0;
      break;
  }
  // Never below nothing: with no memory free the engine's cap is 0, not a negative figure.
  mem.engine_cap_bytes = std::max(0.0, mem.weights_bytes + mem.activation_bytes + mem.reserve_bytes + e.kv_bytes);
  // Sequences and context follow the engine's block granularity.
  f.block_tokens = e.block_tokens;
  f.engine = e;
}

/// vLLM's V1 engine at `minor` or later (a request naming no version runs the newest).
bool vllm_v1_from(const EngineMemory& e, const FitRequest& r, int minor) {
  return e.engine == Engine::vllm && !e.vllm_v0 && r.engine.vllm_minor_version.value_or(kVllmNewestMinor) >= minor;
}

/// Copies of a sequence's linear-attention state the KV budget holds: none under SGLang, whose
/// state pool sits in the reserve; two under vLLM from 0.25, whose align mode keeps the last
/// aligned state beside the running one; else one.
double state_copies(const std::optional<EngineMemory>& engine, const FitRequest& r) {
  if (!engine) {
    return 1.0;
  }
  if (engine->state_slot_bytes > 0 || engine->v0_state_cache_bytes > 0) {
    return 0.0;  // SGLang's state pool, vLLM V0's state cache: outside the KV budget
  }
  return vllm_v1_from(*engine, r, kVllmMambaAlignMinor) ? 2.0 : 1.0;
}

/// `kv` with its state counted as the engine keeps it (state_copies).
KvShape counted_shape(const KvShape& kv, const std::optional<EngineMemory>& engine, const FitRequest& r) {
  KvShape counted = kv;
  counted.state_bytes_per_sequence *= state_copies(engine, r);
  return counted;
}

/// The longest context of `model` whose KV cache `sequences` hold in `budget_bytes`, and whether
/// the model's own maximum is what limits it.
std::uint64_t longest_context(const ModelSpec& model, const KvShape& kv, double budget_bytes, std::uint64_t sequences,
                              std::uint64_t block_tokens, bool& limited_by_model) {
  const std::uint64_t limit = model.max_position_embeddings;
  const std::uint64_t tokens = max_context_tokens(kv, budget_bytes, sequences, block_tokens, limit);
  limited_by_model = tokens == limit;
  return tokens;
}

}  // namespace

namespace detail {

const KvShape& FitBasis::kv_shape_of(const ModelSpec& model, const Layout& layout) {
  // A layout search and its suggestions ask for a few shapes many times; the walk over the
  // layers (and the windows vector) is made once for each TP x PP.
  const std::pair key(layout.tp, layout.pp);
  auto it = kv_shapes.find(key);
  if (it == kv_shapes.end()) {
    it = kv_shapes.emplace(key, kv_shape(model, kv_dtype, layout, windows_keep_context, cross_attention_pooled)).first;
  }
  return it->second;
}

std::optional<std::string> fit_figures(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& r,
                                       std::optional<FitBasis>& basis, FitFigures& f, KvShape* own_shape,
                                       FigureSet figure_set) {
  validate_request(r);
  validate_layout(r.layout, model);
  const bool keep_context = windows_keep_context(r, model);
  const bool cross_pooled = vllm_pools_cross_attention_layers(r, model);
  if (!basis || !basis->ready || basis->asked_formats != r.weight_formats || basis->weights_dtype != r.weights_dtype ||
      basis->embeddings_dtype != r.embeddings_dtype || basis->kv_dtype != r.kv_dtype ||
      basis->windows_keep_context != keep_context || basis->cross_attention_pooled != cross_pooled) {
    FitBasis b{.ready = true,
               .keep_shapes = basis.has_value() && basis->keep_shapes,
               .asked_formats = r.weight_formats,
               .weights_dtype = r.weights_dtype,
               .embeddings_dtype = r.embeddings_dtype,
               .kv_dtype = r.kv_dtype,
               .windows_keep_context = keep_context,
               .cross_attention_pooled = cross_pooled};
    b.formats = resolve_formats(model, r);
    b.formats_as_shipped = b.formats == model.shipped_formats.value_or(WeightFormats{});
    b.totals = weight_totals(model, b.formats);
    b.token_widths = token_widths(model);
    if (model.has_architecture()) {
      b.kv_bytes_per_token = kv_bytes_per_token(model, r.kv_dtype);
      b.model_weight_bytes = b.totals.bytes;
    } else {
      b.model_weight_bytes[static_cast<std::size_t>(WeightPart::dense_mlp)] =
          b.totals.params.body() * bits_per_element(b.formats[WeightPart::dense_mlp].element) / units::kBitsPerByte;
    }
    basis = std::move(b);
  }
  const Layout& l = r.layout;
  if (std::optional<std::string> problem = quantized_shard_problem(l, model, basis->formats)) {
    throw InputError(std::move(*problem));
  }

  double capacity = gpu.fit_memory_bytes();
  f.mig.reset();
  if (!r.mig_profile.empty()) {
    const MigProfile* profile = gpu.find_mig_profile(r.mig_profile);
    if (profile == nullptr) {
      std::vector<std::string> names;
      for (const MigProfile& p : gpu.mig_profiles) {
        names.push_back(p.name);
      }
      if (names.empty()) {
        throw InputError(fmt::format("fit.mig_profile: {} does not support MIG", gpu.id));
      }
      const auto close = closest_names(r.mig_profile, names);
      throw InputError(fmt::format("fit.mig_profile: unknown MIG profile '{}' for {}; {}: {}", r.mig_profile, gpu.id,
                                   close.empty() ? "known" : "closest", fmt::join(close.empty() ? names : close, ", ")));
    }
    if (l.tp > 1 || l.pp > 1 || l.ep > 1) {
      throw InputError("fit.mig_profile: MIG slices cannot be linked by TP, PP or EP (no peer-to-peer "
                       "between instances); use one slice per replica");
    }
    f.mig = mig_memory(gpu, *profile);
    capacity = f.mig->bytes;
  }
  // A reserve of the whole GPU or more is a unit's slip (5TB for 5GB, 80GiB on an 80 GB part), not
  // a deployment: a "does not fit" verdict would blame the weights and suggest more GPUs. The
  // engine-neutral reserve only: an engine's terms replace it.
  if (r.engine.engine == Engine::neutral && r.reserve_bytes >= capacity) {
    throw InputError(fmt::format("fit.reserve_bytes: {:.2f} GiB ({:.2f} GB) reserved per GPU is at or above the "
                                 "{:.2f} GiB ({:.2f} GB) {}{} has in all",
                                 r.reserve_bytes / units::kGiB, r.reserve_bytes / units::kGB, capacity / units::kGiB,
                                 capacity / units::kGB, gpu.id,
                                 f.mig ? fmt::format(" MIG {}", r.mig_profile) : std::string()));
  }

  if (model.has_architecture() && r.context_tokens > model.max_position_embeddings) {
    return fmt::format("fit.context_tokens: {} exceeds the {} tokens of '{}' ({}){}", r.context_tokens,
                       model.max_position_embeddings, model.id, model.context_limit_source(),
                       documented_context_extension(model, r.context_tokens));
  }

  f.weights = weights_per_gpu(model, basis->model_weight_bytes, basis->totals.replicated_bytes,
                              basis->totals.kv_projection_bytes, l);
  f.concurrency_per_replica = (r.concurrency + l.dp - 1) / l.dp;
  f.activations = activations_per_gpu(model, basis->token_widths, r, f.concurrency_per_replica);
  f.block_tokens = r.block_tokens;

  PerGpuMemory& mem = f.per_gpu;
  mem = PerGpuMemory{};
  mem.capacity_bytes = capacity;
  mem.engine_cap_bytes = capacity * r.memory_utilization;
  mem.weights_bytes = f.weights.total();
  mem.activation_bytes = f.activations.total();
  mem.reserve_bytes = r.reserve_bytes;

  const bool kv_known = model.has_architecture();
  f.kv = nullptr;
  if (kv_known && own_shape != nullptr && !basis->keep_shapes) {
    // A single fit (perf's models, a search's chosen layout) takes the basis's shape when the
    // search made it, else makes its own without keeping it.
    const auto it = basis->kv_shapes.find(std::pair(l.tp, l.pp));
    *own_shape = it != basis->kv_shapes.end() ? it->second : kv_shape(model, r.kv_dtype, l, keep_context, cross_pooled);
    f.kv = own_shape;
  } else if (kv_known) {
    f.kv = &basis->kv_shape_of(model, l);
    if (own_shape != nullptr) {
      *own_shape = *f.kv;
      f.kv = own_shape;
    }
  }
  f.kv_bytes_per_token_per_gpu = 0;
  if (kv_known) {
    f.kv_bytes_per_token_per_gpu = f.kv->bytes_per_token_per_layer_per_gpu * d(f.kv->layers_per_gpu());
  }
  f.engine.reset();
  f.no_engine_runs.reset();
  if (r.engine.engine == Engine::neutral) {
    f.no_engine_runs = no_engine_refusal(model, gpu, basis->formats, basis->model_weight_bytes);
  }
  if (r.engine.engine != Engine::neutral) {
    // A MIG slice's total is its own; a whole GPU's is what CUDA reports.
    apply_engine(f, model, r, basis->formats, basis->model_weight_bytes, f.mig ? capacity : gpu.engine_memory_bytes(),
                 gpu);
  }
  const double fixed = mem.weights_bytes + mem.activation_bytes + mem.reserve_bytes;
  mem.kv_budget_bytes = std::max(0.0, mem.engine_cap_bytes - fixed);
  // An engine with no KV memory refuses to start (vLLM: "No available memory for the cache blocks").
  f.weights_fit = f.engine ? f.engine->kv_bytes > 0 : fixed <= mem.engine_cap_bytes;

  f.sequence_kv_bytes_per_gpu = 0;
  f.max_concurrent_sequences.reset();
  f.max_context_tokens.reset();
  f.max_context_limited_by_model = false;
  if (kv_known) {
    const KvShape& kv = *f.kv;
    f.sequence_kv_bytes_per_gpu = sequence_kv_bytes(kv, r.context_tokens, f.block_tokens);
    // What one sequence takes from the KV budget as the engine keeps its state (state_copies).
    const KvShape counted = counted_shape(kv, f.engine, r);
    const double pooled_bytes = sequence_kv_bytes(counted, r.context_tokens, f.block_tokens);
    mem.kv_cache_bytes = d(f.concurrency_per_replica) * pooled_bytes;
    // Without an engine the logits buffer grows with the load: each further sequence costs its
    // KV cache and its logits, so the figure is the load at which a fit at that load still fits.
    const double logits_per_sequence = f.engine ? 0.0 : d(model.vocab_size) * kLogitBytes;
    const double budget_beside_logits =
        f.engine ? mem.kv_budget_bytes
                 : std::max(0.0, mem.engine_cap_bytes - (fixed - f.activations.logits));
    auto per_replica = static_cast<std::uint64_t>(std::floor(budget_beside_logits / (pooled_bytes + logits_per_sequence)));
    if (f.engine && f.engine->state_slot_bytes > 0) {
      per_replica = std::min(per_replica, f.engine->state_requests);
    }
    // vLLM V0's state cache holds max_num_seqs sequences (padded): no sequence beyond runs, however
    // much attention KV the budget holds (review s64: Nemotron-Nano-9B-v2 at TP 8 read 4,001).
    if (f.engine && f.engine->v0_state_cache_bytes > 0) {
      per_replica = std::min(per_replica, f.engine->v0_state_slots);
    }
    f.max_concurrent_sequences = per_replica * l.dp;
    if (f.engine) {
      f.engine->max_concurrency =
          // V0 divides the cache by max_model_len; V1 counts the blocks each request reserves.
          f.engine->engine == Engine::vllm && !f.engine->vllm_v0
              ? vllm_max_concurrency(kv, f.engine->kv_bytes, r.context_tokens, f.engine->block_tokens,
                                     f.engine->batched_tokens, static_cast<std::uint64_t>(state_copies(f.engine, r)))
              : d(f.engine->kv_tokens) / d(std::max<std::uint64_t>(r.context_tokens, 1));
      f.engine->logged_kv_tokens =
          vllm_v1_from(*f.engine, r, kVllmPoolCountMinor) ? static_cast<std::uint64_t>(f.engine->max_concurrency * d(r.context_tokens))
                             : f.engine->kv_tokens;
    }
    // vLLM V1 gives each decoding sequence one block of linear-attention state: with fewer blocks
    // than max_num_seqs it stops at start ("max_num_seqs (256) exceeds available Mamba cache blocks").
    // vLLM checks it from PR #38270 (after 0.17.1, which started with more sequences than blocks).
    constexpr int kVllmStateBlockCheckMinor = 18;
    // The check sits in resolve_cudagraph_mode_and_sizes (vllm/config/compilation.py): an eager
    // start (--enforce-eager, cudagraph mode NONE) does not make it.
    if (f.engine && f.engine->engine == Engine::vllm && !f.engine->vllm_v0 && !f.engine->eager && kv.linear_layers > 0 &&
        f.engine->kv_tokens > 0 && r.engine.vllm_minor_version.value_or(kVllmStateBlockCheckMinor) >= kVllmStateBlockCheckMinor) {
      f.engine->state_block_ceiling =
          vllm_v1_from(*f.engine, r, kVllmPoolCountMinor) ? vllm_pool_block_count(kv, f.engine->kv_bytes, f.engine->block_tokens) : f.engine->blocks();
      f.engine->state_blocks_below_seqs = f.engine->state_block_ceiling < f.engine->max_seqs;
      // The native sampler's peak is uncertain down to FlashInfer's (sampler_bytes_low): the blocks
      // that leaves, in proportion to the budget (the count is whole blocks of it).
      const EngineMemory& e = *f.engine;
      const double freed = std::max(e.activation_bytes, e.sampler_bytes) - std::max(e.activation_bytes, e.sampler_bytes_low);
      f.engine->state_block_ceiling_high =
          freed > 0 && e.kv_bytes > 0
              ? static_cast<std::uint64_t>(std::floor(d(e.state_block_ceiling) * (e.kv_bytes + freed) / e.kv_bytes))
              : e.state_block_ceiling;
    }
    // vLLM without --max-model-len takes the model's max_position_embeddings and refuses to start
    // when one request of that length does not fit the KV cache ("To serve at least one request
    // with the models's max seq len (N), (X GiB KV cache is needed, which is larger than the
    // available KV cache memory (Y GiB)": vllm-project/vllm vllm/v1/core/kv_cache_utils.py
    // _check_enough_kv_cache_memory @001cabc1be16a59a70d720ed61a13b678c060a18; V0 raised the same
    // in raise_if_cache_size_invalid). The figures here assume --max-model-len = --context, so
    // fit names the longest that starts. SGLang and TensorRT-LLM do not refuse in this case:
    // SGLang caps a request at min(context_len, max_total_num_tokens) - 1 tokens
    // (sgl-project/sglang python/sglang/srt/managers/tp_worker.py @0045f98eb3b122ae69e82722b3e0ff5392547f7a,
    // max_req_len) and TensorRT-LLM's KVCacheManager lowers max_seq_len to what its cache holds
    // (NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/_util.py: "KVCacheManager (Non-draft)
    // modifies the max_seq_len field").
    if (f.engine && f.engine->engine == Engine::vllm && f.engine->kv_bytes > 0 &&
        r.context_tokens < model.max_position_embeddings) {
      const std::uint64_t model_len = model.max_position_embeddings;
      const double needed_bytes = sequence_kv_bytes(counted, model_len, f.block_tokens);
      if (needed_bytes > f.engine->kv_bytes) {
        f.engine->default_max_model_len = model_len;
        f.engine->default_max_model_len_kv_bytes = needed_bytes;
        f.engine->max_model_len_that_fits = max_context_tokens(counted, f.engine->kv_bytes, 1, f.block_tokens, model_len);
        // The context passed as --max-model-len is refused by the same check when one request of
        // it does not fit either (helper s53 logs F7: Qwen3-32B on one H100 at 32,000).
        if (const double asked = sequence_kv_bytes(counted, r.context_tokens, f.block_tokens); asked > f.engine->kv_bytes) {
          f.engine->asked_max_model_len_kv_bytes = asked;
        }
      }
    }
    // SGLang without --context-length takes the model's maximum as context_len, and its
    // request-to-token table grows with it (sglang#5755: Llama-4-Scout's 10,485,760 tokens, an
    // 80.04 GiB table). The figures here take --context-length = --context; when the default does
    // not start, say so and name the longest that does.
    if (f.engine && f.engine->engine == Engine::sglang && f.engine->kv_tokens > 0 && f.engine->req_to_token_bytes > 0 &&
        !f.engine->outside_short() && r.context_tokens < model.max_position_embeddings) {
      EngineMemory& e = *f.engine;
      const double room = e.outside_free_bytes - (e.outside_need_bytes - e.req_to_token_bytes);
      const auto table_at = [&e](std::uint64_t context) {
        return sglang_req_to_token_bytes(sglang_default_running_requests(e.kv_tokens, context), context);
      };
      const std::uint64_t model_len = model.max_position_embeddings;
      if (table_at(model_len) > room) {
        e.sglang_default_context = model_len;
        e.sglang_default_table_bytes = table_at(model_len);
        // The table does not shrink as the context grows (4096 requests to pool / 8, 512 x pool
        // tokens to pool / 4, then 2048 requests): the longest context that fits by bisection.
        std::uint64_t lo = r.context_tokens;
        std::uint64_t hi = model_len;
        while (hi - lo > 1) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          (table_at(mid) <= room ? lo : hi) = mid;
        }
        e.sglang_context_that_starts = lo;
        const double row = d(model_len + 4) * 4.0;
        e.sglang_requests_that_start = room > 2.0 * row ? static_cast<std::uint64_t>(std::floor(room / row)) - 1 : 0;
      }
    }
    if (figure_set == FigureSet::all) {
      f.max_context_tokens = longest_context(model, counted, mem.kv_budget_bytes, f.concurrency_per_replica, f.block_tokens,
                                             f.max_context_limited_by_model);
    }
  }
  // vLLM V1 refuses to start when less than its share of the total is free ("Free memory on
  // device ... on startup is less than desired GPU memory utilization"): on unified memory the
  // OS keeps part of it. How much varies with the OS build and its page cache (one source saw
  // 101.3 GiB free at every boot, two logs started at a 0.9 share), so it is a warning, not a verdict.
  if (f.engine && f.engine->engine == Engine::vllm && !f.engine->vllm_v0 && !f.mig && gpu.free_at_start_bytes &&
      f.engine->share * gpu.engine_memory_bytes() > *gpu.free_at_start_bytes) {
    f.engine->start_free_short_of_bytes = *gpu.free_at_start_bytes;
  }
  // TensorRT-LLM without chunked prefill starts, then refuses every prompt longer than
  // max_num_tokens (EngineMemory::trtllm_refused_prompt_tokens): a fit that serves none of them.
  if (f.engine && f.engine->engine == Engine::trtllm && !f.engine->trtllm_chunked_prefill) {
    const std::uint64_t prompt = r.prompt_tokens > 0 ? r.prompt_tokens : r.context_tokens;
    f.engine->trtllm_refused_prompt_tokens = prompt > f.engine->batched_tokens ? prompt : 0;
  }
  const bool no_start = f.engine && (f.engine->state_blocks_below_seqs || f.engine->in_use_blocks_start ||
                                     f.engine->aiter_workspace_short() || f.engine->outside_short() ||
                                     f.engine->trtllm_resmooth_short() ||
                                     f.engine->trtllm_refused_prompt_tokens > 0);
  // More running requests than SGLang's state pool admits wait in its queue: not all at once.
  const bool over_state_pool = f.engine && f.engine->state_pool_full(f.concurrency_per_replica);
  const double needed = fixed + mem.kv_cache_bytes;
  f.fits = needed <= mem.engine_cap_bytes && !no_start && !over_state_pool && !f.no_engine_runs;
  mem.free_bytes = std::max(0.0, mem.kv_budget_bytes - mem.kv_cache_bytes);
  mem.shortfall_bytes = std::max(0.0, needed - mem.engine_cap_bytes);
  mem.fixed_over_cap_bytes = std::max(0.0, fixed - mem.engine_cap_bytes);

  const double gpus = d(l.gpus());
  // With MIG the deployment is slices, so its "datasheet" memory is the slices' memory.
  f.datasheet_total_bytes = (f.mig ? capacity : gpu.memory_bytes) * gpus;
  f.capacity_total_bytes = capacity * gpus;
  return std::nullopt;
}

FitResult fit_numbers(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                      std::optional<FitBasis>& basis, FigureSet figure_set) {
  FitResult res;
  FitFigures f;
  if (std::optional<std::string> context_error = fit_figures(model, gpu, request, basis, f, &res.kv, figure_set)) {
    throw InputError(std::move(*context_error));
  }
  res.model_id = model.id;
  res.gpu_id = gpu.id;
  res.gpu_vendor = gpu.vendor;
  res.request = request;
  const WeightFormats& formats = basis->formats;
  res.request.weight_formats = formats;
  res.request.embeddings_dtype = formats[WeightPart::embedding].element;
  res.request.block_tokens = f.block_tokens;
  res.formats_as_shipped = basis->formats_as_shipped;
  res.params = basis->totals.params;
  res.model_weight_bytes = basis->model_weight_bytes;
  res.weights = f.weights;
  // An omni model's files also hold parts the engines skip: their total is no check on the
  // weights here, and is not shown beside them (the note says why).
  if (model.checkpoint_unloaded_parts.empty()) {
    res.checkpoint_bytes = model.checkpoint_bytes;
  }
  // A float32 checkpoint stores each part served in 16 bits at twice those bytes, and a quantized
  // part as served: a bitsandbytes int8 checkpoint saved with torch_dtype float32 keeps its
  // embeddings, LM head and norms in float32 beside the int8 layers (helper s58, Llama-3.1-8B).
  double stored_bytes = 0;
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const DType served = formats.parts[i].element;
    const bool widened = model.stored_float32 && (served == DType::bf16 || served == DType::fp16);
    stored_bytes += res.model_weight_bytes[i] * (widened ? 2.0 : 1.0);
  }
  const double total_bytes = res.model_weight_total_bytes();
  res.expected_checkpoint_bytes = stored_bytes;
  const double stored = total_bytes > 0 ? stored_bytes / total_bytes : 1.0;
  if (model.checkpoint_bytes) {
    const MtpBytes mtp = mtp_weight_bytes(model, formats);
    res.mtp_checkpoint_bytes = {.layers = mtp.layers * stored, .copies = mtp.copies * stored};
    // Checkpoint files holding far more than the layout read from config.json (MTP layers and
    // their copies allowed for) mean a part of the model is not counted: a verdict on the computed
    // weights can say FITS where the model does not (CogVLM2-19B read as a Llama: 26.3 GB
    // computed, 39.0 GB in its index, FITS on an A100-40GB, helper s52 F1). Sizing from the
    // index's total instead would need to know which layers the missing bytes belong to (the
    // split across TP, PP and the embedding), so no verdict is given. Below the threshold it is
    // a note (memory notes, kCheckpointGapShare).
    const double counted = res.expected_checkpoint_bytes + res.mtp_checkpoint_bytes.layers +
                           res.mtp_checkpoint_bytes.copies;
    if (res.formats_as_shipped && model.checkpoint_unloaded_parts.empty() &&
        counted < *model.checkpoint_bytes * (1.0 - kCheckpointRefuseShare)) {
      throw InputError(fmt::format("{}: the weights computed from config.json ({:.2f} GB) are {:.1f} % below the "
                                   "checkpoint files' total ({:.2f} GB, safetensors index): a part of the model is "
                                   "not counted (model_type \"{}\"), so a verdict on the computed weights could say "
                                   "FITS where the model does not; gpuplan gives none",
                                   model.origin.empty() ? model.id : model.origin,
                                   res.expected_checkpoint_bytes / units::kGB,
                                   100.0 * (1.0 - res.expected_checkpoint_bytes / *model.checkpoint_bytes),
                                   *model.checkpoint_bytes / units::kGB,
                                   model.model_type.empty() ? "(none)" : model.model_type));
    }
  }
  res.concurrency_per_replica = f.concurrency_per_replica;
  res.activations = f.activations;
  res.mig = f.mig;
  res.per_gpu = f.per_gpu;
  res.kv_known = f.kv != nullptr;
  if (res.kv_known) {
    res.kv_bytes_per_token = basis->kv_bytes_per_token;
    res.kv_bytes_per_token_per_gpu = f.kv_bytes_per_token_per_gpu;
  }
  res.engine = std::move(f.engine);
  res.weights_fit = f.weights_fit;
  res.sequence_kv_bytes_per_gpu = f.sequence_kv_bytes_per_gpu;
  res.max_concurrent_sequences = f.max_concurrent_sequences;
  res.max_context_tokens = f.max_context_tokens;
  res.max_context_limited_by_model = f.max_context_limited_by_model;
  res.model_context_source = model.context_limit_source();
  res.fits = f.fits;
  res.no_engine_runs = f.no_engine_runs;
  res.datasheet_total_bytes = f.datasheet_total_bytes;
  res.capacity_total_bytes = f.capacity_total_bytes;
  return res;
}

void add_max_context(FitResult& result, const ModelSpec& model) {
  if (result.kv_known) {
    result.max_context_tokens =
        longest_context(model, counted_shape(result.kv, result.engine, result.request), result.per_gpu.kv_budget_bytes,
                        result.concurrency_per_replica,
                        result.request.block_tokens, result.max_context_limited_by_model);
  }
}

void annotate_fit(FitResult& result, const ModelSpec& model, const GpuSpec& gpu) {
  result.formats_text = describe_formats(model, *result.request.weight_formats, result.params);
  add_notes(result, model, gpu);
}

void annotate_fit(FitResult& result, const ModelSpec& model, const GpuSpec& gpu, FitBasis& basis) {
  // The formats text depends on the model and formats alone: written once for the basis.
  if (!basis.formats_text) {
    basis.formats_text = describe_formats(model, basis.formats, basis.totals.params);
  }
  result.formats_text = *basis.formats_text;
  add_notes(result, model, gpu);
}

}  // namespace detail

namespace {

/// The engine sizes its cache, then runs out of memory allocating what it keeps outside its share
/// (EngineMemory::outside_short).
std::string outside_share_problem(const EngineMemory& e) {
  const double gib = units::kGiB;
  const double fits = largest_share_leaving(e, e.outside_need_bytes);
  const bool vllm = e.engine == Engine::vllm;
  const std::string lower =
      fits >= 0.01 ? fmt::format("--{} {:.2f} or less", vllm ? "gpu-memory-utilization" : "mem-fraction-static", fits)
                   : std::string("no lower share");
  if (vllm && e.eager) {
    return fmt::format(
        "vLLM sizes its KV cache, then runs out of memory: even with --enforce-eager (no CUDA graphs) an eager start "
        "allocates about {:.2f} GiB above gpu_memory_utilization after sizing (NCCL's point-to-point buffers, "
        "allocator slack; DeepSeek-V3 issue #205 ran out eager with about 0 GiB left), and {:.2f} GiB is left there "
        "(less the CUDA context and --memory-in-use); {} starts",
        e.outside_need_bytes / gib, std::max(e.outside_free_bytes, 0.0) / gib, lower);
  }
  if (vllm) {
    // --enforce-eager is a remedy only where an eager start has its own margin above the share
    // (kVllmEagerOutsideBytes, engine_memory.cpp): at 0.98 of a 24 GB card nothing is left.
    const double eager_left = e.outside_free_bytes - e.eager_outside_need_bytes;
    const std::string eager =
        eager_left >= 0 ? fmt::format(", as does --enforce-eager (no graphs, slower decode; it leaves {:.2f} GiB "
                                      "above the share, {:.2f} GiB more than an eager start allocates there)",
                                      std::max(e.outside_free_bytes, 0.0) / gib, eager_left / gib)
                        : fmt::format("; --enforce-eager alone does not: {:.2f} GiB left above the share is under the "
                                      "{:.2f} GiB an eager start still allocates there (DeepSeek-V3 issue #205 ran "
                                      "out of memory eager at 0.98)",
                                      std::max(e.outside_free_bytes, 0.0) / gib, e.eager_outside_need_bytes / gib);
    return fmt::format(
        "vLLM sizes its KV cache, then runs out of memory capturing CUDA graphs: {:.2f} GiB is left above "
        "gpu_memory_utilization {:.3f} (less the CUDA context and --memory-in-use) and its graphs need about {:.2f} "
        "GiB{}; {} starts{}",
        std::max(e.outside_free_bytes, 0.0) / gib, e.share, e.outside_need_bytes / gib,
        e.outside_nccl_graphs ? " (0.6 GB of it NCCL's buffers, which V0 captures into each graph with TP over more "
                                "than two PCIe GPUs or across nodes: vllm PR #2192 measured 0.6-1.0 GB at TP 2-4)"
                              : "",
        lower, eager);
  }
  // The request-to-token table grows with --context-length (sglang#5755: 80.04 GiB at Llama 4's
  // 10M tokens); where it is most of the need, a lower share does not help and the flags that do
  // are named.
  if (e.req_to_token_bytes > 0.5 * e.outside_need_bytes) {
    const double others = e.outside_need_bytes - e.req_to_token_bytes;
    const double room = std::max(e.outside_free_bytes, 0.0) - others;
    const double row = e.req_to_token_bytes / d(e.req_to_token_requests + 1);
    const std::uint64_t requests = room > row ? static_cast<std::uint64_t>(std::floor(room / row)) - 1 : 0;
    return fmt::format(
        "SGLang sizes its token pool, then runs out of memory allocating its request-to-token table: {} requests "
        "(+ 1) x {} tokens (+ 4) of int32 slots, {:.2f} GiB, with {:.2f} GiB left outside mem_fraction_static {:.3f} (of {:.2f} "
        "GiB free at start) and {:.2f} GiB of that taken by its other terms (prefill activations, CUDA graphs, "
        "attention metadata); a lower --context (SGLang's --context-length){} starts (sglang issue #5755){}",
        detail::group_digits(e.req_to_token_requests), detail::group_digits(e.req_to_token_context), e.req_to_token_bytes / gib,
        std::max(e.outside_free_bytes, 0.0) / gib, e.share, e.start_free_bytes / gib, others / gib,
        requests > 0 ? fmt::format(", or --max-running-requests {} or fewer,", requests) : std::string(),
        fits >= 0.01 ? fmt::format("; so does {}", lower) : std::string());
  }
  return fmt::format("SGLang sizes its token pool, then runs out of memory: {:.2f} GiB is left outside "
                     "mem_fraction_static {:.3f} (of {:.2f} GiB free at start) for what it allocates after the pool, "
                     "{:.2f} GiB here (prefill activations of a {}-token chunk, CUDA graphs up to batch {}, attention "
                     "metadata, its request-to-token table); {} starts, as does --disable-cuda-graph with a smaller "
                     "--chunked-prefill-size",
                     std::max(e.outside_free_bytes, 0.0) / gib, e.share, e.start_free_bytes / gib,
                     e.outside_need_bytes / gib, detail::group_digits(e.batched_tokens), e.max_seqs, lower);
}

}  // namespace

std::string prefill_chunk_blame(const FitResult& f) {
  // "activations 360.78 GB" named no flag when --prefill-chunk 4096k (4M tokens) was typed for 4K,
  // and no change of GPUs or formats helps (helper s57 badinput F6).
  const double over = std::max(f.per_gpu.shortfall_bytes, f.per_gpu.fixed_over_cap_bytes);
  if (!(over > 0.0) || !(f.activations.prefill > 0.5 * over) || !(f.per_gpu.activation_bytes >= f.activations.prefill)) {
    return "";
  }
  return fmt::format(" (a --prefill-chunk of {} tokens)", f.request.prefill_chunk_tokens);
}

std::string reserve_blame(const FitResult& f) {
  // "reserve 37.02 GB" named neither the state cache nor its flag (review s64).
  if (!f.engine || !(f.engine->v0_state_cache_bytes > 0)) {
    return "";
  }
  return fmt::format(" (vLLM V0's recurrent-state cache of {} sequences, {:.2f} GB of it; --max-num-seqs sets it)",
                     f.engine->v0_state_slots, f.engine->v0_state_cache_bytes / units::kGB);
}

std::optional<std::string> engine_start_problem(const FitResult& f) {
  if (f.no_engine_runs) {
    return f.no_engine_runs;
  }
  if (f.engine && f.engine->trtllm_resmooth_short()) {
    const EngineMemory& e = *f.engine;
    return fmt::format("TensorRT-LLM runs out of memory loading the weights: on Blackwell it rescales each 128x128 "
                       "block-FP8 linear to E8M0 scales after loading, through fp32 copies of the tensor ({:.2f} GiB "
                       "for the largest here), and keeps the FP8 tensors it replaces until the load ends ({:.2f} GiB "
                       "in all): {:.2f} GiB beyond the weights where {:.2f} GiB is free after them (1.2.0rc7 failed so "
                       "with Qwen3-8B-FP8 on a 16 GB RTX 5080); TensorRT-LLM from 1.3 rescales in place (PR #10327), "
                       "or a GPU with more memory free loads it",
                       e.trtllm_resmooth_transient_bytes / units::kGiB,
                       (e.trtllm_resmooth_peak_bytes - e.trtllm_resmooth_transient_bytes) / units::kGiB,
                       e.trtllm_resmooth_peak_bytes / units::kGiB, e.trtllm_resmooth_free_bytes / units::kGiB);
  }
  if (f.engine && f.engine->trtllm_refused_prompt_tokens > 0) {
    const EngineMemory& e = *f.engine;
    return fmt::format("TensorRT-LLM refuses prompts longer than max_num_tokens ({} tokens) with chunked "
                       "prefill off, trtllm-serve's default: a {}-token prompt{} is refused; turn chunked prefill on "
                       "(enable_chunked_prefill: true in --extra_llm_api_options; --enable-chunked-prefill here) or "
                       "raise max_num_tokens to the prompt (--prefill-chunk {})",
                       detail::group_digits(e.batched_tokens), detail::group_digits(e.trtllm_refused_prompt_tokens),
                       f.request.prompt_tokens > 0 ? "" : " (the whole context, as fit takes the longest prompt)",
                       e.trtllm_refused_prompt_tokens);
  }
  if (f.engine && f.engine->outside_short() && !f.engine->in_use_blocks_start) {
    return outside_share_problem(*f.engine);
  }
  // SGLang starts whatever its token pool holds and caps a request at the pool less one token
  // (max_req_len = min(context_len, max_total_num_tokens) - 1, tp_worker.py; sglang#4048: "Input
  // length (160062 tokens) exceeds the maximum allowed length (59862 tokens)" with 60,530 in the pool).
  if (f.engine && f.engine->engine == Engine::sglang && f.engine->kv_tokens > 0 &&
      f.request.context_tokens > f.engine->kv_tokens) {
    const std::uint64_t longest = f.engine->kv_tokens - 1;
    return fmt::format("SGLang starts, but its token pool holds {} tokens: it rejects prompts longer than about {} "
                       "tokens (\"exceeds the maximum allowed length\"; --allow-auto-truncate cuts them instead) and "
                       "ends a request at {} tokens, short of the {}-token context",
                       detail::group_digits(f.engine->kv_tokens), detail::group_digits(longest),
                       detail::group_digits(longest), detail::group_digits(f.request.context_tokens));
  }
  if (f.engine && f.engine->state_pool_full(f.concurrency_per_replica)) {
    return fmt::format("SGLang's linear-attention state pool holds {} slots, 3 per running request with its radix "
                       "cache: {} running requests per replica, not {} (SGLang's --max-mamba-cache-size or "
                       "--mamba-full-memory-ratio moves memory from its token pool to it)",
                       f.engine->state_slots, f.engine->state_requests, f.concurrency_per_replica);
  }
  if (f.engine && f.engine->aiter_workspace_short()) {
    const EngineMemory& e = *f.engine;
    return fmt::format("SGLang's AITER decode workspace, {:.2f} GiB for {} requests at a context of {} tokens, is "
                       "allocated after the KV pool and does not fit the {:.2f} GiB the pool leaves (1 - "
                       "mem_fraction_static {:.3f}): the server stops out of memory at start (sglang issue #18262); "
                       "a lower --mem-fraction-static or --context, or SGLang's --max-running-requests, starts",
                       e.aiter_workspace_bytes / units::kGiB, e.aiter_workspace_requests,
                       f.request.context_tokens, e.aiter_free_after_pool_bytes / units::kGiB, e.share);
  }
  if (f.engine && f.engine->in_use_blocks_start) {
    const EngineMemory& e = *f.engine;
    const double gib = units::kGiB;
    const std::string head = fmt::format("vLLM refuses to start: {:.2f} GiB free at start (the total less --memory-in-use "
                                         "and the CUDA context) is less than its share, {:g} x {:.2f} GiB = {:.2f} GiB",
                                         e.in_use_start_free_bytes / gib, e.share, e.total_bytes / gib,
                                         e.share * e.total_bytes / gib);
    const double passes = std::floor(e.in_use_start_free_bytes / e.total_bytes * 100.0) / 100.0;
    // The share must also hold the weights and the profiling run, or vLLM stops for want of
    // cache blocks instead; --gpu-memory-utilization takes 0.01 to 1.
    const double holds =
        (e.weights_bytes + std::max(e.activation_bytes, e.sampler_bytes) + e.non_torch_bytes + e.cuda_graph_bytes) /
        e.total_bytes;
    if (passes < 0.01 || passes <= holds) {
      return fmt::format("{}; no --gpu-memory-utilization starts: {:.2f} at most passes this check, and the weights, "
                         "profiling run and CUDA graphs take {:.2f} of the total",
                         head, std::max(passes, 0.0), holds);
    }
    return fmt::format("{}; --gpu-memory-utilization {:.2f} or less starts", head, passes);
  }
  if (!f.engine || !f.engine->state_blocks_below_seqs) {
    return std::nullopt;
  }
  const std::uint64_t blocks = f.engine->state_block_ceiling;
  const std::uint64_t high = f.engine->state_block_ceiling_high;
  if (high > blocks) {
    return fmt::format("vLLM keeps one block of linear-attention state per sequence and has {} to {} blocks for "
                       "max_num_seqs {} (the fewer with its PyTorch-native sampler's 28.7 bytes a logit, the more at "
                       "FlashInfer's 16: the native path masks top-k/top-p with a Triton kernel from v0.16.1, vllm PR "
                       "#33538, whose peak no log here pins down); --max-num-seqs {} or fewer would start, up to {} "
                       "may (or --enforce-eager: the check guards its decode CUDA graphs)",
                       blocks, high, f.engine->max_seqs, blocks, std::min(high, f.engine->max_seqs - 1));
  }
  return fmt::format("vLLM keeps one block of linear-attention state per sequence and has {} blocks for "
                     "max_num_seqs {}; --max-num-seqs {} or fewer would start (or --enforce-eager: the check guards "
                     "its decode CUDA graphs)",
                     blocks, f.engine->max_seqs, blocks);
}

FitResult fit(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request) {
  std::optional<detail::FitBasis> basis;
  FitResult res = detail::fit_numbers(model, gpu, request, basis);
  detail::annotate_fit(res, model, gpu);
  return res;
}

}  // namespace gpuplan
