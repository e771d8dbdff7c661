// render_scaling() and render_model_scaling(): measured scaling (speed-up, efficiency, fits,
// predictions, where adding GPUs stops paying) and the modeled serving table, in every format.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <gpuplan/layout.hpp>
#include <gpuplan/render.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"
#include "detail/ttft_text.hpp"

namespace gpuplan {
namespace {

using detail::checked;
using detail::OrderedJson;

// Throughputs in any unit: whole numbers when large, three significant digits when small.
std::string scale_amount(double v) {
  checked(v, "a throughput");
  return std::abs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}
std::string percent(double share) { return fmt::format("{:.1f}", checked(share, "a share") * 100.0); }
std::string opt_percent(const std::optional<double>& share) { return share ? percent(*share) : "-"; }

// Cost of work as shown: per million units (per million tokens for tokens).
std::string cost_header(const ThroughputUnit& unit) {
  return unit.tokens ? "USD/Mtok" : fmt::format("USD per M {}", unit.work);
}
std::string cost_cell(const std::optional<double>& usd_per_unit) {
  if (!usd_per_unit) {
    return "-";
  }
  const double v = checked(*usd_per_unit * 1e6, "a cost");
  return v >= 0.01 ? fmt::format("{:.4f}", v) : fmt::format("{:.4g}", v);
}

OrderedJson opt(const std::optional<double>& v, std::string_view what) {
  return v ? OrderedJson(checked(*v, what)) : OrderedJson(nullptr);
}
OrderedJson opt(const std::optional<std::uint64_t>& v) { return v ? OrderedJson(*v) : OrderedJson(nullptr); }

// "4", or "4 (8 paid)" when the price rents whole instances larger than the count.
std::string paid_gpus_cell(std::uint64_t gpus, std::uint64_t paid) {
  return paid > gpus ? fmt::format("{} ({} paid)", gpus, paid) : std::to_string(gpus);
}

OrderedJson row_json(const ScalingRow& r, const ThroughputUnit& unit, bool priced) {
  OrderedJson j = {{"gpus", r.gpus},
            {"throughput", checked(r.throughput, "throughput")},
            {"speedup", checked(r.speedup, "speed-up")},
            {"efficiency", checked(r.efficiency, "efficiency")},
            {"marginal_efficiency", opt(r.marginal_efficiency, "marginal efficiency")}};
  if (priced) {
    j["paid_gpus"] = r.paid_gpus;
    j["usd_per_unit"] = opt(r.usd_per_unit, "cost");
    j["usd_per_unit_used"] = opt(r.usd_per_unit_used, "cost");
    const OrderedJson per_million =
        r.usd_per_unit ? OrderedJson(checked(*r.usd_per_unit * 1e6, "cost")) : OrderedJson(nullptr);
    j["usd_per_million_units"] = per_million;
    if (unit.tokens) {
      j["usd_per_million_tokens"] = per_million;
    }
  }
  return j;
}

OrderedJson law_json(const LawFit& f, bool usl) {
  OrderedJson j = {{"fitted", f.fitted}, {"exact", f.exact}};
  if (!f.fitted) {
    j["lambda"] = nullptr;
    j[usl ? "sigma" : "serial_fraction"] = nullptr;
    if (usl) {
      j["kappa"] = nullptr;
      j["peak_gpus"] = nullptr;
    }
    j["r2"] = nullptr;
    j["residuals"] = OrderedJson::array();
    return j;
  }
  j["lambda"] = checked(f.lambda, "lambda");
  j[usl ? "sigma" : "serial_fraction"] = checked(f.sigma, "sigma");
  if (usl) {
    j["kappa"] = checked(f.kappa, "kappa");
    j["peak_gpus"] = opt(f.peak_gpus(), "peak");
  }
  j["r2"] = opt(f.r2, "r2");
  OrderedJson res = OrderedJson::array();
  for (double r : f.residuals) {
    res.push_back(checked(r, "residual"));
  }
  j["residuals"] = res;
  return j;
}

OrderedJson rule_json(const StopRule& r) {
  return {{"rule", r.name.empty() ? OrderedJson(nullptr) : OrderedJson(r.name)},
          {"gpus", opt(r.gpus)},
          {"last_paying_gpus", opt(r.last_paying_gpus)},
          {"predicted", r.predicted},
          {"reason", r.reason}};
}

OrderedJson scaling_json(const ScalingResult& r) {
  const ScalingRequest& q = r.request;
  const bool priced = q.usd_per_gpu_hour.has_value();
  OrderedJson j = detail::envelope("scale");
  j["mode"] = "measured";
  OrderedJson points_in = OrderedJson::array();
  for (const ScalingPoint& p : q.points) {
    points_in.push_back({{"gpus", p.gpus}, {"throughput", p.throughput}});
  }
  OrderedJson price = nullptr;
  if (q.price) {
    price = {{"provider", q.price->provider}, {"gpu", q.price->gpu}, {"mode", to_string(q.price->mode)},
             {"usd_per_gpu_hour", q.price->usd_per_gpu_hour}, {"date", q.price->date},
             {"price_age_days", detail::price_age_days_json(*q.price)}, {"stale", q.price->stale()}, {"sources", q.price->sources}};
  }
  j["inputs"] = {{"points", points_in},
                 {"unit", q.unit.text},
                 {"usd_per_gpu_hour", priced ? OrderedJson(*q.usd_per_gpu_hour) : OrderedJson(nullptr)},
                 {"price", price},
                 {"up_to", q.up_to},
                 {"predict_at", q.predict_at},
                 {"min_marginal_efficiency", q.min_marginal_efficiency},
                 {"max_cost_increase", q.max_cost_increase}};
  j["unit"] = {{"text", q.unit.text}, {"work", q.unit.work}, {"period_s", q.unit.period_s}, {"tokens", q.unit.tokens}};
  j["baseline_gpus"] = q.points.front().gpus;
  OrderedJson points = OrderedJson::array();
  for (const ScalingRow& p : r.points) {
    OrderedJson pj = row_json(p, q.unit, priced);
    pj["super_linear"] = p.super_linear;
    points.push_back(pj);
  }
  j["points"] = points;
  j["fits"] = {{"amdahl", law_json(r.amdahl, false)}, {"usl", law_json(r.usl, true)}};
  j["prediction_law"] = r.prediction_law;
  OrderedJson predictions = OrderedJson::array();
  for (const ScalingRow& p : r.predictions) {
    OrderedJson pj = row_json(p, q.unit, priced);
    pj["measured_throughput"] = opt(p.measured_throughput, "measured");
    pj["amdahl_throughput"] = checked(r.amdahl.throughput(static_cast<double>(p.gpus)), "amdahl");
    pj["usl_throughput"] = r.usl.fitted ? OrderedJson(checked(r.usl.throughput(static_cast<double>(p.gpus)), "usl"))
                                        : OrderedJson(nullptr);
    predictions.push_back(pj);
  }
  j["predictions"] = predictions;
  OrderedJson rules = OrderedJson::array();
  for (const StopRule& rule : r.rules) {
    rules.push_back(rule_json(rule));
  }
  j["rules"] = rules;
  j["stops_paying"] = rule_json(r.stops_paying);
  j["instance_packing"] = r.instance_packing.empty() ? OrderedJson(nullptr) : OrderedJson(r.instance_packing);
  j["notes"] = r.notes;
  return j;
}

std::string law_name(std::string_view law) { return law == "usl" ? "USL" : "Amdahl"; }

detail::Document scaling_document(const ScalingResult& r) {
  const ScalingRequest& q = r.request;
  const ThroughputUnit& u = q.unit;
  const bool priced = q.usd_per_gpu_hour.has_value();
  detail::Document doc;
  doc.heading.push_back(fmt::format("gpuplan scale: {} measured points in {}, against the smallest ({} GPU{})",
                                    r.points.size(), u.text, q.points.front().gpus,
                                    q.points.front().gpus == 1 ? "" : "s"));
  if (q.price) {
    doc.heading.push_back("price: " + price_label(*q.price));
  } else if (priced) {
    doc.heading.push_back(fmt::format("price: ${:.2f}/GPU-h (given)", *q.usd_per_gpu_hour));
  }
  std::vector<std::string> header{"GPUs", u.text, "speed-up", "efficiency %", "marginal %"};
  if (priced) {
    header.push_back(cost_header(u));
  }
  const auto cells = [&](const ScalingRow& row) {
    std::vector<std::string> c{paid_gpus_cell(row.gpus, priced ? row.paid_gpus : row.gpus), scale_amount(row.throughput),
                               fmt::format("{:.2f}", row.speedup), percent(row.efficiency),
                               opt_percent(row.marginal_efficiency)};
    if (priced) {
      c.push_back(cost_cell(row.usd_per_unit));
    }
    return c;
  };
  detail::Table measured{.title = "measured", .header = header, .rows = {}};
  measured.header.push_back("note");
  for (const ScalingRow& row : r.points) {
    auto c = cells(row);
    c.push_back(row.super_linear ? "super-linear" : "");
    measured.rows.push_back(std::move(c));
  }
  doc.tables.push_back(std::move(measured));

  detail::Table fits{.title = "fits (least squares on relative error)",
                     .header = {"law", fmt::format("lambda {}/GPU", u.text), "sigma (serial)", "kappa", "R2",
                                "peak N*", "note"},
                     .rows = {}};
  const auto r2 = [](const LawFit& f) { return f.r2 ? fmt::format("{:.4f}", *f.r2) : std::string("-"); };
  fits.rows.push_back({"Amdahl", scale_amount(r.amdahl.lambda), fmt::format("{:.4f}", r.amdahl.sigma), "0",
                       r2(r.amdahl), "-", r.amdahl.exact ? "exact: 2 points, 2 parameters" : ""});
  if (r.usl.fitted) {
    const auto peak = r.usl.peak_gpus();
    fits.rows.push_back({"USL", scale_amount(r.usl.lambda), fmt::format("{:.4f}", r.usl.sigma),
                         fmt::format("{:.3g}", r.usl.kappa), r2(r.usl),
                         peak ? fmt::format("{:.1f}", checked(*peak, "peak")) : "none",
                         r.usl.exact ? "exact: 3 points, 3 parameters" : ""});
  } else {
    fits.rows.push_back({"USL", "-", "-", "-", "-", "-", "not fitted: needs 3 points"});
  }
  doc.tables.push_back(std::move(fits));

  detail::Table residuals{.title = "residuals (measured - fitted)",
                          .header = {"GPUs", "measured", "Amdahl", "Amdahl residual %", "USL", "USL residual %"},
                          .rows = {}};
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const ScalingRow& p = r.points[i];
    const double a = r.amdahl.throughput(static_cast<double>(p.gpus));
    std::vector<std::string> c{std::to_string(p.gpus), scale_amount(p.throughput), scale_amount(a),
                               fmt::format("{:+.2f}", (p.throughput - a) / p.throughput * 100.0)};
    if (r.usl.fitted) {
      const double s = r.usl.throughput(static_cast<double>(p.gpus));
      c.push_back(scale_amount(s));
      c.push_back(fmt::format("{:+.2f}", (p.throughput - s) / p.throughput * 100.0));
    } else {
      c.insert(c.end(), {"-", "-"});
    }
    residuals.rows.push_back(std::move(c));
  }
  doc.tables.push_back(std::move(residuals));

