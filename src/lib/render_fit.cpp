// render_fit(): the fit result as a table/csv/markdown document or as the JSON contract
// documented in README.md ("JSON output of fit").
#include <gpuplan/render.hpp>
#include <gpuplan/render_json_lines.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "detail/document.hpp"
#include "detail/json_envelope.hpp"
#include "detail/json_writer.hpp"

namespace gpuplan {
namespace {

using detail::bytes_value;
using detail::per_sequence_bytes_value;
using detail::checked;
using detail::group_digits;

std::string layout_text(const Layout& l) {
  return fmt::format("TP {}, PP {}, EP {}, DP {}{}", l.tp, l.pp, l.ep, l.dp, detail::expert_groups_text(l));
}

std::string target_text(const FitResult& r) {
  const std::string slice = r.request.mig_profile.empty()
                                ? std::string()
                                : fmt::format(" MIG {}", r.request.mig_profile);
  return fmt::format("{} x {}{}", r.request.layout.gpus(), r.gpu_id, slice);
}

std::string weight_part_label(WeightPart part) {
  switch (part) {
    case WeightPart::embedding: return "embedding";
    case WeightPart::lm_head: return "LM head";
    case WeightPart::attention: return "attention";
    case WeightPart::dense_mlp: return "dense MLP";
    case WeightPart::routed_experts: return "routed experts";
    case WeightPart::shared_experts: return "shared experts";
    case WeightPart::router: return "router";
    case WeightPart::norms: return "norms";
    case WeightPart::vision: return "vision/audio encoders";
  }
  return "?";
}

std::string params_text(double params) { return fmt::format("{:.2f} B", params / units::kGiga); }

std::string engine_label(Engine e) {
  switch (e) {
    case Engine::vllm: return "vLLM";
    case Engine::sglang: return "SGLang";
    case Engine::trtllm: return "TensorRT-LLM";
    case Engine::neutral: break;
  }
  return "none";
}

double gib(double bytes) { return bytes / units::kGiB; }

/// The KV budget in the engine's own words, as its startup log prints it (GiB, always).
std::vector<std::string> engine_log_lines(const FitResult& r) {
  const EngineMemory& e = *r.engine;
  const std::uint64_t ctx = r.request.context_tokens;
  const double concurrency = e.max_concurrency;
  // Weights beyond the whole GPU: every engine runs out of memory while loading them, before it
  // sizes (or logs) a KV cache.
  if (e.weights_bytes > e.total_bytes && e.engine != Engine::neutral) {
    return {fmt::format("torch.OutOfMemoryError: {} out of memory while loading the weights ({:.2f} GiB per GPU on "
                        "a {:.2f} GiB GPU; the engine fails before sizing its KV cache)",
                        r.gpu_vendor == "amd" ? "HIP" : "CUDA", gib(e.weights_bytes), gib(e.total_bytes))};
  }
  switch (e.engine) {
    case Engine::vllm:
      if (e.kv_tokens == 0) {  // vLLM refuses to start
        return {fmt::format("Available KV cache memory: {:.2f} GiB", gib(e.kv_bytes)),
                "No available memory for the cache blocks (the engine fails to start)"};
      }
      if (e.asked_max_model_len_kv_bytes > 0) {
        // One request of --max-model-len does not fit: vLLM raises after sizing the cache and
        // before it logs the cache's tokens and concurrency (V1: kv_cache_utils.py
        // check_enough_kv_cache_memory @001cabc1; V0: worker.py raise_if_cache_size_invalid),
        // so those lines are never printed (helper s53 logs F7).
        if (e.vllm_v0) {
          return {fmt::format("# GPU blocks: {}", e.blocks()),
                  fmt::format("ValueError: The model's max seq len ({}) is larger than the maximum number of tokens "
                              "that can be stored in KV cache ({}) (the engine fails to start)",
                              ctx, e.kv_tokens)};
        }
        return {fmt::format("Available KV cache memory: {:.2f} GiB", gib(e.kv_bytes)),
                fmt::format("ValueError: To serve at least one request with the models's max seq len ({}), ({:.2f} GiB "
                            "KV cache is needed, which is larger than the available KV cache memory ({:.2f} GiB) (the "
                            "engine fails to start)",
                            ctx, gib(e.asked_max_model_len_kv_bytes), gib(e.kv_bytes))};
      }
      {
        std::vector<std::string> lines;
        if (!e.vllm_v0) {
          // V1's hybrid allocator: a warning for each kind of layer whose last group it pads, and
          // the block and page it sets for linear-attention state.
          const VllmKvGroups groups = vllm_kv_groups(r.kv, e.block_tokens);
          for (const auto& k : groups.kinds) {
            if (k.padding > 0) {
              const double share = static_cast<double>(k.padding) / static_cast<double>(k.layers);
              lines.push_back(fmt::format("Add {} padding layers, may waste at most {:.2f}% KV cache memory",
                                          k.padding, 100.0 * share));
            }
          }
          if (e.block_holds_state) {
            lines.push_back(fmt::format("Setting attention block size to {} tokens to ensure that attention page "
                                        "size is >= mamba page size.",
                                        e.block_tokens));
          }
          if (groups.state_padding > 0) {
            lines.push_back(fmt::format("Padding mamba page size by {:.2f}% to ensure that mamba page size and attention "
                                        "page size are exactly equal.",
                                        100.0 * groups.state_padding));
          }
        }
        if (e.stage_kv_bytes.size() > 1) {
          // Each pipeline stage's worker logs its own budget; the engine keeps the fewest blocks.
          for (std::size_t i = 0; i < e.stage_kv_bytes.size(); ++i) {
            lines.push_back(fmt::format("Available KV cache memory: {:.2f} GiB (PP stage {}{})", gib(e.stage_kv_bytes[i]),
                                        i, i == e.binding_stage ? ", the binding one" : ""));
          }
        } else {
          lines.push_back(fmt::format("Available KV cache memory: {:.2f} GiB", gib(e.kv_bytes)));
        }
        lines.push_back(e.vllm_v0 ? fmt::format("# GPU blocks: {}", e.blocks())
                                  : fmt::format("GPU KV cache size: {} tokens", group_digits(e.logged_kv_tokens)));
        lines.push_back(
            fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", group_digits(ctx), concurrency));
        if (e.state_blocks_below_seqs) {
          lines.push_back(fmt::format("ValueError: max_num_seqs ({}) exceeds available Mamba cache blocks ({}) (the "
                                      "engine fails to start)",
                                      e.max_seqs, e.state_block_ceiling));
        }
        return lines;
      }
    case Engine::sglang: {
      // SGLang writes GiB as "GB"; an MLA cache is one latent ("KV size"), others K and V halves.
      const double kv = gib(std::max(0.0, e.kv_bytes));
      if (e.kv_tokens == 0) {  // model_runner.py refuses a pool of no tokens
        return {fmt::format("mem_fraction_static={:.3f}", e.share),
                fmt::format("Load weight begin. avail mem={:.2f} GB", gib(e.start_free_bytes)),
                "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. (the engine fails to "
                "start)"};
      }
      std::vector<std::string> lines{fmt::format("mem_fraction_static={:.3f}", e.share),
                                     fmt::format("Load weight begin. avail mem={:.2f} GB", gib(e.start_free_bytes))};
      if (e.state_slot_bytes > 0) {
        lines.push_back(fmt::format("Mamba Cache is allocated. max_mamba_cache_size: {}, conv_state size: {:.2f}GB, "
                                    "ssm_state size: {:.2f}GB",
                                    e.state_slots, gib(e.state_conv_bytes), gib(e.state_pool_bytes - e.state_conv_bytes)));
      }
      lines.push_back(r.kv.kv_heads_per_gpu == 0
                          ? fmt::format("KV Cache is allocated. #tokens: {}, KV size: {:.2f} GB", e.kv_tokens, kv)
                          : fmt::format("KV Cache is allocated. #tokens: {}, K size: {:.2f} GB, V size: {:.2f} GB",
                                        e.kv_tokens, kv / 2.0, kv / 2.0));
      lines.push_back(e.state_slot_bytes > 0 ? fmt::format("max_total_num_tokens={}, max_running_requests<={}",
                                                           e.kv_tokens, e.state_requests)
                                             : fmt::format("max_total_num_tokens={}", e.kv_tokens));
      return lines;
    }
    case Engine::trtllm:
      if (e.kv_tokens == 0 && e.page_cache_bytes > 0) {
        // On unified memory what is left depends on how much page cache the kernel evicted.
        return {fmt::format("kv_cache_free_gpu_mem_fraction {:.2f}: no memory is free after weights and warm-up "
                            "while the page cache keeps the checkpoint (the engine starts with what the kernel "
                            "evicted, or fails)",
                            e.share)};
      }
      if (e.kv_tokens == 0) {
        return {fmt::format("kv_cache_free_gpu_mem_fraction {:.2f}: no memory is free after weights and warm-up "
                            "(the engine fails to start)",
                            e.share)};
      }
      return {fmt::format("kv_cache_free_gpu_mem_fraction {:.2f} of {:.2f} GiB free after weights and warm-up",
                          e.share,
                          gib(e.start_free_bytes - e.weights_bytes - e.activation_bytes - e.cuda_graph_bytes -
                              e.trtllm_runtime_buffer_bytes - e.page_cache_bytes)),
              fmt::format("[MemUsageChange] Allocated {:.2f} GiB for max tokens in paged KV cache ({}).",
                          gib(std::max(0.0, e.kv_bytes)), e.kv_tokens)};
    case Engine::neutral: break;
  }
  return {};
}

detail::Table engine_table(const FitResult& r, ByteUnits u, bool plain_numbers) {
  const EngineMemory& e = *r.engine;
  const auto count = [plain_numbers](std::uint64_t v) {
    return plain_numbers ? std::to_string(v) : group_digits(v);
  };
  const std::string unit(detail::unit_name(u));
  detail::Table t{.title = fmt::format("{} memory arithmetic (per GPU)", engine_label(e.engine)),
                  .header = {"term", "value"},
                  .rows = {}};
  const auto bytes = [&](std::string label, double v) {
    t.rows.push_back({fmt::format("{} ({})", label, unit), v < 0 ? "-" + bytes_value(-v, u) : bytes_value(v, u)});
  };
  t.rows.push_back({e.share_name, fmt::format("{:.3f}{}", e.share, e.share_default ? " (default)" : "")});
  const bool vllm = e.engine == Engine::vllm;
  const bool sglang = e.engine == Engine::sglang;
  t.rows.push_back({vllm ? "max_num_batched_tokens" : sglang ? "chunked_prefill_size" : "max_num_tokens",
                    count(e.batched_tokens)});
  t.rows.push_back({vllm ? "max_num_seqs" : sglang ? "cuda_graph_max_bs" : "max_batch_size", count(e.max_seqs)});
  bytes("GPU total", e.total_bytes);
  if (!vllm) {
    bytes("free at start", e.start_free_bytes);
  }
  bytes("weights", e.weights_bytes);
  bytes(sglang ? "prefill activations (outside the fraction)" : "peak activation (profiling forward)",
        e.activation_bytes);
  if (e.req_to_token_bytes > 0) {
    bytes("request-to-token table (outside the fraction)", e.req_to_token_bytes);
  }
  if (vllm && e.v0_state_cache_bytes > 0) {
    bytes(fmt::format("recurrent-state cache (V0, {} sequences)", e.v0_state_slots), e.v0_state_cache_bytes);
  }
  if (vllm) {
    bytes("sampler profiling run", e.sampler_bytes);
    bytes("non-torch (NCCL, cuBLAS)", e.non_torch_bytes);
    bytes("CUDA graphs", e.cuda_graph_bytes);
  } else {
    bytes("CUDA context, NCCL, workspaces", e.non_torch_bytes);
    if (e.engine == Engine::trtllm && e.cuda_graph_bytes > 0) {
      bytes("CUDA graphs (captured before the peak is read)", e.cuda_graph_bytes);
    }
    if (e.trtllm_estimation_cache_bytes > 0) {
      bytes("temporary KV cache of the estimation (freed)", e.trtllm_estimation_cache_bytes);
    }
    if (e.trtllm_runtime_buffer_bytes > 0) {
      bytes("runtime and decoder buffers (max_batch_size)", e.trtllm_runtime_buffer_bytes);
    }
  }
  if (e.page_cache_bytes > 0) {
    bytes("page cache of the checkpoint (unified memory)", e.page_cache_bytes);
  }
  if (e.state_slot_bytes > 0) {
    bytes("linear-attention state pool", e.state_pool_bytes);
    t.rows.push_back({"state slots (max_mamba_cache_size)", count(e.state_slots)});
    t.rows.push_back({"running requests the state pool admits (3 slots each)", count(e.state_requests)});
  }
  bytes("KV cache", e.kv_bytes);
  t.rows.push_back({e.kv_capped ? fmt::format("KV cache tokens (capped by {})",
                                               e.engine == Engine::sglang ? "max_total_tokens" : "max_tokens")
                                 : std::string("KV cache tokens"),
                    count(e.kv_tokens)});
  return t;
}

/// "TP 8 EP 8", "TP 2 DP 4", "TP 1": the degrees above one, TP always.
std::string layout_short(const Layout& l) {
  std::string out = fmt::format("TP {}", l.tp);
  for (const auto& [name, value] : {std::pair{"PP", l.pp}, {"DP", l.dp}, {"EP", l.ep}}) {
    if (value > 1) {
      out += fmt::format(" {} {}", name, value);
    }
  }
  return out;
}

/// `automatic`: the heading's word on how the layout was chosen, when not by the default rule.
detail::Document fit_document(const FitResult& r, ByteUnits u, bool plain_numbers,
                              std::optional<std::string> automatic = std::nullopt) {
  // CSV cells hold plain numbers; people read grouped digits.
  const auto count = [plain_numbers](std::uint64_t v) {
    return plain_numbers ? std::to_string(v) : group_digits(v);
  };
  const FitRequest& q = r.request;
  const PerGpuMemory& m = r.per_gpu;
  const std::string unit(detail::unit_name(u));
  detail::Document doc;
  if (!automatic) {
    automatic = !r.layout_automatic || q.layout.gpus() == 1 ? ""
                : r.fits                                    ? ", smallest layout that fits"
                                                            : ", widest layout tried: none fits";
  }
  doc.heading.push_back(fmt::format("gpuplan fit: {} on {} ({}{})", r.model_id, target_text(r),
                                    layout_text(q.layout), *automatic));
  doc.heading.push_back(fmt::format(
      "weights {}{}, KV cache {}, context {} tokens, concurrency {} "
      "({} per replica)",
      r.formats_as_shipped ? "as shipped: " : "", r.formats_text, to_string(q.kv_dtype),
      group_digits(q.context_tokens), group_digits(q.concurrency),
      group_digits(r.concurrency_per_replica)));
  doc.heading.push_back(fmt::format("parameters {} total, {} active; sizes in {} ({})",
                                    params_text(r.params.total()), params_text(r.params.active()),
                                    unit, u == ByteUnits::gib ? "2^30 bytes" : "1e9 bytes"));
  doc.heading.push_back(
      r.engine ? fmt::format("memory: {}'s own KV-cache arithmetic ({} {:.3f})", engine_label(r.engine->engine),
                             r.engine->share_name, r.engine->share)
               : "memory: engine-neutral estimate (--engine vllm|sglang|trtllm applies that engine's arithmetic)");

  if (plain_numbers) {
    // CSV has no heading lines, so the inputs and the verdict travel as a table of their own.
    detail::Table inputs{.title = "Inputs", .header = {"input", "value"}, .rows = {}};
    inputs.rows.push_back({"model", r.model_id});
    inputs.rows.push_back({"gpu", r.gpu_id});
    inputs.rows.push_back({"mig_profile", q.mig_profile.empty() ? "-" : q.mig_profile});
    inputs.rows.push_back({"gpus", std::to_string(q.layout.gpus())});
    inputs.rows.push_back({"tp", std::to_string(q.layout.tp)});
    inputs.rows.push_back({"pp", std::to_string(q.layout.pp)});
    inputs.rows.push_back({"ep", std::to_string(q.layout.ep)});
    inputs.rows.push_back({"dp", std::to_string(q.layout.dp)});
    inputs.rows.push_back({"weights_dtype", std::string(to_string(q.weights_dtype))});
    inputs.rows.push_back({"weight_formats", r.formats_text});
    inputs.rows.push_back({"weights_as_shipped", r.formats_as_shipped ? "true" : "false"});
    inputs.rows.push_back({"embeddings_dtype", std::string(to_string(*q.embeddings_dtype))});
    inputs.rows.push_back({"kv_dtype", std::string(to_string(q.kv_dtype))});
    inputs.rows.push_back({"context_tokens", std::to_string(q.context_tokens)});
    inputs.rows.push_back({"concurrency", std::to_string(q.concurrency)});
    inputs.rows.push_back({"fits", r.fits ? "true" : "false"});
    doc.tables.push_back(std::move(inputs));
  }
  detail::Table per_gpu{.title = "Per GPU", .header = {"memory", unit}, .rows = {}};
  const auto row = [&](std::string label, double bytes) {
    per_gpu.rows.push_back({std::move(label), bytes_value(bytes, u)});
  };
  std::string capacity_label = "capacity";
  if (r.mig) {
    capacity_label += r.mig->estimated ? " (MIG slice, estimated)" : " (MIG slice)";
  }
  row(capacity_label, m.capacity_bytes);
  row(r.engine ? fmt::format("engine cap ({} arithmetic)", engine_label(r.engine->engine))
               : fmt::format("engine cap ({:.0f} % of capacity)", q.memory_utilization * 100.0),
      m.engine_cap_bytes);
  row("weights", m.weights_bytes);
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    const double part_bytes = r.weights.parts[i];
    if (part_bytes > 0) {
      // A bare parameter count has no parts: its weights are all the model's.
      row(fmt::format("  {} ({})", r.kv_known ? weight_part_label(part) : std::string("all parameters"),
                      part == WeightPart::norms ? std::string(to_string(q.weight_formats->vectors))
                                                : to_string((*q.weight_formats)[part])),
          part_bytes);
    }
  }
  if (r.engine && r.engine->weight_padding_bytes > 0) {
    row(r.engine->engine == Engine::trtllm
            ? std::string("  MXFP4 experts padded for TensorRT-LLM's MoE kernel")
            : fmt::format("  MXFP4 experts as vLLM's {} MoE kernel holds them", to_string(r.engine->mxfp4_backend)),
        r.engine->weight_padding_bytes);
  }
  row(r.engine    ? "activations (engine's profiling peak)"
      : r.kv_known ? "activations (prefill chunk + logits)"
                   : "activations (unknown without an architecture)",
      m.activation_bytes);
  row(!r.engine                                ? "runtime reserve"
      : r.engine->state_slot_bytes > 0 ? "linear-attention state pool (SGLang)"
      : r.engine->v0_state_cache_bytes > 0 ? "non-torch memory, recurrent-state cache (V0)"
                                           : "non-torch memory, CUDA graphs",
      m.reserve_bytes);
  row("KV budget", m.kv_budget_bytes);
  if (r.kv_known) {
    row(fmt::format("KV cache ({} x {} tokens)", group_digits(r.concurrency_per_replica),
                    group_digits(q.context_tokens)),
        m.kv_cache_bytes);
  }
  row("free", m.free_bytes);
  if (m.shortfall_bytes > 0) {
    // Two significant digits under 0.005: a shortfall of a few tokens' KV had read "0.00" beside
    // DOES NOT FIT (Qwen3-32B-AWQ on an RTX 4090, 16 tokens short: helper s56 configs F1).
    per_gpu.rows.push_back({"short by", per_sequence_bytes_value(m.shortfall_bytes, u)});
  }
  doc.tables.push_back(std::move(per_gpu));

  detail::Table kv{.title = "KV cache and headroom", .header = {"quantity", "value"}, .rows = {}};
  if (r.kv_known) {
    kv.rows.push_back({"KV bytes per token (model, all layers)",
                       count(static_cast<std::uint64_t>(r.kv_bytes_per_token))});
    kv.rows.push_back({"KV bytes per token per GPU",
                       count(static_cast<std::uint64_t>(r.kv_bytes_per_token_per_gpu))});
    kv.rows.push_back({"KV heads per GPU", r.kv.kv_heads_per_gpu == 0
                                               ? std::string("latent (MLA)")
                                               : std::to_string(r.kv.kv_heads_per_gpu)});
    kv.rows.push_back({"layers per GPU", std::to_string(r.kv.layers_per_gpu() +
                                                        (r.kv.state_beside_attention ? 0 : r.kv.linear_layers) +
                                                        r.kv.mlp_only_layers)});
    if (r.kv.mlp_only_layers > 0) {
      kv.rows.push_back({"MLP-only blocks per GPU (no KV, no state)", std::to_string(r.kv.mlp_only_layers)});
    }
    if (r.kv.linear_layers > 0) {
      kv.rows.push_back({r.kv.state_beside_attention ? "layers with a fixed state beside their KV per GPU"
                                                     : "fixed-state layers per GPU (no per-token KV)",
                         std::to_string(r.kv.linear_layers)});
      kv.rows.push_back({fmt::format("recurrent state per sequence per GPU ({})", unit),
                         per_sequence_bytes_value(r.kv.state_bytes_per_sequence, u)});
    }
    kv.rows.push_back({fmt::format("one sequence per GPU ({})", unit),
                       per_sequence_bytes_value(r.sequence_kv_bytes_per_gpu, u)});
    kv.rows.push_back({fmt::format("max concurrent sequences at {} tokens",
                                   group_digits(q.context_tokens)),
                       count(*r.max_concurrent_sequences)});
    kv.rows.push_back({fmt::format("max context at {} sequence{}", group_digits(q.concurrency),
                                   q.concurrency == 1 ? "" : "s"),
                       count(*r.max_context_tokens)});
    kv.rows.push_back({"max context limited by",
                       r.max_context_limited_by_model   ? fmt::format("model ({})", r.model_context_source)
                       : r.engine && r.engine->kv_capped ? "the KV token cap (--max-kv-tokens)"
                                                         : "memory"});
  } else {
    kv.rows.push_back({"KV cache", "unknown without an architecture"});
  }
  doc.tables.push_back(std::move(kv));

  const std::string what = r.mig ? "MIG slice" : "GPU";
  detail::Table node{.title = fmt::format("Deployment ({} {}{})", q.layout.gpus(), what,
                                          q.layout.gpus() == 1 ? "" : "s"),
                     .header = {"memory", unit},
                     .rows = {}};
  node.rows.push_back({"datasheet memory", bytes_value(r.datasheet_total_bytes, u)});
  node.rows.push_back({"capacity used for fit", bytes_value(r.capacity_total_bytes, u)});
  node.rows.push_back({"weights (per GPU x GPUs)", bytes_value(m.weights_bytes * double(q.layout.gpus()), u)});
  node.rows.push_back({"model weights (one copy)", bytes_value(r.model_weight_total_bytes(), u)});
  if (r.checkpoint_bytes) {
    node.rows.push_back({"checkpoint files (safetensors index)", bytes_value(*r.checkpoint_bytes, u)});
    const double diff = r.expected_checkpoint_bytes - *r.checkpoint_bytes;
    node.rows.push_back({r.expected_checkpoint_bytes > r.model_weight_total_bytes() ? "computed as stored (float32) - checkpoint (bytes)"
                                                                                     : "computed - checkpoint (bytes)",
                         fmt::format("{}{} ({:+.3f} %)", diff < 0 ? "-" : "+",
                                     group_digits(static_cast<std::uint64_t>(std::llround(std::abs(diff)))),
                                     100.0 * diff / *r.checkpoint_bytes)});
  }
  node.rows.push_back({"KV budget (per GPU x GPUs)", bytes_value(m.kv_budget_bytes * double(q.layout.gpus()), u)});
  doc.tables.push_back(std::move(node));
  if (r.engine) {
    doc.tables.push_back(engine_table(r, u, plain_numbers));
  }

  // TensorRT-LLM's two questions apart: whether the server starts (its KV cache, weights and
  // warm-up fit) and the longest prompt it then accepts (max_num_tokens without chunked prefill).
  if (r.engine && r.engine->engine == Engine::trtllm && r.engine->trtllm_refused_prompt_tokens > 0) {
    const EngineMemory& e = *r.engine;
    const bool starts = e.kv_tokens > 0 && r.weights_fit && !e.outside_short();
    doc.footer.push_back(fmt::format(
        "TensorRT-LLM starts: {}; longest prompt accepted: {} tokens (max_num_tokens, chunked prefill off)",
        starts ? fmt::format("yes ({} tokens of KV cache)", group_digits(e.kv_tokens))
               : std::string("no (weights, warm-up and KV cache do not fit)"),
        group_digits(e.batched_tokens)));
  }
  if (r.fits) {
    doc.footer.push_back(fmt::format("verdict: FITS ({} {} of KV budget free per GPU)",
                                     bytes_value(m.free_bytes, u), unit));
  } else if (r.no_engine_runs) {
    doc.footer.push_back(fmt::format("verdict: DOES NOT RUN: {}", *r.no_engine_runs));
  } else if (const std::optional<std::string> start = engine_start_problem(r)) {
    doc.footer.push_back(fmt::format("verdict: DOES NOT FIT: {}", *start));
  } else if (!r.weights_fit) {
    const std::string over = bytes_value(m.fixed_over_cap_bytes, u);
    const std::string short_by = per_sequence_bytes_value(m.shortfall_bytes, u);
    doc.footer.push_back(fmt::format(
        "verdict: DOES NOT FIT: weights, activations and reserve exceed the engine cap by {} {}{}", over, unit,
        short_by == over ? "" : fmt::format(" ({} {} short with this load's KV cache)", short_by, unit)));
  } else {
    doc.footer.push_back(fmt::format(
        "verdict: DOES NOT FIT: the KV cache for this load is {} {} over budget per GPU",
        per_sequence_bytes_value(m.shortfall_bytes, u), unit));
  }
  if (r.engine) {
    if (std::optional<std::string> line = default_max_model_len_line(*r.engine, r.request.context_tokens)) {
      doc.footer.push_back(std::move(*line));
    }
  }
  if (r.engine) {
    // vLLM's figures depend on max_model_len: they assume the request's context is passed as it.
    const std::string assumed = r.engine->engine == Engine::vllm
                                    ? fmt::format(" (--max-model-len {})", r.request.context_tokens)
                                    : std::string();
    for (const auto& line : engine_log_lines(r)) {
      doc.footer.push_back(fmt::format("{} would log{}: {}", engine_label(r.engine->engine), assumed, line));
    }
  }
  for (const auto& n : r.notes) {
    doc.footer.push_back("note: " + n);
  }
  return doc;
}

/// to_string(WeightPart) as member names known when compiled (written without an escaping check;
/// a fit answer has 27 of them).
constexpr std::array<detail::JsonKey, kWeightParts> kPartKeys{
    "embedding", "lm_head", "attention", "dense_mlp", "routed_experts", "shared_experts", "router", "norms", "vision"};

/// std::llround(x) for x >= 0, without the call into libm when x is already whole (byte counts).
std::uint64_t rounded(double x) {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (x < kExact) {
    const auto whole = static_cast<std::uint64_t>(x);
    if (!(x > static_cast<double>(whole))) {
      return whole;
    }
  }
  return static_cast<std::uint64_t>(std::llround(x));
}

void write_formats(detail::JsonWriter& w, const WeightFormats& f) {
  w.begin_object();
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const auto part = static_cast<WeightPart>(i);
    w.key(kPartKeys[i]);
    if (part == WeightPart::norms) {
      w.value(to_string(f.vectors));
    } else {
      w.value(to_string(f[part]));
    }
  }
  w.end_object();
}

void write_parts(detail::JsonWriter& w, const std::array<double, kWeightParts>& parts) {
  w.begin_object();
  for (std::size_t i = 0; i < kWeightParts; ++i) {
    const double x = std::max(0.0, checked(parts[i], "weight part"));
    w.member(kPartKeys[i], rounded(x));
  }
  w.end_object();
}

/// Byte and parameter counts are whole numbers; past 2^53 (absurd loads) a double keeps the
/// magnitude instead of overflowing an integer. Always inlined, so that the name's length is
/// known where it is copied (a fit answer writes some sixty of them).
[[gnu::always_inline]] inline void write_bytes(detail::JsonWriter& w, detail::JsonKey key, double v, std::string_view what) {
  const double x = std::max(0.0, checked(v, what));
  constexpr double kExact = 9007199254740992.0;  // 2^53
  w.key(key);
  if (x < kExact) {
    w.value(rounded(x));
  } else {
    w.value(std::round(x));
  }
}

/// The fit's members, in an object the caller opened and closes (a report adds its own after
/// them); `leading_note`, when set, comes first among the notes.
void write_fit_members(detail::JsonWriter& w, const FitResult& r, const std::string* leading_note) {
  const FitRequest& q = r.request;
  const PerGpuMemory& m = r.per_gpu;
  detail::write_envelope(w, "fit");
  w.key("inputs").begin_object();
  w.member("model", r.model_id);
  w.member("gpu", r.gpu_id);
  w.key("mig_profile");
  if (q.mig_profile.empty()) {
    w.null();
  } else {
    w.value(q.mig_profile);
  }
  w.member("gpus", q.layout.gpus());
  w.member("tp", q.layout.tp);
  w.member("pp", q.layout.pp);
  w.member("ep", q.layout.ep);
  w.member("layout_automatic", r.layout_automatic);
  w.member("weights_dtype", to_string(q.weights_dtype));
  w.member("embeddings_dtype", to_string(*q.embeddings_dtype));
  w.member("weights_as_shipped", r.formats_as_shipped);
  w.key("weight_formats");
  write_formats(w, *q.weight_formats);
  w.member("kv_dtype", to_string(q.kv_dtype));
  w.member("context_tokens", q.context_tokens);
  w.member("concurrency", q.concurrency);
  w.member("memory_utilization", checked(q.memory_utilization, "memory_utilization"));
  write_bytes(w, "reserve_bytes", q.reserve_bytes, "reserve_bytes");
  w.member("prefill_chunk_tokens", q.prefill_chunk_tokens);
  w.member("block_tokens", q.block_tokens);
  w.end_object();
  w.member("fits", r.fits);
  if (r.no_engine_runs) {
    w.member("no_engine_runs", *r.no_engine_runs);  // why fits is false whatever the memory
  }
  w.member("weights_fit", r.weights_fit);
  w.key("layout").begin_object();
  w.member("gpus", q.layout.gpus());
  w.member("tp", q.layout.tp);
  w.member("pp", q.layout.pp);
  w.member("ep", q.layout.ep);
  w.member("dp", q.layout.dp);
  w.end_object();
  w.key("params").begin_object();
  write_bytes(w, "total", r.params.total(), "params");
  write_bytes(w, "active", r.params.active(), "active params");
  write_bytes(w, "embedding", r.params.embedding, "params");
  write_bytes(w, "lm_head", r.params.lm_head, "params");
  write_bytes(w, "attention", r.params.attention, "params");
  write_bytes(w, "dense_mlp", r.params.dense_mlp, "params");
  write_bytes(w, "routed_experts", r.params.routed_experts, "params");
  write_bytes(w, "shared_experts", r.params.shared_experts, "params");
  write_bytes(w, "router", r.params.router, "params");
  write_bytes(w, "norms", r.params.norms, "params");
  write_bytes(w, "vision", r.params.vision, "params");
  w.end_object();
  w.key("per_gpu").begin_object();
  write_bytes(w, "capacity_bytes", m.capacity_bytes, "capacity");
  w.member("capacity_estimated", r.mig.has_value() && r.mig->estimated);
  write_bytes(w, "engine_cap_bytes", m.engine_cap_bytes, "engine cap");
  write_bytes(w, "weights_bytes", m.weights_bytes, "weights");
  w.key("weights").begin_object();
  write_bytes(w, "embedding_bytes", r.weights.embedding, "embedding");
  write_bytes(w, "lm_head_bytes", r.weights.lm_head, "lm head");
  write_bytes(w, "dense_bytes", r.weights.dense, "dense");
  write_bytes(w, "experts_bytes", r.weights.experts, "experts");
  w.key("parts_bytes");
  write_parts(w, r.weights.parts);
  // What an engine adds beyond the parts (vLLM's MXFP4 expert padding): the parts sum to weights_bytes with it.
  write_bytes(w, "engine_padding_bytes", r.engine ? r.engine->weight_padding_bytes : 0.0, "padding");
  w.end_object();
  write_bytes(w, "kv_cache_bytes", m.kv_cache_bytes, "kv cache");
  write_bytes(w, "activation_bytes", m.activation_bytes, "activations");
  write_bytes(w, "reserve_bytes", m.reserve_bytes, "reserve");
  write_bytes(w, "kv_budget_bytes", m.kv_budget_bytes, "kv budget");
  write_bytes(w, "free_bytes", m.free_bytes, "free");
  write_bytes(w, "shortfall_bytes", m.shortfall_bytes, "shortfall");
  write_bytes(w, "fixed_over_cap_bytes", m.fixed_over_cap_bytes, "over cap");
  w.end_object();
  if (r.kv_known) {
    write_bytes(w, "kv_bytes_per_token", r.kv_bytes_per_token, "kv/token");
    write_bytes(w, "kv_bytes_per_token_per_gpu", r.kv_bytes_per_token_per_gpu, "kv/token/gpu");
    std::uint64_t sliding = 0;
    for (auto window : r.kv.windows) {
      sliding += window > 0 ? 1 : 0;
    }
    w.key("kv").begin_object();
    write_bytes(w, "elements_per_token_per_layer", r.kv.elements_per_token_per_layer, "elements");
    w.member("bytes_per_element", r.kv.bytes_per_element);
    w.member("kv_heads_per_gpu", r.kv.kv_heads_per_gpu);
    w.member("replicated", r.kv.replicated);
    w.member("layers_per_gpu", r.kv.layers_per_gpu() + r.kv.linear_layers);
    w.member("sliding_layers_per_gpu", sliding);
    w.member("linear_attention_layers_per_gpu", r.kv.linear_layers);
    write_bytes(w, "state_bytes_per_sequence_per_gpu", r.kv.state_bytes_per_sequence, "state");
    write_bytes(w, "sequence_bytes_per_gpu", r.sequence_kv_bytes_per_gpu, "sequence kv");
    w.end_object();
  } else {
    w.key("kv_bytes_per_token").null();
    w.key("kv_bytes_per_token_per_gpu").null();
    w.key("kv").null();
  }
  write_bytes(w, "kv_budget_bytes", m.kv_budget_bytes, "kv budget");
  w.member("max_concurrent_sequences", r.max_concurrent_sequences);
  w.member("max_context_tokens", r.max_context_tokens);
  w.key("max_context_limited_by");
  if (r.max_context_tokens) {
    w.value(r.max_context_limited_by_model ? "model" : "memory");
  } else {
    w.null();
  }
  const double gpus = static_cast<double>(q.layout.gpus());
  w.key("deployment").begin_object();
  w.member("gpus", q.layout.gpus());
  write_bytes(w, "datasheet_memory_bytes", r.datasheet_total_bytes, "datasheet total");
  write_bytes(w, "capacity_bytes", r.capacity_total_bytes, "capacity total");
  write_bytes(w, "weights_bytes", m.weights_bytes * gpus, "weights total");
  write_bytes(w, "kv_budget_bytes", m.kv_budget_bytes * gpus, "kv total");
  w.end_object();
  if (r.engine) {
    const EngineMemory& e = *r.engine;
    w.key("engine").begin_object();
    w.member("name", to_string(e.engine));
    w.member("setting", e.share_name);
    w.member("value", checked(e.share, "engine share"));
    w.member("value_is_default", e.share_default);
    w.member("batched_tokens", e.batched_tokens);
    w.member("max_seqs", e.max_seqs);
    write_bytes(w, "total_bytes", e.total_bytes, "engine total");
    write_bytes(w, "start_free_bytes", e.start_free_bytes, "engine start free");
    write_bytes(w, "weights_bytes", e.weights_bytes, "engine weights");
    write_bytes(w, "activation_bytes", e.activation_bytes, "engine activations");
    write_bytes(w, "sampler_bytes", e.sampler_bytes, "engine sampler");
    if (e.engine == Engine::vllm) {
      w.member("sampler", to_string(e.sampler));
    } else {
      w.key("sampler").null();
    }
    write_bytes(w, "page_cache_bytes", e.page_cache_bytes, "engine page cache");
    write_bytes(w, "non_torch_bytes", e.non_torch_bytes, "engine non-torch");
    write_bytes(w, "cuda_graph_bytes", e.cuda_graph_bytes, "engine graphs");
    // vLLM V0's Mamba / linear-attention state cache (max_num_seqs slots); 0 otherwise.
    write_bytes(w, "v0_state_cache_bytes", e.v0_state_cache_bytes, "engine V0 state cache");
    // Signed: a negative figure is what vLLM logs when it refuses to start.
    w.member("kv_cache_bytes", std::llround(checked(e.kv_bytes, "engine kv")));
    w.member("kv_cache_gib", std::round(checked(e.kv_bytes, "engine kv") / units::kGiB * 100.0) / 100.0);
    w.member("kv_cache_tokens", e.kv_tokens);
    w.member("kv_cache_tokens_capped", e.kv_capped);
    if (e.engine == Engine::trtllm) {
      w.member("trtllm_backend", e.trtllm_tensorrt_flow ? "tensorrt" : "pytorch");
      w.member("chunked_prefill", e.trtllm_chunked_prefill);
      write_bytes(w, "runtime_buffer_bytes", e.trtllm_runtime_buffer_bytes, "engine runtime buffers");
      // The prompt length refused with chunked prefill off (0: none).
      w.member("refused_prompt_tokens", e.trtllm_refused_prompt_tokens);
    }
    w.member("block_tokens", e.block_tokens);
    w.member("max_concurrency_at_context", std::round(e.max_concurrency * 100.0) / 100.0);
    w.member("state_blocks_below_seqs", e.state_blocks_below_seqs);
    w.member("start_free_short", e.start_free_short_of_bytes > 0);
    if (e.state_slot_bytes > 0) {
      write_bytes(w, "state_pool_bytes", e.state_pool_bytes, "engine state pool");
      w.member("state_slots", e.state_slots);
      w.member("state_running_requests", e.state_requests);
    }
    if (e.req_to_token_bytes > 0) {
      write_bytes(w, "req_to_token_bytes", e.req_to_token_bytes, "engine request-to-token table");
      w.member("req_to_token_requests", e.req_to_token_requests);
    }
    if (e.sglang_default_context > 0) {
      w.key("default_context_length_refused").begin_object();
      w.member("tokens", e.sglang_default_context);
      write_bytes(w, "req_to_token_bytes", e.sglang_default_table_bytes, "default context_len table");
      w.member("context_length_that_starts", e.sglang_context_that_starts);
      w.member("max_running_requests_that_start", e.sglang_requests_that_start);
      w.end_object();
    }
    w.member("log_lines", engine_log_lines(r));
    // vLLM: the --max-model-len its figures assume, and the default it refuses to start with.
    if (e.engine == Engine::vllm) {
      w.member("max_model_len", r.request.context_tokens);
    } else {
      w.key("max_model_len").null();
    }
    if (e.default_max_model_len > 0) {
      w.key("default_max_model_len_refused").begin_object();
      w.member("tokens", e.default_max_model_len);
      write_bytes(w, "kv_cache_bytes", e.default_max_model_len_kv_bytes, "default max_model_len kv");
      w.member("max_model_len_that_fits", e.max_model_len_that_fits);
      w.end_object();
    } else {
      w.key("default_max_model_len_refused").null();
    }
    w.end_object();
  } else {
    w.key("engine").null();
  }
  w.key("model_weights").begin_object();
  write_bytes(w, "bytes", r.model_weight_total_bytes(), "model weights");
  w.key("parts_bytes");
  write_parts(w, r.model_weight_bytes);
  w.member("formats", r.formats_text);
  if (r.checkpoint_bytes) {
    write_bytes(w, "checkpoint_bytes", *r.checkpoint_bytes, "checkpoint");
    w.member("difference_bytes", std::llround(checked(r.model_weight_total_bytes() - *r.checkpoint_bytes, "difference")));
  } else {
    w.key("checkpoint_bytes").null();
    w.key("difference_bytes").null();
  }
  w.end_object();
  w.key("notes").begin_array();
  if (leading_note != nullptr) {
    w.value(*leading_note);
  }
  for (const std::string& n : r.notes) {
    w.value(n);
  }
  w.end_array();
}

std::string_view change_flag(FitChange c) {
  switch (c) {
    case FitChange::gpus: return "--gpus";
    case FitChange::kv_dtype: return "--kv-dtype";
    case FitChange::weights_dtype: return "--weights-dtype";
    case FitChange::context: return "--context";
    case FitChange::concurrency: return "--concurrency";
    case FitChange::mig_profile: return "--mig";
    case FitChange::prefill_chunk: return "--prefill-chunk";
  }
  return "";
}

std::string_view change_name(FitChange c) {
  switch (c) {
    case FitChange::gpus: return "gpus";
    case FitChange::kv_dtype: return "kv_dtype";
    case FitChange::weights_dtype: return "weights_dtype";
    case FitChange::context: return "context";
    case FitChange::concurrency: return "concurrency";
    case FitChange::mig_profile: return "mig_profile";
    case FitChange::prefill_chunk: return "prefill_chunk";
  }
  return "";
}

std::string_view choice_code(LayoutChoice c) {
  switch (c) {
    case LayoutChoice::given: return "given";
    case LayoutChoice::most_sequences: return "most_sequences";
    case LayoutChoice::none_fits: return "none_fits";
  }
  return "";
}

std::string choice_reason(const FitReport& rep) {
  const LayoutSearch& s = rep.search;
  const FitRequest& q = s.chosen.request;
  switch (s.choice) {
    case LayoutChoice::given:
      return "layout given (--tp/--pp)";
    case LayoutChoice::most_sequences:
      if (s.options.size() == 1) {
        return "the only layout";
      }
      return fmt::format("most concurrent sequences at {} tokens of {} layouts{}; ties: fewer "
                         "pipeline stages, fewer GPUs per replica, no EP",
                         group_digits(q.context_tokens), s.options.size(),
                         s.options.front().pp_within_node
                             ? " (none without pipeline stages inside a node fits)"
                             : ", pipeline stages inside a node only if nothing else fits");
    case LayoutChoice::none_fits:
      if (s.options.size() == 1) {
        return "the only layout; it does not fit";
      }
      return fmt::format("none of {} layouts fits; closest: most sequences, then smallest shortfall",
                         s.options.size());
  }
  return "";
}

std::string suggestion_value(const FitSuggestion& s) {
  return s.dtype                               ? std::string(to_string(*s.dtype))
         : s.change == FitChange::mig_profile ? s.mig_profile
                                              : group_digits(s.count);
}

/// `given`: the layout the user named, which a GPU-count suggestion may have to change.
std::string suggestion_text(const FitSuggestion& s, const std::string& gpu_id, const std::string& mig,
                            const std::optional<Layout>& given, ByteUnits u) {
  if (s.change == FitChange::gpus && !s.fits) {
    return mig.empty() ? fmt::format("more {} GPUs: no count fits", gpu_id)
                       : fmt::format("more MIG {} slices: no count fits (one slice holds a whole replica)", mig);
  }
  std::string change = fmt::format("{} {}", change_flag(s.change), suggestion_value(s));
  if (s.change == FitChange::gpus && !mig.empty()) {
    change += fmt::format(" ({} MIG {} slice{})", group_digits(s.count), mig, s.count == 1 ? "" : "s");
  }
  if (given && s.change == FitChange::gpus &&
      (s.layout.tp != given->tp || s.layout.pp != given->pp)) {
    change += fmt::format(" --tp {} --pp {}", s.layout.tp, s.layout.pp);  // replicas of the given layout cannot fit
  }
  if (!s.fits) {
    // Memory may suffice while the engine still refuses (a state pool's running requests).
    return s.shortfall_bytes > 0 ? fmt::format("{} alone: does not fit (short by {} {} per GPU)", change,
                                               per_sequence_bytes_value(s.shortfall_bytes, u), detail::unit_name(u))
                                 : fmt::format("{} alone: does not fit", change);
  }
  const std::string where = layout_short(s.layout);
  if (!s.max_concurrent_sequences) {
    return fmt::format("{}: fits ({})", change, where);
  }
  return fmt::format("{}: fits, {} sequence{} at {} tokens ({})", change, group_digits(*s.max_concurrent_sequences),
                     *s.max_concurrent_sequences == 1 ? "" : "s", group_digits(s.context_tokens), where);
}

std::string clamp_note(const FitReport& rep) {
  return fmt::format("context {} tokens: the model's maximum (max_position_embeddings); the default "
                     "{} exceeds it",
                     group_digits(rep.search.chosen.request.context_tokens),
                     group_digits(*rep.default_context_clamped_from));
}

std::string span_mark(TpSpan span) {
  switch (span) {
    case TpSpan::scale_up: return "";
    case TpSpan::node: return "TP over PCIe";
    case TpSpan::across_nodes: return "TP across nodes";
  }
  return "";
}

detail::Document report_document(const FitReport& rep, ByteUnits u, bool plain_numbers) {
  const LayoutSearch& s = rep.search;
  const FitResult& r = s.chosen;
  const FitRequest& q = r.request;
  // The ranking's rule, as it applied here: pipeline stages inside a node come last, so a layout
  // with them may hold more sequences than the one chosen (DeepSeek-V3 on 8 x H200: TP 1 PP 8
  // holds 140 at 32k, the chosen EP 8 DP 8 104).
  const bool more_with_node_pp =
      s.choice == LayoutChoice::most_sequences && !s.options.empty() && !s.options.front().pp_within_node &&
      std::any_of(s.options.begin(), s.options.end(), [&](const LayoutOption& o) {
        return o.fits && o.pp_within_node &&
               o.max_concurrent_sequences.value_or(0) > s.options.front().max_concurrent_sequences.value_or(0);
      });
  const std::string heading_word = s.choice == LayoutChoice::given || s.options.size() == 1 ? ""
                                   : s.choice == LayoutChoice::none_fits ? ", closest layout: none fits"
                                   : more_with_node_pp ? ", most sequences without pipeline stages inside a node"
                                   : s.options.front().pp_within_node
                                       ? ", most sequences; only layouts with pipeline stages inside a node fit"
                                       : ", most sequences of all layouts";
  detail::Document doc = fit_document(r, u, plain_numbers, heading_word);
  const auto count = [plain_numbers](std::uint64_t v) {
    return plain_numbers ? std::to_string(v) : group_digits(v);
  };
  auto at = doc.tables.begin() + (plain_numbers ? 1 : 0);
  if (s.options.size() > 1) {
    const std::string unit(detail::unit_name(u));
    // CSV (plain numbers) says "chosen" in a column of its own: a marker glued to the layout
    // would reach whoever parses the cell.
    detail::Table t{.title = plain_numbers ? fmt::format("Layouts ({} GPUs)", q.layout.gpus())
                                           : fmt::format("Layouts ({} GPUs, * chosen)", q.layout.gpus()),
                    .header = {"layout", "fits", fmt::format("KV budget/GPU {}", unit),
                               fmt::format("sequences at {}", group_digits(q.context_tokens)),
                               fmt::format("context at {}", group_digits(q.concurrency)), "notes"},
                    .rows = {}};
    bool first = true;
    for (const LayoutOption& o : s.options) {
      std::string notes;
      if (o.kv_replicated) {
        notes = "KV replicated";
      }
      for (const std::string& m : {span_mark(o.tp_span),
                                   std::string(o.pp_within_node ? "PP inside a node" : "")}) {
        if (!m.empty()) {
          notes += (notes.empty() ? "" : ", ") + m;
        }
      }
      t.rows.push_back({plain_numbers ? layout_short(o.layout) : (first ? "* " : "  ") + layout_short(o.layout),
                        o.fits ? "yes" : o.weights_fit ? "no" : "no (weights)",
                        bytes_value(o.kv_budget_bytes, u),
                        o.max_concurrent_sequences ? count(*o.max_concurrent_sequences) : "-",
                        o.max_context_tokens ? count(*o.max_context_tokens) : "-",
                        notes.empty() ? "-" : notes});
      if (plain_numbers) {
        t.rows.back().push_back(first ? "yes" : "no");
      }
      first = false;
    }
    if (plain_numbers) {
      t.header.push_back("chosen");
    }
    at = doc.tables.insert(at, std::move(t)) + 1;
  }
  if (plain_numbers && !rep.suggestions.empty()) {  // CSV has no footer lines
    detail::Table t{.title = "What would fit (each change alone)",
                    .header = {"change", "value", "fits", "layout", "sequences", "context", "concurrency"},
                    .rows = {}};
    for (const FitSuggestion& g : rep.suggestions) {
      const bool none = g.change == FitChange::gpus && !g.fits;
      t.rows.push_back({std::string(change_flag(g.change)),
                        none                                 ? "-"
                        : g.dtype                            ? std::string(to_string(*g.dtype))
                        : g.change == FitChange::mig_profile ? g.mig_profile
                                                             : count(g.count),
                        g.fits ? "yes" : "no", none ? "-" : layout_short(g.layout),
                        g.max_concurrent_sequences ? count(*g.max_concurrent_sequences) : "-",
                        count(g.context_tokens), count(g.concurrency)});
    }
    doc.tables.push_back(std::move(t));
  }

  std::vector<std::string> footer;
  if (s.choice != LayoutChoice::given && s.options.size() > 1) {
    footer.push_back(fmt::format("layout {}: {}", layout_short(q.layout), choice_reason(rep)));
  }
  if (s.across_nodes_tried) {
    footer.push_back("no layout with TP inside a node fits: TP across nodes evaluated");
  }
  footer.push_back(doc.footer.front());  // the verdict
  for (const FitSuggestion& g : rep.suggestions) {
    footer.push_back("suggestion: " + suggestion_text(g, r.gpu_id, q.mig_profile,
                                                   s.choice == LayoutChoice::given ? std::optional(q.layout)
                                                                                   : std::nullopt,
                                                   u));
  }
  if (rep.default_context_clamped_from) {
    footer.push_back("note: " + clamp_note(rep));
  }
  footer.insert(footer.end(), doc.footer.begin() + 1, doc.footer.end());
  doc.footer = std::move(footer);
  return doc;
}

void write_report(detail::JsonWriter& w, const FitReport& rep) {
  const LayoutSearch& s = rep.search;
  const auto bytes = [](double v) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, checked(v, "bytes")))); };
  w.begin_object();
  const std::optional<std::string> clamped =
      rep.default_context_clamped_from ? std::optional(clamp_note(rep)) : std::nullopt;
  write_fit_members(w, s.chosen, clamped ? &*clamped : nullptr);
  w.member("choice", choice_code(s.choice));
  w.member("choice_reason", choice_reason(rep));
  w.member("across_nodes_tried", s.across_nodes_tried);
  w.key("layouts").begin_array();
  for (const LayoutOption& o : s.options) {
    w.begin_object();
    w.member("tp", o.layout.tp);
    w.member("pp", o.layout.pp);
    w.member("ep", o.layout.ep);
    w.member("dp", o.layout.dp);
    w.member("gpus", o.layout.gpus());
    w.member("fits", o.fits);
    w.member("weights_fit", o.weights_fit);
    w.member("kv_budget_bytes", bytes(o.kv_budget_bytes));
    w.member("shortfall_bytes", bytes(o.shortfall_bytes));
    w.member("max_concurrent_sequences", o.max_concurrent_sequences);
    w.member("max_context_tokens", o.max_context_tokens);
    w.member("kv_replicated", o.kv_replicated);
    w.member("pp_within_node", o.pp_within_node);
    w.member("tp_span", o.tp_span == TpSpan::scale_up ? "scale_up"
                        : o.tp_span == TpSpan::node   ? "node"
                                                      : "across_nodes");
    w.end_object();
  }
  w.end_array();
  w.key("suggestions").begin_array();
  for (const FitSuggestion& g : rep.suggestions) {
    const bool none = g.change == FitChange::gpus && !g.fits;
    w.begin_object();
    w.member("change", change_name(g.change));
    w.key("value");
    if (g.dtype) {
      w.value(to_string(*g.dtype));
    } else if (g.change == FitChange::mig_profile) {
      w.value(g.mig_profile);
    } else if (none) {
      w.null();
    } else {
      w.value(g.count);
    }
    w.member("fits", g.fits);
    w.key("layout");
    if (none) {
      w.null();
    } else {
      w.begin_object();
      w.member("tp", g.layout.tp);
      w.member("pp", g.layout.pp);
      w.member("ep", g.layout.ep);
      w.member("dp", g.layout.dp);
      w.member("gpus", g.layout.gpus());
      w.end_object();
    }
    w.member("context_tokens", g.context_tokens);
    w.member("concurrency", g.concurrency);
    w.member("max_concurrent_sequences", g.max_concurrent_sequences);
    w.member("shortfall_bytes", bytes(g.shortfall_bytes));
    w.end_object();
  }
  w.end_array();
  w.member("context_default_clamped_from", rep.default_context_clamped_from);
  w.end_object();
}

}  // namespace

std::string render_fit(const FitResult& result, const RenderOptions& options) {
  if (options.format == Format::json) {
    std::string out;
    detail::JsonWriter w(out, 2);
    w.begin_object();
    write_fit_members(w, result, nullptr);
    w.end_object();
    out += '\n';
    return out;
  }
  return detail::render_document(fit_document(result, options.units, options.format == Format::csv),
                                 options.format);
}

std::string render_fit(const FitReport& report, const RenderOptions& options) {
  if (options.format == Format::json) {
    std::string out;
    detail::JsonWriter w(out, 2);
    write_report(w, report);
    out += '\n';
    return out;
  }
  return detail::render_document(report_document(report, options.units, options.format == Format::csv),
                                 options.format);
}

std::string render_json_line(const FitReport& report) {
  std::string out;
  out.reserve(8192);  // about the size of an answer: no regrowth while writing
  detail::JsonWriter w(out, -1);
  write_report(w, report);
  out += '\n';
  return out;
}

}  // namespace gpuplan
