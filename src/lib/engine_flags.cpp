#include <gpuplan/engine_flags.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>
#include <gpuplan/units.hpp>

namespace gpuplan {
namespace {

/// Each engine's spelling of the settings.
struct Spelling {
  std::vector<std::string> program;
  std::string model;  // empty: positional
  std::string tp, pp, ep;   // ep empty: a bare switch `ep_switch`
  std::string ep_switch;
  std::string dp;            // data-parallel ranks of one engine (empty: not a flag)
  std::string dp_attention;  // the switch that makes them DP attention (empty: implied, or YAML)
  std::string seqs, len, share;
  std::string dtype, quantization, kv;
  std::string kv_fp8;
  std::string eager;  // the switch that runs without CUDA graphs (empty: none)
};

const Spelling& spelling(Engine e) {
  static const Spelling vllm{.program = {"vllm", "serve"}, .model = "", .tp = "--tensor-parallel-size",
                             .pp = "--pipeline-parallel-size", .ep = "", .ep_switch = "--enable-expert-parallel",
                             .dp = "--data-parallel-size", .dp_attention = "",
                             .seqs = "--max-num-seqs", .len = "--max-model-len", .share = "--gpu-memory-utilization",
                             .dtype = "--dtype", .quantization = "--quantization", .kv = "--kv-cache-dtype", .kv_fp8 = "fp8",
                             .eager = "--enforce-eager"};
  static const Spelling sglang{.program = {"python", "-m", "sglang.launch_server"}, .model = "--model-path",
                               .tp = "--tp-size", .pp = "--pp-size", .ep = "--ep-size", .ep_switch = "",
                               .dp = "--dp-size", .dp_attention = "--enable-dp-attention",
                               .seqs = "--max-running-requests", .len = "--context-length",
                               .share = "--mem-fraction-static", .dtype = "--dtype", .quantization = "--quantization",
                               .kv = "--kv-cache-dtype", .kv_fp8 = "fp8_e4m3", .eager = "--disable-cuda-graph"};
  static const Spelling trtllm{.program = {"trtllm-serve"}, .model = "", .tp = "--tp_size", .pp = "--pp_size",
                               .ep = "--ep_size", .ep_switch = "", .dp = "", .dp_attention = "",
                               .seqs = "--max_batch_size", .len = "--max_seq_len",
                               .share = "--kv_cache_free_gpu_memory_fraction", .dtype = "", .quantization = "",
                               .kv = "", .kv_fp8 = "fp8", .eager = ""};
  switch (e) {
    case Engine::vllm: return vllm;
    case Engine::sglang: return sglang;
    case Engine::trtllm: return trtllm;
    case Engine::neutral: break;
  }
  throw InputError("engine.name: give vllm, sglang or trtllm");
}

/// bitsandbytes' NF4, with or without double quantization (the two presets that name it).
bool bitsandbytes_format(const WeightFormat& f) {
  return f == parse_weight_format("nf4", "") || f == parse_weight_format("nf4-dq", "");
}

bool sixteen_bit(DType w) { return w == DType::bf16 || w == DType::fp16 || w == DType::fp32; }

std::string_view torch_dtype(DType w) {
  return w == DType::fp16 ? "float16" : (w == DType::fp32 ? "float32" : "bfloat16");
}

constexpr std::string_view kAttentionDpYaml = "enable_attention_dp: true";
constexpr std::string_view kChunkedPrefillYaml = "enable_chunked_prefill: true";

std::uint64_t parse_count(std::string_view flag, std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < 1) {
    throw InputError(fmt::format("{}: expected a positive whole number, got '{}'", flag, text));
  }
  return v;
}

/// How each engine runs one replica over several nodes (the command above is the same on each).
std::string multi_node_note(Engine e, const Layout& l, std::uint64_t gpus_per_node) {
  const std::uint64_t nodes = (l.gpus() + gpus_per_node - 1) / gpus_per_node;
  const std::string head = fmt::format("{} GPUs span {} nodes: ", l.gpus(), nodes);
  switch (e) {
    case Engine::vllm:
      if (l.dp > 1) {
        return head + fmt::format("run it on each node with --data-parallel-size-local {} and --data-parallel-address of the "
                                  "first node (--headless --data-parallel-start-rank {} x node index on the others)",
                                  l.dp / nodes, l.dp / nodes);
      }
      return head + "start a Ray cluster over them and run it on the head node";
    case Engine::sglang:
      return head + fmt::format("run it on each node with --nnodes {} --node-rank 0..{} --dist-init-addr FIRST_NODE:PORT",
                                nodes, nodes - 1);
    case Engine::trtllm:
      return head + fmt::format("launch it over them with mpirun or srun (trtllm-llmapi-launch), {} ranks a node",
                                gpus_per_node);
    case Engine::neutral: break;
  }
  return head;
}

}  // namespace

std::string EngineLaunch::command() const { return fmt::format("{}", fmt::join(argv, " ")); }

