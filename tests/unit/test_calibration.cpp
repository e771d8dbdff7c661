#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/band.hpp>
#include <gpuplan/bench_settings.hpp>
#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/cost.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/render.hpp>

#include "test_support.hpp"

using gpuplan::BandCase;
using gpuplan::DType;
using gpuplan::Efficiency;
using gpuplan::Layout;
using gpuplan::PerfModel;
using gpuplan::PerfRequest;

namespace {
using gpuplan::test::cat;

const gpuplan::CrossValidation& shipped_cv() {
  static const gpuplan::CrossValidation cv = gpuplan::cross_validate(cat(), cat().benchmarks());
  return cv;
}

// The shipped Llama 3.3 70B FP8 run on one H200 at 128/2048, in its steady state (no request count).
gpuplan::Benchmark steady_70b_h200() {
  const auto& shipped = cat().benchmarks();
  const auto it = std::find_if(shipped.begin(), shipped.end(), [](const gpuplan::Benchmark& b) {
    return b.id == "trtllm-llama3.3-70b-fp8-h200-sxm-tp1-isl128-osl2048";
  });
  REQUIRE(it != shipped.end());
  gpuplan::Benchmark b = *it;
  b.requests = 0;
  return b;
}

BandCase case_of(const char* model, const char* gpu, DType dtype) {
  return gpuplan::estimate_band(cat(), cat().model(model), cat().gpu(gpu), dtype, true).band_case;
}

// An FP8 max-load benchmark of `model` on `gpu` with this layout and these lengths.
gpuplan::Benchmark fp8_max_load(const char* id, const char* model, const char* gpu, Layout layout,
                                std::uint64_t input_tokens, std::uint64_t output_tokens, double output_tokens_per_s) {
  gpuplan::Benchmark b;
  b.id = id;
  b.model = model;
  b.gpu = gpu;
  b.layout = layout;
  b.weights_dtype = DType::fp8;
  b.kv_dtype = DType::fp8;
  b.input_tokens = input_tokens;
  b.output_tokens = output_tokens;
  b.scenario = "max-load";
  b.output_tokens_per_s = output_tokens_per_s;
  return b;
}
}  // namespace

TEST_CASE("calibration: the shipped defaults are the fit", "[calibration]") {
  const Efficiency fitted = gpuplan::calibrate(cat()).efficiency;
  const Efficiency shipped;
  CHECK(fitted.bandwidth == Approx(shipped.bandwidth).epsilon(0.01));
  CHECK(fitted.compute == Approx(shipped.compute).epsilon(0.01));
  CHECK(fitted.kv_bandwidth == Approx(shipped.kv_bandwidth).epsilon(0.01));
  CHECK(fitted.step_overhead_s == Approx(shipped.step_overhead_s).margin(2e-5));
  CHECK(fitted.layer_overhead_s == Approx(shipped.layer_overhead_s).margin(1e-6));
  CHECK(fitted.activation_passes == Approx(shipped.activation_passes).margin(0.05));
  CHECK(fitted.gemm_half_flop == Approx(shipped.gemm_half_flop).epsilon(0.01).margin(1e7));
  CHECK(fitted.format_exponent == Approx(shipped.format_exponent).margin(0.01));
  CHECK(fitted.sequence_overhead_s == Approx(shipped.sequence_overhead_s).margin(1e-7));
  CHECK(fitted.routed_copy_s_per_gb == Approx(shipped.routed_copy_s_per_gb).margin(1e-6));
}

// trtllm-bench's own tuning (tensorrt_llm/bench/build/tuning.py): the batch is what the KV
// cache holds, at most 4096, per pipeline stage, rounded up; the step tokens follow the batch
// and the input/output ratio, at least 2048 and at most 32768.
TEST_CASE("calibration: measurements are timed at the settings trtllm-bench chose", "[calibration]") {
  const auto s = gpuplan::trtllm_bench_settings(1000, 128, 128, 1);
  CHECK(s.max_batch == 1024);        // 1000, rounded up to 128
  CHECK(s.max_num_tokens == 2048);   // 1000 x 2 = 2000, at least 2048
  const auto big = gpuplan::trtllm_bench_settings(100000, 20000, 2000, 1);
  CHECK(big.max_batch == 4096);      // capped
  CHECK(big.max_num_tokens == 32768);
  const auto small = gpuplan::trtllm_bench_settings(20, 2048, 128, 1);
  CHECK(small.max_batch == 64);      // at least 64
  CHECK(small.max_num_tokens == 2048);  // 64 x 17 = 1088, at least 2048
  const auto pp = gpuplan::trtllm_bench_settings(1000, 128, 128, 4);
  CHECK(pp.max_batch == 256);        // 250 per micro-batch
}

TEST_CASE("calibration: a trtllm-bench run of a sliding-window model keeps the whole context", "[calibration]") {
  // Mistral 7B v0.1 (4,096-token window on every layer) at 20,000/2,000 on one H100, as the v0.17
  // perf overview ran it: TensorRT-LLM's cache keeps all 22,000 tokens a layer, so the batch is
  // about 4,096/22,000 of what a windowed cache would hold.
  gpuplan::Benchmark b;
  b.id = "mistral-20k";
  b.model = "mistral-7b";
  b.gpu = "h100-sxm";
  b.input_tokens = 20000;
  b.output_tokens = 2000;
  b.output_tokens_per_s = 1000;
  const auto batch = [&](bool tensorrt_llm) {
    b.tensorrt_llm = tensorrt_llm;
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(cat(), Efficiency{}, {b});
    REQUIRE(c.checks.size() == 1);
    return static_cast<double>(c.checks[0].batch);
  };
  const double whole = batch(true);
  const double windowed = batch(false);
  CHECK(whole > 0);
  CHECK(whole < windowed * 0.25);
}

