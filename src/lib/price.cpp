#include <gpuplan/price.hpp>

#include <array>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>

namespace gpuplan {
namespace {
constexpr std::array kModes{PricingMode::on_demand,     PricingMode::dedicated,
                            PricingMode::reserved,      PricingMode::spot,
                            PricingMode::interruptible, PricingMode::preemptible,
                            PricingMode::capacity_block};
}  // namespace

std::string_view to_string(PricingMode mode) {
  switch (mode) {
    case PricingMode::on_demand: return "on-demand";
    case PricingMode::dedicated: return "dedicated";
    case PricingMode::reserved: return "reserved";
    case PricingMode::spot: return "spot";
    case PricingMode::interruptible: return "interruptible";
    case PricingMode::preemptible: return "preemptible";
    case PricingMode::capacity_block: return "capacity-block";
  }
  return "?";
}

std::span<const PricingMode> all_pricing_modes() { return kModes; }

PricingMode parse_pricing_mode(std::string_view text, std::string_view field) {
  std::vector<std::string_view> names;
  for (PricingMode m : kModes) {
    if (to_string(m) == text) {
      return m;
    }
    names.push_back(to_string(m));
  }
  throw InputError(
      fmt::format("{}: unknown pricing mode '{}'; known: {}", field, text, fmt::join(names, ", ")));
}

}  // namespace gpuplan
