// gpuplan fit: does a model fit a GPU (or MIG slice, or node) and how much KV cache is left?
#include <memory>
#include <string_view>
#include <utility>
#include <optional>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/units.hpp>

#include "common.hpp"

namespace gpuplan::cli {
namespace {

struct FitOptions;
Exit run_fit_unmapped(const FitOptions& o);

struct FitOptions {
  CommonOptions common;
  std::string model;
  std::string model_config;
  std::string params;
  std::string gpu;
  std::string mig;
  std::uint64_t gpus = 0;
  std::uint64_t nodes = 0;
  std::uint64_t gpus_per_node = 8;
  std::uint64_t tp = 0;
  std::uint64_t pp = 0;
  std::uint64_t ep = 1;
  std::string weights_dtype = "bf16";
  std::string embeddings_dtype;
  std::string kv_dtype = "bf16";
  std::uint64_t context = 8192;
  std::uint64_t concurrency = 1;
  double memory_utilization = 0.9;
  std::string reserve = "1.5GiB";
  std::uint64_t prefill_chunk = 8192;
  std::uint64_t block_size = 16;
  bool check = false;
  bool model_given = false;
  bool model_config_given = false;
  bool params_given = false;
};

// Library errors name request fields; on the command line the flag is the name people typed.
[[noreturn]] void rethrow_with_flag(const InputError& e) {
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
      {"layout.tp:", "--tp:"},
      {"layout.pp:", "--pp:"},
      {"layout.ep:", "--ep:"},
      {"layout.gpus:", "--gpus:"},
      {"layout.dp:", "--gpus:"},
      {"fit.context_tokens:", "--context:"},
      {"fit.concurrency:", "--concurrency:"},
      {"fit.memory_utilization:", "--gpu-memory-utilization:"},
      {"fit.reserve_bytes:", "--reserve:"},
      {"fit.mig_profile:", "--mig:"},
      {"fit.prefill_chunk_tokens:", "--prefill-chunk:"},
      {"fit.block_tokens:", "--block-size:"},
      {"model.params:", "--params:"},
  };
  const std::string_view what = e.what();
  for (const auto& [field, flag] : kFlags) {
    if (what.starts_with(field)) {
      throw InputError(fmt::format("{}{}", flag, what.substr(field.size())));
    }
  }
  throw e;
}

Exit run_fit(const FitOptions& o) {
  try {
    return run_fit_unmapped(o);
  } catch (const InputError& e) {
    rethrow_with_flag(e);
  }
}

Exit run_fit_unmapped(const FitOptions& o) {
  const Catalog catalog = load_catalog(o.common);
  const RenderOptions render = render_options(o.common);

  ModelSpec model;
  if (o.model_given) {
    model = catalog.model(o.model);
  } else if (o.model_config_given) {
    model = model_from_hf_config_file(o.model_config);
  } else if (o.params_given) {
    model = bare_model(units::parse_count(o.params, "--params"), o.params + " params");
  } else {
    throw InputError("one of --model, --model-config or --params is required");
  }
  const GpuSpec& gpu = catalog.gpu(o.gpu);

  FitRequest req;
  req.mig_profile = o.mig;
  req.weights_dtype = parse_dtype(o.weights_dtype, "--weights-dtype");
  if (!o.embeddings_dtype.empty()) {
    req.embeddings_dtype = parse_dtype(o.embeddings_dtype, "--embeddings-dtype");
  }
  req.kv_dtype = parse_kv_dtype(o.kv_dtype, "--kv-dtype");
  req.context_tokens = o.context;
  req.concurrency = o.concurrency;
  req.memory_utilization = o.memory_utilization;
  req.reserve_bytes = units::parse_bytes(o.reserve, "--reserve");
  req.prefill_chunk_tokens = o.prefill_chunk;
  req.block_tokens = o.block_size;
  req.layout.ep = o.ep;

  const std::uint64_t gpus = o.nodes > 0 ? o.nodes * o.gpus_per_node : o.gpus;
  constexpr std::uint64_t kMaxGpus = 65536;
  if (gpus > kMaxGpus) {
    throw InputError(fmt::format("--nodes: {} nodes x {} GPUs is more than {} GPUs", o.nodes,
                                 o.gpus_per_node, kMaxGpus));
  }
  FitResult result;
  if (o.tp == 0 && o.pp == 0) {
    result = fit_smallest_layout(model, gpu, req, gpus == 0 ? 1 : gpus);
  } else {
    req.layout.tp = o.tp == 0 ? 1 : o.tp;
    req.layout.pp = o.pp == 0 ? 1 : o.pp;
    const std::uint64_t replica = req.layout.tp * req.layout.pp;
    const std::uint64_t total = gpus == 0 ? replica : gpus;
    if (total % replica != 0) {
      throw InputError(fmt::format("--gpus: {} GPUs are not a whole number of TP {} x PP {} replicas",
                                   total, req.layout.tp, req.layout.pp));
    }
    req.layout.dp = total / replica;
    result = fit(model, gpu, req);
  }
  fmt::print("{}", render_fit(result, render));
  return o.check && !result.fits ? Exit::check_failed : Exit::ok;
}

}  // namespace

