#include "pricing.hpp"

#include "common.hpp"

namespace gpuplan::cli {

void add_pricing_options(CLI::App& sub, PricingOptions& o) {
  sub.add_option("--provider", o.provider, "Price provider (gpuplan catalog prices)")->check(non_empty());
  sub.add_option("--mode", o.mode, "Pricing mode: on-demand, dedicated, reserved, spot, ...")->check(non_empty());
  sub.add_option("--utilization", o.utilization, "Share of paid time spent serving, (0, 1]")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--storage-usd-per-month", o.storage_usd_per_month, "Storage cost per month")
      ->check(CLI::Range(0.0, 1e9));
  sub.add_option("--egress-usd-per-month", o.egress_usd_per_month, "Egress cost per month")
      ->check(CLI::Range(0.0, 1e9));
  sub.add_option("--failed-run-overhead", o.failed_run_overhead, "Extra share of time lost to failed runs, e.g. 0.05")
      ->check(CLI::Range(0.0, 10.0));
  sub.add_option("--pue", o.pue, "Power usage effectiveness of the data centre (>= 1)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 5.0));
  sub.add_option("--usd-per-kwh", o.usd_per_kwh, "Energy price for owned hardware")->check(CLI::Range(0.0, 100.0));
  sub.add_option("--max-usd-per-mtok", o.max_usd_per_mtok, "Budget: USD per million output tokens (with --check)")
      ->check(positive_validator());
  sub.add_flag("--check", o.check, "Exit with code 1 when over --max-usd-per-mtok");
}

void apply_pricing(const PricingOptions& o, CostRequest& r) {
  r.utilization = o.utilization;
  r.storage_usd_per_month = o.storage_usd_per_month;
  r.egress_usd_per_month = o.egress_usd_per_month;
  r.failed_run_overhead = o.failed_run_overhead;
  r.pue = o.pue;
  r.usd_per_kwh = o.usd_per_kwh;
}

}  // namespace gpuplan::cli
