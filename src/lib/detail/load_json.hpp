#pragma once
// The planned load as JSON (`load`), one shape for perf, cost, compare and plan files.

#include <nlohmann/json.hpp>

#include <gpuplan/planned_load.hpp>

#include "json_writer.hpp"

namespace gpuplan::detail {

/// `runs`: one sequence fits, so a batch exists (plan files report deployments that do not run).
void write_load(JsonWriter& w, const PlannedLoad& load, bool runs = true);
nlohmann::ordered_json load_json(const PlannedLoad& load, bool runs = true);

}  // namespace gpuplan::detail
