// gpuplan catalog: list GPUs, models and prices; show one entry; validate a user file.
#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/calibration.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/render.hpp>

#include "command_io.hpp"
#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"

namespace gpuplan::cli {
namespace {

struct CatalogOptions {
  CommonOptions common;
  std::string id;
  std::string file;
  // catalog prices' filters
  std::vector<std::string> gpus;
  std::string provider;
  std::string mode;
  std::string region;
  std::string term;
};

Exit run_prices(const CatalogOptions& o) {
  const Catalog catalog = load_catalog(o.common);
  PriceFilter filter;
  for (const std::string& g : o.gpus) {
    const std::string id = lookup_gpu(catalog, g, "--gpu").id;
    if (std::find(filter.gpus.begin(), filter.gpus.end(), id) != filter.gpus.end()) {
      throw InputError(fmt::format("--gpu: '{}' is given twice", id));
    }
    filter.gpus.push_back(id);
  }
  filter.provider = o.provider;
  if (!o.mode.empty()) {
    filter.mode = parse_pricing_mode(o.mode, "--mode");
  }
  filter.region = o.region;
  if (!o.term.empty()) {
    // Only reserved prices have a term: alone it lists those; with another mode it is a mistake.
    check_term(o.term, filter.mode.value_or(PricingMode::reserved));
    filter.term = parse_term(o.term, "--term");
  }
  for (const std::string& note : catalog.take_notes()) {
    print_note(fmt::format("gpuplan: note: {}", note));
  }
  try {
    fmt::print("{}", render_price_list(catalog, filter, render_options(o.common)));
  } catch (const InputError& e) {
    rethrow_with_flag(e);  // "provider: ..." as --provider
  }
  return Exit::ok;
}

Exit run_show(const CatalogOptions& o) {
  const Catalog catalog = load_catalog(o.common);
  const RenderOptions render = render_options(o.common);
  const auto print_notes = [&catalog] {
    for (const std::string& note : catalog.take_notes()) {
      print_note(fmt::format("gpuplan: note: {}", note));
    }
  };
  if (const GpuSpec* g = catalog.find_gpu(o.id) != nullptr ? catalog.find_gpu(o.id) : catalog.resolve_gpu(o.id)) {
    print_notes();
    fmt::print("{}", render_gpu(*g, render));
    return Exit::ok;
  }
  if (const ModelSpec* m = catalog.resolve_model(o.id)) {
    print_notes();
    fmt::print("{}", render_model(*m, render));
    return Exit::ok;
  }
  std::vector<std::string> ids;
  for (const GpuSpec& g : catalog.gpus()) {
    ids.push_back(g.id);
  }
  for (const ModelSpec& m : catalog.models()) {
    ids.push_back(m.id);
  }
  // A name with an owner ("zai-org/GLM-9") is a model's, the closest its name's.
  const auto close = closest_names(without_owner(o.id), ids);
  throw InputError(fmt::format("unknown GPU or model '{}'{}", o.id,
                               close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", "))));
}

Exit run_validate(const CatalogOptions& o) {
  Catalog catalog = load_catalog(o.common);
  const MergeReport report = catalog.merge_file(o.file);
  fmt::print("{}", render_merge_report(report, render_options(o.common)));
  // Checked against what it overrides: the shipped benchmarks on the entries it changes.
  for (const std::string& line : shipped_benchmarks_on_changed_entries(catalog)) {
    const bool from_this_file = std::any_of(report.overrides.begin(), report.overrides.end(), [&line](const std::string& entry) {
      return line.starts_with(entry.substr(0, entry.find(" (")));  // "GPU 'h100-sxm' (was from ...)"
    });
    if (from_this_file) {
      print_note(fmt::format("gpuplan: note: {}: {}", o.file, line));
    }
  }
  return Exit::ok;
}

}  // namespace

void add_catalog_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<CatalogOptions>();
  CLI::App* cat = app.add_subcommand("catalog", "What GPUs, models and prices gpuplan knows");
  cat->require_subcommand(1);
  using Render = std::string (*)(const Catalog&, const RenderOptions&);
  const auto list = [&](const char* name, const char* help, Render render) {
    CLI::App* sub = cat->add_subcommand(name, help);
    add_common_options(*sub, o->common);
    sub->callback([o, render, &exit_code] {
      fmt::print("{}", render(load_catalog(o->common), render_options(o->common)));
      exit_code = Exit::ok;
    });
  };
  list("gpus", "List GPUs", &render_gpu_list);
  list("models", "List models", &render_model_list);

  CLI::App* prices = cat->add_subcommand("prices", "List prices with provider, mode and date");
  prices->add_option("--gpu", o->gpus, "Only these GPUs (repeat; ids, aliases and names as elsewhere; default: every GPU)")
      ->check(non_empty());
  prices->add_option("--provider", o->provider, "Only this provider's prices (default: every provider)")->check(non_empty());
  prices->add_option("--mode", o->mode,
                     "Only this pricing mode: on-demand, dedicated, reserved, spot (with the interruptible and "
                     "preemptible offers), interruptible, preemptible, capacity-block (default: every mode)")
      ->check(non_empty());
  prices->add_option("--region", o->region,
                     "Only prices in this region: a case-insensitive prefix, e.g. us-east or eu; us and eu also take "
                     "Azure's eastus2, westeurope (default: every region, and prices that state none)")
      ->check(non_empty());
  prices->add_option("--term", o->term, "Only reserved prices with this commitment term: 1y, 3y, 6mo, unstated (default: every term)")
      ->check(non_empty());
  add_common_options(*prices, o->common);
  prices->callback([o, &exit_code] { exit_code = run_prices(*o); });

  CLI::App* show = cat->add_subcommand("show", "Show one GPU or model with its sources");
  show->add_option("id", o->id, "GPU or model id")->required()->check(non_empty());
  add_common_options(*show, o->common);
  show->callback([o, &exit_code] { exit_code = run_show(*o); });

  CLI::App* validate = cat->add_subcommand("validate", "Check a catalog file");
  validate->add_option("file", o->file, "Catalog JSON file")->required()->check(non_empty());
  add_common_options(*validate, o->common);
  validate->callback([o, &exit_code] { exit_code = run_validate(*o); });
}

}  // namespace gpuplan::cli
