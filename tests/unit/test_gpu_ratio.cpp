#include <catch2/catch.hpp>

#include <deque>

#include <gpuplan/gpu_ratio.hpp>

using gpuplan::Benchmark;
using gpuplan::BenchmarkCheck;
using gpuplan::gpu_ratios;

namespace {

// Benchmarks live in a deque so the checks' pointers stay valid as more are added.
struct Rows {
  std::deque<Benchmark> benchmarks;
  std::vector<BenchmarkCheck> checks;

  void add(const char* model, const char* gpu, std::uint64_t tp, std::uint64_t input, double measured,
           double estimate, bool has_estimate = true, const char* scenario = "max-load", std::uint64_t in_flight = 0) {
    Benchmark b;
    b.id = std::string(model) + "-" + gpu;
    b.model = model;
    b.gpu = gpu;
    b.layout.tp = tp;
    b.scenario = scenario;
    b.input_tokens = input;
    b.output_tokens = 128;
    b.output_tokens_per_s = measured;
    b.max_batch = in_flight;
    benchmarks.push_back(b);
    BenchmarkCheck k;
    k.benchmark = &benchmarks.back();
    k.has_estimate = has_estimate;
    k.estimate_tokens_per_s = estimate;
    checks.push_back(k);
  }
};

}  // namespace

TEST_CASE("gpu ratios: per GPU, against the baseline, misses in points", "[gpu_ratio]") {
  Rows r;
  // 70B: two H100s against one H200. Per GPU: measured 3600 / 3000 = 1.20, estimated 3300 / 3300 = 1.00.
  r.add("m", "h100-sxm", 2, 1000, 6000, 6600);
  r.add("m", "h200-sxm", 1, 1000, 3600, 3300);
  // A second H200 row of the same key on more GPUs does not stand for the GPU.
  r.add("m", "h200-sxm", 2, 1000, 9000, 9000);
  // Another length: measured 1.50, estimated 1.53 (+3 points, within the target).
  r.add("m", "h100-sxm", 1, 2000, 1000, 1000);
  r.add("m", "h200-sxm", 1, 2000, 1500, 1530);
  // Not paired: no estimate, another scenario, or no baseline row for the key.
  r.add("m", "h200-sxm", 1, 3000, 1000, 1000);
  r.add("m", "h100-sxm", 1, 3000, 1000, 0, false);
  r.add("m", "h200-sxm", 1, 1000, 500, 500, true, "offline");
  r.add("other", "b200", 1, 1000, 500, 500);

  const auto groups = gpu_ratios(r.checks, "h100-sxm");
  REQUIRE(groups.size() == 1);
  const gpuplan::GpuRatioGroup& g = groups.front();
  CHECK(g.model == "m");
  CHECK(g.gpu == "h200-sxm");
  CHECK(g.baseline == "h100-sxm");
  REQUIRE(g.ratios.size() == 2);
  CHECK(g.ratios[0].input_tokens == 1000);
  CHECK(g.ratios[0].measured == Approx(1.20));
  CHECK(g.ratios[0].estimated == Approx(1.00));
  CHECK(g.ratios[0].error_points() == Approx(-20.0));
  CHECK(g.ratios[1].error_points() == Approx(3.0));
  CHECK(g.worst_points == Approx(-20.0));
  CHECK(g.median_abs_points == Approx(11.5));
  CHECK(g.within_target == 1);
}

TEST_CASE("gpu ratios: nothing to compare without the baseline GPU", "[gpu_ratio]") {
  Rows r;
  r.add("m", "h200-sxm", 1, 1000, 3600, 3300);
  r.add("m", "b200", 1, 1000, 7200, 7000);
  CHECK(gpu_ratios(r.checks, "h100-sxm").empty());
  // Any GPU can be the baseline.
  const auto groups = gpu_ratios(r.checks, "h200-sxm");
  REQUIRE(groups.size() == 1);
  CHECK(groups.front().gpu == "b200");
  CHECK(groups.front().ratios.front().measured == Approx(2.0));
}

TEST_CASE("gpu ratios: rows at a fixed concurrency pair only with the same concurrency", "[gpu_ratio]") {
  Rows r;
  r.add("m", "h100-sxm", 1, 1000, 1000, 1000, true, "server", 64);
  r.add("m", "a100-sxm-80gb", 1, 1000, 2000, 2000, true, "server", 256);  // four times the requests: no pair
  CHECK(gpu_ratios(r.checks, "h100-sxm").empty());
  r.add("m", "a100-sxm-80gb", 1, 2000, 500, 400, true, "server", 64);
  r.add("m", "h100-sxm", 1, 2000, 1000, 1000, true, "server", 64);
  const auto groups = gpu_ratios(r.checks, "h100-sxm");
  REQUIRE(groups.size() == 1);
  REQUIRE(groups.front().ratios.size() == 1);
  CHECK(groups.front().ratios.front().input_tokens == 2000);
}

TEST_CASE("gpu ratios: rows of different engines or versions are no pair", "[gpu_ratio]") {
  // MLPerf rounds a year apart: the newer software on the H200 against the older on the H100 is
  // not what the GPUs differ by.
  Rows r;
  r.add("m", "h100-sxm", 1, 1000, 1000, 1000);
  r.benchmarks.back().engine = "TensorRT-LLM v4.0";
  r.add("m", "h200-sxm", 1, 1000, 1600, 1300);
  r.benchmarks.back().engine = "TensorRT-LLM v4.1";
  CHECK(gpu_ratios(r.checks, "h100-sxm").empty());
  r.add("m", "h100-sxm", 1, 1000, 1250, 1000);
  r.benchmarks.back().engine = "TensorRT-LLM v4.1";
  const auto groups = gpu_ratios(r.checks, "h100-sxm");
  REQUIRE(groups.size() == 1);
  REQUIRE(groups.front().ratios.size() == 1);
  CHECK(groups.front().ratios.front().measured == Approx(1.28));
}