TEST_CASE("calibration: the shipped bands are the cross-validation's", "[calibration]") {
  const auto in_sample = gpuplan::validate_benchmarks(cat(), Efficiency{});
  const auto bands = gpuplan::bands_from(in_sample, shipped_cv());
  REQUIRE(bands.size() == static_cast<std::size_t>(gpuplan::kBandCases));
  for (int c = 0; c < gpuplan::kBandCases; ++c) {
    INFO(gpuplan::to_string(static_cast<BandCase>(c)));
    CHECK(gpuplan::default_band(static_cast<BandCase>(c)).low == Approx(bands[static_cast<std::size_t>(c)].low).margin(0.006));
    CHECK(gpuplan::default_band(static_cast<BandCase>(c)).high == Approx(bands[static_cast<std::size_t>(c)].high).margin(0.006));
  }
}

// Issue 8's target: at least 80 % of cross-validated measurements fall inside their band.
TEST_CASE("calibration: cross-validated measurements fall inside their band", "[calibration]") {
  const auto& cv = shipped_cv();
  CHECK(cv.groups.size() >= 8);
  CHECK(cv.rows >= 80);
  CHECK(static_cast<double>(cv.inside_band) >= 0.8 * cv.rows);
  for (const auto& g : cv.groups) {
    for (const auto& k : g.checks) {
      INFO(k.benchmark->id);
      CHECK(k.bound_holds);
    }
  }
}

TEST_CASE("band: an unseen case takes the envelope of the groups' central bands", "[band]") {
  using gpuplan::CaseResiduals;
  std::vector<CaseResiduals> r;
  // In-sample: 0.00 .. 0.24 in steps of 0.01 (central 84 %: 0.0192 .. 0.2208).
  for (int i = 0; i <= 24; ++i) {
    r.push_back({.band_case = BandCase::calibrated, .residual = 0.01 * i});
  }
  // Group 0 (a combination): eleven rows at -0.30 .. -0.20; group 1 (a far family): eleven at
  // +0.10 .. +0.60. Pooled, the 22 rows' 8th percentile would sit inside group 0's rows; the
  // envelope keeps group 0's own 8th percentile.
  for (int i = 0; i <= 10; ++i) {
    r.push_back({.band_case = BandCase::combination_not_calibrated, .residual = -0.30 + 0.01 * i, .group = 0});
    r.push_back({.band_case = BandCase::model_family_not_calibrated, .residual = 0.10 + 0.05 * i, .group = 1});
  }
  const auto bands = gpuplan::derive_bands(r);
  REQUIRE(bands.size() == static_cast<std::size_t>(gpuplan::kBandCases));
  CHECK(bands[0].low == Approx(0.0));   // never excludes zero
  CHECK(bands[0].high == Approx(0.2208));
  const auto combination = bands[static_cast<std::size_t>(BandCase::combination_not_calibrated)];
  CHECK(combination.low == Approx(-0.292));  // group 0: -0.30 + 0.08 x 0.10
  CHECK(combination.high == Approx(0.56));   // group 1: 0.10 + 0.92 x 0.50
  // Farther cases have only group 1 (0.14 .. 0.56) but never a narrower band than a nearer one.
  const auto family = bands[static_cast<std::size_t>(BandCase::model_family_not_calibrated)];
  CHECK(family.low == Approx(combination.low));
  CHECK(family.high == Approx(combination.high));
}

TEST_CASE("validate: each estimate is checked against the band perf gives it", "[calibration]") {
  const gpuplan::Benchmark* shipped = nullptr;
  for (const auto& b : cat().benchmarks()) {
    if (b.calibrate && b.model == "llama-3.3-70b" && b.gpu == "h200-sxm") {
      shipped = &b;
      break;
    }
  }
  REQUIRE(shipped != nullptr);
  const double estimate = gpuplan::check_benchmark(cat(), *shipped, Efficiency{}).estimate_tokens_per_s;
  REQUIRE(estimate > 0);
  std::vector<gpuplan::Benchmark> mine;
  for (const double residual : {0.10, 0.30, -0.20}) {  // the calibrated band is -13 % .. +26 %
    gpuplan::Benchmark b = *shipped;
    b.calibrate = false;
    b.output_tokens_per_s = estimate * (1.0 + residual);
    mine.push_back(b);
  }
  const auto v = gpuplan::validate_benchmarks(cat(), Efficiency{}, mine);
  REQUIRE(v.checks.size() == 3);
  CHECK(v.checks[0].band.band_case == BandCase::calibrated);
  CHECK(v.checks[0].inside_band);
  CHECK_FALSE(v.checks[1].inside_band);
  CHECK_FALSE(v.checks[2].inside_band);
  CHECK(v.inside_band == 1);
  // Another GPU generation and format: the wider band of an unseen case holds +30 %.
  gpuplan::Benchmark far = *shipped;
  far.calibrate = false;
  far.gpu = "b200";
  const double far_estimate = gpuplan::check_benchmark(cat(), far, Efficiency{}).estimate_tokens_per_s;
  far.output_tokens_per_s = far_estimate * 1.3;
  const auto w = gpuplan::validate_benchmarks(cat(), Efficiency{}, {far});
  CHECK(w.checks[0].band.band_case == BandCase::format_not_calibrated);
  CHECK(w.checks[0].inside_band);
}

