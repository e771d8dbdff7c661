#pragma once
// Evaluating a plan file's deployments against their expectations (`gpuplan check` and
// `gpuplan report`): one layout, one load, the same fit, perf and cost functions the other
// commands call.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/plan_file.hpp>
#include <gpuplan/planned_load.hpp>
#include <gpuplan/provenance.hpp>

namespace gpuplan {

/// One deployment of a plan in library terms (the CLI resolves the plan's settings into it the
/// way it resolves flags).
struct DeploymentQuestion {
  std::string name;
  std::string origin;          ///< the plan file, for messages
  std::string expect_pointer;  ///< "/deployments/0/expect"
  ModelSpec model;
  const GpuSpec* gpu = nullptr;
  PerfRequest perf;            ///< fit request (its layout when layout_given), workload, efficiency
  bool layout_given = false;
  std::uint64_t gpus = 1;      ///< GPUs the layout is searched over when not given
  std::optional<std::uint64_t> concurrency;  ///< the planned load; unset: full load
  /// The planned load as output tokens/s over the deployment (instead of a concurrency).
  std::optional<double> target_output_tokens_per_s;
  /// With a target and no GPU count: the deployment is as many replicas as the target needs
  /// (the replica chosen by the layout rule among the layouts of `gpus` GPUs, or the given TP x PP).
  bool size_for_target = false;
  std::vector<Price> prices;   ///< the prices to cost it at (a catalog mode each, or given); may be empty
  CostRequest cost;            ///< utilization and extras; GPUs, price and throughput are filled in
  Expectations expect;
};

/// Stable codes for a failed expectation (JSON `reasons[].code`).
namespace reason {
inline constexpr std::string_view does_not_fit = "does_not_fit";
inline constexpr std::string_view fits_unexpectedly = "fits_unexpectedly";
inline constexpr std::string_view over_budget = "over_budget";
inline constexpr std::string_view over_monthly_budget = "over_monthly_budget";
inline constexpr std::string_view below_min_throughput = "below_min_throughput";
inline constexpr std::string_view itl_above_target = "itl_above_target";
inline constexpr std::string_view ttft_above_target = "ttft_above_target";
inline constexpr std::string_view below_min_sequences = "below_min_sequences";
inline constexpr std::string_view below_target_load = "below_target_load";
/// A cost expectation priced on instances that cannot hold a replica (cost refuses the layout).
inline constexpr std::string_view not_rentable = "not_rentable";
}  // namespace reason

struct ExpectationResult {
  std::string name;        ///< the expectation's field, "max_itl_ms"
  bool pass = false;
  double expected = 0;     ///< fits: 1 for true, 0 for false
  double got = 0;
  bool evaluated = true;   ///< false: nothing to measure (the model does not fit); `got` is 0
  std::string unit;        ///< "ms", "USD/Mtok", "tok/s", "sequences", "USD/month", "" for fits
  std::string context;     ///< the pricing mode for cost expectations, "lyceum on-demand"
  std::string reason;      ///< a `reason::` code when it fails, else empty
  /// Not in the file: a deployment without `expect.fits` is expected to fit, so that one that
  /// cannot hold its load fails the gate even with no expectations.
  bool implied = false;
};

struct PricedCost {
  Price price;
  CostResult cost;
};

struct DeploymentResult {
  std::string name;
  /// The plan file's settings of the deployment as written (field, value), for diff to name a
  /// plan edit: ("concurrency", "64").
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string model_id;
  std::string gpu_id;
  FitResult fit;                   ///< the layout used, at the planned concurrency
  bool runs = false;               ///< one sequence fits the layout: throughput and latency exist
  PlannedLoad load;
  std::optional<PerfResult> perf;  ///< one row, the planned batch (unset unless `runs`)
  /// The estimate and bound over curve_batches(full load, planned batch), for a report's charts
  /// (unset unless `runs`).
  std::optional<PerfResult> curve;
  std::vector<PricedCost> costs;   ///< one per price (empty unless `runs` and priced)
  std::vector<ExpectationResult> checks;
  std::vector<std::string> notes;
  [[nodiscard]] bool pass() const;
};

struct CheckResult {
  std::string plan_origin;
  std::string plan_hash;
  std::string description;
  Provenance provenance;
  std::vector<DeploymentResult> deployments;
  [[nodiscard]] bool pass() const;
  [[nodiscard]] std::size_t expectations() const;
  [[nodiscard]] std::size_t failed() const;
};

/// Evaluates one deployment and its expectations; with a target load, also whether it serves it
/// (`target_output_tokens_per_s`, reason below_target_load). Throws InputError for an invalid request, or
/// a cost expectation without a price (naming the plan file and the expectation's pointer).
DeploymentResult evaluate_deployment(const Catalog& catalog, const DeploymentQuestion& question);

}  // namespace gpuplan
