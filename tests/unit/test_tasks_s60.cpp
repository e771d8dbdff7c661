// Helper s60 (tasks): plan searches a checkpoint's own quantized format on every GPU that runs it,
// and ranks it before a re-quantization of the same width; compare says when it sets a
// measurement against an estimate.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/compare.hpp>
#include <gpuplan/planner.hpp>
#include <gpuplan/train_plan.hpp>

#include "test_support.hpp"

using namespace gpuplan;

namespace {

using gpuplan::test::cat;

// gpt-oss-120b on H100s at a price typed by hand: 1K in, 1K out, 10,000 output tok/s at ITL <= 30 ms.
PlanRequest gpt_oss_request() {
  PlanRequest r;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 1024;
  r.gpus = {"h100-sxm"};
  r.given_usd_per_gpu_hour = {{"h100-sxm", 3.2}};
  r.kv_dtypes = {DType::bf16};
  r.max_gpus_per_replica = 2;
  r.targets.output_tokens_per_s = 10'000;
  r.targets.max_itl_s = 0.030;
  r.top = 50;
  return r;
}

}  // namespace

// H100 multiplies no FP4, so MXFP4 was not in its default list: the shipped checkpoint (MXFP4
// experts, bf16 rest, what cost and compare size) was never searched, and #1 was an INT4
// re-quantization of every layer that OpenAI does not ship.
TEST_CASE("s60 plan: gpt-oss on H100 is searched and ranked in its own MXFP4 checkpoint", "[plan][s60]") {
  const ModelSpec& model = cat().model("gpt-oss-120b");
  const PlanResult res = plan(cat(), model, gpt_oss_request());
  REQUIRE_FALSE(res.miss);
  REQUIRE_FALSE(res.configurations.empty());
  const auto has = [&](DType d) {
    return std::any_of(res.configurations.begin(), res.configurations.end(),
                       [d](const PlanConfig& c) { return c.weights_dtype == d; });
  };
  CHECK(has(DType::mxfp4));
  CHECK(has(DType::int4));  // the re-quantizations are still searched
  // Same price and GPU count as the INT4 rows: the checkpoint as it ships comes first.
  const PlanConfig& best = res.configurations.front();
  CHECK(best.weights_dtype == DType::mxfp4);
  const auto int4 = std::find_if(res.configurations.begin(), res.configurations.end(),
                                 [](const PlanConfig& c) { return c.weights_dtype == DType::int4; });
  REQUIRE(int4 != res.configurations.end());
  CHECK(int4->cost.rental.rented_gpus >= best.cost.rental.rented_gpus);
}

TEST_CASE("s60 plan: a 16-bit checkpoint on H100 is not searched in MXFP4 unasked", "[plan][s60]") {
  PlanRequest r = gpt_oss_request();
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.targets = {};
  r.top = 100;
  const PlanResult res = plan(cat(), cat().model("llama-3.1-8b"), r);
  REQUIRE_FALSE(res.configurations.empty());
  CHECK(std::none_of(res.configurations.begin(), res.configurations.end(),
                     [](const PlanConfig& c) { return c.weights_dtype == DType::mxfp4; }));
}

TEST_CASE("s60 plan: gpt-oss's own MXFP4 on B200 ranks before NVFP4 of every layer", "[plan][s60]") {
  PlanRequest r = gpt_oss_request();
  r.gpus = {"b200"};
  r.given_usd_per_gpu_hour = {{"b200", 6.0}};
  const PlanResult res = plan(cat(), cat().model("gpt-oss-120b"), r);
  REQUIRE_FALSE(res.configurations.empty());
  // fp4 (NVFP4) and mxfp4 both fit one B200 at this target: the shipped one first.
  CHECK(res.configurations.front().weights_dtype == DType::mxfp4);
}

TEST_CASE("s60 compare: a measurement set against an estimate is said, with the estimate scaled", "[compare][s60]") {
  CompareRequest r;
  r.gpus = {"h100-sxm", "h200-sxm"};
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.given_usd_per_gpu_hour = {{"h100-sxm", 2.99}, {"h200-sxm", 3.49}};
  const ModelSpec& model = cat().model("llama-3.1-8b");
  const CompareResult plain = compare(cat(), model, r);
  const auto mixed_note = [](const CompareResult& res) {
    return std::find_if(res.notes.begin(), res.notes.end(),
                        [](const std::string& n) { return n.starts_with("mixed sources"); });
  };
  CHECK(mixed_note(plain) == plain.notes.end());
  REQUIRE(plain.options.size() == 2);
  const double h100_estimate = plain.options[0].estimate_tokens_per_s;
  const double h200_estimate = plain.options[1].estimate_tokens_per_s;
  r.measured_tokens_per_s = {{"h100-sxm", h100_estimate * 0.5}};
  const CompareResult res = compare(cat(), model, r);
  const auto note = mixed_note(res);
  REQUIRE(note != res.notes.end());
  CHECK_THAT(*note, Catch::Contains("h100-sxm measured") && Catch::Contains("0.50x its estimate") &&
                        Catch::Contains("h200-sxm estimated") &&
                        Catch::Contains(fmt::format("h200-sxm {:.0f} tok/s", h200_estimate * 0.5)));
  // Both measured: like with like, no note.
  r.measured_tokens_per_s["h200-sxm"] = h200_estimate * 0.5;
  const CompareResult both = compare(cat(), model, r);
  CHECK(mixed_note(both) == both.notes.end());
}

// train priced only the catalog's rates: a negotiated price could not be given (cost, plan, scale
// and plan files take one).
TEST_CASE("s60 train: a price per GPU-hour typed by hand prices the run alone", "[train][s60]") {
  TrainPlanRequest req;
  req.train.seq_tokens = 4096;
  req.train.layout.dp = 8;
  req.tokens = 1e9;
  req.usd_per_gpu_hour = 1.9;
  const TrainPlan plan = train_plan(cat(), cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), req);
  REQUIRE(plan.costs.size() == 1);
  const TrainCost& c = plan.costs.front();
  CHECK(c.price.given());
  CHECK(c.usd_per_hour == Approx(8 * 1.9));
  CHECK(c.usd_per_million_tokens == Approx(8 * 1.9 / (plan.step.tokens_per_s * 3600) * 1e6));
  CHECK(c.usd == Approx(c.usd_per_million_tokens * 1e3));
  req.provider = "aws";
  CHECK_THROWS_WITH(train_plan(cat(), cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), req),
                    Catch::Contains("usd_per_gpu_hour"));
  req.provider.clear();
  req.usd_per_gpu_hour = -1;
  CHECK_THROWS_WITH(train_plan(cat(), cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), req),
                    Catch::Contains("usd_per_gpu_hour"));
}