EngineLaunch launch_command(Engine engine, const LaunchSettings& s) {
  const Spelling& sp = spelling(engine);
  EngineLaunch out;
  out.engine = engine;
  out.argv = sp.program;
  if (!sp.model.empty()) {
    out.argv.push_back(sp.model);
  }
  // Weights in a format the named checkpoint does not ship need a checkpoint in that format
  // (vLLM and SGLang quantize only to FP8 as they load, and only a 16-bit checkpoint: one that
  // ships another method stops both at start, its quantization_config against --quantization):
  // the command names a placeholder for it, never a 16-bit repo it would serve unquantized at
  // two to four times the planned memory.
  const bool quantized = !sixteen_bit(s.weights_dtype);
  const bool ships = s.checkpoint_dtype == s.weights_dtype;
  const bool on_load = s.weights_dtype == DType::fp8 && engine != Engine::trtllm && !s.checkpoint_dtype;
  // Quantizing on load needs the 16-bit shard on the GPU first where the engine loads it whole:
  // when that is more than the GPU holds the command names an FP8 checkpoint instead.
  const bool load_over_gpu = on_load && s.gpu_memory_bytes > 0 && s.sixteen_bit_load_bytes > s.gpu_memory_bytes;
  const bool quantizes_on_load = on_load && !load_over_gpu;
  const bool placeholder = quantized && !ships && !quantizes_on_load;
  out.argv.push_back(placeholder ? fmt::format("<{}-checkpoint-of-{}>", to_string(s.weights_dtype), s.model) : s.model);
  if (placeholder) {
    // The tools that write each format: AWQ is 4-bit integers only, GPTQ integers, NVFP4 comes
    // from ModelOpt or llm-compressor, MXFP4 from Quark or llm-compressor.
    const auto makers = [&s, engine]() -> std::string_view {
      if (engine == Engine::trtllm) {
        return "TensorRT Model Optimizer";
      }
      switch (s.weights_dtype) {
        case DType::int4: return "AWQ, GPTQ, compressed-tensors or ModelOpt";
        case DType::int8: return "GPTQ or compressed-tensors";
        case DType::fp4: return "ModelOpt or compressed-tensors";
        // vLLM runs Quark's MXFP4 natively only where the platform supports MX (AMD gfx95x,
        // MI350-class); on NVIDIA it dequantizes the weights to 16 bits every pass
        // (quark/schemes/quark_ocp_mx.py: emulate = not current_platform.supports_mx()).
        // compressed-tensors' MXFP4 runs W4A4 on FP4 tensor cores only in vLLM with FlashInfer on
        // SM100 (vllm#41664) and with activations quantized too; W4A16 checkpoints and SGLang run
        // Marlin or bf16 kernels (perf.cpp dense_mxfp4_in_sixteen_bits).
        case DType::mxfp4:
          return "compressed-tensors, with MXFP4 activations (W4A4) for vLLM's FP4 tensor-core path on Blackwell "
                 "(a W4A16 checkpoint runs in 16 bits); Quark's MXFP4 runs natively only on AMD MI350-class GPUs, "
                 "elsewhere vLLM dequantizes it to 16 bits every pass";
        default: return "compressed-tensors or ModelOpt";
      }
    };
    out.notes.push_back(fmt::format("{} weights: replace {} by a checkpoint of {} quantized to {} ({}); the engine "
                                    "reads the method from its quantization_config",
                                    to_string(s.weights_dtype), out.argv.back(), s.model, to_string(s.weights_dtype),
                                    makers()));
    if (load_over_gpu) {
      out.notes.push_back(fmt::format(
          "not --quantization fp8 on {}: {} loads its 16-bit weights whole before quantizing them, {:.1f} GB per GPU "
          "at TP {} PP {}, more than the GPU's {:.1f} GB (an FP8 release of the publisher, often named -FP8, "
          "serves as it is)",
          s.model, to_string(engine), s.sixteen_bit_load_bytes / units::kGB, s.layout.tp, s.layout.pp,
          s.gpu_memory_bytes / units::kGB));
    }
  }
  const auto add = [&out](const std::string& flag, std::string value) {
    out.argv.push_back(flag);
    out.argv.push_back(std::move(value));
  };
  if (engine == Engine::trtllm) {
    add("--backend", "pytorch");
  }
  const Layout& l = s.layout;
  // The engines count DP ranks differently: vLLM takes TP per rank and the ranks; SGLang a TP
  // size over every rank, the ranks and the DP-attention switch (attention TP = tp-size / dp-size),
  // and a request cap over every rank; TensorRT-LLM's attention DP makes every rank of tp_size
  // one (attention at TP 1, enable_attention_dp in the YAML), each with its own max_batch_size.
  std::uint64_t seqs = s.max_num_seqs;
  if (engine == Engine::trtllm && l.dp > 1) {
    if (!l.dp_attention() || l.tp > 1) {
      throw InputError(fmt::format("engine.layout: trtllm-serve runs DP only as attention DP at TP 1 with the "
                                   "experts over every rank; TP {} DP {} EP {} is one command per replica",
                                   l.tp, l.dp, l.ep));
    }
    add(sp.tp, std::to_string(l.dp));
  } else if (engine == Engine::sglang && l.dp > 1) {
    add(sp.tp, std::to_string(l.tp * l.dp));
    seqs *= l.dp;
  } else {
    add(sp.tp, std::to_string(l.tp));
  }
  add(sp.pp, std::to_string(l.pp));
  if (l.dp > 1 && !sp.dp.empty()) {
    add(sp.dp, std::to_string(l.dp));
    if (l.dp_attention() && !sp.dp_attention.empty()) {
      out.argv.push_back(sp.dp_attention);
    }
  }
  if (l.ep > 1) {
    if (sp.ep.empty()) {
      out.argv.push_back(sp.ep_switch);  // vLLM: experts over TP x DP GPUs
    } else {
      add(sp.ep, std::to_string(l.ep));
    }
  }
  if (engine == Engine::trtllm && l.pp > 1) {
    seqs = (seqs + l.pp - 1) / l.pp;  // its max_batch_size is a micro-batch's, PP of them in flight
  }
  add(sp.seqs, std::to_string(seqs));
  add(sp.len, std::to_string(s.max_model_len));
  add(sp.share, fmt::format("{:g}", s.memory_share));
  if (s.trust_remote_code) {
    out.argv.push_back(engine == Engine::trtllm ? "--trust_remote_code" : "--trust-remote-code");
  }
  if (s.eager) {
    if (sp.eager.empty()) {
      throw InputError(fmt::format("engine.eager: {} has no switch to run without CUDA graphs", to_string(engine)));
    }
    out.argv.push_back(sp.eager);
  }
  if (engine == Engine::trtllm) {
    if (l.dp > 1) {
      out.config_yaml.push_back(std::string(kAttentionDpYaml));
    }
    if (s.kv_dtype == DType::fp8) {
      out.config_yaml.push_back("kv_cache_config:");
      out.config_yaml.push_back("  dtype: fp8");
    }
    // trtllm-serve has no flag for it (NVIDIA/TensorRT-LLM#4947) and leaves it off: without it a
    // prompt longer than max_num_tokens is refused, not chunked.
    if (s.chunked_prefill) {
      out.config_yaml.push_back(std::string(kChunkedPrefillYaml));
    }
    if (!out.config_yaml.empty()) {
      add("--extra_llm_api_options", "plan.yaml");
    }
  } else {
    // A quantized checkpoint's activations run in the GPU's 16-bit type: without bf16 (Volta,
    // Turing) say fp16, as a bf16 config would otherwise reach fp16-only kernels.
    if (!quantized || s.fp16_only) {
      add(sp.dtype, std::string(torch_dtype(quantized ? DType::fp16 : s.weights_dtype)));
    }
    // Only FP8 from a 16-bit checkpoint is named (quantized on load). A quantized checkpoint's
    // method is the engine's to read: naming it forces a kernel (vLLM's `--quantization awq` is the
    // pre-Marlin one, up to 5x slower: vllm#21376) or, where it differs, stops both engines.
    // vLLM on Gaudi (vllm-gaudi) has no on-load `fp8` method: FP8 weights and cache run through
    // Intel Neural Compressor from a calibrated model, "export QUANT_CONFIG=... vllm serve ...
    // --quantization inc --kv-cache-dtype fp8_inc" ("Measurement files are required to run quantized
    // models with vLLM on Gaudi accelerators", docs.vllm.ai/en/v0.10.0/features/quantization/inc.html;
    // "inference depends on prior calibration", docs.vllm.ai/projects/gaudi/en/0.13.0/configuration/
    // quantization/inc.html).
    const bool inc = engine == Engine::vllm && s.gaudi;
    if (quantizes_on_load && !ships) {
      add(sp.quantization, inc ? "inc" : "fp8");
    } else if (inc && s.kv_dtype == DType::fp8) {
      add(sp.quantization, "inc");  // INC quantizes the cache too, with the model's calibration
    }
    // Except a method stated only in a sidecar file (AutoAWQ's quant_config.json, AutoGPTQ's
    // quantize_config.json): vLLM takes the method from config.json alone
    // (ModelConfig._verify_quantization, vllm/config/model.py @18ec6629) and reads the sidecar
    // only for the method it was given (get_quant_config, model_loader/weight_utils.py @0035bdf2);
    // without the flag it builds a 16-bit model the int4 tensors do not load into.
    if (!s.sidecar_quant_method.empty() && ships) {
      add(sp.quantization, s.sidecar_quant_method);
    }
    add(sp.kv, s.kv_dtype == DType::fp8 ? (inc ? "fp8_inc" : sp.kv_fp8) : "auto");
    if (inc && (quantizes_on_load || s.kv_dtype == DType::fp8)) {
      out.notes.push_back(fmt::format(
          "Gaudi (vllm-gaudi): FP8 runs through Intel Neural Compressor, which needs a calibration first "
          "(calibrate_model.sh of vllm-hpu-extension, on the same Gaudi generation: Gaudi 3 scales do not serve "
          "Gaudi 2); then export QUANT_CONFIG=<its quantization JSON> before this command{}. Without it, serve "
          "bf16 weights with --kv-cache-dtype auto (docs.vllm.ai/projects/gaudi, configuration/quantization/inc)",
          quantizes_on_load ? "" : " (its allowlist the KV cache alone, to keep the weights in 16 bits)"));
    }
  }
  if (l.gpus() > s.gpus_per_node && s.gpus_per_node > 0) {
    out.notes.push_back(multi_node_note(engine, l, s.gpus_per_node));
  }
  if (std::string note = sglang_unscaled_context_note(s.unscaled_context_tokens, s.max_model_len,
                                                      fmt::format("--context-length {}", s.max_model_len));
      engine == Engine::sglang && !note.empty()) {
    out.notes.push_back(std::move(note));
  }
  return out;
}

