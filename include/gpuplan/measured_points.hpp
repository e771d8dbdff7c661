#pragma once
// Measured scaling points as people write them: "4=3600" on the command line, or a file of
// JSON ({"unit": "tokens/s", "points": [{"gpus": 4, "throughput": 3600}, ...]} or a bare array)
// or CSV rows (gpus,throughput with an optional header).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/scaling.hpp>

namespace gpuplan {

/// "GPUS=THROUGHPUT", e.g. "4=3600". Throws InputError naming `field` and the entry.
ScalingPoint parse_measured_entry(std::string_view entry, std::string_view field);

struct MeasuredPoints {
  std::vector<ScalingPoint> points;      ///< in file order
  std::optional<std::string> unit;       ///< from "unit" or a column name such as tokens_per_s
};

/// Parses JSON (text starting with '{' or '[') or CSV. Errors name `origin` and the JSON pointer
/// or line.
MeasuredPoints parse_measured_text(std::string_view text, std::string_view origin);

}  // namespace gpuplan
