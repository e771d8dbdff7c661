// gpuplan check: every deployment of a plan file against its expectations; exit 1 when any fails.
#include <memory>

#include <fmt/format.h>

#include <gpuplan/render_plan_file.hpp>

#include "common.hpp"
#include "plan_evaluation.hpp"

namespace gpuplan::cli {

void add_check_command(CLI::App& app, Exit& exit_code) {
  struct CheckOptions {
    CommonOptions common;
    std::string plan;
  };
  auto o = std::make_shared<CheckOptions>();
  CLI::App* sub = app.add_subcommand(
      "check", "Check a plan file's deployments against their expectations (exit 1 when any fails)");
  sub->add_option("plan", o->plan, "Plan file (JSON, docs/plan.schema.json)")->required()->check(non_empty());
  add_common_options(*sub, o->common);
  sub->callback([o, &exit_code] {
    const Catalog catalog = load_catalog(o->common);
    const CheckResult result = check_plan_file(catalog, o->plan);
    fmt::print("{}", render_check(result, render_options(o->common)));
    exit_code = result.pass() ? Exit::ok : Exit::check_failed;
  });
}

}  // namespace gpuplan::cli