LaunchSettings parse_launch_command(Engine engine, const std::vector<std::string>& argv,
                                    const std::vector<std::string>& config_yaml) {
  const Spelling& sp = spelling(engine);
  LaunchSettings s;
  bool ep_switch = false;
  bool dp_attention = false;
  std::size_t i = sp.program.size();
  if (argv.size() < i || !std::equal(sp.program.begin(), sp.program.end(), argv.begin())) {
    throw InputError(fmt::format("engine.command: expected it to start with '{}'", fmt::join(sp.program, " ")));
  }
  const auto value = [&argv, &i](const std::string& flag) -> const std::string& {
    if (i + 1 >= argv.size()) {
      throw InputError(fmt::format("{}: expected a value", flag));
    }
    return argv[++i];
  };
  std::optional<DType> quantized;
  bool inc = false;
  bool dtype_given = false;
  for (; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (!a.starts_with("-")) {
      s.model = a;
    } else if (a == sp.model && !sp.model.empty()) {
      s.model = value(a);
    } else if (a == sp.tp) {
      s.layout.tp = parse_count(a, value(a));
    } else if (a == sp.pp) {
      s.layout.pp = parse_count(a, value(a));
    } else if (!sp.ep.empty() && a == sp.ep) {
      s.layout.ep = parse_count(a, value(a));
    } else if (!sp.ep_switch.empty() && a == sp.ep_switch) {
      ep_switch = true;
    } else if (!sp.dp.empty() && a == sp.dp) {
      s.layout.dp = parse_count(a, value(a));
    } else if (!sp.dp_attention.empty() && a == sp.dp_attention) {
      dp_attention = true;
    } else if (!sp.eager.empty() && a == sp.eager) {
      s.eager = true;
    } else if (a == sp.seqs) {
      s.max_num_seqs = parse_count(a, value(a));
    } else if (a == sp.len) {
      s.max_model_len = parse_count(a, value(a));
    } else if (a == sp.share) {
      const std::string& v = value(a);
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), s.memory_share);
      if (ec != std::errc{} || end != v.data() + v.size() || !(s.memory_share > 0 && s.memory_share <= 1)) {
        throw InputError(fmt::format("{}: expected a share in (0, 1], got '{}'", a, v));
      }
    } else if (!sp.dtype.empty() && a == sp.dtype) {
      dtype_given = true;
      const std::string& v = value(a);
      s.weights_dtype = v == "float16" ? DType::fp16 : (v == "float32" ? DType::fp32 : DType::bf16);
    } else if (!sp.quantization.empty() && a == sp.quantization) {
      const std::string& v = value(a);
      // gpuplan writes only fp8; a command written by hand may name the method of its checkpoint.
      static const std::map<std::string_view, DType> methods{
          {"fp8", DType::fp8},         {"awq", DType::int4},          {"awq_marlin", DType::int4},
          {"gptq", DType::int4},       {"gptq_marlin", DType::int4},  {"w8a8_int8", DType::int8},
          {"modelopt_fp4", DType::fp4}, {"mxfp4", DType::mxfp4}};
      // Gaudi's INC quantizes what its QUANT_CONFIG lists: FP8 weights unless a --dtype keeps
      // them at 16 bits (gpuplan writes one only then, the KV cache alone in FP8).
      if (v == "inc") {
        inc = true;
        continue;
      }
      const auto m = methods.find(v);
      if (m == methods.end()) {
        throw InputError(fmt::format("{}: '{}' names no single weights format gpuplan knows (give fp8, awq, gptq, "
                                     "w8a8_int8, modelopt_fp4 or mxfp4)", a, v));
      }
      quantized = m->second;
    } else if (!sp.kv.empty() && a == sp.kv) {
      const std::string& v = value(a);
      s.kv_dtype = v.starts_with("fp8") ? DType::fp8 : DType::bf16;
      inc = inc || v == "fp8_inc";
    } else if (i + 1 < argv.size() && !argv[i + 1].starts_with("-")) {
      ++i;  // another flag's value
    }
  }
  if (quantized) {
    s.weights_dtype = *quantized;
  } else if (inc && !dtype_given) {
    s.weights_dtype = DType::fp8;
  }
  s.gaudi = engine == Engine::vllm && inc;  // only vllm-gaudi writes INC: the command is Gaudi's
  s.chunked_prefill = engine == Engine::trtllm &&
                      std::find(config_yaml.begin(), config_yaml.end(), kChunkedPrefillYaml) != config_yaml.end();
  if (engine == Engine::trtllm &&
      std::find(config_yaml.begin(), config_yaml.end(), kAttentionDpYaml) != config_yaml.end()) {
    s.layout.dp = s.layout.tp;  // every rank of tp_size attends alone
    s.layout.tp = 1;
  }
  if (dp_attention) {  // SGLang: --tp-size spans the ranks, --max-running-requests too
    if (s.layout.tp % s.layout.dp != 0) {
      throw InputError(fmt::format("{}: {} ranks do not divide --tp-size {}", sp.dp, s.layout.dp, s.layout.tp));
    }
    s.layout.tp /= s.layout.dp;
    s.max_num_seqs = std::max<std::uint64_t>(1, s.max_num_seqs / s.layout.dp);
  }
  if (ep_switch) {
    s.layout.ep = s.layout.tp * s.layout.dp;  // vLLM: the experts over every GPU of the ranks
  }
  if (engine == Engine::trtllm) {
    s.max_num_seqs *= s.layout.pp;  // a micro-batch's, PP of them in flight
  }
  return s;
}

