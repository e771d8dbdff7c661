// gpuplan plan: the cheapest deployments of a model that meet a load and latency targets.
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/comm.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/planner.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"
#include "workload.hpp"

namespace gpuplan::cli {
namespace {

struct PlanOptions {
  CommonOptions common;
  WorkloadOptions workload;
  PricingOptions pricing;
  std::vector<std::string> models;
  std::vector<std::string> model_configs;
  std::vector<std::string> gpus;
  std::vector<std::string> weights_dtypes{"all"};
  std::vector<std::string> kv_dtypes{"all"};
  double target_tokens_per_s = 0;
  double max_itl_ms = 0;
  double max_ttft_ms = 0;
  double min_tokens_per_s_per_user = 0;
  std::size_t top = 10;
  std::uint64_t max_gpus_per_replica = 64;
  std::uint64_t gpus_per_node = 8;
  bool gpus_per_node_given = false;  ///< --gpus-per-node given: checked against each GPU's systems
  std::string emit;
  std::string engine_version;  ///< --engine-version: the release of --emit's engine
  double mem_fraction_static = 0;  ///< --mem-fraction-static (0: not given): with --emit sglang
  double gpu_memory_utilization = 0;  ///< --gpu-memory-utilization (0: not given): with --emit vllm
  bool enforce_eager = false;         ///< --enforce-eager: with --emit vllm
  bool disable_cuda_graph = false;    ///< --disable-cuda-graph: with --emit sglang
  std::string batch_search = "bisect";
  bool include_stale = false;
};

/// "all" (alone) or formats; `parse` names the flag in its errors.
template <typename Parse>
std::vector<DType> dtypes(const std::vector<std::string>& names, std::string_view flag, Parse parse) {
  std::vector<DType> out;
  for (const std::string& n : names) {
    if (lower_case(n) == "all") {
      if (names.size() > 1) {
        throw InputError(fmt::format("{}: 'all' cannot be combined with other formats", flag));
      }
      return {};
    }
    // KV words are read as typed: NVFP4 is a weight format here, and a KV cache refused as 'fp4'
    // named a word the user did not type (helper s56 tasks F6).
    const DType d = parse(flag == "--kv-dtype" ? lower_case(n) : normalize_dtype(n), flag);
    if (std::find(out.begin(), out.end(), d) != out.end()) {
      throw InputError(fmt::format("{}: '{}' is given twice", flag, n));
    }
    out.push_back(d);
  }
  return out;
}

/// Library field names as the flags people typed (the shared table in field_flags.hpp).
/// plan has no --engine: its engine is the one --emit names.
[[noreturn]] void rethrow_plan_error(const InputError& e) {
  constexpr std::string_view kEngine = "engine.name:";
  const std::string_view what = e.what();
  if (what.starts_with(kEngine)) {
    throw InputError("--emit:" + std::string(what.substr(kEngine.size())));
  }
  rethrow_with_flag(e);
}

Exit run_plan(const PlanOptions& o) {
  const Catalog catalog = load_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  std::optional<Engine> emit;
  if (!o.emit.empty()) {
    try {
      emit = parse_engine(o.emit);
    } catch (const InputError& e) {
      const std::string_view m = e.what();
      throw InputError("--emit:" + std::string(m.substr(m.find(':') + 1)));
    }
  }
  PlanRequest req;
  req.launch_engine = emit;
  // The release the command is for, as fit and perf read --engine-version; the search then uses
  // that release's arithmetic and defaults (helper s55 tasks F7).
  EngineSettings launch_settings;
  if (!o.engine_version.empty()) {
    if (!emit) {
      throw InputError("--engine-version: is the release of the engine --emit names, but no --emit is given");
    }
    launch_settings.engine = *emit;
    apply_engine_version(launch_settings, o.engine_version);
    // The command is trtllm-serve --backend pytorch: its arithmetic is the PyTorch backend's.
    if (*emit == Engine::trtllm) {
      if (*launch_settings.trtllm_version < kTrtllmPytorchBackendFrom) {
        throw InputError(fmt::format("--engine-version: plan --emit trtllm writes a trtllm-serve --backend pytorch "
                                     "command, and TensorRT-LLM has that backend from 0.17, not in {}",
                                     o.engine_version));
      }
      launch_settings.trtllm_backend = TrtllmBackend::pytorch;
    }
    validate_engine_settings(launch_settings);
    EngineSettings& s = req.perf.fit.engine;
    s.vllm_minor_version = launch_settings.vllm_minor_version;
    s.vllm_patch_version = launch_settings.vllm_patch_version;
    s.sglang_version = launch_settings.sglang_version;
    s.trtllm_version = launch_settings.trtllm_version;
    s.trtllm_backend = launch_settings.trtllm_backend;
  } else if (emit) {
    launch_settings.engine = *emit;
  }
  if (o.mem_fraction_static > 0) {
    if (emit != Engine::sglang) {
      throw InputError(emit == Engine::vllm
                           ? "--mem-fraction-static: is SGLang's setting; vLLM's is --gpu-memory-utilization"
                           : "--mem-fraction-static: is SGLang's setting; give it with --emit sglang");
    }
    req.launch_mem_fraction_static = o.mem_fraction_static;
  }
  if (o.gpu_memory_utilization > 0) {
    if (emit != Engine::vllm) {
      throw InputError(emit == Engine::sglang
                           ? "--gpu-memory-utilization: is vLLM's setting; SGLang's is --mem-fraction-static"
                           : "--gpu-memory-utilization: is vLLM's setting; give it with --emit vllm");
    }
    req.launch_gpu_memory_utilization = o.gpu_memory_utilization;
  }
  // Eager is a property of the launched server: it needs the engine whose switch it is.
  if (o.enforce_eager || o.disable_cuda_graph) {
    const Engine wants = o.enforce_eager ? Engine::vllm : Engine::sglang;
    const std::string_view flag = o.enforce_eager ? "--enforce-eager" : "--disable-cuda-graph";
    if (o.enforce_eager && o.disable_cuda_graph) {
      throw InputError("--disable-cuda-graph: is SGLang's switch and --enforce-eager vLLM's; give the one of the "
                       "engine --emit names");
    }
    if (emit != wants) {
      throw InputError(fmt::format("{}: is {}'s switch; give it with --emit {}{}", flag,
                                   wants == Engine::vllm ? "vLLM" : "SGLang", to_string(wants),
                                   emit == Engine::trtllm ? " (trtllm-serve's PyTorch backend has no such switch)"
                                   : emit ? fmt::format(" ({}'s is {})", *emit == Engine::vllm ? "vLLM" : "SGLang",
                                                        *emit == Engine::vllm ? "--enforce-eager" : "--disable-cuda-graph")
                                          : std::string()));
    }
    req.perf.eager = true;
    req.perf.fit.engine.eager = true;
  }
  req.include_stale = o.include_stale;
  apply_workload(o.workload, req.perf);
  for (const std::string& g : o.gpus) {
    req.gpus.push_back(lookup_gpu(catalog, g, "--gpu").id);
  }
  req.weights_dtypes = dtypes(o.weights_dtypes, "--weights-dtype", parse_dtype);
  req.kv_dtypes = dtypes(o.kv_dtypes, "--kv-dtype", parse_kv_dtype);
  req.provider = o.pricing.provider;
  req.region = o.pricing.region;
  req.term = o.pricing.term;
  if (!o.pricing.mode.empty()) {
    req.mode = parse_pricing_mode(o.pricing.mode, "--mode");
  }
  check_term(o.pricing.term, req.mode.value_or(PricingMode::on_demand));
  req.given_usd_per_gpu_hour = given_prices(catalog, o.pricing.prices);
  req.today = catalog.today();
  apply_pricing(o.pricing, req.cost);
  if (o.workload.concurrency > 0) {
    // The planner searches each layout's batch itself; a count of sequences would be ignored.
    throw InputError("--concurrency: plan chooses the batch per replica under the latency targets and sizes the "
                     "replicas for --target-output-tokens-per-s; give the load as that, or judge one deployment at "
                     "N sequences with cost or compare --concurrency N");
  }
  const auto set = [](double v, double scale) { return v > 0 ? std::optional<double>(v * scale) : std::nullopt; };
  req.targets.output_tokens_per_s = set(o.target_tokens_per_s, 1.0);
  // A target rate is a steady load: its TTFT is random arrivals', not a burst's (unless --arrivals).
  req.perf.arrivals = arrivals_for(o.workload, req.targets.output_tokens_per_s.has_value());
  req.targets.max_itl_s = set(o.max_itl_ms, 1e-3);
  req.targets.max_ttft_s = set(o.max_ttft_ms, 1e-3);
  req.targets.min_tokens_per_s_per_user = set(o.min_tokens_per_s_per_user, 1.0);
  req.targets.max_usd_per_million_tokens = set(o.pricing.max_usd_per_mtok, 1.0);
  req.top = o.top;
  req.max_gpus_per_replica = o.max_gpus_per_replica;
  req.gpus_per_node = o.gpus_per_node;
  if (o.gpus_per_node_given) {
    // The GPUs given; without --gpu the search leaves out those no such node holds, and says so.
    for (const std::string& id : req.gpus) {
      if (const GpuSpec* gpu = catalog.find_gpu(id); gpu != nullptr) {
        require_node_size(*gpu, o.gpus_per_node, "--gpus-per-node");
      }
    }
  }
  req.batch_search = o.batch_search == "exhaustive" ? BatchSearch::exhaustive : BatchSearch::bisect;
  if (o.models.empty() && o.model_configs.empty()) {
    throw InputError("one of --model or --model-config is required");
  }
  // Models the launched release caches differently, copied from the catalog: they outlive the plans.
  std::vector<std::unique_ptr<const ModelSpec>> expanded;
  std::vector<PlanResult> plans;
  std::vector<std::string> planned;
  for (const std::string& m : o.models) {
    const ModelSpec* catalog_model = &lookup_model(catalog, m, "--model");
    // The cache the launched release builds (vLLM before 0.7.1 expands MLA): a copy of the catalog's.
    if (emit && catalog_model->caches_latent() && vllm_expands_mla(launch_settings)) {
      ModelSpec copy = *catalog_model;
      apply_engine_cache_layout(copy, launch_settings);
      expanded.push_back(std::make_unique<const ModelSpec>(std::move(copy)));
      catalog_model = expanded.back().get();
    }
    const ModelSpec& model = *catalog_model;
    // The same model twice (by id or alias) printed the same plan twice. Two Hugging Face names of
    // one model are two releases (bf16, FP8) and stay.
    std::string key = m.find('/') != std::string::npos ? lower_case(m) : model.id;
    if (std::find(planned.begin(), planned.end(), key) != planned.end()) {
      throw InputError(fmt::format("--model: '{}' is given twice; name each model once", m));
    }
    planned.push_back(std::move(key));
    PlanRequest named = req;
    if (m.find('/') != std::string::npos) {
      named.launch_model = m;  // a Hugging Face name: the checkpoint to launch, quantized or not
    }
    if (o.weights_dtypes == std::vector<std::string>{"all"}) {
      // The format the release's name states (Meta's FP8 Llama 4: its experts').
      const WeightChoice c = choice_named_by(model, m);
      if (const auto format = c.experts ? c.experts : c.all) {
        named.weights_dtypes = {format->element};
        named.release_parts = c;
      }
    }
    plans.push_back(plan(catalog, model, named));
  }
  // A config.json's model lives as long as its plan, which refers to it.
  std::vector<std::unique_ptr<const ModelSpec>> configured;
  for (const std::string& path : o.model_configs) {
    ModelSpec m = model_from_hf_config_file(path);
    if (emit) {  // the cache the launched engine builds (SGLang's MiniCPM3 latent, FlashMLA's fp8 record)
      apply_engine_cache_layout(m, launch_settings);
    }
    configured.push_back(std::make_unique<const ModelSpec>(std::move(m)));
    plans.push_back(plan(catalog, *configured.back(), req));
  }
  fmt::print("{}", render_plan(plans, emit, render));
  std::set<std::string> warned;
  bool missed = false;
  for (const PlanResult& p : plans) {
    missed = missed || p.miss.has_value();
    // The prices the output shows: the configurations', or the closest one's on a miss.
    std::vector<const PlanConfig*> shown;
    for (const PlanConfig& c : p.configurations) {
      shown.push_back(&c);
    }
    if (p.miss && p.miss->closest) {
      shown.push_back(&*p.miss->closest);
    }
    for (const PlanConfig* c : shown) {
      if (warned.insert(price_key(c->price)).second) {
        warn_stale(c->price);
      }
    }
  }
  if (missed && o.pricing.check) {
    print_note(fmt::format("gpuplan: no configuration meets every target (see the binding target above)"));
    return Exit::check_failed;
  }
  return Exit::ok;
}

}  // namespace

void add_plan_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan",
      "The cheapest deployments meeting a load and latency targets: every priced GPU x weights and KV format x "
      "layout x batch x replicas, with the launch command and each GPU's throughput/latency frontier");
  sub->add_option("--model", o->models, "Catalog model id (repeat for several models)")->check(non_empty());
  sub->add_option("--model-config", o->model_configs,
                  "Hugging Face config.json of a model outside the catalog (repeat for several; with --model too)")
      ->check(non_empty());
  add_workload_options(*sub, o->workload, true, false);  // plan has its own target flag
  add_cached_input_option(*sub, o->workload);
  add_arrivals_option(*sub, o->workload);
  // Kept to refuse it with a reason (the callback), out of the help: plan takes no --concurrency.
  sub->get_option("--concurrency")->group("");
  sub->add_option("--target-output-tokens-per-s", o->target_tokens_per_s,
                  "Output tokens/s the whole deployment must serve (replicas are added for it; default: none, one replica)")
      ->transform(decimal_number())->check(target_validator());
  // Latency targets within the plan file's limits: 1e-300 ms printed as a 300-digit shortfall.
  sub->add_option("--max-itl-ms", o->max_itl_ms, "Largest mean inter-token latency under load, ms: the decode steps and the other sequences' prefills between them (default: no limit)")
      ->transform(decimal_number())->check(positive_validator())
      ->check(CLI::Range(limits::kMinLatencyLimitMs, limits::kMaxLatencyLimitMs));
  sub->add_option("--max-ttft-ms", o->max_ttft_ms, "Largest time to first token, ms (default: no limit)")
      ->transform(decimal_number())->check(positive_validator())
      ->check(CLI::Range(limits::kMinLatencyLimitMs, limits::kMaxLatencyLimitMs));
  sub->add_option("--min-tokens-per-s-per-user", o->min_tokens_per_s_per_user, "Smallest output speed per user under load, tok/s: 1 / mean ITL (default: no limit)")
      ->transform(decimal_number())->check(positive_validator())->check(CLI::Range(limits::kMinTokensPerSLimit, 1e9));
  sub->add_option("--gpu", o->gpus, "GPU ids to search (repeat; default: every GPU with a matching price)")
      ->check(non_empty());
  sub->add_option("--weights-dtype", o->weights_dtypes,
                  "Weight formats to try, comma-separated, or 'all' (what each GPU multiplies, plus int4 weight-only)")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--kv-dtype", o->kv_dtypes, "KV-cache formats to try, comma-separated, or 'all' (the model's 16-bit format, and fp8 where native)")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--top", o->top, "Configurations to list")->capture_default_str()->transform(whole_number())->check(CLI::Range(1, 10000));
  sub->add_option("--max-gpus-per-replica", o->max_gpus_per_replica, "Largest replica (TP x PP GPUs, or the ranks of DP attention)")
      ->capture_default_str()
      ->transform(whole_number())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1024}));
  sub->add_option("--gpus-per-node", o->gpus_per_node,
                  "GPUs per node: TP stays within one; at most what the GPU's servers hold (8 on an HGX or OAM "
                  "board)")
      ->each([o](const std::string&) { o->gpus_per_node_given = true; })
      ->capture_default_str()
      ->transform(whole_number())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1024}));
  sub->add_option("--emit", o->emit,
                  "Print the launch command of the cheapest configuration: vllm, sglang or trtllm (default: none). "
                  "The search is then that engine's: its KV-cache arithmetic (as --engine in fit and perf), batch "
                  "cap and estimate band, and only the layouts and formats it launches")
      ->check(non_empty());
  sub->add_option("--engine-version", o->engine_version,
                  "Release of the --emit engine to plan for, as in fit and perf, e.g. 0.6.3 (vLLM), 0.4.3 (SGLang), "
                  "0.20 (TensorRT-LLM, PyTorch backend: 0.17 on); its defaults, memory arithmetic and command "
                  "(default: current)")
      ->check(non_empty());
  sub->add_option("--mem-fraction-static", o->mem_fraction_static,
                  "With --emit sglang: SGLang's mem_fraction_static to size for and set in the command (default: "
                  "SGLang's own rule from GPU memory and layout, as fit --engine sglang)")
      ->check(share_validator());
  sub->add_option("--gpu-memory-utilization", o->gpu_memory_utilization,
                  "With --emit vllm: vLLM's gpu_memory_utilization to size for and set in the command (default: "
                  "vLLM's own for the release, 0.92 from 0.21, as fit --engine vllm)")
      ->check(share_validator());
  sub->add_flag("--enforce-eager", o->enforce_eager,
                "With --emit vllm: plan a server without CUDA graphs (set in the command): every step is timed at no "
                "less than the host's launch time of its kernels, and no graph memory is held");
  sub->add_flag("--disable-cuda-graph", o->disable_cuda_graph,
                "With --emit sglang: the same, SGLang's switch");
  sub->add_flag("--include-stale", o->include_stale,
                "Rank prices older than 180 days by cost with the current ones (default: a GPU's current price wins "
                "over a stale one, rows on a current price rank before rows on a stale one whichever GPU, and a "
                "cheaper configuration on a stale price is named in a note)");
  sub->add_option("--batch-search", o->batch_search,
                  "bisect (latency grows with the batch) or exhaustive (every batch; slower, for checking)")
      ->capture_default_str()
      ->check(one_of({"bisect", "exhaustive"}));
  add_pricing_options(*sub, o->pricing, "every provider", "on-demand", false, false);
  // plan gates every target, not the budget alone (cost's meaning of the shared flag).
  sub->get_option("--check")->description(
      "Exit with code 1 when no configuration meets every target (--max-usd-per-mtok, --max-itl-ms, --max-ttft-ms, "
      "--min-tokens-per-s-per-user, --target-output-tokens-per-s), or with none given, when nothing fits");
  add_common_options(*sub, o->common);
  sub->callback([o, sub, &exit_code] {
    try {
      refuse_energy_flags(*sub);
      exit_code = run_plan(*o);
    } catch (const InputError& e) {
      rethrow_plan_error(e);
    }
  });
}

}  // namespace gpuplan::cli
