// render_cost() and render_compare(): prices always travel with provider, mode and date.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <gpuplan/layout.hpp>
#include <gpuplan/planned_load.hpp>
#include <gpuplan/render.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"
#include "detail/load_json.hpp"
#include "detail/price_age_cells.hpp"

namespace gpuplan {
namespace {

using detail::checked;
using detail::OrderedJson;

std::string usd(double v) { return fmt::format("{:.2f}", checked(v, "a price")); }
std::string millions(double v) { return fmt::format("{:.2f}", checked(v, "a count") / 1e6); }
std::string pct(double v) { return fmt::format("{:+.0f} %", checked(v, "a share") * 100.0); }

OrderedJson cost_json(const CostResult& c) {
  return {{"usd_per_hour", checked(c.usd_per_hour(), "usd/h")},
          {"rental", detail::rental_json(c.rental)},
          {"rental_usd_per_hour", c.rental_usd_per_hour},
          {"capex_usd_per_hour", c.capex_usd_per_hour},
          {"operations_usd_per_hour", c.operations_usd_per_hour},
          {"power_usd_per_hour", c.power_usd_per_hour_at_tdp},
          {"extras_usd_per_hour", c.extras_usd_per_hour},
          {"failed_runs_usd_per_hour", c.failed_runs_usd_per_hour},
          {"tokens_per_usd", checked(c.tokens_per_usd, "tokens/usd")},
          {"usd_per_million_tokens", checked(c.usd_per_million_tokens, "usd/mtok")},
          {"usd_per_million_total_tokens",
           c.usd_per_million_total_tokens > 0 ? OrderedJson(c.usd_per_million_total_tokens) : OrderedJson(nullptr)},
          {"power_w", c.power_w_at_tdp},
          {"joules_per_token", checked(c.joules_per_token_at_tdp, "J/token")},
          {"kwh_per_million_tokens", checked(c.kwh_per_million_tokens_at_tdp, "kWh/Mtok")}};
}

OrderedJson price_json(const Price& p) {
  return {{"provider", p.provider},
          {"gpu", p.gpu},
          {"mode", to_string(p.mode)},
          {"term", p.term.empty() ? OrderedJson(nullptr) : OrderedJson(p.term)},
          {"usd_per_gpu_hour", p.usd_per_gpu_hour},
          {"date", p.date},
          {"price_age_days", detail::price_age_days_json(p)},
          {"stale", p.stale()},
          {"region", detail::region_json(p)},
          {"gpus_per_instance", detail::gpus_per_instance_json(p)},
          {"sources", p.sources}};
}

OrderedJson other_terms_json(const std::vector<Price>& prices) {
  OrderedJson out = OrderedJson::array();
  for (const Price& p : prices) {
    out.push_back({{"term", p.term}, {"usd_per_gpu_hour", p.usd_per_gpu_hour}, {"instance", p.instance}});
  }
  return out;
}

}  // namespace

std::string throughput_source_text(const CostThroughput& t) {
  if (t.measured) {
    return fmt::format("measured, --tokens-per-second; input+output priced for requests of {} input and {} output "
                       "tokens (--input, --output)",
                       t.input_tokens, t.output_tokens);
  }
  const PlannedLoad& load = t.load;
  const std::string load_text =
      load.full_load()                 ? " (full load)"
      : load.target_output_tokens_per_s ? fmt::format(" ({})", target_load_note(load, t.layout))
      : load.capped ? fmt::format(" (--concurrency {} needs more than memory and the engine allow)", load.concurrency.value_or(0))
                    : fmt::format(" (--concurrency {})", load.concurrency.value_or(0));
  const std::string rule =
      t.layout_given ? ""
      : t.instance_limit_gpus > 0
          ? fmt::format(" (layout chosen for output tokens per USD of the instances it rents, among replicas an "
                        "instance of at most {} holds)",
                        gpus_text(t.instance_limit_gpus))
          : " (layout chosen for throughput)";
  return fmt::format("estimate for requests of {} input{} and {} output tokens at batch {} {}{}, {}{}{}", t.input_tokens,
                     t.cached_input_tokens > 0 ? fmt::format(" ({} of them cached)", t.cached_input_tokens) : std::string(),
                     t.output_tokens, t.batch, t.layout.dp_attention() ? "per attention rank" : "per replica", load_text,
                     layout_label(t.layout), rule, t.sparse ? ", 2:4-sparse peak FLOPs" : "");
}

std::string render_cost(const CostReport& r, const RenderOptions& options) {
  const CostResult& c = r.cost;
  const CostRequest& q = c.request;
  if (options.format == Format::json) {
    OrderedJson j = detail::envelope("cost");
    j["inputs"] = {{"model", r.model_id},
                   {"gpu", r.gpu_id},
                   {"gpus", q.gpus},
                   {"price", r.price ? price_json(*r.price) : OrderedJson(nullptr)},
                   {"other_terms", other_terms_json(r.other_terms)},
                   {"usd_per_gpu_hour", q.usd_per_gpu_hour ? OrderedJson(*q.usd_per_gpu_hour) : OrderedJson(nullptr)},
                   {"owned", q.owned ? OrderedJson{{"capex_usd_per_gpu", q.owned->capex_usd_per_gpu},
                                            {"amortization_years", q.owned->amortization_years},
                                            {"operations_share_per_year", q.owned->operations_share_per_year}}
                                     : OrderedJson(nullptr)},
                   {"output_tokens_per_s", q.output_tokens_per_s},
                   {"input_tokens_per_s", q.input_tokens_per_s},
                   {"throughput_source", throughput_source_text(r.throughput)},
                   {"utilization", q.utilization},
                   {"storage_usd_per_month", q.storage_usd_per_month},
                   {"egress_usd_per_month", q.egress_usd_per_month},
                   {"failed_run_overhead", q.failed_run_overhead},
                   {"gpu_power_w", q.gpu_power_w},
                   {"pue", q.pue},
                   {"usd_per_kwh", q.usd_per_kwh}};
    if (!r.given_price_mode.empty()) {
      j["inputs"]["given_price_mode"] = r.given_price_mode;
    }
    if (r.load) {
      j["load"] = detail::load_json(*r.load);
    }
    j["cost"] = cost_json(c);
    j["budget_usd_per_million_tokens"] =
        r.budget_usd_per_million_tokens ? OrderedJson(*r.budget_usd_per_million_tokens) : OrderedJson(nullptr);
    j["within_budget"] = r.within_budget();
    return detail::dump_json(j);
  }
  detail::Document doc;
  doc.heading.push_back(fmt::format("gpuplan cost: {} on {} x {}", r.model_id, q.gpus, r.gpu_id));
  doc.heading.push_back(r.price ? "price: " + price_label(*r.price)
                        : q.owned ? fmt::format("owned: ${:.0f} per GPU over {:g} years, {:.0f} % a year for operations, "
                                                "${:.3f}/kWh at PUE {:.2f}",
                                                q.owned->capex_usd_per_gpu, q.owned->amortization_years,
                                                q.owned->operations_share_per_year * 100.0, q.usd_per_kwh, q.pue)
                                  : fmt::format("price: ${:.2f}/GPU-h (given{})", *q.usd_per_gpu_hour,
                                                r.given_price_mode.empty() ? "" : ", " + r.given_price_mode));
  if (r.price && !r.other_terms.empty()) {
    // A 3-year rate budgeted as a 1-year one is off by half: say which term was taken.
    std::vector<std::string> others;
    for (const Price& p : r.other_terms) {
      others.push_back(fmt::format("{} ${:.2f}/GPU-h (--term {})", p.term, p.usd_per_gpu_hour, p.term));
    }
    doc.heading.push_back(fmt::format("term: {} taken, the cheapest {} {} term; also offered: {}",
                                      r.price->term, r.price->provider, offer_label(r.price->mode, ""),
                                      fmt::join(others, ", ")));
  }
  if (r.price && c.rental.whole_instances()) {
    doc.heading.push_back("instances: " + rental_note(c.rental, *r.price));
  }
  // Below 10 tok/s whole numbers hide the rate ("0 output tok/s" for a measured 0.5).
  const std::string rate = q.output_tokens_per_s >= 10 ? fmt::format("{:.0f}", q.output_tokens_per_s)
                                                       : fmt::format("{:.3g}", q.output_tokens_per_s);
  doc.heading.push_back(fmt::format("throughput: {} output tok/s ({}), utilization {:.0f} %", rate,
                                    throughput_source_text(r.throughput), q.utilization * 100.0));
  detail::Table t{.title = "", .header = {"quantity", "value"}, .rows = {}};
  t.rows.push_back({"USD per hour (deployment)", usd(c.usd_per_hour())});
  if (c.rental_usd_per_hour > 0) {
    t.rows.push_back({"  rental", usd(c.rental_usd_per_hour)});
  }
  if (q.owned) {
    t.rows.push_back({"  capex amortized", usd(c.capex_usd_per_hour)});
    t.rows.push_back({"  operations", usd(c.operations_usd_per_hour)});
    t.rows.push_back({"  power (at TDP, upper bound)", usd(c.power_usd_per_hour_at_tdp)});
  }
  if (c.extras_usd_per_hour > 0) {
    t.rows.push_back({"  storage and egress", usd(c.extras_usd_per_hour)});
  }
  if (c.failed_runs_usd_per_hour > 0) {
    t.rows.push_back({"  failed runs", usd(c.failed_runs_usd_per_hour)});
  }
  t.rows.push_back({"output tokens per USD (millions)", millions(c.tokens_per_usd)});
  t.rows.push_back({"USD per million output tokens", fmt::format("{:.4f}", c.usd_per_million_tokens)});
  if (c.usd_per_million_total_tokens > 0) {
    t.rows.push_back({"USD per million input+output tokens", fmt::format("{:.4f}", c.usd_per_million_total_tokens)});
  }
  t.rows.push_back({"energy per output token at TDP (J, upper bound)", fmt::format("{:.3f}", c.joules_per_token_at_tdp)});
  t.rows.push_back({"energy per million output tokens at TDP (kWh)", fmt::format("{:.2f}", c.kwh_per_million_tokens_at_tdp)});
  doc.tables.push_back(std::move(t));
  if (q.owned) {
    // Set against a rental price (which includes host, network, space and power), a GPU-only
    // capex with no operations reads as a 6x saving that is not there.
    doc.footer.push_back(fmt::format(
        "owned hardware: only what --capex-usd-per-gpu includes is counted: the host server, network, space and "
        "staff are not, unless folded into it; operations are {:.0f} % of capex a year{}",
        q.owned->operations_share_per_year * 100.0,
        q.owned->operations_share_per_year > 0 ? "" : " (--ops-share defaults to 0)"));
  }
  if (r.budget_usd_per_million_tokens) {
    doc.footer.push_back(fmt::format("budget ${:.4f} per million output tokens: {}", *r.budget_usd_per_million_tokens,
                                     r.within_budget() ? "within budget" : "OVER BUDGET"));
  }
  // No sourced model of serving power by load: TDP bounds it. Measured decode draws about half.
  // The PUE is in the energy figures: say which (the default 1.3 had shown in the JSON only).
  doc.footer.push_back(fmt::format("energy is an upper bound: TDP x GPUs x PUE {:.2f} (--pue) while serving; GPUs serving "
                                   "draw less (gpt-oss-120b on 2 x H100 at concurrency 64: 397 of 700 W per GPU under "
                                   "nvidia-smi, 0.19 J per token where this bound gives 0.36); rental prices already "
                                   "include power",
                                   q.pue));
  return detail::render_document(doc, options.format);
}

std::string render_compare(const CompareResult& r, const RenderOptions& options) {
  const auto source = [](const CompareOption& o) { return o.measured_tokens_per_s ? "measured" : "estimate"; };
  if (options.format == Format::json) {
    OrderedJson j = detail::envelope("compare");
    j["inputs"] = {{"model", r.model_id},
                   {"gpus", r.request.gpus},
                   {"gpus_per_option", r.request.gpus_per_option},
                   {"weights_dtype", to_string(r.request.perf.fit.weights_dtype)},
                   {"kv_dtype", to_string(r.request.perf.fit.kv_dtype)},
                   {"input_tokens", r.request.perf.input_tokens},
                   {"output_tokens", r.request.perf.output_tokens},
                   {"provider", r.request.provider.empty() ? OrderedJson(nullptr) : OrderedJson(r.request.provider)},
                   {"utilization", r.request.cost.utilization},
                   {"pue", r.request.cost.pue}};
    if (r.request.perf.cached_input_tokens > 0) {  // as perf's JSON: only when given
      j["inputs"]["cached_input_tokens"] = r.request.perf.cached_input_tokens;
    }
    OrderedJson options_json = OrderedJson::array();
    for (const CompareOption& o : r.options) {
      options_json.push_back({{"gpu", o.gpu},
                              {"layout",
                               {{"gpus", o.layout.gpus()},
                                {"tp", o.layout.tp},
                                {"pp", o.layout.pp},
                                {"ep", o.layout.ep},
                                {"dp", o.layout.dp}}},
                              {"batch", o.batch},
                              {"estimate_tokens_per_s", checked(o.estimate_tokens_per_s, "estimate")},
                              {"estimate_tokens_per_s_low", o.estimate_low},
                              {"estimate_tokens_per_s_high", o.estimate_high},
                              {"band_from", to_string(o.band_case)},
                              {"engine_calibrated", o.engine_calibrated},
                              {"roofline_tokens_per_s", o.roofline_tokens_per_s},
                              {"measured_tokens_per_s",
                               o.measured_tokens_per_s ? OrderedJson(*o.measured_tokens_per_s) : OrderedJson(nullptr)},
                              {"tokens_per_s", o.tokens_per_s()},
                              {"throughput_source", source(o)},
                              {"joules_per_token_at_tdp", checked(o.joules_per_token_at_tdp, "J/token")}});
      if (!o.load.full_load()) {
        options_json.back()["load"] = detail::load_json(o.load);
      }
      if (!r.request.provider.empty()) {
        // null: the provider has no price for this GPU, so its layout was not held to its instances.
        options_json.back()["layout_held_to_instance_gpus"] =
            o.provider_instance_gpus ? OrderedJson(*o.provider_instance_gpus) : OrderedJson(nullptr);
      }
    }
    j["options"] = options_json;
    OrderedJson excluded = OrderedJson::array();
    for (const ExcludedOption& e : r.excluded) {
      excluded.push_back({{"gpu", e.gpu},
                          {"problem", e.problem},
                          {"gpus_that_fit", e.gpus_that_fit > 0 ? OrderedJson(e.gpus_that_fit) : OrderedJson(nullptr)}});
    }
    j["excluded"] = excluded;
    OrderedJson modes = OrderedJson::array();
    for (const ModeComparison& m : r.modes) {
      OrderedJson per = OrderedJson::array();
      for (std::size_t i = 0; i < m.options.size(); ++i) {
        const PricedOption& po = m.options[i];
        if (!po.price) {
          per.push_back({{"gpu", r.options[i].gpu}, {"price", nullptr}});
          continue;
        }
        OrderedJson entry = cost_json(po.cost);
        entry["gpu"] = r.options[i].gpu;
        entry["price"] = price_json(*po.price);
        entry["rentable"] = po.rentable();
        if (!po.rentable()) {
          entry["not_rentable"] = po.not_rentable;
        }
        if (po.own_layout) {  // priced at the layout the offer's instances hold
          entry["layout"] = layout_label(*po.own_layout);
          entry["tokens_per_s"] = po.own_tokens_per_s;
        }
        entry["premium"] = po.premium;
        entry["throughput_ratio"] = po.throughput_ratio;
        entry["break_even_usd_per_gpu_hour"] = checked(po.break_even_usd_per_gpu_hour, "break-even");
        per.push_back(entry);
      }
      modes.push_back({{"provider", m.provider},
                       {"mode", to_string(m.mode)},
                       {"term", m.term.empty() ? OrderedJson(nullptr) : OrderedJson(m.term)},
                       {"options", per},
                       {"winner", m.winner ? OrderedJson(r.options[*m.winner].gpu) : OrderedJson(nullptr)},
                       {"robust", m.robust}});
    }
    j["modes"] = modes;
    if (const auto at = r.cheapest()) {
      const PricedOption& po = r.modes[at->first].options[at->second];
      j["cheapest"] = {
          {"gpu", r.options[at->second].gpu},
          {"provider", r.modes[at->first].provider},
          {"mode", to_string(r.modes[at->first].mode)},
          {"term", r.modes[at->first].term.empty() ? OrderedJson(nullptr) : OrderedJson(r.modes[at->first].term)},
          {"usd_per_million_tokens", po.cost.usd_per_million_tokens}};
    } else {
      j["cheapest"] = nullptr;
    }
    j["notes"] = r.notes;
    return detail::dump_json(j);
  }
  detail::Document doc;
  const auto& q = r.request;
  const std::string size = q.size_for_target && q.target_output_tokens_per_s
                               ? fmt::format("as many GPUs per option as {} output tok/s need",
                                             tokens_per_s_text(*q.target_output_tokens_per_s))
                               : fmt::format("{} per option{}", gpus_text(q.gpus_per_option),
                                             q.gpus_defaulted ? " (one node: --gpus not given)" : "");
  const std::string load = q.target_output_tokens_per_s && !q.size_for_target
                               ? fmt::format(", at {} output tok/s", tokens_per_s_text(*q.target_output_tokens_per_s))
                           : q.concurrency ? fmt::format(", at {} concurrent sequences", *q.concurrency)
                                           : std::string();
  doc.heading.push_back(fmt::format("gpuplan compare: {} on {}, weights {}, KV {}, {}{} input + {} output tokens{}",
                                    r.model_id, size, to_string(q.perf.fit.weights_dtype),
                                    to_string(q.perf.fit.kv_dtype),
                                    q.perf.input_tokens, detail::cached_input_text(q.perf.cached_input_tokens),
                                    q.perf.output_tokens, load));
  detail::Table opts{.title = "Throughput",
                     .header = {"gpu", "layout", "batch", "estimate tok/s", "band", "roofline tok/s", "used tok/s", "source",
                                "J/token at TDP"},
                     .rows = {}};
  // CSV: the band's edges in cells of their own ("3873..7508" is text to a spreadsheet).
  const bool csv = options.format == Format::csv;
  if (csv) {
    opts.header = {"gpu", "layout", "batch", "estimate tok/s", "band low", "band high", "roofline tok/s", "used tok/s",
                   "source", "J/token at TDP"};
  }
  for (const CompareOption& o : r.options) {
    std::vector<std::string> row{o.gpu, layout_label(o.layout), std::to_string(o.batch),
                                 fmt::format("{:.0f}", o.estimate_tokens_per_s)};
    if (csv) {
      row.push_back(fmt::format("{:.0f}", o.estimate_low));
      row.push_back(fmt::format("{:.0f}", o.estimate_high));
    } else {
      row.push_back(fmt::format("{:.0f}..{:.0f}", o.estimate_low, o.estimate_high));
    }
    for (std::string cell : {fmt::format("{:.0f}", o.roofline_tokens_per_s), fmt::format("{:.0f}", o.tokens_per_s()),
                             std::string(source(o)), fmt::format("{:.3f}", o.joules_per_token_at_tdp)}) {
      row.push_back(std::move(cell));
    }
    opts.rows.push_back(std::move(row));
  }
  doc.tables.push_back(std::move(opts));
  // --pue was read only into the JSON (known gap, session 61): the table says what it sets.
  doc.footer.push_back(fmt::format(
      "J/token at TDP: TDP x GPUs x PUE {:.2f} (--pue) over the used tok/s, an upper bound (GPUs serving draw less); "
      "rental prices already include power",
      q.cost.pue));
  // An option that cannot hold the load is priced at the load it holds: say so beside its row,
  // or GPUs are set against each other at unequal loads without a word.
  for (const CompareOption& o : r.options) {
    if (o.load.capped) {
      doc.footer.push_back(fmt::format(
          "{}: {} needs more than memory and the engine allow; priced at the {} sequences per replica it holds",
          o.gpu,
          o.load.target_output_tokens_per_s
              ? fmt::format("{} output tok/s", tokens_per_s_text(*o.load.target_output_tokens_per_s))
              : fmt::format("--concurrency {}", o.load.concurrency.value_or(0)),
          o.batch));
    }
  }
  // The band's width depends on how far each option is from the calibration data, as in perf.
  for (const CompareOption& o : r.options) {
    doc.footer.push_back(fmt::format("{} band from cross-validation: {}", o.gpu, band_source(o.band_case, o.engine_calibrated, o.layout_calibrated)));
  }
  detail::Table costs{.title = "Cost by pricing mode",
                      .header = {"provider", "mode", "gpu", "USD/GPU-h", "price age", "USD/h", "M tokens/USD", "USD/Mtok",
                                 "premium", "throughput", "break-even USD/GPU-h", "winner"},
                      .rows = {}};
  // CSV: one figure a cell ("206 d (stale)", "+54 %", "1.28x", "yes (within band)" are text to a
  // spreadsheet): age in days and stale, premium in %, throughput ratio, winner and robust apart.
  if (csv) {
    costs.header = {"provider", "mode", "gpu", "USD/GPU-h", "price age days", "stale", "USD/h", "M tokens/USD",
                    "USD/Mtok", "premium %", "throughput ratio", "break-even USD/GPU-h", "winner", "robust"};
  }
  const auto age_cells = [&](const Price& p) -> std::vector<std::string> {
    if (!csv) {
      return {price_age_label(p)};
    }
    return detail::price_age_cells(p);
  };
  const auto row_of = [&](const ModeComparison& m, std::size_t i, std::vector<std::string> price_cells,
                          std::vector<std::string> figures, std::string verdict, std::string robust) {
    std::vector<std::string> row{m.provider, offer_label(m.mode, m.term), r.options[i].gpu};
    for (std::vector<std::string>* part : {&price_cells, &figures}) {
      row.insert(row.end(), part->begin(), part->end());
    }
    row.push_back(std::move(verdict));
    if (csv) {
      row.push_back(std::move(robust));
    }
    return row;
  };
  for (const ModeComparison& m : r.modes) {
    for (std::size_t i = 0; i < m.options.size(); ++i) {
      const PricedOption& po = m.options[i];
      const std::vector<std::string> none(6, "-");
      if (!po.price) {
        std::vector<std::string> price_cells(csv ? 3 : 2, "-");
        costs.rows.push_back(row_of(m, i, price_cells, none, "no price", "-"));
        continue;
      }
      std::vector<std::string> price_cells{usd(po.price->usd_per_gpu_hour)};
      for (std::string& cell : age_cells(*po.price)) {
        price_cells.push_back(std::move(cell));
      }
      if (!po.rentable()) {
        // No instance holds the replica: no figure, since no such deployment exists there.
        costs.rows.push_back(row_of(m, i, price_cells, none, "not rentable", "-"));
        continue;
      }
      const bool win = m.winner && *m.winner == i;
      std::vector<std::string> figures{
          usd(po.cost.usd_per_hour()), millions(po.cost.tokens_per_usd),
          fmt::format("{:.4f}", po.cost.usd_per_million_tokens),
          csv ? fmt::format("{:.0f}", checked(po.premium, "a share") * 100.0 + 0.0) : pct(po.premium),
          csv ? fmt::format("{:.2f}", po.throughput_ratio) : fmt::format("{:.2f}x", po.throughput_ratio),
          usd(po.break_even_usd_per_gpu_hour)};
      const std::string verdict = csv ? (win ? "yes" : "") : win ? (m.robust ? "yes" : "yes (within band)") : "";
      costs.rows.push_back(row_of(m, i, price_cells, figures, verdict, win ? (m.robust ? "yes" : "no") : "-"));
    }
  }
  doc.tables.push_back(std::move(costs));
  // What whole instances add: an option paying for more GPUs than it runs on says so.
  for (const ModeComparison& m : r.modes) {
    for (std::size_t i = 0; i < m.options.size(); ++i) {
      const PricedOption& po = m.options[i];
      if (po.own_layout) {
        doc.footer.push_back(fmt::format("{} {} {}: priced at {} ({:.0f} tok/s), the layout its instances hold: they "
                                         "hold no replica of {} (--provider {} chooses it)",
                                         m.provider, offer_label(m.mode, m.term), r.options[i].gpu,
                                         layout_label(*po.own_layout), po.own_tokens_per_s,
                                         layout_label(r.options[i].layout), m.provider));
      }
      if (po.price && po.cost.rental.group_split) {
        doc.footer.push_back(fmt::format("{} {} {}: not rentable: {}; not ranked", m.provider,
                                         offer_label(m.mode, m.term), r.options[i].gpu,
                                         po.not_rentable));
      } else if (po.price && po.cost.rental.idle_gpus() > 0) {
        doc.footer.push_back(fmt::format("{} {} {}: {}", m.provider, offer_label(m.mode, m.term), r.options[i].gpu,
                                         rental_note(po.cost.rental, *po.price)));
      }
    }
  }
  for (const ModeComparison& m : r.modes) {
    if (!m.winner) {
      const auto priced = std::find_if(m.options.begin(), m.options.end(), [](const PricedOption& po) { return po.rentable(); });
      if (priced != m.options.end()) {
        const bool split = std::any_of(m.options.begin(), m.options.end(),
                                        [](const PricedOption& po) { return po.price && !po.rentable(); });
        doc.footer.push_back(fmt::format("{} {}: only {} {}; no comparison in this mode", m.provider,
                                         offer_label(m.mode, m.term), r.options[static_cast<std::size_t>(priced - m.options.begin())].gpu,
                                         split ? "is rentable" : "has a price"));
      }
      continue;
    }
    std::string line = fmt::format("{} {}: {} wins", m.provider, offer_label(m.mode, m.term), r.options[*m.winner].gpu);
    // Framed against the baseline (the first priced option), as the question is asked.
    const auto base = std::find_if(m.options.begin(), m.options.end(), [](const PricedOption& po) { return po.rentable(); });
    for (std::size_t i = 0; i < m.options.size(); ++i) {
      const PricedOption& po = m.options[i];
      if (!po.rentable() || &po == &*base) {
        continue;
      }
      const double change = po.cost.tokens_per_usd / base->cost.tokens_per_usd - 1.0;
      line += fmt::format("; {} buys {:.0f} % {} tokens per USD than {}", r.options[i].gpu, std::abs(change) * 100.0,
                          change >= 0 ? "more" : "fewer", r.options[static_cast<std::size_t>(base - m.options.begin())].gpu);
    }
    line += m.robust ? "" : " (not robust: the estimates' bands overlap)";
    // A verdict drawn on a price over 180 days old reads as today's unless it says so (the table's
    // age column is far from this line; session 60 N5): name each stale price it rests on.
    std::vector<std::string> stale;
    for (std::size_t i = 0; i < m.options.size(); ++i) {
      const PricedOption& po = m.options[i];
      if (po.rentable() && po.price && po.price->stale()) {
        stale.push_back(fmt::format("{} {} d", r.options[i].gpu, po.price->age_days));
      }
    }
    if (!stale.empty()) {
      line += fmt::format("; on stale prices, check them: {}", fmt::join(stale, ", "));
    }
    doc.footer.push_back(line);
  }
  // A ratio only between layouts chosen under the same rule: with --provider, a GPU the provider
  // has no price for keeps its fastest layout while a priced one is held to the provider's
  // instances, and dividing the two (B200 PP 8 on 1-GPU instances against H200 EP 8 unheld) gave
  // 0.58x where the like-for-like ratio is 2x.
  const auto held = [](const CompareOption& o) { return o.provider_instance_gpus.has_value(); };
  const auto same_layout = [](const Layout& a, const Layout& b) {
    return a.tp == b.tp && a.pp == b.pp && a.ep == b.ep && a.dp == b.dp;
  };
  for (std::size_t i = 1; i < r.options.size(); ++i) {
    const CompareOption& o = r.options[i];
    std::size_t base = 0;
    while (base < i && held(r.options[base]) != held(o) && !same_layout(r.options[base].layout, o.layout)) {
      ++base;
    }
    if (base == i) {
      const CompareOption& b = r.options[0];
      const CompareOption& h = held(o) ? o : b;
      const CompareOption& u = held(o) ? b : o;
      const std::uint64_t largest = *h.provider_instance_gpus;
      doc.footer.push_back(fmt::format(
          "{} vs {}: no throughput ratio: {}'s layout ({}) is chosen for {}'s instances{}, {}'s ({}) for throughput "
          "alone, as {} has no price for it; the two layouts answer different questions (compare without --provider "
          "for the GPUs alone)",
          o.gpu, b.gpu, h.gpu, layout_label(h.layout), r.request.provider,
          largest > 0 ? fmt::format(" (the largest holds {})", gpus_text(largest)) : std::string(), u.gpu,
          layout_label(u.layout), r.request.provider));
      continue;
    }
    const double ratio = o.tokens_per_s() / r.options[base].tokens_per_s();
    doc.footer.push_back(fmt::format("{} vs {}: {:.2f}x the throughput = {:.0f} % {} time for the same tokens",
                                     o.gpu, r.options[base].gpu, ratio, std::abs(1.0 - 1.0 / ratio) * 100.0,
                                     ratio >= 1.0 ? "less" : "more"));
  }
  doc.footer.push_back("premium, throughput and break-even (the GPU-hour price at which an option earns as many tokens "
                       "per USD) are against the first GPU with a price in that mode");
  for (const ExcludedOption& e : r.excluded) {
    doc.footer.push_back(fmt::format("left out: {}{}", e.problem.substr(e.problem.find(' ') + 1), gpus_that_fit_text(e)));
  }
  for (const auto& n : r.notes) {
    doc.footer.push_back("note: " + n);
  }
  if (const auto at = r.cheapest()) {
    const auto offer = [&r](std::size_t mode, std::size_t option) {
      const ModeComparison& m = r.modes[mode];
      const PricedOption& po = m.options[option];
      return fmt::format("{} at {} {} (${:.2f}/GPU-h, {}): ${:.4f} per million output tokens", r.options[option].gpu,
                         m.provider, offer_label(m.mode, m.term), po.price->usd_per_gpu_hour,
                         po.price->given() ? "given by --price"
                                           : fmt::format("{}, {}", po.price->date, price_age_label(*po.price)),
                         po.cost.usd_per_million_tokens);
    };
    // cheapest() passes over stale offers when a current one exists: name the cheapest of those.
    const double chosen = r.modes[at->first].options[at->second].cost.usd_per_million_tokens;
    std::optional<std::pair<std::size_t, std::size_t>> stale;
    for (std::size_t m = 0; m < r.modes.size(); ++m) {
      for (std::size_t i = 0; i < r.modes[m].options.size(); ++i) {
        const PricedOption& po = r.modes[m].options[i];
        if (po.rentable() && po.price->stale() && po.cost.usd_per_million_tokens < chosen &&
            (!stale || po.cost.usd_per_million_tokens <
                           r.modes[stale->first].options[stale->second].cost.usd_per_million_tokens)) {
          stale = std::pair{m, i};
        }
      }
    }
    doc.footer.push_back(fmt::format("cheapest overall: {}{}", offer(at->first, at->second),
                                     stale ? "; cheaper on a stale price: " + offer(stale->first, stale->second) : ""));
  }
  return detail::render_document(doc, options.format);
}

}  // namespace gpuplan