TEST_CASE("calibration: cross-validation needs two groups", "[calibration]") {
  std::vector<gpuplan::Benchmark> one;
  for (const auto& b : cat().benchmarks()) {
    if (b.calibrate && b.model == "llama-3.1-8b") {
      one.push_back(b);
    }
  }
  REQUIRE_FALSE(one.empty());
  CHECK_THROWS_AS(gpuplan::cross_validate(cat(), one), gpuplan::InputError);
}

TEST_CASE("band: the case says how far a request is from the calibration data", "[band]") {
  CHECK(case_of("llama-3.3-70b", "h200-sxm", DType::fp8) == BandCase::calibrated);
  CHECK(case_of("llama-3.1-70b", "h200-sxm", DType::fp8) == BandCase::combination_not_calibrated);
  CHECK(case_of("llama-3.3-70b", "b200", DType::fp8) == BandCase::format_not_calibrated);
  CHECK(case_of("llama-3.1-70b", "mi300x", DType::fp8) == BandCase::gpu_generation_not_calibrated);
  CHECK(case_of("gpt-oss-120b", "h100-sxm", DType::mxfp4) == BandCase::model_family_not_calibrated);
  // Bands never shrink with distance.
  for (int c = 1; c < gpuplan::kBandCases; ++c) {
    CHECK(gpuplan::default_band(static_cast<BandCase>(c)).high - gpuplan::default_band(static_cast<BandCase>(c)).low >=
          gpuplan::default_band(BandCase::calibrated).high - gpuplan::default_band(BandCase::calibrated).low - 1e-9);
  }
}

TEST_CASE("band: an engine not calibrated widens the band, never narrows it", "[band]") {
  using gpuplan::Engine;
  CHECK(gpuplan::engine_calibrated(Engine::neutral));
  CHECK(gpuplan::engine_calibrated(Engine::trtllm));
  CHECK_FALSE(gpuplan::engine_calibrated(Engine::vllm));
  CHECK_FALSE(gpuplan::engine_calibrated(Engine::sglang));
  const auto& m = cat().model("llama-3.3-70b");
  const auto& g = cat().gpu("h200-sxm");
  const gpuplan::EstimateBand ours = gpuplan::estimate_band(cat(), m, g, DType::fp8, true);
  const gpuplan::EstimateBand other = gpuplan::estimate_band(cat(), m, g, DType::fp8, false);
  CHECK(ours.engine_calibrated);
  CHECK_FALSE(other.engine_calibrated);
  CHECK(other.band_case == ours.band_case);  // the distance in model, GPU and format is the same
  CHECK(other.band.low == Approx(gpuplan::other_engine_band().low));
  CHECK(other.band.low < ours.band.low);
  CHECK(other.band.high >= ours.band.high);
  // Far from the data the case's band may already be wider on one side: the envelope keeps it.
  const gpuplan::EstimateBand far = gpuplan::estimate_band(cat(), cat().model("gpt-oss-120b"), cat().gpu("h100-sxm"),
                                                           DType::mxfp4, false);
  CHECK(far.band.high == Approx(gpuplan::default_band(BandCase::model_family_not_calibrated).high));
  CHECK(far.band.low == Approx(gpuplan::other_engine_band().low));
  CHECK(gpuplan::band_source(BandCase::calibrated, false).find("engine not calibrated") != std::string::npos);
  CHECK(gpuplan::band_source(BandCase::calibrated, true) == "model, GPU and format calibrated");
  // A layout no run used is named beside a more distant case that set the band (audit s44 L3).
  CHECK(gpuplan::band_source(BandCase::model_family_not_calibrated, true, false) ==
        fmt::format("{}; {}", gpuplan::to_string(BandCase::model_family_not_calibrated),
                    gpuplan::to_string(BandCase::layout_not_calibrated)));
  CHECK(gpuplan::band_source(BandCase::layout_not_calibrated, true, false) ==
        gpuplan::to_string(BandCase::layout_not_calibrated));
}

TEST_CASE("band: a calibrated model x GPU x format at a TP or EP degree its runs did not use is a layout not calibrated",
          "[band]") {
  // Held out, Llama 3.3 70B FP4 on B200 (calibrated at TP 1) runs 15-25 % slower per GPU than
  // estimated at TP 2-8: the calibrated band (-11 %) claimed a certainty no run had measured.
  const auto& m = cat().model("llama-3.3-70b");
  const auto& g = cat().gpu("b200");
  const gpuplan::EstimateBand e = gpuplan::estimate_band(cat(), m, g, DType::fp4, true);
  REQUIRE(e.band_case == BandCase::calibrated);
  const auto tp = [&](std::uint64_t n, std::uint64_t dp = 1) {
    return gpuplan::for_layout(e, gpuplan::Layout{.tp = n, .pp = 1, .ep = 1, .dp = dp}, 8);
  };
  CHECK(tp(1).band_case == BandCase::calibrated);
  CHECK(tp(1, 8).band_case == BandCase::calibrated);  // replicas of the calibrated layout
  CHECK(tp(1).band.low == Approx(gpuplan::default_band(BandCase::calibrated).low));
  for (const std::uint64_t n : {2U, 4U, 8U}) {
    const gpuplan::EstimateBand wide = tp(n);
    CHECK(wide.band_case == BandCase::layout_not_calibrated);
    CHECK_FALSE(wide.layout_calibrated);
    CHECK(wide.band.low == Approx(gpuplan::default_band(BandCase::layout_not_calibrated).low));
    CHECK(wide.band.high == Approx(gpuplan::default_band(BandCase::layout_not_calibrated).high));
  }
  // An MoE group is calibrated with its experts split EP ways: TP-sharded experts are another layout.
  const gpuplan::EstimateBand q =
      gpuplan::estimate_band(cat(), cat().model("qwen3-235b-a22b"), cat().gpu("h200-sxm"), DType::fp8, true);
  REQUIRE(q.band_case == BandCase::calibrated);
  CHECK(gpuplan::for_layout(q, gpuplan::Layout{.tp = 8, .pp = 1, .ep = 8, .dp = 1}, 8).band_case == BandCase::calibrated);
  CHECK(gpuplan::for_layout(q, gpuplan::Layout{.tp = 8, .pp = 1, .ep = 1, .dp = 1}, 8).band_case ==
        BandCase::layout_not_calibrated);
  // A case already farther than a layout keeps its own band; only the text names the layout.
  const gpuplan::EstimateBand far = gpuplan::estimate_band(cat(), m, cat().gpu("h100-pcie"), DType::fp8, true);
  REQUIRE(far.band_case > BandCase::layout_not_calibrated);
  CHECK(gpuplan::for_layout(far, gpuplan::Layout{.tp = 8, .pp = 1, .ep = 1, .dp = 1}, 8).band_case == far.band_case);
}

