#include <gpuplan/serving_share.hpp>

#include <fmt/format.h>

namespace gpuplan {

double attention_dp_share(const Layout& layout) {
  if (!layout.dp_attention()) {
    return 1.0;
  }
  // The ranks one all-to-all waits on; a layout whose groups do not tile the ranks counts EP / TP.
  const std::uint64_t ranks = layout.ep / layout.tp;
  return ranks >= 8 ? kAttentionDpShare8Ranks : ranks >= 4 ? kAttentionDpShare4Ranks : kAttentionDpShare2Ranks;
}

Band habana_serving_band() {
  // tests/reference/test_heldout_bound.cpp keeps this equal to central_band of those runs.
  return {-0.339, 0.342};
}

Band attention_dp_band() {
  // tests/reference/test_heldout_bound.cpp keeps this equal to central_band of those runs.
  return {-0.206, 0.254};
}

std::string habana_serving_note() {
  return fmt::format("Intel Gaudi: estimate x {:.2f}, the median of measured / estimated throughput over 51 public "
                     "runs on Gaudi 2 and Gaudi 3 (optimum-habana, vLLM's Gaudi fork; tools/heldout), none calibrated: "
                     "Habana's serving stack reaches less of the peaks than the model's NVIDIA-fitted efficiencies "
                     "give; the band is those runs' spread about it",
                     kHabanaServingShare);
}

}  // namespace gpuplan
