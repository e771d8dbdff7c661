// Helper s61 (tasks): CSV cells carry numbers without thousands separators; when nothing fits,
// plan and compare say how many GPUs would hold the model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/compare.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/planner.hpp>
#include <gpuplan/render.hpp>

#include "test_support.hpp"

using namespace gpuplan;

namespace {

using gpuplan::test::cat;

RenderOptions csv() {
  RenderOptions o;
  o.format = Format::csv;
  return o;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

// `catalog models --format csv` printed "524,288" (Llama 2 7B's KV bytes per token, 2 x 32
// layers x 32 heads x 128 x 2 bytes = 524,288): a spreadsheet reads that quoted cell as text.
TEST_CASE("s61 csv: grouped numbers lose their separators, lists keep their commas", "[render][csv][s61]") {
  const std::string models = render_model_list(cat(), csv());
  CHECK(contains(models, ",524288,"));
  CHECK_FALSE(contains(models, "524,288"));
  // The table keeps the grouping people read.
  RenderOptions table;
  table.format = Format::table;
  CHECK(contains(render_model_list(cat(), table), "524,288"));
  // A list of instance sizes is not a grouped number: AWS rents 1- and 8-GPU H100 instances.
  const std::string prices = render_price_list(cat(), csv());
  CHECK(contains(prices, "\"1,8\""));
}

// Plan with every layout dropped for memory said "nothing fits ... within the replica size" and
// no more (session 60 N6). DeepSeek-V3 (671 B parameters) is over 300 GB even at 4 bits, and a
// replica of at most 4 H100s holds about 4 x 77 GB.
TEST_CASE("s61 plan: nothing fits names the GPUs the weights alone need", "[plan][s61]") {
  const ModelSpec& model = cat().model("deepseek-v3");
  PlanRequest r;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.gpus = {"h100-sxm"};
  r.given_usd_per_gpu_hour = {{"h100-sxm", 3.0}};
  r.max_gpus_per_replica = 4;
  const PlanResult res = plan(cat(), model, r);
  REQUIRE(res.miss);
  REQUIRE_FALSE(res.miss->closest);
  REQUIRE(res.weights_need.size() == 1);
  const PlanResult::WeightsNeed& need = res.weights_need.front();
  CHECK(need.gpu == "h100-sxm");
  CHECK(need.gpus > 4);
  // The need is the fewest GPUs whose engine caps hold the weights in that format: n - 1 do not.
  FitRequest f;
  f.weights_dtype = need.weights;
  const FitResult whole = fit(model, cat().gpu("h100-sxm"), f);
  double weights_bytes = 0;
  for (double part : whole.model_weight_bytes) {
    weights_bytes += part;
  }
  CHECK(weights_bytes / static_cast<double>(need.gpus) <= whole.per_gpu.engine_cap_bytes);
  CHECK(weights_bytes / static_cast<double>(need.gpus - 1) > whole.per_gpu.engine_cap_bytes);
  RenderOptions table;
  table.format = Format::table;
  const std::string text = render_plan({res}, std::nullopt, table);
  CHECK(contains(text, fmt::format("at least {} x h100-sxm", need.gpus)));
}

// compare with every GPU too small: the error gave each one's reason but not the count that
// holds it, which the "left out" line of a compare with a survivor gives.
TEST_CASE("s61 compare: none fitting names the GPU count that would hold each", "[compare][s61]") {
  CompareRequest r;
  r.gpus = {"l4", "a10"};
  r.gpus_per_option = 8;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.given_usd_per_gpu_hour = {{"l4", 0.8}, {"a10", 0.75}};
  try {
    (void)compare(cat(), cat().model("llama-3.1-405b"), r);
    FAIL("405B in bf16 on 8 x 24 GB GPUs was compared");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(contains(what, "x l4 hold it (--gpus "));
    CHECK(contains(what, "x a10 hold it (--gpus "));
  }
}
