// The catalog's coverage (issue 9): the GPUs and models people rent and run, parameter counts
// against the publishers' figures, dated prices.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuplan/catalog.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinRel;

namespace {
using gpuplan::test::cat;
using gpuplan::test::params;
}  // namespace

TEST_CASE("coverage: the issue's GPUs are present with sources", "[catalog]") {
  for (const char* id : {"gb300", "h20", "rtx-pro-6000-server", "a10g", "l40", "gh200", "gh200-144gb", "mi350x",
                         "gaudi2"}) {
    INFO(id);
    REQUIRE(cat().find_gpu(id) != nullptr);
    CHECK_FALSE(cat().gpu(id).sources.empty());
  }
}

// Reference README 1.1/1.2: Gaudi 3 scales up over 21 of its 24 on-die 200 GbE RoCE ports in an
// 8-card node (21 x 200 Gb/s = 525 GB/s per direction) and ships at 1600 MHz: 1677 TF realized
// against the 1835 TF headline (stas00 note 19).
TEST_CASE("coverage: Gaudi 3 has its RoCE scale-up link and the realized peak", "[catalog][reference]") {
  const auto& g = cat().gpu("gaudi3");
  REQUIRE(g.scale_up);
  CHECK_THAT(g.scale_up->bytes_per_s_per_direction, WithinRel(525e9, 1e-12));
  CHECK(g.scale_up->domain_gpus == 8);
  CHECK_THAT(g.dense_flop_per_s.at("bf16"), WithinRel(1677e12, 1e-12));
  bool headline = false;
  for (const auto& a : g.alternatives) {
    headline = headline || (a.field == "dense_tflop_per_s.bf16" && std::abs(a.value - 1835) < 1e-9);
  }
  CHECK(headline);
}

// Reference README 1.1: B200 FP32 80 TF; bandwidth 7.7 (HGX) stored, 8.0 (DGX sheet) disputed.
TEST_CASE("coverage: B200 FP32 and the disputed figures of B200/B300", "[catalog][reference]") {
  CHECK_THAT(cat().gpu("b200").dense_flop_per_s.at("fp32"), WithinRel(80e12, 1e-12));
  const auto has = [](const char* gpu, const char* field, double value) {
    for (const auto& a : cat().gpu(gpu).alternatives) {
      if (a.field == field && std::abs(a.value - value) < 1e-9) {
        return true;
      }
    }
    return false;
  };
  CHECK(has("b200", "memory_bandwidth_tb_per_s", 8.0));
  CHECK(has("b300", "memory_bandwidth_tb_per_s", 8.0));
  CHECK(has("b300", "dense_tflop_per_s.fp4", 15000));
}

