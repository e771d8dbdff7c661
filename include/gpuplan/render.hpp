#pragma once
// Renderers: one result -> table / json / csv / markdown text. The only code that formats
// numbers. They return strings and never print.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/compare.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/fit_report.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/planner.hpp>
#include <gpuplan/scale_model.hpp>
#include <gpuplan/scaling.hpp>
#include <gpuplan/train_plan.hpp>

namespace gpuplan {

enum class Format { table, json, csv, markdown };
/// Byte display: GB = 1e9 (default) or GiB = 2^30.
enum class ByteUnits { gb, gib };

struct RenderOptions {
  Format format = Format::table;
  ByteUnits units = ByteUnits::gb;
};

/// Version of the JSON output contract; bumped when a field changes meaning or disappears.
inline constexpr int kJsonSchemaVersion = 1;

std::string_view to_string(Format format);
/// Parses "table", "json", "csv" or "markdown"; others throw InputError naming `field`.
Format parse_format(std::string_view text, std::string_view field);
ByteUnits parse_byte_units(std::string_view text, std::string_view field);

std::string render_fit(const FitResult& result, const RenderOptions& options);
/// The chosen layout's fit, the layouts table (when more than one was evaluated), the choice and
/// the suggestions.
std::string render_fit(const FitReport& report, const RenderOptions& options);
std::string render_perf(const PerfResult& result, const RenderOptions& options);
std::string render_cost(const CostReport& report, const RenderOptions& options);
std::string render_compare(const CompareResult& result, const RenderOptions& options);
/// The plan of each model: cheapest configurations, the launch command of the first for `emit`,
/// each GPU's frontier, or the binding target.
std::string render_plan(const std::vector<PlanResult>& plans, std::optional<Engine> emit, const RenderOptions& options);
/// Measured scaling: points, fits, predictions and where adding GPUs stops paying.
std::string render_scaling(const ScalingResult& result, const RenderOptions& options);
/// Modeled serving scaling: one table per GPU and the GPUs side by side.
std::string render_model_scaling(const ScaleModelResult& result, const RenderOptions& options);
/// A training plan: memory per GPU, step split, run, cost by provider and mode, scaling.
std::string render_train(const TrainPlan& plan, const RenderOptions& options);
/// Benchmarks against the model; `fitted` says the efficiency came from calibrate().
std::string render_validation(const Calibration& calibration, bool fitted, const RenderOptions& options);
/// Leave-one-group-out cross-validation: each group's rows, errors and band, then the totals.
std::string render_cross_validation(const CrossValidation& cv, const RenderOptions& options);

std::string render_gpu_list(const Catalog& catalog, const RenderOptions& options);
std::string render_model_list(const Catalog& catalog, const RenderOptions& options);
std::string render_price_list(const Catalog& catalog, const RenderOptions& options);
/// The prices `filter` passes (`catalog prices --gpu/--provider/--mode/--region/--term`); throws
/// InputError as filter_prices() does.
std::string render_price_list(const Catalog& catalog, const PriceFilter& filter, const RenderOptions& options);
std::string render_gpu(const GpuSpec& gpu, const RenderOptions& options);
std::string render_model(const ModelSpec& model, const RenderOptions& options);
/// Summary of a validated user catalog file.
std::string render_merge_report(const MergeReport& report, const RenderOptions& options);

/// JSON Lines (`gpuplan batch`): a JSON document as rendered above, on one line (same values,
/// no whitespace outside strings, a final newline).
std::string render_json_line(std::string_view json);
/// `{"error":{"line":N,"field":"...","message":"..."}}` on one line; an empty `field` (the line
/// as a whole is wrong) is written as null.
std::string render_batch_error(std::uint64_t line, std::string_view field, std::string_view message);

}  // namespace gpuplan
