// The planner: a small search whose optimum is known, the chosen configuration re-checked by perf
// on its own, the frontier, launch flags read back, and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>

#include <gpuplan/engine_flags.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/pareto.hpp>
#include <gpuplan/planner.hpp>

using namespace gpuplan;

namespace {

// Two GPUs with the same hardware (H100 SXM's datasheet figures, 16 GB of memory so that an 8B
// model in bf16, 16 GB of weights, needs two of them) and different prices.
std::string tiny_gpu(const std::string& id) {
  return R"({"id": ")" + id + R"(", "name": ")" + id + R"(", "vendor": "nvidia", "memory_gb": 16,
    "memory_bandwidth_tb_per_s": 3.35, "dense_tflop_per_s": {"bf16": 989, "fp8": 1979}, "tdp_w": 700,
    "scale_up": {"kind": "nvlink4", "gb_per_s_per_direction": 450, "domain_gpus": 8},
    "host_link": {"kind": "pcie5-x16", "gb_per_s_per_direction": 64}, "sources": ["test"]})";
}

Catalog tiny_catalog() {
  Catalog c = Catalog::builtin();
  c.merge_text(R"({"schema_version": 1, "gpus": [)" + tiny_gpu("cheap-gpu") + "," + tiny_gpu("dear-gpu") + "]}", "test.json");
  return c;
}

PlanRequest tiny_request() {
  PlanRequest r;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.perf.max_batch = 512;
  r.gpus = {"cheap-gpu", "dear-gpu"};
  r.given_usd_per_gpu_hour = {{"cheap-gpu", 2.0}, {"dear-gpu", 3.0}};
  r.weights_dtypes = {DType::bf16};
  r.kv_dtypes = {DType::bf16};
  r.max_gpus_per_replica = 2;  // TP1 (weights do not fit), TP2 and TP1 x PP2
  r.targets.output_tokens_per_s = 20'000;
  r.targets.max_itl_s = 0.030;
  return r;
}

}  // namespace