  detail::Table predictions{.title = fmt::format("predictions ({})", law_name(r.prediction_law)), .header = header,
                            .rows = {}};
  predictions.header.push_back("measured");
  for (const ScalingRow& row : r.predictions) {
    auto c = cells(row);
    c.push_back(row.measured_throughput ? scale_amount(*row.measured_throughput) : "");
    predictions.rows.push_back(std::move(c));
  }
  doc.tables.push_back(std::move(predictions));

  detail::Table rules{.title = "where adding GPUs stops paying",
                      .header = {"rule", "stops at GPUs", "last paying", "from", "reason"},
                      .rows = {}};
  for (const StopRule& rule : r.rules) {
    rules.rows.push_back({rule.name, rule.gpus ? std::to_string(*rule.gpus) : "none",
                          rule.last_paying_gpus ? std::to_string(*rule.last_paying_gpus) : "-",
                          rule.gpus ? (rule.predicted ? "prediction" : "measurement") : "-", rule.reason});
  }
  doc.tables.push_back(std::move(rules));

  if (r.stops_paying.gpus) {
    doc.footer.push_back(fmt::format("stops paying at {} GPUs ({}); the last count that pays is {}",
                                     *r.stops_paying.gpus, r.stops_paying.name, *r.stops_paying.last_paying_gpus));
  } else {
    doc.footer.push_back("stops paying: " + r.stops_paying.reason);
  }
  if (!r.instance_packing.empty()) {
    doc.footer.push_back(r.instance_packing);
  }
  doc.footer.push_back(fmt::format(
      "efficiency = speed-up / (GPUs / {}); marginal = speed-up gained per added GPU over the ideal; predictions "
      "measure speed-up against the law's own value at {} GPU{}; thresholds: marginal {} % (--min-marginal-efficiency){}",
      q.points.front().gpus, q.points.front().gpus, q.points.front().gpus == 1 ? "" : "s", percent(q.min_marginal_efficiency),
      priced ? fmt::format(", cost per unit +{} % (--max-cost-increase)", percent(q.max_cost_increase)) : ""));
  for (const std::string& n : r.notes) {
    doc.footer.push_back("note: " + n);
  }
  return doc;
}

}  // namespace

