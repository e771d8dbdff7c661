#include "deployment.hpp"

#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/comm.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/units.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "field_flags.hpp"

namespace gpuplan::cli {

void add_deployment_options(CLI::App& sub, DeploymentOptions& o, bool bare_params, bool gpu_flag) {
  auto* model = sub.add_option("--model", o.model, "Model id (gpuplan catalog models; any case, unambiguous abbreviations such as mixtral-8x7 and Hugging Face names such as meta-llama/Llama-3.1-8B-Instruct work)")->check(non_empty());
  auto* config = sub.add_option("--model-config", o.model_config,
                                "Hugging Face config.json of the model instead of an id")
                     ->check(non_empty());
  model->excludes(config);
  o.allow_params = bare_params;
  if (bare_params) {
    auto* params = sub.add_option("--params", o.params,
                                  "Bare parameter count for a what-if, e.g. 744B (weights only)")
                       ->check(non_empty());
    model->excludes(params);
    config->excludes(params);
  }
  if (gpu_flag) {
    sub.add_option("--gpu", o.gpu, "GPU id (gpuplan catalog gpus; any case, aliases such as h100 and unambiguous abbreviations work)")->required()->check(non_empty());
  }
  sub.add_option("--mig", o.mig, "One MIG slice, e.g. 1g.18gb, instead of a whole GPU")->check(non_empty());
  auto* gpus = sub.add_option("--gpus", o.gpus, "GPUs in the deployment (default: TP x PP, or 1; compare: 8)")
                   ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  auto* nodes = sub.add_option("--nodes", o.nodes, "Nodes of --gpus-per-node GPUs")
                    ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{8192}));
  nodes->excludes(gpus);
  // The node's size matters without --nodes too: it decides which TP groups stay on NVLink or
  // PCIe and which go over the network (a 4-GPU L40S server).
  sub.add_option("--gpus-per-node", o.gpus_per_node,
                 "GPUs per node: TP and PP groups within one talk over NVLink or PCIe, wider ones over the network; "
                 "with --nodes, the deployment is nodes x this (default: 8, or what the GPU's systems hold: 1 for gb10)")
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{72}));
  sub.add_option("--tp", o.tp, "Tensor-parallel degree (default: fit takes the layout with the most sequences; perf, cost, compare and plan files the one with the most estimated throughput)")
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub.add_option("--pp", o.pp, "Pipeline-parallel stages (default: 1, or chosen by the layout search)")
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub.add_option("--ep", o.ep, "Expert-parallel degree (MoE; default: 1, or chosen by the layout search)")
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub.add_option("--weights-dtype", o.weights_dtype,
                 "Every linear layer: fp32 bf16 fp16 fp8 int8 int4 fp4 mxfp4, any case (fp4 = NVIDIA's NVFP4, "
                 "4-bit floats with an fp8 scale per 16), or a scheme such as fp8-block128, int4-g128-zp, nf4 "
                 "(default: the formats the checkpoint ships in)")
      ->check(non_empty());
  sub.add_option("--experts-dtype", o.experts_dtype, "Routed and shared experts (MoE), overrides --weights-dtype (default: as --weights-dtype)")
      ->check(non_empty());
  sub.add_option("--attention-dtype", o.attention_dtype, "Attention projections, overrides --weights-dtype (default: as --weights-dtype)")
      ->check(non_empty());
  sub.add_option("--embeddings-dtype", o.embeddings_dtype,
                 "Embedding table and LM head (default: bf16 for quantized weights)")
      ->check(non_empty());
  sub.add_option("--kv-dtype", o.kv_dtype,
                 "KV cache: fp32 bf16 fp16 fp8 int8, any case (default: the model's 16-bit format, as engines' "
                 "\"auto\": fp16 for a float16 checkpoint, else bf16; TensorRT-LLM: fp8 for a checkpoint that ships "
                 "FP8 KV-cache scales)")
      ->check(non_empty());
  sub.add_option("--engine", o.engine,
                 "Serving engine whose own KV-cache arithmetic to apply: vllm, sglang, trtllm "
                 "(default: engine-neutral estimate)")
      ->check(non_empty());
  sub.add_option("--gpu-memory-utilization", o.memory_utilization,
                 "Memory cap as a share of GPU memory (neutral estimate, or vLLM's gpu_memory_utilization; "
                 "default 0.9; vLLM's own default with --engine vllm: 0.92 from 0.21, 0.9 before)")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--mem-fraction-static", o.mem_fraction_static,
                 "SGLang's mem_fraction_static (default: SGLang's rule from GPU memory and TP)")
      ->check(share_validator());
  sub.add_option("--kv-cache-free-gpu-mem-fraction", o.kv_cache_free_gpu_mem_fraction,
                 "TensorRT-LLM's kv_cache_free_gpu_mem_fraction (default 0.9)")
      ->check(share_validator());
  sub.add_option("--max-num-seqs", o.max_num_seqs,
                 "Engine's sequences per step: vLLM max_num_seqs, SGLang cuda_graph_max_bs, TensorRT-LLM "
                 "max_batch_size (default: the engine's)")
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  sub.add_option("--max-kv-tokens", o.max_kv_tokens,
                 "KV-cache token cap: SGLang --max-total-tokens, TensorRT-LLM kv_cache_config.max_tokens (trtllm-bench "
                 "sets it); the engine takes the smaller of it and what its memory share holds")
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  sub.add_option("--engine-version", o.engine_version,
                 "vLLM, SGLang or TensorRT-LLM release the figures are for, e.g. 0.10.1 (vLLM before 0.21: CUDA "
                 "graphs are not subtracted from the KV cache; SGLang before 0.5.3: older default mem_fraction_static "
                 "rules; TensorRT-LLM before 1.0: the TensorRT-engine flow, whose max_batch_size buffers are "
                 "subtracted; default: current)")
      ->check(non_empty());
  sub.add_option("--trtllm-backend", o.trtllm_backend,
                 "TensorRT-LLM's runtime: pytorch (trtllm-serve --backend pytorch, 0.17 on; the default from 1.0) or "
                 "tensorrt (an engine built by trtllm-build, whose max_batch_size buffers are subtracted; the default "
                 "before 1.0) (default: the --engine-version's)")
      ->check(non_empty());
  sub.add_flag("--enable-chunked-prefill", o.enable_chunked_prefill,
               "TensorRT-LLM's enable_chunked_prefill (in --extra_llm_api_options): prompts longer than max_num_tokens "
               "are prefilled in steps of it. Without it (trtllm-serve's default) they are refused, and the fit fails");
  sub.add_flag("--enforce-eager", o.enforce_eager,
               "vLLM's --enforce-eager: no CUDA graphs, so none are subtracted (0.21 on) or captured above the share "
               "(before 0.21), and the linear-attention state-block check is not made; perf, compare and plan time "
               "every step at no less than the host's launch time of its kernels");
  sub.add_flag("--disable-cuda-graph", o.disable_cuda_graph,
               "SGLang's --disable-cuda-graph: no CUDA graphs outside mem_fraction_static; perf, compare and plan time "
               "every step at no less than the host's launch time of its kernels");
  sub.add_option("--vllm-sampler", o.vllm_sampler,
                 "vLLM's top-k/top-p sampler, which sets its profiling peak from 0.19: flashinfer (16 bytes a logit) "
                 "or native, PyTorch's (28.7; vLLM takes it when FlashInfer is not installed, with "
                 "VLLM_USE_FLASHINFER_SAMPLER=0, and on ROCm) (default: flashinfer on NVIDIA GPUs, native on others)")
      ->check(non_empty());
  sub.add_option("--reserve", o.reserve, "Runtime reserve per GPU (CUDA context, framework), e.g. 1.5GiB or 2GB")
      ->capture_default_str();
  sub.add_option("--memory-in-use", o.memory_in_use,
                 "With --engine: GPU memory other processes (desktop, WSL, another server) hold per GPU when the "
                 "engine starts, e.g. 0.75GiB (nvidia-smi's used memory before launch). SGLang and TensorRT-LLM "
                 "size their cache from what is free, so it comes off; vLLM refuses to start when less than its "
                 "share of the total is free (default: 0)")
      ->check(non_empty());
  sub.add_option("--prefill-chunk,--max-num-batched-tokens", o.prefill_chunk,
                 "Tokens per prefill step, sizes activations (vLLM max_num_batched_tokens, SGLang "
                 "chunked_prefill_size, TensorRT-LLM max_num_tokens) and times prefill; 8k = 8192; with --engine and "
                 "without this flag, the engine's own default for the GPU and release")
      ->capture_default_str()
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
  sub.add_option("--block-size", o.block_size,
                 "Paged KV block in tokens (default 16, vLLM's block_size; with --engine trtllm its "
                 "tokens_per_block, 32; with --engine sglang its page_size, 1)")
      ->transform(token_count())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
}

