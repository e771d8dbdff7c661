#include "pricing.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>

#include "command_io.hpp"
#include "common.hpp"

namespace gpuplan::cli {

void add_pricing_options(CLI::App& sub, PricingOptions& o, std::string_view provider_default,
                         std::string_view mode_default, bool pue_shown, bool usd_per_kwh_priced) {
  sub.add_option("--provider", o.provider,
                 fmt::format("Price provider (gpuplan catalog prices; default: {})", provider_default))
      ->check(non_empty());
  sub.add_option("--mode", o.mode,
                 fmt::format("Pricing mode: on-demand, dedicated, reserved, spot (with the interruptible and "
                             "preemptible offers), interruptible, preemptible, capacity-block (default: {})",
                             mode_default))
      ->check(non_empty());
  sub.add_option("--region", o.region,
                 "Only prices in this region: a case-insensitive prefix, e.g. us-east or eu; us and eu also take "
                 "Azure's eastus2, westeurope (default: every region; prices that state none are left out, and "
                 "counted in a note)")
      ->check(non_empty());
  sub.add_option("--term", o.term,
                 "Only reserved prices with this commitment term: 1y, 3y, 6mo, ... (default: every term; "
                 "cost takes the cheapest, compare shows each term as its own offer)")
      ->check(non_empty());
  sub.add_option("--price", o.prices,
                 "A price by hand, GPU=USD per GPU-hour (repeatable), e.g. h100-sxm=2.10; priced as provider 'given' "
                 "in the --mode given (on-demand without --mode)")
      ->check(non_empty());
  sub.add_option("--utilization", o.utilization, "Share of paid time spent serving, in [0.01, 1]")
      ->capture_default_str()
      ->check(share_validator());
  sub.add_option("--storage-usd-per-month", o.storage_usd_per_month, "Storage cost, USD per month (default 0)")
      ->transform(decimal_number())->check(CLI::Range(0.0, 1e9));
  sub.add_option("--egress-usd-per-month", o.egress_usd_per_month, "Egress cost, USD per month (default 0)")
      ->transform(decimal_number())->check(CLI::Range(0.0, 1e9));
  sub.add_option("--failed-run-overhead", o.failed_run_overhead, "Extra share of time lost to failed runs, e.g. 0.05 (default 0)")
      ->transform(decimal_number())->check(CLI::Range(0.0, 10.0));
  CLI::Option* pue = sub.add_option("--pue", o.pue, "Power usage effectiveness of the data centre (>= 1)")
                         ->capture_default_str()
                         ->transform(decimal_number())
                         ->check(CLI::Range(1.0, 5.0));
  CLI::Option* kwh = sub.add_option("--usd-per-kwh", o.usd_per_kwh,
                                    "Energy price for owned hardware, USD per kWh (default 0)")
                         ->transform(decimal_number())
                         ->check(CLI::Range(0.0, 100.0));
  // Kept to refuse them with a reason (refuse_energy_flags), out of the help.
  if (!pue_shown) {
    pue->group("");
  }
  if (!usd_per_kwh_priced) {
    kwh->group("");
  }
  // The plan file's ceiling for the same budget; 1e308 printed as a 309-digit budget.
  sub.add_option("--max-usd-per-mtok", o.max_usd_per_mtok, "Budget: USD per million output tokens (with --check; default: none)")
      ->transform(decimal_number())->check(positive_validator())
      ->check(CLI::Range(limits::kMinUsdPerMtokLimit, limits::kMaxUsdPerMtokLimit));
  sub.add_flag("--check", o.check, "Exit with code 1 when over --max-usd-per-mtok");
}

void refuse_energy_flags(const CLI::App& sub) {
  for (const char* flag : {"--pue", "--usd-per-kwh"}) {
    if (sub.count(flag) > 0 && sub.get_option(flag)->get_group().empty()) {
      throw InputError(fmt::format("{}: {} prices rented GPUs (energy is in the hourly price){}; energy is priced for "
                                   "owned hardware: gpuplan cost --capex-usd-per-gpu",
                                   flag, sub.get_name(),
                                   std::string_view(flag) == "--pue" ? " and shows no energy per token" : ""));
    }
  }
}

void apply_pricing(const PricingOptions& o, CostRequest& r) {
  r.utilization = o.utilization;
  r.storage_usd_per_month = o.storage_usd_per_month;
  r.egress_usd_per_month = o.egress_usd_per_month;
  r.failed_run_overhead = o.failed_run_overhead;
  r.pue = o.pue;
  r.usd_per_kwh = o.usd_per_kwh;
}

namespace {
// A given price this many times the highest catalog price for the GPU is likely an instance's.
constexpr double kInstancePriceRatio = 3.0;
}  // namespace

std::map<std::string, double> given_prices(const Catalog& catalog, const std::vector<std::string>& prices) {
  std::map<std::string, double> out;
  for (const std::string& text : prices) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(fmt::format("--price: expected GPU=USD per GPU-hour, e.g. h100-sxm=2.10, got '{}'", text));
    }
    const std::string gpu = lookup_gpu(catalog, text.substr(0, eq), "--price").id;
    double usd = 0;
    const char* first = text.data() + eq + 1;
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(first, last, usd);
    if (ec != std::errc{} || end != last || first == last || !std::isfinite(usd) || !(usd >= 1e-4) || usd > 10'000) {
      throw InputError(fmt::format("--price: expected a price between 0.0001 and 10000 USD per GPU-hour after '=', got '{}'",
                                   text));
    }
    if (!out.emplace(gpu, usd).second) {
      throw InputError(fmt::format("--price: {} is priced twice", gpu));
    }
    warn_instance_price(catalog, gpu, usd, fmt::format("--price {}={:g}", gpu, usd));
  }
  return out;
}

void warn_instance_price(const Catalog& catalog, const std::string& gpu, double usd, std::string_view given) {
  // An instance's price typed as the GPU's (p5.48xlarge's 98.32 for one H100) prices 8x high.
  // A price outside what cost accepts (1e300) is refused after this: no warning full of its digits first.
  if (!(usd >= 1e-4 && usd <= 1e4)) {
    return;
  }
  double highest = 0;
  for (const Price& p : catalog.prices()) {
    if (p.gpu == gpu) {
      highest = std::max(highest, p.usd_per_gpu_hour);
    }
  }
  if (highest > 0 && usd > kInstancePriceRatio * highest) {
    print_note(fmt::format("gpuplan: warning: {} is {:.1f}x the highest catalog price for {} ({:.2f} USD/GPU-h): "
                           "prices are USD per GPU-hour; for an instance of 8 GPUs that is {:.2f}",
                           given, usd / highest, gpu, highest, usd / 8.0));
  }
}

void check_term(const std::string& term, PricingMode mode) {
  if (term.empty()) {
    return;
  }
  parse_term(term, "--term");
  if (!mode_has_term(mode)) {
    throw InputError(fmt::format("--term: {} prices carry no commitment term; give --mode reserved", to_string(mode)));
  }
}

void warn_stale(const Price& price) {
  if (price.stale()) {
    print_note(fmt::format("gpuplan: warning: the {} {} price for {} is {} days old ({}), older than {} days: check it",
               price.provider, offer_label(price.mode, price.term), price.gpu, price.age_days, price.date, kStalePriceDays));
  }
}

}  // namespace gpuplan::cli
