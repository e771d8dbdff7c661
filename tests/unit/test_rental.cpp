// Whole instances: a price that rents 8-GPU instances is paid per instance, so a 1-GPU
// deployment there costs the whole instance, and a TP group needs one instance that holds it.
#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/planner.hpp>
#include <gpuplan/rental.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using namespace gpuplan;

namespace {

using Sizes = std::vector<std::uint64_t>;

std::uint64_t paid(std::uint64_t gpus, const Sizes& sizes, std::uint64_t group = 1) {
  return rent_instances(gpus, sizes, group).rented_gpus;
}

std::string one_price(const std::string& sizes) {
  return R"({"schema_version": 1, "prices": [{"provider": "p", "gpu": "h100-sxm", "mode": "on-demand",
    "usd_per_gpu_hour": 2.5, "date": "2026-11", "gpus_per_instance": )" +
         sizes + R"(, "sources": ["test"]}]})";
}

}  // namespace

TEST_CASE("rental: a price without instance sizes rents any count", "[rental]") {
  const InstanceRental r = rent_instances(3, Sizes{}, 1);
  CHECK(r.rented_gpus == 3);
  CHECK_FALSE(r.whole_instances());
  CHECK(r.idle_gpus() == 0);
}

TEST_CASE("rental: one size rounds up to whole instances", "[rental]") {
  CHECK(paid(1, {8}) == 8);
  CHECK(paid(8, {8}) == 8);
  CHECK(paid(9, {8}) == 16);
  CHECK(paid(64, {8}) == 64);
  const InstanceRental r = rent_instances(1, Sizes{8}, 1);
  REQUIRE(r.instances.size() == 1);
  CHECK(r.instances.front() == InstanceCount{.gpus = 8, .count = 1});
  CHECK(r.idle_gpus() == 7);
  CHECK(rent_instances(20, Sizes{8}, 4).instance_count() == 3);
}

TEST_CASE("rental: several sizes take the fewest GPUs then the fewest instances", "[rental]") {
  // AWS p5: the 1-GPU p5.4xlarge and the 8-GPU p5.48xlarge at one rate per GPU.
  CHECK(paid(1, {1, 8}) == 1);
  CHECK(paid(7, {1, 8}) == 7);
  CHECK(paid(9, {1, 8}) == 9);
  CHECK(rent_instances(8, Sizes{1, 8}, 1).instance_count() == 1);  // one 8-GPU instance, not eight
  // Hugging Face x1/x2/x4/x8: 7 GPUs as 4 + 2 + 1; 12 as 8 + 4.
  CHECK(paid(7, {1, 2, 4, 8}) == 7);
  CHECK(rent_instances(7, Sizes{1, 2, 4, 8}, 1).instance_count() == 3);
  const InstanceRental twelve = rent_instances(12, Sizes{1, 2, 4, 8}, 4);
  CHECK(twelve.rented_gpus == 12);
  CHECK(twelve.instances == std::vector<InstanceCount>{{.gpus = 8, .count = 1}, {.gpus = 4, .count = 1}});
  // Whole multiples of the largest beyond it, the rest in the smallest that holds it.
  CHECK(paid(20, {1, 8}, 4) == 24);
  CHECK(paid(20, {4, 8}, 4) == 20);
}

TEST_CASE("rental: a TP group shares one instance", "[rental]") {
  // TP 2 cannot span two 1-GPU instances: a [1, 4] price (Oracle's L40S shapes) rents the 4-GPU one.
  CHECK(paid(2, {1, 4}, 2) == 4);
  CHECK(paid(2, {1, 4}, 1) == 2);  // two TP-1 replicas do fit two 1-GPU instances
  CHECK(paid(8, {1, 8}, 2) == 8);
  // No instance holds the group: priced GPU by GPU and flagged as a lower bound.
  const InstanceRental split = rent_instances(2, Sizes{1}, 2);
  CHECK(split.group_split);
  CHECK(split.rented_gpus == 2);
  CHECK_FALSE(rent_instances(2, Sizes{1, 4}, 2).group_split);
  // A group that does not divide the GPUs counts as one GPU.
  CHECK(rent_instances(3, Sizes{8}, 2).group == 1);
}

