#pragma once
// When nothing fits, what would: the smallest GPU count of the same GPU, and for the given GPUs
// the changes that each alone (KV cache in fp8, weights in fp8 or fp4, a shorter context, fewer
// concurrent sequences, a smaller prefill chunk) make the request fit, each with its figures.

#include <cstdint>
#include <gpuplan/dtype.hpp>
#include <gpuplan/layout_search.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

enum class FitChange { gpus, kv_dtype, weights_dtype, context, concurrency, mig_profile, prefill_chunk };

struct FitSuggestion {
  FitChange change = FitChange::gpus;
  std::uint64_t count = 0;           ///< gpus, context, concurrency or prefill_chunk: the new value (0: none fits)
  std::optional<DType> dtype;        ///< kv_dtype or weights_dtype: the new format
  std::string mig_profile;           ///< mig_profile: the larger profile of the same GPU
  bool fits = false;                 ///< the change alone makes the request fit
  Layout layout;                     ///< the layout it fits on (or the closest one)
  std::uint64_t context_tokens = 0;  ///< of the changed request
  std::uint64_t concurrency = 0;     ///< of the changed request
  std::optional<std::uint64_t> max_concurrent_sequences;  ///< at context_tokens, on `layout`
  double shortfall_bytes = 0;                             ///< per GPU, when it still does not fit
};

/// Suggestions for a request that does not fit. `search` is the result for `request` (a given
/// layout or a search over `options.gpus`); changed requests are evaluated the same way. The
/// GPU count keeps a given layout's TP x PP and adds replicas when that helps; otherwise it
/// tries every replica shape (TP within a node first) and reports the layout fit would choose. Suggestions with `fits
/// == false` say a change is not enough.
std::vector<FitSuggestion> suggest_fits(const ModelSpec& model, const GpuSpec& gpu, const FitRequest& request,
                                        const LayoutSearchOptions& options, bool layout_given,
                                        const LayoutSearch& search);

}  // namespace gpuplan
