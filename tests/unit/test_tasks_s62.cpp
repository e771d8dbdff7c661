// Helper s62 (tasks): compare shows the energy --pue sets in every format; CSV cells of plan and
// compare hold one figure each; cost's throughput sentence is worded by the renderer.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/compare.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/planner.hpp>
#include <gpuplan/render.hpp>

#include "test_support.hpp"

using namespace gpuplan;
using Catch::Matchers::WithinRel;

namespace {

using gpuplan::test::cat;

RenderOptions format(Format f) {
  RenderOptions o;
  o.format = f;
  return o;
}

bool has_part(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

CompareRequest h100_h200(double pue) {
  CompareRequest r;
  r.gpus = {"h100-sxm", "h200-sxm"};
  r.gpus_per_option = 1;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.given_usd_per_gpu_hour = {{"h100-sxm", 2.0}, {"h200-sxm", 3.0}};
  r.cost.pue = pue;
  return r;
}

}  // namespace

// compare --pue changed only the JSON's per-mode energy (session 61 known gap): the table and
// CSV showed no energy at all. Energy per output token = TDP x GPUs x PUE / tok/s (H100 SXM and
// H200 SXM: 700 W, data/gpus.json).
TEST_CASE("s62 compare: energy per token follows --pue in every format", "[compare][s62]") {
  const ModelSpec& model = cat().model("llama-3.1-8b");
  const CompareResult low = compare(cat(), model, h100_h200(1.0));
  const CompareResult high = compare(cat(), model, h100_h200(1.5));
  REQUIRE(low.options.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const CompareOption& o = low.options[i];
    CHECK_THAT(o.joules_per_token_at_tdp, WithinRel(700.0 * 1.0 / o.tokens_per_s(), 1e-12));
    CHECK_THAT(high.options[i].joules_per_token_at_tdp, WithinRel(1.5 * o.joules_per_token_at_tdp, 1e-12));
    // The option's figure is the one each priced mode's cost carries.
    CHECK_THAT(high.modes.front().options[i].cost.joules_per_token_at_tdp,
               WithinRel(high.options[i].joules_per_token_at_tdp, 1e-12));
  }
  const std::string table = render_compare(high, format(Format::table));
  CHECK(has_part(table, "J/token at TDP"));
  CHECK(has_part(table, "PUE 1.50 (--pue)"));
  CHECK(has_part(table, fmt::format("{:.3f}", high.options[0].joules_per_token_at_tdp)));
  CHECK_FALSE(has_part(render_compare(low, format(Format::table)), "PUE 1.50"));
  CHECK(has_part(render_compare(high, format(Format::json)), "\"pue\": 1.5"));
}

// CSV cells held two figures ("3873..7508", "85 (max 111)", "2214 (1736-3366)"): a spreadsheet
// reads them as text. Each figure now has its own column; the table keeps the compact form.
TEST_CASE("s62 csv: compare's band and plan's batch and capacity split into cells", "[render][csv][s62]") {
  const CompareResult c = compare(cat(), cat().model("llama-3.1-8b"), h100_h200(1.3));
  const std::string csv = render_compare(c, format(Format::csv));
  CHECK(has_part(csv, ",band low,band high,"));
  CHECK_FALSE(has_part(csv, ".."));
  CHECK(has_part(csv, fmt::format(",{:.0f},{:.0f},", c.options[0].estimate_low, c.options[0].estimate_high)));
  CHECK(has_part(render_compare(c, format(Format::table)), ".."));
  // The cost table too: age and stale, premium %, the ratio, winner and robust apart.
  CHECK(has_part(csv, ",USD/GPU-h,price age days,stale,USD/h,M tokens/USD,USD/Mtok,premium %,throughput ratio,"
                      "break-even USD/GPU-h,winner,robust"));
  CHECK_FALSE(has_part(csv, "+50 %"));  // h200-sxm's premium over h100-sxm at 3.00 vs 2.00 USD/GPU-h
  CHECK(has_part(csv, ",50,1.12,"));
  CHECK_FALSE(has_part(csv, "1.00x"));
  CHECK_FALSE(has_part(csv, "within band"));
  CHECK(has_part(render_compare(c, format(Format::table)), "1.00x"));

  PlanRequest r;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.gpus = {"h100-sxm"};
  r.given_usd_per_gpu_hour = {{"h100-sxm", 3.0}};
  r.max_gpus_per_replica = 1;
  r.top = 1;
  const PlanResult p = plan(cat(), cat().model("llama-3.1-8b"), r);
  REQUIRE_FALSE(p.configurations.empty());
  const PlanConfig& best = p.configurations.front();
  const std::string plan_csv = render_plan({p}, std::nullopt, format(Format::csv));
  CHECK(has_part(plan_csv, ",batch/replica,max batch/replica,replicas,GPUs,GPUs paid,"));
  CHECK(has_part(plan_csv, ",capacity at max batch,capacity band low,capacity band high,"));
  CHECK(has_part(plan_csv, fmt::format(",{},{},", best.batch, best.max_batch)));
  CHECK_FALSE(has_part(plan_csv, "(max "));
  CHECK(has_part(render_plan({p}, std::nullopt, format(Format::table)), "(max "));
}

// The sentence was built in src/cli/cmd_cost.cpp; the library words it from the facts.
TEST_CASE("s62 cost: the throughput sentence is the renderer's", "[cost][s62]") {
  CostThroughput t;
  t.input_tokens = 1024;
  t.output_tokens = 256;
  t.batch = 85;
  t.layout = Layout{.tp = 2, .dp = 4};
  CHECK(throughput_source_text(t) ==
        "estimate for requests of 1024 input and 256 output tokens at batch 85 per replica (full load), "
        "TP 2 PP 1 DP 4 (layout chosen for throughput)");
  t.cached_input_tokens = 512;
  t.layout_given = true;
  t.sparse = true;
  t.load.concurrency = 300;
  CHECK(has_part(throughput_source_text(t), "1024 input (512 of them cached)"));
  CHECK(has_part(throughput_source_text(t), "(--concurrency 300)"));
  CHECK(has_part(throughput_source_text(t), ", 2:4-sparse peak FLOPs"));
  CHECK_FALSE(has_part(throughput_source_text(t), "layout chosen"));
  t.layout_given = false;
  t.instance_limit_gpus = 4;
  CHECK(has_part(throughput_source_text(t), "an instance of at most 4 GPUs holds"));
  CostThroughput measured{.measured = true, .input_tokens = 2000, .output_tokens = 100};
  CHECK(throughput_source_text(measured) ==
        "measured, --tokens-per-second; input+output priced for requests of 2000 input and 100 output tokens "
        "(--input, --output)");
}

// data/prices.json said RunPod rents H100 SXM on demand only as 8-GPU instances, so a 1-GPU
// compare paid $22.32/h for one H100 there. runpod.io/pricing prices pods per GPU-hour from one
// GPU (silybench-data derived/cost.json: min_gpus 1), up to 8 a pod.
TEST_CASE("s62 prices: RunPod H100 SXM on demand rents pods of 1 to 8 GPUs", "[prices][s62]") {
  bool found = false;
  for (const Price& p : cat().prices()) {
    if (p.provider == "runpod" && p.gpu == "h100-sxm" && p.mode == PricingMode::on_demand) {
      found = true;
      // A pod holds 1 to 8 GPUs (review s62: "any count" let a 16-GPU replica rent as one).
      CHECK(p.gpus_per_instance == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8});
    }
  }
  CHECK(found);
  CompareRequest r = h100_h200(1.3);
  r.given_usd_per_gpu_hour.clear();
  r.provider = "runpod";
  r.mode = PricingMode::on_demand;
  const CompareResult c = compare(cat(), cat().model("llama-3.1-8b"), r);
  REQUIRE_FALSE(c.modes.empty());
  const PricedOption& h100 = c.modes.front().options.front();
  REQUIRE(h100.price);
  CHECK(h100.cost.rental.rented_gpus == 1);
  CHECK_THAT(h100.cost.usd_per_hour(), WithinRel(h100.price->usd_per_gpu_hour, 1e-12));
}
