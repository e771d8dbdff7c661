// A plan file (`gpuplan check`, `gpuplan report`): parsed from memory, its deployments resolved
// through the flags' own CLI11 definitions and evaluated, the result rendered as JSON. Relative
// model-config paths resolve against examples/plans/ (the seeds' directory). A CLI11 error
// escaping (instead of an InputError naming the setting) is a finding.
#include <cstddef>
#include <cstdint>

#include <gpuplan/catalog.hpp>
#include <gpuplan/plan_file.hpp>
#include <gpuplan/render_plan_file.hpp>

#include "fuzz_support.hpp"
#include "plan_evaluation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  gpuplan::fuzz::expect_input_errors_only([&] {
    const gpuplan::PlanFile plan =
        gpuplan::parse_plan_file(gpuplan::fuzz::text_of(data, size), "plan.json", GPUPLAN_PLAN_BASE_DIR);
    if (plan.deployments.size() > 4) {
      return;  // parsed is enough: evaluating many costs executions, not coverage
    }
    const gpuplan::CheckResult result = gpuplan::cli::check_plan(catalog, plan);
    for (const gpuplan::DeploymentResult& d : result.deployments) {
      for (const gpuplan::ExpectationResult& e : d.checks) {
        gpuplan::fuzz::require_figure(e.got, "expectation got");
      }
    }
    // The renderer too must take whatever the plan led to (its text quotes the plan's strings).
    (void)gpuplan::render_check(result, {.format = gpuplan::Format::json});
  });
  return 0;
}