bool engine_loads_sixteen_bit_whole(Engine engine, std::optional<int> vllm_minor) {
  switch (engine) {
    case Engine::sglang: return true;
    case Engine::vllm: return vllm_minor.value_or(kVllmStreamingFp8Minor) < kVllmStreamingFp8Minor;
    case Engine::trtllm:
    case Engine::neutral: break;
  }
  return false;
}

std::string sglang_unscaled_context_note(std::uint64_t unscaled_tokens, std::uint64_t context,
                                         std::string_view for_what) {
  if (unscaled_tokens == 0 || context <= unscaled_tokens) {
    return "";
  }
  return fmt::format("SGLang reads the model's length as {} tokens (RoPE scaling not applied): run it with "
                     "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 for {}",
                     unscaled_tokens, for_what);
}

std::optional<std::string> engine_weights_refusal(Engine engine, const GpuSpec& gpu, const WeightFormat& format,
                                                  bool experts) {
  const DType weights = format.element;
  const bool fp4 = weights == DType::fp4 || weights == DType::mxfp4;
  const char* type = fp4 ? "fp4" : "fp8";
  const auto has = [&gpu](const char* t) { return gpu.dense_flop_per_s.contains(t); };
  if (engine == Engine::neutral) {
    return std::nullopt;
  }
  // TensorRT-LLM's quantization recipes are FP4, FP8 and W4A16/W4A8 AWQ and GPTQ
  // (docs/source/features/quantization.md, NVIDIA/TensorRT-LLM 09d4c79): no bitsandbytes.
  // vLLM's ROCm platform lists bitsandbytes (vllm/platforms/rocm.py supported_quantization,
  // vllm-project/vllm 001eda3) although its docs table marks it unsupported on AMD: not refused.
  if (engine == Engine::trtllm && bitsandbytes_format(format)) {
    return fmt::format("trtllm refuses {} (bitsandbytes) weights: TensorRT-LLM has no bitsandbytes recipe; int4 "
                       "weights (W4A16 AWQ or GPTQ, e.g. --weights-dtype int4-g128-zp) run instead",
                       to_string(format));
  }
  // vLLM's W8A8 int8 (compressed-tensors/SmoothQuant, activations quantized too) runs on CUTLASS's
  // int8 scaled-mm, which is not built for Blackwell: "Int8 not supported on SM1xx. Use FP8
  // quantization instead, or run on older arch (SM < 100)" (vllm-project/vllm PR #25935, merged
  // 2025-09-30); the Triton int8 fallback is unreachable there, "same on sm100" (issue #54311,
  // open 2026-08-29; fix PR #54316 open). Weight-only int8 (W8A16: GPTQ 8-bit through Marlin) is
  // not affected. The catalog gives no compute capability: FP4 tensor cores on an NVIDIA GPU mark
  // Blackwell (SM100, SM103, SM120, SM121).
  if (engine == Engine::vllm && weights == DType::int8 && format.activation_bits != 16 && gpu.vendor == "nvidia" &&
      has("fp4")) {
    return fmt::format("vllm refuses int8 (W8A8) weights on {}: vLLM's int8 scaled-mm kernels are not built for "
                       "Blackwell (\"Int8 not supported on SM1xx\", vllm PR #25935; fix pending, issue #54311); "
                       "fp8 weights, or weight-only int8 (--weights-dtype w8a16, GPTQ 8-bit), run there",
                       gpu.id);
  }
  if ((!fp4 && weights != DType::fp8) || has(type)) {
    return std::nullopt;
  }
  // The catalog gives no compute capability: no bf16 marks Volta and Turing, and Turing alone of
  // them has int8 tensor cores. Turing's FP8 depends on the vLLM release, so it is not refused.
  const bool before_ampere = !has("bf16");
  if (before_ampere && (fp4 || !has("int8"))) {
    return fmt::format("{} refuses {} weights on {}: it has no {} tensor cores and, before Ampere, no weight-only "
                       "kernels for them either (int8 or int4 weights run there)",
                       to_string(engine), to_string(weights), gpu.id, type);
  }
  if (engine == Engine::trtllm && fp4) {
    // TensorRT-LLM's hardware support matrix (docs/source/features/quantization.md, NVIDIA/
    // TensorRT-LLM 09d4c79) gives NVFP4 and MXFP4 on Blackwell only. gpt-oss's MXFP4 experts
    // also run on Hopper, with bf16 activations (TRITON or CUTLASS MoE backend:
    // examples/models/core/gpt_oss/README.md, 0ee4114); Ada and Ampere are in neither table.
    // No compute capability in the catalog: FP64 tensor cores beside FP8 ones mark Hopper (Ada
    // has FP8 without FP64; Blackwell has FP4).
    const bool hopper = has("fp8") && has("fp64");
    if (weights == DType::mxfp4 && experts && hopper) {
      return std::nullopt;
    }
    const char* instead = has("fp8") ? "fp8 or int4 weights (W4A16 AWQ or GPTQ) run there"
                                     : "int4 weights (W4A16 AWQ or GPTQ) run there";
    if (weights == DType::mxfp4) {
      return fmt::format("trtllm refuses mxfp4 weights on {}: TensorRT-LLM runs MXFP4 on Blackwell, and on Hopper "
                         "only in MoE experts (gpt-oss's W4A16 MoE); {}",
                         gpu.id, instead);
    }
    return fmt::format("trtllm refuses fp4 (NVFP4) weights on {}: TensorRT-LLM runs NVFP4 on Blackwell's FP4 tensor "
                       "cores only, with no weight-only kernels; {}",
                       gpu.id, instead);
  }
  // TensorRT-LLM's precision table gives FP8 from Ada on; it has no weight-only FP8 (Marlin).
  if (engine == Engine::trtllm && !fp4) {
    return fmt::format("trtllm refuses fp8 weights on {}: TensorRT-LLM runs FP8 on FP8 tensor cores only (Ada, "
                       "Hopper, Blackwell), with no weight-only kernels (int8 or int4 weights run there)",
                       gpu.id);
  }
  return std::nullopt;
}