// Publishers' parameter counts. Tolerances cover rounding in the quoted figure and, where noted,
// parts the catalog entry does not count (vision encoders, multi-token-prediction heads).
TEST_CASE("coverage: new models' parameter counts match the publishers", "[catalog][reference]") {
  // Meta model cards: Llama 3.2 1B has 1.23B, 3B has 3.21B parameters.
  CHECK_THAT(params("llama-3.2-1b").total(), WithinRel(1.23e9, 0.01));
  CHECK_THAT(params("llama-3.2-3b").total(), WithinRel(3.21e9, 0.01));
  // Gemma 2 report (arXiv:2408.00118) Table 2: 9B = 918M embedding + 8,324M non-embedding;
  // 27B = 1,180M + 26,047M.
  CHECK_THAT(params("gemma-2-9b").embedding, WithinRel(918e6, 0.005));
  CHECK_THAT(params("gemma-2-9b").body(), WithinRel(8324e6, 0.005));
  CHECK_THAT(params("gemma-2-27b").embedding, WithinRel(1180e6, 0.005));
  CHECK_THAT(params("gemma-2-27b").body(), WithinRel(26047e6, 0.005));
  // Gemma 3 report (arXiv:2503.19786) Table 1: 4B = 675M embedding + 3,209M non-embedding;
  // 12B = 1,012M + 10,759M; a 417M vision encoder each (with its projector here).
  CHECK_THAT(params("gemma-3-4b").embedding, WithinRel(675e6, 0.01));
  CHECK_THAT(params("gemma-3-4b").body() - params("gemma-3-4b").vision, WithinRel(3209e6, 0.005));
  CHECK_THAT(params("gemma-3-4b").vision, WithinRel(417e6, 0.01));
  CHECK_THAT(params("gemma-3-12b").embedding, WithinRel(1012e6, 0.01));
  CHECK_THAT(params("gemma-3-12b").body() - params("gemma-3-12b").vision, WithinRel(10759e6, 0.005));
  CHECK_THAT(params("gemma-3-12b").vision, WithinRel(417e6, 0.015));
  // Hugging Face model page of microsoft/phi-4: 14.7B.
  CHECK_THAT(params("phi-4").total(), WithinRel(14.7e9, 0.01));
  // Mistral announcements: NeMo 12B (HF page: 12.2B), Small 3.1 24B (with its ~0.44B vision
  // encoder, counted), Large 2 123B.
  CHECK_THAT(params("mistral-nemo-12b").total(), WithinRel(12.2e9, 0.01));
  CHECK_THAT(params("mistral-small-3.1-24b").total(), WithinRel(24e9, 0.01));
  CHECK_THAT(params("mistral-small-3.1-24b").vision, WithinRel(0.44e9, 0.1));
  CHECK_THAT(params("mistral-large-2").total(), WithinRel(123e9, 0.01));
  // Qwen3-14B model card: 14.8B, 13.2B non-embedding.
  CHECK_THAT(params("qwen3-14b").total(), WithinRel(14.8e9, 0.01));
  CHECK_THAT(params("qwen3-14b").body(), WithinRel(13.2e9, 0.01));
  // DeepSeek-V3.1 model card: 671B total, 37B activated (MTP module not counted).
  CHECK_THAT(params("deepseek-v3.1").total(), WithinRel(671e9, 0.01));
  CHECK_THAT(params("deepseek-v3.1").active(), WithinRel(37e9, 0.02));
  // Qwen3-Next-80B-A3B model card: 80B total, 3B activated. "3B" is rounded to one digit and
  // matches the count without the embedding and the LM head (3.25B here; 3.87B with both). The
  // multi-token-prediction layer is not counted.
  const auto next = params("qwen3-next-80b-a3b");
  CHECK_THAT(next.total(), WithinRel(80e9, 0.01));
  CHECK(next.active_without_embedding_and_head() > 2.5e9);
  CHECK(next.active_without_embedding_and_head() < 3.5e9);
  // Kimi K2 model card: 1T total, 32B activated.
  CHECK_THAT(params("kimi-k2").total(), WithinRel(1.04e12, 0.02));
  CHECK_THAT(params("kimi-k2").active(), WithinRel(32e9, 0.03));
}

// OpenAI gpt-oss model card (table 1): gpt-oss-20b has 3.61B active parameters, gpt-oss-120b
// 5.13B, with "Embed + Unembed" 1.16B listed apart: the active figure leaves out the input
// embedding (a lookup, not a matmul) and keeps the unembedding, a matmul every token runs.
// Leaving the head out too would give 3.03B and 4.55B, 16 % and 11 % under the card.
TEST_CASE("coverage: active parameters without the embedding, as publishers quote", "[catalog][reference]") {
  const auto small = params("gpt-oss-20b");
  const auto large = params("gpt-oss-120b");
  CHECK_THAT(small.active_without_embedding(), WithinRel(3.61e9, 0.01));
  CHECK_THAT(large.active_without_embedding(), WithinRel(5.13e9, 0.01));
  // The card's 1.16B for both tables: 201,088 x 2,880 twice (untied).
  CHECK_THAT(small.embedding + small.lm_head, WithinRel(1.16e9, 0.01));
  CHECK_THAT(small.active_without_embedding_and_head(), WithinRel(3.61e9 - 0.58e9, 0.01));
  CHECK(small.active_without_embedding() < small.active());
  // DeepSeek-V3 README: 37B activated, 36.6B of it without the embedding (the 0.9B output head
  // counted).
  CHECK_THAT(params("deepseek-v3").active_without_embedding(), WithinRel(36.6e9, 0.01));
}

// A tied LM head is the embedding matrix used twice: both figures subtract it once.
TEST_CASE("coverage: a tied LM head is subtracted once", "[catalog]") {
  const auto tied = params("llama-3.2-1b");
  CHECK_THAT(tied.lm_head, Catch::Matchers::WithinAbs(0, 0));
  CHECK_THAT(tied.active_without_embedding_and_head(), WithinRel(tied.active_without_embedding(), 1e-12));
  CHECK_THAT(tied.active() - tied.active_without_embedding(), WithinRel(128256.0 * 2048, 1e-9));
}

TEST_CASE("coverage: every price has an ISO date no later than today and a source", "[catalog]") {
  for (const auto& p : cat().prices()) {
    INFO(p.provider << " " << p.gpu << " " << p.date);
    CHECK((p.date.size() == 7 || p.date.size() == 10));
    CHECK(p.age_days >= 0);
    CHECK_FALSE(p.sources.empty());
  }
}

