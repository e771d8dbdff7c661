// Offer filters beside in_region (include/gpuplan/offer_match.hpp).
#include <gpuplan/offer_match.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>

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

std::string PriceFilter::flags_text() const {
  std::vector<std::string> out;
  for (const std::string& g : gpus) {
    out.push_back("--gpu " + g);
  }
  if (!provider.empty()) {
    out.push_back("--provider " + provider);
  }
  if (mode) {
    out.push_back(fmt::format("--mode {}", to_string(*mode)));
  }
  if (!region.empty()) {
    out.push_back("--region " + region);
  }
  if (!term.empty()) {
    out.push_back("--term " + term);
  }
  return fmt::format("{}", fmt::join(out, " "));
}

std::vector<const Price*> filter_prices(const std::vector<Price>& prices, const PriceFilter& filter) {
  const auto distinct = [&prices](auto value) {
    std::vector<std::string> out;
    for (const Price& p : prices) {
      std::string v = value(p);
      if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) {
        out.push_back(std::move(v));
      }
    }
    return out;
  };
  if (!filter.provider.empty()) {
    const auto known = distinct([](const Price& p) { return p.provider; });
    if (std::find(known.begin(), known.end(), filter.provider) == known.end()) {
      const auto close = closest_names(filter.provider, known);
      throw InputError(fmt::format("provider: unknown provider '{}'{} (known: {})", filter.provider,
                                   close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")),
                                   fmt::join(known, ", ")));
    }
  }
  if (!filter.region.empty() &&
      std::none_of(prices.begin(), prices.end(), [&](const Price& p) { return in_region(p, filter.region); })) {
    throw InputError(fmt::format("region: no catalog price is in region '{}'; regions: {}", filter.region,
                                 fmt::join(distinct([](const Price& p) { return p.region; }), ", ")));
  }
  const auto gpu_ok = [&](const Price& p) {
    return filter.gpus.empty() || std::find(filter.gpus.begin(), filter.gpus.end(), p.gpu) != filter.gpus.end();
  };
  const auto provider_ok = [&](const Price& p) { return filter.provider.empty() || p.provider == filter.provider; };
  const auto mode_ok = [&](const Price& p) { return !filter.mode || mode_matches(p.mode, *filter.mode); };
  const auto region_ok = [&](const Price& p) { return in_region(p, filter.region); };
  const auto term_ok = [&](const Price& p) { return filter.term.empty() || p.term == filter.term; };
  std::vector<const Price*> out;
  for (const Price& p : prices) {
    if (gpu_ok(p) && provider_ok(p) && mode_ok(p) && region_ok(p) && term_ok(p)) {
      out.push_back(&p);
    }
  }
  if (!out.empty()) {
    return out;
  }
  // Nothing passes: name the narrowest filter given and what it could take among the prices
  // every other filter passes (plan names its narrowest choice the same way).
  const auto others_pass = [&](std::string_view skip) {
    std::vector<const Price*> rest;
    for (const Price& p : prices) {
      if ((skip == "gpu" || gpu_ok(p)) && (skip == "provider" || provider_ok(p)) && (skip == "mode" || mode_ok(p)) &&
          (skip == "region" || region_ok(p)) && (skip == "term" || term_ok(p))) {
        rest.push_back(&p);
      }
    }
    return rest;
  };
  const auto values = [](const std::vector<const Price*>& rest, auto value) {
    std::vector<std::string> taken;
    for (const Price* p : rest) {
      std::string v = value(*p);
      if (std::find(taken.begin(), taken.end(), v) == taken.end()) {
        taken.push_back(std::move(v));
      }
    }
    return taken;
  };
  std::string field;
  std::string takes;
  if (!filter.region.empty()) {
    field = "region";
    const auto v = values(others_pass("region"), [](const Price& p) { return p.region.empty() ? std::string("(none given)") : p.region; });
    takes = v.empty() ? "" : fmt::format("; without it the regions are: {}", fmt::join(v, ", "));
  } else if (!filter.term.empty()) {
    field = "term";
    const auto v = values(others_pass("term"), [](const Price& p) { return p.term.empty() ? std::string("(no term: not reserved)") : p.term; });
    takes = v.empty() ? "" : fmt::format("; without it the terms are: {}", fmt::join(v, ", "));
  } else if (filter.mode) {
    field = "catalog_prices.mode";
    const auto v = values(others_pass("mode"), [](const Price& p) { return std::string(to_string(p.mode)); });
    takes = v.empty() ? "" : fmt::format("; without it the modes are: {}", fmt::join(v, ", "));
  } else if (!filter.provider.empty()) {
    field = "provider";
    const auto v = values(others_pass("provider"), [](const Price& p) { return p.provider; });
    takes = v.empty() ? "" : fmt::format("; without it the providers are: {}", fmt::join(v, ", "));
  } else {
    field = "catalog_prices.gpus";
    const auto v = values(others_pass("gpu"), [](const Price& p) { return p.gpu; });
    takes = v.empty() ? "" : fmt::format("; the GPUs priced are: {}", fmt::join(v, ", "));
  }
  throw InputError(fmt::format("{}: no catalog price matches {}{}", field, filter.flags_text(), takes));
}

}  // namespace gpuplan
