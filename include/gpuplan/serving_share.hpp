#pragma once
// Shares of the estimate that public serving runs reach where the model's NVIDIA-fitted
// efficiencies were never calibrated: on Intel Gaudi (Habana's stack), and with data-parallel
// attention at each rank count. Each is the median measured / estimate of the held-out runs of
// that kind (tools/heldout), and its band their spread once the share is applied;
// tests/reference/test_heldout_bound.cpp keeps both equal to their derivation. The estimate's
// steps take 1 / share longer; the roofline (best case) is never scaled: it stays a bound.

#include <cstdint>
#include <string>

#include <gpuplan/band.hpp>
#include <gpuplan/layout.hpp>

namespace gpuplan {

/// Median measured / estimate of the public Gaudi 2 and Gaudi 3 runs (optimum-habana and vLLM's
/// Gaudi fork; Intel's pages and sizing guide).
inline constexpr double kHabanaServingShare = 0.918;

/// Median measured / estimate of the held-out attention-DP runs (TensorRT-LLM's perf overviews
/// mostly, SGLang and vLLM DP attention) by ranks per expert group: 2 (or 3), 4 to 7, 8 or more.
inline constexpr double kAttentionDpShare2Ranks = 0.867;
inline constexpr double kAttentionDpShare4Ranks = 0.875;
inline constexpr double kAttentionDpShare8Ranks = 0.663;

/// The share of a layout's estimate under attention DP (1 without it): by its ranks per expert
/// group (EP / TP).
[[nodiscard]] double attention_dp_share(const Layout& layout);

/// The central 84 % of the Habana runs' residuals once their estimates carry kHabanaServingShare:
/// an Intel GPU's band is widened to it.
Band habana_serving_band();
/// The central 84 % of the attention-DP runs' residuals once their estimates carry
/// attention_dp_share: an attention-DP layout's band is widened to it.
Band attention_dp_band();

/// What an estimate on an Intel Gaudi carries, for perf, compare, plan, scale and check.
std::string habana_serving_note();

}  // namespace gpuplan
