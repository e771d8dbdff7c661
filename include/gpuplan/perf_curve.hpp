#pragma once
// Throughput and latency against batch size with the estimate's band and the roofline bound:
// the series a report draws, and the band arithmetic every report format shares.

#include <cstdint>
#include <vector>

#include <gpuplan/perf.hpp>

namespace gpuplan {

/// The batches a curve is drawn at: powers of two from 1 below `max_batch`, then `max_batch`,
/// and `planned` (sorted, each once; `planned` is clamped to 1 .. max_batch).
std::vector<std::uint64_t> curve_batches(std::uint64_t max_batch, std::uint64_t planned);

/// One figure at one batch: the calibrated estimate, its band and the pure roofline bound.
struct BandedValue {
  std::uint64_t batch = 0;
  double estimate = 0;
  double low = 0;    ///< the band's low end
  double high = 0;   ///< the band's high end
  double bound = 0;  ///< the roofline: an upper bound for throughput, a lower bound for latency
};

/// Deployment output tokens/s per row of `result`: the band is estimate x band_low .. estimate
/// x band_high, and never above the roofline bound.
std::vector<BandedValue> banded_output_tokens_per_s(const PerfResult& result);
/// Inter-token latency in seconds per row. Latency is the inverse of speed: the band's low
/// throughput is its high latency (itl / band_low), and the low end never beats the bound.
std::vector<BandedValue> banded_itl_s(const PerfResult& result);
/// Time to first token in seconds per row, banded like the inter-token latency.
std::vector<BandedValue> banded_ttft_s(const PerfResult& result);

}  // namespace gpuplan