TEST_CASE("perf: the engine batch cap bounds the full-load batch", "[perf]") {
  PerfRequest r;
  r.input_tokens = 128;
  r.output_tokens = 128;
  r.fit.weights_dtype = DType::fp4;
  const PerfModel uncapped(cat().model("qwen3-30b-a3b"), cat().gpu("b200"), r);
  CHECK(uncapped.max_batch_by_memory() > gpuplan::kDefaultEngineMaxBatch);  // memory alone would allow more
  CHECK(uncapped.full_load_batch() == gpuplan::kDefaultEngineMaxBatch);
  r.max_batch = 256;
  CHECK(PerfModel(cat().model("qwen3-30b-a3b"), cat().gpu("b200"), r).full_load_batch() == 256);
  r.max_batch = 0;
  CHECK_THROWS_WITH(PerfModel(cat().model("qwen3-30b-a3b"), cat().gpu("b200"), r),
                    Catch::Matchers::Contains("perf.max_batch"));
}

// Issue 8 class 4: Llama-3.3-70B on 2 x H100 as TP1 x DP2 leaves almost no KV cache.
TEST_CASE("perf: without a layout the one with the most throughput is chosen", "[perf]") {
  PerfRequest r;
  r.input_tokens = 1000;
  r.output_tokens = 1000;
  r.fit.weights_dtype = DType::fp8;
  const auto choice = gpuplan::best_layout(cat().model("llama-3.3-70b"), cat().gpu("h100-sxm"), r, 2);
  CHECK(choice.candidates >= 2);
  CHECK(choice.fit.request.layout.tp == 2);
  r.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 2};
  const PerfModel tp1(cat().model("llama-3.3-70b"), cat().gpu("h100-sxm"), r);
  CHECK(choice.tokens_per_s > tp1.full_load_tokens_per_s(Efficiency{}));
}

// A price that rents 1-GPU instances cannot hold a TP-2 replica (GCP's g2-standard-4 L4): the
// rule keeps the replicas an instance holds, and takes a wider one only when none runs.
TEST_CASE("perf: the layout rule keeps replicas the largest instance holds", "[perf]") {
  PerfRequest r;
  r.input_tokens = 1000;
  r.output_tokens = 1000;
  r.fit.weights_dtype = DType::fp8;
  const auto free_choice = gpuplan::best_layout(cat().model("llama-3.3-70b"), cat().gpu("h100-sxm"), r, 2);
  REQUIRE(free_choice.fit.request.layout.tp == 2);
  r.largest_instance_gpus = 1;
  const auto one_gpu = gpuplan::best_layout(cat().model("llama-3.3-70b"), cat().gpu("h100-sxm"), r, 2);
  CHECK(one_gpu.fit.request.layout.tp == 1);
  CHECK(one_gpu.fit.request.layout.pp == 1);
  CHECK(one_gpu.fit.request.layout.dp == 2);
  CHECK(one_gpu.tokens_per_s < free_choice.tokens_per_s);
  // Nothing an instance holds runs (405B in FP8 on 1-GPU instances): the unconstrained choice.
  const auto wide = gpuplan::best_layout(cat().model("llama-3.1-405b"), cat().gpu("h100-sxm"), r, 8);
  CHECK(wide.candidates > 0);
  CHECK(wide.fit.request.layout.gpus_per_replica() > 1);
}

// With an offer's instance prices the rule ranks by output tokens per USD of the whole instances:
// AWS rents L40S as 1-GPU g6e.xlarge or 4-GPU g6e.12xlarge, so TP 2 on 2 GPUs pays a 4-GPU
// instance while two TP 1 replicas pay two 1-GPU ones.
TEST_CASE("perf: with instance prices the layout rule ranks tokens per USD", "[perf]") {
  PerfRequest r;
  r.fit.weights_dtype = DType::fp8;
  const auto& m = cat().model("qwen3-32b");
  const auto& g = cat().gpu("l40s");
  const auto fastest = gpuplan::best_layout(m, g, r, 2);
  REQUIRE(fastest.fit.request.layout.tp == 2);
  const gpuplan::Price& aws = gpuplan::find_price(cat(), "aws", "l40s", gpuplan::PricingMode::on_demand, "", "");
  const gpuplan::LayoutOffers offers = gpuplan::layout_offers(cat(), std::span(&aws, 1));
  REQUIRE(offers.instance_offers.size() >= 2);
  r.largest_instance_gpus = offers.largest_instance_gpus;
  r.instance_offers = offers.instance_offers;
  const auto cheapest = gpuplan::best_layout(m, g, r, 2);
  CHECK(cheapest.fit.request.layout.tp == 1);
  CHECK(cheapest.fit.request.layout.dp == 2);
  CHECK(cheapest.tokens_per_s < fastest.tokens_per_s);
}

