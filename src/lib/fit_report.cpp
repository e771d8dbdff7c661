#include <gpuplan/fit_report.hpp>

namespace gpuplan {

FitReport plan_fit(const ModelSpec& model, const GpuSpec& gpu, const FitQuestion& question) {
  FitReport report;
  FitRequest request = question.request;
  // A default must not turn a plain question into an error (Llama 2: 4,096 tokens); a context
  // the user typed above the maximum still is one.
  if (!question.context_given && model.has_architecture() && request.context_tokens > model.max_position_embeddings) {
    report.default_context_clamped_from = request.context_tokens;
    request.context_tokens = model.max_position_embeddings;
  }
  report.search = question.layout_given ? given_layout(model, gpu, request, question.search)
                                        : search_layouts(model, gpu, request, question.search);
  report.suggestions = suggest_fits(model, gpu, request, question.search, question.layout_given, report.search);
  return report;
}

}  // namespace gpuplan
