#pragma once
// fit() in two parts, for the searches that call it for many layouts of one request: the figures
// that depend only on the model and the request's formats (a walk over every tensor of the model)
// are computed once per search, and the notes and formats text, which only the reported fit shows,
// are written for that fit alone. fit() itself is fit_numbers() then annotate_fit().

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <gpuplan/fit_cache.hpp>
#include <gpuplan/fit_suggestions.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/memory.hpp>

#include "weight_summary.hpp"

namespace gpuplan::detail {

/// Per-token widths (elements) of the largest activations alive in one layer during a prefill
/// chunk: the residual stream and its normed copy, the q/k/v projections, the MLP's gate and up
/// outputs (each of the last two split over TP). Zero without an architecture.
struct TokenWidths {
  double residual = 0;  ///< both copies
  double qkv = 0;
  double mlp = 0;  ///< one of the two
};
TokenWidths token_widths(const ModelSpec& model);

/// What fit() derives from the model and the request's formats, whatever the layout, GPU or load.
struct FitBasis {
  /// The figures below are those of the fields that follow (false: a FitCache's empty slot).
  bool ready = false;
  /// Every KV shape is kept, not only a search's (a FitCache's basis serves many requests).
  bool keep_shapes = false;
  // The request fields the basis was computed from (reused only while they are the same).
  std::optional<WeightFormats> asked_formats;
  DType weights_dtype = DType::bf16;
  std::optional<DType> embeddings_dtype;
  DType kv_dtype = DType::bf16;
  bool windows_keep_context = false;  ///< windows_keep_context(request)
  bool cross_attention_pooled = false;  ///< vllm_pools_cross_attention_layers(request)

  WeightFormats formats;
  bool formats_as_shipped = false;  ///< formats are the checkpoint's own
  WeightTotals totals;
  /// Unsharded bytes by WeightPart (a bare parameter count: all of it dense).
  std::array<double, kWeightParts> model_weight_bytes{};
  double kv_bytes_per_token = 0;
  TokenWidths token_widths;  ///< the model's alone, kept here to be computed once
  std::optional<std::string> formats_text;  ///< describe_formats(), once a fit is annotated
  /// kv_shape() by (TP, PP), the only parts of the layout it reads; filled as they are asked for.
  std::map<std::pair<std::uint64_t, std::uint64_t>, KvShape> kv_shapes;

  /// kv_shape(model, kv_dtype, layout, windows_keep_context, cross_attention_pooled), computed once
  /// for each TP x PP.
  const KvShape& kv_shape_of(const ModelSpec& model, const Layout& layout);
};

/// The figures fit_numbers() computes for one layout, without the FitResult around them (ids,
/// request, the KV shape copied): what a layout search ranks and tables for every layout it
/// tries, while only the chosen one becomes a FitResult.
struct FitFigures {
  std::optional<MigMemory> mig;
  WeightsBytes weights;
  ActivationBytes activations;
  PerGpuMemory per_gpu;
  const KvShape* kv = nullptr;  ///< in the basis (valid until its next use); null without an architecture
  std::uint64_t block_tokens = 0;  ///< the request's, or the engine's granularity
  std::uint64_t concurrency_per_replica = 0;
  double kv_bytes_per_token_per_gpu = 0;
  double sequence_kv_bytes_per_gpu = 0;
  std::optional<std::uint64_t> max_concurrent_sequences;
  std::optional<std::uint64_t> max_context_tokens;
  bool max_context_limited_by_model = false;
  bool weights_fit = false;
  bool fits = false;
  /// With no engine named: why none of the engines gpuplan knows would start with these weights
  /// on this GPU (every one refuses their format), which makes the verdict "does not run".
  std::optional<std::string> no_engine_runs;
  double datasheet_total_bytes = 0;
  double capacity_total_bytes = 0;
  std::optional<EngineMemory> engine;
};

/// Which of the figures fit_figures() computes.
enum class FigureSet {
  all,
  /// All but the longest context that fits (max_context_tokens left empty, not limited by the
  /// model): a search over a few dozen sizes per layout, which the layouts table shows but
  /// fit's suggestions never read (they rank by fit, sequences and shortfall).
  without_max_context,
};

/// The formats a request serves its model in: its own, or its dtypes applied to the model's parts.
WeightFormats resolve_formats(const ModelSpec& model, const FitRequest& request);

/// fit_numbers()'s checks and arithmetic into `figures` (fields all overwritten, so one object
/// serves a whole search); fit_numbers() is this, then the FitResult built around them. The KV
/// shape is the basis's (kept for the layouts to come), or with `own_shape` written there.
/// A context above the model's maximum, the error a sweep meets most (every context of every
/// model), is returned with `figures` unset, for the caller to throw or hand on: thrown from
/// here and caught by `gpuplan batch`, its unwinding cost some 38k instructions, a third of an
/// answer. Every other error is thrown, and every check made before this one still comes first.
[[nodiscard]] std::optional<std::string> fit_figures(const ModelSpec& model, const GpuSpec& gpu,
                                                     const FitRequest& request, std::optional<FitBasis>& basis,
                                                     FitFigures& figures, KvShape* own_shape = nullptr,
                                                     FigureSet figure_set = FigureSet::all);

/// fit() without notes and formats text. `basis` is computed on first use (after the checks
/// fit() makes first, so errors stay the same) and reused while the request's formats are the same.
FitResult fit_numbers(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                      std::optional<FitBasis>& basis, FigureSet figure_set = FigureSet::all);
/// The longest context that fits, into a result fit_numbers() computed without it: what
/// FigureSet::all adds (perf's layout choice needs it of the chosen layout alone).
void add_max_context(FitResult& result, const ModelSpec& model);
/// Adds what fit() adds to fit_numbers(): the formats text and the notes.
void annotate_fit(FitResult& result, const ModelSpec& model, const GpuSpec& gpu);
/// The same for a result fit_numbers() computed from `basis`, whose formats text it keeps.
void annotate_fit(FitResult& result, const ModelSpec& model, const GpuSpec& gpu, FitBasis& basis);

/// search_layouts() with the caller's basis (a FitCache's, kept across requests). A context
/// above the model's maximum is returned in `context_error` (see fit_figures()), the search
/// then empty; null: thrown.
LayoutSearch search_layouts(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                            const LayoutSearchOptions& options, std::optional<FitBasis>& basis,
                            std::optional<std::string>* context_error = nullptr);

/// The option search_layouts() would choose (the figures of its chosen fit, but for
/// max_context_tokens), without ranking the table or building the chosen FitResult: all that
/// fit's suggestions read of the searches they make for changed requests.
LayoutOption chosen_layout_option(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                  const LayoutSearchOptions& options, std::optional<FitBasis>& basis);

/// suggest_fits() with the figures of every request it evaluates kept in `cache` (none: its own).
std::vector<FitSuggestion> suggest_fits(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                        const LayoutSearchOptions& options, bool layout_given,
                                        const LayoutSearch& search, FitCache* cache);

}  // namespace gpuplan::detail
