// The largest batch under latency caps (include/gpuplan/latency_batch.hpp).
#include <gpuplan/latency_batch.hpp>

namespace gpuplan {

LatencyBatch largest_batch_within(const LatencyCaps& caps, std::uint64_t full_load_batch, const PerfPoint& first,
                                  const std::function<PerfPoint(std::uint64_t)>& eval) {
  LatencyBatch out{.point = first, .met = caps.met(first)};
  if (!out.met || full_load_batch <= 1) {
    return out;
  }
  const PerfPoint top = eval(full_load_batch);
  if (caps.met(top)) {
    out.point = top;
    return out;
  }
  std::uint64_t lo = 1;  // meets
  std::uint64_t hi = full_load_batch;  // does not
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const PerfPoint p = eval(mid);
    if (caps.met(p)) {
      lo = mid;
      out.point = p;
    } else {
      hi = mid;
    }
  }
  return out;
}

}  // namespace gpuplan
