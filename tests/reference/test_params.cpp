// Parameter counts computed from the architecture against published totals (issue 2).
#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinRel;

namespace {
using gpuplan::test::params;
}  // namespace

// Meta Llama 3.1 model card: 8.03 B, 70.6 B, 405.9 B (HF "Model size" 8.03B / 70.6B / 406B).
TEST_CASE("params: Llama 3.1 totals match the model card", "[params][reference]") {
  CHECK_THAT(params("llama-3.1-8b").total(), WithinRel(8.03e9, 0.001));
  CHECK_THAT(params("llama-3.1-70b").total(), WithinRel(70.6e9, 0.001));
  CHECK_THAT(params("llama-3.1-405b").total(), WithinRel(405.9e9, 0.001));
  // Dense: every parameter is active.
  CHECK_THAT(params("llama-3.1-70b").active(), WithinRel(params("llama-3.1-70b").total(), 1e-12));
}

// Mistral AI, "Mixtral of experts" (2024): 46.7 B total, 12.9 B active per token.
TEST_CASE("params: Mixtral 8x7B total and active", "[params][reference]") {
  CHECK_THAT(params("mixtral-8x7b").total(), WithinRel(46.7e9, 0.002));
  CHECK_THAT(params("mixtral-8x7b").active(), WithinRel(12.9e9, 0.002));
}

// DeepSeek-V3 technical report / README: 671 B total, 37 B activated (36.6 B + 0.9 B head
// in the tt-metal weights note: the active figure here includes embedding and head).
TEST_CASE("params: DeepSeek-V3 671B total, about 37B active", "[params][reference]") {
  CHECK_THAT(params("deepseek-v3").total(), WithinRel(671e9, 0.001));
  CHECK_THAT(params("deepseek-v3").active(), WithinRel(37.5e9, 0.02));
}

// OpenAI gpt-oss model card: 116.83 B total (120b), 20.91 B (20b); 5.13 B active excluding
// the 0.58 B embedding.
TEST_CASE("params: gpt-oss totals match the model card", "[params][reference]") {
  const auto p = params("gpt-oss-120b");
  CHECK_THAT(p.total(), WithinRel(116.83e9, 0.001));
  CHECK_THAT(p.active() - p.embedding, WithinRel(5.13e9, 0.01));
  CHECK_THAT(params("gpt-oss-20b").total(), WithinRel(20.91e9, 0.001));
}

// Qwen3 technical report: 30.5 B / 3.3 B active; 235 B / 22 B active.
TEST_CASE("params: Qwen3 MoE totals", "[params][reference]") {
  CHECK_THAT(params("qwen3-30b-a3b").total(), WithinRel(30.5e9, 0.005));
  CHECK_THAT(params("qwen3-30b-a3b").active(), WithinRel(3.3e9, 0.03));
  CHECK_THAT(params("qwen3-235b-a22b").total(), WithinRel(235e9, 0.002));
  CHECK_THAT(params("qwen3-235b-a22b").active(), WithinRel(22e9, 0.01));
}

TEST_CASE("params: Llama 2 and Qwen2.5 published sizes", "[params][reference]") {
  // Llama 2 paper sizes 7B / 13B / 70B; HF reports 6.74 B / 13.0 B / 69.0 B.
  CHECK_THAT(params("llama-2-7b").total(), WithinRel(6.74e9, 0.002));
  CHECK_THAT(params("llama-2-70b").total(), WithinRel(68.98e9, 0.002));
  // Qwen2.5 model cards: 7.61 B and 72.7 B.
  CHECK_THAT(params("qwen2.5-7b").total(), WithinRel(7.61e9, 0.002));
  CHECK_THAT(params("qwen2.5-72b").total(), WithinRel(72.7e9, 0.002));
}

TEST_CASE("params: tied embeddings are counted once", "[params]") {
  const auto p = params("gemma-3-27b");
  CHECK(p.lm_head < 1.0);
  CHECK(p.embedding > 1e9);
}
