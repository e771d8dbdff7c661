#pragma once
// Renderers for plan files: `gpuplan check` (one line per expectation) and `gpuplan report`
// (verdicts, then per deployment memory, throughput and latency, cost, provenance).

#include <string>

#include <gpuplan/plan_check.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/render.hpp>

namespace gpuplan {

/// table, csv, markdown: one row per expectation; json: the plan document (`results[]` with
/// `checks[]` and `reasons[]`, memory, performance and costs per deployment).
std::string render_check(const CheckResult& result, const RenderOptions& options);

enum class ReportFormat { markdown, html, json };
/// Parses "markdown", "html" or "json"; others throw InputError naming `field`.
ReportFormat parse_report_format(std::string_view text, std::string_view field);

/// The plan report: verdicts first, then per deployment the memory breakdown, throughput and
/// latency at the planned load with band and bound, cost per mode, and provenance. json is the
/// document `check --format json` prints, with "command": "report".
std::string render_report(const CheckResult& result, ReportFormat format, ByteUnits units);
/// The report followed by what changed since a baseline run (json: a `baseline_diff` object).
std::string render_report(const CheckResult& result, const PlanDiff& since_baseline, ReportFormat format,
                          ByteUnits units);

}  // namespace gpuplan
