// Seed 004 (H100 vs H200 article): MLPerf v4.1 Offline 8xH100 24,525 tok/s and 8xH200 31,303 tok/s
// at Lyceum's prices; the ranking flips between on-demand and dedicated.
#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/compare.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/error.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinRel;
using gpuplan::PricingMode;

namespace {
using gpuplan::test::cat;

gpuplan::CostResult node(const char* gpu, PricingMode mode, double tokens_per_s) {
  gpuplan::CostRequest r;
  r.gpus = 8;
  r.usd_per_gpu_hour = gpuplan::find_price(cat(), "lyceum", gpu, mode).usd_per_gpu_hour;
  r.output_tokens_per_s = tokens_per_s;
  return gpuplan::cost(r);
}
}  // namespace

TEST_CASE("cost: the seed's tokens per dollar under each pricing mode", "[cost][reference]") {
  const auto h100_od = node("h100-sxm", PricingMode::on_demand, 24525);
  const auto h200_od = node("h200-sxm", PricingMode::on_demand, 31303);
  const auto h100_ded = node("h100-sxm", PricingMode::dedicated, 24525);
  const auto h200_ded = node("h200-sxm", PricingMode::dedicated, 31303);
  // "the H100 node costs $22.32 per hour and returns about 3.96 million tokens per dollar"
  CHECK_THAT(h100_od.usd_per_hour(), WithinRel(22.32, 1e-9));
  CHECK_THAT(h100_od.tokens_per_usd, WithinRel(3.96e6, 0.002));
  // "the H200 node costs $34.32 and returns about 3.28 million"
  CHECK_THAT(h200_od.usd_per_hour(), WithinRel(34.32, 1e-9));
  CHECK_THAT(h200_od.tokens_per_usd, WithinRel(3.28e6, 0.002));
  // "the H200 buys roughly 17 percent less throughput per dollar"
  CHECK_THAT(1.0 - h200_od.tokens_per_usd / h100_od.tokens_per_usd, WithinRel(0.17, 0.03));
  // dedicated: "$28.72 ... about 3.07 million", "$31.92 ... about 3.53 million", "roughly 15 percent more"
  CHECK_THAT(h100_ded.usd_per_hour(), WithinRel(28.72, 1e-9));
  CHECK_THAT(h100_ded.tokens_per_usd, WithinRel(3.07e6, 0.002));
  CHECK_THAT(h200_ded.usd_per_hour(), WithinRel(31.92, 1e-9));
  CHECK_THAT(h200_ded.tokens_per_usd, WithinRel(3.53e6, 0.002));
  CHECK_THAT(h200_ded.tokens_per_usd / h100_ded.tokens_per_usd - 1.0, WithinRel(0.15, 0.03));
  // USD per million tokens = 1e6 / tokens per dollar.
  CHECK_THAT(h100_od.usd_per_million_tokens, WithinRel(1e6 / h100_od.tokens_per_usd, 1e-12));
}

TEST_CASE("cost: premiums and the on-demand break-even price", "[cost][reference]") {
  const double h100_od = gpuplan::find_price(cat(), "lyceum", "h100-sxm", PricingMode::on_demand).usd_per_gpu_hour;
  const double h200_od = gpuplan::find_price(cat(), "lyceum", "h200-sxm", PricingMode::on_demand).usd_per_gpu_hour;
  const double h100_ded = gpuplan::find_price(cat(), "lyceum", "h100-sxm", PricingMode::dedicated).usd_per_gpu_hour;
  const double h200_ded = gpuplan::find_price(cat(), "lyceum", "h200-sxm", PricingMode::dedicated).usd_per_gpu_hour;
  // "The H200 carries a 54 percent premium on-demand but only an 11 percent premium on dedicated"
  CHECK_THAT(h200_od / h100_od - 1.0, WithinRel(0.54, 0.01));
  CHECK_THAT(h200_ded / h100_ded - 1.0, WithinRel(0.11, 0.02));
  // Issue 4: break-even H200 price on-demand is about $3.56 per GPU-hour.
  CHECK_THAT(gpuplan::break_even_usd_per_gpu_hour(h100_od, 24525.0 / 8, 31303.0 / 8), WithinRel(3.56, 0.002));
}

