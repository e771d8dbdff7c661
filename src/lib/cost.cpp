#include <gpuplan/cost.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/units.hpp>

namespace gpuplan {
namespace {

using units::kSecondsPerHour;
constexpr double kHoursPerYear = 8760.0;
using units::kJoulesPerKwh;
using units::kMega;

void check(bool ok, std::string_view field, std::string_view expected, double got) {
  if (!ok) {
    throw InputError(fmt::format("cost.{}: expected {}, got {}", field, expected, got));
  }
}

}  // namespace

CostResult cost(const CostRequest& r) {
  check(r.gpus >= 1 && r.gpus <= (1u << 16), "gpus", "between 1 and 65536", static_cast<double>(r.gpus));
  check(r.output_tokens_per_s >= 1e-3 && r.output_tokens_per_s <= 1e12, "output_tokens_per_s",
        "a rate between 0.001 and 1e12 tokens/s", r.output_tokens_per_s);
  // Derived from the output rate and the lengths (up to 2^32 input tokens per output one): no cap
  // of its own beyond being a number.
  check(r.input_tokens_per_s >= 0 && std::isfinite(r.input_tokens_per_s), "input_tokens_per_s", "a finite rate >= 0",
        r.input_tokens_per_s);
  check(r.utilization > 0 && r.utilization <= 1, "utilization", "a share in (0, 1]", r.utilization);
  check(r.storage_usd_per_month >= 0 && r.storage_usd_per_month <= 1e9, "storage_usd_per_month",
        "USD between 0 and 1e9", r.storage_usd_per_month);
  check(r.egress_usd_per_month >= 0 && r.egress_usd_per_month <= 1e9, "egress_usd_per_month", "USD between 0 and 1e9",
        r.egress_usd_per_month);
  check(r.failed_run_overhead >= 0 && r.failed_run_overhead <= 10, "failed_run_overhead", "a share in [0, 10]",
        r.failed_run_overhead);
  check(r.pue >= 1 && r.pue <= 5, "pue", "a ratio in [1, 5]", r.pue);
  check(r.usd_per_kwh >= 0 && r.usd_per_kwh <= 100, "usd_per_kwh", "USD between 0 and 100", r.usd_per_kwh);
  check(r.gpu_power_w >= 0 && r.gpu_power_w < 1e5, "gpu_power_w", "watts >= 0", r.gpu_power_w);
  if (r.usd_per_gpu_hour.has_value() == r.owned.has_value()) {
    throw InputError("cost: give either a rental price per GPU-hour or owned hardware, not both or neither");
  }
  check(r.instance_group >= 1 && r.instance_group <= r.gpus, "instance_group", "between 1 and the GPUs",
        static_cast<double>(r.instance_group));
  for (std::uint64_t size : r.gpus_per_instance) {
    check(size >= 1 && size <= kMaxGpusPerInstance, "gpus_per_instance",
          fmt::format("instance sizes between 1 and {} GPUs", kMaxGpusPerInstance), static_cast<double>(size));
  }
  if (!r.gpus_per_instance.empty() && !r.usd_per_gpu_hour) {
    throw InputError("cost.gpus_per_instance: instance sizes come with a rental price, not owned hardware");
  }
  CostResult c;
  c.request = r;
  const double gpus = static_cast<double>(r.gpus);
  c.power_w_at_tdp = r.gpu_power_w * gpus * r.utilization * r.pue;
  c.rental = rent_instances(r.gpus, r.gpus_per_instance, r.instance_group);
  if (r.usd_per_gpu_hour) {
    check(*r.usd_per_gpu_hour >= 1e-4 && *r.usd_per_gpu_hour <= 1e4, "usd_per_gpu_hour",
          "a price between 0.0001 and 10000 USD", *r.usd_per_gpu_hour);
    // Whole instances: the idle GPUs of the last one are paid too.
    c.rental_usd_per_hour = *r.usd_per_gpu_hour * static_cast<double>(c.rental.rented_gpus);
  } else {
    const OwnedHardware& o = *r.owned;
    check(o.capex_usd_per_gpu >= 1 && o.capex_usd_per_gpu <= 1e8, "capex_usd_per_gpu",
          "a price between 1 and 1e8 USD", o.capex_usd_per_gpu);
    check(o.amortization_years > 0 && o.amortization_years <= 30, "amortization_years", "years in (0, 30]",
          o.amortization_years);
    check(o.operations_share_per_year >= 0 && o.operations_share_per_year <= 1, "operations_share_per_year",
          "a share in [0, 1]", o.operations_share_per_year);
    c.capex_usd_per_hour = o.capex_usd_per_gpu * gpus / (o.amortization_years * kHoursPerYear);
    c.operations_usd_per_hour = o.capex_usd_per_gpu * gpus * o.operations_share_per_year / kHoursPerYear;
    // Power: kW drawn x USD/kWh.
    c.power_usd_per_hour_at_tdp = c.power_w_at_tdp / 1000.0 * r.usd_per_kwh;
  }
  c.extras_usd_per_hour = (r.storage_usd_per_month + r.egress_usd_per_month) / kHoursPerMonth;
  c.failed_runs_usd_per_hour = (c.rental_usd_per_hour + c.capex_usd_per_hour + c.operations_usd_per_hour +
                                c.power_usd_per_hour_at_tdp) * r.failed_run_overhead;
  c.useful_output_tokens_per_hour = r.output_tokens_per_s * r.utilization * kSecondsPerHour;
  c.tokens_per_usd = c.useful_output_tokens_per_hour / c.usd_per_hour();
  c.usd_per_million_tokens = kMega / c.tokens_per_usd;
  if (r.input_tokens_per_s > 0) {
    const double total_per_hour = (r.output_tokens_per_s + r.input_tokens_per_s) * r.utilization * kSecondsPerHour;
    c.usd_per_million_total_tokens = kMega * c.usd_per_hour() / total_per_hour;
  }
  // Energy per output token while serving: deployment power / output rate.
  c.joules_per_token_at_tdp = joules_per_token_at_tdp(r.gpu_power_w, r.gpus, r.pue, r.output_tokens_per_s);
  c.kwh_per_million_tokens_at_tdp = c.joules_per_token_at_tdp * kMega / kJoulesPerKwh;
  return c;
}

double joules_per_token_at_tdp(double gpu_power_w, std::uint64_t gpus, double pue, double output_tokens_per_s) {
  return gpu_power_w * static_cast<double>(gpus) * pue / output_tokens_per_s;
}

void use_price(CostRequest& request, const Price& price) {
  request.usd_per_gpu_hour = price.usd_per_gpu_hour;
  request.gpus_per_instance = price.gpus_per_instance;
  request.owned.reset();
}

const Price& instance_price(const Catalog& catalog, const Price& chosen, const GpuNeed& need) {
  if (chosen.given()) {
    return chosen;
  }
  const Price* best = &chosen;
  for (const Price& p : catalog.prices()) {
    if (p.provider == chosen.provider && p.gpu == chosen.gpu && p.mode == chosen.mode && p.term == chosen.term &&
        p.region == chosen.region && preferred_for(p, *best, need)) {
      best = &p;
    }
  }
  return *best;
}

std::vector<Price> offer_prices(const Catalog& catalog, const Price& chosen) {
  if (chosen.given()) {
    return {chosen};
  }
  std::vector<Price> out;
  for (const Price& p : catalog.prices()) {
    if (p.provider == chosen.provider && p.gpu == chosen.gpu && p.mode == chosen.mode && p.term == chosen.term &&
        p.region == chosen.region) {
      out.push_back(p);
    }
  }
  return out;
}

std::uint64_t largest_instance_gpus(const Catalog& catalog, const Price& chosen) {
  if (chosen.given()) {
    return 0;
  }
  std::uint64_t largest = 0;
  for (const Price& p : offer_prices(catalog, chosen)) {
    if (p.gpus_per_instance.empty()) {
      return 0;
    }
    largest = std::max(largest, p.gpus_per_instance.back());
  }
  return largest;
}

LayoutOffers layout_offers(const Catalog& catalog, std::span<const Price> prices) {
  LayoutOffers out;
  for (const Price& p : prices) {
    if (const std::uint64_t largest = largest_instance_gpus(catalog, p); largest > 0) {
      out.largest_instance_gpus = out.largest_instance_gpus == 0 ? largest : std::min(out.largest_instance_gpus, largest);
      if (out.instance_offers.empty()) {
        out.instance_offers = offer_prices(catalog, p);
      }
    }
  }
  return out;
}

double input_tokens_per_s_for(double output_tokens_per_s, std::uint64_t input_tokens, std::uint64_t output_tokens) {
  return output_tokens == 0 ? 0.0
                            : output_tokens_per_s * static_cast<double>(input_tokens) / static_cast<double>(output_tokens);
}

double break_even_usd_per_gpu_hour(double price_a, double per_gpu_a, double per_gpu_b) {
  return price_a * per_gpu_b / per_gpu_a;
}

std::vector<std::string> providers(const Catalog& catalog) {
  std::vector<std::string> out;
  for (const Price& p : catalog.prices()) {
    if (std::find(out.begin(), out.end(), p.provider) == out.end()) {
      out.push_back(p.provider);
    }
  }
  return out;
}

std::vector<PricingMode> modes_for(const Catalog& catalog, std::string_view provider, std::string_view gpu) {
  std::vector<PricingMode> out;
  for (const Price& p : catalog.prices()) {
    if (p.provider == provider && p.gpu == gpu && std::find(out.begin(), out.end(), p.mode) == out.end()) {
      out.push_back(p.mode);
    }
  }
  return out;
}

std::vector<std::string> regions(const Catalog& catalog) {
  std::vector<std::string> out;
  for (const Price& p : catalog.prices()) {
    if (!p.region.empty() && std::find(out.begin(), out.end(), p.region) == out.end()) {
      out.push_back(p.region);
    }
  }
  return out;
}

const Price& find_price(const Catalog& catalog, std::string_view provider, std::string_view gpu, PricingMode mode,
                        std::string_view region, std::string_view term) {
  const auto known = providers(catalog);
  if (std::find(known.begin(), known.end(), provider) == known.end()) {
    const auto close = closest_names(provider, known);
    throw InputError(fmt::format("provider: unknown provider '{}'{} (known: {})", provider,
                                 close.empty() ? "" : fmt::format("; closest: {}", fmt::join(close, ", ")),
                                 fmt::join(known, ", ")));
  }
  const Price* best = nullptr;
  for (const Price& p : catalog.prices()) {
    if (p.provider == provider && p.gpu == gpu && mode_matches(p.mode, mode) && in_region(p, region) &&
        (term.empty() || p.term == term) && (best == nullptr || preferred_price(p, *best))) {
      best = &p;
    }
  }
  if (best == nullptr && !term.empty()) {
    std::vector<std::string> terms;
    for (const Price& p : catalog.prices()) {
      const std::string label = p.term.empty() ? "(no term)" : p.term;
      if (p.provider == provider && p.gpu == gpu && mode_matches(p.mode, mode) && in_region(p, region) &&
          std::find(terms.begin(), terms.end(), label) == terms.end()) {
        terms.push_back(label);
      }
    }
    if (!terms.empty()) {
      throw InputError(fmt::format("term: {} has no {} price for {} with term {}; it has: {}", provider,
                                   to_string(mode), gpu, term, fmt::join(terms, ", ")));
    }
  }
  if (best == nullptr && !region.empty()) {
    std::vector<std::string> in;
    for (const Price& p : catalog.prices()) {
      if (p.provider == provider && p.gpu == gpu && mode_matches(p.mode, mode) && std::find(in.begin(), in.end(), p.region) == in.end()) {
        in.push_back(p.region.empty() ? "(no region given)" : p.region);
      }
    }
    if (!in.empty()) {
      throw InputError(fmt::format("region: {} has no {} price for {} in region '{}'; it has: {}", provider,
                                   to_string(mode), gpu, region, fmt::join(in, ", ")));
    }
  }
  if (best == nullptr) {
    const auto modes = modes_for(catalog, provider, gpu);
    std::vector<std::string_view> names;
    for (PricingMode m : modes) {
      names.push_back(to_string(m));
    }
    throw InputError(names.empty()
                         ? fmt::format("{} has no price for {} in the catalog", provider, gpu)
                         : fmt::format("{} has no {} price for {}; it has: {}", provider, to_string(mode), gpu,
                                       fmt::join(names, ", ")));
  }
  return *best;
}

}  // namespace gpuplan
