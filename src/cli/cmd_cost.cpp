// gpuplan cost: USD per hour, tokens per USD, USD per million tokens and energy for one deployment.
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include <gpuplan/calibration.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/planned_load.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"
#include "workload.hpp"

namespace gpuplan::cli {
namespace {

struct CostOptions {
  CommonOptions common;
  DeploymentOptions deployment;
  WorkloadOptions workload;
  PricingOptions pricing;
  double usd_per_gpu_hour = 0;
  double tokens_per_second = 0;
  double capex_usd_per_gpu = 0;
  double amortization_years = 4;
  double ops_share = 0;
  bool amortization_set = false;
};

// A failed check is a result: with --check, "does not fit" prints the fit and exits 1 (bad
// usage stays exit 2); without it, it is an error as before.
Exit does_not_fit(const CostOptions& o, const FitResult& f, const std::string& why) {
  if (!o.pricing.check) {
    return batch_input_error(InputError(why));  // as perf's: not thrown inside a batch
  }
  fmt::print("{}", render_fit(f, render_options(o.common)));
  print_note(fmt::format("gpuplan: {}", why));
  return Exit::check_failed;
}

// A measured rate past the roofline of this workload on the layout perf would run is no typo
// check_measured_rate catches (it is below the GPUs' FLOPs for any workload) but prices tokens
// that were not served as output: input+output tokens counted as output, shorter prompts than
// --input, another layout. compare notes it; cost priced 60,000 tok/s of Llama-3.1-8B on one
// H100 (a 12,894 tok/s bound) with exit 0 and nothing said.
void warn_above_roofline(const CostOptions& o, const Deployment& d, const GpuSpec& gpu) {
  PerfRequest req;
  req.fit = d.request;
  apply_workload(o.workload, req);
  try {
    const FitResult best = serving_layout(d.model, gpu, req, d.layout_given, d.gpus).fit;
    if (!best.fits) {
      return;
    }
    req.fit.layout = best.request.layout;
    const PerfModel pm(d.model, gpu, req);
    const std::uint64_t batch = planned_load(pm, std::nullopt, std::nullopt).batch;
    const double bound = pm.evaluate(batch, Efficiency::roofline()).output_tokens_per_s;
    if (o.tokens_per_second > bound) {
      print_note(fmt::format(
          "gpuplan: warning: --tokens-per-second {:g} is above the roofline of {}-token prompts and {}-token outputs on "
          "{} x {} ({:.0f} output tok/s at {} and batch {}, the most memory allows): the measured run used shorter "
          "prompts or another layout, or the rate counts input tokens too (give output tokens/s alone); USD per "
          "million output tokens is priced on it as given",
          o.tokens_per_second, o.workload.input, o.workload.output, d.gpus, gpu.id, bound,
          layout_label(req.fit.layout), batch));
    }
  } catch (const InputError&) {
    // No bound to set it against (a layout perf refuses): the absolute check above stands alone.
  }
}

Exit run_cost(const CostOptions& o) {
  const Catalog& catalog = command_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  CostReport report;
  CostRequest& c = report.cost.request;
  apply_pricing(o.pricing, c);
  const bool model_given = o.deployment.model_given || o.deployment.model_config_given;
  if (!model_given && o.tokens_per_second <= 0) {
    throw InputError("one of --model, --model-config or --tokens-per-second is required");
  }
  if (!o.deployment.mig.empty()) {
    // Prices and TDPs are per whole GPU; a slice's share of either is no published figure.
    throw InputError("--mig: cost prices and powers whole GPUs, not MIG slices (fit --mig checks a slice's memory)");
  }
  const GpuSpec& gpu = lookup_gpu(catalog, o.deployment.gpu, "--gpu");
  DeploymentOptions deployment = o.deployment;
  deployment.gpu = gpu.id;  // resolved once: one note for a loose name
  report.gpu_id = gpu.id;
  c.gpu_power_w = gpu.tdp_w;
  // The layout the GPUs run: a replica shares one instance of a price rented in whole instances.
  Layout priced_layout{.tp = std::max<std::uint64_t>(1, o.deployment.tp), .pp = std::max<std::uint64_t>(1, o.deployment.pp)};
  if (o.tokens_per_second > 0) {
    // A measurement: the deployment's size comes from --gpus/--nodes or TP x PP; a model, when
    // given, must still fit it.
    if (model_given) {
      const Deployment d = resolve_deployment(catalog, deployment);
      report.model_id = d.model.id;
      FitRequest fr = d.request;
      fr.context_tokens = o.workload.input + o.workload.output;
      fr.prompt_tokens = o.workload.input;
      // The throughput is measured, so no layout rule by throughput applies: the model only has
      // to fit (any layout of the GPUs: the smallest replica that holds a sequence).
      const FitResult f = d.layout_given ? fit(d.model, gpu, fr) : fit_smallest_layout(d.model, gpu, fr, d.gpus);
      if (!f.fits) {
        return does_not_fit(o, f, fmt::format("does not fit: {} on {} x {} cannot hold one {}-token sequence; see 'gpuplan fit'",
                                              d.model.id, f.request.layout.gpus(), gpu.id, fr.context_tokens));
      }
      c.gpus = d.gpus;
      priced_layout = f.request.layout;
      check_measured_rate(d.model, gpu, c.gpus, o.tokens_per_second, "--tokens-per-second");
      warn_above_roofline(o, d, gpu);
    } else {
      report.model_id = "-";
      const std::uint64_t replica = std::max<std::uint64_t>(1, o.deployment.tp) * std::max<std::uint64_t>(1, o.deployment.pp);
      const std::uint64_t gpus =
          o.deployment.nodes > 0 ? o.deployment.nodes * gpus_per_node(o.deployment, gpu) : o.deployment.gpus;
      c.gpus = gpus == 0 ? replica : gpus;
    }
    c.output_tokens_per_s = o.tokens_per_second;
    c.input_tokens_per_s = input_tokens_per_s_for(o.tokens_per_second, o.workload.input, o.workload.output);
    report.throughput = {.measured = true, .input_tokens = o.workload.input, .output_tokens = o.workload.output};
  } else {
    Deployment d = resolve_deployment(catalog, deployment);
    report.model_id = d.model.id;
    PerfRequest req;
    req.fit = d.request;
    apply_workload(o.workload, req);
    validate_perf_request(d.model, req);
    const bool sized = size_for_target(o.workload, o.deployment);
    d.gpus = layout_search_gpus(sized, d.layout_given, d.request.gpus_per_node, d.gpus);
    if (!o.pricing.provider.empty()) {
      // The layout rule keeps replicas the offer's instances can hold (plan skips the others).
      const PricingMode mode = parse_pricing_mode(o.pricing.mode.empty() ? "on-demand" : o.pricing.mode, "--mode");
      check_term(o.pricing.term, mode);
      const Price& offer = find_price(catalog, o.pricing.provider, gpu.id, mode, o.pricing.region, o.pricing.term);
      LayoutOffers offers = layout_offers(catalog, std::span(&offer, 1));
      req.largest_instance_gpus = offers.largest_instance_gpus;
      req.instance_offers = std::move(offers.instance_offers);
    }
    const FitResult layout = serving_layout(d.model, gpu, req, d.layout_given, d.gpus).fit;
    if (const std::optional<std::string> start = engine_start_problem(layout); start) {
      return does_not_fit(o, layout, fmt::format("does not fit: {} (TP {}, PP {}); see 'gpuplan fit'", *start,
                                                 layout.request.layout.tp, layout.request.layout.pp));
    }
    if (!layout.fits) {
      // Every term, as perf names them: a --reserve that fills the GPU must show.
      const PerGpuMemory& m = layout.per_gpu;
      return does_not_fit(o, layout, fmt::format("does not fit: weights {:.2f} GB + activations {:.2f} GB{} + reserve {:.2f} GB{} "
                                                 "and one {}-token sequence's KV cache ({:.2f} GB) per GPU exceed the "
                                                 "{:.2f} GB engine cap (TP {}, PP {}); see 'gpuplan fit'",
                                                 m.weights_bytes / units::kGB, m.activation_bytes / units::kGB,
                                                 prefill_chunk_blame(layout),
                                                 m.reserve_bytes / units::kGB, reserve_blame(layout), req.fit.context_tokens,
                                                 layout.sequence_kv_bytes_per_gpu / units::kGB,
                                                 m.engine_cap_bytes / units::kGB, layout.request.layout.tp,
                                                 layout.request.layout.pp));
    }
    if (layout.engine) {
      if (const std::optional<std::string> line = default_max_model_len_line(*layout.engine, layout.request.context_tokens)) {
        print_note(fmt::format("gpuplan: note: {}", *line));
      }
    }
    req.fit.layout = layout.request.layout;
    const std::uint64_t sized_replicas =
        sized ? size_replicas_for_target(d.model, gpu, req, o.workload.target_output_tokens_per_s) : 0;
    const PerfModel pm(d.model, gpu, req);
    PlannedLoad load = planned_load(pm, planned_concurrency(o.workload), planned_target(o.workload));
    load.sized_replicas = sized_replicas;
    if (!load.full_load()) {
      report.load = load;
    }
    const std::uint64_t batch = load.batch;
    const PerfPoint p = pm.evaluate(batch, req.efficiency);
    c.gpus = req.fit.layout.gpus();
    priced_layout = req.fit.layout;
    c.output_tokens_per_s = p.output_tokens_per_s;
    c.input_tokens_per_s = input_tokens_per_s_for(p.output_tokens_per_s, o.workload.input, o.workload.output);
    report.throughput = {
        .measured = false,
        .input_tokens = o.workload.input,
        .cached_input_tokens = o.workload.cached_input,
        .output_tokens = o.workload.output,
        .batch = batch,
        .load = load,
        .layout = req.fit.layout,
        .layout_given = d.layout_given,
        .instance_limit_gpus =
            req.largest_instance_gpus > 0 && req.largest_instance_gpus < req.fit.gpus_per_node &&
                    instance_group(req.fit.layout, gpu, req.fit.gpus_per_node) <= req.largest_instance_gpus
                ? req.largest_instance_gpus
                : 0,
        .sparse = req.sparse};
  }
  double usd_per_gpu_hour = o.usd_per_gpu_hour;
  if (usd_per_gpu_hour > 0) {
    warn_instance_price(catalog, gpu.id, usd_per_gpu_hour, fmt::format("--usd-per-gpu-hour {:g}", usd_per_gpu_hour));
  }
  for (const auto& [id, usd] : given_prices(catalog, o.pricing.prices)) {
    if (id != gpu.id) {
      throw InputError(fmt::format("--price: {} is not the GPU costed (--gpu {})", id, gpu.id));
    }
    if (usd_per_gpu_hour > 0) {
      throw InputError("--price: give either --price or --usd-per-gpu-hour");
    }
    usd_per_gpu_hour = usd;
  }
  const bool price_given = usd_per_gpu_hour > 0;
  const bool owned = o.capex_usd_per_gpu > 0;
  const bool catalog_price = !o.pricing.provider.empty();
  if (static_cast<int>(price_given) + static_cast<int>(owned) + static_cast<int>(catalog_price) != 1) {
    throw InputError(
        "give exactly one of --provider (with --mode), --price GPU=USD / --usd-per-gpu-hour or --capex-usd-per-gpu");
  }
  if (catalog_price) {
    const PricingMode mode = parse_pricing_mode(o.pricing.mode.empty() ? "on-demand" : o.pricing.mode, "--mode");
    check_term(o.pricing.term, mode);
    // The offer's instance size that costs least for these GPUs: whole instances are paid.
    c.instance_group = std::min(c.gpus, instance_group(priced_layout, gpu, gpus_per_node(o.deployment, gpu)));
    const Price& price = instance_price(
        catalog, find_price(catalog, o.pricing.provider, gpu.id, mode, o.pricing.region, o.pricing.term),
        GpuNeed{.gpus = c.gpus, .group = c.instance_group});
    report.price = price;
    if (o.pricing.term.empty() && !price.term.empty()) {
      // No --term: find_price took the cheapest term; the others of the offer are named, each at
      // its instance size best for these GPUs.
      const GpuNeed need{.gpus = c.gpus, .group = c.instance_group};
      for (const Price& p : catalog.prices()) {
        if (p.provider == price.provider && p.gpu == price.gpu && p.mode == price.mode && p.region == price.region &&
            p.term != price.term &&
            std::none_of(report.other_terms.begin(), report.other_terms.end(),
                         [&p](const Price& q) { return q.term == p.term; })) {
          report.other_terms.push_back(instance_price(catalog, p, need));
        }
      }
    }
    use_price(c, price);
    warn_stale(price);
  } else if (price_given) {
    c.usd_per_gpu_hour = usd_per_gpu_hour;
    report.given_price_mode = o.pricing.mode;
  } else {
    c.owned = OwnedHardware{.capex_usd_per_gpu = o.capex_usd_per_gpu,
                            .amortization_years = o.amortization_years,
                            .operations_share_per_year = o.ops_share};
  }
  // With --price, --mode only names what the given rate is (the help's "in the --mode given", as
  // compare and plan label it); alone, it has no price to choose.
  if (!o.pricing.mode.empty() && !catalog_price && !price_given) {
    throw InputError("--mode: needs --provider or --price");
  }
  if (!o.pricing.region.empty() && !catalog_price) {
    throw InputError("--region: needs --provider");
  }
  if (!o.pricing.term.empty() && !catalog_price) {
    throw InputError("--term: needs --provider and --mode reserved");
  }
  if (!owned && (o.ops_share > 0 || o.amortization_set || o.pricing.usd_per_kwh > 0)) {
    // The message starts with a flag the user gave (batch reports its field), not always --ops-share.
    const std::string given = o.pricing.usd_per_kwh > 0 ? "--usd-per-kwh"
                              : o.amortization_set     ? "--amortization-years"
                                                       : "--ops-share";
    throw InputError(fmt::format("{}: describes owned hardware (as --ops-share, --amortization-years and "
                                 "--usd-per-kwh do): it needs --capex-usd-per-gpu",
                                 given));
  }
  report.cost = cost(c);
  if (report.price && report.cost.rental.group_split) {
    // A replica split over instances loses its GPUs' link (NVLink, or PCIe peers in one host):
    // that deployment does not exist, so no figure for it is a cost (plan skips such layouts;
    // compare marks them). The note names the offer's largest instance, not the cheapest's.
    throw InputError(fmt::format("--provider: not rentable: {} x {} ({}) at {}: {}; give --price {}=USD for "
                                 "an instance that holds it, or another --provider",
                                 c.gpus, gpu.id, layout_label(priced_layout), o.pricing.provider,
                                 not_rentable_text(report.cost.rental,
                                                   offer_sizes(*report.price, offer_prices(catalog, *report.price)), &gpu),
                                 gpu.id));
  }
  if (o.pricing.max_usd_per_mtok > 0) {
    report.budget_usd_per_million_tokens = o.pricing.max_usd_per_mtok;
  }
  print_document(render_cost(report, render));
  return o.pricing.check && !report.within_budget() ? Exit::check_failed : Exit::ok;
}

}  // namespace

void add_cost_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<CostOptions>();
  CLI::App* sub = app.add_subcommand("cost", "USD per hour, tokens per USD, USD per million tokens, energy");
  add_deployment_options(*sub, o->deployment, false);
  // Refused with its reason when given (only fit models a MIG slice), so out of the help.
  sub->get_option("--mig")->group("");
  add_workload_options(*sub, o->workload);
  add_cached_input_option(*sub, o->workload);
  add_pricing_options(*sub, o->pricing, "none, cost needs --provider, --price or --capex-usd-per-gpu", "on-demand");
  sub->add_option("--usd-per-gpu-hour", o->usd_per_gpu_hour, "Rental price, USD per GPU-hour (instead of --provider)")
      ->check(positive_validator());
  sub->add_option("--tokens-per-second", o->tokens_per_second, "Measured output tokens/s of the whole deployment (default: the model's estimate)")
      ->check(positive_validator())
      ->excludes("--target-output-tokens-per-s")
      ->excludes("--concurrency");
  // The performance model's settings have nothing to act on with a measured throughput.
  for (const char* flag : {"--sparse", "--bandwidth-efficiency", "--compute-efficiency", "--link-efficiency",
                           "--step-overhead-ms", "--layer-overhead-us", "--max-batch", "--network-gbit-per-s"}) {
    sub->get_option("--tokens-per-second")->excludes(flag);
  }
  sub->add_option("--capex-usd-per-gpu", o->capex_usd_per_gpu, "Owned hardware: purchase price per GPU, USD, including its share of host server, network and space, which are not added (default: none, rented)")
      ->check(positive_validator());
  sub->add_option("--amortization-years", o->amortization_years, "Owned hardware: years to amortize over")
      ->capture_default_str()
      ->transform(decimal_number())->check(CLI::Range(0.1, 30.0));
  sub->add_option("--ops-share", o->ops_share, "Owned hardware: operations cost per year as a share of capex (default 0)")
      ->transform(decimal_number())->check(CLI::Range(0.0, 1.0));
  add_common_options(*sub, o->common);
  set_command_callback(*sub, o, [o, sub, &exit_code] {
    note_given(*sub, o->deployment);
    o->amortization_set = sub->count("--amortization-years") > 0;
    if (o->pricing.check && o->pricing.max_usd_per_mtok <= 0) {
      throw InputError("--check: needs --max-usd-per-mtok, the budget to check");
    }
    exit_code = with_flag_names([&o] { return run_cost(*o); });
  });
}

}  // namespace gpuplan::cli