std::optional<std::string> engine_checkpoint_refusal(Engine engine, const GpuSpec& gpu, const ModelSpec& model) {
  if (engine == Engine::neutral || !model.checkpoint_quant) {
    return std::nullopt;
  }
  const ModelSpec::CheckpointQuant& q = *model.checkpoint_quant;
  const auto has = [&gpu](const char* t) { return gpu.dense_flop_per_s.contains(t); };
  if (q.method == "awq" && q.bits != 4) {
    // vLLM and SGLang: AWQConfig.__init__ raises this (vllm-project/vllm vllm/model_executor/layers/
    // quantization/awq.py @000796ac; sgl-project/sglang python/sglang/srt/layers/quantization/
    // awq.py @0149944f). Their AWQ Marlin takes uint4 alone with zero points (marlin_utils.py
    // query_marlin_supported_quant_types, has_zp: [uint4]), so 8 bits reach AWQConfig on every GPU.
    // TensorRT-LLM's AWQ algorithms are W4A16_AWQ and W4A8_AWQ (QuantAlgo, NVIDIA/TensorRT-LLM
    // tensorrt_llm/quantization/mode.py @d879430b): 4-bit only.
    if (engine == Engine::trtllm) {
      return fmt::format("{}/bits: trtllm refuses AWQ weights of {} bits: TensorRT-LLM's AWQ is 4-bit only "
                         "(W4A16_AWQ, W4A8_AWQ); 8-bit weights run as W8A16 or GPTQ",
                         q.where, q.bits);
    }
    return fmt::format("{}/bits: {} refuses AWQ weights of {} bits (\"Currently, only 4-bit weight quantization is "
                       "supported for AWQ, but got {} bits.\"); 8-bit weights run as GPTQ",
                       q.where, to_string(engine), q.bits, q.bits);
  }
  // The AWQ kernel "only supports Turing or newer GPUs": get_min_capability() 75 in both awq.py
  // files above; vLLM then stops with "The quantization method awq is not supported for the
  // current GPU. Minimum capability: 75." (GPTQ's kernels take Volta). No compute capability in
  // the catalog: neither bf16 nor int8 tensor cores marks Volta.
  if (q.method == "awq" && (engine == Engine::vllm || engine == Engine::sglang) && gpu.vendor == "nvidia" &&
      !has("bf16") && !has("int8")) {
    return fmt::format("{}/quant_method: {} refuses AWQ weights on {} (\"The quantization method awq is not supported "
                       "for the current GPU. Minimum capability: 75.\"): its AWQ kernels need Turing or newer; "
                       "a GPTQ checkpoint runs there",
                       q.where, to_string(engine), gpu.id);
  }
  // torchao's serialized tensors load through vLLM's and SGLang's TorchAOConfig ("torchao" in both
  // registries); TensorRT-LLM's quantization algorithms (QuantAlgo, tensorrt_llm/quantization/
  // mode.py) have no torchao entry, and its checkpoint loaders read ModelOpt, FP8 and
  // compressed-tensors configs (INFERRED: no torchao path found in its sources).
  if (q.method == "torchao" && engine == Engine::trtllm) {
    return fmt::format("{}/quant_method: trtllm refuses torchao checkpoints: TensorRT-LLM has no torchao loader; "
                       "serve it with vllm or sglang, or use a ModelOpt checkpoint",
                       q.where);
  }
  // torchao's Float8 dynamic-activation tensors assert the GPU before they multiply: "Float8
  // dynamic activation quantization is only supported on CUDA>=8.9 and MI300+" (pytorch/ao
  // torchao/quantization/quant_api.py, _float8_dynamic_activation_float8_weight_transform and
  // the float8 granularity checks). vLLM's FP8 Marlin fallback is its own fp8 method's, not
  // TorchAOConfig's. No FP8 tensor cores in the catalog marks those GPUs.
  if (q.method == "torchao" && (engine == Engine::vllm || engine == Engine::sglang) && !has("fp8") &&
      model.shipped_formats &&
      std::ranges::any_of(model.shipped_formats->parts,
                          [](const WeightFormat& f) { return f.element == DType::fp8 && f.activation_bits != 16; })) {
    return fmt::format("{}/quant_type: {} cannot run this torchao Float8 checkpoint on {}: torchao's float8 "
                       "dynamic-activation kernels need FP8 tensor cores (\"only supported on CUDA>=8.9 and MI300+\"); "
                       "a bf16 or int8 checkpoint runs there",
                       q.where, to_string(engine), gpu.id);
  }
  // ModelOpt's W4A8_AWQ is INT4 weights with FP8 activations, "Ada and Later" (Model Optimizer's
  // support matrix, https://nvidia.github.io/Model-Optimizer/guides/0_support_matrix.html):
  // TensorRT-LLM runs its GEMMs on FP8 tensor cores.
  if (q.method == "modelopt" && q.algo == "W4A8_AWQ" && engine == Engine::trtllm && !has("fp8")) {
    return fmt::format("{}/quant_algo: trtllm refuses W4A8_AWQ (int4 weights, FP8 activations) on {}: it needs FP8 "
                       "tensor cores (Ada and later); a W4A16_AWQ checkpoint runs there",
                       q.where, gpu.id);
  }
  // vLLM and SGLang load ModelOpt checkpoints of a few algorithms only, on every GPU: vLLM's
  // ModelOptConfig raises "ModelOpt currently only supports: {QUANT_ALGOS} quantizations in vLLM"
  // (FP8 variants, NVFP4, W4A16_NVFP4, MXFP8, MIXED_PRECISION; vllm-project/vllm
  // vllm/model_executor/layers/quantization/modelopt.py), SGLang "ModelOpt currently only supports:
  // FP8, NVFP4 quantizations in sglang" (NVFP4 variants normalized; sgl-project/sglang
  // python/sglang/srt/layers/quantization/modelopt_quant.py). W4A8_AWQ, W4A16_AWQ and INT8
  // SmoothQuant are TensorRT-LLM's alone (review s52 finding 1).
  if (q.method == "modelopt" && !q.algo.empty() && (engine == Engine::vllm || engine == Engine::sglang)) {
    const bool nvfp4 = q.algo.starts_with("NVFP4");
    const bool fp8 = q.algo.starts_with("FP8");
    const bool vllm_only = q.algo == "W4A16_NVFP4" || q.algo == "MXFP8" || q.algo == "MIXED_PRECISION";
    if (!(nvfp4 || fp8 || (engine == Engine::vllm && vllm_only))) {
      return fmt::format("{}/quant_algo: {} refuses ModelOpt {} (\"ModelOpt currently only supports: {} "
                         "quantizations\"): serve it with trtllm",
                         q.where, to_string(engine), q.algo,
                         engine == Engine::vllm ? "FP8, NVFP4, W4A16_NVFP4, MXFP8, MIXED_PRECISION" : "FP8, NVFP4");
    }
  }
  return std::nullopt;
}

