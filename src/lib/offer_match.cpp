// Offer filters beside in_region (include/gpuplan/offer_match.hpp).
#include <gpuplan/offer_match.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/ascii.hpp"

namespace gpuplan {

namespace {
using detail::lower;

// Azure names a region by place then area, no separators: "eastus2", "southcentralus",
// "westeurope" (https://learn.microsoft.com/azure/reliability/regions-list).
bool azure_style(std::string_view r, std::string_view area) {
  std::size_t end = r.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(r[end - 1])) != 0) {
    --end;
  }
  const std::string_view stem = r.substr(0, end);
  return stem.size() > area.size() && stem.ends_with(area) &&
         std::all_of(stem.begin(), stem.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}
}  // namespace

bool mode_matches(PricingMode offered, PricingMode asked) {
  return offered == asked || (asked == PricingMode::spot && (offered == PricingMode::preemptible ||
                                                             offered == PricingMode::interruptible));
}

std::string region_area(std::string_view region) {
  const std::string r = lower(region);
  if (r == "us" || r.starts_with("us-") || azure_style(r, "us")) {
    return "us";
  }
  if (r == "eu" || r.starts_with("eu-") || r.starts_with("eu (") || r.starts_with("europe") ||
      azure_style(r, "europe")) {
    return "eu";
  }
  if (r.starts_with("north america")) {
    return "north-america";
  }
  return "";
}

RegionLeftOut region_left_out(const std::vector<const Price*>& prices, std::string_view region) {
  RegionLeftOut out;
  if (region.empty()) {
    return out;
  }
  const std::string area = region_area(region);
  std::map<std::string, std::size_t> by_provider;
  for (const Price* p : prices) {
    if (in_region(*p, region)) {
      continue;
    }
    const std::string theirs = region_area(p->region);
    // Known to be elsewhere: another area, or the same area's other regions (us-west-2 for us-east).
    const bool wider = theirs == "north-america" && (area == "us" || area.empty());
    if (!p->region.empty() && !theirs.empty() && !wider) {
      continue;
    }
    if (p->region.empty()) {
      ++out.no_region;
      ++by_provider[p->provider];
    } else {
      ++out.unplaced;
      if (std::find(out.unplaced_regions.begin(), out.unplaced_regions.end(), p->region) == out.unplaced_regions.end()) {
        out.unplaced_regions.push_back(p->region);
      }
    }
    if (out.cheapest == nullptr || p->usd_per_gpu_hour < out.cheapest->usd_per_gpu_hour) {
      out.cheapest = p;
    }
  }
  std::vector<std::pair<std::string, std::size_t>> counts(by_provider.begin(), by_provider.end());
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [provider, n] : counts) {
    out.providers.push_back(fmt::format("{} {}", provider, n));
  }
  return out;
}

std::string region_left_out_note(const RegionLeftOut& left, std::string_view region) {
  if (left.count() == 0 || left.cheapest == nullptr) {
    return "";
  }
  std::vector<std::string> parts;
  if (left.no_region > 0) {
    parts.push_back(fmt::format("{} state no region ({})", left.no_region, fmt::join(left.providers, ", ")));
  }
  if (left.unplaced > 0) {
    parts.push_back(fmt::format("{} name a region not known to be in it ({})", left.unplaced,
                                fmt::join(left.unplaced_regions, ", ")));
  }
  const Price& c = *left.cheapest;
  return fmt::format("region {}: {} offer{} left out that may be there: {}; the cheapest of them: {} {} {} "
                     "{:.2f} USD/GPU-h{}; without --region they are priced",
                     region, left.count(), left.count() == 1 ? "" : "s", fmt::join(parts, "; "), c.provider, c.gpu,
                     offer_label(c.mode, c.term), c.usd_per_gpu_hour,
                     c.region.empty() ? std::string() : fmt::format(" ({})", c.region));
}

}  // namespace gpuplan