TEST_CASE("rental: the group is a TP group up to a node unless NVLink joins the instances", "[rental]") {
  using gpuplan::instance_group;
  using gpuplan::Layout;
  using gpuplan::test::gpu;
  // Pipeline stages pass activations point to point: they may sit in separate instances (an L40S
  // PP 2 on two 1-GPU instances was refused as "not rentable").
  CHECK(instance_group(Layout{.tp = 2, .pp = 2, .dp = 3}, gpu("h100-sxm"), 8) == 2);
  CHECK(instance_group(Layout{.tp = 1, .pp = 2}, gpu("l40s"), 8) == 1);
  CHECK(instance_group(Layout{.tp = 16}, gpu("h100-sxm"), 8) == 8);   // TP across nodes: a node each
  CHECK(instance_group(Layout{.tp = 8, .pp = 4}, gpu("h100-sxm"), 8) == 8);
  CHECK(instance_group(Layout{.tp = 4}, gpu("l40s"), 8) == 4);        // PCIe: one machine
  CHECK(instance_group(Layout{.tp = 1, .ep = 8, .dp = 8}, gpu("h200-sxm"), 8) == 8);  // a DP-attention engine
  CHECK(instance_group(Layout{.tp = 8}, gpu("gb200"), 8) == 1);       // NVL72 joins its 4-GPU trays
}

TEST_CASE("rental: cost pays the whole instance for a 1-GPU deployment", "[rental][cost]") {
  gpuplan::CostRequest c;
  c.gpus = 1;
  c.usd_per_gpu_hour = 7.912;  // AWS p5en.48xlarge: $63.296/h for 8 H200s
  c.gpus_per_instance = {8};
  c.output_tokens_per_s = 1000;
  const gpuplan::CostResult r = gpuplan::cost(c);
  CHECK(r.rental.rented_gpus == 8);
  CHECK_THAT(r.rental_usd_per_hour, WithinRel(63.296, 1e-12));
  CHECK_THAT(r.usd_per_million_tokens, WithinRel(63.296 / 3.6, 1e-9));
  // Energy counts the GPUs that serve.
  c.gpu_power_w = 700;
  CHECK_THAT(gpuplan::cost(c).joules_per_token_at_tdp, WithinRel(700 * 1.3 / 1000, 1e-12));
  // Without sizes: per GPU, as before.
  c.gpus_per_instance.clear();
  CHECK_THAT(gpuplan::cost(c).rental_usd_per_hour, WithinRel(7.912, 1e-12));
  c.gpus_per_instance = {0};
  CHECK_THROWS_AS(gpuplan::cost(c), gpuplan::InputError);
}

TEST_CASE("rental: the price chosen is the one cheapest for what is paid", "[rental][price]") {
  gpuplan::Price eight;
  eight.usd_per_gpu_hour = 4.10;
  eight.gpus_per_instance = {8};
  gpuplan::Price any;
  any.usd_per_gpu_hour = 4.50;
  CHECK(gpuplan::preferred_for(any, eight, {.gpus = 1}));   // $4.50 against $32.80 an hour
  CHECK(gpuplan::preferred_for(eight, any, {.gpus = 8}));   // $32.80 against $36.00
  // Filling the instance with replicas, the 8-GPU one is cheaper per replica.
  CHECK(gpuplan::preferred_for(eight, any, {.gpus = 1, .fill_replica_gpus = 1}));
  // One whose instances hold the TP group beats a cheaper one that cannot.
  gpuplan::Price one;
  one.usd_per_gpu_hour = 1.0;
  one.gpus_per_instance = {1};
  CHECK(gpuplan::preferred_for(eight, one, {.gpus = 2, .group = 2}));
  CHECK(gpuplan::preferred_for(one, eight, {.gpus = 2, .group = 1}));
}

TEST_CASE("rental: a current price beats a cheaper stale one unless stale prices rank by cost", "[rental][price]") {
  // RunPod's spot H100 at $0.81 (280 days old) against a current $2.00 spot rate (helper s53 F2).
  gpuplan::Price stale;
  stale.usd_per_gpu_hour = 0.81;
  stale.age_days = gpuplan::kStalePriceDays + 100;
  gpuplan::Price current;
  current.usd_per_gpu_hour = 2.00;
  current.age_days = 10;
  const gpuplan::GpuNeed need{.gpus = 1};
  CHECK(gpuplan::preferred_for(current, stale, need));
  CHECK_FALSE(gpuplan::preferred_for(stale, current, need));
  CHECK(gpuplan::preferred_for(stale, current, need, gpuplan::StalePrices::by_cost));
  CHECK_FALSE(gpuplan::preferred_for(current, stale, need, gpuplan::StalePrices::by_cost));
}

