#include <gpuplan/fit_report.hpp>

#include "detail/fit_basis.hpp"

namespace gpuplan {
namespace {

FitReport plan(const ModelSpec& model, const GpuSpec& gpu, const FitQuestion& question, FitCache* cache,
               std::optional<std::string>* context_error) {
  FitReport report;
  FitRequest request = question.request;
  // A default must not turn a plain question into an error (Llama 2: 4,096 tokens); a context
  // the user typed above the maximum still is one.
  if (!question.context_given && model.has_architecture() && request.context_tokens > model.max_position_embeddings) {
    report.default_context_clamped_from = request.context_tokens;
    request.context_tokens = model.max_position_embeddings;
  }
  if (question.layout_given) {
    report.search = given_layout(model, gpu, request, question.search);
  } else {
    std::optional<detail::FitBasis> own;
    report.search = detail::search_layouts(model, gpu, request, question.search,
                                           cache != nullptr ? cache->basis(model, request) : own, context_error);
    if (context_error != nullptr && *context_error) {
      return report;
    }
  }
  report.suggestions =
      detail::suggest_fits(model, gpu, request, question.search, question.layout_given, report.search, cache);
  return report;
}

}  // namespace

FitReport plan_fit(const ModelSpec& model, const GpuSpec& gpu, const FitQuestion& question) {
  return plan(model, gpu, question, nullptr, nullptr);
}

FitReport plan_fit(const ModelSpec& model, const GpuSpec& gpu, const FitQuestion& question, FitCache& cache,
                   std::optional<std::string>& context_error) {
  context_error.reset();
  return plan(model, gpu, question, &cache, &context_error);
}

}  // namespace gpuplan
