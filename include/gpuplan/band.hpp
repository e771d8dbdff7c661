#pragma once
// The uncertainty band of an estimate. It widens with the distance of the request from the
// calibration data: the same model, GPU and weight format as a calibrated group is closest; a
// model family never calibrated is farthest. Each case's band comes from leave-one-group-out
// cross-validation residuals of groups that stood at that distance from the rest.

#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/benchmark.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/layout.hpp>

namespace gpuplan {

/// How far a request is from the calibration data, nearest first.
enum class BandCase {
  calibrated,                  ///< this model x GPU x weight format is in the calibration set
  /// Calibrated model x GPU x format, in a layout no calibration run of it used (another TP or EP
  /// degree, attention DP, pipeline stages, TP across nodes): as far as an unseen combination
  layout_not_calibrated,
  combination_not_calibrated,  ///< its model, GPU generation and format are, not together
  format_not_calibrated,       ///< the weight format was not calibrated on this GPU generation
  gpu_generation_not_calibrated,
  model_family_not_calibrated,  ///< no model of this family (or of this kind, MoE or dense)
};
inline constexpr int kBandCases = 6;
std::string_view to_string(BandCase c);

/// measured / estimate - 1 spans low .. high.
struct Band {
  double low = 0;
  double high = 0;
};

/// What the band distance compares: a model family and kind, a GPU generation, a weight format.
struct CalibrationGroupKey {
  std::string model;
  std::string gpu;
  DType weights_dtype = DType::fp8;
};

/// The family of a model: its HF model_type without the "_moe" suffix ("qwen3_moe" -> "qwen3").
std::string model_family(const ModelSpec& model);
/// The tensor-core generation of a GPU as physics sees it: vendor and the narrowest float format
/// it multiplies natively ("nvidia/fp4" for Blackwell, "nvidia/fp8" for Hopper and Ada).
std::string gpu_generation(const GpuSpec& gpu);

/// The case of a model, GPU and weight format against the calibration groups `calibrated`
/// (their models and GPUs are looked up in `catalog`).
BandCase band_case(const Catalog& catalog, const ModelSpec& model, const GpuSpec& gpu, DType weights_dtype,
                   const std::vector<CalibrationGroupKey>& calibrated);
/// The groups of the benchmarks marked `calibrate` with a known input length.
std::vector<CalibrationGroupKey> calibration_groups(const std::vector<Benchmark>& benchmarks);

/// The shipped band of each case (a test keeps them equal to `derive_bands` over the shipped
/// benchmarks, i.e. to `gpuplan validate --cross-validate`).
Band default_band(BandCase c);

/// The case and band of an estimate for this model, GPU and format against the shipped
/// calibration benchmarks on the shipped entries (the bands are their residuals): user catalog
/// entries change only the answers that use them. An entry a user file changed is never
/// `calibrated`. `catalog` is kept for compatibility.
struct EstimateBand {
  BandCase band_case = BandCase::calibrated;
  /// False for an engine the calibration set was not measured with: the band is widened to the
  /// spread of that engine's public runs (other_engine_band).
  bool engine_calibrated = true;
  /// False for a layout no calibration run used, whether or not it set the case (a more distant
  /// case may have set it): the text names both.
  bool layout_calibrated = true;
  Band band;
  /// The (TP, EP) degrees the calibration runs of this model x GPU x format used, when the case
  /// is `calibrated`: at another degree the step's communication and GEMM shapes were never
  /// measured (held out, Llama 3.3 70B FP4 on B200 calibrated at TP 1 runs 15-25 % slower per GPU
  /// than estimated at TP 2-8), so for_layout() treats it as a layout not calibrated.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calibrated_degrees;
};
/// Whether every calibration run used this kind of layout: TP inside one node (experts TP-sharded
/// or split over the TP group), no pipeline stages, no data-parallel attention.
[[nodiscard]] bool layout_calibrated(const Layout& layout, std::uint64_t gpus_per_node);
/// `e` for a request in `layout`: a layout not calibrated (of a kind no calibration run used, or,
/// for a calibrated case, at a TP or EP degree its runs did not use) is at least layout_not_calibrated.
[[nodiscard]] EstimateBand for_layout(EstimateBand e, const Layout& layout, std::uint64_t gpus_per_node);
/// `calibrated_engine`: whether the request's engine is the calibration set's. Every calibration
/// row is TensorRT-LLM's (trtllm-bench), and the engine-neutral estimate is fitted to them.
EstimateBand estimate_band(const Catalog& catalog, const ModelSpec& model, const GpuSpec& gpu, DType weights_dtype,
                           bool calibrated_engine);
/// Whether an engine of the CLI's is calibrated (TensorRT-LLM, and the neutral estimate; not vLLM, SGLang).
[[nodiscard]] constexpr bool engine_calibrated(Engine engine) {
  return engine != Engine::vllm && engine != Engine::sglang;
}
/// What outputs say of a band widened for an engine not calibrated.
inline constexpr std::string_view kEngineNotCalibrated = "engine not calibrated, widened to public vLLM and SGLang runs";
/// Where a band comes from, as the outputs say it: the case, and "; engine not calibrated ..."
/// when it was widened for the engine.
std::string band_source(BandCase c, bool engine_calibrated, bool layout_calibrated = true);

/// measured / estimate - 1 of an engine not calibrated (vLLM, SGLang, others a measurement file
/// names): the central 84 % of public runs' residuals (tools/heldout/community-2026*.json, 130 runs
/// of vLLM and SGLang on CUDA and ROCm, batch 1 to max load). They are not cross-validation
/// residuals: set from those runs, not tested out of sample on them (a test keeps it equal).
/// An engine not calibrated gets the envelope of its case's band and this one.
Band other_engine_band();
/// The central 84 % of the public AMD runs' residuals once their estimates carry
/// kRocmServingShare (perf.hpp): an AMD GPU's band is widened to it.
Band rocm_serving_band();
/// The central 84 % (8th to 92nd percentile) of residuals, never excluding 0.
Band central_band(std::vector<double> residuals);
/// Whether an entry is not the built-in one: added or changed by a user catalog (or a config.json).
bool differs_from_builtin(const GpuSpec& gpu);
bool differs_from_builtin(const ModelSpec& model);

/// Residuals (measured / estimate - 1) by the case they were predicted in and the
/// cross-validation group that predicted them (in-sample residuals: any group, unused).
struct CaseResiduals {
  BandCase band_case = BandCase::calibrated;
  double residual = 0;
  std::size_t group = 0;
};
/// The band of each case. `calibrated`: the central 84 % (8th to 92nd percentile) of the
/// in-sample residuals. Every other case: the envelope of the central 84 % of each group predicted
/// in that case or a farther one (all groups when none is): rows of one group share its error, so
/// an unseen combination is one more draw of a group's shift, not of a row's.
std::vector<Band> derive_bands(const std::vector<CaseResiduals>& residuals);

}  // namespace gpuplan