// TP over the network is no first choice: on two 8-GPU nodes DeepSeek-R1 fits as TP 16, but
// pipelines of TP groups inside a node compete with it (TP 8 x PP 2 estimates 1.9x TP 16's
// throughput at full load); it had been the one layout considered.
TEST_CASE("perf: TP across nodes competes with pipeline stages", "[perf]") {
  PerfRequest r;
  r.input_tokens = 8192;
  r.output_tokens = 1024;
  r.fit.weights_dtype = DType::fp8;
  const auto& m = cat().model("deepseek-r1");
  const auto& g = cat().gpu("h100-sxm");
  const auto choice = gpuplan::best_layout(m, g, r, 16);
  // Pipelines of whole nodes come first now (TP 8 x PP 2, with EP 1 or 8); TP 16 is not needed.
  CHECK(choice.candidates >= 2);
  CHECK(choice.fit.request.layout.tp <= 8);
  r.fit.layout = Layout{.tp = 16, .pp = 1, .ep = 1, .dp = 1};
  const PerfModel tp16(m, g, r);
  r.fit.layout = Layout{.tp = 8, .pp = 2, .ep = 1, .dp = 1};
  const PerfModel tp8_pp2(m, g, r);
  CHECK(tp8_pp2.full_load_tokens_per_s(Efficiency{}) > 1.5 * tp16.full_load_tokens_per_s(Efficiency{}));
  CHECK(choice.tokens_per_s >= tp8_pp2.full_load_tokens_per_s(Efficiency{}) * (1.0 - 1e-9));
}

// tasks s57 F1: where one node holds the weights, pipelines across nodes were never tried. 405B
// fp8 at 32K prompts on two 8 x H100 nodes: TP 8 x DP 2 (batch 10 a replica, 221 tok/s) against
// TP 8 x PP 2 (its halved weights hold 44 sequences, 268 tok/s), which fit and plan chose.
TEST_CASE("perf: pipelines of whole nodes compete with replicas inside a node", "[perf]") {
  PerfRequest r;
  r.input_tokens = 32768;
  r.output_tokens = 1024;
  r.fit.weights_dtype = DType::fp8;
  const auto& m = cat().model("llama-3.1-405b");
  const auto& g = cat().gpu("h100-sxm");
  const auto choice = gpuplan::best_layout(m, g, r, 16);
  CHECK(choice.candidates >= 2);
  CHECK(choice.fit.request.layout.tp == 8);
  CHECK(choice.fit.request.layout.pp == 2);
  r.fit.layout = Layout{.tp = 8, .pp = 1, .ep = 1, .dp = 2};
  const PerfModel replicas(m, g, r);
  CHECK(choice.tokens_per_s > 1.1 * replicas.full_load_tokens_per_s(Efficiency{}));
  // Stages inside a node stay out while a layout without them runs: TP 4 x PP 2 x DP 2 is no candidate.
  r.fit.gpus_per_node = 16;  // one 16-GPU node: no pipeline of whole nodes, TP 8 x DP 2 or TP 16
  r.fit.layout = Layout{};
  CHECK(gpuplan::best_layout(m, g, r, 16).fit.request.layout.pp == 1);
}

// A MoE model's search weighs its experts split over each TP group and over every GPU with
// DP attention, not only TP-sharded experts: DeepSeek-R1 on 4 x B200 had one candidate, TP 4,
// at 0.4x what the same GPUs give with --tp 1 --ep 4.
TEST_CASE("perf: a MoE model's layout search weighs expert parallelism", "[perf]") {
  PerfRequest r;
  r.input_tokens = 1024;
  r.output_tokens = 1024;
  r.fit.weights_dtype = DType::mxfp4;
  r.fit.kv_dtype = DType::fp8;
  const auto& m = cat().model("deepseek-r1");
  const auto& g = cat().gpu("b200");
  const auto choice = gpuplan::best_layout(m, g, r, 4);
  CHECK(choice.candidates >= 3);
  r.fit.layout = Layout{.tp = 4, .pp = 1, .ep = 1, .dp = 1};
  const double tp4 = PerfModel(m, g, r).full_load_tokens_per_s(Efficiency{});
  r.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 4, .dp = 4};
  const double dep4 = PerfModel(m, g, r).full_load_tokens_per_s(Efficiency{});
  CHECK(choice.tokens_per_s >= std::max(tp4, dep4) * (1.0 - 1e-9));
  CHECK(choice.fit.request.layout.ep > 1);
  // A named EP is the only one weighed.
  r.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 1};
  r.fit.layout.ep = 4;
  CHECK(gpuplan::best_layout(m, g, r, 4).fit.request.layout.ep == 4);
  // TensorRT-LLM's attention-DP ranks are single GPUs: no TP 2 x DP 4 under EP 8.
  PerfRequest t;
  t.input_tokens = 1024;
  t.output_tokens = 1024;
  t.fit.weights_dtype = DType::fp8;
  t.fit.engine.engine = gpuplan::Engine::trtllm;
  const auto trt = gpuplan::best_layout(cat().model("qwen3-235b-a22b"), cat().gpu("h200-sxm"), t, 8);
  const Layout& l = trt.fit.request.layout;
  CHECK_FALSE((l.dp_attention() && l.tp > 1));
}