std::string render_scaling(const ScalingResult& result, const RenderOptions& options) {
  if (options.format == Format::json) {
    return detail::dump_json(scaling_json(result));
  }
  return detail::render_document(scaling_document(result), options.format);
}

}  // namespace gpuplan

namespace gpuplan {
namespace {

std::string scale_layout(const Layout& l) {
  std::string t = fmt::format("TP {}", l.tp);
  if (l.pp > 1) {
    t += fmt::format(" x PP {}", l.pp);
  }
  if (l.ep > 1) {
    t += fmt::format(" EP {}", l.ep);
  }
  // Experts spread over data-parallel ranks (attention DP): the EP group is the unit that scales,
  // its ranks are not replicas.
  if (const std::uint64_t ranks = l.ranks_per_expert_group(); ranks > 0) {
    t += fmt::format(" DP {}", ranks);
    if (l.expert_groups() > 1) {
      t += fmt::format(" x {} groups", l.expert_groups());
    }
    return t;
  }
  if (l.dp > 1) {
    t += fmt::format(" x {} replicas", l.dp);
  }
  return t;
}

std::string scale_rate(double v) { return fmt::format("{:.0f}", checked(v, "a rate")); }
std::string scale_ms(double s) { return fmt::format("{:.1f}", checked(s, "a time") * 1e3); }

OrderedJson layout_json(const Layout& l) {
  return {{"tp", l.tp}, {"pp", l.pp}, {"ep", l.ep}, {"dp", l.dp}, {"gpus", l.gpus()}};
}

OrderedJson model_row_json(const ScaleModelRow& r) {
  return {{"way", to_string(r.way)},
          {"shape", r.shape},
          {"gpus", r.layout.gpus()},
          {"layout", layout_json(r.layout)},
          {"links", r.links},
          {"batch_per_replica", r.batch},
          {"batch_by_latency", r.batch_by_latency},
          {"output_tokens_per_s", checked(r.output_tokens_per_s, "tok/s")},
          {"output_tokens_per_s_low", checked(r.low, "low")},
          {"output_tokens_per_s_high", checked(r.high, "high")},
          {"output_tokens_per_s_per_gpu", checked(r.tokens_per_s_per_gpu, "tok/s/GPU")},
          {"speedup", opt(r.speedup, "speed-up")},
          {"efficiency", opt(r.efficiency, "efficiency")},
          {"itl_s", checked(r.itl_s, "itl")},
          {"single_stream_itl_s", checked(r.single_stream_itl_s, "itl")},
          {"ttft_s", checked(r.ttft_s, "ttft")},
          {"communication_share", checked(r.communication_share, "comm share")},
          {"communication_dominates", r.communication_dominates},
          {"usd_per_million_tokens", opt(r.usd_per_million_tokens, "usd/mtok")},
          {"paid_gpus", r.paid_gpus},
          {"not_rentable", r.not_rentable},
          {"over_latency", r.over_latency}};
}

// The row with the most tokens/s per GPU, and the one with the lowest ITL at batch 1 (ties: fewer
// GPUs): rows at their full-load batches would compare loads, not layouts.
/// The row that earns the most per GPU among those within the latency caps; null when none is.
const ScaleModelRow* best_per_gpu(const ScaleModelTable& t) {
  const ScaleModelRow* best = nullptr;
  for (const ScaleModelRow& r : t.rows) {
    if (r.way != ScaleWay::serve_out && !r.over_latency && (!best || r.tokens_per_s_per_gpu > best->tokens_per_s_per_gpu * (1 + 1e-9))) {
      best = &r;
    }
  }
  return best;
}
/// Copies of one replica a row runs (whole expert-parallel groups under attention DP).
std::uint64_t replica_copies(const Layout& l) { return l.dp_attention() ? l.expert_groups() : l.dp; }

/// The widest single replica beyond `best`: how much per GPU a wider replica gives up.
const ScaleModelRow* widest_single_replica(const ScaleModelTable& t, const ScaleModelRow& best) {
  const ScaleModelRow* widest = nullptr;
  for (const ScaleModelRow& r : t.rows) {
    // A row over the caps at any batch is no rival within them.
    if (r.way != ScaleWay::serve_out && !r.over_latency && replica_copies(r.layout) == 1 &&
        r.layout.gpus() > best.layout.gpus() &&
        (!widest || r.layout.gpus() > widest->layout.gpus() ||
         (r.layout.gpus() == widest->layout.gpus() && r.tokens_per_s_per_gpu < widest->tokens_per_s_per_gpu))) {
      widest = &r;
    }
  }
  return widest;
}

/// Where adding GPUs stops paying, modeled: past the replica that earns the most per GPU, only
/// copies of it keep that rate.
std::string stops_paying_text(const ScaleModelTable& t, const ScaleModelRow* best_or_none, const ScaleModelRequest& q) {
  std::vector<std::string> caps;
  if (q.max_itl_s) {
    caps.push_back(fmt::format("ITL {:g} ms (--max-itl-ms)", checked(*q.max_itl_s, "a time") * 1e3));  // as given
  }
  if (q.max_ttft_s) {
    caps.push_back(fmt::format("TTFT {:g} ms (--max-ttft-ms)", checked(*q.max_ttft_s, "a time") * 1e3));
  }
  const std::string within = caps.empty() ? "" : fmt::format(" within {}", fmt::join(caps, " and "));
  if (best_or_none == nullptr) {
    return fmt::format("where adding GPUs stops paying ({}): no layout meets{} even at batch 1 (rows noted 'over "
                       "the latency cap')",
                       t.gpu, within);
  }
  const ScaleModelRow& best = *best_or_none;
  std::string line = fmt::format(
      "where adding GPUs stops paying ({}): {} on {} earns the most per GPU{}, {} tok/s/GPU{}; more GPUs pay only as "
      "copies of it",
      t.gpu, scale_layout(best.layout), gpus_text(best.layout.gpus()), within, scale_rate(best.tokens_per_s_per_gpu),
      best.not_rentable ? fmt::format(" (not rentable at {}: no instance holds it)",
                                      t.price ? t.price->provider : std::string("this price"))
      : !best.usd_per_million_tokens ? ""
      : best.paid_gpus > best.layout.gpus()
          // Alone it pays idle GPUs; copies of it fill the instance.
          ? fmt::format(" at {:.4f} USD/Mtok alone in its instance, {:.4f} with the instance filled with copies",
                        *best.usd_per_million_tokens,
                        *best.usd_per_million_tokens * static_cast<double>(best.layout.gpus()) /
                            static_cast<double>(best.paid_gpus))
          : fmt::format(" at {:.4f} USD/Mtok", *best.usd_per_million_tokens));
  if (const ScaleModelRow* wide = widest_single_replica(t, best)) {
    line += fmt::format(", while one replica over {} ({}) earns {:.0f} % of that per GPU", gpus_text(wide->layout.gpus()),
                        scale_layout(wide->layout), 100.0 * wide->tokens_per_s_per_gpu / best.tokens_per_s_per_gpu);
  }
  return line;
}

const ScaleModelRow* lowest_itl(const ScaleModelTable& t) {
  const ScaleModelRow* best = nullptr;
  for (const ScaleModelRow& r : t.rows) {
    if (r.way != ScaleWay::serve_out && (!best || r.single_stream_itl_s < best->single_stream_itl_s * (1 - 1e-9))) {
      best = &r;
    }
  }
  return best;
}

OrderedJson band_json(const ScaleModelRequest& q) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [gpu, band] : q.band_by_gpu) {
    out[gpu] = {{"low", band.band.low}, {"high", band.band.high}};
  }
  return out;
}

