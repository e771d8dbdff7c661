// gpuplan scale: scaling efficiency from measurements (speed-up, fits, where adding GPUs stops
// paying), or modeled for serving from the performance and communication models.
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include <gpuplan/calibration.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/measured_points.hpp>
#include <gpuplan/scale_model.hpp>
#include <gpuplan/scaling.hpp>

#include <gpuplan/band.hpp>

#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"
#include "workload.hpp"

namespace gpuplan::cli {
namespace {

struct ScaleOptions {
  CommonOptions common;
  std::vector<std::string> measured;
  std::string measured_file;
  std::string unit;
  std::vector<std::string> gpus;
  std::string provider;
  std::string mode;
  double usd_per_gpu_hour = 0;
  std::uint64_t up_to = 0;
  std::vector<std::uint64_t> predict_at;
  double min_marginal_efficiency = 0.5;
  double max_cost_increase = 0.2;
  // Modeled serving
  DeploymentOptions deployment;
  WorkloadOptions workload;
  double target_output_tokens_per_s = 0;
  double max_itl_ms = 0;   ///< 0: no cap
  double max_ttft_ms = 0;
};

std::string read_file(const std::string& path) {
  // A pipe (--measured-file <(...)) is fine, and the size limit holds for it too; a named FIFO
  // waited for a writer forever, a device never ended, a directory read nothing.
  limits::check_stream_input(path, "--measured-file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("--measured-file: cannot read '{}'", path));
  }
  return limits::read_stream(in, fmt::format("--measured-file: '{}'", path));
}

// Library field names to the flags people typed: the shared table, except that the points come
// from --measured or --measured-file.
[[noreturn]] void rethrow_scaling(const InputError& e, std::string_view points_flag) {
  constexpr std::string_view kPoints = "scaling.points:";
  const std::string_view what = e.what();
  if (what.starts_with(kPoints)) {
    throw InputError(fmt::format("{}:{}", points_flag, what.substr(kPoints.size())));
  }
  rethrow_with_flag(e);
}

Exit run_measured(const ScaleOptions& o) {
  const RenderOptions render = render_options(o.common);
  ScalingRequest req;
  std::optional<std::string> file_unit;
  const bool from_file = !o.measured_file.empty();
  if (from_file) {
    MeasuredPoints m = parse_measured_text(read_file(o.measured_file), o.measured_file);
    req.points = std::move(m.points);
    file_unit = m.unit;
  } else {
    for (const std::string& entry : o.measured) {
      req.points.push_back(parse_measured_entry(entry, "--measured"));
    }
  }
  if (!o.unit.empty() && file_unit && *file_unit != o.unit) {
    throw InputError(fmt::format("--unit: '{}' conflicts with the unit '{}' in {}", o.unit, *file_unit, o.measured_file));
  }
  const std::string unit = !o.unit.empty() ? o.unit : file_unit.value_or("");
  if (!unit.empty()) {
    req.unit = parse_throughput_unit(unit, o.unit.empty() ? o.measured_file : "--unit");
  }
  // The GPU measured: one, and a known one even without --provider (an unknown name or a second
  // --gpu passed with exit 0 and was never read).
  if (o.gpus.size() > 1) {
    throw InputError(fmt::format("--gpu: measurements are of one GPU, got {}: give --gpu once (several --gpu model "
                                 "GPUs side by side with --model)",
                                 o.gpus.size()));
  }
  std::optional<Catalog> catalog;
  if (!o.gpus.empty() || !o.provider.empty()) {
    catalog.emplace(load_catalog(o.common));
  }
  const GpuSpec* measured_gpu = o.gpus.empty() ? nullptr : &lookup_gpu(*catalog, o.gpus.front(), "--gpu");
  if (!o.provider.empty()) {
    if (o.gpus.size() != 1) {
      throw InputError("--provider: name the GPU the measurements ran on with one --gpu");
    }
    const PricingMode mode = parse_pricing_mode(o.mode.empty() ? "on-demand" : o.mode, "--mode");
    req.price = find_price(*catalog, o.provider, measured_gpu->id, mode);
    req.offer = offer_prices(*catalog, *req.price);
    warn_stale(*req.price);
    req.usd_per_gpu_hour = req.price->usd_per_gpu_hour;
  } else if (o.usd_per_gpu_hour > 0) {
    req.usd_per_gpu_hour = o.usd_per_gpu_hour;
  }
  req.up_to = o.up_to;
  req.predict_at = o.predict_at;
  req.min_marginal_efficiency = o.min_marginal_efficiency;
  req.max_cost_increase = o.max_cost_increase;
  try {
    const ScalingResult result = measured_scaling(req);
    fmt::print("{}", render_scaling(result, render));
  } catch (const InputError& e) {
    rethrow_scaling(e, from_file ? "--measured-file " + o.measured_file : "--measured");
  }
  return Exit::ok;
}

Exit run_modeled(const ScaleOptions& o) {
  const Catalog catalog = load_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  if (o.gpus.empty()) {
    throw InputError("--gpu: name at least one GPU to model (repeat --gpu to compare)");
  }
  DeploymentOptions dep = o.deployment;
  dep.gpu = o.gpus.front();
  const Deployment d = resolve_deployment(catalog, dep);
  ScaleModelRequest req;
  for (const std::string& g : o.gpus) {
    req.gpus.push_back(catalog.gpu(g).id);
    (void)gpus_per_node(o.deployment, catalog.gpu(g));  // a node no server of this GPU is
  }
  req.perf.fit = d.request;
  apply_workload(o.workload, req.perf);
  // As plan's: a target rate is a steady load, so TTFT is random arrivals' unless --arrivals says.
  req.perf.arrivals = arrivals_for(o.workload, o.target_output_tokens_per_s > 0);
  req.max_batch = req.perf.max_batch;
  req.up_to = o.up_to == 0 ? 64 : o.up_to;
  if (o.max_itl_ms > 0) {
    req.max_itl_s = o.max_itl_ms * 1e-3;
  }
  if (o.max_ttft_ms > 0) {
    req.max_ttft_s = o.max_ttft_ms * 1e-3;
  }
  if (o.target_output_tokens_per_s > 0) {
    req.target_output_tokens_per_s = o.target_output_tokens_per_s;
  }
  if (!o.provider.empty()) {
    const PricingMode mode = parse_pricing_mode(o.mode.empty() ? "on-demand" : o.mode, "--mode");
    for (const std::string& g : req.gpus) {
      const Price& p = find_price(catalog, o.provider, g, mode);
      warn_stale(p);
      req.prices[g] = p;
      req.offers[g] = offer_prices(catalog, p);
      req.usd_per_gpu_hour[g] = p.usd_per_gpu_hour;
    }
  } else if (o.usd_per_gpu_hour > 0) {
    for (const std::string& g : req.gpus) {
      req.usd_per_gpu_hour[g] = o.usd_per_gpu_hour;
    }
  }
  for (const std::string& g : req.gpus) {
    const EstimateBand b = estimate_band(catalog, d.model, catalog.gpu(g), req.perf.fit.weights_dtype,
                                           engine_calibrated(req.perf.fit.engine.engine));
    req.band_by_gpu[g] = b;
  }
  const ScaleModelResult result = with_flag_names([&] { return model_scaling(catalog, d.model, req); });
  fmt::print("{}", render_model_scaling(result, render));
  return Exit::ok;
}

}  // namespace

void add_scale_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<ScaleOptions>();
  CLI::App* sub = app.add_subcommand("scale", "Scaling efficiency, measured or modeled: where adding GPUs stops paying");
  auto* measured = sub->add_option("--measured", o->measured,
                                   "Measured throughput per GPU count, GPUS=THROUGHPUT, comma-separated (1=1000,2=1900)")
                       ->delimiter(',');
  auto* file = sub->add_option("--measured-file", o->measured_file,
                               "Measurements from a file: JSON ({\"unit\", \"points\": [{\"gpus\", \"throughput\"}]}) "
                               "or CSV rows gpus,throughput")
                   ->check(non_empty());
  measured->excludes(file);
  sub->add_option("--unit", o->unit, "What the throughput counts, e.g. tokens/s or samples/s (default units/s)")
      ->check(non_empty());
  sub->add_option("--gpu", o->gpus, "GPU id (repeat to model several side by side; with --provider, the GPU measured)")
      ->check(non_empty());
  sub->add_option("--provider", o->provider, "Price provider (gpuplan catalog prices)")->check(non_empty());
  sub->add_option("--mode", o->mode, "Pricing mode with --provider (default on-demand)")->check(non_empty());
  sub->add_option("--usd-per-gpu-hour", o->usd_per_gpu_hour, "Price per GPU-hour (instead of --provider)")
      ->check(positive_validator());
  sub->add_option("--up-to", o->up_to, "Largest GPU count to predict (default: 8 x the largest measured)")
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub->add_option("--predict-at", o->predict_at, "Extra GPU counts to predict, comma-separated")
      ->delimiter(',')
      ->transform(whole_number())->check(CLI::Range(std::uint64_t{1}, std::uint64_t{65536}));
  sub->add_option("--min-marginal-efficiency", o->min_marginal_efficiency,
                  "A step whose marginal efficiency falls below this stops paying")
      ->capture_default_str()
      ->check(share_validator());
  sub->add_option("--max-cost-increase", o->max_cost_increase,
                  "Cost per unit this share above the lowest stops paying (0.2 = 20 %)")
      ->capture_default_str()
      ->transform(decimal_number())->check(CLI::Range(0.001, 100.0));
  add_deployment_options(*sub, o->deployment, false, false);
  // Refused with its reason when given (only fit models a MIG slice), so out of the help.
  sub->get_option("--mig")->group("");
  add_workload_options(*sub, o->workload, false, false);
  add_cached_input_option(*sub, o->workload);
  add_arrivals_option(*sub, o->workload);
  sub->add_option("--target-output-tokens-per-s", o->target_output_tokens_per_s,
                  "Modeled: serve-out rows, the replicas and GPUs this load needs")
      ->transform(decimal_number())
      ->check(target_validator());
  // As plan's, with the same bounds: "the replica that earns the most" and "fewest GPUs for the
  // target" are chosen among rows within them.
  sub->add_option("--max-itl-ms", o->max_itl_ms,
                  "Modeled: largest mean inter-token latency under load, ms, as plan's: rows above it are shown but "
                  "neither earn the most per GPU nor meet the target (default: no limit)")
      ->transform(decimal_number())->check(positive_validator())->check(CLI::Range(limits::kMinLatencyLimitMs, limits::kMaxLatencyLimitMs));
  sub->add_option("--max-ttft-ms", o->max_ttft_ms,
                  "Modeled: largest time to first token, ms, as plan's (default: no limit)")
      ->transform(decimal_number())->check(positive_validator())->check(CLI::Range(limits::kMinLatencyLimitMs, limits::kMaxLatencyLimitMs));
  add_common_options(*sub, o->common);
  sub->callback([o, sub, &exit_code] {
    note_given(*sub, o->deployment);
    if (!o->mode.empty() && o->provider.empty()) {
      throw InputError("--mode: needs --provider");
    }
    if (!o->provider.empty() && sub->count("--usd-per-gpu-hour") > 0) {
      throw InputError("--usd-per-gpu-hour: give a price or --provider, not both");
    }
    const bool from_measurements = sub->count("--measured") > 0 || sub->count("--measured-file") > 0;
    const bool modeled = o->deployment.model_given || o->deployment.model_config_given;
    if (from_measurements == modeled) {
      throw InputError(from_measurements ? "--model: give measurements (--measured, --measured-file) or a model to model, not both"
                                : "one of --measured, --measured-file (measured scaling) or --model, --model-config "
                                  "(modeled serving) is required");
    }
    // Modeled scaling chooses the layouts itself; measured scaling has no model to lay out.
    if (sub->count("--mig") > 0) {
      throw InputError("--mig: MIG slices are modelled by fit only (a slice's memory: gpuplan fit --mig)");
    }
    for (const char* flag : {"--tp", "--pp", "--gpus", "--nodes"}) {
      if (sub->count(flag) > 0) {
        throw InputError(fmt::format("{}: scale enumerates layouts itself (see 'gpuplan perf' for one layout)", flag));
      }
    }
    if (from_measurements) {
      // Every flag outside these describes the modeled deployment: refused rather than ignored
      // (--engine, an efficiency or a KV share given with measurements changed nothing).
      static constexpr std::array kMeasuredFlags{"--measured", "--measured-file", "--unit", "--gpu", "--provider",
                                                 "--mode", "--usd-per-gpu-hour", "--up-to", "--predict-at",
                                                 "--min-marginal-efficiency", "--max-cost-increase", "--format",
                                                 "--units", "--catalog"};
      for (const CLI::Option* opt : sub->get_options([](const CLI::Option* option) { return option->count() > 0; })) {
        const std::string flag = opt->get_name();
        if (std::find(kMeasuredFlags.begin(), kMeasuredFlags.end(), flag) == kMeasuredFlags.end()) {
          throw InputError(fmt::format("{}: describes modeled serving; it needs --model, not measurements", flag));
        }
      }
      exit_code = run_measured(*o);
      return;
    }
    for (const char* flag : {"--unit", "--predict-at", "--min-marginal-efficiency", "--max-cost-increase"}) {
      if (sub->count(flag) > 0) {
        throw InputError(fmt::format("{}: applies to measured scaling (--measured), not to a modeled table", flag));
      }
    }
    try {
      exit_code = with_flag_names([&o] { return run_modeled(*o); });
    } catch (const InputError& e) {
      rethrow_scaling(e, "--measured");
    }
  });
}

}  // namespace gpuplan::cli
