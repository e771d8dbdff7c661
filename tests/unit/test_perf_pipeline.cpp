// Pipeline parallelism: decode throughput never falls when a sequence joins the batch, but for
// the host cost of walking it.
// Regression: with PP 8, batch 9 made every micro-batch two sequences wide (ceil(9 / 8)), so
// the ITL jumped to PP steps of two sequences and Mixtral's decode throughput on L4 fell by a
// third (issue 14 quoted 10 % for the layout the search chose then).
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/perf.hpp>

using namespace gpuplan;

TEST_CASE("PP decode throughput does not fall as the batch grows", "[perf][pp]") {
  const ModelSpec model = model_from_hf_config_file(std::string(GPUPLAN_FIXTURES_DIR) + "/hf-mixtral-8x7b.json");
  const GpuSpec& gpu = Catalog::builtin().gpu("l4");
  for (const Layout layout : {Layout{.tp = 1, .pp = 8, .ep = 1, .dp = 8}, Layout{.tp = 4, .pp = 4, .ep = 1, .dp = 4},
                              Layout{.tp = 2, .pp = 4, .ep = 1, .dp = 8}, Layout{.tp = 4, .pp = 2, .ep = 1, .dp = 8}}) {
    PerfRequest req;
    req.fit.weights_dtype = DType::int8;
    req.fit.layout = layout;
    const PerfModel pm(model, gpu, req);
    // Without per-sequence host cost: each stage's step walks every active sequence, so an
    // added one slows every micro-batch a little (the next test).
    Efficiency no_host = req.efficiency;
    no_host.sequence_overhead_s = 0;
    for (const Efficiency& e : {no_host, Efficiency::roofline()}) {
      PerfPoint previous = pm.evaluate(1, e);
      for (std::uint64_t b = 2; b <= 130; ++b) {
        const PerfPoint p = pm.evaluate(b, e);
        INFO("TP " << layout.tp << " PP " << layout.pp << " batch " << b);
        CHECK(p.decode_tokens_per_s >= previous.decode_tokens_per_s * (1 - 1e-12));
        CHECK(p.output_tokens_per_s >= previous.output_tokens_per_s * (1 - 1e-12));
        CHECK(p.itl_s >= previous.itl_s * (1 - 1e-12));  // and no user gets faster tokens
        previous = p;
      }
    }
  }
}

TEST_CASE("PP below PP sequences: one sequence per micro-batch, the pipeline half empty", "[perf][pp]") {
  const ModelSpec model = model_from_hf_config_file(std::string(GPUPLAN_FIXTURES_DIR) + "/hf-mixtral-8x7b.json");
  const GpuSpec& gpu = Catalog::builtin().gpu("l4");
  PerfRequest req;
  req.fit.weights_dtype = DType::int8;
  req.fit.layout = Layout{.tp = 1, .pp = 8, .ep = 1, .dp = 1};
  const PerfModel pm(model, gpu, req);
  // Up to PP sequences each crosses the stages alone: the ITL is that of one sequence, so the
  // decode throughput grows in proportion to the batch.
  const PerfPoint one = pm.evaluate(1, req.efficiency);
  const PerfPoint eight = pm.evaluate(8, req.efficiency);
  // Each of the 8 stages' steps also walks the other 7 active sequences on the host
  // (TensorRT-LLM's PP loop schedules and answers over all active requests per micro-batch).
  const double walk_s = 8.0 * 7.0 * req.efficiency.sequence_overhead_s;
  REQUIRE(walk_s > 0);
  CHECK(eight.step_s == Approx(one.step_s + walk_s));
  CHECK(eight.decode_tokens_per_s == Approx(8 / (one.step_s + walk_s)));
  Efficiency no_host = req.efficiency;
  no_host.sequence_overhead_s = 0;
  CHECK(pm.evaluate(8, no_host).step_s == Approx(pm.evaluate(1, no_host).step_s));
}

TEST_CASE("PP: every stage's step pays the host cost of all the replica's sequences", "[perf][pp]") {
  // 70B in FP4 on 8 RTX PRO 6000 as TP 1 x PP 8 at 1,800 sequences: 8 micro-batches of 225, each
  // stage's step walking all 1,800 on the host. The per-token period is 8 such steps, so the host
  // cost per token is 8 x 1,800 x the per-sequence cost, not 1,800 x it as without PP.
  const ModelSpec& model = Catalog::builtin().model("llama-3.3-70b");
  const GpuSpec& gpu = Catalog::builtin().gpu("rtx-pro-6000-server");
  PerfRequest req;
  req.fit.weights_dtype = DType::fp4;
  req.fit.kv_dtype = DType::fp8;
  req.fit.layout = Layout{.tp = 1, .pp = 8, .ep = 1, .dp = 1};
  req.input_tokens = 128;
  req.output_tokens = 2048;
  const PerfModel pm(model, gpu, req);
  Efficiency no_host = req.efficiency;
  no_host.sequence_overhead_s = 0;
  const double s = req.efficiency.sequence_overhead_s;
  const PerfPoint with = pm.evaluate(1800, req.efficiency);
  const PerfPoint without = pm.evaluate(1800, no_host);
  CHECK(with.itl_s - without.itl_s == Approx(8 * 1800 * s).epsilon(0.02));
  CHECK(with.decode.overhead_s - without.decode.overhead_s == Approx(1800 * s));
  // Without PP the same sequences' host cost is paid once per token.
  req.fit.layout = Layout{.tp = 8, .pp = 1, .ep = 1, .dp = 1};
  const PerfModel tp(model, gpu, req);
  CHECK(tp.evaluate(1800, req.efficiency).itl_s - tp.evaluate(1800, no_host).itl_s == Approx(1800 * s));
}
