#pragma once
// The self-contained HTML plan report: the markdown report's tables with inline SVG charts,
// no scripts, no external resources.

#include <string>

#include <gpuplan/plan_check.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/render.hpp>

namespace gpuplan::detail {

/// `since_baseline`, when given, adds what changed since that run.
std::string plan_html(const CheckResult& result, ByteUnits units, const PlanDiff* since_baseline);

}  // namespace gpuplan::detail
