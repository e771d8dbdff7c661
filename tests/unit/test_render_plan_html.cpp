// The HTML plan report: well-formed, self-contained (no scripts, no fetches), every user text
// escaped, the charts carry the report's own figures, and it says everything the markdown says.
#include <algorithm>
#include <cctype>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/perf_curve.hpp>
#include <gpuplan/plan_check.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/provenance.hpp>
#include <gpuplan/render_plan_file.hpp>

#include "detail/svg_chart.hpp"

namespace {

using namespace gpuplan;

// A user's config can name a model anything: these must come out as text, never as markup.
const std::string kEvilModel = "<script>alert('model')</script>";
const std::string kEvilName = "h100 & \"friends\" <b>";

DeploymentQuestion question(const std::string& name, std::string_view gpu, std::uint64_t tp, double usd_per_gpu_hour) {
  const Catalog& catalog = Catalog::builtin();
  DeploymentQuestion q{.name = name, .origin = "plan.json", .expect_pointer = "/deployments/0/expect",
                       .model = catalog.model("llama-2-70b"), .gpu = &catalog.gpu(gpu)};
  q.model.id = kEvilModel;
  q.perf.fit.layout = Layout{.tp = tp, .dp = 8 / tp};
  q.perf.fit.weights_dtype = DType::fp8;
  q.perf.fit.kv_dtype = DType::fp8;
  q.perf.input_tokens = 1024;
  q.perf.output_tokens = 256;
  q.layout_given = true;
  q.gpus = 8;
  q.concurrency = 256;
  q.prices = {Price{.provider = "acme<cloud>", .gpu = std::string(gpu), .mode = PricingMode::on_demand,
                    .usd_per_gpu_hour = usd_per_gpu_hour, .date = "2026-04-01"},
              Price{.provider = "acme<cloud>", .gpu = std::string(gpu), .mode = PricingMode::reserved,
                    .usd_per_gpu_hour = usd_per_gpu_hour * 0.6, .date = "2026-04-01"}};
  q.expect.fits = true;
  q.expect.max_usd_per_million_tokens = 1.5;
  q.expect.max_itl_ms = 15;  // fails at 256 sequences (17 to 19 ms): a FAIL row in the verdicts
  q.expect.min_output_tokens_per_s = 1000;
  return q;
}

CheckResult plan(double h200_price = 3.5) {
  CheckResult r{.plan_origin = "plans/<evil>.json", .plan_hash = "fnv1a64:0123456789abcdef",
                .description = "H100 or H200 & why", .provenance = builtin_provenance()};
  r.deployments.push_back(evaluate_deployment(Catalog::builtin(), question(kEvilName, "h100-sxm", 2, 2.5)));
  r.deployments.push_back(evaluate_deployment(Catalog::builtin(), question("h200-node", "h200-sxm", 1, h200_price)));
  return r;
}

std::string html_escaped(std::string_view text) { return detail::svg::escape(text); }

// Every element is closed in order (the report is written as XML-well-formed HTML), and every
// '&' starts an entity. Returns the first problem, or "" when there is none.
std::string well_formed(const std::string& html) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '&') {
      const std::size_t end = html.find(';', i);
      const std::string entity = html.substr(i, end == std::string::npos ? 8 : end - i + 1);
      if (!std::regex_match(entity, std::regex("&(amp|lt|gt|quot|#39);"))) {
        return "bad entity at " + std::to_string(i) + ": " + entity;
      }
      continue;
    }
    if (html[i] != '<') {
      continue;
    }
    const std::size_t end = html.find('>', i);
    if (end == std::string::npos) {
      return "unclosed tag at " + std::to_string(i);
    }
    const std::string tag = html.substr(i + 1, end - i - 1);
    i = end;
    if (tag.starts_with("!DOCTYPE")) {
      continue;
    }
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) {
        return "</" + tag.substr(1) + "> closes <" + (open.empty() ? "nothing" : open.back()) + ">";
      }
      open.pop_back();
    } else if (!tag.ends_with("/")) {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// What a markdown report says, as plain text: headings, bold lines, table cells, list items.
/// Markdown's backslash escapes undone ("\\<b>" is "<b>"): the text the reader sees.
std::string md_unescaped_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && std::ispunct(static_cast<unsigned char>(text[i + 1])) != 0) {
      ++i;
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> markdown_texts(const std::string& markdown) {
  std::vector<std::string> texts;
  std::size_t start = 0;
  while (start < markdown.size()) {
    std::size_t end = markdown.find('\n', start);
    if (end == std::string::npos) {
      end = markdown.size();
    }
    std::string line = markdown.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.starts_with("| ---") || line.starts_with("| --")) {
      continue;
    }
    if (line.starts_with("|")) {
      std::string cell;
      for (std::size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && std::ispunct(static_cast<unsigned char>(line[i + 1])) != 0) {
          cell += line[i + 1];  // an escaped '|', '<', '*', ... is that character
          ++i;
        } else if (line[i] == '|') {
          texts.push_back(cell.substr(1, cell.size() - 2));  // "| a |": drop the padding spaces
          cell.clear();
        } else {
          cell += line[i];
        }
      }
      continue;
    }
    for (const std::string_view prefix : {"## ", "# ", "- Provenance: ", "- ", "**"}) {
      if (line.starts_with(prefix)) {
        line = line.substr(prefix.size());
        break;
      }
    }
    if (line.ends_with("**")) {
      line = line.substr(0, line.size() - 2);
    }
    texts.push_back(md_unescaped_text(line));
  }
  return texts;
}

}  // namespace

