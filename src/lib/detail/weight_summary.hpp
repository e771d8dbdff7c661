#pragma once
// The weight figures fit() needs, each computed once: every count walks all tensors of the model,
// and a layout search with its suggestions runs fit() some thirty times per request. Parameters
// and bytes by part from one walk; describe_formats() and dominant_dtype() from those.

#include <array>
#include <string>

#include <gpuplan/model_spec.hpp>
#include <gpuplan/weight_format.hpp>

namespace gpuplan::detail {

/// count_params(model) and weight_bytes_by_part(model, formats) from one walk over the tensors.
struct WeightTotals {
  ParamCount params;
  std::array<double, kWeightParts> bytes{};
  std::array<double, kWeightParts> replicated_bytes{};  ///< of `bytes`, what every TP rank keeps whole
  std::array<double, kWeightParts> kv_projection_bytes{};  ///< of `bytes`, K and V (ModelSpec::kv_projection_shards)
};
WeightTotals weight_totals(const ModelSpec& model, const WeightFormats& formats);

/// describe_formats(model, formats), with `params` = count_params(model).
std::string describe_formats(const ModelSpec& model, const WeightFormats& formats, const ParamCount& params);
/// dominant_dtype(model, formats), with `bytes` = weight_bytes_by_part(model, formats).
DType dominant_dtype(const ModelSpec& model, const WeightFormats& formats,
                     const std::array<double, kWeightParts>& bytes);

}  // namespace gpuplan::detail
