// --region and --mode spot on catalog prices (helper s59 tasks F3: --region us dropped 64
// region-less offers silently, plan's #1 then cost 2.3x; F7: --mode spot left Nebius's
// preemptible H200 out).
#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/planner.hpp>
#include <gpuplan/offer_match.hpp>
#include <gpuplan/price.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;
using gpuplan::Price;
using gpuplan::PricingMode;

namespace {
Price at(std::string provider, std::string region, double usd) {
  Price p;
  p.provider = std::move(provider);
  p.gpu = "h100-sxm";
  p.region = std::move(region);
  p.usd_per_gpu_hour = usd;
  return p;
}
}  // namespace

TEST_CASE("region: prefixes, and an area's name takes what providers call its regions", "[price][region]") {
  CHECK(gpuplan::in_region(at("aws", "us-east-1", 1), "us"));
  CHECK(gpuplan::in_region(at("aws", "us-east-1", 1), "US-EAST"));
  CHECK(gpuplan::in_region(at("azure", "eastus2", 1), "us"));
  CHECK(gpuplan::in_region(at("azure", "westeurope", 1), "eu"));
  CHECK_FALSE(gpuplan::in_region(at("azure", "eastus2", 1), "us-east"));  // a prefix names AWS/GCP regions
  CHECK_FALSE(gpuplan::in_region(at("nebius", "eu-north1", 1), "us"));
  CHECK_FALSE(gpuplan::in_region(at("civo", "", 1), "us"));
  CHECK_FALSE(gpuplan::in_region(at("coreweave", "North America", 1), "us"));  // may be Canada
  CHECK(gpuplan::in_region(at("coreweave", "North America", 1), "north"));
  CHECK(gpuplan::region_area("us-central1") == "us");
  CHECK(gpuplan::region_area("EU (Spain, Paris, Nordics)") == "eu");
  CHECK(gpuplan::region_area("aws (Hugging Face picks the region)").empty());
}

TEST_CASE("region: what a filter leaves out that may be there is counted, with the cheapest", "[price][region]") {
  const Price aws = at("aws", "us-east-1", 6.88);
  const Price civo = at("civo", "", 2.99);
  const Price lambda = at("lambda", "", 3.29);
  const Price coreweave = at("coreweave", "North America", 3.10);
  const Price nebius = at("nebius", "eu-north1", 2.00);  // elsewhere: not "left out"
  const std::vector<const Price*> all{&aws, &civo, &lambda, &coreweave, &nebius};
  const gpuplan::RegionLeftOut left = gpuplan::region_left_out(all, "us");
  CHECK(left.no_region == 2);
  CHECK(left.unplaced == 1);
  REQUIRE(left.cheapest != nullptr);
  CHECK(left.cheapest->provider == "civo");
  const std::string note = gpuplan::region_left_out_note(left, "us");
  CHECK_THAT(note, Contains("3 offers left out"));
  CHECK_THAT(note, Contains("civo 1"));
  CHECK_THAT(note, Contains("North America"));
  CHECK_THAT(note, Contains("civo h100-sxm"));
  CHECK(gpuplan::region_left_out(all, "eu").count() == 2);  // North America is no wider than the EU
  CHECK(gpuplan::region_left_out_note(gpuplan::region_left_out({&aws}, "us"), "us").empty());
}

TEST_CASE("region: plan under --region names the cheaper offers it left out", "[plan][region]") {
  const auto& catalog = gpuplan::test::cat();
  gpuplan::PlanRequest r;
  r.perf.input_tokens = 2048;
  r.perf.output_tokens = 256;
  r.gpus = {"h100-sxm"};
  r.weights_dtypes = {gpuplan::DType::fp8};
  r.kv_dtypes = {gpuplan::DType::bf16};
  r.targets.output_tokens_per_s = 3000;
  r.region = "us";
  r.include_stale = true;
  const gpuplan::PlanResult res = gpuplan::plan(catalog, catalog.model("llama-3.1-8b"), r);
  bool named = false;
  for (const std::string& n : res.notes) {
    named = named || n.starts_with("region us: ");
  }
  CHECK(named);
}

TEST_CASE("mode: spot takes preemptible and interruptible offers, each keeps its own mode", "[price][mode]") {
  CHECK(gpuplan::mode_matches(PricingMode::preemptible, PricingMode::spot));
  CHECK(gpuplan::mode_matches(PricingMode::interruptible, PricingMode::spot));
  CHECK(gpuplan::mode_matches(PricingMode::spot, PricingMode::spot));
  CHECK_FALSE(gpuplan::mode_matches(PricingMode::spot, PricingMode::preemptible));
  CHECK_FALSE(gpuplan::mode_matches(PricingMode::on_demand, PricingMode::spot));
  // Nebius's preemptible H200 (1.45) under --mode spot: found by cost's lookup too.
  const auto& catalog = gpuplan::test::cat();
  const Price& p = gpuplan::find_price(catalog, "nebius", "h200-sxm", PricingMode::spot);
  CHECK(p.mode == PricingMode::preemptible);
}
