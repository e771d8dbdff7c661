// Mean queueing wait for a batch slot (queue_wait.hpp).
#include <gpuplan/queue_wait.hpp>

#include <algorithm>
#include <limits>

namespace gpuplan {

double closed_loop_wait_s(std::uint64_t clients, std::uint64_t batch, double requests_per_s) {
  if (clients <= batch || !(requests_per_s > 0)) {
    return 0.0;
  }
  return static_cast<double>(clients - batch) / requests_per_s;
}

double closed_loop_ttft_s(std::uint64_t clients, std::uint64_t batch, std::uint64_t requests, bool waves,
                          double burst_ttft_s, double admitted_alone_s, double requests_per_s) {
  // Equal lengths keep the clients in step (GLM-4.5 on 8 x H100, random prompts, 10 per client:
  // 0.35-1.4 s measured from 4 to 64 clients, near each wave's burst, community-2026u).
  if (requests == 0 || requests <= clients || batch == 0 || waves || clients <= 1) {
    return clients > batch ? closed_loop_wait_s(clients, batch, requests_per_s) + admitted_alone_s : burst_ttft_s;
  }
  const double n = static_cast<double>(requests);
  const std::uint64_t first = std::min(clients, batch);
  // kubeai's 8000 ShareGPT requests from 100 clients per L4 (meas-nvidia s57) measured a mean TTFT
  // of 0.8-1.3 s: the 5.7 s burst of 100 prompts together is paid once, not by every request.
  double waited_s = 0.0;
  if (clients > batch && requests_per_s > 0) {
    const double queued = static_cast<double>(clients - batch);
    waited_s = (queued * (queued + 1.0) / 2.0 + static_cast<double>(requests - clients) * queued) / requests_per_s;
  }
  return (static_cast<double>(first) * burst_ttft_s + static_cast<double>(requests - first) * admitted_alone_s +
          waited_s) /
         n;
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
