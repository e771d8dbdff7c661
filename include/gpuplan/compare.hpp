#pragma once
// Comparing GPUs for one model and workload across pricing modes: throughput from the
// performance model (or a measurement), cost per mode, premium, break-even price and whether
// the ranking survives the estimate's uncertainty band.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/perf.hpp>

namespace gpuplan {

struct CompareRequest {
  std::vector<std::string> gpus;        ///< GPU ids; the first is the baseline
  std::uint64_t gpus_per_option = 8;    ///< GPUs in each deployment
  bool gpus_defaulted = false;          ///< no --gpus/--nodes: one node, said in the heading
  PerfRequest perf;                     ///< workload, dtypes, efficiency; layout used if `layout_given`
  /// perf.fit.gpus_per_node holds for every GPU; false: each GPU's GpuSpec::default_gpus_per_node.
  bool gpus_per_node_given = true;
  bool layout_given = false;
  /// The load each option is costed at (planned_load): unset, full load.
  std::optional<std::uint64_t> concurrency;
  /// The load as output tokens/s over each deployment, instead of a concurrency.
  std::optional<double> target_output_tokens_per_s;
  /// With a target and no GPU count: each option is as many replicas as the target needs (its
  /// replica chosen among the layouts of `gpus_per_option` GPUs, or the given TP x PP).
  bool size_for_target = false;
  std::map<std::string, double> measured_tokens_per_s;  ///< by GPU id: replaces the estimate
  std::string provider;                 ///< empty: every provider in the catalog
  std::optional<PricingMode> mode;      ///< unset: every mode the provider has
  std::string region;                   ///< empty: every region; else a prefix (in_region)
  std::string term;                     ///< empty: every commitment term; else only reserved prices with it
  /// Prices given by hand (--price GPU=USD), by GPU id: priced as provider "given" in `mode`
  /// (with `term` when reserved), on-demand when no mode is given.
  std::map<std::string, double> given_usd_per_gpu_hour;
  DayNumber today = 0;                  ///< date of the given prices
  CostRequest cost;                     ///< utilization, extras; gpus and price are filled in
};

/// One GPU's deployment and throughput.
struct CompareOption {
  std::string gpu;
  Layout layout;
  std::uint64_t gpus = 0;       ///< GPUs priced: gpus_per_option, or the replicas a target needs
  std::uint64_t batch = 0;
  PlannedLoad load;
  double estimate_tokens_per_s = 0;
  double estimate_low = 0;
  double estimate_high = 0;
  double roofline_tokens_per_s = 0;
  BandCase band_case = BandCase::calibrated;  ///< distance from the calibration data
  bool engine_calibrated = true;               ///< false: band widened for vLLM/SGLang
  bool layout_calibrated = true;               ///< false: the layout also widened it
  std::optional<double> measured_tokens_per_s;
  /// Energy per output token at what the costs use (tokens_per_s()): TDP x gpus x the request's
  /// PUE, an upper bound; the same in every pricing mode, so shown once per option.
  double joules_per_token_at_tdp = 0;
  /// With --provider: the GPUs of the provider's largest instance its layout was held to; unset
  /// when the provider has no price for this GPU, so its layout was chosen without that limit.
  std::optional<std::uint64_t> provider_instance_gpus;
  /// What the costs use: the measurement when given, else the estimate.
  [[nodiscard]] double tokens_per_s() const { return measured_tokens_per_s.value_or(estimate_tokens_per_s); }
  [[nodiscard]] double low() const { return measured_tokens_per_s.value_or(estimate_low); }
  [[nodiscard]] double high() const { return measured_tokens_per_s.value_or(estimate_high); }
};

/// One option priced in one mode.
struct PricedOption {
  std::optional<Price> price;              ///< unset: no price in this mode (neither wins nor loses)
  CostResult cost;
  double premium = 0;                      ///< price / baseline price - 1
  double throughput_ratio = 0;             ///< tokens/s / baseline tokens/s
  double break_even_usd_per_gpu_hour = 0;  ///< price at which it ties the baseline's tokens per USD
  /// Why it is not rentable (not_rentable_text(): the GPU's link and the offer's largest
  /// instance); empty when rentable.
  std::string not_rentable;
  /// Without --provider the option's layout is chosen once for throughput; where the offer's
  /// instances cannot hold its replica, the option is priced at the layout they do hold (tasks
  /// s56 F4: L4 TP 2 on AWS spot, whose g6.xlarge rents one GPU): that layout and its tok/s.
  std::optional<Layout> own_layout;
  double own_tokens_per_s = 0;
  /// Priced and rentable: no instance of the price holds a replica (cost.rental.group_split)
  /// means the deployment does not exist there; it neither wins nor is the cheapest.
  [[nodiscard]] bool rentable() const { return price.has_value() && !cost.rental.group_split; }
};

struct ModeComparison {
  std::string provider;
  PricingMode mode = PricingMode::on_demand;
  std::string term;                        ///< commitment term of reserved prices ("1y"); a 1y and a 3y rate are two offers
  std::vector<PricedOption> options;       ///< same order as CompareResult::options
  std::optional<std::size_t> winner;       ///< most tokens per USD; unset unless two options have a price
  bool robust = false;                     ///< the winner stays ahead at the band's edges
};

/// A GPU left out of the comparison: its deployment cannot hold one sequence.
struct ExcludedOption {
  std::string gpu;
  std::string problem;              ///< option_fit_problem()
  std::uint64_t gpus_that_fit = 0;  ///< the fewest GPUs that hold it (fit's suggestion, else doubling gpus_per_option); 0: none tried did
};

/// "; 16 x h100-sxm hold it (--gpus 16)", or empty when no count tried held it.
std::string gpus_that_fit_text(const ExcludedOption& e);

struct CompareResult {
  std::string model_id;
  CompareRequest request;
  std::vector<CompareOption> options;
  std::vector<ExcludedOption> excluded;  ///< compared GPUs that do not fit, in the order given
  std::vector<ModeComparison> modes;
  std::vector<std::string> notes;

  /// Lowest USD per million output tokens over every priced option and mode (for budgets).
  [[nodiscard]] std::optional<double> cheapest_usd_per_million_tokens() const;
  /// Where that lowest cost is: (index into modes, index into options).
  [[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> cheapest() const;
};

/// The layout one option runs (the given one, else best_layout over gpus_per_option) and its fit
/// for one sequence of input + output tokens. compare() leaves an option that does not fit out
/// (CompareResult::excluded) and throws option_fit_problem() only when none fits; `compare
/// --check` reports either as a failed check (exit 1). instance_gpus, when given, receives the
/// provider's largest instance the layout was held to (unset: no price there, no such limit).
FitResult option_fit(const Catalog& catalog, const ModelSpec& model, const CompareRequest& request,
                     const std::string& gpu_id, std::optional<std::uint64_t>* instance_gpus = nullptr);
/// "compare: M does not fit N x G (TP, PP): weights ... against a ... engine cap".
std::string option_fit_problem(const ModelSpec& model, const FitResult& fit);

/// Throws InputError for unknown GPUs, providers or modes, a measurement for a GPU not compared,
/// or when no GPU's deployment holds one sequence.
CompareResult compare(const Catalog& catalog, const ModelSpec& model, const CompareRequest& request);

}  // namespace gpuplan