TEST_CASE("cost: one compare run shows every seed figure and the flip", "[cost][reference]") {
  gpuplan::CompareRequest r;
  r.gpus = {"h100-sxm", "h200-sxm"};
  r.gpus_per_option = 8;
  r.perf.fit.weights_dtype = gpuplan::DType::fp8;
  r.perf.fit.kv_dtype = gpuplan::DType::fp8;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 294;
  r.provider = "lyceum";
  r.measured_tokens_per_s = {{"h100-sxm", 24525}, {"h200-sxm", 31303}};
  const auto res = gpuplan::compare(cat(), cat().model("llama-2-70b"), r);
  REQUIRE(res.modes.size() == 2);
  for (const auto& m : res.modes) {
    REQUIRE(m.winner.has_value());
    const auto& h200 = m.options[1];
    if (m.mode == PricingMode::on_demand) {
      CHECK(*m.winner == 0);  // H100 wins on-demand
      CHECK_THAT(h200.break_even_usd_per_gpu_hour, WithinRel(3.56, 0.002));
      CHECK_THAT(h200.premium, WithinRel(0.5376, 0.001));
    } else {
      CHECK(m.mode == PricingMode::dedicated);
      CHECK(*m.winner == 1);  // H200 wins dedicated
      CHECK_THAT(h200.premium, WithinRel(0.1114, 0.001));
    }
    CHECK(m.robust);  // measured on both sides: no band to overlap
    CHECK_THAT(h200.throughput_ratio, WithinRel(31303.0 / 24525.0, 1e-12));
  }
}

TEST_CASE("cost: utilization, extras, owned hardware and energy", "[cost]") {
  gpuplan::CostRequest r;
  r.gpus = 8;
  r.usd_per_gpu_hour = 2.0;
  r.output_tokens_per_s = 10000;
  const auto full = gpuplan::cost(r);
  r.utilization = 0.5;
  const auto half = gpuplan::cost(r);
  // Idle half the time: each useful token costs twice as much.
  CHECK_THAT(half.usd_per_million_tokens, WithinRel(2.0 * full.usd_per_million_tokens, 1e-12));
  r.utilization = 1.0;
  r.storage_usd_per_month = 730.0;  // 730 hours in a month: $1 per hour
  CHECK_THAT(gpuplan::cost(r).usd_per_hour(), WithinRel(17.0, 1e-12));
  r.storage_usd_per_month = 0;
  r.failed_run_overhead = 0.1;
  CHECK_THAT(gpuplan::cost(r).usd_per_hour(), WithinRel(16.0 * 1.1, 1e-12));

  gpuplan::CostRequest owned;
  owned.gpus = 8;
  owned.owned = gpuplan::OwnedHardware{.capex_usd_per_gpu = 30000, .amortization_years = 4, .operations_share_per_year = 0.1};
  owned.output_tokens_per_s = 10000;
  owned.gpu_power_w = 700;
  owned.pue = 1.5;
  owned.usd_per_kwh = 0.10;
  const auto o = gpuplan::cost(owned);
  CHECK_THAT(o.capex_usd_per_hour, WithinRel(30000.0 * 8 / (4 * 8760), 1e-12));
  CHECK_THAT(o.operations_usd_per_hour, WithinRel(30000.0 * 8 * 0.1 / 8760, 1e-12));
  // 8 x 700 W x 1.5 PUE = 8.4 kW at $0.10/kWh.
  CHECK_THAT(o.power_usd_per_hour_at_tdp, WithinRel(0.84, 1e-12));
  CHECK_THAT(o.joules_per_token_at_tdp, WithinRel(8400.0 / 10000.0, 1e-12));
  CHECK_THAT(o.kwh_per_million_tokens_at_tdp, WithinRel(0.84 * 1e6 / 3.6e6, 1e-12));
}

TEST_CASE("cost: bad inputs name the field and missing prices are never defaulted", "[cost]") {
  gpuplan::CostRequest r;
  r.usd_per_gpu_hour = 2.0;
  r.output_tokens_per_s = 1000;
  r.utilization = 0;
  CHECK_THROWS_WITH(gpuplan::cost(r), "cost.utilization: expected a share in (0, 1], got 0");
  r.utilization = 1.5;
  CHECK_THROWS_AS(gpuplan::cost(r), gpuplan::InputError);
  r.utilization = 1;
  r.pue = 0.9;
  CHECK_THROWS_WITH(gpuplan::cost(r), "cost.pue: expected a ratio in [1, 5], got 0.9");
  r.pue = 1.3;
  r.usd_per_gpu_hour = -1;
  CHECK_THROWS_WITH(gpuplan::cost(r), "cost.usd_per_gpu_hour: expected a price between 0.0001 and 10000 USD, got -1");
  CHECK_THROWS_WITH(gpuplan::find_price(cat(), "lyceum", "h200-sxm", PricingMode::spot),
                    "lyceum has no spot price for h200-sxm; it has: on-demand, dedicated");
  CHECK_THROWS_WITH(gpuplan::find_price(cat(), "lyceom", "h200-sxm", PricingMode::on_demand),
                    Catch::Matchers::StartsWith("provider: unknown provider 'lyceom'; closest: lyceum"));
  CHECK_THROWS_WITH(gpuplan::find_price(cat(), "lyceum", "l4", PricingMode::on_demand),
                    "lyceum has no price for l4 in the catalog");
}
