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

namespace gpuplan {

/// How far a request is from the calibration data, nearest first.
enum class BandCase {
  calibrated,                  ///< this model x GPU x weight format is in the calibration set
  combination_not_calibrated,  ///< its model, GPU generation and format are, not together
  format_not_calibrated,       ///< the weight format was not calibrated on this GPU generation
  gpu_generation_not_calibrated,
  model_family_not_calibrated,  ///< no model of this family (or of this kind, MoE or dense)
};
inline constexpr int kBandCases = 5;
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

/// The case of `query` against the calibration groups `calibrated` (models and GPUs from `catalog`).
BandCase band_case(const Catalog& catalog, const CalibrationGroupKey& query,
                   const std::vector<CalibrationGroupKey>& calibrated);
/// The groups of the benchmarks marked `calibrate` with a known input length.
std::vector<CalibrationGroupKey> calibration_groups(const std::vector<Benchmark>& benchmarks);

/// The shipped band of each case (a test keeps them equal to `gpuplan validate --cross-validate`).
Band default_band(BandCase c);

}  // namespace gpuplan
