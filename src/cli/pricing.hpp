#pragma once
// Cost flags shared by cost and compare: utilization, extras, budget.

#include <map>
#include <optional>
#include <vector>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <gpuplan/cost.hpp>

namespace gpuplan::cli {

struct PricingOptions {
  std::string provider;
  std::string mode;
  double utilization = 1.0;
  double storage_usd_per_month = 0;
  double egress_usd_per_month = 0;
  double failed_run_overhead = 0;
  double pue = 1.3;
  double usd_per_kwh = 0;
  double max_usd_per_mtok = 0;
  bool check = false;
  std::string region;
  std::string term;                 ///< commitment term of reserved prices ("1y", "3y")
  std::vector<std::string> prices;  ///< --price GPU=USD, repeatable
};

/// `provider_default` and `mode_default` are what --help says a missing --provider or --mode
/// means for this command.
void add_pricing_options(CLI::App& sub, PricingOptions& o, std::string_view provider_default = "every provider",
                         std::string_view mode_default = "every mode the provider prices", bool pue_shown = true,
                         bool usd_per_kwh_priced = true);
/// Exit 2 when --pue or --usd-per-kwh was given to a command that reads neither (added with
/// `pue_shown` or `usd_per_kwh_priced` false: plan shows no energy, compare prices rented GPUs
/// only), rather than ignore them.
void refuse_energy_flags(const CLI::App& sub);
/// Utilization, extras, PUE and energy price into a cost request.
void apply_pricing(const PricingOptions& o, CostRequest& request);

/// --price GPU=USD pairs by resolved GPU id; bad syntax, unknown GPUs and repeats fail naming --price.
std::map<std::string, double> given_prices(const Catalog& catalog, const std::vector<std::string>& prices);
/// Warns (stderr) when a price given for `gpu` is several times every catalog price for it: likely
/// an instance's price, not one GPU's. `given` names it ("--usd-per-gpu-hour 98.32").
void warn_instance_price(const Catalog& catalog, const std::string& gpu, double usd, std::string_view given);

/// One line on stderr per stale price used (older than kStalePriceDays).
/// --term, when given: a well-formed term of a mode that has terms (reserved).
void check_term(const std::string& term, PricingMode mode);

void warn_stale(const Price& price);

}  // namespace gpuplan::cli
