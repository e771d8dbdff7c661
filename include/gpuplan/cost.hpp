#pragma once
// Cost model (DESIGN "Cost"): node price = GPU-hour price x GPUs paid (whole instances where
// the price gives their size, rental.hpp); tokens per dollar =
// tokens/s x 3600 / (USD/hour); USD per million tokens = 1e6 / tokens per dollar. Utilization
// below 1 means idle capacity the useful tokens pay for; extras (storage, egress, failed runs)
// and, for owned hardware, capex amortization, power and operations turn into USD per hour.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/load.hpp>
#include <gpuplan/price.hpp>
#include <gpuplan/rental.hpp>

namespace gpuplan {

/// Hours in an average month (8,760 / 12), for monthly figures.
inline constexpr double kHoursPerMonth = 8760.0 / 12.0;

/// Buying the GPUs instead of renting them.
struct OwnedHardware {
  double capex_usd_per_gpu = 0;      ///< purchase price per GPU, including its share of the server
  double amortization_years = 4;
  double operations_share_per_year = 0.0;  ///< staff, space, support as a share of capex per year
};

struct CostRequest {
  std::uint64_t gpus = 1;
  /// Rental price; unset for owned hardware (then `owned` is required).
  std::optional<double> usd_per_gpu_hour;
  /// The instance sizes the rental price rents (Price::gpus_per_instance; empty: any count).
  std::vector<std::uint64_t> gpus_per_instance;
  /// GPUs that must share one instance (instance_group(): a replica, up to a node).
  std::uint64_t instance_group = 1;
  std::optional<OwnedHardware> owned;
  double output_tokens_per_s = 0;    ///< whole deployment, while busy
  double input_tokens_per_s = 0;     ///< prompt tokens processed alongside (0 when unknown)
  double utilization = 1.0;          ///< (0, 1]: share of paid time spent serving
  double storage_usd_per_month = 0;
  double egress_usd_per_month = 0;
  double failed_run_overhead = 0.0;  ///< extra share of time lost to failed or repeated runs
  double gpu_power_w = 0;            ///< board power (TDP) per GPU
  double pue = 1.3;                  ///< data-centre power usage effectiveness (>= 1)
  double usd_per_kwh = 0.0;          ///< energy price; rental prices already include power
};

struct CostResult {
  CostRequest request;
  /// The instances a rental price pays for (rented_gpus = gpus when it rents any count, and
  /// for owned hardware).
  InstanceRental rental;
  double rental_usd_per_hour = 0;    ///< GPU-hours paid (rental.rented_gpus) at the rental price
  double capex_usd_per_hour = 0;     ///< owned: purchase amortized over its years
  double operations_usd_per_hour = 0;
  double power_usd_per_hour_at_tdp = 0;     ///< owned: TDP x GPUs x utilization x PUE x USD/kWh (an upper bound)
  double extras_usd_per_hour = 0;    ///< storage and egress, spread over the month's hours
  double failed_runs_usd_per_hour = 0;
  double useful_output_tokens_per_hour = 0;
  double tokens_per_usd = 0;                 ///< output tokens
  double usd_per_million_tokens = 0;         ///< output tokens
  double usd_per_million_total_tokens = 0;   ///< input + output (0 when input is unknown)
  /// Deployment draw while serving, with PUE, every GPU at TDP: an upper bound (measured serving
  /// draws about 55 % of TDP at high batch, SemiAnalysisAI/InferenceX #828); so are the two below.
  double power_w_at_tdp = 0;
  double joules_per_token_at_tdp = 0;
  double kwh_per_million_tokens_at_tdp = 0;
  [[nodiscard]] double usd_per_hour() const {
    return rental_usd_per_hour + capex_usd_per_hour + operations_usd_per_hour + power_usd_per_hour_at_tdp +
           extras_usd_per_hour + failed_runs_usd_per_hour;
  }
};

/// Where a cost's output tokens/s came from: the facts render_cost() words as its throughput
/// sentence (JSON `throughput_source`).
struct CostThroughput {
  bool measured = false;                 ///< --tokens-per-second, else the model's estimate
  std::uint64_t input_tokens = 0;
  std::uint64_t cached_input_tokens = 0;  ///< of input_tokens, held by the prefix cache
  std::uint64_t output_tokens = 0;
  // The estimate's (unset when measured):
  std::uint64_t batch = 0;               ///< per replica, or per attention rank under DP attention
  PlannedLoad load;
  Layout layout;
  bool layout_given = false;             ///< --tp/--pp: no layout rule to name
  /// > 0: the layout was chosen for output tokens per USD among replicas an instance of at most
  /// this many GPUs holds; 0: for throughput.
  std::uint64_t instance_limit_gpus = 0;
  bool sparse = false;                   ///< 2:4-sparse peak FLOPs
};

/// "estimate for requests of 1024 input and 256 output tokens at batch 64 per replica (full
/// load), TP 1 PP 1 DP 1 (layout chosen for throughput)", or the measured rate's sentence.
std::string throughput_source_text(const CostThroughput& t);

/// A priced deployment with what it is: for rendering.
struct CostReport {
  std::string model_id;
  std::string gpu_id;
  std::optional<Price> price;          ///< the catalog price used, if any
  /// The offer's other commitment terms (a reserved 1y beside the 3y taken), each the price best
  /// for the deployment, when no --term chose one: the output says another term is offered.
  std::vector<Price> other_terms;
  /// A price given by hand (--price) with --mode: what the user says the rate is ("spot").
  std::string given_price_mode;
  CostThroughput throughput;           ///< measured or estimated, and at what load and layout
  std::optional<double> budget_usd_per_million_tokens;
  /// The load the estimate ran at with --concurrency or a target (JSON `load`); unset otherwise.
  std::optional<PlannedLoad> load;
  CostResult cost;
  [[nodiscard]] bool within_budget() const {
    return !budget_usd_per_million_tokens || cost.usd_per_million_tokens <= *budget_usd_per_million_tokens;
  }
};

/// Prompt tokens processed alongside an output rate, for requests of `input_tokens` in and
/// `output_tokens` out.
double input_tokens_per_s_for(double output_tokens_per_s, std::uint64_t input_tokens, std::uint64_t output_tokens);

/// Prices one deployment; throws InputError naming `cost.*` for bad inputs.
CostResult cost(const CostRequest& request);

/// Energy per output token while serving, an upper bound: TDP x GPUs x PUE / output tokens/s (J).
double joules_per_token_at_tdp(double gpu_power_w, std::uint64_t gpus, double pue, double output_tokens_per_s);

/// Sets the request's rental price and the instance sizes it rents.
void use_price(CostRequest& request, const Price& price);

/// The price of `chosen`'s offer (provider, GPU, mode, term and region) that is best for a
/// deployment of `need` (preferred_for): another instance size of the offer when the catalog
/// has one (a TP-4 replica on AWS L40S rents the 4-GPU g6e.12xlarge, not four 1-GPU
/// g6e.xlarge). A price typed by hand is returned as it is.
const Price& instance_price(const Catalog& catalog, const Price& chosen, const GpuNeed& need);
/// Every price of `chosen`'s offer (provider, GPU, mode, term and region): its instance sizes.
std::vector<Price> offer_prices(const Catalog& catalog, const Price& chosen);
/// The largest instance `chosen`'s offer rents in any of its sizes (0: an offer that rents any
/// count, or a price typed by hand): what a replica sharing one instance must fit.
std::uint64_t largest_instance_gpus(const Catalog& catalog, const Price& chosen);

/// What the layout rule (PerfRequest::largest_instance_gpus and instance_offers) takes from the
/// prices one deployment is costed at: the smallest of their largest instances, and the instance
/// prices of the first of them rented in whole instances (their sizes rank the layouts).
struct LayoutOffers {
  std::uint64_t largest_instance_gpus = 0;
  std::vector<Price> instance_offers;
};
LayoutOffers layout_offers(const Catalog& catalog, std::span<const Price> prices);

/// The GPU-hour price at which option B earns as many tokens per dollar as option A:
/// price_A x (throughput_B / GPUs_B) / (throughput_A / GPUs_A).
double break_even_usd_per_gpu_hour(double price_a_usd_per_gpu_hour, double tokens_per_s_per_gpu_a,
                                   double tokens_per_s_per_gpu_b);

/// The catalog price for a provider, GPU and mode (the cheapest region and term when several;
/// only those in_region(`region`) and with commitment term `term` when given). Unknown
/// providers, modes without a price and GPUs without one throw InputError listing what exists.
const Price& find_price(const Catalog& catalog, std::string_view provider, std::string_view gpu,
                        PricingMode mode, std::string_view region = {}, std::string_view term = {});
/// Regions the catalog's prices name, for messages.
std::vector<std::string> regions(const Catalog& catalog);
/// The modes a provider prices for a GPU, in catalog order.
std::vector<PricingMode> modes_for(const Catalog& catalog, std::string_view provider, std::string_view gpu);
/// Every provider with at least one price.
std::vector<std::string> providers(const Catalog& catalog);

}  // namespace gpuplan
