#include <gpuplan/calibration.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <gpuplan/error.hpp>

namespace gpuplan {
namespace {

PerfRequest request_for(const Benchmark& b, const Efficiency& e) {
  PerfRequest r;
  r.fit.layout = b.layout;
  r.fit.weights_dtype = b.weights_dtype;
  r.fit.kv_dtype = b.kv_dtype;
  r.input_tokens = b.input_tokens;
  r.output_tokens = b.output_tokens;
  r.efficiency = e;
  return r;
}

// The model of one benchmark, built once; efficiencies are then cheap to try.
struct Prepared {
  const Benchmark* benchmark;
  std::unique_ptr<PerfModel> model;
  std::uint64_t batch;
};

Prepared prepare(const Catalog& catalog, const Benchmark& b) {
  auto pm = std::make_unique<PerfModel>(catalog.model(b.model), catalog.gpu(b.gpu),
                                        request_for(b, Efficiency{}));
  std::uint64_t batch = pm->max_batch_by_memory();
  if (b.max_batch > 0) {
    batch = std::min(batch, b.max_batch);
  }
  return {.benchmark = &b, .model = std::move(pm), .batch = batch};
}

BenchmarkCheck check(const Prepared& p, const Efficiency& e) {
  BenchmarkCheck c;
  c.benchmark = p.benchmark;
  c.batch = p.batch;
  if (p.batch == 0) {
    return c;  // does not fit: no bound, no estimate
  }
  const Benchmark& b = *p.benchmark;
  const PerfPoint bound = p.model->evaluate(p.batch, Efficiency::roofline());
  // With only an upper bound on the input length, prefill work is unknown: the decode-only rate
  // is still an upper bound on output tokens per second.
  c.roofline_tokens_per_s = b.input_tokens_is_upper_bound ? bound.decode_tokens_per_s : bound.output_tokens_per_s;
  c.bound_holds = c.roofline_tokens_per_s >= b.output_tokens_per_s;
  if (!b.input_tokens_is_upper_bound) {
    c.estimate_tokens_per_s = p.model->evaluate(p.batch, e).output_tokens_per_s;
    c.error = c.estimate_tokens_per_s / b.output_tokens_per_s - 1.0;
    c.has_estimate = true;
  }
  return c;
}

Calibration summarize(std::vector<BenchmarkCheck> checks, const Efficiency& e) {
  Calibration cal;
  cal.efficiency = e;
  std::vector<double> errors;
  bool first = true;
  for (const BenchmarkCheck& c : checks) {
    if (!c.has_estimate) {
      continue;
    }
    errors.push_back(std::abs(c.error));
    if (c.benchmark->calibrate) {
      // measured = estimate x (1 + residual)
      const double residual = 1.0 / (1.0 + c.error) - 1.0;
      cal.lowest_residual = first ? residual : std::min(cal.lowest_residual, residual);
      cal.highest_residual = first ? residual : std::max(cal.highest_residual, residual);
      first = false;
      ++cal.calibration_points;
    }
  }
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    cal.median_abs_error = n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2.0;
    cal.worst_abs_error = errors.back();
  }
  cal.checks = std::move(checks);
  return cal;
}

}  // namespace

BenchmarkCheck check_benchmark(const Catalog& catalog, const Benchmark& b, const Efficiency& efficiency) {
  return check(prepare(catalog, b), efficiency);
}

Calibration validate_benchmarks(const Catalog& catalog, const Efficiency& efficiency) {
  return validate_benchmarks(catalog, efficiency, catalog.benchmarks());
}

Calibration validate_benchmarks(const Catalog& catalog, const Efficiency& efficiency,
                                const std::vector<Benchmark>& benchmarks) {
  validate_efficiency(efficiency);
  std::vector<BenchmarkCheck> checks;
  for (const Benchmark& b : benchmarks) {
    checks.push_back(check(prepare(catalog, b), efficiency));
  }
  return summarize(std::move(checks), efficiency);
}

Calibration calibrate(const Catalog& catalog) { return calibrate(catalog, catalog.benchmarks()); }

Calibration calibrate(const Catalog& catalog, const std::vector<Benchmark>& benchmarks) {
  std::vector<Prepared> all;
  bool any = false;
  for (const Benchmark& b : benchmarks) {
    all.push_back(prepare(catalog, b));
    any = any || (b.calibrate && !b.input_tokens_is_upper_bound && all.back().batch > 0);
  }
  if (!any) {
    throw InputError("calibrate: no benchmark is marked \"calibrate\" with a known input length and a layout that fits");
  }
  const auto loss = [&all](const Efficiency& e) {
    double sum = 0;
    double worst = 0;
    for (const Prepared& p : all) {
      if (!p.benchmark->calibrate || p.batch == 0 || p.benchmark->input_tokens_is_upper_bound) {
        continue;
      }
      const double estimate = p.model->evaluate(p.batch, e).output_tokens_per_s;
      const double log_error = std::abs(std::log(estimate / p.benchmark->output_tokens_per_s));
      sum += log_error * log_error;
      worst = std::max(worst, log_error);
    }
    // Least squares, with the worst point weighted in so that no measurement is left far out.
    return sum + static_cast<double>(all.size()) * worst * worst;
  };
  // A coarse grid, then a finer one around the best point: the loss is smooth but has flat
  // directions (bandwidth and overhead trade off), so a grid is more robust than descent.
  Efficiency best;
  double best_loss = std::numeric_limits<double>::infinity();
  const auto search = [&](double bw_lo, double bw_hi, double c_lo, double c_hi, double o_lo, double o_hi, int steps) {
    const Efficiency start = best;
    for (int i = 0; i <= steps; ++i) {
      for (int j = 0; j <= steps; ++j) {
        for (int k = 0; k <= steps; ++k) {
          Efficiency e = start;
          e.bandwidth = bw_lo + (bw_hi - bw_lo) * i / steps;
          e.compute = c_lo + (c_hi - c_lo) * j / steps;
          e.step_overhead_s = o_lo + (o_hi - o_lo) * k / steps;
          const double l = loss(e);
          if (l < best_loss) {
            best_loss = l;
            best = e;
          }
        }
      }
    }
  };
  // Bandwidth efficiency stays below 0.92: measured HBM streams top out near 90 %, and letting it
  // reach 1 would only trade against the overhead term.
  constexpr int kSteps = 16;
  constexpr double kMaxBandwidth = 0.92;
  // Launch, scheduling and sampling cost per forward pass: a few milliseconds at most with CUDA
  // graphs; a larger value would only stand in for missing bandwidth.
  constexpr double kMaxOverhead = 0.005;
  search(0.40, kMaxBandwidth, 0.30, 1.00, 0.0, kMaxOverhead, kSteps);
  const auto clamp_share = [](double v) { return std::clamp(v, 0.05, 1.0); };
  search(std::clamp(best.bandwidth - 0.04, 0.05, kMaxBandwidth), std::clamp(best.bandwidth + 0.04, 0.05, kMaxBandwidth),
         clamp_share(best.compute - 0.05), clamp_share(best.compute + 0.05),
         std::max(0.0, best.step_overhead_s - 0.0003), std::min(kMaxOverhead, best.step_overhead_s + 0.0003), kSteps);
  std::vector<BenchmarkCheck> checks;
  for (const Prepared& p : all) {
    checks.push_back(check(p, best));
  }
  return summarize(std::move(checks), best);
}

std::pair<double, double> default_band(const Catalog& catalog) {
  const Calibration c = validate_benchmarks(catalog, Efficiency{});
  return {c.lowest_residual, c.highest_residual};
}

}  // namespace gpuplan