void note_given(const CLI::App& sub, DeploymentOptions& o) {
  // One pass over the options given: CLI::App::count("--name") searches every option by name,
  // and batch asks for each request.
  static constexpr std::pair<std::string_view, bool DeploymentOptions::*> kGiven[] = {
      {"model", &DeploymentOptions::model_given},
      {"model-config", &DeploymentOptions::model_config_given},
      {"params", &DeploymentOptions::params_given},
      {"gpu-memory-utilization", &DeploymentOptions::utilization_given},
      {"reserve", &DeploymentOptions::reserve_given},
      {"prefill-chunk", &DeploymentOptions::prefill_chunk_given},
      {"mem-fraction-static", &DeploymentOptions::mem_fraction_given},
      {"kv-cache-free-gpu-mem-fraction", &DeploymentOptions::free_fraction_given},
      {"max-num-seqs", &DeploymentOptions::max_num_seqs_given},
      {"max-kv-tokens", &DeploymentOptions::max_kv_tokens_given}};
  for (const auto& [name, given] : kGiven) {
    o.*given = false;
  }
  for (const CLI::Option* opt : sub.get_options([](const CLI::Option* option) { return option->count() > 0; })) {
    for (const std::string& lname : opt->get_lnames()) {
      for (const auto& [name, given] : kGiven) {
        if (lname == name) {
          o.*given = true;
        }
      }
    }
  }
}