TEST_CASE("html report: well-formed, with the expected sections and charts", "[html]") {
  const CheckResult r = plan();
  const std::string html = render_report(r, ReportFormat::html, ByteUnits::gb);
  REQUIRE(html.starts_with("<!DOCTYPE html>\n"));
  INFO(well_formed(html));
  REQUIRE(well_formed(html).empty());
  // Verdicts come first, then the overview, the deployments and the provenance.
  const std::size_t verdicts = html.find("<section id=\"verdicts\">");
  REQUIRE(verdicts != std::string::npos);
  REQUIRE(verdicts < html.find("<section id=\"overview\">"));
  REQUIRE(html.find("<section id=\"overview\">") < html.find("<section id=\"deployment-1\">"));
  REQUIRE(html.find("<section id=\"deployment-2\">") < html.find("<section id=\"provenance\">"));
  // Overview: memory and $/Mtok; each deployment: memory, throughput, ITL and $/Mtok.
  CHECK(count(html, "<svg ") == 2 + 2 * 4);
  CHECK(count(html, "<svg ") == count(html, "</svg>"));
  CHECK(html.find("<p class=\"verdict fail\">FAIL: ") != std::string::npos);
  REQUIRE(r.failed() > 0);  // max_itl_ms 15 at 256 sequences
  CHECK(count(html, "<tr class=\"fail\">") == r.failed());
}

TEST_CASE("html report: self-contained, nothing a browser would run or fetch", "[html]") {
  const std::string html = render_report(plan(), ReportFormat::html, ByteUnits::gb);
  for (const std::string_view banned : {"<script", "<link", "<img", "<iframe", "<object", "<embed", "src=", "href=",
                                        "url(", "@import", "http://", "https://", "javascript:", " on"}) {
    INFO(banned);
    if (banned == " on") {
      // No event-handler attributes (onload=, onclick=, ...).
      CHECK_FALSE(std::regex_search(html, std::regex(" on[a-z]+=\"")));
    } else {
      CHECK(html.find(banned) == std::string::npos);
    }
  }
  CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  CHECK_FALSE(std::regex_search(html, std::regex("\\b(nan|inf)\\b", std::regex::icase)));
}