// Expert groups smaller than the deployment: DeepSeek-V3's 256 experts do not split 24 ways, and
// the search had weighed only TP 8 x 3 on 24 H200 (EP 1 or 8), at 0.4x of three EP 8 groups
// (0.7x since their estimate carries attention DP's held-out share).
TEST_CASE("perf: a MoE layout search weighs several expert-parallel groups", "[perf]") {
  PerfRequest r;
  r.input_tokens = 1024;
  r.output_tokens = 256;
  r.fit.weights_dtype = DType::fp8;
  const auto& m = cat().model("deepseek-v3");
  const auto& g = cat().gpu("h200-sxm");
  const auto choice = gpuplan::best_layout(m, g, r, 24);
  r.fit.layout = Layout{.tp = 8, .pp = 1, .ep = 8, .dp = 3};
  const double tp8_groups = PerfModel(m, g, r).full_load_tokens_per_s(Efficiency{});
  r.fit.layout = Layout{.tp = 1, .pp = 1, .ep = 8, .dp = 24};
  const double ep8_groups = PerfModel(m, g, r).full_load_tokens_per_s(Efficiency{});
  CHECK(r.fit.layout.expert_groups() == 3);
  // 2.6x before the estimate carried attention DP's held-out share (x 0.66 at 8 ranks); 1.4x with it.
  CHECK(ep8_groups > 1.3 * tp8_groups);
  CHECK(choice.tokens_per_s >= ep8_groups * (1.0 - 1e-9));
  CHECK(choice.fit.request.layout.expert_groups() > 1);
}

TEST_CASE("perf: EP charges each GPU only its own tokens", "[perf][comm]") {
  PerfRequest r;
  r.input_tokens = 1000;
  r.output_tokens = 1000;
  r.fit.layout = Layout{.tp = 8, .pp = 1, .ep = 1, .dp = 1};
  const auto& m = cat().model("qwen3-235b-a22b");
  const auto& g = cat().gpu("h200-sxm");
  const PerfModel tp_only(m, g, r);
  r.fit.layout.ep = 8;
  const PerfModel ep(m, g, r);
  const double tp_comm = tp_only.decode_step(512, 1500, Efficiency{}).communication_s;
  const double ep_comm = ep.decode_step(512, 1500, Efficiency{}).communication_s;
  CHECK(ep_comm > 0);
  // Dispatch and combine of a 1/8 share to top-8 experts move what one all-reduce moves.
  CHECK(ep_comm <= tp_comm * (1.0 + 1e-9));
  // The bound overlaps communication: its step is never longer than the estimate's.
  CHECK(ep.decode_step(512, 1500, Efficiency::roofline()).total_s() <= ep.decode_step(512, 1500, Efficiency{}).total_s());
}

TEST_CASE("calibration: a trtllm-bench row's KV cache is TensorRT-LLM's arithmetic at fraction 0.95",
          "[calibration]") {
  // Llama 3.1 70B FP8 on one H100 (TensorRT-LLM's v0.17 table): 72.7 GB of weights leave about
  // 9 GB of KV cache under TensorRT-LLM's rule (a share of the memory free after loading), but
  // only about 2 GB under a 90 % cap of the whole GPU; the measured 912 tok/s at 128/2048 needs
  // some 30 sequences, so the neutral cap's 6 put the bound below the measurement.
  gpuplan::Benchmark b = fp8_max_load("v017-llama-3.1-70b-h100", "llama-3.1-70b", "h100-sxm",
                                      Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 1}, 128, 2048, 911.62);
  const gpuplan::BenchmarkCheck c = gpuplan::check_benchmark(cat(), b, Efficiency{});
  gpuplan::FitRequest engine;
  engine.layout = b.layout;
  engine.weights_dtype = DType::fp8;
  engine.kv_dtype = DType::fp8;
  engine.context_tokens = 128 + 2048;
  engine.engine.engine = gpuplan::Engine::trtllm;
  engine.engine.kv_cache_free_gpu_mem_fraction = 0.95;
  // trtllm-bench sizes max_num_tokens (and so the activation profile) from the workload: 2048 here.
  engine.engine.max_num_batched_tokens = gpuplan::trtllm_bench_settings(30, 128, 2048, 1).max_num_tokens;
  REQUIRE(*engine.engine.max_num_batched_tokens == 2048);
  const auto fit = gpuplan::fit(cat().model(b.model), cat().gpu(b.gpu), engine);
  REQUIRE(fit.max_concurrent_sequences);
  CHECK(c.batch == *fit.max_concurrent_sequences);
  CHECK(c.batch > 20);
  CHECK(c.bound_holds);
  // A row measured with another engine (SGLang, say) keeps the engine-neutral memory estimate.
  b.tensorrt_llm = false;
  CHECK(gpuplan::check_benchmark(cat(), b, Efficiency{}).batch < 10);
}

