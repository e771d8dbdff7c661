#include <gpuplan/compare.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/cost.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/fit_suggestions.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/planned_load.hpp>

namespace gpuplan {
namespace {

// The node of one GPU type: the one given, else its systems' own (one GB10 per DGX Spark).
std::uint64_t option_gpus_per_node(const CompareRequest& r, const GpuSpec& gpu) {
  return r.gpus_per_node_given ? r.perf.fit.gpus_per_node : gpu.default_gpus_per_node();
}

CompareOption evaluate_option(const Catalog& catalog, const ModelSpec& model, const CompareRequest& r,
                              const FitResult& layout_fit) {
  const GpuSpec& gpu = catalog.gpu(layout_fit.gpu_id);
  PerfRequest req = r.perf;
  req.fit.context_tokens = req.input_tokens + req.output_tokens;
  req.fit.prompt_tokens = req.input_tokens;
  req.fit.concurrency = 1;
  req.fit.layout = layout_fit.request.layout;
  req.fit.gpus_per_node = layout_fit.request.gpus_per_node;
  CompareOption o;
  o.gpu = gpu.id;
  o.gpus = r.gpus_per_option;
  std::uint64_t sized = 0;
  if (r.size_for_target && r.target_output_tokens_per_s) {
    sized = size_replicas_for_target(model, gpu, req, *r.target_output_tokens_per_s);
    o.gpus = req.fit.layout.gpus();
  }
  const PerfModel pm(model, gpu, req);
  o.layout = req.fit.layout;
  o.load = planned_load(pm, r.concurrency, r.target_output_tokens_per_s);
  o.load.sized_replicas = sized;
  o.batch = o.load.batch;
  const PerfPoint est = pm.evaluate(o.batch, req.efficiency);
  const EstimateBand band =
      for_layout(estimate_band(catalog, model, gpu, req.fit.weights_dtype, engine_calibrated(req.fit.engine.engine)),
                 req.fit.layout, req.fit.gpus_per_node);
  o.band_case = band.band_case;
  o.engine_calibrated = band.engine_calibrated;
  o.layout_calibrated = band.layout_calibrated;
  o.estimate_tokens_per_s = est.output_tokens_per_s;
  o.estimate_low = est.output_tokens_per_s * (1.0 + std::min(0.0, band.band.low));
  o.roofline_tokens_per_s = pm.evaluate(o.batch, Efficiency::roofline()).output_tokens_per_s;
  // The band never reaches past the bound.
  o.estimate_high = std::min(est.output_tokens_per_s * (1.0 + std::max(0.0, band.band.high)), o.roofline_tokens_per_s);
  if (const auto it = r.measured_tokens_per_s.find(gpu.id); it != r.measured_tokens_per_s.end()) {
    o.measured_tokens_per_s = it->second;
  }
  o.joules_per_token_at_tdp = joules_per_token_at_tdp(gpu.tdp_w, o.gpus, r.cost.pue, o.tokens_per_s());
  return o;
}

}  // namespace

FitResult option_fit(const Catalog& catalog, const ModelSpec& model, const CompareRequest& r, const std::string& gpu_id,
                     std::optional<std::uint64_t>* instance_gpus) {
  const GpuSpec& gpu = catalog.gpu(gpu_id);
  bool held_to_instances = false;
  PerfRequest req = r.perf;
  req.fit.context_tokens = req.input_tokens + req.output_tokens;
  req.fit.prompt_tokens = req.input_tokens;
  req.fit.concurrency = 1;
  req.fit.gpus_per_node = option_gpus_per_node(r, gpu);
  validate_perf_request(model, req);
  // One provider: the layout keeps replicas every one of its offers' instances holds, as cost
  // and check do (across providers no one instance size applies).
  if (!r.provider.empty()) {
    std::vector<Price> prices;
    for (const Price& p : catalog.prices()) {
      if (p.provider == r.provider && p.gpu == gpu.id && (!r.mode || mode_matches(p.mode, *r.mode)) && in_region(p, r.region) &&
          (r.term.empty() || p.term == r.term)) {
        prices.push_back(p);
      }
    }
    LayoutOffers offers = layout_offers(catalog, prices);
    held_to_instances = !prices.empty();
    req.largest_instance_gpus = offers.largest_instance_gpus;
    req.instance_offers = std::move(offers.instance_offers);
  }
  req.fit.layout = serving_layout(model, gpu, req, r.layout_given, r.gpus_per_option).fit.request.layout;
  if (instance_gpus != nullptr) {
    *instance_gpus = held_to_instances ? std::optional<std::uint64_t>(req.largest_instance_gpus) : std::nullopt;
  }
  return fit(model, gpu, req.fit);
}

std::string option_fit_problem(const ModelSpec& model, const FitResult& f) {
  if (const std::optional<std::string> start = engine_start_problem(f)) {
    return fmt::format("compare: {} cannot serve this workload on {} x {} (TP {}, PP {}): {}", model.id, f.request.layout.gpus(),
                       f.gpu_id, f.request.layout.tp, f.request.layout.pp, *start);
  }
  return fmt::format("compare: {} does not fit {} x {} (TP {}, PP {}): weights {:.2f} GB + activations {:.2f} GB{} + "
                     "reserve {:.2f} GB{} per GPU, one sequence's KV cache included, against a {:.2f} GB engine cap",
                     model.id, f.request.layout.gpus(), f.gpu_id, f.request.layout.tp, f.request.layout.pp,
                     f.per_gpu.weights_bytes / units::kGB, f.per_gpu.activation_bytes / units::kGB, prefill_chunk_blame(f),
                     f.per_gpu.reserve_bytes / units::kGB, reserve_blame(f), f.per_gpu.engine_cap_bytes / units::kGB);
}

std::optional<std::pair<std::size_t, std::size_t>> CompareResult::cheapest() const {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  for (std::size_t m = 0; m < modes.size(); ++m) {
    for (std::size_t i = 0; i < modes[m].options.size(); ++i) {
      const PricedOption& po = modes[m].options[i];
      if (!po.rentable()) {
        continue;
      }
      // A current offer over a stale one (as plan takes prices), then the cheapest.
      const PricedOption* b = best ? &modes[best->first].options[best->second] : nullptr;
      if (b == nullptr || (b->price->stale() != po.price->stale()
                               ? !po.price->stale()
                               : po.cost.usd_per_million_tokens < b->cost.usd_per_million_tokens)) {
        best = std::pair{m, i};
      }
    }
  }
  return best;
}

std::optional<double> CompareResult::cheapest_usd_per_million_tokens() const {
  const auto at = cheapest();
  if (!at) {
    return std::nullopt;
  }
  return modes[at->first].options[at->second].cost.usd_per_million_tokens;
}

CompareResult compare(const Catalog& catalog, const ModelSpec& model, const CompareRequest& r) {
  if (r.gpus.size() < 2) {
    throw InputError("compare.gpus: give at least two GPUs");
  }
  for (std::size_t i = 0; i < r.gpus.size(); ++i) {
    if (std::find(r.gpus.begin() + static_cast<std::ptrdiff_t>(i) + 1, r.gpus.end(), r.gpus[i]) != r.gpus.end()) {
      throw InputError(fmt::format("compare.gpus: '{}' is given twice", r.gpus[i]));
    }
  }
  for (const auto& [gpu, tps] : r.measured_tokens_per_s) {
    if (std::find(r.gpus.begin(), r.gpus.end(), gpu) == r.gpus.end()) {
      throw InputError(fmt::format("compare.measured: '{}' is not one of the GPUs compared", gpu));
    }
    if (!(tps >= 1e-3) || tps > 1e12) {
      throw InputError(fmt::format("compare.measured: expected a positive tokens/s for {}, got {}", gpu, tps));
    }
    // Sized for a target, an option's GPU count is not known here.
    if (const GpuSpec* spec = catalog.find_gpu(gpu); spec != nullptr && !r.size_for_target) {
      check_measured_rate(model, *spec, r.gpus_per_option, tps, "compare.measured");
    }
  }
  if (!r.term.empty()) {
    parse_term(r.term, "compare.term");
    if (r.mode && !mode_has_term(*r.mode)) {
      throw InputError(fmt::format("compare.term: {} prices carry no commitment term; only reserved prices do",
                                   to_string(*r.mode)));
    }
  }
  CompareResult res;
  res.model_id = model.id;
  res.request = r;
  std::optional<std::string> first_problem;
  for (const std::string& gpu : r.gpus) {
    FitResult f;
    std::optional<std::uint64_t> instance_gpus;
    try {
      f = option_fit(catalog, model, r, gpu, &instance_gpus);
    } catch (const InputError& e) {
      // Memory other processes hold (--memory-in-use) or a reserve (--reserve) may leave one GPU
      // type nothing: it is left out with the reason, the others compared.
      const std::string_view what = e.what();
      const bool in_use = what.starts_with("engine.memory_in_use:");
      if (!in_use && !what.starts_with("fit.reserve_bytes:")) {
        throw;
      }
      res.excluded.push_back(ExcludedOption{.gpu = gpu, .problem = fmt::format("compare: {}:{}",
                                                                               in_use ? "--memory-in-use" : "--reserve",
                                                                               what.substr(what.find(':') + 1))});
      if (!first_problem) {
        first_problem = res.excluded.back().problem;
      }
      continue;
    }
    if (f.fits) {
      try {
        res.options.push_back(evaluate_option(catalog, model, r, f));
        res.options.back().provider_instance_gpus = instance_gpus;
      } catch (const TargetBeyondDeployment& e) {
        // The target needs more of this GPU than any deployment has: the others may carry it.
        const std::string_view what = e.what();  // "perf.target_output_tokens_per_s: ..."
        res.excluded.push_back(
            ExcludedOption{.gpu = f.gpu_id, .problem = fmt::format("compare: {}", what.substr(what.find(": ") + 2))});
        if (!first_problem) {
          first_problem = what;
        }
      }
      continue;
    }
    // One GPU type too small for the model leaves the others to compare ("H100 vs H200 vs B200
    // for DeepSeek-V3" had no answer at all); the output says how many of it would hold it.
    ExcludedOption e{.gpu = f.gpu_id, .problem = option_fit_problem(model, f)};
    if (!first_problem) {
      first_problem = e.problem;
    }
    CompareRequest more = r;
    // fit's rule for the count: the smallest that holds it, rounded to a divisor of the node or
    // whole nodes (405B fp8 on L4: 24 as TP 8 x PP 3, where doublings said 32; tasks s57 F8).
    if (!r.size_for_target) {
      const LayoutSearch failed{.chosen = f};
      const std::vector<FitSuggestion> suggestions =
          suggest_fits(model, catalog.gpu(f.gpu_id), f.request,
                       LayoutSearchOptions{.gpus = r.gpus_per_option, .gpus_per_node = f.request.gpus_per_node},
                       r.layout_given, failed);
      if (!suggestions.empty() && suggestions.front().change == FitChange::gpus && suggestions.front().fits) {
        more.gpus_per_option = suggestions.front().count;
        try {
          if (option_fit(catalog, model, more, gpu).fits) {
            e.gpus_that_fit = more.gpus_per_option;
          }
        } catch (const InputError&) {
          // a given TP x PP that does not tile that count: the doublings below
        }
        more.gpus_per_option = r.gpus_per_option;
      }
    }
    // Where fit's count does not serve here (compare's layout rule on it, an instance size held
    // to), doublings of the count asked.
    for (int doubling = 0; doubling < 4 && !r.size_for_target && e.gpus_that_fit == 0; ++doubling) {
      more.gpus_per_option *= 2;
      try {
        if (option_fit(catalog, model, more, gpu).fits) {
          e.gpus_that_fit = more.gpus_per_option;
        }
      } catch (const InputError&) {
        break;  // a given TP x PP that does not tile the larger count
      }
    }
    if (const auto it = r.measured_tokens_per_s.find(f.gpu_id); it != r.measured_tokens_per_s.end()) {
      e.problem += fmt::format(" (its measured {:.0f} tok/s is not compared)", it->second);
    }
    res.excluded.push_back(std::move(e));
  }
  if (res.options.empty()) {
    // Every GPU is left out: each one's reason and how many of it would hold the model (the
    // table's "left out" lines say it; the error had not, session 60 N6), not the first alone.
    std::string all = *first_problem + (res.excluded.empty() ? std::string() : gpus_that_fit_text(res.excluded[0]));
    for (std::size_t i = 1; i < res.excluded.size(); ++i) {
      const std::string_view problem = res.excluded[i].problem;  // "compare: ..."
      all += fmt::format("; {}{}", problem.substr(problem.find(": ") + 2), gpus_that_fit_text(res.excluded[i]));
    }
    throw InputError(std::move(all));
  }
  // Prices given by hand join the catalog's as provider "given".
  std::vector<Price> given;
  for (const auto& [gpu, usd] : r.given_usd_per_gpu_hour) {
    require_gpu_in("compare.price", gpu, r.gpus, "compared");
    if (!(usd > 0) || usd > 10'000) {
      throw InputError(fmt::format("compare.price: expected a price in (0, 10000] USD per GPU-hour for {}, got {}", gpu, usd));
    }
    Price p;
    p.provider = kGivenProvider;
    p.gpu = gpu;
    // A quote typed beside --mode spot is a spot quote: it is labelled and ranked with the mode
    // compared (and the --term of a reserved one), as plan does; on-demand when no mode is given.
    p.mode = r.mode.value_or(PricingMode::on_demand);
    if (p.mode == PricingMode::reserved) {
      p.term = r.term;
    }
    p.usd_per_gpu_hour = usd;
    p.day = r.today;
    p.date = "today";
    p.sources = {"--price"};
    given.push_back(std::move(p));
  }
  std::vector<Price> all = given;
  std::size_t in_the_region = 0;
  for (const Price& p : catalog.prices()) {
    if (in_region(p, r.region)) {
      ++in_the_region;
      if (r.term.empty() || p.term == r.term) {
        all.push_back(p);
      }
    }
  }
  if (!r.region.empty() && in_the_region == 0) {
    throw InputError(fmt::format("compare.region: no catalog price is in region '{}'; regions: {}", r.region,
                                 fmt::join(regions(catalog), ", ")));
  }
  // Which offers (provider, mode and commitment term) to price: a 1-year and a 3-year
  // reservation are compared each with its own kind, never the cheaper of one GPU with the other's.
  struct Offer {
    std::string provider;
    PricingMode mode;
    std::string term;
    bool operator==(const Offer&) const = default;
  };
  std::vector<Offer> pairs;
  const std::vector<std::string> all_providers = providers(catalog);
  if (!r.provider.empty() && std::find(all_providers.begin(), all_providers.end(), r.provider) == all_providers.end()) {
    find_price(catalog, r.provider, r.gpus.front(), PricingMode::on_demand);  // throws with the known providers
  }
  for (const Price& p : all) {
    const bool provider_ok = r.provider.empty() || p.provider == r.provider || p.given();
    const bool mode_ok = !r.mode || mode_matches(p.mode, *r.mode) || p.given();
    // Only the options compared: a GPU left out would add modes where nothing has a price.
    const bool gpu_ok = std::any_of(res.options.begin(), res.options.end(),
                                    [&p](const CompareOption& o) { return o.gpu == p.gpu; });
    const Offer key{p.provider, p.mode, p.term};
    if (provider_ok && mode_ok && gpu_ok && std::find(pairs.begin(), pairs.end(), key) == pairs.end()) {
      pairs.push_back(key);
    }
  }
  if (pairs.empty()) {
    if (r.mode && !r.provider.empty()) {
      find_price(catalog, r.provider, r.gpus.front(), *r.mode, {}, r.term);  // throws naming the modes it has
    }
    std::vector<std::string> priced;
    for (const Price& p : catalog.prices()) {
      if ((r.provider.empty() || p.provider == r.provider) &&
          std::find(priced.begin(), priced.end(), p.gpu) == priced.end()) {
        priced.push_back(p.gpu);
      }
    }
    throw InputError(fmt::format("compare: no prices for {}{}{}; prices exist for: {}", fmt::join(r.gpus, ", "),
                                 r.provider.empty() ? "" : " at " + r.provider,
                                 r.mode ? fmt::format(" in mode {}", offer_label(*r.mode, r.term)) : std::string(),
                                 fmt::join(priced, ", ")));
  }
  for (const Offer& offer : pairs) {
    ModeComparison m;
    m.provider = offer.provider;
    m.mode = offer.mode;
    m.term = offer.term;
    for (const CompareOption& o : res.options) {
      PricedOption po;
      // The offer's price that costs least for the option's GPUs in whole instances.
      const GpuSpec& gpu = catalog.gpu(o.gpu);
      const GpuNeed need{.gpus = o.gpus, .group = instance_group(o.layout, gpu, option_gpus_per_node(r, gpu))};
      for (const Price& p : all) {
        if (p.provider == offer.provider && p.gpu == o.gpu && p.mode == offer.mode && p.term == offer.term &&
            (!po.price || preferred_for(p, *po.price, need))) {
          po.price = p;
        }
      }
      const auto priced = [&](const CompareOption& option, std::uint64_t group) {
        CostRequest c = r.cost;
        c.gpus = option.gpus;
        use_price(c, *po.price);
        c.instance_group = group;
        c.output_tokens_per_s = option.tokens_per_s();
        // Prompts read at the workload's input:output ratio: the input+output price cost prints
        // (compare's JSON had it null).
        c.input_tokens_per_s = input_tokens_per_s_for(c.output_tokens_per_s, r.perf.input_tokens, r.perf.output_tokens);
        c.gpu_power_w = gpu.tdp_w;
        return cost(c);
      };
      if (po.price) {
        po.cost = priced(o, need.group);
        if (po.cost.rental.group_split && r.provider.empty() && !r.layout_given && po.price->provider != kGivenProvider) {
          // The layout this offer's instances hold, as --provider would choose it (same price).
          CompareRequest held = r;
          held.provider = offer.provider;
          held.mode = offer.mode;
          held.term = offer.term;
          if (const FitResult f = option_fit(catalog, model, held, o.gpu); f.fits) {
            const CompareOption own = evaluate_option(catalog, model, held, f);
            const CostResult own_cost = priced(own, instance_group(own.layout, gpu, option_gpus_per_node(r, gpu)));
            if (!own_cost.rental.group_split) {
              po.cost = own_cost;
              po.own_layout = own.layout;
              po.own_tokens_per_s = own.tokens_per_s();
            }
          }
        }
        if (po.cost.rental.group_split) {
          std::vector<Price> offer_all;
          for (const Price& p : all) {
            if (p.provider == offer.provider && p.gpu == o.gpu && p.mode == offer.mode && p.term == offer.term) {
              offer_all.push_back(p);
            }
          }
          po.not_rentable = not_rentable_text(po.cost.rental, offer_sizes(*po.price, offer_all), &gpu);
        }
      }
      m.options.push_back(po);
    }
    // Premium, ratio and break-even against the first option that has a price in this mode.
    // An option no instance of the offer holds is not rentable there: never the baseline or winner.
    const auto base = std::find_if(m.options.begin(), m.options.end(), [](const PricedOption& po) { return po.rentable(); });
    if (base != m.options.end()) {
      const std::size_t b = static_cast<std::size_t>(base - m.options.begin());
      for (std::size_t i = 0; i < m.options.size(); ++i) {
        PricedOption& po = m.options[i];
        if (!po.rentable()) {
          continue;
        }
        po.premium = po.price->usd_per_gpu_hour / base->price->usd_per_gpu_hour - 1.0;
        const auto tokens = [&](std::size_t k) {
          return m.options[k].own_layout ? m.options[k].own_tokens_per_s : res.options[k].tokens_per_s();
        };
        po.throughput_ratio = tokens(i) / tokens(b);
        // The price at which this option's whole bill (extras and failed runs included) buys as
        // many tokens per USD as the baseline's: per GPU paid for (whole instances).
        const double target_usd_per_hour =
            po.cost.useful_output_tokens_per_hour / base->cost.tokens_per_usd;
        po.break_even_usd_per_gpu_hour = std::max(
            0.0, (target_usd_per_hour / (1.0 + r.cost.failed_run_overhead) - po.cost.extras_usd_per_hour /
                                                                                  (1.0 + r.cost.failed_run_overhead)) /
                     static_cast<double>(po.cost.rental.rented_gpus));
      }
      std::size_t w = b;
      for (std::size_t i = 0; i < m.options.size(); ++i) {
        if (m.options[i].rentable() && m.options[i].cost.tokens_per_usd > m.options[w].cost.tokens_per_usd) {
          w = i;
        }
      }
      // A winner needs a rival: an option alone with a price neither wins nor loses.
      const auto priced = std::count_if(m.options.begin(), m.options.end(), [](const PricedOption& po) { return po.rentable(); });
      if (priced >= 2) {
        m.winner = w;
      }
      // Robust: the winner's pessimistic tokens per USD beats every other option's optimistic one.
      m.robust = true;
      const double winner_low = m.options[w].cost.tokens_per_usd * res.options[w].low() / res.options[w].tokens_per_s();
      for (std::size_t i = 0; i < m.options.size(); ++i) {
        if (i == w || !m.options[i].rentable()) {
          continue;
        }
        const double other_high =
            m.options[i].cost.tokens_per_usd * res.options[i].high() / res.options[i].tokens_per_s();
        m.robust = m.robust && winner_low > other_high;
      }
    }
    res.modes.push_back(std::move(m));
  }
  // What --region dropped that may be there (no region stated), of the offers compared otherwise.
  if (!r.region.empty()) {
    std::vector<const Price*> others;
    for (const Price& p : catalog.prices()) {
      if ((r.provider.empty() || p.provider == r.provider) && (!r.mode || mode_matches(p.mode, *r.mode)) &&
          (r.term.empty() || p.term == r.term) &&
          std::any_of(res.options.begin(), res.options.end(), [&p](const CompareOption& o) { return o.gpu == p.gpu; })) {
        others.push_back(&p);
      }
    }
    if (std::string note = region_left_out_note(region_left_out(others, r.region), r.region); !note.empty()) {
      res.notes.push_back(std::move(note));
    }
  }
  // --utilization is charged to every mode alike, as if each were paid every hour. A reservation
  // (or capacity block) is; an on-demand or spot fleet that scales with the load pays only while
  // it serves. Each committed offer's winner is worth it over the provider's on-demand rate only
  // above the ratio of the two at full use (helper s57 tasks F3: reserved 1y ranked 37 % cheaper
  // at 40 % load, where scaled on-demand is the cheaper).
  if (r.cost.utilization < 1.0) {
    for (const ModeComparison& m : res.modes) {
      if (m.mode != PricingMode::reserved && m.mode != PricingMode::capacity_block) {
        continue;
      }
      const ModeComparison* on_demand = nullptr;
      for (const ModeComparison& e : res.modes) {
        if (e.mode == PricingMode::on_demand && e.provider == m.provider) {
          on_demand = &e;
        }
      }
      const std::optional<std::size_t> best =
          m.winner ? m.winner
                   : [&m]() -> std::optional<std::size_t> {
                       for (std::size_t i = 0; i < m.options.size(); ++i) {
                         if (m.options[i].rentable()) {
                           return i;
                         }
                       }
                       return std::nullopt;
                     }();
      if (on_demand == nullptr || !best || !on_demand->options[*best].rentable()) {
        continue;
      }
      const double committed = m.options[*best].cost.usd_per_million_tokens;
      const double elastic_usd = on_demand->options[*best].cost.usd_per_million_tokens;
      if (!(committed > 0.0) || !(elastic_usd > 0.0)) {
        continue;
      }
      const double break_even = committed / elastic_usd;  // both scale as 1 / utilization
      res.notes.push_back(fmt::format(
          "--utilization {:g} is charged to every mode alike; an on-demand fleet that scales with the load pays only "
          "while it serves ({} on-demand {}: {:.4f} USD/Mtok at any load), while {} {}{} is paid every hour: on {} it "
          "{}",
          r.cost.utilization, m.provider, res.options[*best].gpu, elastic_usd * r.cost.utilization, m.provider,
          to_string(m.mode), m.term.empty() ? std::string() : " " + m.term, res.options[*best].gpu,
          break_even < 1.0 ? fmt::format("is the cheaper only above {:.0f} % utilization", break_even * 100.0)
                           : std::string("is never the cheaper")));
    }
  }
  if (!r.layout_given) {
    // The rule perf, cost and plan files use too (serving_layout).
    res.notes.push_back(fmt::format(
        "layouts chosen for throughput: the most estimated output tok/s at full load among the layouts of {}{}; "
        "--tp/--pp pin one",
        gpus_text(r.gpus_per_option),
        r.provider.empty() ? ""
                           : fmt::format(" (with {}'s whole instances: the most output tokens per USD of the "
                                         "instances each rents)",
                                         r.provider)));
  }
  for (const CompareOption& o : res.options) {
    if (const std::string note = target_load_note(o.load, o.layout); !note.empty()) {
      res.notes.push_back(fmt::format("{}: {}", o.gpu, note));
    }
    if (o.layout.dp_attention()) {
      res.notes.push_back(fmt::format("{} (attention DP): its batch is per attention rank, {} ranks; {}", o.gpu,
                                      o.layout.dp, attention_dp_note()));
    }
  }
  // Volta and Turing have no bf16 (tasks s56 F4: the heading said "bf16" for a T4): engines
  // serve it as fp16, the same bytes, as fit says.
  if (r.perf.fit.weights_dtype == DType::bf16 || r.perf.fit.kv_dtype == DType::bf16) {
    for (const CompareOption& o : res.options) {
      if (!catalog.gpu(o.gpu).dense_flop_per_s.contains("bf16")) {
        res.notes.push_back(fmt::format("{} has no bf16: engines serve the bf16 weights and KV cache as fp16 (same "
                                        "bytes; vLLM --dtype float16)",
                                        o.gpu));
      }
    }
  }
  if (r.measured_tokens_per_s.size() < r.gpus.size()) {
    res.notes.push_back("estimated throughput is the calibrated model's; a ranking marked robust holds across the band");
  }
  if (r.perf.sparse) {
    res.notes.push_back("estimates use 2:4-sparse peak FLOPs; dense inference cannot reach them");
  }
  // Some GPUs measured, others estimated: their ratios and winners set a measurement against an
  // estimate, whose error the measured GPUs' own ratio to their estimates shows (a 30,000 tok/s H100
  // at 0.76x its estimate against an H200 estimate read as 1.48x, past the 1.43x of bandwidth).
  {
    std::vector<std::string> measured;
    std::vector<std::string> estimated;
    double log_ratio_sum = 0;
    for (const CompareOption& o : res.options) {
      if (o.measured_tokens_per_s && o.estimate_tokens_per_s > 0) {
        const double ratio = *o.measured_tokens_per_s / o.estimate_tokens_per_s;
        log_ratio_sum += std::log(ratio);
        measured.push_back(fmt::format("{} measured {:.0f} tok/s, {:.2f}x its estimate", o.gpu,
                                       *o.measured_tokens_per_s, ratio));
      } else if (!o.measured_tokens_per_s) {
        estimated.push_back(o.gpu);
      }
    }
    if (!measured.empty() && !estimated.empty()) {
      const double ratio = std::exp(log_ratio_sum / static_cast<double>(measured.size()));
      std::vector<std::string> scaled;
      for (const CompareOption& o : res.options) {
        if (!o.measured_tokens_per_s) {
          scaled.push_back(fmt::format("{} {:.0f} tok/s", o.gpu, o.estimate_tokens_per_s * ratio));
        }
      }
      res.notes.push_back(fmt::format(
          "mixed sources: {}; {} estimated: the throughput ratios, break-even prices and winners set a measurement "
          "against an estimate; at the same {:.2f}x of {} estimate{}: {}; give --measured for every GPU to compare "
          "like with like",
          fmt::join(measured, "; "), fmt::join(estimated, ", "), ratio, estimated.size() == 1 ? "its" : "their",
          measured.size() == 1 ? "" : " (the measured ratios' geometric mean)", fmt::join(scaled, ", ")));
    }
  }
  for (const CompareOption& o : res.options) {
    if (o.measured_tokens_per_s && *o.measured_tokens_per_s > o.roofline_tokens_per_s) {
      res.notes.push_back(fmt::format(
          "{}: the measurement is above the roofline of this workload at batch {} ({:.0f} tok/s): the measured run "
          "used shorter prompts, a larger batch or another layout",
          o.gpu, o.batch, o.roofline_tokens_per_s));
    }
  }
  return res;
}

std::string gpus_that_fit_text(const ExcludedOption& e) {
  return e.gpus_that_fit > 0 ? fmt::format("; {} x {} hold it (--gpus {})", e.gpus_that_fit, e.gpu, e.gpus_that_fit)
                             : std::string();
}

}  // namespace gpuplan
