#include <gpuplan/price.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/offer_match.hpp>

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
  const auto close = closest_names(text, std::vector<std::string>(names.begin(), names.end()), 1);
  throw InputError(fmt::format("{}: unknown pricing mode '{}'{}; known: {}", field, text,
                               close.empty() ? "" : fmt::format("; closest: {}", close.front()), fmt::join(names, ", ")));
}

bool mode_has_term(PricingMode mode) { return mode == PricingMode::reserved; }

std::string parse_term(std::string_view text, std::string_view field) {
  if (text == "unstated") {
    return std::string(text);
  }
  const std::size_t digits = text.find_first_not_of("0123456789");
  const std::string_view unit = digits == std::string_view::npos ? std::string_view() : text.substr(digits);
  const bool ok = digits > 0 && digits != std::string_view::npos && digits <= 3 && text.front() != '0' &&
                  (unit == "mo" || unit == "y");
  if (!ok) {
    throw InputError(fmt::format(
        "{}: expected a commitment term like 1y, 3y or 6mo (or \"unstated\" when the source gives none), got \"{}\"",
        field, text));
  }
  return std::string(text);
}

std::string offer_label(PricingMode mode, std::string_view term) {
  if (term.empty()) {
    return std::string(to_string(mode));
  }
  return term == "unstated" ? fmt::format("{} (term unstated)", to_string(mode)) : fmt::format("{} {}", to_string(mode), term);
}

DayNumber parse_iso_date(std::string_view text, std::string_view field) {
  const auto fail = [&] {
    throw InputError(fmt::format("{}: expected an ISO date like 2025-06 or 2026-04-15, got \"{}\"", field, text));
  };
  const auto number = [&](std::size_t pos, std::size_t len) {
    int v = 0;
    const char* first = text.data() + pos;
    const auto [end, ec] = std::from_chars(first, first + len, v);
    if (ec != std::errc{} || end != first + len) {
      fail();
    }
    return v;
  };
  if ((text.size() != 7 && text.size() != 10) || text[4] != '-' || (text.size() == 10 && text[7] != '-')) {
    fail();
  }
  using namespace std::chrono;
  const year_month_day ymd{year{number(0, 4)}, month{static_cast<unsigned>(number(5, 2))},
                           day{static_cast<unsigned>(text.size() == 10 ? number(8, 2) : 1)}};
  if (!ymd.ok()) {
    fail();
  }
  // An ISO date all the same: say what is wrong with it.
  if (ymd.year() < year{2000}) {
    throw InputError(fmt::format("{}: expected a date from 2000 on (no GPU price is older), got \"{}\"", field, text));
  }
  return sys_days{ymd}.time_since_epoch().count();
}

namespace {
bool starts_with_folded(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}
}  // namespace

bool in_region(const Price& price, std::string_view region) {
  if (region.empty()) {
    return true;
  }
  if (starts_with_folded(price.region, region)) {
    return true;
  }
  // An area's name takes the regions placed in it, whatever the provider calls them.
  std::string wanted(region);
  std::transform(wanted.begin(), wanted.end(), wanted.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return (wanted == "us" || wanted == "eu") && region_area(price.region) == wanted;
}

void require_gpu_in(std::string_view field, const std::string& gpu, const std::vector<std::string>& gpus,
                    std::string_view used) {
  if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end()) {
    return;
  }
  const auto close = closest_names(gpu, gpus);
  throw InputError(fmt::format("{}: '{}' is not one of the GPUs {} ({}){}", field, gpu, used, fmt::join(gpus, ", "),
                               close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", "))));
}

std::string offer_region_key(const Price& p) {
  return fmt::format("{}/{}/{}/{}", p.provider, p.gpu, offer_label(p.mode, p.term), p.region);
}

std::string price_key(const Price& p) {
  return p.gpus_per_instance.empty()
             ? offer_region_key(p)
             : fmt::format("{}/{}-GPU instances", offer_region_key(p), fmt::join(p.gpus_per_instance, ","));
}

bool preferred_price(const Price& candidate, const Price& current) {
  if (candidate.stale() != current.stale()) {
    return !candidate.stale();
  }
  if (candidate.stale() && candidate.age_days != current.age_days) {
    return candidate.age_days < current.age_days;
  }
  return candidate.usd_per_gpu_hour < current.usd_per_gpu_hour;
}

std::string price_age_label(const Price& price) {
  return price.given() ? "given" : fmt::format("{} d{}", price.age_days, price.stale() ? " (stale)" : "");
}

std::string price_label(const Price& price) {
  const std::string region = price.region.empty() ? "" : ", " + price.region;
  if (price.given()) {
    return fmt::format("{} ${:.2f}/GPU-h (typed by hand, no date{})", kGivenProvider, price.usd_per_gpu_hour, region);
  }
  return fmt::format("{} {} ${:.2f}/GPU-h ({}, {} days old{}{})", price.provider, offer_label(price.mode, price.term),
                     price.usd_per_gpu_hour, price.date, price.age_days,
                     price.stale() ? fmt::format(", stale: older than {} days", kStalePriceDays) : "", region);
}

DayNumber system_today() {
  using namespace std::chrono;
  return floor<days>(system_clock::now()).time_since_epoch().count();
}

}  // namespace gpuplan
