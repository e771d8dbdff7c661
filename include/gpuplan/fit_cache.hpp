#pragma once
// Figures a fit derives from the model and its formats alone (weight totals, the KV cache's
// shape for each TP x PP), kept across questions by a caller that asks about the same models
// many times: `gpuplan batch` answers a sweep of 100,000 requests over a few dozen models. The
// caller owns the cache and hands it in; the library keeps no state of its own.

#include <memory>
#include <optional>

#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan {

namespace detail {
struct FitBasis;
}

class FitCache {
 public:
  FitCache();
  ~FitCache();
  FitCache(const FitCache&) = delete;
  FitCache& operator=(const FitCache&) = delete;

  /// The figures kept for `model` and the formats `request` asks for (computed on first use).
  /// Models are told apart by id: give only models whose id names one content for the cache's
  /// life (a catalog's), not a config file's or a bare parameter count.
  std::optional<detail::FitBasis>& basis(const ModelSpec& model, const FitRequest& request);

 private:
  struct Entries;
  std::unique_ptr<Entries> entries_;
};

}  // namespace gpuplan