namespace {
// Providers with a price for `gpu` in `mode` (any region).
std::set<std::string> providers_with(std::string_view gpu, gpuplan::PricingMode mode) {
  std::set<std::string> out;
  for (const auto& p : cat().prices()) {
    if (p.gpu == gpu && p.mode == mode) {
      out.insert(p.provider);
    }
  }
  return out;
}
}  // namespace

// The seed's question (seeds/004: H100 SXM vs H200 SXM at Lyceum, on-demand and dedicated).
// Issue 9 asks for both GPUs at Lyceum and at least three other providers. Only on-demand
// reaches that: Lyceum publishes no spot or reserved price, and "dedicated" is Lyceum's own mode.
TEST_CASE("coverage: the seed's GPUs have on-demand prices at Lyceum and three more providers", "[catalog]") {
  for (const char* gpu : {"h100-sxm", "h200-sxm"}) {
    INFO(gpu);
    const auto od = providers_with(gpu, gpuplan::PricingMode::on_demand);
    CHECK(od.contains("lyceum"));
    CHECK(od.size() >= 4);
    CHECK(providers_with(gpu, gpuplan::PricingMode::dedicated).contains("lyceum"));
    // A reserved price exists for both (Lambda, GCP, Azure, AWS, Hyperstack, Civo for the H100;
    // GCP, Azure, AWS, Hyperstack, Civo for the H200).
    CHECK_FALSE(providers_with(gpu, gpuplan::PricingMode::reserved).empty());
  }
  // The hyperscalers the issue names, for the H100.
  const auto od = providers_with("h100-sxm", gpuplan::PricingMode::on_demand);
  for (const char* provider : {"aws", "gcp", "azure", "oracle", "coreweave"}) {
    CHECK(od.contains(provider));
  }
}

TEST_CASE("coverage: per-GPU prices are plausible for one GPU-hour", "[catalog]") {
  // A per-instance price left undivided would be 4-8x these bounds (an 8x H100 node is
  // $22-$100/h); list prices for one data-centre GPU-hour sit between $0.10 and $20.
  for (const auto& p : cat().prices()) {
    INFO(p.provider << " " << p.gpu << " " << gpuplan::to_string(p.mode));
    CHECK(p.usd_per_gpu_hour > 0.1);
    CHECK(p.usd_per_gpu_hour < 20.0);
  }
}

// Issue 9: every pricing mode prices both of the seed's GPUs at Lyceum and at least three other
// providers. Modes are grouped as a buyer compares them: spot, preemptible and interruptible are
// one offer under three vendors' names; AWS's capacity blocks are short reservations. Lyceum
// publishes on-demand and dedicated rates only (seeds/004), so those are the groups it must be in.
// The groups the shipped data does not cover yet are listed, and the test fails once they are
// covered so the list cannot go stale.
TEST_CASE("coverage: every pricing mode prices the seed's GPUs at Lyceum and three more providers", "[catalog]") {
  using gpuplan::PricingMode;
  struct Group {
    const char* name;
    std::vector<PricingMode> modes;
    bool lyceum;
  };
  const std::vector<Group> groups{
      {"on-demand", {PricingMode::on_demand}, true},
      {"dedicated", {PricingMode::dedicated}, true},
      {"reserved", {PricingMode::reserved, PricingMode::capacity_block}, false},
      {"interruptible", {PricingMode::spot, PricingMode::preemptible, PricingMode::interruptible}, false}};
  // Every group is covered: reserved H200 rates at Hyperstack, AWS (capacity blocks, savings
  // plans), GCP and Azure (1y and 3y) and Civo. Nebius, CoreWeave and Oracle still publish a
  // discount or "contact sales" rather than a rate, so they are not among them.
  const std::set<std::string> known_gaps{};
  std::set<std::string> gaps;
  for (const Group& g : groups) {
    for (const char* gpu : {"h100-sxm", "h200-sxm"}) {
      std::set<std::string> providers;
      for (PricingMode m : g.modes) {
        providers.merge(providers_with(gpu, m));
      }
      INFO(g.name << " " << gpu);
      if (g.lyceum) {
        CHECK(providers.contains("lyceum"));
      }
      providers.erase("lyceum");
      if (providers.size() < 3) {
        gaps.insert(std::string(g.name) + " " + gpu);
      }
    }
  }
  CHECK(gaps == known_gaps);
}

// Reserved prices say their commitment term: GCP's A3 High committed-use discounts for 1 and 3
// years are two prices (Cyclenerd month_1y and month_3y), the longer term the cheaper.
TEST_CASE("coverage: committed-use prices carry machine-readable 1y and 3y terms", "[catalog]") {
  double one_year = 0;
  double three_years = 0;
  for (const auto& p : cat().prices()) {
    if (p.provider == "gcp" && p.gpu == "h100-sxm" && p.mode == gpuplan::PricingMode::reserved) {
      (p.term == "1y" ? one_year : three_years) = p.usd_per_gpu_hour;
      CHECK((p.term == "1y" || p.term == "3y"));
    }
  }
  REQUIRE(one_year > 0);
  REQUIRE(three_years > 0);
  CHECK(three_years < one_year);
}

