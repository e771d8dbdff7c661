#pragma once
// Cost flags shared by cost and compare: utilization, extras, budget.

#include <optional>
#include <string>

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
};

void add_pricing_options(CLI::App& sub, PricingOptions& o);
/// Utilization, extras, PUE and energy price into a cost request.
void apply_pricing(const PricingOptions& o, CostRequest& request);

}  // namespace gpuplan::cli
