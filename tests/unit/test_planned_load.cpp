// The planned load: a concurrency spread over the replicas, or a target load in output tokens/s
// served at the smallest batch that reaches it; plan deployments sized for a target.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/compare.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/plan_check.hpp>
#include <gpuplan/planned_load.hpp>

#include "test_support.hpp"

using gpuplan::Efficiency;
using gpuplan::Layout;
using gpuplan::PerfModel;
using gpuplan::PerfRequest;

namespace {

using gpuplan::test::cat;

PerfRequest load_request(std::uint64_t dp) {
  PerfRequest r;
  r.input_tokens = 2048;
  r.output_tokens = 512;
  r.fit.context_tokens = r.input_tokens + r.output_tokens;
  r.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = dp};
  return r;
}

double tokens_per_s(const PerfModel& m, std::uint64_t batch) { return m.evaluate(batch, Efficiency{}).output_tokens_per_s; }

}  // namespace

TEST_CASE("planned load: a target is served at the smallest batch that reaches it", "[load]") {
  const PerfModel m(cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), load_request(2));
  const double full = m.full_load_tokens_per_s(Efficiency{});
  REQUIRE(full > 0);
  for (const double share : {0.001, 0.1, 0.5, 0.9, 1.0}) {
    INFO(share);
    const double target = full * share;
    const auto load = gpuplan::planned_load_for_target(m, target);
    CHECK_FALSE(load.capped);
    CHECK_FALSE(load.full_load());
    CHECK(load.target_output_tokens_per_s == target);
    CHECK(tokens_per_s(m, load.batch) >= target);
    if (load.batch > 1) {
      CHECK(tokens_per_s(m, load.batch - 1) < target);
    }
  }
  const auto over = gpuplan::planned_load_for_target(m, full * 1.5);
  CHECK(over.capped);
  CHECK(over.batch == m.full_load_batch());
  CHECK_THROWS_WITH(gpuplan::planned_load_for_target(m, 0), Catch::Contains("perf.target_output_tokens_per_s"));
  CHECK_THROWS_WITH(gpuplan::planned_load_for_target(m, std::nan("")),
                    Catch::Contains("perf.target_output_tokens_per_s"));
}

TEST_CASE("planned load: the replicas a target needs at full load", "[load]") {
  const PerfModel one(cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), load_request(1));
  const PerfModel four(cat().model("llama-3.1-8b"), cat().gpu("h100-sxm"), load_request(4));
  const double replica = one.full_load_tokens_per_s(Efficiency{});
  CHECK(gpuplan::replicas_for_target(one, replica * 0.5) == 1);
  CHECK(gpuplan::replicas_for_target(one, replica) == 1);
  CHECK(gpuplan::replicas_for_target(one, replica * 3.2) == 4);
  // Per replica, whatever the layout's own DP.
  CHECK(gpuplan::replicas_for_target(four, replica * 3.2) == 4);
}

