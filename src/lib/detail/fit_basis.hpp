#pragma once
// fit() in two parts, for the searches that call it for many layouts of one request: the figures
// that depend only on the model and the request's formats (a walk over every tensor of the model)
// are computed once per search, and the notes and formats text, which only the reported fit shows,
// are written for that fit alone. fit() itself is fit_numbers() then annotate_fit().

#include <optional>

#include <gpuplan/layout_search.hpp>
#include <gpuplan/memory.hpp>

#include "weight_summary.hpp"

namespace gpuplan::detail {

/// What fit() derives from the model and the request's formats, whatever the layout, GPU or load.
struct FitBasis {
  // The request fields the basis was computed from (reused only while they are the same).
  std::optional<WeightFormats> asked_formats;
  DType weights_dtype = DType::bf16;
  std::optional<DType> embeddings_dtype;
  DType kv_dtype = DType::bf16;

  WeightFormats formats;
  bool formats_as_shipped = false;  ///< formats are the checkpoint's own
  WeightTotals totals;
  double kv_bytes_per_token = 0;
};

/// fit() without notes and formats text. `basis` is computed on first use (after the checks
/// fit() makes first, so errors stay the same) and reused while the request's formats are the same.
FitResult fit_numbers(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                      std::optional<FitBasis>& basis);
/// Adds what fit() adds to fit_numbers(): the formats text and the notes.
void annotate_fit(FitResult& result, const ModelSpec& model, const GpuSpec& gpu);

/// search_layouts() with the caller's basis (fit's suggestions search a changed request a few
/// times) and, unless `annotate`, the chosen fit without its notes and formats text (a suggestion
/// reads only its figures).
LayoutSearch search_layouts(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                            const LayoutSearchOptions& options, std::optional<FitBasis>& basis, bool annotate);

}  // namespace gpuplan::detail
