#pragma once
// A plan file's deployments resolved the way their flags would be (the settings carry the
// flags' names) and evaluated: shared by `check` and `report`.

#include <filesystem>

#include <gpuplan/catalog.hpp>
#include <gpuplan/plan_check.hpp>
#include <gpuplan/plan_file.hpp>

namespace gpuplan::cli {

/// Loads the plan and evaluates every deployment. Errors name the plan file and the JSON
/// pointer of the setting ("plan.json: /deployments/0/tp: ...").
CheckResult check_plan_file(const Catalog& catalog, const std::filesystem::path& path);
/// The same for a plan already parsed (the plan-file fuzzer parses from memory).
CheckResult check_plan(const Catalog& catalog, const PlanFile& plan);

}  // namespace gpuplan::cli
