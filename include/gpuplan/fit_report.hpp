#pragma once
// What `gpuplan fit` answers: the chosen layout's fit, every layout evaluated, and when nothing
// fits, what would.

#include <cstdint>
#include <gpuplan/fit_cache.hpp>
#include <gpuplan/fit_suggestions.hpp>
#include <gpuplan/layout_search.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

struct FitQuestion {
  FitRequest request;
  LayoutSearchOptions search;  ///< GPUs of the deployment (layout searched when not given)
  bool layout_given = false;   ///< request.layout is the user's (--tp/--pp): evaluate only it
  bool context_given = true;   ///< false: request.context_tokens is a default, which gives
                               ///< way to a smaller model maximum
};

struct FitReport {
  LayoutSearch search;
  std::vector<FitSuggestion> suggestions;  ///< empty when it fits
  /// Set when the default context exceeded the model's maximum: the default it replaced.
  std::optional<std::uint64_t> default_context_clamped_from;
};

/// Evaluates the question; suggestions are computed only when nothing fits. Throws InputError
/// as fit() does (a context the user gave above the model's maximum among them).
FitReport plan_fit(const ModelSpec& model, const GpuSpec& gpu, const FitQuestion& question);
/// The same, with figures kept in `cache` across questions (see FitCache for the models it
/// takes), for a sweep: a context the user gave above the model's maximum, the error a sweep
/// meets most, is returned in `context_error` (the report then empty) rather than thrown, whose
/// unwinding cost a third of an answer. With a layout given it is still thrown, as is any other
/// error, in the order plan_fit() above meets them.
FitReport plan_fit(const ModelSpec& model, const GpuSpec& gpu, const FitQuestion& question, FitCache& cache,
                   std::optional<std::string>& context_error);

}  // namespace gpuplan