namespace {

/// "0.19.0" -> 19, "1.1.0rc3" -> 101 (TensorRT-LLM's major x 100 + minor; a pre-release, post or
/// dev tag and a local "+..." tag may follow); throws InputError naming --engine-version.
int parse_trtllm_version(std::string_view text) {
  const auto fail = [&] {
    return InputError(
        fmt::format("--engine-version: expected a TensorRT-LLM release such as 0.19.0 or 1.0, got '{}'", text));
  };
  std::string_view rest = text.starts_with('v') ? text.substr(1) : text;
  // Digits at the front, at most `most` of them (none: nullopt).
  const auto digits = [&](std::size_t most) -> std::optional<int> {
    std::size_t n = 0;
    int value = 0;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') {
      value = value * 10 + (rest[n] - '0');
      ++n;
    }
    if (n == 0 || n > most) {
      return std::nullopt;
    }
    rest.remove_prefix(n);
    return value;
  };
  const auto after = [&](std::string_view prefix, std::size_t most) {
    if (!rest.starts_with(prefix)) {
      return true;
    }
    rest.remove_prefix(prefix.size());
    return digits(most).has_value();
  };
  const std::optional<int> major = digits(2);
  if (!major || !rest.starts_with('.')) {
    throw fail();
  }
  rest.remove_prefix(1);
  const std::optional<int> minor = digits(2);
  // Then, as PEP 440 orders them: .patch, a pre-release (rcN, aN, bN), .postN, .devN, +local.
  bool ok = minor.has_value();
  if (ok && rest.size() > 1 && rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9') {
    ok = after(".", 3);
  }
  for (std::string_view pre : {"rc", "a", "b"}) {
    if (ok && rest.starts_with(pre)) {
      ok = after(pre, 9);
      break;
    }
  }
  ok = ok && after(".post", 9) && after(".dev", 9);
  if (ok && rest.starts_with('+')) {
    rest.remove_prefix(1);
    ok = !rest.empty() && std::ranges::all_of(rest, [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.';
    });
    rest = {};
  }
  if (!ok || !rest.empty()) {
    throw fail();
  }
  if (*major * 100 + *minor > kTrtllmNewestAccepted) {
    throw InputError(fmt::format("--engine-version: '{}' is no TensorRT-LLM release gpuplan knows: the newest it "
                                 "accepts is {}.{} (leave the flag out for the newest)",
                                 text, kTrtllmNewestAccepted / 100, kTrtllmNewestAccepted % 100));
  }
  return *major * 100 + *minor;
}

