#pragma once
// A cloud price for one GPU-hour (data/prices.json). The pricing mode always travels with the
// price: the seeds show the H100/H200 ranking flipping between on-demand and dedicated.

#include <cstdint>
#include <optional>
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

/// Whether prices in this mode carry a commitment term. Only reserved (and committed-use)
/// prices do: a 1-year and a 3-year commitment are different offers at different prices.
bool mode_has_term(PricingMode mode);
/// Checks a commitment term: a whole number of months or years ("6mo", "1y", "3y"), or
/// "unstated" when the source publishes a reserved rate without its term. Anything else throws
/// InputError naming `field`.
std::string parse_term(std::string_view text, std::string_view field);
/// "reserved 1y", "reserved (term unstated)", or the mode alone when there is no term (how
/// outputs name an offer).
std::string offer_label(PricingMode mode, std::string_view term);

/// A calendar day as days since 1970-01-01 (what price ages are counted in).
using DayNumber = long;
/// Parses an ISO date, "2025-06" (read as the 1st) or "2026-04-15"; anything else throws
/// InputError naming `field`.
DayNumber parse_iso_date(std::string_view text, std::string_view field);
/// Today by the system clock (UTC).
DayNumber system_today();
/// A price older than this many days is stale: cost outputs warn about it.
constexpr long kStalePriceDays = 180;
/// The provider of a price typed by hand (--price GPU=USD, a plan's "usd-per-gpu-hour"): it has
/// no date, so no age.
constexpr std::string_view kGivenProvider = "given";

struct Price;
/// Whether a price is in `region`: empty matches all; otherwise a case-insensitive prefix of the
/// price's region ("us-east" matches us-east-1 and us-east-2, "eu" matches "EU (Spain, ...)").
bool in_region(const Price& price, std::string_view region);

struct Price {
  std::string provider;          ///< kebab-case provider id, e.g. "lyceum"
  std::string gpu;               ///< GPU id
  PricingMode mode = PricingMode::on_demand;
  std::string term;              ///< commitment term of a reserved price ("1y", "3y", "unstated"); else empty
  double usd_per_gpu_hour = 0;
  std::string date;              ///< ISO date the price was seen or published ("2026-04", "2026-04-15")
  DayNumber day = 0;             ///< `date` as a day number
  long age_days = 0;             ///< days between `date` and the catalog's today
  [[nodiscard]] bool stale() const { return age_days > kStalePriceDays; }
  [[nodiscard]] bool given() const { return provider == kGivenProvider; }
  std::string pointer;           ///< JSON pointer of the entry in `origin`, for messages
  std::string region;            ///< optional
  std::string instance;          ///< optional
  /// The instance sizes, in GPUs, this rate rents (ascending: [8], or [1, 8] when a 1-GPU and
  /// an 8-GPU instance cost the same per GPU); a deployment pays for whole instances. Empty:
  /// any GPU count is rented (the source states no instance size).
  std::vector<std::uint64_t> gpus_per_instance;
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;            ///< catalog file the entry came from
};

/// A price typed by hand (--price GPU=USD) for a GPU the command does not use is a typo: throws
/// InputError "FIELD: 'GPU' is not one of the GPUs USED (list); closest: ..." unless `gpu` is one
/// of `gpus`.
void require_gpu_in(std::string_view field, const std::string& gpu, const std::vector<std::string>& gpus,
                    std::string_view used);

/// Whether `candidate` is the better of two prices of one offer (provider, GPU, mode, term) in
/// different regions or dates: a current price over a stale one (a two-year-old rate is no offer
/// today), then among stale ones the newest, then the cheapest.
[[nodiscard]] bool preferred_price(const Price& candidate, const Price& current);

/// The largest instance a price may name: Rubin Ultra NVL576, the largest NVLink domain
/// announced. A larger size is a typo (a price or a GPU count of a whole cluster).
constexpr std::uint64_t kMaxGpusPerInstance = 576;

/// "provider/gpu/offer/region", and the instance sizes when the price gives them: what makes a
/// price one offer (the catalog rejects two alike). Two sizes of one offer (AWS's 1-GPU
/// g6e.xlarge and 4-GPU g6e.12xlarge) are two prices at their own rates.
std::string price_key(const Price& price);
/// price_key() without the instance sizes: a user catalog's price replaces every built-in price
/// with this key, whatever its instance sizes.
std::string offer_region_key(const Price& price);

// Every cost output words a price's age the same way (cost, compare, plan, check and report).
/// A table cell: "35 d", "200 d (stale)", or "given" for a price typed by hand.
std::string price_age_label(const Price& price);
/// A heading or footer line: "lyceum on-demand $2.10/GPU-h (2026-04, 35 days old, us-east)"; a
/// stale price adds "stale: older than 180 days", one typed by hand says so instead of a date.
std::string price_label(const Price& price);

}  // namespace gpuplan