namespace {
// A provider's 1- and 3-year reserved prices for `gpu` (0 where missing); a term other than 1y
// or 3y fails the check.
std::pair<double, double> commitment_terms(std::string_view provider, std::string_view gpu) {
  double one_year = 0;
  double three_years = 0;
  for (const auto& p : cat().prices()) {
    if (p.provider == provider && p.gpu == gpu && p.mode == gpuplan::PricingMode::reserved) {
      (p.term == "1y" ? one_year : three_years) = p.usd_per_gpu_hour;
      CHECK((p.term == "1y" || p.term == "3y"));
    }
  }
  return {one_year, three_years};
}
}  // namespace

// The hyperscalers publish both commitment terms for the seed's GPUs (GCP committed use, Azure
// reserved VM instances, AWS EC2 Instance Savings Plans, read 2026-09-27): each is two prices,
// and the 3-year term is the cheaper one.
TEST_CASE("coverage: hyperscaler H100 and H200 commitments have a 1y and a cheaper 3y price", "[catalog]") {
  for (const char* provider : {"gcp", "azure", "aws"}) {
    for (const char* gpu : {"h100-sxm", "h200-sxm"}) {
      INFO(provider << " " << gpu);
      const auto [one_year, three_years] = commitment_terms(provider, gpu);
      CHECK(one_year > 0);
      CHECK(three_years > 0);
      CHECK(three_years < one_year);
    }
  }
}

// Issue 9 names A100, B200 and L4 besides the seed's GPUs. Read 2026-09-27 (nativ-x/fsku term
// catalog): AWS p4de and p6-b200 savings plans, Azure ND96amsr A100 v4 reservations, GCP A2 Ultra
// and A4 committed use; GCP G2 (L4) from the 2025-03-06 billing-catalog snapshot. Each is on
// offer on demand too, except A4, which Google sells only committed, by calendar mode or spot.
TEST_CASE("coverage: hyperscaler A100 80GB, B200 and L4 have on-demand, 1y and cheaper 3y prices", "[catalog]") {
  struct Offer {
    const char* provider;
    const char* gpu;
    bool on_demand;
  };
  for (const Offer& o : {Offer{"aws", "a100-sxm-80gb", true}, Offer{"aws", "b200", true},
                         Offer{"azure", "a100-sxm-80gb", true}, Offer{"gcp", "a100-sxm-80gb", true},
                         Offer{"gcp", "b200", false}, Offer{"gcp", "l4", true}}) {
    INFO(o.provider << " " << o.gpu);
    const auto [one_year, three_years] = commitment_terms(o.provider, o.gpu);
    CHECK(one_year > 0);
    CHECK(three_years > 0);
    CHECK(three_years < one_year);
    CHECK(providers_with(o.gpu, gpuplan::PricingMode::on_demand).contains(o.provider) == o.on_demand);
  }
  // Spot: AWS p4de and p6-b200 and GCP A2 Ultra (2025 snapshots).
  CHECK(providers_with("a100-sxm-80gb", gpuplan::PricingMode::spot).contains("aws"));
  CHECK(providers_with("a100-sxm-80gb", gpuplan::PricingMode::spot).contains("gcp"));
  CHECK(providers_with("b200", gpuplan::PricingMode::spot).contains("aws"));
  // Short fixed-length reservations: AWS capacity blocks and GCP's calendar mode for B200.
  const auto blocks = providers_with("b200", gpuplan::PricingMode::capacity_block);
  CHECK(blocks.contains("aws"));
  CHECK(blocks.contains("gcp"));
  // L4 and L40S beyond the marketplaces: GCP G2 and AWS G6/G6E on demand and spot, Oracle and
  // CoreWeave L40S on demand.
  for (const char* provider : {"gcp", "aws"}) {
    INFO(provider);
    CHECK(providers_with("l4", gpuplan::PricingMode::on_demand).contains(provider));
    CHECK(providers_with("l4", gpuplan::PricingMode::spot).contains(provider));
  }
  const auto l40s = providers_with("l40s", gpuplan::PricingMode::on_demand);
  for (const char* provider : {"aws", "oracle", "coreweave"}) {
    CHECK(l40s.contains(provider));
  }
  CHECK(providers_with("l40s", gpuplan::PricingMode::spot).contains("aws"));
}
