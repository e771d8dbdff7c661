// Amdahl and USL least-squares fits (include/gpuplan/scaling.hpp). Both laws are
//   X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))     (Amdahl: kappa = 0),
// so N / X = a + b (N - 1) + c N (N - 1) with a = 1/lambda, b = sigma/lambda, c = kappa/lambda
// is linear in (a, b, c) (Gunther's linearization). That gives a start that needs no guess; a
// bounded Levenberg-Marquardt pass then minimizes the relative error of X itself.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include <gpuplan/scaling.hpp>

#include "detail/numeric.hpp"

namespace gpuplan {
namespace {

constexpr std::size_t kMaxParams = 3;
using Vec = std::array<double, kMaxParams>;
using Mat = std::array<Vec, kMaxParams>;

using detail::d;

// Solves the leading n x n block of A x = b by Gaussian elimination with partial pivoting;
// false when singular.
bool solve(Mat a, Vec b, std::size_t n, Vec& x) {
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) {
        pivot = r;
      }
    }
    if (!(std::abs(a[pivot][col]) > 1e-300)) {
      return false;
    }
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r][col] / a[col][col];
      for (std::size_t k = col; k < n; ++k) {
        a[r][k] -= f * a[col][k];
      }
      b[r] -= f * b[col];
    }
  }
  for (std::size_t r = n; r-- > 0;) {
    double s = b[r];
    for (std::size_t k = r + 1; k < n; ++k) {
      s -= a[r][k] * x[k];
    }
    x[r] = s / a[r][r];
  }
  return std::all_of(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n), [](double v) { return std::isfinite(v); });
}

// Parameters (lambda, sigma, kappa) and which of them the law lets vary.
struct Params {
  double lambda = 0, sigma = 0, kappa = 0;
};

double predict(const Params& p, double n) { return p.lambda * n / (1.0 + p.sigma * (n - 1.0) + p.kappa * n * (n - 1.0)); }

double relative_cost(const Params& p, const std::vector<ScalingPoint>& pts) {
  double s = 0;
  for (const ScalingPoint& q : pts) {
    const double r = (predict(p, d(q.gpus)) - q.throughput) / q.throughput;
    s += r * r;
  }
  return s;
}

Params clamp(Params p) {
  p.lambda = std::max(p.lambda, 1e-300);
  p.sigma = std::clamp(p.sigma, 0.0, 1.0);
  p.kappa = std::max(p.kappa, 0.0);
  return p;
}

// Weighted linear least squares of y = N/X on the basis functions in `use` (0: 1, 1: N-1,
// 2: N(N-1)); weights 1/y^2 make it relative. `tie_sigma_one` fixes b = a (sigma = 1).
// Returns nullopt when singular or outside the bounds.
std::optional<Params> linearized(const std::vector<ScalingPoint>& pts, std::array<bool, 3> use, bool tie_sigma_one) {
  const auto basis = [&](double n) -> Vec {
    Vec f{1.0, n - 1.0, n * (n - 1.0)};
    if (tie_sigma_one) {
      f[0] += f[1];  // a (1 + (N - 1)): b is a
      f[1] = 0;
    }
    return f;
  };
  std::array<std::size_t, 3> cols{};
  std::size_t n = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    if (use[k] && !(tie_sigma_one && k == 1)) {
      cols[n++] = k;
    }
  }
  if (pts.size() < n) {
    return std::nullopt;
  }
  // Column scales keep N(N-1) (up to 4e9) from swamping the normal equations.
  Vec scale{1, 1, 1};
  for (const ScalingPoint& q : pts) {
    const Vec f = basis(d(q.gpus));
    for (std::size_t k = 0; k < n; ++k) {
      scale[k] = std::max(scale[k], std::abs(f[cols[k]]));
    }
  }
  Mat a{};
  Vec b{};
  for (const ScalingPoint& q : pts) {
    const double nq = d(q.gpus);
    const double y = nq / q.throughput;
    const double w = 1.0 / (y * y);
    const Vec f = basis(nq);
    for (std::size_t i = 0; i < n; ++i) {
      const double fi = f[cols[i]] / scale[i];
      b[i] += w * fi * y;
      for (std::size_t j = 0; j < n; ++j) {
        a[i][j] += w * fi * f[cols[j]] / scale[j];
      }
    }
  }
  Vec x{};
  if (!solve(a, b, n, x)) {
    return std::nullopt;
  }
  Vec coef{0, 0, 0};
  for (std::size_t k = 0; k < n; ++k) {
    coef[cols[k]] = x[k] / scale[k];
  }
  if (tie_sigma_one) {
    coef[1] = coef[0];
  }
  const double slack = 1e-12 * std::abs(coef[0]);
  if (!(coef[0] > 0) || coef[1] < -slack || coef[1] > coef[0] + slack || coef[2] < -slack * 1e-6) {
    return std::nullopt;
  }
  return clamp(Params{.lambda = 1.0 / coef[0], .sigma = coef[1] / coef[0], .kappa = coef[2] / coef[0]});
}