// Review s59 F2: a load_in_8bit checkpoint had been refused on every Blackwell GPU under vLLM.
bool bitsandbytes_int8_checkpoint(const ModelSpec& model, const WeightFormat& served, const WeightFormat& shipped) {
  return model.checkpoint_quant && model.checkpoint_quant->method == "bitsandbytes" && served.element == DType::int8 &&
         served == shipped;
}

std::optional<std::string> engine_weights_refusal(Engine engine, const GpuSpec& gpu, DType weights) {
  return engine_weights_refusal(engine, gpu, default_format(weights), false);
}

namespace {

/// A model type vLLM loads from a release on: the first release as minor and patch (0.8.4 -> 8, 4).
struct VllmFirstRelease {
  std::string_view model_type;
  int minor;
  int patch;
  std::string_view source;
};

// Each row is the first vLLM release whose model registry holds the architecture; an older one
// refuses the checkpoint at start-up. Text-only configs (gemma3_text, llama4_text) are the same
// architecture's language model, added with it.
constexpr std::array kVllmFirstReleases{
    // "vLLM v0.8.4 and higher natively supports all Qwen3 and Qwen3MoE models" (vllm-project/vllm
    // issue #17327, the Qwen3 usage guide, 2025-04-28).
    VllmFirstRelease{"qwen3", 8, 4, "vllm-project/vllm#17327: \"vLLM v0.8.4 and higher natively supports all Qwen3 and Qwen3MoE models\""},
    VllmFirstRelease{"qwen3_moe", 8, 4, "vllm-project/vllm#17327: \"vLLM v0.8.4 and higher natively supports all Qwen3 and Qwen3MoE models\""},
    // Llama 4 came with vllm-project/vllm PR #16104 (merged 2025-04-05), released in 0.8.3 ("This
    // should be supported in 0.8.3", vllm#16227; vllm#16136 loads Scout on v0.8.3).
    VllmFirstRelease{"llama4", 8, 3, "vllm-project/vllm PR #16104, released in 0.8.3 (vllm#16227)"},
    VllmFirstRelease{"llama4_text", 8, 3, "vllm-project/vllm PR #16104, released in 0.8.3 (vllm#16227)"},
    // Gemma 3: "given the 0.8.0 release" (vllm-project/vllm PR #14971, 2025-03-17); "vllm 0.7.3 does
    // not support gemma3" (modelscope/ms-swift#3660).
    VllmFirstRelease{"gemma3", 8, 0, "vllm-project/vllm PR #14971 (the 0.8.0 release); 0.7.3 lacks it (modelscope/ms-swift#3660)"},
    VllmFirstRelease{"gemma3_text", 8, 0, "vllm-project/vllm PR #14971 (the 0.8.0 release); 0.7.3 lacks it (modelscope/ms-swift#3660)"},
    // gpt-oss: vllm-project/vllm PR #22259 shipped it as "vllm==0.10.1+gptoss" (2025-08-05); 0.10.1
    // runs it (vllm-project/recipes PR #83: only the openai tool parser needs 0.10.2).
    VllmFirstRelease{"gpt_oss", 10, 1, "vllm-project/vllm PR #22259 (\"vllm==0.10.1+gptoss\"); 0.10.0 lacks it (runpod-workers/worker-vllm PR #207)"},
    // DeepSeek-V3 (and V3.1, R1: the same model_type): "It is supported since v0.6.6" (vllm-project/
    // vllm#11559, a maintainer, 2024-12-27); DeepSeek-V3's README: "vLLM v0.6.6 supports DeepSeek-V3".
    VllmFirstRelease{"deepseek_v3", 6, 6, "vllm-project/vllm#11559: \"It is supported since v0.6.6\""},
    // Qwen3-Next: the model (September 2025) came after 0.10.1.1; vllm-project/vllm-ascend PR #2919
    // (2025-09-14) adds it on "vLLM version: v0.10.2". 0.11.0 is also named (gpustack#2843): the
    // earlier of the two, so that no release that runs it is refused.
    VllmFirstRelease{"qwen3_next", 10, 2, "vllm-project/vllm-ascend PR #2919 (\"vLLM version: v0.10.2\")"},
    // Nemotron-H (Nemotron-H 8B/47B/56B, Nemotron-Nano-9B-v2, Nemotron 3): vllm-project/vllm PR #18863
    // ("[Model] NemotronH support", opened 2025-05-28, after 0.9.0 of 2025-05-15); 0.9.1 is taken,
    // the earliest that may hold it, so none that runs it is refused (review s64: 0.6.3 sized it).
    VllmFirstRelease{"nemotron_h", 9, 1, "vllm-project/vllm PR #18863 (\"[Model] NemotronH support\", opened "
                                         "2025-05-28, after 0.9.0)"},
    // Gemma 4: "models like Gemma 4 which need vllm>=0.19.0" (NVIDIA-NeMo/Gym#1141, 2026-04-27).
    VllmFirstRelease{"gemma4", 19, 0, "NVIDIA-NeMo/Gym#1141: \"Gemma 4 which need vllm>=0.19.0\""},
    VllmFirstRelease{"gemma4_text", 19, 0, "NVIDIA-NeMo/Gym#1141: \"Gemma 4 which need vllm>=0.19.0\""},
    // Qwen3-Omni (read as its thinker, Qwen3-MoE layers: the wrapper's type decides): its vLLM PR
    // was still "WIP" on 2025-09-29 (vllm-project/vllm#25834), after 0.10.2 (2025-09-13), so no
    // release before 0.11.0 has it; 0.11.0 is taken, the earliest that may, so none that runs it
    // is refused (review s61: 0.9.0 sized it, and 0.8.3 cited Qwen3-MoE's release).
    VllmFirstRelease{"qwen3_omni_moe", 11, 0, "vllm-project/vllm#25834: the Qwen3-Omni PR was work in progress on "
                                              "2025-09-29, after 0.10.2"},
    // GLM-4.5 (and GLM-4.5-Air, GLM-4.6: model_type glm4_moe): vllm-project/vllm PR #20736 ("GLM-4.5
    // Model Support", opened 2025-07-10, after 0.9.2); zai-org/GLM-4.5 PR #5 (2025-07-29): on
    // vllm 0.10.0 the service starts once its parser flags are named glm4_moe (helper s62).
    VllmFirstRelease{"glm4_moe", 10, 0, "vllm-project/vllm PR #20736, after 0.9.2; 0.10.0 serves it (zai-org/GLM-4.5 "
                                        "PR #5)"},
    // Llama 3.2 Vision (mllama): vllm-project/vllm#8826, the maintainers' guide of 2024-09-25, the
    // day 0.6.2 came out; 0.6.1 (2024-09-11) predates the model (helper s62).
    VllmFirstRelease{"mllama", 6, 2, "vllm-project/vllm#8826, the Llama 3.2 Vision guide of the 0.6.2 release day"},
    VllmFirstRelease{"mllama_text_model", 6, 2,
                     "vllm-project/vllm#8826, the Llama 3.2 Vision guide of the 0.6.2 release day"},
};

/// A model type vLLM loaded up to a release and no longer: the first minor without it.
struct VllmRemoval {
  std::string_view model_type;
  int first_minor_without;
  std::string_view last_release;  ///< the last release that loads it, as --engine-version takes it
  std::string_view source;
};

// Llama 3.2 Vision (mllama) ran on V0's encoder-decoder runner only; vllm-project/vllm PR #24907
// ("Remove V0 Encoder-Decoder Support", merged 2025-09-15, after 0.10.2 of 2025-09-13) deleted it
// and the models on it: "After this PR, Whisper will be the only encoder-decoder model that are
// supported by vLLM". 0.11.0 is the first release without it.
constexpr std::array kVllmRemovals{
    VllmRemoval{"mllama", 11, "0.10.2",
                "vllm-project/vllm PR #24907, \"Remove V0 Encoder-Decoder Support\" (merged 2025-09-15, after 0.10.2)"},
    VllmRemoval{"mllama_text_model", 11, "0.10.2",
                "vllm-project/vllm PR #24907, \"Remove V0 Encoder-Decoder Support\" (merged 2025-09-15, after 0.10.2)"},
};

/// A model type SGLang loads from a release on (minor x 100 + patch, as EngineSettings::sglang_version).
struct SglangFirstRelease {
  std::string_view model_type;
  int version;
  std::string_view source;
};

// gpt-oss: "Day 0 support for SGLang is here" with the lmsysorg/sglang:v0.5.0rc2 images
// (sgl-project/sglang#8833, 2025-08-05, the model's release day): no earlier release has it.
constexpr std::array kSglangFirstReleases{
    SglangFirstRelease{"gpt_oss", 500, "sgl-project/sglang#8833: day-0 support in the v0.5.0rc2 images"},
};

}  // namespace