TEST_CASE("plan: the optimum of a small search is the one found by hand", "[plan]") {
  const Catalog catalog = tiny_catalog();
  const ModelSpec& model = catalog.model("llama-3.1-8b");
  const PlanRequest req = tiny_request();
  const PlanResult res = plan(catalog, model, req);
  REQUIRE_FALSE(res.miss);
  REQUIRE_FALSE(res.configurations.empty());
  const PlanConfig& best = res.configurations.front();
  // Same hardware at two prices: the cheaper GPU wins, at 2/3 of the other's best price.
  CHECK(best.gpu == "cheap-gpu");
  // 16 GB of bf16 weights cannot fit one 16 GB GPU: every replica has two GPUs.
  CHECK(best.layout.gpus_per_replica() == 2);
  CHECK(res.counts.pruned >= 2);  // TP1 on each GPU
  // The same search by brute force over perf alone: every layout, every batch, the replicas the
  // load needs at that batch, price x GPUs.
  double oracle = std::numeric_limits<double>::infinity();
  for (const char* gpu : {"cheap-gpu", "dear-gpu"}) {
    const double usd = std::string(gpu) == "cheap-gpu" ? 2.0 : 3.0;
    for (const Layout l : {Layout{.tp = 2, .pp = 1}, Layout{.tp = 1, .pp = 2}}) {
      PerfRequest pr = req.perf;
      pr.fit.layout = l;
      const PerfModel pm(model, catalog.gpu(gpu), pr);
      for (std::uint64_t b = 1; b <= std::min<std::uint64_t>(pm.max_batch_by_memory(), 512); ++b) {
        const PerfPoint p = pm.evaluate(b, pr.efficiency);
        if (p.itl_s <= 0.030) {
          const double replicas = std::ceil(20'000 / p.output_tokens_per_s);
          oracle = std::min(oracle, replicas * 2 * usd);
        }
      }
    }
  }
  CHECK_THAT(best.usd_per_hour(), Catch::Matchers::WithinRel(oracle, 1e-9));
  // The exhaustive batch scan agrees with the bisection.
  PlanRequest exhaustive = req;
  exhaustive.batch_search = BatchSearch::exhaustive;
  const PlanResult ex = plan(catalog, model, exhaustive);
  REQUIRE_FALSE(ex.configurations.empty());
  CHECK_THAT(ex.configurations.front().usd_per_hour(), Catch::Matchers::WithinRel(oracle, 1e-9));
  CHECK(ex.counts.evaluated > res.counts.evaluated);
}

// At one price, 4-bit weights that meet the targets buy nothing but quantization error: the
// checkpoint's own 16-bit format ranks first even though fp8 serves more at full load.
TEST_CASE("plan: at equal price the least precision given up ranks first", "[plan]") {
  const Catalog catalog = Catalog::builtin();
  PlanRequest r;
  r.perf.input_tokens = 1024;
  r.perf.output_tokens = 256;
  r.perf.max_batch = 256;
  r.gpus = {"h100-sxm"};
  r.given_usd_per_gpu_hour = {{"h100-sxm", 2.0}};
  r.weights_dtypes = {DType::int4, DType::fp8, DType::bf16};
  r.kv_dtypes = {DType::fp8, DType::bf16};
  r.max_gpus_per_replica = 1;
  r.targets.output_tokens_per_s = 300;
  r.top = 20;
  const PlanResult res = plan(catalog, catalog.model("llama-3.1-8b"), r);
  REQUIRE(res.configurations.size() >= 3);
  const PlanConfig& first = res.configurations.front();
  CHECK(first.weights_dtype == DType::bf16);
  CHECK(first.kv_dtype == DType::bf16);
  const auto fp8 = std::find_if(res.configurations.begin(), res.configurations.end(),
                                [](const PlanConfig& k) { return k.weights_dtype == DType::fp8; });
  REQUIRE(fp8 != res.configurations.end());
  CHECK(fp8->usd_per_hour() == Approx(first.usd_per_hour()));
  CHECK(fp8->capacity_tokens_per_s > first.capacity_tokens_per_s);
  // Ranked by bits given up: at the given price (the catalog's dearer ones rank after it), every
  // bf16-weights row before every fp8 one before every int4 one.
  std::vector<PlanConfig> given;
  std::copy_if(res.configurations.begin(), res.configurations.end(), std::back_inserter(given),
               [](const PlanConfig& k) { return k.price.given(); });
  REQUIRE(given.size() >= 3);
  const auto order = [](DType w) { return w == DType::bf16 ? 0 : w == DType::fp8 ? 1 : 2; };
  CHECK(std::is_sorted(given.begin(), given.end(),
                       [&](const PlanConfig& a, const PlanConfig& b) { return order(a.weights_dtype) < order(b.weights_dtype); }));
}

TEST_CASE("plan: the chosen configuration meets every target in a perf run of its own", "[plan]") {
  const Catalog catalog = tiny_catalog();
  const ModelSpec& model = catalog.model("llama-3.1-8b");
  PlanRequest req = tiny_request();
  req.targets.max_ttft_s = 0.5;
  req.targets.min_tokens_per_s_per_user = 40;
  const PlanResult res = plan(catalog, model, req);
  REQUIRE_FALSE(res.configurations.empty());
  for (const PlanConfig& c : res.configurations) {
    PerfRequest pr = req.perf;
    pr.fit.layout = c.layout;
    pr.fit.weights_dtype = c.weights_dtype;
    pr.fit.kv_dtype = c.kv_dtype;
    const PerfResult own = perf(model, catalog.gpu(c.gpu), pr, {c.batch, c.max_batch}, EstimateBand{});
    CHECK(own.rows[0].itl_s <= 0.030);
    CHECK(own.rows[1].itl_s <= 0.030);  // the engine cap emitted (max-num-seqs) holds the target too
    CHECK(own.rows[0].ttft_s <= 0.5);
    CHECK(own.rows[0].tokens_per_s_per_user >= 40);
    CHECK(own.rows[0].kv_fits);
    CHECK(static_cast<double>(c.replicas) * own.rows[0].output_tokens_per_s >= 20'000);
    CHECK(c.gpus == c.replicas * c.layout.gpus());
    // Fewer replicas could not carry the load even at the largest batch meeting the ITL.
    CHECK(static_cast<double>(c.replicas - 1) * own.rows[1].output_tokens_per_s < 20'000);
  }
  // Cheapest first.
  for (std::size_t i = 1; i < res.configurations.size(); ++i) {
    CHECK(res.configurations[i - 1].usd_per_hour() <= res.configurations[i].usd_per_hour());
  }
}

TEST_CASE("plan: each GPU's frontier is non-dominated and spans latency and throughput", "[plan]") {
  const Catalog catalog = tiny_catalog();
  const PlanResult res = plan(catalog, catalog.model("llama-3.1-8b"), tiny_request());
  for (const char* gpu : {"cheap-gpu", "dear-gpu"}) {
    std::vector<ParetoPoint> points;
    for (const ParetoPoint& p : res.pareto) {
      if (p.gpu == gpu) {
        points.push_back(p);
      }
    }
    REQUIRE(points.size() >= 3);
    CHECK(non_dominated(points));
    // Most tokens/s per user first, so least throughput per GPU first.
    for (std::size_t i = 1; i < points.size(); ++i) {
      CHECK(points[i - 1].tokens_per_s_per_user > points[i].tokens_per_s_per_user);
      CHECK(points[i - 1].tokens_per_s_per_gpu < points[i].tokens_per_s_per_gpu);
    }
    CHECK(points.front().batch == 1);  // a lone sequence is the fastest per user
  }
}

TEST_CASE("plan: the default KV formats follow the 16-bit format served, and fp8 where native", "[plan]") {
  const Catalog c = Catalog::builtin();
  const ModelSpec& fp16_checkpoint = c.model("llama-2-7b");  // config.json: torch_dtype float16
  const ModelSpec& bf16_checkpoint = c.model("llama-3.1-8b");
  const GpuSpec& h100 = c.gpu("h100-sxm");
  // Served as --dtype bfloat16, "auto" caches bf16 whatever the checkpoint; served in fp16, fp16.
  CHECK(default_kv_dtypes(h100, fp16_checkpoint, DType::bf16) == std::vector<DType>{DType::bf16, DType::fp8});
  CHECK(default_kv_dtypes(h100, bf16_checkpoint, DType::fp16) == std::vector<DType>{DType::fp16, DType::fp8});
  // Quantized weights compute in the model's own 16-bit format.
  CHECK(default_kv_dtypes(h100, fp16_checkpoint, DType::int4) == std::vector<DType>{DType::fp16, DType::fp8});
  CHECK(default_kv_dtypes(h100, bf16_checkpoint, DType::fp8) == std::vector<DType>{DType::bf16, DType::fp8});
  CHECK(default_kv_dtypes(c.gpu("a100-sxm-80gb"), fp16_checkpoint, DType::int4) == std::vector<DType>{DType::fp16});
  // Turing has no bf16: a bf16 checkpoint is cast to fp16, and so is its cache.
  CHECK(default_kv_dtypes(c.gpu("t4"), bf16_checkpoint, DType::int4) == std::vector<DType>{DType::fp16});
  CHECK(default_kv_dtypes(c.gpu("t4"), bf16_checkpoint, DType::bf16) == std::vector<DType>{DType::fp16});
}

TEST_CASE("pareto_insert keeps exactly the non-dominated points", "[plan]") {
  struct P {
    double tokens_per_s_per_gpu, tokens_per_s_per_user;
  };
  std::vector<P> all;
  std::vector<P> frontier;
  std::uint64_t x = 12345;
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // a fixed pseudo-random walk
    const P p{static_cast<double>(x >> 40 & 0xff), static_cast<double>(x >> 20 & 0xff)};
    all.push_back(p);
    pareto_insert(frontier, p);
  }
  CHECK(non_dominated(frontier));
  for (const P& p : all) {
    const bool dominated = std::any_of(all.begin(), all.end(), [&p](const P& q) { return dominates(q, p); });
    const bool kept = std::any_of(frontier.begin(), frontier.end(), [&p](const P& q) {
      return !(q.tokens_per_s_per_gpu < p.tokens_per_s_per_gpu) && !(q.tokens_per_s_per_gpu > p.tokens_per_s_per_gpu) &&
             !(q.tokens_per_s_per_user < p.tokens_per_s_per_user) && !(q.tokens_per_s_per_user > p.tokens_per_s_per_user);
    });
    CHECK(dominated != kept);
  }
}

TEST_CASE("plan: a target no GPU can meet names the binding target and the closest", "[plan]") {
  const Catalog catalog = tiny_catalog();
  PlanRequest req = tiny_request();
  req.targets.max_itl_s = 0.001;  // 1 ms: reading 8 GB of weights at 3.35 TB/s takes 2.4 ms
  const PlanResult res = plan(catalog, catalog.model("llama-3.1-8b"), req);
  CHECK(res.configurations.empty());
  REQUIRE(res.miss);
  CHECK(res.miss->binding == PlanTarget::max_itl);
  REQUIRE(res.miss->closest);
  CHECK(res.miss->shortfall > 1.0);
  CHECK_THAT(res.miss->closest->itl_s / 0.001, Catch::Matchers::WithinRel(res.miss->shortfall, 1e-9));
  CHECK(res.miss->layouts_missing.at(PlanTarget::max_itl) == res.counts.timed);
}

TEST_CASE("plan: the closest configuration lists every target it misses with its ratio", "[plan]") {
  const Catalog catalog = tiny_catalog();
  PlanRequest req = tiny_request();
  req.targets.max_itl_s = 0.001;   // 1 ms: no layout reads its weights that fast
  req.targets.max_ttft_s = 1e-6;   // 1 us: no prefill is that fast either
  const PlanResult res = plan(catalog, catalog.model("llama-3.1-8b"), req);
  CHECK(res.configurations.empty());
  REQUIRE(res.miss);
  REQUIRE(res.miss->closest);
  // Both targets missed by the closest: the binding one first, the other after it, each with its ratio.
  REQUIRE(res.miss->missed.size() == 2);
  CHECK(res.miss->missed.front().first == res.miss->binding);
  CHECK_THAT(res.miss->missed.front().second, Catch::Matchers::WithinRel(res.miss->shortfall, 1e-12));
  CHECK(res.miss->missed.back().first != res.miss->binding);
  CHECK(res.miss->missed.back().second > 1.0);
  CHECK(res.miss->missed.back().second <= res.miss->missed.front().second);
}

TEST_CASE("plan: a layout the model does not allow is skipped on its own, the others searched", "[plan]") {
  const Catalog catalog = tiny_catalog();
  const ModelSpec& model = catalog.model("llama-3.1-8b");
  PlanRequest req = tiny_request();
  // TP 3 (32 heads) and EP (a dense model) first: neither may hide the layouts after them.
  req.layouts = {Layout{.tp = 3}, Layout{.tp = 2, .ep = 2}, Layout{.tp = 2}, Layout{.tp = 1, .pp = 2}};
  const PlanResult res = plan(catalog, model, req);
  CHECK(res.counts.layouts == 8);  // 4 layouts on each of 2 GPUs
  CHECK(res.counts.skipped == 4);
  CHECK(res.skipped.at("layout.tp: 3 does not divide the 32 attention heads of 'llama-3.1-8b'") == 2);
  CHECK(res.skipped.at("layout.ep: 'llama-3.1-8b' is not a mixture-of-experts model") == 2);
  CHECK(std::find(res.notes.begin(), res.notes.end(),
                  "2 layouts skipped: layout.tp: 3 does not divide the 32 attention heads of 'llama-3.1-8b'") != res.notes.end());
  CHECK(res.counts.timed == 4);
  // The enumerated search finds the same optimum among the same valid layouts.
  const PlanResult all = plan(catalog, model, tiny_request());
  CHECK(all.counts.skipped == 0);
  REQUIRE_FALSE(res.configurations.empty());
  REQUIRE_FALSE(all.configurations.empty());
  CHECK_THAT(res.configurations.front().usd_per_hour(),
             Catch::Matchers::WithinRel(all.configurations.front().usd_per_hour(), 1e-12));
}

TEST_CASE("plan: a load beyond the largest deployment misses the load target, naming it", "[plan]") {
  const Catalog catalog = tiny_catalog();
  PlanRequest req = tiny_request();
  req.targets.output_tokens_per_s = 1e10;  // ~1e8 tok/s at most from 65,536 GPUs
  const PlanResult res = plan(catalog, catalog.model("llama-3.1-8b"), req);
  CHECK(res.configurations.empty());
  REQUIRE(res.miss);
  CHECK(res.miss->binding == PlanTarget::output_tokens_per_s);
  REQUIRE(res.miss->closest);
  CHECK(res.miss->closest->gpus <= 65'536);
  CHECK_THAT(1e10 / res.miss->closest->output_tokens_per_s, Catch::Matchers::WithinRel(res.miss->shortfall, 1e-9));
  CHECK(res.miss->layouts_missing.at(PlanTarget::output_tokens_per_s) == res.counts.timed);
}

namespace {
bool has_layout(const std::vector<Layout>& layouts, bool (*pred)(const Layout&)) {
  return std::any_of(layouts.begin(), layouts.end(), pred);
}
}  // namespace

TEST_CASE("plan: layouts span nodes and use DP attention where the model needs them", "[plan]") {
  const Catalog& catalog = Catalog::builtin();
  const GpuSpec& h100 = catalog.gpu("h100-sxm");
  const PlanRequest req;  // up to 64 GPUs a replica, 8 a node
  const auto across_tp = [](const Layout& l) { return l.tp > 8; };
  const auto pp_across = [](const Layout& l) { return l.tp == 8 && l.pp > 1; };
  const auto dp_attention = [](const Layout& l) { return l.dp_attention(); };
  const ModelSpec& dense = catalog.model("llama-3.1-70b");
  const std::vector<Layout> d = plan_layouts(dense, h100, req, false);
  CHECK(has_layout(d, pp_across));
  CHECK_FALSE(has_layout(d, across_tp));
  CHECK_FALSE(has_layout(d, dp_attention));
  CHECK_FALSE(has_layout(d, [](const Layout& l) { return l.ep > 1 || l.dp > 1 || l.gpus() > 64; }));
  // 810 GB of bf16 weights do not fit 8 H100s: TP also spans two nodes (128 heads, 8 KV heads).
  const std::vector<Layout> big = plan_layouts(catalog.model("llama-3.1-405b"), h100, req, true);
  CHECK(has_layout(big, [](const Layout& l) { return l.tp == 16 && l.pp == 1; }));
  CHECK_FALSE(has_layout(big, dp_attention));
  // DeepSeek-V3 (256 experts): DP attention on 2 ... 64 ranks, each rank at attention TP 1.
  const ModelSpec& moe = catalog.model("deepseek-v3");
  const std::vector<Layout> m = plan_layouts(moe, h100, req, true);
  for (std::uint64_t ranks : {2u, 8u, 16u, 64u}) {
    CHECK(std::count_if(m.begin(), m.end(), [ranks](const Layout& l) {
            return l.tp == 1 && l.dp == ranks && l.ep == ranks;
          }) == 1);
  }
  CHECK(has_layout(m, [](const Layout& l) { return l.tp == 16 && l.ep == 16; }));
  // Ranks that are TP groups within a node: DP 8 of TP 2 over 16 GPUs (vLLM, SGLang), never
  // a TP over nodes or one that does not divide the GPUs.
  CHECK(has_layout(m, [](const Layout& l) { return l.tp == 2 && l.dp == 8 && l.ep == 16; }));
  CHECK(has_layout(m, [](const Layout& l) { return l.tp == 8 && l.dp == 8 && l.ep == 64; }));
  CHECK_FALSE(has_layout(m, [](const Layout& l) { return l.dp_attention() && (l.tp > 8 || l.ep != l.tp * l.dp); }));
  // TensorRT-LLM's attention DP runs attention at TP 1 only.
  PlanRequest trt = req;
  trt.launch_engine = gpuplan::Engine::trtllm;
  const std::vector<Layout> t = plan_layouts(moe, h100, trt, true);
  CHECK(has_layout(t, [](const Layout& l) { return l.tp == 1 && l.dp == 16; }));
  CHECK_FALSE(has_layout(t, [](const Layout& l) { return l.dp_attention() && l.tp > 1; }));
  CHECK(t.size() < m.size());
  for (const Layout& l : m) {
    INFO(l.tp << " " << l.pp << " " << l.ep << " " << l.dp);
    CHECK_FALSE(layout_problem(l, moe));
    CHECK(l.gpus() <= 64);
  }
}

TEST_CASE("plan: a TensorRT-LLM launch searches NVIDIA GPUs only", "[plan]") {
  const Catalog& catalog = Catalog::builtin();
  PlanRequest req;
  req.perf.input_tokens = 1024;
  req.perf.output_tokens = 256;
  req.gpus = {"h100-sxm", "mi300x"};
  req.weights_dtypes = {DType::fp8};
  req.kv_dtypes = {DType::fp8};
  const PlanResult any = plan(catalog, catalog.model("llama-3.1-8b"), req);
  CHECK(any.unlaunchable_gpus.empty());
  CHECK(std::any_of(any.pareto.begin(), any.pareto.end(), [](const ParetoPoint& p) { return p.gpu == "mi300x"; }));
  req.launch_engine = gpuplan::Engine::trtllm;
  const PlanResult trt = plan(catalog, catalog.model("llama-3.1-8b"), req);
  CHECK(trt.unlaunchable_gpus == std::vector<std::string>{"mi300x"});
  CHECK_FALSE(std::any_of(trt.pareto.begin(), trt.pareto.end(), [](const ParetoPoint& p) { return p.gpu == "mi300x"; }));
  for (const auto& c : trt.configurations) {
    CHECK(c.gpu == "h100-sxm");
  }
  req.launch_engine = gpuplan::Engine::vllm;  // vLLM runs on ROCm
  CHECK(plan(catalog, catalog.model("llama-3.1-8b"), req).unlaunchable_gpus.empty());
  req.launch_engine = gpuplan::Engine::trtllm;
  req.gpus = {"mi300x"};
  CHECK_THROWS_WITH(plan(catalog, catalog.model("llama-3.1-8b"), req),
                    Catch::Matchers::StartsWith("plan.launch_engine: trtllm runs on NVIDIA GPUs only"));
}

namespace {

/// One FP8 layout on `gpu` at 20,000/2,000 tokens, planned for a vLLM and a TensorRT-LLM launch.
struct LaunchPair {
  PlanRequest request;  ///< the TensorRT-LLM one
  PlanResult vllm;
  PlanResult trt;
};

LaunchPair plan_both_launches(const Catalog& catalog, const ModelSpec& model, const char* gpu, Layout layout) {
  LaunchPair p;
  PlanRequest& req = p.request;
  req.perf.input_tokens = 20'000;
  req.perf.output_tokens = 2'000;
  req.gpus = {gpu};
  req.weights_dtypes = {DType::fp8};
  req.kv_dtypes = {DType::fp8};
  req.layouts = {layout};
  req.launch_engine = gpuplan::Engine::vllm;
  p.vllm = plan(catalog, model, req);
  req.launch_engine = gpuplan::Engine::trtllm;
  p.trt = plan(catalog, model, req);
  REQUIRE(p.vllm.configurations.size() == 1);
  REQUIRE(p.trt.configurations.size() == 1);
  return p;
}

}  // namespace

TEST_CASE("plan: a TensorRT-LLM launch sizes Llama 4 with the whole context in chunked layers", "[plan]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& model = catalog.model("llama-4-scout");  // 20,000 tokens: past one 8,192-token chunk
  const LaunchPair p = plan_both_launches(catalog, model, "h200-sxm", Layout{.tp = 4, .ep = 4});
  // TensorRT-LLM holds 48 layers of 22,000 tokens a sequence, vLLM 12 of them and 36 chunks.
  CHECK(p.trt.configurations[0].max_batch < p.vllm.configurations[0].max_batch * 6 / 10);
  // A configuration re-evaluated for the same launch gets the same figures.
  CHECK_THAT(evaluate_config(catalog, model, p.request, p.trt.configurations[0]).itl_s,
             Catch::Matchers::WithinRel(p.trt.configurations[0].itl_s, 1e-12));
}

TEST_CASE("plan: a TensorRT-LLM launch sizes sliding-window layers with the whole context too", "[plan]") {
  const Catalog& catalog = Catalog::builtin();
  // Mistral 7B v0.1: a 4,096-token window on every layer; 22,000 tokens a layer against 4,096.
  const LaunchPair p = plan_both_launches(catalog, catalog.model("mistral-7b"), "h100-sxm", Layout{});
  CHECK(p.trt.configurations[0].max_batch < p.vllm.configurations[0].max_batch * 3 / 10);
}

TEST_CASE("plan: DeepSeek-V3 on H100s needs two nodes, and the plan meets its targets in perf runs", "[plan]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& model = catalog.model("deepseek-v3");
  PlanRequest req;
  req.perf.input_tokens = 2048;
  req.perf.output_tokens = 256;
  req.gpus = {"h100-sxm"};
  req.weights_dtypes = {DType::fp8};
  req.kv_dtypes = {DType::fp8};
  req.targets.output_tokens_per_s = 50'000;
  req.targets.max_itl_s = 0.050;
  req.targets.max_ttft_s = 2.0;
  const PlanResult res = plan(catalog, model, req);
  REQUIRE_FALSE(res.miss);
  REQUIRE_FALSE(res.configurations.empty());
  bool dp_attention_timed = false;
  for (const ParetoPoint& p : res.pareto) {
    dp_attention_timed = dp_attention_timed || p.layout.dp_attention();
    CHECK(p.layout.gpus() > 8);  // ~690 GB of FP8 weights: more than one 8 x 80 GB node holds
  }
  CHECK(dp_attention_timed);
  CHECK(non_dominated(res.pareto));
  for (const PlanConfig& c : res.configurations) {
    INFO(c.layout.tp << " " << c.layout.pp << " " << c.layout.ep << " " << c.layout.dp);
    CHECK(c.layout.gpus() > 8);
    CHECK(c.gpus == c.replicas * c.layout.gpus());
    PerfRequest pr = req.perf;
    pr.fit.layout = c.layout;
    pr.fit.weights_dtype = c.weights_dtype;
    pr.fit.kv_dtype = c.kv_dtype;
    const PerfResult own = perf(model, catalog.gpu(c.gpu), pr, {c.batch, c.max_batch}, EstimateBand{});
    CHECK(own.rows[0].itl_s <= 0.050);
    CHECK(own.rows[1].itl_s <= 0.050);
    CHECK(own.rows[0].ttft_s <= 2.0);
    CHECK(own.rows[1].kv_fits);
    CHECK(static_cast<double>(c.replicas) * own.rows[0].output_tokens_per_s >= 50'000);
    CHECK_THAT(evaluate_config(catalog, model, req, c).itl_s, Catch::Matchers::WithinRel(c.itl_s, 1e-12));
  }
}

TEST_CASE("plan: bad requests are input errors naming the field", "[plan]") {
  const Catalog catalog = tiny_catalog();
  const ModelSpec& model = catalog.model("llama-3.1-8b");
  PlanRequest req = tiny_request();
  SECTION("zero target") {
    req.targets.output_tokens_per_s = 0.0;
    CHECK_THROWS_WITH(plan(catalog, model, req), Catch::Matchers::StartsWith("plan.output_tokens_per_s:"));
  }
  SECTION("a load whose prompts cost cannot price") {
    req.targets.output_tokens_per_s = 5e11;  // 1024 in per 256 out: 2e12 input tok/s
    CHECK_THROWS_WITH(plan(catalog, model, req), Catch::Matchers::StartsWith("plan.output_tokens_per_s: 5e+11 output tok/s"));
  }
  SECTION("negative latency") {
    req.targets.max_itl_s = -1.0;
    CHECK_THROWS_WITH(plan(catalog, model, req), Catch::Matchers::StartsWith("plan.max_itl_s:"));
  }
  SECTION("NaN") {
    req.targets.max_ttft_s = std::nan("");
    CHECK_THROWS_WITH(plan(catalog, model, req), Catch::Matchers::StartsWith("plan.max_ttft_s:"));
  }
  SECTION("unknown provider") {
    req.provider = "nebuis";
    CHECK_THROWS_WITH(plan(catalog, model, req), Catch::Matchers::StartsWith("plan.provider: no prices from 'nebuis' (closest: nebius"));
  }
  SECTION("no price") {
    req.given_usd_per_gpu_hour.clear();
    CHECK_THROWS_WITH(plan(catalog, model, req), Catch::Matchers::StartsWith("plan.gpus: no on-demand price"));
  }
}

// Helper s59 tasks F4: vLLM on Gaudi (vllm-gaudi) runs FP8 through Intel Neural Compressor,
// `--quantization inc --kv-cache-dtype fp8_inc` with QUANT_CONFIG from a calibration
// (docs.vllm.ai/en/v0.10.0/features/quantization/inc.html); the NVIDIA flags were emitted.
TEST_CASE("launch flags: vLLM on Gaudi takes FP8 through INC", "[plan]") {
  LaunchSettings s{.model = "meta-llama/Llama-3.1-70B", .layout = {.tp = 4}, .weights_dtype = DType::fp8,
                   .kv_dtype = DType::fp8, .max_num_seqs = 64, .max_model_len = 2560, .memory_share = 0.92};
  s.gaudi = true;
  const EngineLaunch fp8 = launch_command(Engine::vllm, s);
  INFO(fp8.command());
  CHECK_THAT(fp8.command(), Catch::Contains("--quantization inc --kv-cache-dtype fp8_inc"));
  CHECK(fp8.command().find("--quantization fp8") == std::string::npos);
  CHECK(std::any_of(fp8.notes.begin(), fp8.notes.end(),
                    [](const std::string& n) { return n.find("QUANT_CONFIG") != std::string::npos; }));
  // It reads back as FP8 weights and cache; 16-bit weights with an FP8 cache keep their --dtype.
  std::vector<std::string> argv;
  std::istringstream words(fp8.command());
  for (std::string w; words >> w;) {
    argv.push_back(w);
  }
  const LaunchSettings back = parse_launch_command(Engine::vllm, argv, {});
  CHECK(back.weights_dtype == DType::fp8);
  CHECK(back.kv_dtype == DType::fp8);
  // ... on Gaudi: written again, it is the same INC command (session 61: it lost the INC flags).
  CHECK(back.gaudi);
  CHECK(launch_command(Engine::vllm, back).command() == fp8.command());
  s.weights_dtype = DType::bf16;
  const EngineLaunch kv_only = launch_command(Engine::vllm, s);
  CHECK_THAT(kv_only.command(), Catch::Contains("--dtype bfloat16 --quantization inc --kv-cache-dtype fp8_inc"));
  // bf16 alone: no INC, no note.
  s.kv_dtype = DType::bf16;
  const EngineLaunch plain = launch_command(Engine::vllm, s);
  CHECK(plain.command().find("inc") == std::string::npos);
  CHECK(plain.notes.empty());
  // NVIDIA: unchanged.
  s.gaudi = false;
  s.weights_dtype = DType::fp8;
  s.kv_dtype = DType::fp8;
  CHECK_THAT(launch_command(Engine::vllm, s).command(), Catch::Contains("--quantization fp8 --kv-cache-dtype fp8"));
}

TEST_CASE("launch flags read back to the layout, formats and batch cap", "[plan]") {
  for (Engine engine : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
    for (DType w : {DType::bf16, DType::fp8, DType::int4, DType::fp4}) {
      for (const Layout l : {Layout{.tp = 2, .pp = 1, .ep = 1}, Layout{.tp = 4, .pp = 3, .ep = 4},
                             Layout{.tp = 1, .pp = 1, .ep = 16, .dp = 16}, Layout{.tp = 2, .pp = 1, .ep = 16, .dp = 8}}) {
        if (engine == Engine::trtllm && l.dp_attention() && l.tp > 1) {
          continue;  // not one trtllm-serve (checked below); plan does not search it for trtllm
        }
        // A checkpoint that ships the quantized format (FP8 also quantizes on load from 16 bits).
        const bool needs_checkpoint = w == DType::int4 || w == DType::fp4 || (w == DType::fp8 && engine == Engine::trtllm);
        const std::optional<DType> ships = needs_checkpoint ? std::optional(w) : std::nullopt;
        const LaunchSettings s{.model = "meta-llama/Llama-3.1-70B-Instruct", .layout = l, .weights_dtype = w,
                               .checkpoint_dtype = ships, .kv_dtype = DType::fp8, .max_num_seqs = 192,
                               .max_model_len = 2304, .memory_share = 0.9};
        const EngineLaunch launch = launch_command(engine, s);
        // Through text, as a shell would split it.
        std::istringstream words(launch.command());
        std::vector<std::string> argv;
        for (std::string word; words >> word;) {
          argv.push_back(word);
        }
        const LaunchSettings back = parse_launch_command(engine, argv, launch.config_yaml);
        INFO(launch.command());
        CHECK(back.model == s.model);
        CHECK(back.layout.tp == l.tp);
        CHECK(back.layout.pp == l.pp);
        CHECK(back.layout.ep == l.ep);
        CHECK(back.layout.dp == l.dp);
        CHECK(back.max_num_seqs == 192);
        CHECK(back.max_model_len == 2304);
        if (engine != Engine::trtllm) {  // TensorRT-LLM reads both formats from the checkpoint and YAML
          if (w == DType::bf16 || w == DType::fp8) {
            CHECK(back.weights_dtype == w);
          } else {
            // A quantized checkpoint's method is the engine's to read: naming it forces a kernel.
            CHECK(launch.command().find("--quantization") == std::string::npos);
            CHECK(launch.command().find("--dtype") == std::string::npos);
          }
          CHECK(back.kv_dtype == DType::fp8);
        } else {
          CHECK(launch.config_yaml.back() == "  dtype: fp8");
        }
      }
    }
  }
  const EngineLaunch v = launch_command(Engine::vllm, LaunchSettings{.model = "m", .layout = {.tp = 2}, .max_num_seqs = 192, .max_model_len = 2304});
  CHECK(v.command() ==
        "vllm serve m --tensor-parallel-size 2 --pipeline-parallel-size 1 --max-num-seqs 192 --max-model-len 2304 "
        "--gpu-memory-utilization 0.9 --dtype bfloat16 --kv-cache-dtype auto");
  // DP attention as each engine's documentation spells it (16 ranks, experts 16 ways, 64 sequences a rank).
  const LaunchSettings dpa{.model = "m", .layout = {.tp = 1, .pp = 1, .ep = 16, .dp = 16}, .max_num_seqs = 64, .max_model_len = 2304};
  CHECK(launch_command(Engine::vllm, dpa).command() ==
        "vllm serve m --tensor-parallel-size 1 --pipeline-parallel-size 1 --data-parallel-size 16 --enable-expert-parallel "
        "--max-num-seqs 64 --max-model-len 2304 --gpu-memory-utilization 0.9 --dtype bfloat16 --kv-cache-dtype auto");
  CHECK(launch_command(Engine::sglang, dpa).command() ==
        "python -m sglang.launch_server --model-path m --tp-size 16 --pp-size 1 --dp-size 16 --enable-dp-attention "
        "--ep-size 16 --max-running-requests 1024 --context-length 2304 --mem-fraction-static 0.9 --dtype bfloat16 "
        "--kv-cache-dtype auto");
  const EngineLaunch trt = launch_command(Engine::trtllm, dpa);
  CHECK(trt.command() ==
        "trtllm-serve m --backend pytorch --tp_size 16 --pp_size 1 --ep_size 16 --max_batch_size 64 --max_seq_len 2304 "
        "--kv_cache_free_gpu_memory_fraction 0.9 --extra_llm_api_options plan.yaml");
  CHECK(trt.config_yaml == std::vector<std::string>{"enable_attention_dp: true"});
  // 16 GPUs of 8-GPU nodes: each engine is told how to run over the 2 nodes.
  for (Engine engine : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
    const EngineLaunch l = launch_command(engine, dpa);
    CHECK(std::count_if(l.notes.begin(), l.notes.end(), [](const std::string& n) { return n.starts_with("16 GPUs span 2 nodes: "); }) == 1);
  }
  CHECK(launch_command(Engine::vllm, dpa).notes.back().find("--data-parallel-size-local 8") != std::string::npos);
  CHECK(launch_command(Engine::vllm, LaunchSettings{.model = "m", .layout = {.tp = 8}}).notes.empty());
  // A checkpoint with its own code (Kimi-K2's tokenizer; a config.json's auto_map) is launched
  // with the engine's switch for it, and the layout still reads back.
  for (Engine engine : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
    const EngineLaunch l = launch_command(engine, LaunchSettings{.model = "m", .layout = {.tp = 8}, .max_model_len = 2304, .trust_remote_code = true});
    const std::string flag = engine == Engine::trtllm ? "--trust_remote_code" : "--trust-remote-code";
    CHECK(std::count(l.argv.begin(), l.argv.end(), flag) == 1);
    CHECK(parse_launch_command(engine, l.argv, l.config_yaml).layout.tp == 8);
  }
  CHECK(Catalog::builtin().model("kimi-k2").remote_code);
  CHECK_FALSE(Catalog::builtin().model("deepseek-v3").remote_code);
  CHECK(gpuplan::model_from_hf_config(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 64,
      "auto_map": {"AutoConfig": "configuration_x.XConfig"}})", "config.json").remote_code);
  // TensorRT-LLM's attention DP runs attention at TP 1: TP 2 x DP 4 is not one trtllm-serve.
  CHECK_THROWS_WITH(launch_command(Engine::trtllm, LaunchSettings{.model = "m", .layout = {.tp = 2, .ep = 8, .dp = 4}}),
                    Catch::Matchers::StartsWith("engine.layout: trtllm-serve runs DP only as attention DP at TP 1"));
  // Weights in a format the named checkpoint does not ship: a placeholder, never the 16-bit repo
  // (which the engine would serve unquantized), and the note says what to put there.
  for (Engine engine : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
    const EngineLaunch q = launch_command(engine, LaunchSettings{.model = "Qwen/Qwen2.5-72B-Instruct", .weights_dtype = DType::int4});
    INFO(q.command());
    CHECK(q.command().find(" <int4-checkpoint-of-Qwen/Qwen2.5-72B-Instruct> ") != std::string::npos);
    CHECK(q.command().find("--quantization") == std::string::npos);
    REQUIRE_FALSE(q.notes.empty());
    CHECK(q.notes.front().starts_with("int4 weights: replace <int4-checkpoint-of-Qwen/Qwen2.5-72B-Instruct> by a checkpoint"));
  }
  // FP8 from a 16-bit checkpoint quantizes on load; an FP8 checkpoint's own method must not be named.
  CHECK(launch_command(Engine::vllm, LaunchSettings{.model = "m", .weights_dtype = DType::fp8}).command().find("--quantization fp8") !=
        std::string::npos);
  CHECK(launch_command(Engine::vllm, LaunchSettings{.model = "m", .weights_dtype = DType::fp8, .checkpoint_dtype = DType::fp8})
            .command()
            .find("--quantization") == std::string::npos);
  // FP8 from a checkpoint that ships another method (gpt-oss's MXFP4) is no quantization on load:
  // both engines stop on --quantization fp8 against its quantization_config.
  for (Engine engine : {Engine::vllm, Engine::sglang}) {
    const EngineLaunch q = launch_command(
        engine, LaunchSettings{.model = "openai/gpt-oss-120b", .weights_dtype = DType::fp8, .checkpoint_dtype = DType::mxfp4});
    INFO(q.command());
    CHECK(q.command().find("--quantization") == std::string::npos);
    CHECK(q.command().find(" <fp8-checkpoint-of-openai/gpt-oss-120b> ") != std::string::npos);
  }
  // TensorRT-LLM quantizes nothing on load: FP8 from a 16-bit repo needs a ModelOpt checkpoint.
  CHECK(launch_command(Engine::trtllm, LaunchSettings{.model = "m", .weights_dtype = DType::fp8}).argv[1] == "<fp8-checkpoint-of-m>");
  // On a GPU without bf16 a quantized checkpoint runs its activations in fp16.
  CHECK(launch_command(Engine::sglang, LaunchSettings{.model = "m", .weights_dtype = DType::int4, .checkpoint_dtype = DType::int4,
                                                      .fp16_only = true})
            .command()
            .find("--dtype float16") != std::string::npos);
  // A YaRN-extended length: SGLang needs to be told to allow it.
  const LaunchSettings yarn{.model = "Qwen/Qwen3-8B", .unscaled_context_tokens = 40960, .max_model_len = 65536};
  const EngineLaunch sg = launch_command(Engine::sglang, yarn);
  CHECK(std::any_of(sg.notes.begin(), sg.notes.end(),
                    [](const std::string& n) { return n.find("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1") != std::string::npos; }));
  CHECK(launch_command(Engine::vllm, yarn).notes.empty());
  // A command written by hand may name its checkpoint's method.
  CHECK(parse_launch_command(Engine::vllm, {"vllm", "serve", "m", "--quantization", "awq_marlin"}).weights_dtype == DType::int4);
  CHECK(parse_launch_command(Engine::sglang, {"python", "-m", "sglang.launch_server", "--quantization", "w8a8_int8"}).weights_dtype ==
        DType::int8);
  CHECK_THROWS_WITH(parse_launch_command(Engine::vllm, {"vllm", "serve", "m", "--quantization", "bitsandbytes"}),
                    Catch::Matchers::StartsWith("--quantization: 'bitsandbytes' names no single weights format"));
  CHECK_THROWS_WITH(parse_launch_command(Engine::vllm, {"vllm", "serve", "m", "--tensor-parallel-size", "two"}),
                    "--tensor-parallel-size: expected a positive whole number, got 'two'");
  CHECK_THROWS_AS(launch_command(Engine::neutral, LaunchSettings{}), InputError);
}

// tasks s54 F1: `--quantization fp8` on a 16-bit checkpoint makes vLLM (before 0.15) and SGLang
// load every 16-bit weight first (sglang#2895, vllm#7200): Llama-3.1-70B at TP 1 on an H100 holds
// 141 GB of bf16 before quantizing, more than the GPU's 85 GB. The launch line names an FP8
// checkpoint there instead; from vLLM 0.15 the weights are quantized as they load (vllm#31914).
TEST_CASE("plan: FP8 quantized on load names an FP8 checkpoint where the 16-bit shard exceeds the GPU", "[plan]") {
  CHECK(engine_loads_sixteen_bit_whole(Engine::sglang, std::nullopt));
  CHECK(engine_loads_sixteen_bit_whole(Engine::vllm, 14));
  CHECK_FALSE(engine_loads_sixteen_bit_whole(Engine::vllm, 15));
  CHECK_FALSE(engine_loads_sixteen_bit_whole(Engine::vllm, std::nullopt));  // the newest
  CHECK_FALSE(engine_loads_sixteen_bit_whole(Engine::trtllm, std::nullopt));
  LaunchSettings s{.model = "m", .layout = {.tp = 8}, .weights_dtype = DType::fp8, .max_num_seqs = 8,
                   .max_model_len = 2304, .sixteen_bit_load_bytes = 101e9, .gpu_memory_bytes = 85e9};
  for (Engine engine : {Engine::vllm, Engine::sglang}) {
    const EngineLaunch over = launch_command(engine, s);
    INFO(over.command());
    CHECK(std::count(over.argv.begin(), over.argv.end(), "<fp8-checkpoint-of-m>") == 1);
    CHECK(std::count(over.argv.begin(), over.argv.end(), "--quantization") == 0);
    CHECK(std::any_of(over.notes.begin(), over.notes.end(),
                      [](const std::string& n) { return n.find("loads its 16-bit weights whole") != std::string::npos; }));
  }
  s.sixteen_bit_load_bytes = 60e9;  // fits: quantized on load as before
  const EngineLaunch fits = launch_command(Engine::vllm, s);
  CHECK(std::count(fits.argv.begin(), fits.argv.end(), "--quantization") == 1);
  CHECK(std::count(fits.argv.begin(), fits.argv.end(), "m") == 1);

  const Catalog& catalog = Catalog::builtin();
  PlanRequest req;
  req.perf.input_tokens = 1024;
  req.perf.output_tokens = 256;
  req.perf.max_batch = 16;
  req.gpus = {"h100-sxm"};
  req.given_usd_per_gpu_hour = {{"h100-sxm", 2.0}};
  req.weights_dtypes = {DType::fp8};
  req.kv_dtypes = {DType::fp8};
  req.max_gpus_per_replica = 1;
  req.launch_engine = Engine::sglang;
  // At SGLang's own share (about 0.836 here) 70 GB of FP8 weights leave no KV cache on one H100:
  // plan sizes with that share unless --mem-fraction-static is given (helper s57 tasks F5).
  CHECK(plan(catalog, catalog.model("llama-3.1-70b"), req).configurations.empty());
  req.launch_mem_fraction_static = 0.9;
  const PlanResult sglang = plan(catalog, catalog.model("llama-3.1-70b"), req);
  REQUIRE_FALSE(sglang.configurations.empty());
  const PlanConfig& c = sglang.configurations.front();
  CHECK(c.sixteen_bit_load_bytes / 1e9 == Approx(141.1).epsilon(0.02));
  CHECK(c.gpu_memory_bytes / 1e9 == Approx(85.0).epsilon(0.02));
  // s54 tasks F8: SGLang's own mem_fraction_static for the layout, for the header (about 0.836 on
  // an 80 GB GPU at TP 1 by its formula: 13,248 MiB reserved of some 81,000).
  CHECK(c.engine_default_share > 0.8);
  CHECK(c.engine_default_share < 0.9);
  req.launch_engine = Engine::vllm;  // the newest vLLM streams the quantization
  const PlanResult vllm = plan(catalog, catalog.model("llama-3.1-70b"), req);
  REQUIRE_FALSE(vllm.configurations.empty());
  CHECK_FALSE(vllm.configurations.front().sixteen_bit_load_bytes > 0.0);
  // s58 tasks F5: vLLM's own default share (0.92 from 0.21) sizes the plan and is stated, as SGLang's.
  CHECK(vllm.configurations.front().engine_default_share == Approx(0.92));
}