// Bounded Levenberg-Marquardt on the relative residuals, over lambda, sigma and (if free) kappa.
Params refine(Params p, const std::vector<ScalingPoint>& pts, bool kappa_free) {
  const std::size_t n = kappa_free ? 3 : 2;
  double cost = relative_cost(p, pts);
  double mu = 1e-3;
  for (int iter = 0; iter < 200 && cost > 0; ++iter) {
    Mat jtj{};
    Vec jtr{};
    for (const ScalingPoint& q : pts) {
      const double nq = d(q.gpus);
      const double den = 1.0 + p.sigma * (nq - 1.0) + p.kappa * nq * (nq - 1.0);
      const double x = p.lambda * nq / den;
      const double r = (x - q.throughput) / q.throughput;
      const Vec j{nq / den / q.throughput, -x * (nq - 1.0) / den / q.throughput,
                  -x * nq * (nq - 1.0) / den / q.throughput};
      for (std::size_t a = 0; a < n; ++a) {
        jtr[a] += j[a] * r;
        for (std::size_t b = 0; b < n; ++b) {
          jtj[a][b] += j[a] * j[b];
        }
      }
    }
    bool improved = false;
    while (mu < 1e12) {
      Mat m = jtj;
      Vec rhs{};
      for (std::size_t a = 0; a < n; ++a) {
        m[a][a] += mu * std::max(jtj[a][a], 1e-300);
        rhs[a] = -jtr[a];
      }
      Vec step{};
      if (solve(m, rhs, n, step)) {
        const Params next = clamp({.lambda = p.lambda + step[0],
                                   .sigma = p.sigma + step[1],
                                   .kappa = kappa_free ? p.kappa + step[2] : 0.0});
        const double next_cost = relative_cost(next, pts);
        if (next_cost < cost) {
          const bool converged = cost - next_cost <= 1e-15 * cost;
          p = next;
          cost = next_cost;
          mu = std::max(mu / 3.0, 1e-12);
          improved = !converged;
          break;
        }
      }
      mu *= 4.0;
    }
    if (!improved) {
      break;
    }
  }
  return p;
}

LawFit finish(const Params& p, const std::vector<ScalingPoint>& pts, std::size_t params) {
  LawFit f;
  f.fitted = true;
  f.lambda = p.lambda;
  f.sigma = p.sigma;
  f.kappa = p.kappa;
  const double mean = std::accumulate(pts.begin(), pts.end(), 0.0,
                                      [](double s, const ScalingPoint& q) { return s + q.throughput; }) /
                      d(pts.size());
  double ss_res = 0;
  double ss_tot = 0;
  double worst = 0;
  for (const ScalingPoint& q : pts) {
    const double r = q.throughput - f.throughput(d(q.gpus));
    worst = std::max(worst, std::abs(r) / q.throughput);
    f.residuals.push_back(r);
    ss_res += r * r;
    ss_tot += (q.throughput - mean) * (q.throughput - mean);
  }
  // As many points as parameters and a bound not in the way: the law passes through every point.
  f.exact = pts.size() == params && worst < 1e-6;
  // Equal throughputs leave no variance to explain: R2 is undefined, not NaN.
  if (ss_tot > 1e-24 * mean * mean * d(pts.size())) {
    f.r2 = 1.0 - ss_res / ss_tot;
  }
  return f;
}

LawFit fit_law(const std::vector<ScalingPoint>& pts, bool usl) {
  const std::size_t params = usl ? 3 : 2;
  if (pts.size() < params) {
    return {};
  }
  // Every active set of the bounds sigma >= 0, sigma <= 1, kappa >= 0, simplest first: a more
  // complex one must fit clearly better to win, so kappa stays exactly 0 when it adds nothing.
  std::optional<Params> best;
  double best_cost = std::numeric_limits<double>::infinity();
  const auto consider = [&](std::optional<Params> p, bool kappa_free) {
    if (!p) {
      return;
    }
    const Params r = refine(*p, pts, kappa_free);
    const double c = relative_cost(r, pts);
    if (c < best_cost * (1.0 - 1e-9) - 1e-24) {
      best = r;
      best_cost = c;
    }
  };
  consider(linearized(pts, {true, false, false}, false), false);
  consider(linearized(pts, {true, true, false}, false), false);
  consider(linearized(pts, {true, false, false}, true), false);
  if (usl) {
    consider(linearized(pts, {true, false, true}, false), true);
    consider(linearized(pts, {true, true, true}, false), true);
    consider(linearized(pts, {true, false, true}, true), true);
  }
  if (!best) {
    // Unreachable for distinct GPU counts and positive throughputs (b = c = 0 always solves);
    // kept so a degenerate input can never leave the parameters unset.
    best = refine(Params{.lambda = pts.front().throughput / d(pts.front().gpus)}, pts, usl);
  }
  return finish(*best, pts, params);
}

}  // namespace

double LawFit::throughput(double gpus) const {
  return predict(Params{.lambda = lambda, .sigma = sigma, .kappa = kappa}, gpus);
}

std::optional<double> LawFit::peak_gpus() const {
  if (!(kappa > 0)) {
    return std::nullopt;
  }
  return std::sqrt((1.0 - sigma) / kappa);
}

LawFit fit_amdahl(const std::vector<ScalingPoint>& points) { return fit_law(points, false); }
LawFit fit_usl(const std::vector<ScalingPoint>& points) { return fit_law(points, true); }

}  // namespace gpuplan
