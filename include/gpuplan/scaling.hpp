#pragma once
// Measured scaling (DESIGN "Scaling"): speed-up, efficiency and marginal efficiency from
// throughputs at several GPU counts; Amdahl's law and the Universal Scalability Law (Gunther,
// "Guerrilla Capacity Planning", 2007) fitted by least squares; predictions; and the GPU count
// at which adding GPUs stops paying.
//   Amdahl: X(N) = lambda N / (1 + sigma (N - 1))                 sigma = serial fraction
//   USL:    X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))  peak at N* = sqrt((1 - sigma) / kappa)

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/price.hpp>

namespace gpuplan {

/// One measurement: throughput (work per unit period, larger is better) on `gpus` GPUs.
struct ScalingPoint {
  std::uint64_t gpus = 0;
  double throughput = 0;
};

/// What the throughput counts: "tokens/s" is work "tokens" per period 1 s.
struct ThroughputUnit {
  std::string text = "units/s";
  std::string work = "units";   ///< the noun costs are quoted per ("tokens", "samples")
  double period_s = 1.0;        ///< seconds in the rate's period (/s: 1, /min: 60, /h: 3600)
  bool tokens = false;          ///< work is tokens: costs are quoted per million tokens
};

/// Parses "tokens/s", "samples/sec", "images/min", "steps/h"; a bare noun means per second.
/// Throws InputError naming `field`.
ThroughputUnit parse_throughput_unit(std::string_view text, std::string_view field);

struct ScalingRequest {
  std::vector<ScalingPoint> points;        ///< any order; sorted by GPU count (and a note says so)
  ThroughputUnit unit;
  std::optional<double> usd_per_gpu_hour;  ///< prices each point when set
  std::optional<Price> price;              ///< the catalog price behind usd_per_gpu_hour, if any
  /// Every instance size of `price`'s offer: each count pays the one best for it (empty: `price`).
  std::vector<Price> offer;
  std::uint64_t up_to = 0;                 ///< largest count predicted; 0: 8 x the largest measured
  std::vector<std::uint64_t> predict_at;   ///< extra counts to predict
  double min_marginal_efficiency = 0.5;    ///< a step below this does not pay
  double max_cost_increase = 0.20;         ///< cost per unit this far above the lowest does not pay
};

/// A law fitted to the points. Throughputs are in the request's unit.
struct LawFit {
  bool fitted = false;        ///< false: fewer points than parameters
  bool exact = false;         ///< as many points as parameters: passes through all, R2 says nothing
  double lambda = 0;          ///< throughput of one GPU without contention
  double sigma = 0;           ///< contention; Amdahl's serial fraction
  double kappa = 0;           ///< coherency (USL; 0 for Amdahl)
  std::optional<double> r2;   ///< unset when every throughput is the same (no variance to explain)
  std::vector<double> residuals;  ///< measured - fitted, per point in GPU order
  [[nodiscard]] double throughput(double gpus) const;
  /// USL peak N* = sqrt((1 - sigma) / kappa); unset when kappa is 0 (no peak).
  [[nodiscard]] std::optional<double> peak_gpus() const;
};

/// Least-squares fits on relative error (each point weighs the same whatever its throughput),
/// with 0 <= sigma <= 1 and kappa >= 0: a linearized regression of N / X over every active set
/// of the bounds, refined by bounded Levenberg-Marquardt. Points need distinct GPU counts.
LawFit fit_amdahl(const std::vector<ScalingPoint>& points);
LawFit fit_usl(const std::vector<ScalingPoint>& points);

/// One GPU count, measured or predicted.
struct ScalingRow {
  std::uint64_t gpus = 0;
  double throughput = 0;
  double speedup = 0;                        ///< throughput / the smallest measured point's
  double efficiency = 0;                     ///< speedup / (gpus / smallest measured count)
  std::optional<double> marginal_efficiency; ///< speed-up gained per added GPU over ideal's, from the previous row
  std::optional<double> usd_per_unit;        ///< USD per one unit of work, when priced (GPUs paid)
  /// USD per unit over the GPUs the count runs on, idle GPUs of whole instances aside: what the
  /// scaling costs, which the cost_increase rule reads (instance packing is its own note).
  std::optional<double> usd_per_unit_used;
  /// GPUs paid for: `gpus` rounded up to whole instances when the price rents fixed sizes.
  std::uint64_t paid_gpus = 0;
  std::optional<double> usd_per_gpu_hour;    ///< the rate paid (an instance size's own rate)
  bool paid_lower_bound = false;             ///< no instance of the offer holds the count's node
  bool measured = false;
  std::optional<double> measured_throughput; ///< prediction rows at a measured count
  bool super_linear = false;                 ///< efficiency above 1
};

/// One reason adding GPUs stops paying.
struct StopRule {
  std::string name;                        ///< "usl_peak", "marginal_efficiency", "cost_increase"
  std::optional<std::uint64_t> gpus;       ///< first count that does not pay; unset: none within range
  std::optional<std::uint64_t> last_paying_gpus;
  bool predicted = false;                  ///< from the fitted law rather than a measurement
  std::string reason;                      ///< with the figures
};

struct ScalingResult {
  ScalingRequest request;                  ///< points sorted, up_to resolved
  std::vector<ScalingRow> points;
  LawFit amdahl;
  LawFit usl;
  std::string prediction_law;              ///< "usl" when it could be fitted, else "amdahl"
  std::vector<ScalingRow> predictions;     ///< measured counts, doublings of the smallest, predict_at, up_to
  std::vector<StopRule> rules;
  StopRule stops_paying;                   ///< the earliest rule that triggers (name empty: none)
  /// Counts that pay idle GPUs of whole instances and what that adds per unit; empty when every
  /// count fills its instances. Packing, not scaling: the stop rules do not read it.
  std::string instance_packing;
  std::vector<std::string> notes;
};

/// Validates (scaling.*), analyses and predicts. Throws InputError for fewer than two points,
/// repeated GPU counts, zero, negative or non-finite throughputs, bad thresholds or up_to.
ScalingResult measured_scaling(ScalingRequest request);

}  // namespace gpuplan
