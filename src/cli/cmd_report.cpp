// gpuplan report: a plan's verdicts, memory, throughput, latency and cost as one document
// (markdown for a pull-request comment or CI job summary, html with inline SVG charts for a
// build artifact, json for the next run's --baseline).
// gpuplan diff: what changed between two runs' JSON.
#include <memory>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/render_plan_file.hpp>

#include "common.hpp"
#include "output_file.hpp"
#include "plan_evaluation.hpp"

namespace gpuplan::cli {
namespace {

PlanSnapshot read_snapshot(const std::string& path, std::string_view flag) {
  try {
    return load_plan_snapshot(path);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", flag, e.what()));
  }
}

}  // namespace

void add_report_command(CLI::App& app, Exit& exit_code) {
  struct ReportOptions {
    std::vector<std::string> catalogs;
    std::string plan;
    std::string format = "markdown";
    std::string units = "gb";
    std::string output;
    std::string baseline;
  };
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "A plan's verdicts, memory, throughput, latency and cost as a markdown, HTML or JSON document");
  sub->add_option("plan", o->plan, "Plan file (JSON, docs/plan.schema.json)")->required()->check(non_empty());
  sub->add_option("--format", o->format, "markdown (a PR comment or CI job summary), html (one file with inline SVG charts) or json (a --baseline later)")
      ->check(one_of({"markdown", "html", "json"}))
      ->capture_default_str();
  sub->add_option("--output", o->output, "Write to FILE (atomically: a temporary file, then a rename) instead of stdout (-)")
      ->check(non_empty());
  sub->add_option("--baseline", o->baseline, "A previous run's JSON (report or check --format json): add what changed")
      ->check(non_empty());
  sub->add_option("--units", o->units, "Byte units: gb (1e9) or gib (2^30)")
      ->check(one_of({"gb", "gib"}))
      ->capture_default_str();
  sub->add_option("--catalog", o->catalogs, "Extra catalog file (repeatable); entries override built-in ids")
      ->check(non_empty())
      ->allow_extra_args(false);  // one file a --catalog: a following word is the next argument
  sub->callback([o, &exit_code] {
    CommonOptions common{.catalogs = o->catalogs, .format = "table", .units = o->units};
    // "-" is stdout, as for batch's input; any other output may not be one of the inputs.
    const bool to_stdout = o->output.empty() || o->output == "-";
    if (!to_stdout) {
      check_output_path(o->output, "--output");  // before the work, as the other checks here
      refuse_output_onto_input(o->output, o->plan, "--output", "the plan file being reported");
      if (!o->baseline.empty()) {
        refuse_output_onto_input(o->output, o->baseline, "--output", "the --baseline file");
      }
    }
    // The baseline is read first: a bad one fails before any work.
    std::optional<PlanSnapshot> baseline;
    if (!o->baseline.empty()) {
      baseline = read_snapshot(o->baseline, "--baseline");
    }
    const Catalog catalog = load_catalog(common);
    const CheckResult result = check_plan_file(catalog, o->plan);
    const ReportFormat format = parse_report_format(o->format, "--format");
    const ByteUnits units = parse_byte_units(o->units, "--units");
    std::string text;
    if (baseline) {
      // The run is compared as its JSON reads back, so a baseline file and this run are alike.
      const PlanSnapshot now = parse_plan_snapshot(render_report(result, ReportFormat::json, units), o->plan);
      text = render_report(result, diff_plans(*baseline, now), format, units);
    } else {
      text = render_report(result, format, units);
    }
    if (to_stdout) {
      fmt::print("{}", text);
    } else {
      write_file_atomically(o->output, text, "--output");
    }
    exit_code = Exit::ok;  // a report describes; `gpuplan check` gates
  });
}

void add_diff_command(CLI::App& app, Exit& exit_code) {
  struct DiffOptions {
    std::string old_path;
    std::string new_path;
    std::string format = "table";
    bool check = false;
  };
  auto o = std::make_shared<DiffOptions>();
  CLI::App* sub = app.add_subcommand(
      "diff", "What changed between two runs of a plan (report or check --format json): verdict flips, then figures");
  sub->add_option("old", o->old_path, "The earlier run's JSON")->required()->check(non_empty());
  sub->add_option("new", o->new_path, "The later run's JSON")->required()->check(non_empty());
  sub->add_option("--format", o->format, "Output format")
      ->check(one_of({"table", "json", "markdown"}))
      ->capture_default_str();
  sub->add_flag("--check", o->check, "Exit with code 1 when a verdict or an expectation went from pass to FAIL");
  sub->callback([o, &exit_code] {
    const PlanSnapshot old_run = read_snapshot(o->old_path, "old");
    const PlanSnapshot new_run = read_snapshot(o->new_path, "new");
    const PlanDiff diff = diff_plans(old_run, new_run);
    fmt::print("{}", render_plan_diff(diff, RenderOptions{.format = parse_format(o->format, "--format")}));
    exit_code = o->check && diff.regressed() ? Exit::check_failed : Exit::ok;
  });
}

}  // namespace gpuplan::cli
