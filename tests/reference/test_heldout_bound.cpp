// The roofline must bound every measurement, also ones the model was never fitted on: the
// out-of-sample sets in tools/heldout (other model x GPU x format x layout combinations of
// TensorRT-LLM's v1.0 perf overview, its whole v0.17 table with L40S, A100, GH200, Mistral and
// Mixtral, and its other versions' tables from v0.15 to release/1.2: A100 PCIe, attention-DP
// layouts, gpt-oss at 32K outputs, B300) and other engines' public measurements, read as the tables name them. Their errors are reported by tools/heldout/check.sh and
// the README, not asserted here: only the bound is a promise.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <gpuplan/band.hpp>
#include <gpuplan/calibration.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/measurement_file.hpp>
#include <gpuplan/perf.hpp>
#include <gpuplan/serving_share.hpp>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every held-out file read without a catalog of its own, with its rows.
const std::pair<const char*, std::size_t> kFiles[] = {
    {"perf-overview-v1.0-unseen.json", 238},
    {"perf-overview-v0.17.json", 373},
    {"perf-overview-other-versions.json", 1494},
    {"community-2026.json", 35},
    // Session 35's rows: InferenceX on MI300X/H100, ATOM on MI355X, TP 16 over two nodes, ...
    {"community-2026b.json", 63},
    // Session 38's: DeepSeek at batch 1 on H20/B200/H200, gpt-oss and DeepSeek on ShareGPT at max load, ...
    {"community-2026d.json", 33},
    // Session 39's: TensorRT-LLM's v0.5/v0.6 static-batch tables (H100, L40S, A100), its H200 and
    // Llama 3.1 405B blogs, 405B FP8 on B200 and H200, vLLM and SGLang issues.
    {"community-2026e.json", 40},
    // Session 40's: AMD's MI300X results page (vLLM 0.10.2), gpustack's A100 pages (vLLM, SGLang,
    // TensorRT-LLM), dstack's DeepSeek-R1 on 8 x H200 and 8 x MI300X, Modular MAX on MI355X.
    {"community-2026f.json", 49},
    // Session 41's: Intel's Gaudi 2 and Gaudi 3 pages, NVIDIA NIM's Llama 3.3 70B on 2 x H100, vLLM's
    // nightly H200 latency runs, DeepSeek-V3-AWQ at batch 1, NeMo's Llama-2-7B table.
    {"community-2026g.json", 43},
    // Session 42's: trtllm-bench on B200 (Llama 3.3 70B and DeepSeek-R1 NVFP4), vLLM 0.10 on
    // 8 x MI300X (ROCm/vllm's static-batch and offline tables), gpustack's H100 pages (less 5 rows
    // its GLM-4.5-Air H100 page copied from the A100 page).
    {"community-2026h.json", 31},
    // Session 43's: TensorRT-LLM's v0.12 perf overview (H200, H100, A100, L40S columns), its
    // DeepSeek-R1 attention-DP blog, gpustack's GLM-4.6 (8 x H100 and H200) and A100 pages.
    {"community-2026i.json", 42},
    // Session 44's: LMDeploy's A100 static-batch table, Lambda's vLLM 0.5.4 A100/H100 result files,
    // gpustack's Qwen3-8B quantization page (RTX 4090, A100, H100) and GLM-4.6 on 8 x A100.
    {"community-2026j.json", 30},
    // Session 45's: Qwen's Qwen3 speed table on one H20 (SGLang 0.4.6, batch 1), AMD's vLLM 0.7.3 ROCm
    // table on 8 x MI300X (batch 1 to 128).
    {"community-2026k.json", 31},
    // Session 46's: SGLang's cookbook (A100, B200, MI300X), vLLM and SGLang PRs and issues on
    // MI300X, H20, H20-3e, H200, H100 and H100 NVL.
    {"community-2026l.json", 30},
    // Session 47's: SGLang's cookbook (Llama 4, DeepSeek-V3.1 on MI300X; gpt-oss, DeepSeek-R1,
    // Qwen3-Next, GLM-4.6 on B200), SGLang and vLLM PRs, LMDeploy's 4-bit RTX 4090 page.
    {"community-2026m.json", 33},
    // Session 48's: InferenceX on MI325X and B300 (SGLang), AccelMark on an A100 40GB (BF16, W8A16,
    // GPTQ), two RTX 4090s at TP 2 over PCIe, an RTX PRO 6000 Server report, nm-vllm on an A10G,
    // TensorRT-LLM 0.12 on an H800 (its Mistral rows need their own catalog: check.sh).
    {"community-2026n.json", 37},
    // Session 49's: SGLang's cookbook and vLLM's recipes for Kimi-K2 (B200, MI300X, 16 x H800),
    // InferenceX on B200 (TensorRT-LLM 1.3), TensorRT-LLM #5929 (DeepSeek-R1 on H200 and B200 at
    // batch 1), llmperf on an A10G (vLLM, TGI, NIM, LMI), Mistral-7B on an L4.
    {"community-2026o.json", 36},
    // Session 50's: llm-d on MI355X (vLLM 0.15.1), dstack's MI300X runs (TGI and vLLM 0.6.3 with
    // 405B, prompts to 128k) and its H100 vs MI300X offline runs, SGLang on H20, TensorRT-LLM on
    // H100 (#6294), A40/RTX 4090/A100 40GB/L4 pages.
    {"community-2026p.json", 52},
    // Session 51's: an RTX A6000 sweep (vLLM 0.23), 2 x RTX 3090 (Qwen3 8B-32B, 4/8-bit, TP 2 over
    // PCIe), RTX 5090 batch 1 (vLLM 0.15/0.16), gpt-oss-20b on B200 and MI300X, LMDeploy and
    // MLC-LLM on an RTX 4090, Llama 4 Scout and DeepSeek-V3 on MI300X, an A10G (vLLM).
    {"community-2026q.json", 32},
    // Session 52's: A10/A100/L4/L40S/RTX 4090/GB10/B200/H20-3e under vLLM, SGLang, TensorRT-LLM
    // 0.16, LMDeploy and TGI (AWQ, W8A8, NVFP4, MXFP4 among them); MI300X/MI355X under vLLM and
    // SGLang ROCm, H100/H200 under vLLM V0/V1, SGLang and LMDeploy.
    {"community-2026r.json", 34},
    {"community-2026s.json", 19},
    // Session 53's: SGLang and vLLM on L20, H20, A800 (read as an A100) and A100 (Qwen3 MoE),
    // 405B FP8 on B200, MLC LLM and ExLlama on an RTX 4090; TensorRT-LLM's GLM-4.7 on 8 x H100,
    // vLLM 0.6 ROCm 405B on MI300X, Kimi-K2.5 under vLLM + ATOM on MI355X (an MTP row set aside).
    {"community-2026t.json", 29},
    {"community-2026u.json", 21},
    // Session 54's: SGLang and vLLM on RTX 5090, B200, A100 SXM/PCIe, A10 and RTX 3090 (four
    // eager runs among them); AMD's ROCm blog (Llama 3.1 70B/405B FP8 on 8 x MI300X under vLLM
    // and on 8 x H100 under TensorRT-LLM 0.16, batch 1 to max load) and SGLang #18195.
    {"community-2026v.json", 30},
    {"community-2026w.json", 32},
    // Session 55's: TensorRT-LLM's GLM-4.7 on 4 x GB200 (#11691), SGLang on H20 (#5839), vLLM on
    // A100 (gpt-oss-120b MXFP4 at TP 1-4, PP 2-4 runs) and RTX 4090 (GPTQ 72B at TP 4, Qwen3-8B);
    // Azure's benchmarking guide (Llama 3.1 8B/70B/405B FP8 on MI300X under vLLM, on H100 and H200
    // under TensorRT-LLM 0.15), vLLM #25398 (Qwen3-30B-A3B FP8 EP on 2 x H100 PCIe), gpt-oss-20b
    // on H200 and H100 PCIe (sariekr/gpu_conc).
    {"community-2026x.json", 24},
    {"community-2026y.json", 57},
    // Session 56's: vLLM on H20-3e, GB300, B200 (gpt-oss-120b at concurrency 1 to 300) and
    // A100 (Lambda's vLLM 0.5.4 at TP 2-8, an FP8 checkpoint as W8A16); MI300X under vLLM and
    // SGLang ROCm, Gaudi 2 (optimum-habana), GLM-4.5-Air on 4 x H100 (vLLM 0.11, SGLang 0.5.4:
    // TP, EP, PP, prompts to 32K).
    {"community-2026z.json", 16},
    {"community-2026aa.json", 24},
    // Session 57's: 8 x L4 replicas of Llama 3.1 8B FP8 behind three routers (kubeai, 8,000
    // multi-turn ShareGPT requests), TensorRT-LLM 1.1 and vLLM on A10G, vLLM on T4, 1, 2 and 4 x
    // GB10 (DGX Spark); Gaudi 3 under vLLM's Gaudi fork (8B TP 1, 70B TP 4, 405B TP 8 at eight
    // shapes), Qwen3-30B-A3B FP8 on H200 at 32K prompts, Qwen3-8B on MI300X.
    {"community-2026ab.json", 34},
    {"community-2026ac.json", 25},
    // Session 58's: ROCm/ATOM on MI355X (gpt-oss-120b, DeepSeek-V3.2 read as V3.1), Llama 4
    // Maverick on 8 x MI300X under vLLM ROCm (natural answers capped at 1,000 tokens: max_tokens);
    // its four MTP rows are set aside. community-2026ad.json needs its own catalog (check.sh).
    {"community-2026ae.json", 22},
    // Session 59's: A100 PCIe (vLLM 0.19 eager BF16/AWQ/GPTQ, TensorRT-LLM 1.2.1), gpt-oss on RTX
    // PRO 6000 and GB10. community-2026ag.json needs its own catalog (check.sh).
    {"community-2026af.json", 39}};

}  // namespace

