#include "plan_evaluation.hpp"

#include <algorithm>
#include <cctype>
#include <span>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/plan_file.hpp>
#include <gpuplan/price.hpp>

#include "common.hpp"
#include "deployment.hpp"
#include "pricing.hpp"
#include "workload.hpp"

namespace gpuplan::cli {
namespace {

/// The flags of one deployment, parsed by the same CLI11 definitions `gpuplan cost` uses, so a
/// plan's values pass the same checks as typed flags.
struct EvaluationOptions {
  DeploymentOptions deployment;
  WorkloadOptions workload;
  PricingOptions pricing;
  double usd_per_gpu_hour = 0;
};

bool flag_char(char c) { return std::islower(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '-'; }

/// Where `flag` ("--gpus") stands in `text` as a whole word (not inside "--gpus-per-node"), or npos.
std::size_t flag_at(std::string_view text, std::string_view flag) {
  for (std::size_t at = text.find(flag); at != std::string_view::npos; at = text.find(flag, at + 1)) {
    const std::size_t end = at + flag.size();
    if ((at == 0 || !flag_char(text[at - 1])) && (end == text.size() || !flag_char(text[end]))) {
      return at;
    }
  }
  return std::string_view::npos;
}

/// A plan file has no flags: "--gpus excludes --nodes" or "use --weights-dtype" in a message
/// about one names the file's fields, "\"gpus\"" and "\"weights-dtype\"" (session 60 N3). A flag
/// no plan setting spells ("--check", "--help") is left as it is.
std::string as_plan_fields(std::string_view text) {
  const std::span<const std::string_view> names = plan_setting_names();
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text.substr(i).starts_with("--") && (i == 0 || !flag_char(text[i - 1]))) {
      std::size_t end = i + 2;
      while (end < text.size() && flag_char(text[end])) {
        ++end;
      }
      const std::string_view name = text.substr(i + 2, end - i - 2);
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        out += fmt::format("\"{}\"", name);
        i = end;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

/// "--tp: Value 0 not in range" becomes "plan.json: /deployments/0/tp: Value 0 not in range"; a
/// message that names a setting elsewhere ("--gpus excludes --nodes") points at the first one
/// it names; one naming no setting is prefixed with the deployment's pointer. Flags in the
/// rest of the message read as the plan's fields.
[[noreturn]] void rethrow_at_pointer(std::string_view message, const PlanFile& plan, const PlanDeployment& d) {
  std::string_view what = message;
  if (what.starts_with("gpuplan: ")) {
    what.remove_prefix(9);
  }
  for (const PlanSetting& s : d.settings) {
    if (what.starts_with(s.flag + ":")) {
      throw InputError(fmt::format("{}: {}{}", plan.origin, s.pointer, as_plan_fields(what.substr(s.flag.size()))));
    }
    // One flag under two names (deployment.cpp): a message names one, the plan may use the other.
    for (const auto& [a, b] : {std::pair<std::string_view, std::string_view>{"--prefill-chunk", "--max-num-batched-tokens"}}) {
      const std::string_view other = s.flag == a ? b : s.flag == b ? a : std::string_view();
      if (!other.empty() && what.starts_with(other) && what.substr(other.size()).starts_with(":")) {
        throw InputError(fmt::format("{}: {}{}", plan.origin, s.pointer, as_plan_fields(what.substr(other.size()))));
      }
    }
  }
  const PlanSetting* named = nullptr;
  std::size_t named_at = std::string_view::npos;
  for (const PlanSetting& s : d.settings) {
    if (const std::size_t at = flag_at(what, s.flag); at < named_at) {
      named = &s;
      named_at = at;
    }
  }
  if (named != nullptr) {
    throw InputError(fmt::format("{}: {}: {}", plan.origin, named->pointer, as_plan_fields(what)));
  }
  throw InputError(fmt::format("{}: {} (deployment '{}'): {}", plan.origin, d.pointer, d.name, as_plan_fields(what)));
}

std::vector<Price> plan_prices(const Catalog& catalog, const EvaluationOptions& o, const GpuSpec& gpu,
                               const PlanFile& plan, const PlanDeployment& d) {
  std::vector<Price> prices;
  if (o.usd_per_gpu_hour > 0) {
    if (!o.pricing.provider.empty()) {
      rethrow_at_pointer("--usd-per-gpu-hour: give either \"usd-per-gpu-hour\" or \"provider\", not both", plan, d);
    }
    // As cost refuses them beside --usd-per-gpu-hour: they choose among a provider's prices,
    // and silently ignoring them would price another offer than the one written.
    if (!o.pricing.mode.empty() || !o.pricing.region.empty() || !o.pricing.term.empty()) {
      rethrow_at_pointer(fmt::format("{}: needs \"provider\"; \"usd-per-gpu-hour\" is one price, with no {}",
                                     !o.pricing.mode.empty()     ? "--mode"
                                     : !o.pricing.region.empty() ? "--region"
                                                                 : "--term",
                                     !o.pricing.mode.empty()     ? "mode"
                                     : !o.pricing.region.empty() ? "region"
                                                                 : "term"),
                         plan, d);
    }
    const auto setting = std::find_if(d.settings.begin(), d.settings.end(),
                                      [](const PlanSetting& s) { return s.flag == "--usd-per-gpu-hour"; });
    warn_instance_price(catalog, gpu.id, o.usd_per_gpu_hour,
                        fmt::format("{}: {} {:g}", plan.origin,
                                    setting != d.settings.end() ? setting->pointer : d.pointer + "/usd-per-gpu-hour",
                                    o.usd_per_gpu_hour));
    Price p;
    p.provider = kGivenProvider;
    p.gpu = gpu.id;
    p.usd_per_gpu_hour = o.usd_per_gpu_hour;
    p.day = catalog.today();
    p.date = "plan";
    p.sources = {plan.origin};
    prices.push_back(p);
    return prices;
  }
  if (o.pricing.provider.empty()) {
    if (!o.pricing.mode.empty() || !o.pricing.region.empty() || !o.pricing.term.empty()) {
      rethrow_at_pointer(fmt::format("{}: needs \"provider\"", !o.pricing.mode.empty()   ? "--mode"
                                                                : !o.pricing.region.empty() ? "--region"
                                                                                            : "--term"),
                         plan, d);
    }
    return prices;
  }
  if (!o.pricing.term.empty()) {
    parse_term(o.pricing.term, "--term");
  }
  std::vector<PricingMode> modes;
  if (!o.pricing.mode.empty()) {
    modes.push_back(parse_pricing_mode(o.pricing.mode, "--mode"));
  } else {
    // With a region, the modes priced there (compare's rule): aws's us-west-2 has on-demand but no
    // capacity-block H100, and a plan asking for us-west-2 prices is not missing one.
    modes = modes_for(catalog, o.pricing.provider, gpu.id);
    std::erase_if(modes, [&](PricingMode m) {
      return std::none_of(catalog.prices().begin(), catalog.prices().end(), [&](const Price& p) {
        return p.provider == o.pricing.provider && p.gpu == gpu.id && p.mode == m && in_region(p, o.pricing.region);
      });
    });
    if (modes.empty()) {
      find_price(catalog, o.pricing.provider, gpu.id, PricingMode::on_demand, o.pricing.region);  // throws naming what exists
    }
    // A term asks for reserved prices: the modes without one are not what the plan prices.
    if (!o.pricing.term.empty()) {
      std::erase_if(modes, [](PricingMode m) { return !mode_has_term(m); });
    }
  }
  if (!o.pricing.term.empty() && modes.empty()) {
    find_price(catalog, o.pricing.provider, gpu.id, PricingMode::reserved, o.pricing.region, o.pricing.term);  // throws
    modes.push_back(PricingMode::reserved);
  }
  if (!o.pricing.term.empty() && !mode_has_term(modes.front())) {
    rethrow_at_pointer(fmt::format("--term: {} prices carry no commitment term; give \"mode\": \"reserved\"",
                                   to_string(modes.front())),
                       plan, d);
  }
  for (const PricingMode mode : modes) {
    const Price& p = find_price(catalog, o.pricing.provider, gpu.id, mode, o.pricing.region,
                                mode_has_term(mode) ? o.pricing.term : std::string());
    warn_stale(p);
    prices.push_back(p);
  }
  return prices;
}

DeploymentResult evaluate(const Catalog& catalog, const PlanFile& plan, const PlanDeployment& pd) {
  CLI::App app{"plan deployment"};
  EvaluationOptions o;
  add_deployment_options(app, o.deployment, false);
  add_workload_options(app, o.workload);
  add_cached_input_option(app, o.workload);
  add_pricing_options(app, o.pricing);
  app.add_option("--usd-per-gpu-hour", o.usd_per_gpu_hour)->check(positive_validator());
  std::vector<std::string> args;
  for (const PlanSetting& s : pd.settings) {
    args.push_back(s.is_switch ? s.flag : s.flag + "=" + s.value);
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
  try {
    app.parse(args);
    note_given(app, o.deployment);
    DeploymentQuestion q;
    q.name = pd.name;
    q.origin = plan.origin;
    q.expect_pointer = pd.expect_pointer;
    q.expect = pd.expect;
    return with_flag_names([&] {
      Deployment d = resolve_deployment(catalog, o.deployment);
      q.model = std::move(d.model);
      q.gpu = d.gpu;
      q.perf.fit = d.request;
      apply_workload(o.workload, q.perf);
      q.layout_given = d.layout_given;
      q.gpus = d.gpus;
      q.concurrency = planned_concurrency(o.workload);
      q.target_output_tokens_per_s = planned_target(o.workload);
      q.size_for_target = size_for_target(o.workload, o.deployment);
      q.gpus = layout_search_gpus(q.size_for_target, q.layout_given, q.perf.fit.gpus_per_node, q.gpus);
      apply_pricing(o.pricing, q.cost);
      q.prices = plan_prices(catalog, o, *q.gpu, plan, pd);
      DeploymentResult result = evaluate_deployment(catalog, q);
      for (const PlanSetting& s : pd.settings) {
        // The field as the plan file names it: the pointer's last token ("/deployments/0/tp").
        const std::size_t slash = s.pointer.rfind('/');
        result.inputs.emplace_back(slash == std::string::npos ? s.flag : s.pointer.substr(slash + 1),
                                   s.is_switch ? std::string("true") : s.value);
      }
      return result;
    });
  } catch (const CLI::ParseError& e) {
    rethrow_at_pointer(e.what(), plan, pd);
  } catch (const InputError& e) {
    if (std::string_view(e.what()).starts_with(plan.origin + ": /")) {
      throw;  // already names its place in the plan
    }
    rethrow_at_pointer(e.what(), plan, pd);
  }
}

}  // namespace

CheckResult check_plan_file(const Catalog& catalog, const std::filesystem::path& path) {
  return check_plan(catalog, load_plan_file(path));
}

CheckResult check_plan(const Catalog& catalog, const PlanFile& plan) {
  CheckResult result;
  result.plan_origin = plan.origin;
  result.plan_hash = plan.content_hash;
  result.description = plan.description;
  result.provenance = output_provenance();
  for (const PlanDeployment& d : plan.deployments) {
    result.deployments.push_back(evaluate(catalog, plan, d));
  }
  return result;
}

}  // namespace gpuplan::cli