OrderedJson model_json(const ScaleModelResult& r) {
  const ScaleModelRequest& q = r.request;
  OrderedJson j = detail::envelope("scale");
  j["mode"] = "modeled";
  j["inputs"] = {{"model", r.model_id},
                 {"gpus", q.gpus},
                 {"weights_dtype", to_string(q.perf.fit.weights_dtype)},
                 {"kv_dtype", to_string(q.perf.fit.kv_dtype)},
                 {"input_tokens", q.perf.input_tokens},
                 {"output_tokens", q.perf.output_tokens},
                 // null: no cap beyond the engine's own (SGLang's max_running_requests, default_max_batch)
                 {"max_batch", q.max_batch >= kMaxBatchLimit ? OrderedJson(nullptr) : OrderedJson(q.max_batch)},
                 {"up_to", q.up_to},
                 {"target_output_tokens_per_s",
                  q.target_output_tokens_per_s ? OrderedJson(*q.target_output_tokens_per_s) : OrderedJson(nullptr)},
                 {"max_itl_s", q.max_itl_s ? OrderedJson(*q.max_itl_s) : OrderedJson(nullptr)},
                 {"max_ttft_s", q.max_ttft_s ? OrderedJson(*q.max_ttft_s) : OrderedJson(nullptr)},
                 {"arrivals", to_string(q.perf.arrivals)},
                 {"network_bytes_per_s_per_gpu", q.perf.network_bytes_per_s_per_gpu},
                 {"band_by_gpu", band_json(q)},
                 {"engine_calibrated", engine_calibrated(q.perf.fit.engine.engine)}};
  if (q.perf.cached_input_tokens > 0) {  // as perf's JSON: only when given
    j["inputs"]["cached_input_tokens"] = q.perf.cached_input_tokens;
  }
  OrderedJson tables = OrderedJson::array();
  for (const ScaleModelTable& t : r.tables) {
    OrderedJson rows = OrderedJson::array();
    for (const ScaleModelRow& row : t.rows) {
      rows.push_back(model_row_json(row));
    }
    OrderedJson price = nullptr;
    if (t.price) {
      price = {{"provider", t.price->provider}, {"mode", to_string(t.price->mode)},
               {"usd_per_gpu_hour", t.price->usd_per_gpu_hour}, {"date", t.price->date},
               {"price_age_days", detail::price_age_days_json(*t.price)}, {"stale", t.price->stale()}, {"sources", t.price->sources}};
    }
    tables.push_back(
        {{"gpu", t.gpu},
         {"scale_up_domain_gpus", t.domain_gpus},
         {"smallest",
          {{"layout", layout_json(t.smallest)}, {"output_tokens_per_s", checked(t.smallest_tokens_per_s, "tok/s")}}},
         // what speed-up and efficiency are against when the smallest is over the latency caps
         {"baseline_within_caps",
          t.baseline_within_caps
              ? OrderedJson{{"layout", layout_json(*t.baseline_within_caps)},
                            {"output_tokens_per_s", checked(t.baseline_tokens_per_s, "tok/s")}}
              : OrderedJson(nullptr)},
         {"usd_per_gpu_hour", t.usd_per_gpu_hour ? OrderedJson(*t.usd_per_gpu_hour) : OrderedJson(nullptr)},
         {"price", price},
         {"rows", rows},
         {"serve_out_fewest", t.serve_out_fewest ? model_row_json(t.rows[*t.serve_out_fewest]) : OrderedJson(nullptr)},
         {"most_tokens_per_s_per_gpu", best_per_gpu(t) ? model_row_json(*best_per_gpu(t)) : OrderedJson(nullptr)},
         {"notes", t.notes}});
  }
  j["tables"] = tables;
  j["notes"] = r.notes;
  return j;
}

