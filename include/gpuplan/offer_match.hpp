#pragma once
// Which catalog offers a --region or --mode filter takes, and what a region filter leaves out
// that may yet be in the region (helper s59 tasks F3 and F7). in_region (price.hpp) is the
// filter itself.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/price.hpp>

namespace gpuplan {

/// Whether an offer in mode `offered` is one a user asking for `asked` buys: the same mode, or,
/// for spot, any capacity the provider may take back at short notice (Nebius's "preemptible",
/// Vast.ai's "interruptible": the same kind of capacity under other names). The offer keeps its
/// own mode in every output; asking for preemptible or interruptible takes that mode alone.
[[nodiscard]] bool mode_matches(PricingMode offered, PricingMode asked);

/// The area a provider's region name is in: "us" (us-east-1, us-central1, Azure's eastus2), "eu"
/// (eu-north1, europe-west4, "EU (Spain, Paris, Nordics)", Azure's westeurope), "north-america";
/// empty when the name places it nowhere ("", "aws (Hugging Face picks the region)"). in_region
/// lets the filters "us" and "eu" take every region placed in them, beside its prefix rule.
[[nodiscard]] std::string region_area(std::string_view region);

/// The offers a region filter left out that may yet be in the region: they state no region, or
/// one the filter cannot place (a wider area such as "North America", which may be Canada, or a
/// name region_area() does not know). plan and compare note them under --region, so that a
/// cheaper offer is never dropped silently.
struct RegionLeftOut {
  std::size_t no_region = 0;                  ///< state no region at all
  std::vector<std::string> providers;         ///< of those, "hyperstack 14", most first
  std::vector<std::string> unplaced_regions;  ///< the other names, each once ("North America")
  std::size_t unplaced = 0;                   ///< offers with one of those names
  const Price* cheapest = nullptr;            ///< the cheapest of all of them per GPU-hour
  [[nodiscard]] std::size_t count() const { return no_region + unplaced; }
};
/// Of `prices` (those the command would price but for the region), the ones left out as above.
[[nodiscard]] RegionLeftOut region_left_out(const std::vector<const Price*>& prices, std::string_view region);
/// One note line for `left` under `--region REGION`; empty when nothing was left out.
[[nodiscard]] std::string region_left_out_note(const RegionLeftOut& left, std::string_view region);

/// What `catalog prices` lists: each filter left empty takes every price. The same rules as the
/// commands that price a deployment: --mode spot takes the interruptible and preemptible offers
/// (mode_matches), --region is in_region's prefix and area rule.
struct PriceFilter {
  std::vector<std::string> gpus;    ///< catalog GPU ids; empty: every GPU
  std::string provider;             ///< empty: every provider
  std::optional<PricingMode> mode;  ///< empty: every mode
  std::string region;               ///< empty: every region
  std::string term;                 ///< reserved prices' commitment term ("1y"); empty: every term
  /// "--gpu b200 --mode spot": the filters given, as typed flags, for headings and messages.
  [[nodiscard]] std::string flags_text() const;
};
/// The prices of `prices` that pass `filter`, in catalog order. A provider no price names, or a
/// region no price is in, is a typo and throws InputError ("provider: ..." with the closest
/// names, "region: ..." with the regions there are); so does a filter no price passes, naming the
/// narrowest filter given (region, term, mode, provider, then GPU) and the values that filter
/// takes among the prices the others pass, so that it reads what to loosen.
[[nodiscard]] std::vector<const Price*> filter_prices(const std::vector<Price>& prices, const PriceFilter& filter);

}  // namespace gpuplan
