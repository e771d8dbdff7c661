// The embedded catalog: every entry parses (Catalog::builtin() would throw otherwise), carries
// sources, and holds the figures DESIGN.md and the seeds quote.
#include <catch2/catch.hpp>

#include <set>

#include <gpuplan/catalog.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinRel;

namespace {
using gpuplan::test::cat;
}  // namespace

TEST_CASE("shipped: the issue's required GPUs, models and prices are present", "[catalog]") {
  for (const char* id : {"h100-sxm", "h100-pcie", "h100-nvl", "h200-sxm", "h200-nvl", "a100-sxm-40gb",
                         "a100-sxm-80gb", "l40s", "l4", "b200", "gb200", "mi300x", "mi325x"}) {
    CHECK(cat().find_gpu(id) != nullptr);
  }
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b",
                         "llama-3.1-405b", "llama-3.3-70b", "mistral-7b", "mixtral-8x7b", "mixtral-8x22b",
                         "qwen2.5-7b", "qwen2.5-72b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
                         "deepseek-v3", "gpt-oss-20b", "gpt-oss-120b", "gemma-3-27b", "glm-4.5"}) {
    CHECK(cat().find_model(id) != nullptr);
  }
}

TEST_CASE("shipped: every entry names its sources", "[catalog]") {
  for (const auto& g : cat().gpus()) {
    CHECK_FALSE(g.sources.empty());
  }
  for (const auto& m : cat().models()) {
    CHECK_FALSE(m.sources.empty());
  }
  for (const auto& p : cat().prices()) {
    CHECK_FALSE(p.sources.empty());
    CHECK_FALSE(p.date.empty());
  }
}

TEST_CASE("shipped: dense and sparse FLOPS are never confused", "[catalog]") {
  for (const auto& g : cat().gpus()) {
    INFO(g.id);
    // Every GPU has a 16-bit rate: bf16, or fp16 alone before Ampere (T4, V100).
    CHECK((g.dense_flop_per_s.contains("bf16") || g.dense_flop_per_s.contains("fp16")));
    for (const auto& [type, sparse] : g.sparse_flop_per_s) {
      REQUIRE(g.dense_flop_per_s.contains(type));
      // 2:4 sparsity doubles the vendor figure (L40S rounds to 2.02x; Blackwell Ultra's FP4 is
      // quoted at 18 sparse vs 14 dense PFLOPS); a ratio near 1 means the two were mixed up.
      const double ratio = sparse / g.dense_flop_per_s.at(type);
      CHECK(ratio > 1.25);
      CHECK(ratio < 2.05);
    }
  }
}

// Seed 004: H100 and H200 have the same compute: FP8 1,979 and FP16 989 dense TFLOPS (the
// 3,958 / 1,979 figures are with sparsity); bandwidth 3.35 vs 4.8 TB/s.
TEST_CASE("shipped: H100 and H200 SXM figures from the seeds", "[catalog][reference]") {
  const auto& h100 = cat().gpu("h100-sxm");
  const auto& h200 = cat().gpu("h200-sxm");
  for (const auto* g : {&h100, &h200}) {
    CHECK_THAT(g->dense_flop_per_s.at("fp8"), WithinRel(1979e12, 1e-12));
    CHECK_THAT(g->dense_flop_per_s.at("bf16"), WithinRel(989e12, 1e-12));
    CHECK_THAT(g->sparse_flop_per_s.at("fp8"), WithinRel(3958e12, 1e-12));
    REQUIRE(g->scale_up);
    CHECK_THAT(g->scale_up->bytes_per_s_per_direction, WithinRel(450e9, 1e-12));  // NVLink 4, one way
  }
  CHECK_THAT(h100.memory_bandwidth_bytes_per_s, WithinRel(3.35e12, 1e-12));
  CHECK_THAT(h200.memory_bandwidth_bytes_per_s, WithinRel(4.8e12, 1e-12));
  // DESIGN.md: nvidia-smi reports 81,559 MiB (H100 SXM) and 143,771 MiB (H200).
  CHECK_THAT(*h100.usable_memory_bytes, WithinRel(81559.0 * 1048576.0, 1e-12));
  CHECK_THAT(*h200.usable_memory_bytes, WithinRel(143771.0 * 1048576.0, 1e-12));
  CHECK_THAT(h200.memory_bytes, WithinRel(141e9, 1e-12));
  CHECK_FALSE(cat().gpu("a100-sxm-80gb").dense_flop_per_s.contains("fp8"));  // Ampere has no FP8
}

// Seed 004: Lyceum lists H100 at $2.79 on-demand and $3.59 dedicated, H200 at $4.29 and $3.99.
TEST_CASE("shipped: Lyceum prices from the seed", "[catalog][reference]") {
  const auto price = [](const char* gpu, gpuplan::PricingMode mode) {
    for (const auto& p : cat().prices()) {
      if (p.provider == "lyceum" && p.gpu == gpu && p.mode == mode) {
        return p.usd_per_gpu_hour;
      }
    }
    return -1.0;
  };
  using gpuplan::PricingMode;
  CHECK_THAT(price("h100-sxm", PricingMode::on_demand), WithinRel(2.79, 1e-12));
  CHECK_THAT(price("h100-sxm", PricingMode::dedicated), WithinRel(3.59, 1e-12));
  CHECK_THAT(price("h200-sxm", PricingMode::on_demand), WithinRel(4.29, 1e-12));
  CHECK_THAT(price("h200-sxm", PricingMode::dedicated), WithinRel(3.99, 1e-12));
}

// Two instance sizes of one offer are two prices (AWS L40S: the 1-GPU g6e.xlarge and the 4-GPU
// g6e.12xlarge), each naming its instance.
TEST_CASE("shipped: prices name catalog GPUs and are unique per offer and region and instance sizes", "[catalog]") {
  std::set<std::string> keys;
  for (const auto& p : cat().prices()) {
    INFO(gpuplan::price_key(p));
    CHECK(cat().find_gpu(p.gpu) != nullptr);
    CHECK(keys.insert(gpuplan::price_key(p)).second);
    CHECK((p.gpus_per_instance.empty() || !p.instance.empty()));
  }
}

// Volta and Turing: fp16 tensor cores, no bf16 (vLLM: "Bfloat16 is only supported on GPUs with
// compute capability of at least 8.0", vllm#1400). T4 65 fp16 / 130 int8 dense TFLOPS (Turing
// has no 2:4 sparsity), V100 SXM2 125 fp16.
TEST_CASE("shipped: T4 and V100 multiply fp16, not bf16", "[catalog]") {
  const auto& t4 = cat().gpu("t4");
  CHECK_FALSE(t4.dense_flop_per_s.contains("bf16"));
  CHECK_THAT(t4.dense_flop_per_s.at("fp16"), WithinRel(65e12, 1e-12));
  CHECK_THAT(t4.dense_flop_per_s.at("int8"), WithinRel(130e12, 1e-12));
  CHECK(t4.sparse_flop_per_s.empty());
  CHECK(std::string(t4.sixteen_bit_type()) == "fp16");
  CHECK_THAT(cat().gpu("v100-sxm2-32gb").dense_flop_per_s.at("fp16"), WithinRel(125e12, 1e-12));
  CHECK(std::string(cat().gpu("h100-sxm").sixteen_bit_type()) == "bf16");
}