// A target past the largest deployment: the true replica count in the note, and sizing refuses
// rather than price and time 2^16 GPUs as if they served it (s48: 1e9 tok/s of a 70B on H100s
// were "served" by 65,536 replicas that carry 16 % of it).
TEST_CASE("planned load: a target past 65536 GPUs is counted in full and not sized", "[load]") {
  const gpuplan::ModelSpec& model = cat().model("llama-3.1-8b");
  const gpuplan::GpuSpec& gpu = cat().gpu("h100-sxm");
  const PerfModel one(model, gpu, load_request(1));
  const double replica = one.full_load_tokens_per_s(Efficiency{});
  const double target = replica * 100'000;
  CHECK(gpuplan::replicas_for_target(one, target) == 100'000);
  PerfRequest r = load_request(1);
  CHECK_THROWS_AS(gpuplan::size_replicas_for_target(model, gpu, r, target), gpuplan::TargetBeyondDeployment);
  CHECK_THROWS_WITH(gpuplan::size_replicas_for_target(model, gpu, r, target),
                    Catch::Contains("perf.target_output_tokens_per_s") && Catch::Contains("100,000 replicas") &&
                        Catch::Contains("65,536 GPUs"));
  // Within the largest deployment it is sized as before.
  PerfRequest within = load_request(1);
  CHECK(gpuplan::size_replicas_for_target(model, gpu, within, replica * 60'000) == 60'000);
}

// compare leaves out a GPU the target needs too many of, and compares the others.
TEST_CASE("compare: an option the target needs more than 65536 GPUs of is left out", "[load][compare]") {
  gpuplan::CompareRequest r;
  r.gpus = {"l40s", "b200"};
  r.perf = load_request(1);
  r.gpus_per_option = 8;
  r.given_usd_per_gpu_hour = {{"l40s", 1.0}, {"b200", 5.0}};
  r.layout_given = true;  // TP 1 PP 1 replicas, as the rates below
  const gpuplan::ModelSpec& model = cat().model("llama-3.1-8b");
  const double l40s = PerfModel(model, cat().gpu("l40s"), load_request(1)).full_load_tokens_per_s(Efficiency{});
  const double b200 = PerfModel(model, cat().gpu("b200"), load_request(1)).full_load_tokens_per_s(Efficiency{});
  REQUIRE(b200 > 2 * l40s);
  // Between what 65,536 L40S and 65,536 B200 serve.
  r.target_output_tokens_per_s = 65'536 * std::sqrt(l40s * b200);
  r.size_for_target = true;
  const auto sized = gpuplan::compare(cat(), model, r);
  REQUIRE(sized.options.size() == 1);
  CHECK(sized.options.front().gpu == "b200");
  REQUIRE(sized.excluded.size() == 1);
  CHECK(sized.excluded.front().gpu == "l40s");
  CHECK_THAT(sized.excluded.front().problem, Catch::Contains("more than the 65,536 GPUs"));
  // Past every option: the first one's reason, naming the target.
  r.target_output_tokens_per_s = 65'536 * b200 * 2;
  CHECK_THROWS_WITH(gpuplan::compare(cat(), model, r), Catch::StartsWith("perf.target_output_tokens_per_s:"));
}

TEST_CASE("plan check: a deployment without a GPU count is sized for its target", "[load][plan]") {
  gpuplan::DeploymentQuestion q;
  q.name = "a";
  q.origin = "p.json";
  q.model = cat().model("llama-3.1-8b");
  q.gpu = &cat().gpu("h100-sxm");
  q.perf = load_request(1);
  q.layout_given = true;
  const double replica = PerfModel(q.model, *q.gpu, q.perf).full_load_tokens_per_s(Efficiency{});
  q.target_output_tokens_per_s = replica * 2.5;
  q.size_for_target = true;
  const auto sized = gpuplan::evaluate_deployment(cat(), q);
  CHECK(sized.load.sized_replicas == 3);
  CHECK(sized.fit.request.layout.dp == 3);
  REQUIRE(sized.perf);
  CHECK(sized.perf->rows.front().output_tokens_per_s >= *q.target_output_tokens_per_s);
  REQUIRE(sized.checks.size() == 1);
  CHECK(sized.checks.front().name == "target_output_tokens_per_s");
  CHECK(sized.checks.front().pass);
  // The memory shown is at the sequences the target runs.
  CHECK(sized.fit.request.concurrency == sized.load.batch * 3);

  // One GPU fixed: the target is out of reach, a failed check that says how many would serve it.
  q.size_for_target = false;
  const auto fixed = gpuplan::evaluate_deployment(cat(), q);
  CHECK(fixed.load.sized_replicas == 0);
  CHECK(fixed.load.capped);
  REQUIRE(fixed.checks.size() == 1);
  CHECK_FALSE(fixed.checks.front().pass);
  CHECK(fixed.checks.front().reason == gpuplan::reason::below_target_load);
  REQUIRE_FALSE(fixed.notes.empty());
  CHECK_THAT(fixed.notes.back(), Catch::Contains("3 replicas of TP 1 PP 1 (3 GPUs) would serve it"));
}

TEST_CASE("compare: with a target and no GPU count each option is priced at the GPUs that carry it", "[load][compare]") {
  gpuplan::CompareRequest r;
  r.gpus = {"h100-sxm", "h200-sxm"};
  r.perf = load_request(1);
  r.gpus_per_option = 8;
  r.given_usd_per_gpu_hour = {{"h100-sxm", 2.0}, {"h200-sxm", 3.0}};
  const gpuplan::ModelSpec& model = cat().model("llama-3.1-8b");
  const auto full = gpuplan::compare(cat(), model, r);
  // Twice what the fastest 8-GPU option serves at full load: both must grow past 8 GPUs.
  double most = 0;
  for (const auto& o : full.options) {
    most = std::max(most, o.estimate_tokens_per_s);
  }
  r.target_output_tokens_per_s = most * 2;
  r.size_for_target = true;
  const auto sized = gpuplan::compare(cat(), model, r);
  REQUIRE(sized.options.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& o = sized.options[i];
    INFO(o.gpu);
    CHECK(o.gpus == o.layout.gpus());
    CHECK(o.gpus > 8);
    CHECK(o.load.sized_replicas == o.layout.dp);
    CHECK(o.load.replicas_for_target == o.layout.dp);
    CHECK_FALSE(o.load.capped);
    CHECK(o.estimate_tokens_per_s >= *r.target_output_tokens_per_s);
    REQUIRE(sized.modes.front().options[i].price);
    CHECK(sized.modes.front().options[i].cost.request.gpus == o.gpus);
  }
  // GPUs fixed at 8: the target is out of reach, the options say how many replicas would carry it.
  r.size_for_target = false;
  const auto fixed = gpuplan::compare(cat(), model, r);
  for (const auto& o : fixed.options) {
    CHECK(o.gpus == 8);
    CHECK(o.load.capped);
    CHECK(o.load.replicas_for_target * o.layout.tp * o.layout.pp > 8);
  }
}

// One GPU type too small for the model leaves the others to compare, and says how many of it
// would hold the model; none fitting stays an error.
TEST_CASE("compare: an option that does not fit is left out with the GPU count that holds it", "[compare]") {
  gpuplan::CompareRequest r;
  r.gpus = {"h200-sxm", "l40s"};
  r.perf = load_request(1);
  r.perf.fit.weights_dtype = gpuplan::DType::fp8;
  r.gpus_per_option = 4;
  r.given_usd_per_gpu_hour = {{"h200-sxm", 3.0}, {"l40s", 1.0}};
  const gpuplan::ModelSpec& model = cat().model("llama-3.1-405b");
  const auto res = gpuplan::compare(cat(), model, r);
  REQUIRE(res.options.size() == 1);
  CHECK(res.options.front().gpu == "h200-sxm");
  REQUIRE(res.excluded.size() == 1);
  CHECK(res.excluded.front().gpu == "l40s");
  // About 405 GB of fp8 weights: 8 L40S hold 51 GB each, over their 43.5 GB engine cap; 16 hold 25 GB.
  CHECK(res.excluded.front().gpus_that_fit == 16);
  // tasks s57 F8: fit's count, not doublings of the one asked: 24 L4 hold it as TP 8 x PP 3 (about
  // 19.5 GB of 21.7 each), where doubling 8 had said 32.
  r.gpus = {"h200-sxm", "l4"};
  r.gpus_per_option = 8;
  r.given_usd_per_gpu_hour = {{"h200-sxm", 3.0}, {"l4", 0.8}};
  const auto on_l4 = gpuplan::compare(cat(), model, r);
  REQUIRE(on_l4.excluded.size() == 1);
  CHECK(on_l4.excluded.front().gpus_that_fit == 24);
  r.gpus = {"l4", "l40s"};
  r.given_usd_per_gpu_hour = {{"l4", 0.5}, {"l40s", 1.0}};
  CHECK_THROWS_AS(gpuplan::compare(cat(), model, r), gpuplan::InputError);
}

// s55 F4: a quote typed beside --mode spot is a spot quote: labelled and ranked with the spot
// rows, not as "given on-demand" next to them.
TEST_CASE("compare: a price given beside a mode takes that mode", "[compare]") {
  gpuplan::CompareRequest r;
  r.gpus = {"h100-sxm", "h200-sxm"};
  r.perf = load_request(1);
  r.gpus_per_option = 8;
  r.provider = "aws";
  r.mode = gpuplan::PricingMode::spot;
  r.given_usd_per_gpu_hour = {{"h100-sxm", 1.5}, {"h200-sxm", 1.9}};
  const gpuplan::ModelSpec& model = cat().model("llama-3.1-8b");
  const auto res = gpuplan::compare(cat(), model, r);
  bool given = false;
  for (const auto& m : res.modes) {
    CHECK(m.mode == gpuplan::PricingMode::spot);
    given = given || m.provider == "given";
  }
  CHECK(given);
  // Without a mode it stays on-demand, as before.
  r.mode.reset();
  r.provider = "lyceum";
  const auto any = gpuplan::compare(cat(), model, r);
  const auto g = std::find_if(any.modes.begin(), any.modes.end(), [](const auto& m) { return m.provider == "given"; });
  REQUIRE(g != any.modes.end());
  CHECK(g->mode == gpuplan::PricingMode::on_demand);
}