std::optional<std::string> engine_release_refusal(Engine engine, std::optional<int> vllm_minor,
                                                  std::optional<int> vllm_patch, std::optional<int> sglang_version,
                                                  const ModelSpec& model) {
  if (!model.has_architecture()) {
    return std::nullopt;
  }
  if (engine == Engine::sglang && sglang_version) {
    const auto row = std::ranges::find(kSglangFirstReleases, std::string_view{model.served_model_type()},
                                       &SglangFirstRelease::model_type);
    // A candidate or dev build reads as its release minus one (parse_sglang_version): gpt-oss's day-0
    // support came in 0.5.0's candidates, so the first release's candidates are let through.
    if (row == kSglangFirstReleases.end() || *sglang_version >= row->version - 1) {
      return std::nullopt;
    }
    const std::string given = *sglang_version % 100 == 99
                                  ? fmt::format("a 0.{}.0 candidate", *sglang_version / 100 + 1)
                                  : fmt::format("0.{}.{}", *sglang_version / 100, *sglang_version % 100);
    return fmt::format("engine.sglang_version: SGLang {} cannot load {} (model_type {}): SGLang supports it from "
                       "0.{}.{} ({}); give --engine-version 0.{}.{} or later",
                       given, model.id, model.config_model_type(), row->version / 100, row->version % 100, row->source,
                       row->version / 100, row->version % 100);
  }
  if (engine == Engine::vllm) {
    // Without a version the figures are the current release's, which no longer loads it.
    const auto removed =
        std::ranges::find(kVllmRemovals, std::string_view{model.served_model_type()}, &VllmRemoval::model_type);
    if (removed != kVllmRemovals.end() && (!vllm_minor || *vllm_minor >= removed->first_minor_without)) {
      // Without a version the engine choice itself is what cannot load it: name --engine.
      return fmt::format("{}: vLLM {} cannot load {} (model_type {}): vLLM served it up to {} and "
                         "removed it in 0.{}.0 ({}); give --engine-version {} or earlier, or serve it with SGLang",
                         vllm_minor ? "engine.vllm_version" : "engine.name", vllm_minor ? fmt::format("0.{}{}", *vllm_minor,
                                                  vllm_patch ? fmt::format(".{}", *vllm_patch) : std::string{})
                                    : std::string("(current)"),
                         model.id, model.config_model_type(), removed->last_release, removed->first_minor_without,
                         removed->source, removed->last_release);
    }
  }
  if (engine != Engine::vllm || !vllm_minor) {
    return std::nullopt;
  }
  const auto row =
      std::ranges::find(kVllmFirstReleases, std::string_view{model.served_model_type()}, &VllmFirstRelease::model_type);
  if (row == kVllmFirstReleases.end()) {
    return std::nullopt;
  }
  // A minor without a patch stands for its latest patch: refused only below the first minor.
  const bool older = *vllm_minor < row->minor || (*vllm_minor == row->minor && vllm_patch && *vllm_patch < row->patch);
  if (!older) {
    return std::nullopt;
  }
  return fmt::format("engine.vllm_version: vLLM 0.{}{} cannot load {} (model_type {}): vLLM supports it from 0.{}.{} "
                     "({}); give --engine-version 0.{}.{} or later",
                     *vllm_minor, vllm_patch ? fmt::format(".{}", *vllm_patch) : std::string{}, model.id,
                     model.config_model_type(), row->minor, row->patch, row->source, row->minor, row->patch);
}