TEST_CASE("heldout: the roofline bounds every unseen measurement, with an estimate for each", "[reference][heldout]") {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  // Other engines' public rows (SGLang, vLLM on CUDA and ROCm, batch 1 to max load): 35 read,
  // 2 speculative-decoding rows set aside.

  for (const auto& [name, rows] : kFiles) {
    INFO(name);
    const std::string path = std::string(GPUPLAN_HELDOUT_DIR) + "/" + name;
    const gpuplan::MeasurementFile file = gpuplan::read_measurement_file(catalog, slurp(path), path);
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(catalog, gpuplan::Efficiency{}, file.benchmarks);
    REQUIRE(c.checks.size() == file.benchmarks.size());
    CHECK(file.benchmarks.size() == rows);
    for (const gpuplan::BenchmarkCheck& check : c.checks) {
      INFO(check.benchmark->id << ": measured " << check.benchmark->output_tokens_per_s << ", roofline "
                               << check.roofline_tokens_per_s);
      CHECK(check.has_estimate);
      CHECK(check.bound_holds);
    }
  }
}

// The band of an engine not calibrated (vLLM, SGLang, any engine but TensorRT-LLM) is set from
// the community files' runs of those engines: this keeps the shipped figure equal to the central
// 84 % of their residuals, so it moves when the model moves. It is no out-of-sample check.
TEST_CASE("heldout: the band of an engine not calibrated is the spread of its public runs", "[reference][heldout]") {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  std::vector<double> residuals;
  std::size_t inside = 0;
  for (const char* name : {"community-2026.json", "community-2026b.json", "community-2026d.json"}) {
    const std::string path = std::string(GPUPLAN_HELDOUT_DIR) + "/" + name;
    const gpuplan::MeasurementFile file = gpuplan::read_measurement_file(catalog, slurp(path), path);
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(catalog, gpuplan::Efficiency{}, file.benchmarks);
    for (const gpuplan::BenchmarkCheck& check : c.checks) {
      // AMD GPUs have a band of their own (below).
      if (check.benchmark->tensorrt_llm || !check.has_estimate || catalog.gpu(check.benchmark->gpu).vendor == "amd") {
        continue;
      }
      CHECK_FALSE(check.band.engine_calibrated);
      residuals.push_back(check.benchmark->output_tokens_per_s / check.estimate_tokens_per_s - 1.0);
      inside += check.inside_band ? 1 : 0;
    }
  }
  CHECK(residuals.size() == 103);
  const gpuplan::Band derived = gpuplan::central_band(residuals);
  const gpuplan::Band shipped = gpuplan::other_engine_band();
  CHECK(shipped.low == Approx(derived.low).margin(0.0005));
  CHECK(shipped.high == Approx(derived.high).margin(0.0005));
  // Widened to this band or wider (the case's), at least the central 84 % fall inside.
  CHECK(static_cast<double>(inside) >= 0.84 * static_cast<double>(residuals.size()));
}

