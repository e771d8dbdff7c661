// gpuplan validate: the performance model against measured benchmarks.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include <gpuplan/calibration.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/measurement_file.hpp>

#include "command_io.hpp"
#include "common.hpp"

namespace gpuplan::cli {
namespace {

struct ValidateOptions {
  CommonOptions common;
  std::string benchmarks;
  bool calibrate = false;
  bool cross_validate = false;
};

// FILE's models may be defined in FILE-catalog.json beside it (the held-out files' convention,
// tools/heldout/check.sh): an unknown name says so when that file exists and was not given. It is
// not loaded unasked: the catalog a run uses is the one its command names.
MeasurementFile read_file_naming_sibling_catalog(const Catalog& catalog, const std::string& text,
                                                 const ValidateOptions& o) {
  try {
    return read_measurement_file(catalog, text, o.benchmarks);
  } catch (const UnknownNameError& e) {
    const std::filesystem::path file(o.benchmarks);
    std::filesystem::path sibling = file;
    sibling.replace_filename(file.stem().string() + "-catalog.json");
    std::error_code ec;
    const bool given = std::any_of(o.common.catalogs.begin(), o.common.catalogs.end(), [&](const std::string& c) {
      return std::filesystem::equivalent(c, sibling, ec);
    });
    if (given || !std::filesystem::is_regular_file(sibling, ec)) {
      throw;
    }
    throw UnknownNameError(fmt::format("{}; {} beside it is such a file (not read unless given: --catalog {})",
                                       e.what(), sibling.filename().string(), sibling.string()));
  }
}

Exit run_validate_benchmarks(const ValidateOptions& o) {
  Catalog catalog = load_catalog(o.common);
  std::vector<Benchmark> chosen = catalog.benchmarks();
  if (!o.benchmarks.empty()) {
    // Only the file's benchmarks are checked (and fitted); its models and GPUs may be built in.
    const std::string text = limits::read_text_file(o.benchmarks, "benchmarks file");
    chosen.clear();
    if (is_measurement_file(text)) {
      // Published measurements as the reference file keeps them: names as their source wrote them.
      MeasurementFile file = read_file_naming_sibling_catalog(catalog, text, o);
      for (const std::string& note : file.notes) {
        print_note(fmt::format("gpuplan: note: {}", note));
      }
      chosen = std::move(file.benchmarks);
    } else {
      catalog.merge_text(text, o.benchmarks);
      for (const Benchmark& b : catalog.benchmarks()) {
        if (b.origin == o.benchmarks) {
          chosen.push_back(b);
        }
      }
    }
    if (chosen.empty()) {
      throw InputError(fmt::format("{}: no benchmarks in the file", o.benchmarks));
    }
  }
  if (o.cross_validate) {
    const CrossValidation cv = cross_validate(catalog, chosen);
    fmt::print("{}", render_cross_validation(cv, render_options(o.common)));
    return Exit::ok;
  }
  const Calibration c = o.calibrate ? calibrate(catalog, chosen) : validate_benchmarks(catalog, Efficiency{}, chosen);
  fmt::print("{}", render_validation(c, o.calibrate, render_options(o.common)));
  // A measurement above its roofline bound is a bug in the model or the data. A row gpuplan
  // refuses (it does not fit, or no engine runs it) has no bound: the summary lists it, and it
  // does not fail the check (a run that served it used something gpuplan does not model).
  const bool all_hold = std::all_of(c.checks.begin(), c.checks.end(),
                                    [](const BenchmarkCheck& k) { return k.refused || k.bound_holds; });
  return all_hold ? Exit::ok : Exit::check_failed;
}

}  // namespace

void add_validate_command(CLI::App& app, Exit& exit_code) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand(
      "validate", "The performance model against measured benchmarks (exit 1 when a measurement is above its roofline "
                  "bound; rows gpuplan refuses have no bound and are listed, not failed)");
  sub->add_option("--benchmarks", o->benchmarks, "A benchmarks file to check: the catalog format, or published measurements as the reference calibration.json keeps them ({\"measured\": [...]})")
      ->check(non_empty());
  sub->add_flag("--calibrate", o->calibrate, "Fit the efficiency factors to the benchmarks first");
  sub->add_flag("--cross-validate", o->cross_validate,
                "Leave each model x GPU x format out, fit on the rest, predict it")
      ->excludes("--calibrate");
  add_common_options(*sub, o->common);
  sub->callback([o, &exit_code] { exit_code = run_validate_benchmarks(*o); });
}

}  // namespace gpuplan::cli
