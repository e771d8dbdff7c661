#pragma once
// Calibration of efficiency factors against measured benchmarks. The roofline bound must never
// fall below a measurement; the calibrated estimate should land near it, and the spread of its
// errors becomes the uncertainty band of every estimate.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuplan/band.hpp>
#include <gpuplan/benchmark.hpp>
#include <gpuplan/catalog.hpp>
#include <gpuplan/perf.hpp>

namespace gpuplan {

/// A benchmark evaluated by the model.
struct BenchmarkCheck {
  const Benchmark* benchmark = nullptr;
  std::uint64_t batch = 0;                   ///< per replica: the largest that fits (and the cap)
  std::uint64_t run_batch = 0;               ///< the largest the run reaches: its requests may be fewer
  double roofline_tokens_per_s = 0;          ///< pure bound (decode only when the input is unknown)
  double estimate_tokens_per_s = 0;          ///< 0 when the input length is unknown
  double error = 0;                          ///< estimate / measured - 1
  /// At run_batch, with an estimate: the mean inter-token latency under load and one decode
  /// step alone (PerfPoint's itl_s and step_s), for runs that also publish their latency.
  double estimate_itl_s = 0;
  double estimate_step_s = 0;
  std::optional<double> itl_error;           ///< estimate_itl_s / measured TPOT - 1, when published
  double estimate_ttft_s = 0;                ///< mean TTFT under the run's load
  double estimate_ttft_alone_s = 0;          ///< one prompt on an idle replica
  std::optional<double> ttft_error;          ///< estimate_ttft_s / measured mean TTFT - 1, when published
  bool has_estimate = false;
  bool bound_holds = false;                  ///< roofline >= measured (meaningless when refused)
  /// Set when gpuplan refuses the run (batch 0: no bound, no estimate): why, in one clause
  /// ("weights 159.35 GB per GPU exceed ..."). Such a row is no bound failure.
  std::optional<std::string> refused;
  /// The band `perf` gives this model, GPU and format (validate; not set by cross-validation,
  /// whose groups carry their own), and whether the measurement falls inside it.
  EstimateBand band;
  bool inside_band = false;
};

/// What a user catalog merged into `catalog` does to the shipped benchmarks: one line per
/// built-in GPU or model it changed that shipped benchmarks use, saying how many, and whether
/// each still evaluates with the changed entry (the first failure quoted). Calibration and the
/// bands keep the built-in entries either way.
std::vector<std::string> shipped_benchmarks_on_changed_entries(const Catalog& catalog);

/// Evaluates one benchmark with `efficiency`.
BenchmarkCheck check_benchmark(const Catalog& catalog, const Benchmark& b, const Efficiency& efficiency);

struct Calibration {
  Efficiency efficiency;                     ///< fitted factors
  std::vector<BenchmarkCheck> checks;        ///< every benchmark with the fitted factors
  double median_abs_error = 0;               ///< over benchmarks with an estimate
  double worst_abs_error = 0;
  double lowest_residual = 0;                ///< min over calibration set of measured/estimate - 1
  double highest_residual = 0;
  int calibration_points = 0;
  int inside_band = 0;                       ///< estimates whose measurement is inside their band
  int eager_rows = 0;                        ///< estimates of eager rows (Benchmark::eager): no band claim
  /// Over the rows that publish a mean TPOT: |error| of the mean ITL under load, and of one decode
  /// step alone (what the ITL was before it counted the other sequences' prefills).
  int latency_rows = 0;
  double median_abs_itl_error = 0;
  double worst_abs_itl_error = 0;
  double median_abs_step_error = 0;
  /// Over the rows that publish a mean TTFT: |error| of the TTFT under the run's load, and of
  /// one prompt alone.
  int ttft_rows = 0;
  double median_abs_ttft_error = 0;
  double worst_abs_ttft_error = 0;
  double median_abs_ttft_alone_error = 0;
};

/// Checks every benchmark of the catalog with `efficiency` (no fitting).
Calibration validate_benchmarks(const Catalog& catalog, const Efficiency& efficiency);
/// Same for a chosen list (models and GPUs are looked up in `catalog`).
Calibration validate_benchmarks(const Catalog& catalog, const Efficiency& efficiency,
                                const std::vector<Benchmark>& benchmarks);

/// Fits the efficiency factors and fixed costs (calibration.cpp lists the nine) to the benchmarks
/// marked `calibrate` (a robust loss on log error), then validates all of them.
Calibration calibrate(const Catalog& catalog);
/// Same, fitted to a chosen list; throws InputError when none of them is marked `calibrate`.
Calibration calibrate(const Catalog& catalog, const std::vector<Benchmark>& benchmarks);

/// One model x GPU x weight format left out of the fit and predicted by the fit on the rest.
struct CrossValidationGroup {
  std::string model;
  std::string gpu;
  DType weights_dtype = DType::fp8;
  BandCase band_case = BandCase::calibrated;  ///< how far the group is from the rest
  Band band;                                  ///< its case's band from the other groups alone
  Efficiency efficiency;                      ///< fitted without the group
  std::vector<BenchmarkCheck> checks;         ///< the group's rows, predicted
  double median_abs_error = 0;
  double worst_abs_error = 0;
  int inside_band = 0;                        ///< rows whose measurement lies in that band
};

struct CrossValidation {
  std::vector<CrossValidationGroup> groups;
  double median_abs_error = 0;               ///< over every predicted row
  double worst_abs_error = 0;
  int rows = 0;
  int inside_band = 0;
  std::vector<Band> derived_bands;           ///< by BandCase: what these residuals give (see bands_from)
};

/// Leave-one-group-out: for each model x GPU x weight format among the benchmarks marked
/// `calibrate`, fits on the other groups and predicts this one. Throws InputError with fewer
/// than two groups.
CrossValidation cross_validate(const Catalog& catalog, const std::vector<Benchmark>& benchmarks);

/// The band of each case (indexed by BandCase) from in-sample residuals (`calibrated`) and
/// cross-validated ones (every other case), leaving out the cross-validation group `without`.
std::vector<Band> bands_from(const Calibration& in_sample, const CrossValidation& cv,
                             std::optional<std::size_t> without = std::nullopt);

}  // namespace gpuplan
