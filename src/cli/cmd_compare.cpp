// gpuplan compare: two or more GPUs for one model and workload, across pricing modes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/calibration.hpp>
#include <gpuplan/compare.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"
#include "workload.hpp"

namespace gpuplan::cli {
namespace {

struct CompareOptions {
  CommonOptions common;
  DeploymentOptions deployment;
  WorkloadOptions workload;
  PricingOptions pricing;
  std::vector<std::string> gpus;
  std::vector<std::string> measured;
};

Exit run_compare(CompareOptions o) {
  const Catalog catalog = load_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  CompareRequest req;
  req.size_for_target = size_for_target(o.workload, o.deployment);
  for (const std::string& g : o.gpus) {
    req.gpus.push_back(lookup_gpu(catalog, g, "--gpu").id);
  }
  if (o.deployment.gpus == 0 && o.deployment.nodes == 0) {
    // One node by default; with a target, the node the replica is chosen in.
    o.deployment.gpus = req.size_for_target ? gpus_per_node(o.deployment, catalog.gpu(req.gpus.front())) : 8;
    req.gpus_defaulted = !req.size_for_target;
  }
  // Without --gpus-per-node each GPU takes its systems' own node (one GB10 per DGX Spark).
  req.gpus_per_node_given = o.deployment.gpus_per_node > 0;
  for (const std::string& g : req.gpus) {
    (void)gpus_per_node(o.deployment, catalog.gpu(g));  // a node no server of this GPU is
  }
  o.deployment.gpu = req.gpus.front();  // resolved once: one note for a loose name
  const Deployment d = resolve_deployment(catalog, o.deployment);
  req.gpus_per_option = d.gpus;
  req.perf.fit = d.request;
  apply_workload(o.workload, req.perf);
  req.layout_given = d.layout_given;
  req.concurrency = planned_concurrency(o.workload);
  req.target_output_tokens_per_s = planned_target(o.workload);
  for (const std::string& m : o.measured) {
    const auto eq = m.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(fmt::format("--measured: expected GPU=TOKENS_PER_S, got '{}'", m));
    }
    const std::string gpu = lookup_gpu(catalog, m.substr(0, eq), "--measured").id;
    // from_chars: plain decimal or exponent notation only (no hex, no "nan").
    double tps = 0;
    const char* first = m.data() + eq + 1;
    const char* last = m.data() + m.size();
    const auto [end, ec] = std::from_chars(first, last, tps);
    if (ec != std::errc{} || end != last || first == last || !std::isfinite(tps)) {
      throw InputError(fmt::format("--measured: expected a number of tokens/s after '=', got '{}'", m));
    }
    if (req.measured_tokens_per_s.contains(gpu)) {
      throw InputError(fmt::format("--measured: {} is measured twice", gpu));
    }
    req.measured_tokens_per_s[gpu] = tps;
  }
  req.provider = o.pricing.provider;
  req.region = o.pricing.region;
  req.term = o.pricing.term;
  req.given_usd_per_gpu_hour = given_prices(catalog, o.pricing.prices);
  req.today = catalog.today();
  if (!o.pricing.mode.empty()) {
    req.mode = parse_pricing_mode(o.pricing.mode, "--mode");
  }
  apply_pricing(o.pricing, req.cost);
  if (o.pricing.check) {
    // A failed check is a result, as in cost and perf: when no option holds one sequence, the
    // first one's fit is printed and the exit is 1 (without --check it stays a usage error, exit 2).
    std::optional<FitResult> first;
    for (const std::string& gpu : req.gpus) {
      FitResult f = option_fit(catalog, d.model, req, gpu);
      if (f.fits) {
        first.reset();
        break;
      }
      if (!first) {
        first = std::move(f);
      }
    }
    if (first) {
      fmt::print("{}", render_fit(*first, render));
      print_note(fmt::format("gpuplan: {}; see 'gpuplan fit'", option_fit_problem(d.model, *first)));
      return Exit::check_failed;
    }
  }
  const CompareResult result = compare(catalog, d.model, req);
  fmt::print("{}", render_compare(result, render));
  if (o.pricing.check && !result.excluded.empty()) {
    // The table of the options that fit is printed; the check fails on the one that does not.
    print_note(fmt::format("gpuplan: {}; see 'gpuplan fit'", result.excluded.front().problem));
    return Exit::check_failed;
  }
  // One warning naming every stale price the comparison used.
  std::vector<std::string> stale;
  for (const ModeComparison& m : result.modes) {
    for (const PricedOption& po : m.options) {
      if (po.price && po.price->stale()) {
        stale.push_back(fmt::format("{} {} {} ({}, {} days)", po.price->provider, offer_label(po.price->mode, po.price->term),
                                    po.price->gpu, po.price->date, po.price->age_days));
      }
    }
  }
  if (!stale.empty()) {
    print_note(fmt::format("gpuplan: warning: {} {} older than {} days, check {}: {}", stale.size(),
                           stale.size() == 1 ? "price used is" : "prices used are", kStalePriceDays,
                           stale.size() == 1 ? "it" : "them", fmt::join(stale, "; ")));
  }
  const std::optional<double> best = result.cheapest_usd_per_million_tokens();
  if (o.pricing.check && o.pricing.max_usd_per_mtok > 0 && best && *best > o.pricing.max_usd_per_mtok) {
    print_note(fmt::format("gpuplan: over budget: the cheapest option costs ${:.4f} per million output tokens, budget ${:.4f}",
               *best, o.pricing.max_usd_per_mtok));
    return Exit::check_failed;
  }
  return Exit::ok;
}

}  // namespace

void add_compare_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "GPUs side by side: cost per million tokens in every pricing mode. Each option is one deployment of --gpus "
      "GPUs (default 8, one node) of one type; --tp/--pp fix its layout, else the fastest layout is chosen");
  sub->add_option("--gpu", o->gpus, "GPU ids to compare (repeat; the first is the baseline; each option gets --gpus GPUs, "
                                    "default 8: one node, the unit large GPUs are rented in, whatever the model's size; "
                                    "--gpus 1 compares single GPUs)")
      ->required()
      ->check(non_empty());
  add_deployment_options(*sub, o->deployment, false, false);
  // Refused with its reason when given (only fit models a MIG slice), so out of the help.
  sub->get_option("--mig")->group("");
  add_workload_options(*sub, o->workload);
  add_cached_input_option(*sub, o->workload);
  add_pricing_options(*sub, o->pricing, "every provider", "every mode the provider prices", true, false);
  // Alone it gates the GPUs left out; a budget, when given, is checked too.
  sub->get_option("--check")->description(
      "Exit with code 1 when a GPU is left out (its deployment cannot hold one sequence) or, with "
      "--max-usd-per-mtok, when the cheapest option is over it");
  sub->add_option("--measured", o->measured, "Measured throughput, GPU=TOKENS_PER_S (repeatable), replaces the estimate");
  add_common_options(*sub, o->common);
  sub->callback([o, sub, &exit_code] {
    note_given(*sub, o->deployment);
    refuse_energy_flags(*sub);
    if (sub->count("--mig") > 0) {
      throw InputError("--mig: MIG slices are modelled by fit only (a slice's memory: gpuplan fit --mig)");
    }
    if (o->gpus.size() < 2) {
      throw InputError("--gpu: give at least two GPUs to compare");
    }
    exit_code = with_flag_names([&o] { return run_compare(*o); });
  });
}

}  // namespace gpuplan::cli
