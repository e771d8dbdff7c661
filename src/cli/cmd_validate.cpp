// gpuplan validate: the performance model against measured benchmarks.
#include <memory>

#include <fmt/format.h>

#include <gpuplan/calibration.hpp>

#include "common.hpp"

namespace gpuplan::cli {
namespace {

struct ValidateOptions {
  CommonOptions common;
  std::string benchmarks;
  bool calibrate = false;
};

Exit run_validate_benchmarks(const ValidateOptions& o) {
  Catalog catalog = load_catalog(o.common);
  if (!o.benchmarks.empty()) {
    catalog.merge_file(o.benchmarks);
  }
  Calibration c = o.calibrate ? calibrate(catalog) : validate_benchmarks(catalog, Efficiency{});
  if (!o.benchmarks.empty()) {
    std::erase_if(c.checks, [&o](const BenchmarkCheck& k) { return k.benchmark->origin != o.benchmarks; });
  }
  fmt::print("{}", render_validation(c, o.calibrate, render_options(o.common)));
  return Exit::ok;
}

}  // namespace

void add_validate_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand("validate", "The performance model against measured benchmarks");
  sub->add_option("--benchmarks", o->benchmarks, "A benchmarks file of the catalog format to check")
      ->check(non_empty());
  sub->add_flag("--calibrate", o->calibrate, "Fit the efficiency factors to the benchmarks first");
  add_common_options(*sub, o->common);
  sub->callback([o, &exit_code] { exit_code = run_validate_benchmarks(*o); });
}

}  // namespace gpuplan::cli
