#pragma once
// A cloud price for one GPU-hour (data/prices.json). The pricing mode always travels with the
// price: the seeds show the H100/H200 ranking flipping between on-demand and dedicated.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

enum class PricingMode { on_demand, dedicated, reserved, spot, interruptible, preemptible, capacity_block };

/// "on-demand", "capacity-block", ...
std::string_view to_string(PricingMode mode);
std::span<const PricingMode> all_pricing_modes();
/// Parses a mode name; unknown names throw InputError naming `field` and listing the modes.
PricingMode parse_pricing_mode(std::string_view text, std::string_view field);

struct Price {
  std::string provider;          ///< kebab-case provider id, e.g. "lyceum"
  std::string gpu;               ///< GPU id
  PricingMode mode = PricingMode::on_demand;
  double usd_per_gpu_hour = 0;
  std::string date;              ///< when the price was seen ("2026-04", or an honest phrase)
  std::string region;            ///< optional
  std::string instance;          ///< optional
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;            ///< catalog file the entry came from
};

}  // namespace gpuplan
