#include <gpuplan/output_drain.hpp>

#include <algorithm>
#include <cmath>

namespace gpuplan {

double capped_exponential_scale(double mean, std::uint64_t cap) {
  if (cap == 0) {
    return mean;
  }
  const double c = static_cast<double>(cap);
  // mu (1 - e^(-c/mu)) rises with mu from 0 towards c; 1 - e^-x >= x - x^2/2 puts mean at or below
  // it at mu = c^2 / (2 (c - mean)), and it is below mean at mu = mean.
  double lo = mean;
  double hi = std::max(mean, c * c / (2.0 * (c - mean)));
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mid * -std::expm1(-c / mid) < mean ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Exponential lengths of scale mu leave n = b e^(-k/mu) running after k steps, each level of n
// emitting mu tokens: the integral of mu dn / rate(n) from the last level to b. Uncapped, the last
// request runs on alone for a mean mu more tokens; cut at L, the n_L = b e^(-L/mu) still running at
// step L end together (below one, the last request runs on for mu (1 - n_L) more).
// Uniform lengths over [0, 2m] leave n = b (1 - k/2m): the integral of (2n/b) dn / rate(n).
// At a constant rate each is b / rate, as for equal lengths; integrated over u = ln n.
double drain_seconds_per_token(OutputLengths lengths, double mean, std::uint64_t cap, std::uint64_t batch,
                               const std::function<double(std::uint64_t)>& rate) {
  const double rate_1 = rate(1);
  const double b = static_cast<double>(batch);
  const bool exponential = lengths == OutputLengths::exponential;
  const double scale = exponential ? capped_exponential_scale(mean, cap) : mean;
  const double left_at_cap = exponential && cap > 0 ? b * std::exp(-static_cast<double>(cap) / scale) : 0.0;
  if (batch <= 1 && !exponential) {
    return 1.0 / rate_1;
  }
  const double lowest = std::max(1.0, left_at_cap);
  double seconds = exponential ? std::max(0.0, 1.0 - left_at_cap) / rate_1 : 1.0 / (b * rate_1);
  constexpr int kSteps = 32;
  const double from = std::log(lowest);
  const double span = std::log(b) - from;
  if (span > 0) {
    const auto integrand = [&](double u) {
      const double n = std::exp(u);
      const auto at = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::llround(n)), 1, batch);
      const double weight = exponential ? n : 2.0 * n * n / b;
      return weight / rate(at);
    };
    double sum = 0.5 * (integrand(from) + integrand(from + span));
    for (int i = 1; i < kSteps; ++i) {
      sum += integrand(from + span * i / kSteps);
    }
    seconds += sum * span / kSteps;
  }
  // In tokens of the scale; the caller counts the mean's.
  return seconds * scale / mean;
}

}  // namespace gpuplan