void add_fit_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<FitOptions>();
  CLI::App* sub = app.add_subcommand("fit", "Does a model fit, and how much KV cache is left?");
  sub->add_option("--model", o->model, "Model id (gpuplan catalog models)")->check(non_empty());
  auto* config = sub->add_option("--model-config", o->model_config,
                                 "Hugging Face config.json of the model instead of an id")
                     ->check(non_empty());
  auto* params = sub->add_option("--params", o->params,
                                 "Bare parameter count for a what-if, e.g. 744B (weights only)")
                     ->check(non_empty());
  sub->get_option("--model")->excludes(config)->excludes(params);
  config->excludes(params);
  sub->add_option("--gpu", o->gpu, "GPU id (gpuplan catalog gpus)")->required()->check(non_empty());
  sub->add_option("--mig", o->mig, "Fit one MIG slice, e.g. 1g.18gb, instead of a whole GPU")
      ->check(non_empty());
  auto* gpus = sub->add_option("--gpus", o->gpus, "GPUs in the deployment (default: TP x PP, or 1)")
                   ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  auto* nodes = sub->add_option("--nodes", o->nodes, "Nodes of --gpus-per-node GPUs")
                    ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{8192}));
  nodes->excludes(gpus);
  sub->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node with --nodes")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{72}))
      ->needs(nodes);
  sub->add_option("--tp", o->tp, "Tensor-parallel degree (default: smallest layout that fits)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub->add_option("--pp", o->pp, "Pipeline-parallel stages")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub->add_option("--ep", o->ep, "Expert-parallel degree (MoE)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub->add_option("--weights-dtype", o->weights_dtype,
                  "Weights: fp32 bf16 fp16 fp8 int8 int4 fp4 mxfp4")
      ->capture_default_str();
  sub->add_option("--embeddings-dtype", o->embeddings_dtype,
                  "Embedding table and LM head (default: bf16 for quantized weights)");
  sub->add_option("--kv-dtype", o->kv_dtype, "KV cache: fp32 bf16 fp16 fp8 int8")
      ->capture_default_str();
  sub->add_option("--context", o->context, "Tokens per sequence (prompt + output)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  sub->add_option("--concurrency", o->concurrency, "Concurrent sequences over the deployment")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}));
  sub->add_option("--gpu-memory-utilization", o->memory_utilization,
                  "Serving engine's memory cap as a share of GPU memory (vLLM's default 0.9)")
      ->capture_default_str()
      ->check(share_validator());
  sub->add_option("--reserve", o->reserve,
                  "Runtime reserve per GPU (CUDA context, framework), e.g. 1.5GiB or 2GB")
      ->capture_default_str();
  sub->add_option("--prefill-chunk", o->prefill_chunk,
                  "Tokens per prefill step, sizes activations (vLLM max_num_batched_tokens)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
  sub->add_option("--block-size", o->block_size, "Paged KV block in tokens")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub->add_flag("--check", o->check, "Exit with code 1 when it does not fit");
  add_common_options(*sub, o->common);
  sub->callback([o, sub, &exit_code] {
    o->model_given = sub->count("--model") > 0;
    o->model_config_given = sub->count("--model-config") > 0;
    o->params_given = sub->count("--params") > 0;
    exit_code = run_fit(*o);
  });
}

}  // namespace gpuplan::cli
