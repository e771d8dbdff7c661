#pragma once
// The largest batch per replica that meets latency caps (DESIGN "Planning"): ITL and TTFT grow
// with the batch, so a bisection between batch 1 and the full-load batch finds it. plan sizes
// every layout with it, and scale every row under --max-itl-ms / --max-ttft-ms.

#include <cstdint>
#include <functional>
#include <optional>

#include <gpuplan/perf.hpp>

namespace gpuplan {

/// Caps on one point at one batch; an unset cap always holds.
struct LatencyCaps {
  std::optional<double> max_itl_s;
  std::optional<double> max_ttft_s;
  std::optional<double> min_tokens_per_s_per_user;

  [[nodiscard]] bool any() const { return max_itl_s || max_ttft_s || min_tokens_per_s_per_user; }
  /// TTFT under load grows with the batch like the ITL: the batch's prompts queue for prefill.
  [[nodiscard]] bool met(const PerfPoint& p) const {
    return (!max_itl_s || p.itl_s <= *max_itl_s) && (!max_ttft_s || p.ttft_s <= *max_ttft_s) &&
           (!min_tokens_per_s_per_user || p.tokens_per_s_per_user >= *min_tokens_per_s_per_user);
  }
};

struct LatencyBatch {
  PerfPoint point;   ///< at the largest batch meeting the caps; batch 1's when none does
  bool met = false;  ///< batch 1 meets the caps (then so does `point`)
};

/// The largest batch in [1, full_load_batch] meeting `caps`, by bisection (latency is monotone in
/// the batch). `first` is batch 1's point; `eval` times any other batch (plan's also records it on
/// the frontier), called for full_load_batch first, then for the bisection's midpoints.
[[nodiscard]] LatencyBatch largest_batch_within(const LatencyCaps& caps, std::uint64_t full_load_batch,
                                                const PerfPoint& first,
                                                const std::function<PerfPoint(std::uint64_t)>& eval);

}  // namespace gpuplan