/// "0.10.1" -> 10 (vLLM's minor release); "0.4.6.post1" -> 406, "0.5.3rc0" -> 502 (SGLang's minor
/// x 100 + patch, a pre-release or dev build before its release); throws InputError naming
/// --engine-version.
int parse_engine_version(std::string_view text, Engine engine) {
  const bool sglang = engine == Engine::sglang;
  const auto fail = [&] {
    return InputError(fmt::format("--engine-version: expected {} release such as {}, got '{}'",
                                  sglang ? "an SGLang" : "a vLLM", sglang ? "0.4.6" : "0.10.1", text));
  };
  std::string_view rest = text.starts_with('v') ? text.substr(1) : text;
  // One dot-separated number: its digits, then what follows them.
  const auto number = [&](unsigned max) {
    unsigned value = 0;
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      value = value * 10 + static_cast<unsigned>(rest[digits] - '0');
      if (value > max) {
        throw fail();
      }
      ++digits;
    }
    if (digits == 0) {
      throw fail();
    }
    rest.remove_prefix(digits);
    return value;
  };
  // ".N": the next dot-separated number, when one follows (".post1" is a tag, not a number).
  const auto dotted = [&]() -> std::optional<unsigned> {
    if (rest.size() < 2 || rest[0] != '.' || rest[1] < '0' || rest[1] > '9') {
      return std::nullopt;
    }
    rest.remove_prefix(1);
    return number(99);
  };
  if (number(0) != 0) {
    throw fail();
  }
  const std::optional<unsigned> minor = dotted();
  if (!minor) {
    throw fail();
  }
  const unsigned patch = dotted().value_or(0);
  // vLLM's fourth number ("0.10.1.1") is a re-release of the same code.
  if (!sglang) {
    dotted();
  }
  // What may follow, in PEP 440's order: a pre-release (aN, bN, rcN), .postN, .devN (a nightly:
  // 0.10.2rc3.dev321+g65a5910ce), then a local tag ("+cu128", as a wheel's version prints it).
  // Anything else is not a release: "0.10.x" or "0.4.6garbage" must not pass for one.
  const auto tag = [&](std::string_view name) {
    if (!rest.starts_with(name)) {
      return false;
    }
    rest.remove_prefix(name.size());
    number(1'000'000);
    return true;
  };
  const bool pre_release = tag("rc") || tag("a") || tag("b");
  const bool post = tag(".post");
  const bool dev = tag(".dev");
  // A pre-release, or a dev build of the release itself, comes before it; 0.4.6.post1.dev0 after.
  const bool before_release = pre_release || (dev && !post);
  if (rest.starts_with('+')) {
    rest.remove_prefix(1);
    const bool local_ok = !rest.empty() && std::ranges::all_of(rest, [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.';
    });
    if (!local_ok) {
      throw fail();
    }
    rest = {};
  }
  if (!rest.empty()) {
    throw fail();
  }
  // vLLM's modelled defaults change between minor releases; a candidate has its release's.
  // Only the minor number is checked against what gpuplan knows (0.1, the first release, to the
  // newest it models); a patch number is checked for its form alone.
  if (!sglang) {
    if (*minor == 0 || *minor > static_cast<unsigned>(kVllmNewestMinor)) {
      throw InputError(fmt::format("--engine-version: '{}' is no vLLM release gpuplan knows: it models 0.1 to 0.{} "
                                   "(leave the flag out for the newest)",
                                   text, kVllmNewestMinor));
    }
    return static_cast<int>(*minor);
  }
  if (*minor == 0) {
    throw InputError(fmt::format("--engine-version: '{}' is no SGLang release (they start at 0.1)", text));
  }
  if (*minor > kSglangNewestAcceptedMinor) {
    throw InputError(fmt::format("--engine-version: '{}' is no SGLang release gpuplan knows: it accepts 0.1 to "
                                 "0.{}.x (leave the flag out for the newest)",
                                 text, kSglangNewestAcceptedMinor));
  }
  // SGLang's changed in patch releases: a candidate or dev build is before its release.
  const int version = static_cast<int>(*minor * 100 + patch);
  return before_release ? std::max(version - 1, 0) : version;
}