std::optional<std::string> engine_hardware_refusal(Engine engine, const GpuSpec& gpu, std::optional<int> trtllm_version) {
  if (engine != Engine::trtllm) {
    return std::nullopt;
  }
  if (gpu.vendor != "nvidia") {
    return fmt::format("trtllm runs on NVIDIA GPUs only, not on {} (vendor {})", gpu.id, gpu.vendor);
  }
  // TensorRT-LLM's Supported Hardware lists Blackwell, Hopper, Ada Lovelace and Ampere
  // (https://nvidia.github.io/TensorRT-LLM/supported-hardware.html); its 0.18 support matrix gives
  // precisions from Ampere (SM80) on and leaves an unlisted architecture "community support"
  // only (https://nvidia.github.io/TensorRT-LLM/0.18.2/reference/support-matrix.html). No
  // compute capability in the catalog: no bf16 marks Volta and Turing. Releases up to 0.13 listed
  // Turing (SM75) and Volta (SM70) with FP16, INT8 and INT4 (docs/source/reference/support-matrix.md
  // of those releases; review s52 finding 4): a version given at or below it is not refused.
  constexpr int kLastVoltaTuringRelease = 13;  // 0.13, as major x 100 + minor
  const bool old_release = trtllm_version && *trtllm_version <= kLastVoltaTuringRelease;
  if (!gpu.dense_flop_per_s.contains("bf16") && !old_release) {
    return fmt::format("trtllm does not support {}: TensorRT-LLM supports NVIDIA Ampere and later (Blackwell, "
                       "Hopper, Ada Lovelace, Ampere), and {} is older (vllm or sglang run there; TensorRT-LLM 0.13 "
                       "and earlier listed Volta and Turing: --engine-version)",
                       gpu.id, gpu.id);
  }
  return std::nullopt;
}

bool engine_runs_on(Engine engine, const GpuSpec& gpu) {
  return !engine_hardware_refusal(engine, gpu);
}

}  // namespace gpuplan