TEST_CASE("rental: AWS L40S takes the 4-GPU g6e.12xlarge for a TP-4 replica", "[rental][price]") {
  const Catalog& c = Catalog::builtin();
  const gpuplan::Price& offer = gpuplan::find_price(c, "aws", "l40s", gpuplan::PricingMode::on_demand);
  CHECK(gpuplan::instance_price(c, offer, {.gpus = 1}).instance == "g6e.xlarge");
  CHECK(gpuplan::instance_price(c, offer, {.gpus = 2, .group = 1}).instance == "g6e.xlarge");
  const gpuplan::Price& four = gpuplan::instance_price(c, offer, {.gpus = 4, .group = 4});
  CHECK(four.instance == "g6e.12xlarge");
  CHECK_THAT(four.usd_per_gpu_hour * 4, WithinRel(10.49264, 1e-12));
}

// s55 F2: AWS sells 4- and 8-GPU L4 (g6.12xlarge, g6.48xlarge) and an 8-GPU L40S (g6e.48xlarge);
// GCP 2-, 4- and 8-GPU L4 (g2-standard-24/48/96). A TP-4 or TP-8 replica of them is rentable.
TEST_CASE("rental: AWS and GCP rent multi-GPU L4 and 8-GPU L40S instances", "[rental][price]") {
  const Catalog& c = Catalog::builtin();
  const auto take = [&c](const char* provider, const char* gpu, gpuplan::PricingMode mode, std::uint64_t n) {
    const gpuplan::Price& offer = gpuplan::find_price(c, provider, gpu, mode);
    return gpuplan::instance_price(c, offer, {.gpus = n, .group = n});
  };
  const gpuplan::Price& l4_4 = take("aws", "l4", gpuplan::PricingMode::on_demand, 4);
  CHECK(l4_4.instance == "g6.12xlarge");
  CHECK_THAT(l4_4.usd_per_gpu_hour * 4, WithinRel(4.6016, 1e-12));
  const gpuplan::Price& l4_8 = take("aws", "l4", gpuplan::PricingMode::on_demand, 8);
  CHECK(l4_8.instance == "g6.48xlarge");
  CHECK_THAT(l4_8.usd_per_gpu_hour * 8, WithinRel(13.3504, 1e-12));
  const gpuplan::Price& l40s_8 = take("aws", "l40s", gpuplan::PricingMode::on_demand, 8);
  CHECK(l40s_8.instance == "g6e.48xlarge");
  CHECK_THAT(l40s_8.usd_per_gpu_hour * 8, WithinRel(30.13118, 1e-12));
  for (const auto mode : {gpuplan::PricingMode::on_demand, gpuplan::PricingMode::spot, gpuplan::PricingMode::reserved}) {
    for (const std::uint64_t n : std::array<std::uint64_t, 3>{2, 4, 8}) {
      INFO(gpuplan::to_string(mode) << " " << n);
      const gpuplan::Price& g2 = take("gcp", "l4", mode, n);
      CHECK(gpuplan::rent_instances(n, g2.gpus_per_instance, n).rented_gpus == n);
      CHECK_FALSE(gpuplan::rent_instances(n, g2.gpus_per_instance, n).group_split);
    }
  }
  CHECK_THAT(take("gcp", "l4", gpuplan::PricingMode::on_demand, 4).usd_per_gpu_hour * 4, WithinRel(4.001665148, 1e-5));
  CHECK(take("gcp", "a100-sxm-40gb", gpuplan::PricingMode::on_demand, 8).gpus_per_instance == Sizes{2, 4, 8});
}

// s55 F2: the refusal names the GPU's link (L4 has no NVLink: PCIe peers in one host) and the
// largest instance of the offer, not the cheapest size's.
TEST_CASE("rental: a split replica is refused by the GPU's link and the offer's largest instance", "[rental]") {
  const Catalog& c = Catalog::builtin();
  gpuplan::Price one;
  one.provider = "aws";
  one.gpu = "l40s";
  one.gpus_per_instance = {1};
  gpuplan::Price four = one;
  four.gpus_per_instance = {4};
  const std::vector<gpuplan::Price> offer{one, four};
  const gpuplan::InstanceRental split = gpuplan::rent_instances(8, one.gpus_per_instance, 8);
  REQUIRE(split.group_split);
  const std::string pcie = gpuplan::not_rentable_text(split, gpuplan::offer_sizes(one, offer), &c.gpu("l40s"));
  CHECK_THAT(pcie, Contains("PCIe peers in one host"));
  CHECK_THAT(pcie, Contains("holds 4 GPUs"));
  CHECK_THAT(pcie, !Contains("share NVLink"));
  CHECK_THAT(gpuplan::not_rentable_text(split, one, &c.gpu("h100-sxm")), Contains("over NVLink"));
  CHECK_THAT(gpuplan::not_rentable_text(split, one, &c.gpu("mi300x")), Contains("Infinity Fabric"));
  CHECK_THAT(gpuplan::not_rentable_text(split, one), !Contains("NVLink"));
}