TEST_CASE("html report: model and deployment names from user files are escaped", "[html]") {
  const std::string html = render_report(plan(), ReportFormat::html, ByteUnits::gb);
  CHECK(html.find(kEvilModel) == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&#39;model&#39;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find(kEvilName) == std::string::npos);
  CHECK(html.find("h100 &amp; &quot;friends&quot; &lt;b&gt;") != std::string::npos);
  CHECK(html.find("plans/&lt;evil&gt;.json") != std::string::npos);
  CHECK(html.find("acme&lt;cloud&gt; on-demand") != std::string::npos);
}

TEST_CASE("html report: the charts carry the report's own figures", "[html]") {
  const CheckResult r = plan();
  const std::string html = render_report(r, ReportFormat::html, ByteUnits::gb);
  const auto json = nlohmann::json::parse(render_report(r, ReportFormat::json, ByteUnits::gb));
  for (const auto& d : json["results"]) {
    const auto& perf = d["performance"];
    INFO(d["deployment"].get<std::string>());
    // The planned point on the throughput and ITL charts.
    CHECK(html.find(fmt::format("planned: {:.0f} tok/s at batch {}", perf["output_tokens_per_s"].get<double>(),
                                perf["batch_per_replica"].get<int>())) != std::string::npos);
    CHECK(html.find(fmt::format("planned: {:.2f} ms at batch", perf["itl_ms"].get<double>())) != std::string::npos);
    // Each $/Mtok bar's value text, and the memory bar's weights segment.
    for (const auto& c : d["costs"]) {
      CHECK(html.find(fmt::format("font-weight=\"bold\">{:.4f}</text>", c["usd_per_million_tokens"].get<double>())) !=
            std::string::npos);
    }
    CHECK(html.find(fmt::format("weights {:.2f}, activations",
                                d["memory"]["per_gpu"]["weights_bytes"].get<double>() / 1e9)) != std::string::npos);
  }
  // The plan's targets are drawn as lines.
  CHECK(html.find(">target &lt;= 15.00 ms</text>") != std::string::npos);
  CHECK(html.find(">target &gt;= 1000 tok/s</text>") != std::string::npos);
  CHECK(html.find(">budget &lt;= 1.5000</text>") != std::string::npos);
  // GiB changes the memory figures and the unit with them.
  const std::string gib = render_report(r, ReportFormat::html, ByteUnits::gib);
  CHECK(gib.find("font-size=\"11\" fill=\"#333333\">weights ") != std::string::npos);
  CHECK(gib.find("(GiB)</text>") != std::string::npos);
  CHECK(html.find("(GB)</text>") != std::string::npos);
}

TEST_CASE("html report: says everything the markdown report says, with a baseline too", "[html]") {
  const CheckResult old_run = plan(2.0);
  const CheckResult new_run = plan();
  const PlanSnapshot before = parse_plan_snapshot(render_report(old_run, ReportFormat::json, ByteUnits::gb), "old.json");
  const PlanSnapshot after = parse_plan_snapshot(render_report(new_run, ReportFormat::json, ByteUnits::gb), "new.json");
  const PlanDiff diff = diff_plans(before, after);
  REQUIRE_FALSE(diff.changes.empty());
  for (const bool with_baseline : {false, true}) {
    const std::string markdown = with_baseline ? render_report(new_run, diff, ReportFormat::markdown, ByteUnits::gb)
                                               : render_report(new_run, ReportFormat::markdown, ByteUnits::gb);
    const std::string html = with_baseline ? render_report(new_run, diff, ReportFormat::html, ByteUnits::gb)
                                           : render_report(new_run, ReportFormat::html, ByteUnits::gb);
    const std::vector<std::string> texts = markdown_texts(markdown);
    REQUIRE(texts.size() > 60);
    for (const std::string& text : texts) {
      INFO(text);
      CHECK(html.find(html_escaped(text)) != std::string::npos);
    }
    CHECK((html.find("<section id=\"baseline\">") != std::string::npos) == with_baseline);
  }
}

TEST_CASE("svg charts: escape, refuse NaN, and draw a one-point line", "[html]") {
  namespace svg = detail::svg;
  CHECK(svg::escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  svg::BarChart bars{.title = "t", .unit = "u", .bars = {{.label = "x", .value = std::nan(""), .text = "?", .color = "#000"}}};
  CHECK_THROWS_AS(svg::bar_chart(bars), std::logic_error);
  svg::LineChart line{.title = "one <point>", .x_label = "batch", .y_label = "tok/s",
                      .series = {{.label = "estimate", .points = {{1, 10}}, .color = "#000"}}};
  const std::string out = svg::line_chart(line);
  CHECK(well_formed(out).empty());
  CHECK(out.find("<title>one &lt;point&gt;</title>") != std::string::npos);
  CHECK(out.find(">1</text>") != std::string::npos);  // the batch-1 tick
}

TEST_CASE("perf curve: batches double up to full load and include the planned one", "[html]") {
  CHECK(curve_batches(100, 48) == std::vector<std::uint64_t>{1, 2, 4, 8, 16, 32, 48, 64, 100});
  CHECK(curve_batches(64, 64) == std::vector<std::uint64_t>{1, 2, 4, 8, 16, 32, 64});
  CHECK(curve_batches(1, 5) == std::vector<std::uint64_t>{1});
  const CheckResult r = plan();
  const PerfResult& curve = *r.deployments.front().curve;
  REQUIRE(curve.rows.size() >= 5);
  const auto tps = banded_output_tokens_per_s(curve);
  const auto itl = banded_itl_s(curve);
  for (std::size_t i = 0; i < tps.size(); ++i) {
    INFO(tps[i].batch);
    CHECK(tps[i].low <= tps[i].estimate);
    CHECK(tps[i].high <= tps[i].bound);
    CHECK(itl[i].low >= itl[i].bound);
    CHECK(itl[i].high >= itl[i].estimate);
    if (i > 0) {
      CHECK(tps[i].estimate > tps[i - 1].estimate);  // more sequences, more tokens per second
    }
  }
}

TEST_CASE("html report: a deployment that does not fit shows its shortfall and no performance", "[html]") {
  DeploymentQuestion q = question("too-big", "l40s", 1, 1.0);
  q.perf.fit.weights_dtype = DType::bf16;  // 140 GB of weights on a 48 GB GPU
  CheckResult r{.plan_origin = "p.json", .plan_hash = "fnv1a64:0", .provenance = builtin_provenance()};
  r.deployments.push_back(evaluate_deployment(Catalog::builtin(), q));
  REQUIRE_FALSE(r.deployments.front().runs);
  const std::string html = render_report(r, ReportFormat::html, ByteUnits::gb);
  INFO(well_formed(html));
  REQUIRE(well_formed(html).empty());
  CHECK(count(html, "<svg ") == 2);  // memory in the overview and in the deployment; nothing priced
  CHECK(html.find("against batch") == std::string::npos);
  CHECK(count(html, "stroke-width=\"2\"><title>shortfall: ") == 2);
  CHECK(html.find("not served (one sequence does not fit)") != std::string::npos);
}
