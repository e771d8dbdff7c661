// Mean queueing wait for a batch slot (queue_wait.hpp).
#include <gpuplan/queue_wait.hpp>

#include <limits>

namespace gpuplan {

double closed_loop_wait_s(std::uint64_t clients, std::uint64_t batch, double requests_per_s) {
  if (clients <= batch || !(requests_per_s > 0)) {
    return 0.0;
  }
  return static_cast<double>(clients - batch) / requests_per_s;
}

double burst_wait_s(std::uint64_t requests, std::uint64_t batch, bool waves, double wave_s, double requests_per_s) {
  if (requests <= batch || batch == 0) {
    return 0.0;
  }
  const double n = static_cast<double>(requests);
  if (waves) {
    // Wave k (from 0) waits k full waves: B requests each for the full waves, the rest in the last.
    const std::uint64_t full = requests / batch;
    const double last = static_cast<double>(requests % batch);
    const double f = static_cast<double>(full);
    const double waited = static_cast<double>(batch) * wave_s * f * (f - 1.0) / 2.0 + last * wave_s * f;
    return waited / n;
  }
  if (!(requests_per_s > 0)) {
    return 0.0;
  }
  // The i-th queued request (1 .. R - B) is admitted after i completions.
  const double queued = static_cast<double>(requests - batch);
  return queued * (queued + 1.0) / (2.0 * requests_per_s) / n;
}

double poisson_prefill_wait_s(double requests_per_s, double prefill_s) {
  if (!(requests_per_s > 0) || !(prefill_s > 0)) {
    return 0.0;
  }
  const double rho = requests_per_s * prefill_s;
  if (rho >= 1.0) {
    return std::numeric_limits<double>::infinity();
  }
  return rho * prefill_s / (2.0 * (1.0 - rho));
}

}  // namespace gpuplan