TEST_CASE("rental: the catalog reads gpus_per_instance and refuses what no instance is", "[rental][catalog]") {
  Catalog ok = Catalog::builtin();
  ok.merge_text(one_price("[1, 8]"), "u.json");
  CHECK(gpuplan::find_price(ok, "p", "h100-sxm", gpuplan::PricingMode::on_demand).gpus_per_instance == Sizes{1, 8});
  for (const auto& [sizes, message] : std::array<std::pair<const char*, const char*>, 8>{{
           {"0", "u.json: /prices/0/gpus_per_instance: expected the instance sizes this price rents"},
           {"[]", "u.json: /prices/0/gpus_per_instance: expected the instance sizes"},
           {"[0]", "u.json: /prices/0/gpus_per_instance/0: expected a whole number of GPUs per instance between 1 and 576"},
           {"[-8]", "/gpus_per_instance/0: expected a whole number of GPUs per instance between 1 and 576 (the largest NVLink domain announced), got -8"},
           {"[1.5]", "got 1.5"},
           {"[100000]", "got 100000"},
           {"[\"8\"]", "got string"},
           {"[8, 1]", "u.json: /prices/0/gpus_per_instance/1: instance sizes go smallest first, each once; 1 follows 8"},
       }}) {
    INFO(sizes);
    Catalog c = Catalog::builtin();
    CHECK_THROWS_WITH(c.merge_text(one_price(sizes), "u.json"), Contains(message));
  }
}

TEST_CASE("rental: a user price replaces every instance size of its offer", "[rental][catalog]") {
  Catalog c = Catalog::builtin();
  const auto l40s = [&c] {
    std::vector<std::string> out;
    for (const gpuplan::Price& p : c.prices()) {
      if (p.provider == "aws" && p.gpu == "l40s" && p.mode == gpuplan::PricingMode::on_demand) {
        out.push_back(p.instance);
      }
    }
    return out;
  };
  CHECK(l40s() == std::vector<std::string>{"g6e.xlarge", "g6e.12xlarge", "g6e.48xlarge"});
  const gpuplan::MergeReport report = c.merge_text(R"({"schema_version": 1, "prices": [{"provider": "aws",
    "gpu": "l40s", "mode": "on-demand", "usd_per_gpu_hour": 2.0, "date": "2026-11", "region": "us-east-1",
    "instance": "mine", "sources": ["test"]}]})", "u.json");
  CHECK(l40s() == std::vector<std::string>{"mine"});
  REQUIRE(report.overrides.size() == 1);
  CHECK_THAT(report.overrides.front(), Contains("price aws/l40s/on-demand/us-east-1"));
}

// The finding: "1 x A100 at Azure $4.10/h" when the smallest VM is $32.77/h. The plan pays the
// 8-GPU ND96amsr and fills it with replicas.
TEST_CASE("rental: plan fills an 8-GPU instance with replicas and ranks by what is paid", "[rental][plan]") {
  const Catalog& c = Catalog::builtin();
  gpuplan::PlanRequest r;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.gpus = {"a100-sxm-80gb"};
  r.provider = "azure";
  r.weights_dtypes = {gpuplan::DType::bf16};
  r.kv_dtypes = {gpuplan::DType::bf16};
  r.max_gpus_per_replica = 2;
  r.targets.output_tokens_per_s = 1000;
  r.targets.max_itl_s = 0.050;
  const gpuplan::PlanResult res = gpuplan::plan(c, gpuplan::test::model("llama-3.1-8b"), r);
  REQUIRE_FALSE(res.configurations.empty());
  for (const gpuplan::PlanConfig& k : res.configurations) {
    INFO(k.layout.tp << " x " << k.replicas);
    CHECK(k.cost.rental.rented_gpus % 8 == 0);
    CHECK(k.gpus == k.cost.rental.rented_gpus);  // TP 1 and 2 fill the instance
    CHECK_THAT(k.usd_per_hour(), WithinRel(32.77 * static_cast<double>(k.gpus / 8), 1e-4));
  }
  const gpuplan::PlanConfig& best = res.configurations.front();
  CHECK(best.replicas * best.layout.gpus() == 8);
}
