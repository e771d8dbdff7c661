#include <gpuplan/perf_curve.hpp>

#include <algorithm>
#include <stdexcept>

namespace gpuplan {
namespace {

// The estimate and the bound are the same batches, row for row (perf() builds them together).
template <typename Figure>
std::vector<BandedValue> banded(const PerfResult& r, Figure figure, bool latency) {
  if (r.rows.size() != r.roofline.size()) {
    throw std::logic_error("perf result: estimate and roofline rows differ in number");
  }
  std::vector<BandedValue> out;
  out.reserve(r.rows.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const double v = figure(r.rows[i]);
    const double bound = figure(r.roofline[i]);
    BandedValue b{.batch = r.rows[i].batch, .estimate = v, .bound = bound};
    if (latency) {
      b.low = std::max(v / r.band_high, bound);
      b.high = v / r.band_low;
    } else {
      b.low = v * r.band_low;
      b.high = std::min(v * r.band_high, bound);
    }
    out.push_back(b);
  }
  return out;
}

}  // namespace

std::vector<std::uint64_t> curve_batches(std::uint64_t max_batch, std::uint64_t planned) {
  max_batch = std::max<std::uint64_t>(max_batch, 1);
  std::vector<std::uint64_t> batches;
  for (std::uint64_t b = 1; b < max_batch; b *= 2) {
    batches.push_back(b);
  }
  batches.push_back(max_batch);
  batches.push_back(std::clamp<std::uint64_t>(planned, 1, max_batch));
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  return batches;
}

std::vector<BandedValue> banded_output_tokens_per_s(const PerfResult& result) {
  return banded(result, [](const PerfPoint& p) { return p.output_tokens_per_s; }, false);
}

std::vector<BandedValue> banded_itl_s(const PerfResult& result) {
  return banded(result, [](const PerfPoint& p) { return p.itl_s; }, true);
}

std::vector<BandedValue> banded_ttft_s(const PerfResult& result) {
  return banded(result, [](const PerfPoint& p) { return p.ttft_s; }, true);
}

}  // namespace gpuplan