// A row's own engine settings (a measurement file states them) size its batch, not the defaults.
TEST_CASE("calibration: a row's stated memory share and step tokens size its batch", "[calibration]") {
  gpuplan::Benchmark b = fp8_max_load("stated-70b-h100", "llama-3.1-70b", "h100-sxm",
                                      Layout{.tp = 2, .pp = 1, .ep = 1, .dp = 1}, 128, 2048, 4000);
  const auto batch = [&b] { return gpuplan::check_benchmark(cat(), b, Efficiency{}).batch; };
  const std::uint64_t at_default = batch();  // TensorRT-LLM's arithmetic at 0.95
  b.memory_share = 0.5;
  const std::uint64_t at_half = batch();
  CHECK(at_half < at_default * 6 / 10);
  CHECK(at_half > at_default * 3 / 10);
  // A stated step of 16,384 tokens profiles more activations than trtllm-bench's 2,048: less KV.
  b.memory_share.reset();
  b.step_tokens = 16384;
  CHECK(batch() < at_default);
  // A stated max_batch_size that does not bind keeps TensorRT-LLM's arithmetic and rule; one that
  // binds caps the batch.
  b.step_tokens.reset();
  b.trtllm_max_batch = 100000;
  CHECK(batch() == at_default);
  const double roofline_uncapped = gpuplan::check_benchmark(cat(), b, Efficiency{}).roofline_tokens_per_s;
  b.trtllm_max_batch = 64;
  CHECK(batch() == 64);
  // The roofline, which may hold more sequences than the arithmetic allows, never more than the cap.
  const gpuplan::BenchmarkCheck capped = gpuplan::check_benchmark(cat(), b, Efficiency{});
  CHECK(capped.roofline_tokens_per_s < roofline_uncapped * 0.5);
  b.trtllm_max_batch = 0;
  // Another engine's share caps the engine-neutral estimate.
  b.step_tokens.reset();
  b.tensorrt_llm = false;
  b.max_batch = 4096;
  const std::uint64_t neutral = batch();
  b.memory_share = 0.7;
  CHECK(batch() < neutral);
}

// A trtllm-bench run serves a finite dataset (perf-overview.md, "Preparing a Dataset").
TEST_CASE("calibration: the perf overview's dataset sizes by input and output length", "[calibration]") {
  CHECK(gpuplan::trtllm_bench_requests(128, 128) == 30000);
  CHECK(gpuplan::trtllm_bench_requests(128, 4096) == 1500);
  CHECK(gpuplan::trtllm_bench_requests(1000, 2000) == 1500);
  CHECK(gpuplan::trtllm_bench_requests(1000, 1000) == 3000);
  CHECK(gpuplan::trtllm_bench_requests(20000, 2000) == 1000);
  CHECK(gpuplan::trtllm_bench_requests(2000, 1000) == 0);  // not in the table: steady state
  for (const auto& b : cat().benchmarks()) {
    if (b.scenario == "max-load") {  // the shipped trtllm-bench rows take the table's size
      CHECK(b.requests == gpuplan::trtllm_bench_requests(b.input_tokens, b.output_tokens));
      CHECK(b.requests > 0);
    } else {
      CHECK(b.requests == 0);
    }
  }
}

TEST_CASE("calibration: a finite run never exceeds its requests and ends on a partial wave", "[calibration]") {
  const gpuplan::Benchmark steady = steady_70b_h200();
  const gpuplan::BenchmarkCheck s = gpuplan::check_benchmark(cat(), steady, Efficiency{});
  REQUIRE(s.batch > 8);
  // The rate at a batch, from the same model the check builds (engine settings included).
  const auto rate_at = [&](std::uint64_t requests) {
    gpuplan::Benchmark b = steady;
    b.requests = requests;
    return gpuplan::check_benchmark(cat(), b, Efficiency{}).estimate_tokens_per_s;
  };
  // As many requests as the batch, or a whole number of waves: the steady state.
  CHECK(rate_at(s.batch) == Approx(s.estimate_tokens_per_s));
  CHECK(rate_at(3 * s.batch) == Approx(s.estimate_tokens_per_s));
  // Fewer requests than the batch: the batch never reaches the full one, the rate is lower.
  const double half = rate_at(s.batch / 2);
  CHECK(half < s.estimate_tokens_per_s);
  // One full wave and a half one: each output token of the half wave at the half wave's rate.
  const std::uint64_t full = s.batch;
  const std::uint64_t rest = s.batch / 2;
  const double expected =
      static_cast<double>(full + rest) / (static_cast<double>(full) / s.estimate_tokens_per_s + static_cast<double>(rest) / half);
  CHECK(rate_at(full + rest) == Approx(expected).epsilon(1e-9));
  gpuplan::Benchmark partial = steady;
  partial.requests = rest;
  CHECK(gpuplan::check_benchmark(cat(), partial, Efficiency{}).run_batch == rest);
  // The roofline runs at most as many sequences as the run has requests: fewer requests than the
  // batch give a tighter bound (it was held at the full batch, 33x loose for a 4-request run).
  // Without a request count it takes every sequence the memory beyond the weights holds
  // (gpuplan's engine arithmetic may be conservative), so it is no lower.
  gpuplan::Benchmark few = steady;
  few.requests = s.batch / 2;
  gpuplan::Benchmark one_wave = steady;
  one_wave.requests = s.batch;
  const double at_full_batch = gpuplan::check_benchmark(cat(), one_wave, Efficiency{}).roofline_tokens_per_s;
  const gpuplan::BenchmarkCheck few_check = gpuplan::check_benchmark(cat(), few, Efficiency{});
  CHECK(few_check.roofline_tokens_per_s < at_full_batch);
  CHECK(few_check.roofline_tokens_per_s >= few_check.estimate_tokens_per_s);
  CHECK(s.roofline_tokens_per_s > at_full_batch);
}

