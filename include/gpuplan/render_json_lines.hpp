#pragma once
// fit's and perf's JSON documents for JSON Lines (`gpuplan batch`), written on one line as they
// are produced: the same text as render_json_line() of the indented document, without printing
// it indented first and compacting it after (batch answers 100,000 requests a second).

#include <string>

#include <gpuplan/fit_report.hpp>
#include <gpuplan/perf.hpp>

namespace gpuplan {

/// render_json_line(render_fit(report, {.format = Format::json})).
std::string render_json_line(const FitReport& report);
/// render_json_line(render_perf(result, {.format = Format::json})).
std::string render_json_line(const PerfResult& result);

}  // namespace gpuplan
