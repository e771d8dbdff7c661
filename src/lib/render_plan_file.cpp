#include <gpuplan/render_plan_file.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/perf_curve.hpp>
#include <gpuplan/serving_share.hpp>
#include <gpuplan/units.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"
#include "detail/plan_html.hpp"
#include "detail/plan_json.hpp"
#include "detail/plan_report.hpp"

namespace gpuplan {
namespace {

using detail::checked;
using detail::DeploymentReport;
using detail::Document;
using detail::PlanReport;
using detail::OrderedJson;
using detail::Table;
using detail::usd_per_mtok_text;

std::string shown(const ExpectationResult& r, double value) {
  if (r.name == "fits") {
    return value > 0.5 ? "yes" : "no";
  }
  if (r.name == "min_concurrent_sequences") {
    return detail::group_digits(static_cast<std::uint64_t>(value));
  }
  return r.unit == "tok/s" || r.unit == "USD/month" ? fmt::format("{:.0f}", checked(value, r.name))
                                                    : fmt::format("{:.2f}", checked(value, r.name));
}

std::string expected_text(const ExpectationResult& r) {
  if (r.name == "fits") {
    return shown(r, r.expected);
  }
  return fmt::format("{} {}", r.name.starts_with("max_") ? "<=" : ">=", shown(r, r.expected));
}

std::string got_text(const ExpectationResult& r) { return r.evaluated ? shown(r, r.got) : "-"; }

std::string verdict_line(const CheckResult& c) {
  const std::size_t n = c.expectations();
  const std::size_t failed = c.failed();
  return fmt::format("{}: {} of {} expectations hold over {} deployment{}{}", c.pass() ? "PASS" : "FAIL", n - failed, n,
                     c.deployments.size(), c.deployments.size() == 1 ? "" : "s",
                     failed == 0 ? "" : fmt::format(", {} failed", failed));
}

Table expectations_table(const CheckResult& c) {
  Table t{.title = "expectations",
          .header = {"deployment", "result", "expectation", "expected", "got", "unit", "pricing", "reason"}};
  for (const DeploymentResult& d : c.deployments) {
    if (d.checks.empty()) {
      t.rows.push_back({d.name, "-", "(none)", "-", "-", "", "", d.runs ? "" : std::string(reason::does_not_fit)});
    }
    for (const ExpectationResult& r : d.checks) {
      t.rows.push_back({d.name, r.pass ? "pass" : "FAIL", r.implied ? r.name + " (implied)" : r.name, expected_text(r),
                        got_text(r), r.unit,
                        r.context.empty() ? "-" : r.context, r.reason.empty() ? "-" : r.reason});
    }
  }
  return t;
}

std::string layout_text(const FitResult& f) {
  const Layout& l = f.request.layout;
  return fmt::format("{} x {}{}, {}", l.gpus(), f.gpu_id,
                     f.request.mig_profile.empty() ? std::string() : " MIG " + f.request.mig_profile, layout_label(l));
}

std::string load_text(const DeploymentResult& d) {
  if (!d.runs) {
    const std::optional<std::string> start = engine_start_problem(d.fit);
    return start ? fmt::format("not served ({})", *start) : std::string("not served (one sequence does not fit)");
  }
  if (d.load.full_load()) {
    return fmt::format("full load, batch {} per replica (the most memory and the engine allow)", d.load.batch);
  }
  if (d.load.target_output_tokens_per_s) {
    const std::uint64_t sequences = d.load.batch * d.fit.request.layout.dp;
    return fmt::format("target {} output tok/s: {} concurrent sequences, batch {} per replica{}",
                       detail::group_digits(static_cast<std::uint64_t>(std::ceil(*d.load.target_output_tokens_per_s))),
                       detail::group_digits(sequences), d.load.batch,
                       d.load.capped ? " (capped: full load falls short of the target)" : "");
  }
  return fmt::format("{} concurrent sequences, batch {} per replica{}", *d.load.concurrency, d.load.batch,
                     d.load.capped ? " (capped: more than memory allows)" : "");
}

std::string summary_text(const DeploymentResult& d) {
  return fmt::format("{} on {}; {}", d.model_id, layout_text(d.fit), load_text(d));
}

std::string provenance_line(const CheckResult& c) {
  return fmt::format("gpuplan {}, catalog {}, newest price {}, plan {} ({})", c.provenance.gpuplan_version,
                     c.provenance.catalog_hash, c.provenance.newest_price_date, c.plan_origin, c.plan_hash);
}

// What whole instances add to a deployment's bill: a line per price that pays for idle GPUs or
// has no instance that holds the replica.
std::vector<std::string> rental_lines(const DeploymentResult& d) {
  std::vector<std::string> out;
  for (const PricedCost& pc : d.costs) {
    if (pc.cost.rental.group_split || pc.cost.rental.idle_gpus() > 0) {
      out.push_back(fmt::format("{}: {} {} {}", d.name, pc.price.provider, offer_label(pc.price.mode, pc.price.term),
                                rental_note(pc.cost.rental, pc.price)));
    }
  }
  return out;
}

DeploymentReport report_deployment(const DeploymentResult& d, ByteUnits units) {
  DeploymentReport r{.deployment = &d, .summary = summary_text(d)};
  const std::string u(detail::unit_name(units));
  const PerGpuMemory& m = d.fit.per_gpu;
  const auto b = [&](double bytes) { return detail::bytes_value(bytes, units); };
  r.memory = Table{.title = fmt::format("{}: memory per GPU ({}, {} on {}, {} tokens per sequence)", d.name, u,
                                        d.model_id, layout_text(d.fit), detail::group_digits(d.fit.request.context_tokens)),
                   .header = {"part", u}};
  r.memory.rows = {{"weights", b(m.weights_bytes)},
                   {"activations", b(m.activation_bytes)},
                   {"reserve", b(m.reserve_bytes)},
                   {"KV cache (planned load)", b(m.kv_cache_bytes)},
                   {"free", b(m.free_bytes)},
                   {"engine cap", b(m.engine_cap_bytes)},
                   {"capacity", b(m.capacity_bytes)}};
  if (m.shortfall_bytes > 0) {
    r.memory.rows.push_back({"shortfall", b(m.shortfall_bytes)});
  }
  r.memory.rows.push_back({"max concurrent sequences (deployment)",
                           d.fit.max_concurrent_sequences ? detail::group_digits(*d.fit.max_concurrent_sequences) : "-"});
  if (d.perf && !d.perf->rows.empty()) {
    const PerfPoint& p = d.perf->rows.front();
    const PerfPoint& bound = d.perf->roofline.front();
    const BandedValue tps = banded_output_tokens_per_s(*d.perf).front();
    const BandedValue itl = banded_itl_s(*d.perf).front();
    const BandedValue ttft = banded_ttft_s(*d.perf).front();
    Table perf{.title = fmt::format("{}: throughput and latency at {}", d.name, load_text(d)),
               .header = {"figure", "estimate", "band low", "band high", "roofline bound"}};
    const auto tok = [](double v) { return fmt::format("{:.0f}", checked(v, "tok/s")); };
    const auto ms = [](double s) { return fmt::format("{:.2f}", checked(s * 1e3, "ms")); };
    perf.rows = {{"output tok/s (deployment)", tok(tps.estimate), tok(tps.low), tok(tps.high), tok(tps.bound)},
                 {"ITL ms", ms(itl.estimate), ms(itl.low), ms(itl.high), ms(itl.bound)},
                 // No band: it was fitted on throughput, and prefill under load is not what it measured.
                 {"TTFT ms", ms(ttft.estimate), "-", "-", ms(ttft.bound)},
                 {"TTFT alone ms", ms(p.ttft_alone_s), "-", "-", ms(bound.ttft_alone_s)},
                 {"tok/s per user", fmt::format("{:.1f}", p.tokens_per_s_per_user), "-", "-",
                  fmt::format("{:.1f}", bound.tokens_per_s_per_user)}};
    r.performance = perf;
    r.footer.push_back(fmt::format("{}: the largest term of a decode step at batch {} is {} of it; band {} ({:+.0f} % .. "
                                   "{:+.0f} %, on throughput and ITL; TTFT has none)", d.name, p.batch,
                                   bound_text(p.decode), band_source(d.perf->band_case, d.perf->engine_calibrated, d.perf->layout_calibrated),
                                   (d.perf->band_low - 1) * 100, (d.perf->band_high - 1) * 100));
    r.footer.push_back(fmt::format(
        "{}: TTFT is the mean {}", d.name,
        d.perf->request.arrivals == Arrivals::poisson
            ? "for prompts arriving at random at the target rate, each waiting for the prefills ahead of it (a "
              "steady load; a burst of the batch's prompts at once waits longer)"
            : "when the batch's prompts arrive together, as a benchmark at that concurrency sends them (traffic "
              "spread out waits less)"));
  }
  if (!d.costs.empty()) {
    Table cost{.title = fmt::format("{}: cost per mode", d.name),
               .header = {"provider", "mode", "USD/GPU-h", "date", "price age", "USD/h", "USD/month", "USD/Mtok", "M tok/USD"}};
    for (const PricedCost& pc : d.costs) {
      cost.rows.push_back({pc.price.provider, offer_label(pc.price.mode, pc.price.term),
                           fmt::format("{:.2f}", pc.price.usd_per_gpu_hour), pc.price.date, price_age_label(pc.price),
                           fmt::format("{:.2f}", checked(pc.cost.usd_per_hour(), "usd/h")),
                           fmt::format("{:.0f}", pc.cost.usd_per_hour() * kHoursPerMonth),
                           usd_per_mtok_text(pc.cost.usd_per_million_tokens),
                           fmt::format("{:.2f}", pc.cost.tokens_per_usd / 1e6)});
    }
    r.cost = cost;
    const std::vector<std::string> rentals = rental_lines(d);
    r.footer.insert(r.footer.end(), rentals.begin(), rentals.end());
  }
  for (const std::string& n : d.notes) {
    r.footer.push_back(fmt::format("{}: {}", d.name, n));
  }
  return r;
}

}  // namespace

namespace detail {

std::string usd_per_mtok_text(double usd) { return fmt::format("{:.4f}", checked(usd, "usd/mtok")); }

PlanReport plan_report(const CheckResult& result, ByteUnits units) {
  PlanReport r{.title = fmt::format("gpuplan report: {}", result.plan_origin),
               .description = result.description,
               .verdict = verdict_line(result),
               .expectations = expectations_table(result),
               .provenance = provenance_line(result)};
  for (const DeploymentResult& d : result.deployments) {
    r.deployments.push_back(report_deployment(d, units));
  }
  return r;
}

}  // namespace detail

ReportFormat parse_report_format(std::string_view text, std::string_view field) {
  if (text == "markdown" || text == "md") {
    return ReportFormat::markdown;
  }
  if (text == "html") {
    return ReportFormat::html;
  }
  if (text == "json") {
    return ReportFormat::json;
  }
  throw InputError(fmt::format("{}: expected markdown, html or json, got '{}'", field, text));
}

std::string render_check(const CheckResult& result, const RenderOptions& options) {
  if (options.format == Format::json) {
    return detail::dump_json(detail::plan_json(result, "check"));
  }
  Document doc;
  // Markdown headings are written as they are: the user's text in them is escaped here.
  const auto text = [&options](std::string t) {
    return options.format == Format::markdown ? detail::md_text(t, true) : t;
  };
  doc.heading.push_back(text(fmt::format("plan {}{}", result.plan_origin,
                                         result.description.empty() ? "" : ": " + result.description)));
  doc.heading.push_back(text(verdict_line(result)));
  doc.tables.push_back(expectations_table(result));
  for (const DeploymentResult& d : result.deployments) {
    doc.footer.push_back(fmt::format("{}: {}", d.name, summary_text(d)));
    const std::vector<std::string> rentals = rental_lines(d);
    doc.footer.insert(doc.footer.end(), rentals.begin(), rentals.end());
    // The shares the estimate carries (attention DP, AMD, Gaudi): the verdicts above rest on them.
    for (const std::string& n : d.notes) {
      if (n == attention_dp_note() || n == rocm_serving_note() || n == habana_serving_note()) {
        doc.footer.push_back(text(fmt::format("{}: {}", d.name, n)));
      }
    }
  }
  doc.footer.push_back(provenance_line(result));
  return detail::render_document(doc, options.format);
}

std::string render_report(const CheckResult& result, ReportFormat format, ByteUnits units) {
  if (format == ReportFormat::json) {
    return detail::dump_json(detail::plan_json(result, "report"));
  }
  if (format == ReportFormat::html) {
    return detail::plan_html(result, units, nullptr);
  }
  const PlanReport report = detail::plan_report(result, units);
  Document doc;
  // Headings are markdown as written: the plan's own text in them (file name, description)
  // is escaped, as the cells and footers are.
  doc.heading.push_back("# " + detail::md_text(report.title, false));
  if (!report.description.empty()) {
    doc.heading.push_back(detail::md_text(report.description, true));
  }
  doc.heading.push_back(fmt::format("**{}**", detail::md_text(report.verdict, false)));
  doc.tables.push_back(report.expectations);
  for (const DeploymentReport& d : report.deployments) {
    doc.tables.push_back(d.memory);
    if (d.performance) {
      doc.tables.push_back(*d.performance);
    }
    if (d.cost) {
      doc.tables.push_back(*d.cost);
    }
    doc.footer.insert(doc.footer.end(), d.footer.begin(), d.footer.end());
  }
  doc.footer.push_back("Provenance: " + report.provenance);
  return detail::render_document(doc, Format::markdown);
}

}  // namespace gpuplan

namespace gpuplan {

std::string render_report(const CheckResult& result, const PlanDiff& since_baseline, ReportFormat format,
                          ByteUnits units) {
  if (format == ReportFormat::json) {
    detail::OrderedJson j = detail::plan_json(result, "report");
    j["baseline_diff"] = detail::diff_json(since_baseline);
    return detail::dump_json(j);
  }
  if (format == ReportFormat::html) {
    return detail::plan_html(result, units, &since_baseline);
  }
  return render_report(result, format, units) + "\n" +
         render_plan_diff(since_baseline, RenderOptions{.format = Format::markdown, .units = units});
}

}  // namespace gpuplan
