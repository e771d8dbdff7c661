// The HTML plan report: the markdown report's tables (from the same PlanReport) with inline SVG
// charts, as one self-contained file: no scripts, no links, no external styles or fonts, and a
// Content-Security-Policy that forbids the browser any fetch.
#include "detail/plan_html.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <gpuplan/perf_curve.hpp>
#include <gpuplan/units.hpp>

#include "detail/document.hpp"
#include "detail/plan_report.hpp"
#include "detail/svg_chart.hpp"

namespace gpuplan::detail {
namespace {

using svg::escape;

constexpr std::string_view kStyle = R"(
body { font-family: "DejaVu Sans", Verdana, sans-serif; font-size: 14px; color: #1a1a1a; margin: 0 auto;
       max-width: 960px; padding: 16px 24px 48px; background: #ffffff; }
h1 { font-size: 22px; margin: 8px 0; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
p.table-title { font-weight: bold; margin: 12px 0 2px; }
th, td { border: 1px solid #d0d0d0; padding: 3px 8px; text-align: left; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.fail td { background: #fde3dc; }
.verdict { font-size: 17px; font-weight: bold; padding: 8px 12px; border-radius: 4px; }
.verdict.pass { background: #dcf3e6; color: #0b5d33; } .verdict.fail { background: #fde3dc; color: #8a2a0b; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 8px 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; } dt { font-weight: bold; }
dd { margin: 0; word-break: break-all; } ul.notes li { margin: 2px 0; }
)";

std::string html_table(const Table& t) {
  const std::vector<bool> numeric = numeric_columns(t);
  const std::size_t result_column =
      static_cast<std::size_t>(std::find(t.header.begin(), t.header.end(), "result") - t.header.begin());
  // The title above the table, not a <caption>: a caption is only as wide as its table.
  std::string out = t.title.empty() ? "" : "<p class=\"table-title\">" + escape(t.title) + "</p>\n";
  out += "<table>\n";
  out += "<thead><tr>";
  for (const std::string& h : t.header) {
    out += "<th>" + escape(h) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    const bool failed = result_column < row.size() && row[result_column] == "FAIL";
    out += failed ? "<tr class=\"fail\">" : "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += (i < numeric.size() && numeric[i] ? "<td class=\"num\">" : "<td>") + escape(row[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string html_list(const std::vector<std::string>& items) {
  if (items.empty()) {
    return "";
  }
  std::string out = "<ul class=\"notes\">\n";
  for (const std::string& item : items) {
    out += "<li>" + escape(item) + "</li>\n";
  }
  return out + "</ul>\n";
}

const ExpectationResult* expectation(const DeploymentResult& d, std::string_view name) {
  const auto it = std::find_if(d.checks.begin(), d.checks.end(), [&](const ExpectationResult& r) { return r.name == name; });
  return it == d.checks.end() ? nullptr : &*it;
}

// The memory of one GPU as a stacked bar: what the planned load occupies, then what is left.
svg::StackedRow memory_row(const DeploymentResult& d, std::string label, ByteUnits units) {
  const PerGpuMemory& m = d.fit.per_gpu;
  const auto v = [&](std::string_view name, double bytes, std::string_view colour) {
    return svg::Value{.label = std::string(name), .value = bytes / (units == ByteUnits::gib ? units::kGiB : units::kGB),
                      .text = bytes_value(bytes, units), .color = std::string(colour)};
  };
  svg::StackedRow row{.label = std::move(label),
                         .segments = {v("weights", m.weights_bytes, svg::color::blue),
                                      v("activations", m.activation_bytes, svg::color::purple),
                                      v("reserve", m.reserve_bytes, svg::color::grey),
                                      v("KV cache (planned load)", m.kv_cache_bytes, svg::color::orange),
                                      v("free", m.free_bytes, svg::color::pale_green)},
                         .lines = {v("engine cap", m.engine_cap_bytes, "#333333"),
                                   v("capacity", m.capacity_bytes, svg::color::vermillion)}};
  if (m.shortfall_bytes > 0) {
    row.overflow = v("shortfall", m.shortfall_bytes, svg::color::vermillion);
  }
  return row;
}

std::string_view mode_color(std::size_t index) {
  constexpr std::string_view palette[] = {svg::color::blue, svg::color::orange, svg::color::green,
                                          svg::color::purple, svg::color::sky, svg::color::grey};
  return palette[index % std::size(palette)];
}

// A colour per "provider mode", in the order they first appear, so one mode reads alike everywhere.
struct ModeColors {
  std::vector<std::string> modes;
  std::string_view of(const std::string& mode) {
    auto it = std::find(modes.begin(), modes.end(), mode);
    if (it == modes.end()) {
      modes.push_back(mode);
      it = modes.end() - 1;
    }
    return mode_color(static_cast<std::size_t>(it - modes.begin()));
  }
};

std::string mode_name(const PricedCost& pc) { return fmt::format("{} {}", pc.price.provider, to_string(pc.price.mode)); }

std::string cost_chart(const DeploymentResult& d, ModeColors& colors) {
  svg::BarChart chart{.title = fmt::format("{}: USD per million output tokens by pricing mode", d.name),
                      .unit = "USD per million output tokens"};
  for (const PricedCost& pc : d.costs) {
    const std::string mode = mode_name(pc);
    chart.bars.push_back({.label = mode, .value = pc.cost.usd_per_million_tokens,
                          .text = usd_per_mtok_text(pc.cost.usd_per_million_tokens), .color = std::string(colors.of(mode))});
  }
  if (const ExpectationResult* budget = expectation(d, "max_usd_per_million_tokens")) {
    chart.limit = svg::Value{.label = "budget <=", .value = budget->expected, .text = usd_per_mtok_text(budget->expected)};
  }
  return svg::bar_chart(chart);
}

// Throughput and inter-token latency against the batch per replica, with the band and the
// roofline bound, the planned batch marked and the plan's target drawn.
std::string performance_charts(const DeploymentResult& d) {
  if (!d.curve || !d.perf || d.perf->rows.empty()) {
    return "";
  }
  const std::uint64_t planned = d.perf->rows.front().batch;
  const auto chart = [&](const std::vector<BandedValue>& values, double scale, std::string_view what,
                         std::string_view unit, std::string_view target_name, std::string target_label,
                         std::string_view value_format) {
    svg::LineChart c{.title = fmt::format("{}: {} against batch", d.name, what),
                     .x_label = "sequences per replica (batch, log scale)",
                     .y_label = fmt::format("{} ({})", what, unit)};
    svg::Band band{.label = "band", .color = std::string(svg::color::sky)};
    svg::Series estimate{.label = "estimate", .color = std::string(svg::color::blue)};
    svg::Series bound{.label = "roofline bound", .color = "#333333", .dashed = true};
    for (const BandedValue& v : values) {
      const double x = static_cast<double>(v.batch);
      band.x.push_back(x);
      band.low.push_back(v.low * scale);
      band.high.push_back(v.high * scale);
      estimate.points.push_back({x, v.estimate * scale});
      bound.points.push_back({x, v.bound * scale});
      if (v.batch == planned) {
        c.callout = svg::Callout{.at = {x, v.estimate * scale},
                                 .label = fmt::format("planned: {} {} at batch {}",
                                                      fmt::format(fmt::runtime(value_format), v.estimate * scale), unit,
                                                      group_digits(planned))};
      }
    }
    c.bands.push_back(band);
    c.series = {estimate, bound};
    if (const ExpectationResult* target = expectation(d, target_name)) {
      c.y_lines.push_back({.label = std::move(target_label),
                           .value = target->expected,
                           .text = fmt::format("{} {}", fmt::format(fmt::runtime(value_format), target->expected), unit)});
    }
    return svg::line_chart(c);
  };
  return chart(banded_output_tokens_per_s(*d.curve), 1.0, "output throughput", "tok/s", "min_output_tokens_per_s",
               "target >=", "{:.0f}") +
         chart(banded_itl_s(*d.curve), 1e3, "inter-token latency", "ms", "max_itl_ms", "target <=", "{:.2f}");
}

std::string assumptions(const DeploymentResult& d) {
  const FitRequest& f = d.fit.request;
  std::vector<std::string> items{
      f.engine.engine == Engine::neutral ? std::string("engine: none named (engine-neutral memory arithmetic)")
                                         : fmt::format("engine: {}", to_string(f.engine.engine)),
      fmt::format("weights {}, KV cache {}, {} tokens per sequence", to_string(f.weights_dtype), to_string(f.kv_dtype),
                  group_digits(f.context_tokens)),
      fmt::format("engine memory cap {:.0f} % of capacity, reserve {} per GPU", f.memory_utilization * 100,
                  bytes_value(f.reserve_bytes, ByteUnits::gb) + " GB")};
  if (d.perf) {
    const PerfRequest& p = d.perf->request;
    items.push_back(fmt::format("workload: {} input and {} output tokens; engine batch cap {} per replica",
                                group_digits(p.input_tokens), group_digits(p.output_tokens), group_digits(p.max_batch)));
    items.push_back(fmt::format(
        "efficiency: {:.1f} % of HBM bandwidth, {:.1f} % of dense peak ({}), {:.3f} ms per step + {:g} us per layer",
        p.efficiency.bandwidth * 100, p.efficiency.compute * 100, d.perf->compute_type,
        p.efficiency.step_overhead_s * 1e3, p.efficiency.layer_overhead_s * 1e6));
    items.push_back(fmt::format("band case: {}", band_source(d.perf->band_case, d.perf->engine_calibrated, d.perf->layout_calibrated)));
  }
  for (const PricedCost& pc : d.costs) {
    const std::string rental = rental_note(pc.cost.rental, pc.price);
    items.push_back(fmt::format("price {}: {:.2f} USD/GPU-h, dated {}{}{}{}", mode_name(pc), pc.price.usd_per_gpu_hour,
                                pc.price.date, rental.empty() ? "" : "; " + rental,
                                pc.price.sources.empty() ? "" : "; source ",
                                pc.price.sources.empty() ? "" : pc.price.sources.front()));
  }
  return "<h3>Assumptions</h3>\n" + html_list(items);
}

std::string overview(const CheckResult& result, ByteUnits units, ModeColors& colors) {
  std::string out = "<section id=\"overview\">\n<h2>Overview</h2>\n";
  svg::StackedBarChart memory{.title = "Memory per GPU at the planned load", .unit = std::string(unit_name(units))};
  svg::BarChart cost{.title = "USD per million output tokens by deployment and pricing mode",
                     .unit = "USD per million output tokens"};
  for (const DeploymentResult& d : result.deployments) {
    memory.rows.push_back(memory_row(d, d.name, units));
    for (const PricedCost& pc : d.costs) {
      const std::string mode = mode_name(pc);
      cost.bars.push_back({.label = fmt::format("{} \xC2\xB7 {}", d.name, mode), .value = pc.cost.usd_per_million_tokens,
                           .text = usd_per_mtok_text(pc.cost.usd_per_million_tokens),
                           .color = std::string(colors.of(mode))});
    }
  }
  out += svg::stacked_bar_chart(memory);
  if (!cost.bars.empty()) {
    out += svg::bar_chart(cost);
  }
  return out + "</section>\n";
}

std::string deployment_section(const DeploymentReport& r, std::size_t index, ByteUnits units, ModeColors& colors) {
  const DeploymentResult& d = *r.deployment;
  std::string out = fmt::format("<section id=\"deployment-{}\">\n<h2>{}</h2>\n<p>{}</p>\n", index + 1, escape(d.name),
                                escape(r.summary));
  out += "<h3>Memory per GPU</h3>\n";
  out += svg::stacked_bar_chart({.title = fmt::format("{}: memory per GPU ({})", d.name, d.gpu_id),
                                 .unit = std::string(unit_name(units)),
                                 .rows = {memory_row(d, d.gpu_id, units)}});
  out += html_table(r.memory);
  if (r.performance) {
    out += "<h3>Throughput and latency</h3>\n" + performance_charts(d) + html_table(*r.performance);
  }
  if (r.cost) {
    out += "<h3>Cost</h3>\n" + cost_chart(d, colors) + html_table(*r.cost);
  }
  out += html_list(r.footer);
  out += assumptions(d);
  return out + "</section>\n";
}

std::string baseline_section(const PlanDiff& diff) {
  const Document doc = diff_document(diff, false);
  std::string out = "<section id=\"baseline\">\n";
  for (std::size_t i = 0; i < doc.heading.size(); ++i) {
    out += i == 0 ? "<h2>" + escape(doc.heading[i]) + "</h2>\n" : "<p>" + escape(doc.heading[i]) + "</p>\n";
  }
  for (const Table& t : doc.tables) {
    out += html_table(t);
  }
  return out + html_list(doc.footer) + "</section>\n";
}

std::string provenance_section(const CheckResult& result, const PlanReport& report) {
  const Provenance& p = result.provenance;
  std::string out = "<section id=\"provenance\">\n<h2>Provenance</h2>\n<p>" + escape(report.provenance) + "</p>\n<dl>\n";
  const auto item = [&](std::string_view term, std::string_view value) {
    out += "<dt>" + escape(term) + "</dt><dd>" + escape(value) + "</dd>\n";
  };
  item("gpuplan version", p.gpuplan_version);
  item("catalog hash", p.catalog_hash);
  item("newest price date", p.newest_price_date);
  item("plan file", result.plan_origin);
  item("plan hash", result.plan_hash);
  return out + "</dl>\n</section>\n";
}

}  // namespace

std::string plan_html(const CheckResult& result, ByteUnits units, const PlanDiff* since_baseline) {
  const PlanReport report = plan_report(result, units);
  ModeColors colors;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<meta name=\"generator\" content=\"gpuplan {}\"/>\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
      escape(result.provenance.gpuplan_version), escape(report.title), kStyle);
  out += "<header>\n<h1>" + escape(report.title) + "</h1>\n";
  if (!report.description.empty()) {
    out += "<p>" + escape(report.description) + "</p>\n";
  }
  out += fmt::format("<p class=\"verdict {}\">{}</p>\n</header>\n", result.pass() ? "pass" : "fail",
                     escape(report.verdict));
  out += "<section id=\"verdicts\">\n<h2>Verdicts</h2>\n" + html_table(report.expectations) + "</section>\n";
  out += overview(result, units, colors);
  for (std::size_t i = 0; i < report.deployments.size(); ++i) {
    out += deployment_section(report.deployments[i], i, units, colors);
  }
  if (since_baseline != nullptr) {
    out += baseline_section(*since_baseline);
  }
  out += provenance_section(result, report);
  return out + "</body>\n</html>\n";
}

}  // namespace gpuplan::detail
