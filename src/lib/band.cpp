#include <gpuplan/band.hpp>

#include <algorithm>
#include <map>
#include <optional>

#include <gpuplan/serving_share.hpp>

namespace gpuplan {

std::string_view to_string(BandCase c) {
  switch (c) {
    case BandCase::calibrated: return "model, GPU and format calibrated";
    case BandCase::layout_not_calibrated:
      return "layout not calibrated (a TP or EP degree the calibration runs did not use, attention DP, pipeline "
             "stages or TP across nodes)";
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
  const char* narrowest = f.contains("fp4") ? "fp4" : (f.contains("fp8") ? "fp8" : gpu.sixteen_bit_type());
  return gpu.vendor + "/" + narrowest;
}

namespace {

/// A calibration group with what band_case() compares of its model and GPU.
struct CalibratedGroup {
  CalibrationGroupKey key;
  std::string family;
  bool moe = false;
  std::string generation;
};

std::vector<CalibratedGroup> describe_groups(const Catalog& catalog, const std::vector<CalibrationGroupKey>& keys) {
  std::vector<CalibratedGroup> out;
  out.reserve(keys.size());
  for (const CalibrationGroupKey& key : keys) {
    const ModelSpec& m = catalog.model(key.model);
    out.push_back({.key = key, .family = model_family(m), .moe = m.is_moe(),
                   .generation = gpu_generation(catalog.gpu(key.gpu))});
  }
  return out;
}

BandCase case_among(const std::vector<CalibratedGroup>& groups, const ModelSpec& qm, const GpuSpec& qg,
                    DType weights_dtype) {
  const std::string family = model_family(qm);
  const std::string generation = gpu_generation(qg);
  bool in_family = false;
  bool in_generation = false;
  bool format = false;
  for (const CalibratedGroup& g : groups) {
    const CalibrationGroupKey& c = g.key;
    if (c.model == qm.id && c.gpu == qg.id && c.weights_dtype == weights_dtype) {
      return BandCase::calibrated;
    }
    const bool same_generation = g.generation == generation;
    // MoE and dense models of one family behave differently enough to count as two families.
    in_family = in_family || (g.family == family && g.moe == qm.is_moe());
    in_generation = in_generation || same_generation;
    format = format || (same_generation && c.weights_dtype == weights_dtype);
  }
  if (!in_family) {
    return BandCase::model_family_not_calibrated;
  }
  if (!in_generation) {
    return BandCase::gpu_generation_not_calibrated;
  }
  if (!format) {
    return BandCase::format_not_calibrated;
  }
  return BandCase::combination_not_calibrated;
}

/// The shipped catalog's calibration groups, described once: the built-in catalog never changes,
/// and a batch asks for a band with every perf request.
const std::vector<CalibratedGroup>& shipped_groups() {
  static const std::vector<CalibratedGroup> groups =
      describe_groups(Catalog::builtin(), calibration_groups(Catalog::builtin().benchmarks()));
  return groups;
}

}  // namespace

BandCase band_case(const Catalog& catalog, const ModelSpec& qm, const GpuSpec& qg, DType weights_dtype,
                   const std::vector<CalibrationGroupKey>& calibrated) {
  return case_among(describe_groups(catalog, calibrated), qm, qg, weights_dtype);
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

bool differs_from_builtin(const GpuSpec& gpu) {
  const GpuSpec* shipped = Catalog::builtin().find_gpu(gpu.id);
  return shipped == nullptr || shipped->origin != gpu.origin;
}

bool differs_from_builtin(const ModelSpec& model) {
  const ModelSpec* shipped = Catalog::builtin().find_model(model.id);
  return shipped == nullptr || shipped->origin != model.origin;
}

EstimateBand estimate_band(const Catalog& /*catalog*/, const ModelSpec& model, const GpuSpec& gpu,
                           DType weights_dtype, bool calibrated_engine) {
  // The bands are the shipped benchmarks' residuals on the shipped entries (default_band), so the
  // distance is measured against those: a user catalog that overrides a calibrated GPU or model
  // changes the answers that use that entry, never the band of unrelated runs. A request on an
  // overridden entry is not "calibrated" under the calibrated id: its figures are not the ones measured.
  EstimateBand e;
  e.band_case = case_among(shipped_groups(), model, gpu, weights_dtype);
  if (e.band_case == BandCase::calibrated && (differs_from_builtin(model) || differs_from_builtin(gpu))) {
    e.band_case = BandCase::combination_not_calibrated;
  }
  e.band = default_band(e.band_case);
  if (e.band_case == BandCase::calibrated) {
    for (const Benchmark& b : Catalog::builtin().benchmarks()) {
      if (b.calibrate && b.model == model.id && b.gpu == gpu.id && b.weights_dtype == weights_dtype) {
        const std::pair<std::uint64_t, std::uint64_t> degree{b.layout.tp, b.layout.ep};
        if (std::find(e.calibrated_degrees.begin(), e.calibrated_degrees.end(), degree) == e.calibrated_degrees.end()) {
          e.calibrated_degrees.push_back(degree);
        }
      }
    }
  }
  e.engine_calibrated = calibrated_engine;
  if (!e.engine_calibrated) {
    const Band other = other_engine_band();
    e.band = {.low = std::min(e.band.low, other.low), .high = std::max(e.band.high, other.high)};
  }
  if (gpu.vendor == "amd") {
    const Band rocm = rocm_serving_band();
    e.band = {.low = std::min(e.band.low, rocm.low), .high = std::max(e.band.high, rocm.high)};
  }
  if (gpu.vendor == "intel") {
    const Band habana = habana_serving_band();
    e.band = {.low = std::min(e.band.low, habana.low), .high = std::max(e.band.high, habana.high)};
  }
  return e;
}

bool layout_calibrated(const Layout& l, std::uint64_t gpus_per_node) {
  return l.pp == 1 && !l.dp_attention() && l.tp <= std::max<std::uint64_t>(gpus_per_node, 1);
}

EstimateBand for_layout(EstimateBand e, const Layout& layout, std::uint64_t gpus_per_node) {
  const std::pair<std::uint64_t, std::uint64_t> degree{layout.tp, layout.ep};
  e.layout_calibrated = layout_calibrated(layout, gpus_per_node) &&
                        (e.calibrated_degrees.empty() || std::find(e.calibrated_degrees.begin(), e.calibrated_degrees.end(),
                                                                   degree) != e.calibrated_degrees.end());
  if (!e.layout_calibrated && e.band_case < BandCase::layout_not_calibrated) {
    e.band_case = BandCase::layout_not_calibrated;
    const Band wider = default_band(BandCase::layout_not_calibrated);
    e.band = {.low = std::min(e.band.low, wider.low), .high = std::max(e.band.high, wider.high)};
  }
  // Attention DP's estimate carries its held-out share (attention_dp_share); its band is at least
  // those runs' spread about it.
  if (layout.dp_attention()) {
    const Band dp = attention_dp_band();
    e.band = {.low = std::min(e.band.low, dp.low), .high = std::max(e.band.high, dp.high)};
  }
  return e;
}

Band rocm_serving_band() {
  // tests/reference/test_heldout_bound.cpp keeps this equal to central_band of those runs.
  return {-0.570, 0.617};
}

Band other_engine_band() {
  // tests/reference/test_heldout_bound.cpp keeps this equal to central_band of those runs.
  return {-0.533, 0.304};
}

std::string band_source(BandCase c, bool engine_calibrated, bool layout_calibrated) {
  std::string s(to_string(c));
  if (!layout_calibrated && c != BandCase::layout_not_calibrated) {
    s += "; ";
    s += to_string(BandCase::layout_not_calibrated);
  }
  if (!engine_calibrated) {
    s += "; ";
    s += kEngineNotCalibrated;
  }
  return s;
}

Band central_band(std::vector<double> v) {
  constexpr double kLow = 0.08;
  constexpr double kHigh = 0.92;
  if (v.empty()) {
    return {};
  }
  std::sort(v.begin(), v.end());
  const auto percentile = [&v](double q) {
    const double at = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(at);
    const double frac = at - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1.0 - frac) + v[i + 1] * frac : v[i];
  };
  return Band{.low = std::min(0.0, percentile(kLow)), .high = std::max(0.0, percentile(kHigh))};
}

std::vector<Band> derive_bands(const std::vector<CaseResiduals>& residuals) {
  // Each cross-validation group's residuals, with the case it was predicted in.
  std::map<std::size_t, std::pair<int, std::vector<double>>> groups;
  std::vector<double> in_sample;
  for (const CaseResiduals& r : residuals) {
    if (r.band_case == BandCase::calibrated) {
      in_sample.push_back(r.residual);
      continue;
    }
    auto& [group_case, values] = groups[r.group];
    group_case = static_cast<int>(r.band_case);
    values.push_back(r.residual);
  }
  // The envelope of the central band of every group at least `c` away (of every group when
  // none is): a new combination may be as far off as any group already was.
  const auto envelope = [&](int c) {
    std::optional<Band> b;
    for (const auto& [index, entry] : groups) {
      if (entry.first < c) {
        continue;
      }
      const Band g = central_band(entry.second);
      b = b ? Band{.low = std::min(b->low, g.low), .high = std::max(b->high, g.high)} : g;
    }
    return b;
  };
  std::vector<Band> out;
  out.push_back(in_sample.empty() ? envelope(1).value_or(Band{}) : central_band(in_sample));
  for (int c = 1; c < kBandCases; ++c) {
    Band b = envelope(c).value_or(envelope(1).value_or(out.front()));
    // Farther from the data is never more certain: a far case with few groups of its own (one
    // model family) must not get a narrower band than a nearer one.
    if (c >= 2) {
      b.low = std::min(b.low, out.back().low);
      b.high = std::max(b.high, out.back().high);
    }
    out.push_back(b);
  }
  return out;
}

Band default_band(BandCase c) {
  // measured / estimate - 1, from `gpuplan validate --cross-validate` (a test keeps these equal).
  // Every case away from the data is the envelope of all nine groups' central bands (Llama 4
  // Maverick's is the low end, Llama 3.1 8B on H100's the high end): no farther case has groups
  // of its own that go beyond them.
  switch (c) {
    case BandCase::calibrated: return {-0.114, 0.268};
    case BandCase::layout_not_calibrated: return {-0.216, 0.520};
    case BandCase::combination_not_calibrated: return {-0.216, 0.520};
    case BandCase::format_not_calibrated: return {-0.216, 0.520};
    case BandCase::gpu_generation_not_calibrated: return {-0.216, 0.520};
    case BandCase::model_family_not_calibrated: return {-0.216, 0.520};
  }
  return {};
}

}  // namespace gpuplan