namespace {

/// The patch number of a vLLM release parse_engine_version accepted ("0.6.4.post1" -> 4), or
/// nullopt when it gives none ("0.6").
std::optional<int> vllm_patch_of(std::string_view text) {
  std::string_view rest = text.starts_with('v') ? text.substr(1) : text;
  for (int dots = 0; dots < 2; ++dots) {
    const std::size_t at = rest.find('.');
    if (at == std::string_view::npos) {
      return std::nullopt;
    }
    rest.remove_prefix(at + 1);
  }
  int patch = 0;
  std::size_t digits = 0;
  for (; digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9' && digits < 3; ++digits) {
    patch = patch * 10 + (rest[digits] - '0');
  }
  return digits == 0 ? std::nullopt : std::optional<int>(patch);
}

}  // namespace

}  // namespace

void apply_engine_version(EngineSettings& s, std::string_view text) {
  if (s.engine == Engine::trtllm) {
    s.trtllm_version = parse_trtllm_version(text);
  } else {
    (s.engine == Engine::vllm ? s.vllm_minor_version : s.sglang_version) = parse_engine_version(text, s.engine);
    if (s.engine == Engine::vllm) {
      s.vllm_patch_version = vllm_patch_of(text);
    }
  }
}

namespace {

/// The engine and its settings from the flags. Engine settings without --engine, or for another
/// engine than the one named, are errors: silently ignoring them would answer another question.
EngineSettings engine_settings(const DeploymentOptions& o) {
  EngineSettings s;
  if (!o.engine.empty()) {
    s.engine = parse_engine(o.engine);
  }
  const auto owned_by = [&](bool given, std::string_view flag, Engine owner) {
    if (given && s.engine != owner) {
      throw InputError(fmt::format("{}: is a {} setting, but {}", flag, to_string(owner),
                                   s.engine == Engine::neutral ? std::string("no --engine is named")
                                                               : fmt::format("--engine is {}", to_string(s.engine))));
    }
  };
  owned_by(o.mem_fraction_given, "--mem-fraction-static", Engine::sglang);
  owned_by(o.free_fraction_given, "--kv-cache-free-gpu-mem-fraction", Engine::trtllm);
  if (!o.engine_version.empty() && s.engine == Engine::neutral) {
    throw InputError("--engine-version: is an engine setting, but no --engine is named");
  }
  if (o.max_kv_tokens_given && s.engine != Engine::sglang && s.engine != Engine::trtllm) {
    throw InputError(fmt::format("--max-kv-tokens: is an SGLang or TensorRT-LLM setting, but {}",
                                 s.engine == Engine::neutral ? std::string("no --engine is named")
                                                             : std::string("--engine is vllm (its KV cache is set by "
                                                                           "--gpu-memory-utilization)")));
  }
  if (s.engine == Engine::neutral) {
    if (!o.memory_in_use.empty()) {
      throw InputError("--memory-in-use: is the engine's start-up arithmetic, but no --engine is named; the "
                       "engine-neutral estimate takes memory held elsewhere in --reserve");
    }
    if (!o.vllm_sampler.empty()) {
      throw InputError("--vllm-sampler: is a vLLM setting, but no --engine is named");
    }
    if (o.enforce_eager || o.disable_cuda_graph) {
      throw InputError(fmt::format("{}: is {} setting, but no --engine is named",
                                   o.enforce_eager ? "--enforce-eager" : "--disable-cuda-graph",
                                   o.enforce_eager ? "a vLLM" : "an SGLang"));
    }
    if (!o.trtllm_backend.empty() || o.enable_chunked_prefill) {
      throw InputError(fmt::format("{}: is a TensorRT-LLM setting, but no --engine is named",
                                   o.enable_chunked_prefill ? "--enable-chunked-prefill" : "--trtllm-backend"));
    }
    if (o.max_num_seqs_given) {
      throw InputError("--max-num-seqs: is an engine setting; name the engine with --engine");
    }
    return s;
  }
  if (o.utilization_given && s.engine != Engine::vllm) {
    throw InputError(fmt::format("--gpu-memory-utilization: is vLLM's setting; for {} use {}", to_string(s.engine),
                                 s.engine == Engine::sglang ? "--mem-fraction-static"
                                                            : "--kv-cache-free-gpu-mem-fraction"));
  }
  if (o.reserve_given) {
    throw InputError(fmt::format("--reserve: applies to the engine-neutral estimate only; with --engine {} the engine's "
                                 "own terms replace it (memory other processes hold: --memory-in-use)",
                                 to_string(s.engine)));
  }
  if (!o.memory_in_use.empty()) {
    s.memory_in_use_bytes = units::parse_bytes(o.memory_in_use, "--memory-in-use");
  }
  if (o.utilization_given) {
    s.gpu_memory_utilization = o.memory_utilization;
  }
  if (o.mem_fraction_given) {
    s.mem_fraction_static = o.mem_fraction_static;
  }
  if (o.free_fraction_given) {
    s.kv_cache_free_gpu_mem_fraction = o.kv_cache_free_gpu_mem_fraction;
  }
  if (o.prefill_chunk_given) {
    s.max_num_batched_tokens = o.prefill_chunk;
  }
  if (o.max_num_seqs_given) {
    s.max_num_seqs = o.max_num_seqs;
  }
  if (o.max_kv_tokens_given) {
    s.max_kv_tokens = o.max_kv_tokens;
  }
  if (!o.engine_version.empty()) {
    apply_engine_version(s, o.engine_version);
  }
  if (!o.trtllm_backend.empty()) {
    if (s.engine != Engine::trtllm) {
      throw InputError(fmt::format("--trtllm-backend: is a TensorRT-LLM setting, but --engine is {}", to_string(s.engine)));
    }
    try {
      s.trtllm_backend = parse_trtllm_backend(o.trtllm_backend);
    } catch (const InputError&) {
      throw InputError(fmt::format("--trtllm-backend: {}", not_one_of(o.trtllm_backend, {"pytorch", "tensorrt"})));
    }
  }
  if (o.enable_chunked_prefill) {
    if (s.engine != Engine::trtllm) {
      throw InputError(fmt::format("--enable-chunked-prefill: is a TensorRT-LLM setting (vLLM and SGLang chunk long "
                                   "prompts by default), but --engine is {}",
                                   to_string(s.engine)));
    }
    s.trtllm_chunked_prefill = true;
  }
  if (o.enforce_eager) {
    if (s.engine != Engine::vllm) {
      throw InputError(fmt::format("--enforce-eager: is a vLLM setting, but --engine is {}{}", to_string(s.engine),
                                   s.engine == Engine::sglang ? " (SGLang's is --disable-cuda-graph)" : ""));
    }
    s.eager = true;
  }
  if (o.disable_cuda_graph) {
    if (s.engine != Engine::sglang) {
      throw InputError(fmt::format("--disable-cuda-graph: is an SGLang setting, but --engine is {}{}",
                                   to_string(s.engine), s.engine == Engine::vllm ? " (vLLM's is --enforce-eager)" : ""));
    }
    s.eager = true;
  }
  if (!o.vllm_sampler.empty()) {
    if (s.engine != Engine::vllm) {
      throw InputError(fmt::format("--vllm-sampler: is a vLLM setting, but --engine is {}", to_string(s.engine)));
    }
    const std::string name = lower_case(o.vllm_sampler);
    if (name != "flashinfer" && name != "native") {
      throw InputError(fmt::format("--vllm-sampler: {}", not_one_of(o.vllm_sampler, {"flashinfer", "native"})));
    }
    s.vllm_sampler = name == "native" ? VllmSampler::native : VllmSampler::flashinfer;
  }
  return s;
}

}  // namespace

