#include "common.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan::cli {

void add_common_options(CLI::App& sub, CommonOptions& opts) {
  sub.add_option("--format", opts.format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->default_val("table");
  sub.add_option("--units", opts.units, "Byte units: gb (1e9) or gib (2^30)")
      ->check(CLI::IsMember({"gb", "gib"}))
      ->default_val("gb");
  sub.add_option("--catalog", opts.catalogs,
                 "Extra catalog file (repeatable); entries override built-in ids")
      ->check(non_empty());
}

Catalog load_catalog(const CommonOptions& opts) {
  Catalog catalog = Catalog::builtin();
  const auto merge = [&catalog](const std::string& file) {
    const MergeReport report = catalog.merge_file(file);
    for (const std::string& line : report.overrides) {
      fmt::print(stderr, "gpuplan: note: {} overrides {}\n", file, line);
    }
  };
  if (const char* env = std::getenv("GPUPLAN_CATALOG"); env != nullptr && *env != '\0') {
    std::stringstream list(env);
    for (std::string path; std::getline(list, path, ':');) {
      if (path.empty()) {
        continue;
      }
      try {
        merge(path);
      } catch (const InputError& e) {
        throw InputError(fmt::format("GPUPLAN_CATALOG: {}", e.what()));
      }
    }
  }
  for (const std::string& file : opts.catalogs) {
    merge(file);
  }
  return catalog;
}

RenderOptions render_options(const CommonOptions& opts) {
  return {.format = parse_format(opts.format, "--format"),
          .units = parse_byte_units(opts.units, "--units")};
}

CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; },
                        "NON-EMPTY");
}

CLI::Validator positive_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v) && v > 0) {
            return {};
          }
        } catch (const std::exception&) {
        }
        return fmt::format("expected a positive number, got '{}'", text);
      },
      "POSITIVE");
}

CLI::Validator share_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size()) {
            return fmt::format("expected a number in [0.01, 1], got '{}'", text);
          }
        } catch (const std::exception&) {
          return fmt::format("expected a number in [0.01, 1], got '{}'", text);
        }
        if (!std::isfinite(v) || !(v >= 0.01) || v > 1.0) {
          return fmt::format("expected a number in [0.01, 1], got '{}'", text);
        }
        return {};
      },
      "SHARE in [0.01, 1]");
}

}  // namespace gpuplan::cli