detail::Document model_document(const ScaleModelResult& r) {
  const ScaleModelRequest& q = r.request;
  detail::Document doc;
  doc.heading.push_back(fmt::format("gpuplan scale: {} serving, modeled ({} weights, {} KV cache, {}{} input + {} output "
                                    "tokens, batch cap {} per replica)",
                                    r.model_id, to_string(q.perf.fit.weights_dtype), to_string(q.perf.fit.kv_dtype),
                                    q.perf.input_tokens, detail::cached_input_text(q.perf.cached_input_tokens),
                                    q.perf.output_tokens,
                                    q.max_batch >= kMaxBatchLimit ? std::string("the engine's own (SGLang's max_running_requests)")
                                                                  : fmt::format("{}", q.max_batch)));
  if (q.target_output_tokens_per_s) {
    doc.heading.push_back(fmt::format("serve-out target: {} output tok/s", scale_rate(*q.target_output_tokens_per_s)));
  }
  const bool priced = std::any_of(r.tables.begin(), r.tables.end(), [](const ScaleModelTable& t) { return t.usd_per_gpu_hour.has_value(); });
  for (const ScaleModelTable& t : r.tables) {
    std::string price;
    if (t.price) {
      price = "; " + price_label(*t.price);
    } else if (t.usd_per_gpu_hour) {
      price = fmt::format("; ${:.2f}/GPU-h (given)", *t.usd_per_gpu_hour);
    }
    const std::string baseline =
        t.baseline_within_caps
            ? fmt::format(", over the latency caps at every batch; speed-up against {} ({} GPU{}), the smallest within them",
                          scale_layout(*t.baseline_within_caps), t.baseline_within_caps->gpus(),
                          t.baseline_within_caps->gpus() == 1 ? "" : "s")
            : "";
    detail::Table table{.title = fmt::format("{}: scale-up domain {} GPUs; smallest layout that fits: {} ({} GPU{}){}{}", t.gpu,
                                             t.domain_gpus, scale_layout(t.smallest), t.smallest.gpus(),
                                             t.smallest.gpus() == 1 ? "" : "s", baseline, price),
                        .header = {"way", "GPUs", "layout", "shape", "links", "batch", "output tok/s", "band low",
                                   "band high", "tok/s/GPU", "speed-up", "efficiency %", "ITL ms", "TTFT ms",
                                   "comm %"},
                        .rows = {}};
    if (priced) {
      table.header.push_back("USD/Mtok");
    }
    table.header.push_back("note");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const ScaleModelRow& x = t.rows[i];
      std::vector<std::string> c{std::string(to_string(x.way)),
                                 paid_gpus_cell(x.layout.gpus(), x.paid_gpus),
                                 scale_layout(x.layout),
                                 x.shape,
                                 x.links,
                                 std::to_string(x.batch),
                                 scale_rate(x.output_tokens_per_s),
                                 scale_rate(x.low),
                                 scale_rate(x.high),
                                 scale_rate(x.tokens_per_s_per_gpu),
                                 x.speedup ? fmt::format("{:.2f}", checked(*x.speedup, "speed-up")) : "-",
                                 x.efficiency ? percent(*x.efficiency) : "-",
                                 scale_ms(x.itl_s),
                                 scale_ms(x.ttft_s),
                                 percent(x.communication_share)};
      if (priced) {
        c.push_back(x.usd_per_million_tokens ? fmt::format("{:.4f}", checked(*x.usd_per_million_tokens, "usd/mtok")) : "-");
      }
      std::string note = x.communication_dominates ? "communication dominates" : "";
      if (x.efficiency.value_or(0.0) > 1.0 + 1e-9) {
        // Whole experts on each GPU (EP at least TP) run larger GEMMs and all-to-alls instead of
        // sharded ones: that, not memory, lifts an EP row even at the smallest row's batch.
        const bool whole_experts = x.layout.ep > 1 && x.layout.ep >= x.layout.tp;
        note += std::string(note.empty() ? "" : "; ") +
                (whole_experts                  ? "super-linear: expert parallelism, whole experts on each GPU"
                 : t.baseline_batch_by_latency ? "super-linear: larger batch within the latency cap"
                                               : "super-linear: larger batch in the freed memory");
      }
      if (x.not_rentable) {
        note += std::string(note.empty() ? "" : "; ") + "not rentable";
      }
      if (x.over_latency) {
        note += std::string(note.empty() ? "" : "; ") + "over the latency cap even at batch 1";
      }
      if (t.serve_out_fewest && *t.serve_out_fewest == i) {
        note += std::string(note.empty() ? "" : "; ") + "fewest GPUs for the target";
      }
      c.push_back(note);
      table.rows.push_back(std::move(c));
    }
    doc.tables.push_back(std::move(table));
  }
  detail::Table side{.title = "side by side",
                     .header = {"GPU", "smallest layout", "GPUs", "tok/s/GPU there", "most tok/s/GPU", "at",
                                "lowest ITL ms (batch 1)", "at"},
                     .rows = {}};
  if (q.target_output_tokens_per_s) {
    side.header.insert(side.header.end(), {"GPUs for target", "layout for target"});
    if (priced) {
      side.header.push_back("USD/Mtok at target");
    }
  }
  for (const ScaleModelTable& t : r.tables) {
    const ScaleModelRow* best = best_per_gpu(t);
    const ScaleModelRow* fast = lowest_itl(t);
    // Under latency caps the smallest meets at no batch, the smallest layout within them: a rate
    // over the caps beside the best within them read as a loss.
    const Layout& smallest = t.baseline_within_caps ? *t.baseline_within_caps : t.smallest;
    const double smallest_tokens_per_s = t.baseline_within_caps ? t.baseline_tokens_per_s : t.smallest_tokens_per_s;
    std::vector<std::string> c{t.gpu,
                               scale_layout(smallest),
                               std::to_string(smallest.gpus()),
                               scale_rate(smallest_tokens_per_s / static_cast<double>(smallest.gpus())),
                               best ? scale_rate(best->tokens_per_s_per_gpu) : "-",
                               best ? scale_layout(best->layout) : "-",
                               scale_ms(fast->single_stream_itl_s),
                               scale_layout(fast->layout)};
    if (q.target_output_tokens_per_s) {
      if (t.serve_out_fewest) {
        const ScaleModelRow& s = t.rows[*t.serve_out_fewest];
        c.push_back(std::to_string(s.layout.gpus()));
        c.push_back(scale_layout(s.layout));
        if (priced) {
          c.push_back(s.usd_per_million_tokens ? fmt::format("{:.4f}", *s.usd_per_million_tokens) : "-");
        }
      } else {
        c.insert(c.end(), {"-", "-"});
        if (priced) {
          c.push_back("-");
        }
      }
    }
    side.rows.push_back(std::move(c));
  }
  doc.tables.push_back(std::move(side));
  doc.footer.push_back(fmt::format(
      "speed-up and efficiency: against the smallest layout that fits on the same GPU{}; ITL: the mean gap between a "
      "sequence's tokens at the row's batch, the other sequences' prefills included (perf's step column has the decode "
      "step alone); comm %: share of one decode step spent communicating; band: calibration residuals, capped at the "
      "roofline{}{}",
      std::any_of(r.tables.begin(), r.tables.end(), [](const ScaleModelTable& t) { return t.baseline_within_caps.has_value(); })
          ? " (where it is over the latency caps at every batch, the smallest within them, and none for rows over "
            "them; the side-by-side table's smallest layout likewise)"
          : "",
      q.max_itl_s || q.max_ttft_s
          ? "; batch: the largest per replica within the latency caps (plan's search), full load when a row meets "
            "them there"
          : "",
      engine_calibrated(q.perf.fit.engine.engine) ? "" : fmt::format("; {}", kEngineNotCalibrated)));
  doc.footer.emplace_back(detail::ttft_arrivals_text(q.perf.arrivals));
  for (const ScaleModelTable& t : r.tables) {
    doc.footer.push_back(stops_paying_text(t, best_per_gpu(t), q));
  }
  doc.footer.push_back(fmt::format("network between nodes: {:.0f} Gb/s per GPU; scale-up domain: NVLink/xGMI GPUs per node",
                                   q.perf.network_bytes_per_s_per_gpu * 8 / 1e9));
  for (const ScaleModelTable& t : r.tables) {
    for (const std::string& n : t.notes) {
      doc.footer.push_back(fmt::format("note ({}): {}", t.gpu, n));
    }
  }
  for (const std::string& n : r.notes) {
    doc.footer.push_back("note: " + n);
  }
  return doc;
}

}  // namespace

std::string render_model_scaling(const ScaleModelResult& result, const RenderOptions& options) {
  if (options.format == Format::json) {
    return detail::dump_json(model_json(result));
  }
  return detail::render_document(model_document(result), options.format);
}

}  // namespace gpuplan
