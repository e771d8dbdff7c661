#include <gpuplan/fit_cache.hpp>

#include <string>
#include <unordered_map>
#include <vector>

#include "detail/fit_basis.hpp"

namespace gpuplan {
namespace {

/// Formats one model is asked about in a sweep are few; past this many the cache stops keeping
/// more (a request then computes its figures as without a cache), so memory stays bounded.
constexpr std::size_t kMaxFormatsPerModel = 64;

}  // namespace

struct FitCache::Entries {
  struct Entry {
    std::optional<WeightFormats> asked_formats;
    DType weights_dtype = DType::bf16;
    std::optional<DType> embeddings_dtype;
    DType kv_dtype = DType::bf16;
    bool windows_keep_context = false;
    std::optional<detail::FitBasis> basis;
  };
  // unique_ptr: the slots handed out stay where they are as entries are added.
  std::unordered_map<std::string, std::vector<std::unique_ptr<Entry>>> by_model;
  std::optional<detail::FitBasis> overflow;
};

FitCache::FitCache() : entries_(std::make_unique<Entries>()) {}
FitCache::~FitCache() = default;

std::optional<detail::FitBasis>& FitCache::basis(const ModelSpec& model, const FitRequest& r) {
  std::vector<std::unique_ptr<Entries::Entry>>& entries = entries_->by_model[model.id];
  const bool keep_context = windows_keep_context(r, model);
  for (const std::unique_ptr<Entries::Entry>& e : entries) {
    if (e->weights_dtype == r.weights_dtype && e->kv_dtype == r.kv_dtype && e->embeddings_dtype == r.embeddings_dtype &&
        e->windows_keep_context == keep_context && e->asked_formats == r.weight_formats) {
      return e->basis;
    }
  }
  if (entries.size() >= kMaxFormatsPerModel) {
    // fit_figures() recomputes a basis whose formats are not the request's: shared, it stays right.
    return entries_->overflow;
  }
  entries.push_back(std::make_unique<Entries::Entry>(Entries::Entry{.asked_formats = r.weight_formats,
                                                                    .weights_dtype = r.weights_dtype,
                                                                    .embeddings_dtype = r.embeddings_dtype,
                                                                    .kv_dtype = r.kv_dtype,
                                                                    .windows_keep_context = keep_context,
                                                                    .basis = detail::FitBasis{.keep_shapes = true}}));
  return entries.back()->basis;
}

}  // namespace gpuplan
