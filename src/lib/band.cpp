#include <gpuplan/band.hpp>

#include <algorithm>

namespace gpuplan {

std::string_view to_string(BandCase c) {
  switch (c) {
    case BandCase::calibrated: return "model, GPU and format calibrated";
    case BandCase::combination_not_calibrated: return "this model x GPU x format not calibrated";
    case BandCase::format_not_calibrated: return "format not calibrated on this GPU generation";
    case BandCase::gpu_generation_not_calibrated: return "GPU generation not calibrated";
    case BandCase::model_family_not_calibrated: return "model family not calibrated";
  }
  return "?";
}

std::string model_family(const ModelSpec& model) {
  std::string t = model.model_type.empty() ? model.id : model.model_type;
  if (t.ends_with("_moe")) {
    t.resize(t.size() - 4);
  }
  return t;
}

std::string gpu_generation(const GpuSpec& gpu) {
  const auto& f = gpu.dense_flop_per_s;
  const char* narrowest = f.contains("fp4") ? "fp4" : (f.contains("fp8") ? "fp8" : "bf16");
  return gpu.vendor + "/" + narrowest;
}

BandCase band_case(const Catalog& catalog, const CalibrationGroupKey& q,
                   const std::vector<CalibrationGroupKey>& calibrated) {
  const ModelSpec& qm = catalog.model(q.model);
  const GpuSpec& qg = catalog.gpu(q.gpu);
  bool family = false;
  bool generation = false;
  bool format = false;
  for (const CalibrationGroupKey& c : calibrated) {
    if (c.model == q.model && c.gpu == q.gpu && c.weights_dtype == q.weights_dtype) {
      return BandCase::calibrated;
    }
    const ModelSpec& cm = catalog.model(c.model);
    const bool same_generation = gpu_generation(catalog.gpu(c.gpu)) == gpu_generation(qg);
    // MoE and dense models of one family behave differently enough to count as two families.
    family = family || (model_family(cm) == model_family(qm) && cm.is_moe() == qm.is_moe());
    generation = generation || same_generation;
    format = format || (same_generation && c.weights_dtype == q.weights_dtype);
  }
  if (!family) {
    return BandCase::model_family_not_calibrated;
  }
  if (!generation) {
    return BandCase::gpu_generation_not_calibrated;
  }
  if (!format) {
    return BandCase::format_not_calibrated;
  }
  return BandCase::combination_not_calibrated;
}

std::vector<CalibrationGroupKey> calibration_groups(const std::vector<Benchmark>& benchmarks) {
  std::vector<CalibrationGroupKey> out;
  for (const Benchmark& b : benchmarks) {
    if (!b.calibrate || b.input_tokens_is_upper_bound) {
      continue;
    }
    const bool seen = std::any_of(out.begin(), out.end(), [&b](const CalibrationGroupKey& k) {
      return k.model == b.model && k.gpu == b.gpu && k.weights_dtype == b.weights_dtype;
    });
    if (!seen) {
      out.push_back({.model = b.model, .gpu = b.gpu, .weights_dtype = b.weights_dtype});
    }
  }
  return out;
}

Band default_band(BandCase c) {
  // measured / estimate - 1, from `gpuplan validate --cross-validate` (a test keeps these equal).
  switch (c) {
    case BandCase::calibrated: return {-0.114, 0.134};
    case BandCase::combination_not_calibrated: return {-0.114, 0.134};
    case BandCase::format_not_calibrated: return {-0.114, 0.134};
    case BandCase::gpu_generation_not_calibrated: return {-0.114, 0.134};
    case BandCase::model_family_not_calibrated: return {-0.114, 0.134};
  }
  return {};
}

}  // namespace gpuplan
