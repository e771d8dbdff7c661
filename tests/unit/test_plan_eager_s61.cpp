// plan --emit vllm --enforce-eager / --emit sglang --disable-cuda-graph (session 61): the command
// carries the engine's switch and reads back as eager; the search times every step at no less than
// the host's kernel launches, as perf does, so the plan's ITL is never below that floor.
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/planner.hpp>

using namespace gpuplan;

TEST_CASE("launch flags: eager is each engine's own switch and reads back", "[plan][eager]") {
  LaunchSettings s{.model = "meta-llama/Llama-3.1-8B-Instruct", .layout = {.tp = 1}, .kv_dtype = DType::bf16,
                   .max_num_seqs = 64, .max_model_len = 2048, .memory_share = 0.9};
  for (const bool eager : {false, true}) {
    s.eager = eager;
    for (const Engine engine : {Engine::vllm, Engine::sglang}) {
      const EngineLaunch l = launch_command(engine, s);
      const std::string flag = engine == Engine::vllm ? "--enforce-eager" : "--disable-cuda-graph";
      INFO(l.command());
      CHECK((l.command().find(flag) != std::string::npos) == eager);
      std::istringstream words(l.command());
      std::vector<std::string> argv;
      for (std::string w; words >> w;) {
        argv.push_back(w);
      }
      CHECK(parse_launch_command(engine, argv).eager == eager);
    }
  }
  s.eager = true;
  CHECK_THROWS_WITH(launch_command(Engine::trtllm, s), Catch::Matchers::StartsWith("engine.eager:"));
}

TEST_CASE("plan: an eager launch is timed at the host's launch floor", "[plan][eager]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& model = catalog.model("llama-3.1-8b");
  PlanRequest req;
  req.gpus = {"l40s"};
  req.weights_dtypes = {DType::int4};
  req.kv_dtypes = {DType::bf16};
  req.given_usd_per_gpu_hour = {{"l40s", 1.0}};
  req.launch_engine = Engine::vllm;
  req.max_gpus_per_replica = 1;
  const PlanResult graphs = plan(catalog, model, req);
  req.perf.eager = true;
  req.perf.fit.engine.eager = true;
  const PlanResult eager = plan(catalog, model, req);
  REQUIRE(!graphs.configurations.empty());
  REQUIRE(!eager.configurations.empty());
  // 32 layers x 10 kernels + 8 outside them, 50 us each (perf.cpp's eager floor): 16.4 ms.
  const PerfModel pm(model, catalog.gpu("l40s"), eager.request.perf);
  REQUIRE(pm.eager_host_s() == Approx(16.4e-3));
  for (const PlanConfig& c : eager.configurations) {
    CHECK(c.itl_s >= pm.eager_host_s() * (1 - 1e-9));
  }
  REQUIRE(!eager.pareto.empty());
  for (const ParetoPoint& p : eager.pareto) {
    CHECK(p.itl_s >= pm.eager_host_s() * (1 - 1e-9));
  }
  // With graphs the 4-bit 8B at small batches steps faster than the host could launch it eagerly.
  REQUIRE(!graphs.pareto.empty());
  CHECK(graphs.pareto.front().itl_s < pm.eager_host_s());
}
