#pragma once
// How much of a GEMM's compute share a GEMM of a given size reaches: small GEMMs (few tokens,
// narrow tensor-parallel slices, tiny MoE experts) leave tiles and SMs idle. One curve for
// inference's steps (Efficiency::gemm_half_flop, fitted on serving runs) and training's micro-batches.

namespace gpuplan {

/// Share of the large-GEMM rate a GEMM of `gemm_flop` FLOPs (per GPU) reaches: W / (W + W_half),
/// half at `half_flop`; 1 for an empty GEMM or a zero half-point (the roofline).
[[nodiscard]] inline double gemm_fill(double gemm_flop, double half_flop) {
  return gemm_flop > 0 ? gemm_flop / (gemm_flop + half_flop) : 1.0;
}

}  // namespace gpuplan
