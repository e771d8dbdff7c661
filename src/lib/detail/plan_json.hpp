#pragma once
// The JSON document of a checked plan: `check --format json`, `report --format json`, and what
// `diff` and `report --baseline` read back.

#include <string>
#include <string_view>

#include <gpuplan/plan_check.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/render.hpp>

#include "detail/json_output.hpp"

namespace gpuplan::detail {

OrderedJson plan_json(const CheckResult& result, std::string_view command);
/// A diff's causes, flips and changes (without the envelope).
OrderedJson diff_json(const PlanDiff& diff);

}  // namespace gpuplan::detail
