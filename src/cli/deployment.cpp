#include "deployment.hpp"

#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/units.hpp>

#include "common.hpp"

namespace gpuplan::cli {

void add_deployment_options(CLI::App& sub, DeploymentOptions& o, bool bare_params, bool gpu_flag) {
  auto* model = sub.add_option("--model", o.model, "Model id (gpuplan catalog models)")->check(non_empty());
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
    sub.add_option("--gpu", o.gpu, "GPU id (gpuplan catalog gpus)")->required()->check(non_empty());
  }
  sub.add_option("--mig", o.mig, "One MIG slice, e.g. 1g.18gb, instead of a whole GPU")->check(non_empty());
  auto* gpus = sub.add_option("--gpus", o.gpus, "GPUs in the deployment (default: TP x PP, or 1)")
                   ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  auto* nodes = sub.add_option("--nodes", o.nodes, "Nodes of --gpus-per-node GPUs")
                    ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{8192}));
  nodes->excludes(gpus);
  sub.add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node with --nodes")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{72}))
      ->needs(nodes);
  sub.add_option("--tp", o.tp, "Tensor-parallel degree (default: fit takes the smallest layout that fits; perf, cost and compare the one with the most estimated throughput)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub.add_option("--pp", o.pp, "Pipeline-parallel stages")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub.add_option("--ep", o.ep, "Expert-parallel degree (MoE)")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub.add_option("--weights-dtype", o.weights_dtype, "Weights: fp32 bf16 fp16 fp8 int8 int4 fp4 mxfp4")
      ->capture_default_str();
  sub.add_option("--embeddings-dtype", o.embeddings_dtype,
                 "Embedding table and LM head (default: bf16 for quantized weights)");
  sub.add_option("--kv-dtype", o.kv_dtype, "KV cache: fp32 bf16 fp16 fp8 int8")->capture_default_str();
  sub.add_option("--gpu-memory-utilization", o.memory_utilization,
                 "Serving engine's memory cap as a share of GPU memory (vLLM's default 0.9)")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--reserve", o.reserve, "Runtime reserve per GPU (CUDA context, framework), e.g. 1.5GiB or 2GB")
      ->capture_default_str();
  sub.add_option("--prefill-chunk", o.prefill_chunk,
                 "Tokens per prefill step, sizes activations (vLLM max_num_batched_tokens)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
  sub.add_option("--block-size", o.block_size, "Paged KV block in tokens")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
}

void note_given(const CLI::App& sub, DeploymentOptions& o) {
  o.model_given = sub.count("--model") > 0;
  o.model_config_given = sub.count("--model-config") > 0;
  const CLI::Option* params = sub.get_option_no_throw("--params");
  o.params_given = params != nullptr && params->count() > 0;
}

Deployment resolve_deployment(const Catalog& catalog, const DeploymentOptions& o) {
  Deployment d;
  if (o.model_given) {
    d.model = catalog.model(o.model);
  } else if (o.model_config_given) {
    d.model = model_from_hf_config_file(o.model_config);
  } else if (o.params_given) {
    d.model = bare_model(units::parse_count(o.params, "--params"), o.params + " params");
  } else {
    throw InputError(o.allow_params ? "one of --model, --model-config or --params is required"
                                    : "one of --model or --model-config is required");
  }
  d.gpu = &catalog.gpu(o.gpu);
  FitRequest& req = d.request;
  req.mig_profile = o.mig;
  req.weights_dtype = parse_dtype(o.weights_dtype, "--weights-dtype");
  if (!o.embeddings_dtype.empty()) {
    req.embeddings_dtype = parse_dtype(o.embeddings_dtype, "--embeddings-dtype");
  }
  req.kv_dtype = parse_kv_dtype(o.kv_dtype, "--kv-dtype");
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

void rethrow_with_flag(const InputError& e) {
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
      {"perf.input_tokens:", "--input:"},
      {"perf.output_tokens:", "--output:"},
      {"perf.batches:", "--batch:"},
      {"perf.sparse:", "--sparse:"},
      {"perf.mig_profile:", "--mig:"},
      {"efficiency.bandwidth:", "--bandwidth-efficiency:"},
      {"efficiency.compute:", "--compute-efficiency:"},
      {"efficiency.link:", "--link-efficiency:"},
      {"efficiency.step_overhead_s:", "--step-overhead-ms:"},
      {"perf.max_batch:", "--max-batch:"},
      {"cost.utilization:", "--utilization:"},
      {"cost.usd_per_gpu_hour:", "--usd-per-gpu-hour:"},
      {"cost.capex_usd_per_gpu:", "--capex-usd-per-gpu:"},
      {"cost.amortization_years:", "--amortization-years:"},
      {"cost.operations_share_per_year:", "--ops-share:"},
      {"cost.pue:", "--pue:"},
      {"cost.usd_per_kwh:", "--usd-per-kwh:"},
      {"cost.storage_usd_per_month:", "--storage-usd-per-month:"},
      {"cost.egress_usd_per_month:", "--egress-usd-per-month:"},
      {"cost.failed_run_overhead:", "--failed-run-overhead:"},
      {"cost.output_tokens_per_s:", "--tokens-per-second:"},
      {"compare.measured:", "--measured:"},
      {"compare.gpus:", "--gpu:"},
  };
  const std::string_view what = e.what();
  for (const auto& [field, flag] : kFlags) {
    if (what.starts_with(field)) {
      throw InputError(fmt::format("{}{}", flag, what.substr(field.size())));
    }
  }
  throw e;
}

}  // namespace gpuplan::cli
