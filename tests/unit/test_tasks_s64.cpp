// Helper s64 (tasks): catalog prices filters; scale's speed-up baseline under latency caps;
// RunPod's other GPUs and pod sizes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/scale_model.hpp>

#include "test_support.hpp"

using namespace gpuplan;

namespace {

using gpuplan::test::cat;

bool s64_has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::string error_of(const PriceFilter& f) {
  try {
    (void)filter_prices(cat().prices(), f);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// `catalog prices` listed all 181 prices with no way to ask "what does an H200 cost on spot?".
TEST_CASE("s64 catalog prices: filters take what cost and plan take", "[catalog][prices][s64]") {
  PriceFilter spot;
  spot.gpus = {"h200-sxm"};
  spot.mode = PricingMode::spot;
  const auto got = filter_prices(cat().prices(), spot);
  REQUIRE_FALSE(got.empty());
  CHECK(std::all_of(got.begin(), got.end(), [](const Price* p) { return p->gpu == "h200-sxm"; }));
  // spot takes Nebius's preemptible offers, as cost --mode spot does; never on-demand.
  CHECK(std::any_of(got.begin(), got.end(), [](const Price* p) { return p->mode == PricingMode::preemptible; }));
  CHECK(std::none_of(got.begin(), got.end(), [](const Price* p) { return p->mode == PricingMode::on_demand; }));

  PriceFilter eu;
  eu.region = "eu";
  const auto in_eu = filter_prices(cat().prices(), eu);
  REQUIRE_FALSE(in_eu.empty());
  CHECK(std::all_of(in_eu.begin(), in_eu.end(), [](const Price* p) { return in_region(*p, "eu"); }));

  PriceFilter term;
  term.term = "3y";
  const auto three = filter_prices(cat().prices(), term);
  REQUIRE_FALSE(three.empty());
  CHECK(std::all_of(three.begin(), three.end(),
                    [](const Price* p) { return p->mode == PricingMode::reserved && p->term == "3y"; }));

  // No filter: every price, in catalog order.
  CHECK(filter_prices(cat().prices(), PriceFilter{}).size() == cat().prices().size());
}

TEST_CASE("s64 catalog prices: a filter nothing passes names the narrowest and what it takes", "[catalog][prices][s64]") {
  PriceFilter typo;
  typo.provider = "runpd";
  CHECK(s64_has(error_of(typo), "provider: unknown provider 'runpd'; closest: runpod"));

  PriceFilter nowhere;
  nowhere.region = "mars";
  CHECK(s64_has(error_of(nowhere), "region: no catalog price is in region 'mars'"));

  // Lambda prices no L4: the provider is the narrowest filter, and the L4's providers are named.
  PriceFilter l4;
  l4.gpus = {"l4"};
  l4.provider = "lambda";
  const std::string m = error_of(l4);
  CHECK(s64_has(m, "provider: no catalog price matches --gpu l4 --provider lambda"));
  CHECK(s64_has(m, "aws"));

  PriceFilter unpriced;
  unpriced.gpus = {"t4"};
  CHECK(s64_has(error_of(unpriced), "catalog_prices.gpus: no catalog price matches --gpu t4; the GPUs priced are:"));
}

TEST_CASE("s64 catalog prices: the table says how many prices the filter kept", "[catalog][prices][s64][render]") {
  PriceFilter f;
  f.provider = "runpod-community";
  RenderOptions o;
  o.format = Format::table;
  const std::string text = render_price_list(cat(), f, o);
  CHECK(s64_has(text, "prices match --provider runpod-community"));
  CHECK_FALSE(s64_has(text, "lyceum"));
}

// runpod.io/pricing as transcribed (silybench-data cost.json@045df3b, 2026-09-25): RunPod rents
// the A100, L40S, B200 and others beside the H100 and H200, and every pod holds 1 to 8 GPUs.
TEST_CASE("s64 RunPod: every price rents pods of 1 to 8 GPUs, the other GPUs priced", "[catalog][prices][s64]") {
  const std::vector<std::uint64_t> pods{1, 2, 3, 4, 5, 6, 7, 8};
  int runpod = 0;
  for (const Price& p : cat().prices()) {
    if ((p.provider == "runpod" || p.provider == "runpod-community") && p.mode == PricingMode::on_demand) {
      ++runpod;
      INFO(p.provider << " " << p.gpu);
      CHECK(p.gpus_per_instance == pods);
    }
  }
  CHECK(runpod == 18);
  const auto price = [](std::string_view provider, std::string_view gpu) {
    for (const Price& p : cat().prices()) {
      if (p.provider == provider && p.gpu == gpu && p.mode == PricingMode::on_demand) {
        return p.usd_per_gpu_hour;
      }
    }
    return 0.0;
  };
  CHECK(price("runpod", "a100-sxm-80gb") == Approx(1.59));
  CHECK(price("runpod-community", "l40s") == Approx(0.79));
  CHECK(price("runpod", "b200") == Approx(6.79));
}

// scale --max-itl-ms 5 for Llama-3.1-8B on H100: TP 1 meets 5 ms at no batch (about 6 ms at
// batch 1), so speed-up against it read TP 4 as 0.08x (2 % efficiency) and the side-by-side
// table put TP 1's 4,939 tok/s/GPU beside the best within the cap, 199.
TEST_CASE("s64 scale: under latency caps the baseline is the smallest layout within them", "[scale][s64]") {
  ScaleModelRequest r;
  r.gpus = {"h100-sxm"};
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.up_to = 8;
  // Without caps the smallest layout is the baseline; a cap between its batch-1 ITL and the
  // lowest any layout gives leaves it over the cap and some wider layout within it.
  const ScaleModelResult free = model_scaling(cat(), cat().model("llama-3.1-8b"), r);
  const ScaleModelTable& f = free.tables.at(0);
  CHECK_FALSE(f.baseline_within_caps.has_value());
  CHECK(f.rows.front().speedup.value_or(0) == Approx(1.0));
  double lowest = f.rows.front().single_stream_itl_s;
  for (const ScaleModelRow& x : f.rows) {
    lowest = std::min(lowest, x.single_stream_itl_s);
  }
  REQUIRE(lowest < f.rows.front().single_stream_itl_s * 0.9);
  r.max_itl_s = (lowest + f.rows.front().single_stream_itl_s) / 2;

  const ScaleModelResult res = model_scaling(cat(), cat().model("llama-3.1-8b"), r);
  const ScaleModelTable& t = res.tables.at(0);
  REQUIRE(t.baseline_within_caps.has_value());
  CHECK(t.smallest.gpus() == 1);
  CHECK(t.baseline_within_caps->gpus() > 1);
  bool base_seen = false;
  for (const ScaleModelRow& x : t.rows) {
    INFO(x.shape << " on " << x.layout.gpus());
    if (x.over_latency) {
      CHECK_FALSE(x.speedup.has_value());
      CHECK_FALSE(x.efficiency.has_value());
      continue;
    }
    REQUIRE(x.speedup.has_value());
    CHECK(*x.speedup == Approx(x.output_tokens_per_s / t.baseline_tokens_per_s));
    CHECK(x.layout.gpus() >= t.baseline_within_caps->gpus());  // the fewest GPUs within the cap
    base_seen = base_seen || *x.speedup == Approx(1.0);
  }
  CHECK(base_seen);
}