// Requests are shared by the replicas, and the run lasts as long as the busiest one.
TEST_CASE("calibration: a finite run over data-parallel replicas", "[calibration]") {
  const gpuplan::Benchmark b =
      fp8_max_load("dp-run", "llama-3.1-8b", "h100-sxm", Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 8}, 1000, 1000, 10000);
  const auto estimate = [&](std::uint64_t requests) {
    gpuplan::Benchmark r = b;
    r.requests = requests;
    return gpuplan::check_benchmark(cat(), r, Efficiency{});
  };
  const gpuplan::BenchmarkCheck steady = estimate(0);
  REQUIRE(steady.batch > 4);
  // A whole wave on every replica: the steady state of all eight.
  CHECK(estimate(8 * steady.batch).estimate_tokens_per_s == Approx(steady.estimate_tokens_per_s));
  // 16 requests: two on each replica. 10: two on the busiest, which sets the run's length, so the
  // run serves 10 requests in the time of 16, at 10/16 of the rate.
  const double sixteen = estimate(16).estimate_tokens_per_s;
  CHECK(estimate(16).run_batch == 2);
  CHECK(estimate(10).estimate_tokens_per_s == Approx(sixteen * 10.0 / 16.0));
  CHECK(sixteen < steady.estimate_tokens_per_s);
  // One replica's rate at batch 2, times eight: the same rate as eight replicas of two each.
  gpuplan::Benchmark one = b;
  one.layout.dp = 1;
  one.requests = 2;
  CHECK(gpuplan::check_benchmark(cat(), one, Efficiency{}).estimate_tokens_per_s * 8 == Approx(sixteen));
}

// A run whose output lengths spread ends on a drain: the batch empties as requests finish, the
// last steps run few sequences at the small batch's rate (ShareGPT answers in a 1,000-request
// burst: the estimate at equal lengths was 2-5x the measured rate).
TEST_CASE("calibration: spread output lengths end a finite run on a drain", "[calibration]") {
  const gpuplan::Benchmark run = steady_70b_h200();
  const std::uint64_t batch = gpuplan::check_benchmark(cat(), run, Efficiency{}).batch;
  REQUIRE(batch > 8);
  const auto rate = [&](gpuplan::OutputLengths lengths, std::uint64_t requests) {
    gpuplan::Benchmark b = run;
    b.output_lengths = lengths;
    b.requests = requests;
    return gpuplan::check_benchmark(cat(), b, Efficiency{}).estimate_tokens_per_s;
  };
  using gpuplan::OutputLengths;
  const double fixed = rate(OutputLengths::fixed, batch);
  const double uniform = rate(OutputLengths::uniform, batch);
  const double exponential = rate(OutputLengths::exponential, batch);
  // The heavier the tail, the longer the drain at small batches.
  CHECK(uniform < fixed);
  CHECK(exponential < uniform);
  // The steady state (no request count) has no drain: lengths do not matter.
  CHECK(rate(OutputLengths::exponential, 0) == Approx(rate(OutputLengths::fixed, 0)));
  // A queue behind the batch keeps it full until it empties: the drain weighs less.
  const double long_queue = rate(OutputLengths::exponential, 20 * batch);
  CHECK(long_queue > exponential);
  CHECK(long_queue < rate(OutputLengths::fixed, 20 * batch));
  // One request alone has no batch to drain: exponential and fixed lengths take as long.
  CHECK(rate(OutputLengths::exponential, 1) == Approx(rate(OutputLengths::fixed, 1)));
}

// A run gpuplan refuses has no bound: validate names why and does not count it as a broken bound
// (helper s53: a GH200 BF16 70B run with CPU offload showed `bound_holds: false`, exit 1).
TEST_CASE("validate: a row that does not fit is refused with its reason, not a bound failure", "[calibration]") {
  gpuplan::Benchmark b = fp8_max_load("bf16-70b-one-h100", "llama-3.1-70b", "h100-sxm",
                                      Layout{.tp = 1, .pp = 1, .ep = 1, .dp = 1}, 200, 200, 200.0);
  b.weights_dtype = DType::bf16;
  b.kv_dtype = DType::bf16;
  const gpuplan::BenchmarkCheck c = gpuplan::check_benchmark(cat(), b, Efficiency{});
  CHECK(c.batch == 0);
  REQUIRE(c.refused);
  CHECK_THAT(*c.refused, Catch::Contains("weights 141.") && Catch::Contains("offloaded to CPU"));
  const std::vector<gpuplan::Benchmark> rows{b};  // the checks point into it
  const gpuplan::Calibration cal = gpuplan::validate_benchmarks(cat(), Efficiency{}, rows);
  const std::string json = gpuplan::render_validation(cal, false, gpuplan::RenderOptions{.format = gpuplan::Format::json});
  CHECK_THAT(json, Catch::Contains("\"bound_holds\": null") && Catch::Contains("\"roofline_tokens_per_s\": null"));
  const std::string text = gpuplan::render_validation(cal, false, gpuplan::RenderOptions{});
  CHECK_THAT(text, Catch::Contains("refused: 1 row gpuplan does not run"));
}

// Every shipped benchmark runs: a refused one would be a data error (validate no longer exits 1 on it).
TEST_CASE("validate: no shipped benchmark is refused", "[calibration]") {
  for (const gpuplan::BenchmarkCheck& k : gpuplan::validate_benchmarks(cat(), Efficiency{}).checks) {
    INFO(k.benchmark->id);
    CHECK_FALSE(k.refused);
  }
}
