// Review of the s64 merge: vLLM V0's state cache caps the sequences fit reports and is named where
// a launch does not fit; Nemotron-H's first vLLM release; scale's super-linear note under a latency
// cap names the cap, not memory.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/scale_model.hpp>

#include "test_support.hpp"

using gpuplan::test::cat;

namespace {

const gpuplan::ModelSpec& review_s64_nemotron_nano() {
  static const gpuplan::ModelSpec m =
      gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-s64-nemotron-nano-9b-v2.json"));
  return m;
}

gpuplan::FitRequest review_s64_vllm(int minor, int patch, std::uint64_t tp, std::uint64_t dp) {
  gpuplan::FitRequest req{.layout = gpuplan::Layout{.tp = tp, .dp = dp}, .context_tokens = 8192};
  req.engine = gpuplan::EngineSettings{.engine = gpuplan::Engine::vllm, .vllm_minor_version = minor,
                                       .vllm_patch_version = patch};
  return req;
}

}  // namespace

TEST_CASE("review s64: V0's state cache caps the sequences a replica runs at its slots", "[engine][s64]") {
  // 8 x H100 at TP 8: the attention KV alone would hold thousands of 8k sequences (4,001 before),
  // but V0's cache holds state for max_num_seqs 256; V1 (0.10.2) keeps no such cap.
  const auto v0 = gpuplan::fit(review_s64_nemotron_nano(), cat().gpu("h100-sxm"), review_s64_vllm(9, 2, 8, 1));
  REQUIRE(v0.engine);
  REQUIRE(v0.engine->v0_state_slots == 256);
  REQUIRE(v0.max_concurrent_sequences);
  CHECK(*v0.max_concurrent_sequences == 256);
  // With DP the cap is per replica.
  const auto dp = gpuplan::fit(review_s64_nemotron_nano(), cat().gpu("h100-sxm"), review_s64_vllm(9, 2, 2, 4));
  REQUIRE(dp.max_concurrent_sequences);
  CHECK(*dp.max_concurrent_sequences <= 4 * 256);
  const auto v1 = gpuplan::fit(review_s64_nemotron_nano(), cat().gpu("h100-sxm"), review_s64_vllm(10, 2, 8, 1));
  REQUIRE(v1.max_concurrent_sequences);
  CHECK(*v1.max_concurrent_sequences > 256);
}

TEST_CASE("review s64: a launch V0's state cache sinks names it and --max-num-seqs", "[engine][s64]") {
  auto req = review_s64_vllm(10, 1, 1, 1);
  req.context_tokens = 131072;
  const auto f = gpuplan::fit(review_s64_nemotron_nano(), cat().gpu("l40s"), req);
  REQUIRE_FALSE(f.fits);
  const std::string blame = gpuplan::reserve_blame(f);
  CHECK(blame.find("recurrent-state cache of 256 sequences") != std::string::npos);
  CHECK(blame.find("--max-num-seqs") != std::string::npos);
  // Without the V0 cache there is nothing to blame.
  const auto v1 = gpuplan::fit(review_s64_nemotron_nano(), cat().gpu("l40s"), review_s64_vllm(10, 2, 1, 1));
  CHECK(gpuplan::reserve_blame(v1).empty());
}

TEST_CASE("review s64: vLLM before 0.9.1 cannot load Nemotron-H", "[engine][s64]") {
  const auto old = gpuplan::engine_release_refusal(gpuplan::Engine::vllm, 9, 0, std::nullopt, review_s64_nemotron_nano());
  REQUIRE(old);
  CHECK(old->find("0.9.1") != std::string::npos);
  CHECK(old->find("nemotron_h") != std::string::npos);
  CHECK_FALSE(gpuplan::engine_release_refusal(gpuplan::Engine::vllm, 9, 1, std::nullopt, review_s64_nemotron_nano()));
  CHECK_FALSE(gpuplan::engine_release_refusal(gpuplan::Engine::vllm, 10, 1, std::nullopt, review_s64_nemotron_nano()));
}

TEST_CASE("review s64: scale's super-linear row under a latency-capped baseline names the cap", "[scale][s64]") {
  // Mixtral 8x7B on L40S within 30 ms: TP 4's batch is set by the cap; a wider TP meets it at a
  // larger batch. That, not freed memory, is the super-linear gain.
  gpuplan::ScaleModelRequest r;
  r.gpus = {"l40s"};
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.up_to = 8;
  r.max_itl_s = 0.030;
  const auto res = gpuplan::model_scaling(cat(), cat().model("mixtral-8x7b"), r);
  const gpuplan::ScaleModelTable& t = res.tables.at(0);
  REQUIRE(t.baseline_batch_by_latency);
  const bool super_linear = std::any_of(t.rows.begin(), t.rows.end(), [](const gpuplan::ScaleModelRow& x) {
    return x.efficiency.value_or(0.0) > 1.0 && !(x.layout.ep > 1 && x.layout.ep >= x.layout.tp);
  });
  REQUIRE(super_linear);
  const std::string text = gpuplan::render_model_scaling(res, gpuplan::RenderOptions{});
  CHECK(text.find("super-linear: larger batch within the latency cap") != std::string::npos);
  CHECK(text.find("super-linear: larger batch in the freed memory") == std::string::npos);
}