Deployment resolve_deployment(const Catalog& catalog, const DeploymentOptions& o) {
  std::unique_ptr<const ModelSpec> owned;
  const ModelSpec* model = nullptr;
  bool cache_layout_changed = false;
  if (o.model_given) {
    model = &lookup_model(catalog, o.model, "--model");
    // The catalog's model as the engine caches it (vLLM before 0.7.1 expands MLA): a copy, which
    // the batch's FitCache must not share with the catalog's id.
    if (model->caches_latent() && vllm_expands_mla(engine_settings(o))) {
      ModelSpec m = *model;
      apply_engine_cache_layout(m, engine_settings(o));
      owned = std::make_unique<const ModelSpec>(std::move(m));
      cache_layout_changed = true;
    }
  } else if (o.model_config_given) {
    ModelSpec m = model_from_hf_config_file(o.model_config);
    apply_engine_cache_layout(m, engine_settings(o));
    owned = std::make_unique<const ModelSpec>(std::move(m));
  } else if (o.params_given) {
    const double params = units::parse_count(o.params, "--params");
    // With a suffix given, bare_model's "for N billion write NB" hint is wrong ("0.000001B", "8k").
    if (params < 1e6 && !o.params.empty() && std::isalpha(static_cast<unsigned char>(o.params.back())) != 0) {
      throw InputError(fmt::format("--params: '{}' is {:g} parameters, no language model (a million at least, e.g. "
                                   "350M or 70B)",
                                   o.params, params));
    }
    owned = std::make_unique<const ModelSpec>(bare_model(params, o.params + " params", "--params"));
  } else {
    throw InputError(o.allow_params ? "one of --model, --model-config or --params is required"
                                    : "one of --model or --model-config is required");
  }
  const bool from_catalog = model != nullptr && !cache_layout_changed;
  if (owned) {
    model = owned.get();  // the object stays where it is as the pointer moves into d
  }
  Deployment d{.owned_model = std::move(owned), .model = *model, .model_from_catalog = from_catalog};
  d.gpu = &lookup_gpu(catalog, o.gpu, "--gpu");
  FitRequest& req = d.request;
  req.mig_profile = o.mig;
  WeightChoice choice;
  const auto format = [](const std::string& text, std::string_view flag) -> std::optional<WeightFormat> {
    return text.empty() ? std::nullopt : std::optional(parse_weight_format(lower_case(text), flag));
  };
  choice.all = format(o.weights_dtype, "--weights-dtype");
  if (!choice.all && o.model_given) {
    choice = choice_named_by(d.model, o.model);
  }
  // A flag names a part's format over what the release's name implies.
  const auto over = [&](std::optional<WeightFormat>& part, const std::string& text, std::string_view flag) {
    if (auto f = format(text, flag)) {
      part = f;
    }
  };
  over(choice.experts, o.experts_dtype, "--experts-dtype");
  over(choice.attention, o.attention_dtype, "--attention-dtype");
  over(choice.embeddings, o.embeddings_dtype, "--embeddings-dtype");
  if (!d.model.has_architecture() && (choice.experts || choice.attention || choice.embeddings)) {
    throw InputError(fmt::format("{}: --params gives no architecture to split; use --weights-dtype alone",
                                 choice.experts     ? "--experts-dtype"
                                 : choice.attention ? "--attention-dtype"
                                                    : "--embeddings-dtype"));
  }
  // Nor a KV cache or activations to size: a flag that sizes them would be echoed and ignored.
  if (!d.model.has_architecture()) {
    const char* load_flag = !o.kv_dtype.empty()     ? "--kv-dtype"
                            : o.block_size           ? "--block-size"
                            : o.prefill_chunk_given ? "--prefill-chunk"
                                                     : nullptr;
    if (load_flag != nullptr) {
      throw InputError(fmt::format("{}: {}", load_flag, kParamsWeightsOnly));
    }
  }
  if (!d.model.has_architecture() && !choice.all) {
    choice.all = default_format(DType::bf16);  // a bare size ships in no known format
  }
  const WeightFormats formats = choose_weight_formats(d.model, choice);
  req.weight_formats = formats;
  req.weights_dtype = dominant_dtype(d.model, formats);
  req.embeddings_dtype = formats[WeightPart::embedding].element;
  req.memory_utilization = o.memory_utilization;
  req.reserve_bytes = units::parse_bytes(o.reserve, "--reserve");
  req.prefill_chunk_tokens = o.prefill_chunk;
  req.gpus_per_node = gpus_per_node(o, *d.gpu);
  req.layout.ep = o.ep;
  req.engine = engine_settings(o);
  req.kv_dtype = o.kv_dtype.empty() ? engine_default_kv_dtype(d.model, formats, *d.gpu, req.engine.engine)
                                    : parse_kv_dtype(lower_case(o.kv_dtype), "--kv-dtype");
  req.block_tokens = o.block_size.value_or(engine_default_block_tokens(req.engine.engine));
  if (!engine_accepts_block_tokens(req.engine.engine, req.block_tokens)) {
    throw InputError(fmt::format("--block-size: --engine {} takes {}, not {}", to_string(req.engine.engine),
                                 req.engine.engine == Engine::vllm ? "1, 8, 16, 32, 64, 128 or 256"
                                                                   : "a power of two (8, 16, 32, 64, ...)",
                                 req.block_tokens));
  }

  const std::uint64_t gpus = o.nodes > 0 ? o.nodes * req.gpus_per_node : o.gpus;
  constexpr std::uint64_t kMaxGpus = 65536;
  if (gpus > kMaxGpus) {
    throw InputError(fmt::format("--nodes: {} nodes x {} GPUs is more than {} GPUs", o.nodes,
                                 req.gpus_per_node, kMaxGpus));
  }
  d.layout_given = o.tp != 0 || o.pp != 0;
  if (!d.layout_given) {
    d.gpus = gpus == 0 ? 1 : gpus;
    return d;
  }
  req.layout.tp = o.tp == 0 ? 1 : o.tp;
  req.layout.pp = o.pp == 0 ? 1 : o.pp;
  const std::uint64_t replica = req.layout.tp * req.layout.pp;
  d.gpus = gpus == 0 ? replica : gpus;
  if (d.gpus % replica != 0) {
    throw InputError(fmt::format("--gpus: {} GPUs are not a whole number of TP {} x PP {} replicas",
                                 d.gpus, req.layout.tp, req.layout.pp));
  }
  req.layout.dp = d.gpus / replica;
  return d;
}

std::uint64_t gpus_per_node(const DeploymentOptions& o, const GpuSpec& gpu) {
  if (o.gpus_per_node > 0) {
    require_node_size(gpu, o.gpus_per_node, "--gpus-per-node");
  }
  return o.gpus_per_node > 0 ? o.gpus_per_node : gpu.default_gpus_per_node();
}

FitCache* fit_cache_for(const Deployment& d) { return d.model_from_catalog ? batch_fit_cache() : nullptr; }

std::string with_flag(const InputError& e) {
  const std::string_view what = e.what();
  for (const auto& [field, flag] : kFieldFlags) {
    if (what.starts_with(field)) {
      return fmt::format("{}{}", flag, what.substr(field.size()));
    }
  }
  return std::string(what);
}

Exit batch_input_error(const InputError& e) {
  if (!json_lines()) {
    rethrow_with_flag(e);
  }
  set_batch_error(with_flag(e));
  return Exit::bad_input;
}

void rethrow_with_flag(const InputError& e) {
  const std::string message = with_flag(e);
  if (message != e.what()) {
    throw InputError(message);
  }
  throw e;
}

}  // namespace gpuplan::cli