// Serving on AMD GPUs: kRocmServingShare is the median measured / estimate of every public AMD
// run in the community files (without it), and rocm_serving_band the central 84 % of their
// residuals with it. Both move when the model moves. Left out one document at a time, the share
// cuts the median |error| of these runs from 64 % to 30 % (session 50).
TEST_CASE("heldout: AMD serving share and band are the median and spread of the public AMD runs", "[reference][heldout]") {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  std::vector<double> ratios;  // measured / estimate with the share
  std::size_t inside = 0;
  for (const char* name : {"community-2026.json", "community-2026b.json", "community-2026d.json", "community-2026e.json",
                           "community-2026f.json", "community-2026g.json", "community-2026h.json", "community-2026i.json",
                           "community-2026j.json", "community-2026k.json", "community-2026l.json", "community-2026m.json",
                           "community-2026n.json", "community-2026o.json", "community-2026p.json",
                           "community-2026q.json", "community-2026r.json", "community-2026s.json",
                           "community-2026t.json", "community-2026u.json"}) {
    const std::string path = std::string(GPUPLAN_HELDOUT_DIR) + "/" + name;
    const gpuplan::MeasurementFile file = gpuplan::read_measurement_file(catalog, slurp(path), path);
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(catalog, gpuplan::Efficiency{}, file.benchmarks);
    for (const gpuplan::BenchmarkCheck& check : c.checks) {
      if (!check.has_estimate || catalog.gpu(check.benchmark->gpu).vendor != "amd") {
        continue;
      }
      ratios.push_back(check.benchmark->output_tokens_per_s / check.estimate_tokens_per_s);
      inside += check.inside_band ? 1 : 0;
    }
  }
  REQUIRE(ratios.size() == 160);
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  const double median_with = 0.5 * (sorted[sorted.size() / 2] + sorted[(sorted.size() - 1) / 2]);
  // The estimates carry the share: the median of measured / estimate without it is the share.
  CHECK(median_with == Approx(1.0).margin(0.0025));
  std::vector<double> residuals;
  for (const double r : ratios) {
    residuals.push_back(r - 1.0);
  }
  const gpuplan::Band derived = gpuplan::central_band(residuals);
  const gpuplan::Band shipped = gpuplan::rocm_serving_band();
  CHECK(shipped.low == Approx(derived.low).margin(0.0005));
  CHECK(shipped.high == Approx(derived.high).margin(0.0005));
  // The band's edges are interpolated percentiles: at least the 80 % issue 8 asks for fall inside.
  CHECK(static_cast<double>(inside) >= 0.80 * static_cast<double>(ratios.size()));
}

namespace {

/// measured / estimate of every held-out row with an estimate that `keep` selects.
template <class Keep>
std::vector<double> heldout_ratios(Keep keep) {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  std::vector<double> ratios;
  for (const auto& [name, rows] : kFiles) {
    const std::string path = std::string(GPUPLAN_HELDOUT_DIR) + "/" + name;
    const gpuplan::MeasurementFile file = gpuplan::read_measurement_file(catalog, slurp(path), path);
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(catalog, gpuplan::Efficiency{}, file.benchmarks);
    for (const gpuplan::BenchmarkCheck& check : c.checks) {
      if (check.has_estimate && keep(*check.benchmark)) {
        ratios.push_back(check.benchmark->output_tokens_per_s / check.estimate_tokens_per_s);
      }
    }
  }
  return ratios;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return 0.5 * (v[v.size() / 2] + v[(v.size() - 1) / 2]);
}

/// The central 84 % of the residuals measured / estimate - 1.
gpuplan::Band spread(const std::vector<double>& ratios) {
  std::vector<double> residuals;
  for (const double r : ratios) {
    residuals.push_back(r - 1.0);
  }
  return gpuplan::central_band(residuals);
}

}  // namespace

// Attention DP: each kAttentionDpShare* is the median measured / estimate of the held-out
// attention-DP runs at its rank count without it (the estimates carry it, so the median with it
// is 1), and attention_dp_band the central 84 % of all of them with it. Before the shares these
// runs measured a median 0.87x, 0.88x and 0.66x of the estimate at 2, 4 and 8 ranks, and 128 of
// 196 fell inside the band; now 190.
TEST_CASE("heldout: attention-DP shares and band are the medians and spread of its held-out runs",
          "[reference][heldout]") {
  const auto ranks = [](const gpuplan::Benchmark& b) { return b.layout.dp_attention() ? b.layout.ep / b.layout.tp : 0; };
  const std::vector<double> two = heldout_ratios([&](const gpuplan::Benchmark& b) { return ranks(b) >= 2 && ranks(b) < 4; });
  const std::vector<double> four = heldout_ratios([&](const gpuplan::Benchmark& b) { return ranks(b) >= 4 && ranks(b) < 8; });
  const std::vector<double> eight = heldout_ratios([&](const gpuplan::Benchmark& b) { return ranks(b) >= 8; });
  CHECK(two.size() + four.size() + eight.size() == 196);  // attention_dp_note says so
  CHECK(median(two) == Approx(1.0).margin(0.0025));
  CHECK(median(four) == Approx(1.0).margin(0.0025));
  CHECK(median(eight) == Approx(1.0).margin(0.0025));
  std::vector<double> all = two;
  all.insert(all.end(), four.begin(), four.end());
  all.insert(all.end(), eight.begin(), eight.end());
  const gpuplan::Band derived = spread(all);
  CHECK(gpuplan::attention_dp_band().low == Approx(derived.low).margin(0.0005));
  CHECK(gpuplan::attention_dp_band().high == Approx(derived.high).margin(0.0005));
  // By ranks per expert group; without attention DP there is none.
  const gpuplan::Layout dp8{.tp = 1, .pp = 1, .ep = 8, .dp = 8};
  CHECK(gpuplan::attention_dp_share(dp8) == Approx(gpuplan::kAttentionDpShare8Ranks));
  CHECK(gpuplan::attention_dp_share(gpuplan::Layout{.tp = 8, .pp = 1, .ep = 8, .dp = 1}) == Approx(1.0));
}

// Intel Gaudi: kHabanaServingShare is the median measured / estimate of every held-out Gaudi run
// without it, habana_serving_band the central 84 % of their residuals with it. Before it the
// neutral estimate put 20 of vLLM Gaudi fork's 23 Gaudi 3 rows (community-2026ac.json) below its
// band (session 58).
TEST_CASE("heldout: Habana serving share and band are the median and spread of the public Gaudi runs",
          "[reference][heldout]") {
  const gpuplan::Catalog& catalog = gpuplan::Catalog::builtin();
  const std::vector<double> ratios =
      heldout_ratios([&](const gpuplan::Benchmark& b) { return catalog.gpu(b.gpu).vendor == "intel"; });
  CHECK(ratios.size() == 51);  // habana_serving_note says so
  CHECK(median(ratios) == Approx(1.0).margin(0.0025));
  const gpuplan::Band derived = spread(ratios);
  CHECK(gpuplan::habana_serving_band().low == Approx(derived.low).margin(0.0005));
  CHECK(gpuplan::habana_serving_band().high == Approx(derived.high).margin(0.0005));
}
