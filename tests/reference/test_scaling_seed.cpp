// Seed 000 ("H200 GPU scaling", section "Measure scaling efficiency before expanding"):
// "A four-GPU job that delivers 3.6 times the single-GPU throughput has 90% scaling efficiency.
// If it delivers only 2.1 times, adding more GPUs may worsen economics". DESIGN "Figures": 2.1x
// is 52.5 %. Amdahl's predictions are computed here from the law itself: with S(4) = s4,
// 1 + 3f = 4 / s4 gives the serial fraction f, and S(N) = N / (1 + (N - 1) f).
#include <catch2/catch.hpp>

#include <algorithm>

#include <gpuplan/scaling.hpp>

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

gpuplan::ScalingResult two_points(double speedup_at_4) {
  gpuplan::ScalingRequest r;
  r.points = {{.gpus = 1, .throughput = 1000}, {.gpus = 4, .throughput = 1000 * speedup_at_4}};
  return gpuplan::measured_scaling(r);
}

const gpuplan::ScalingRow& at(const std::vector<gpuplan::ScalingRow>& rows, std::uint64_t gpus) {
  const auto it = std::find_if(rows.begin(), rows.end(), [gpus](const auto& r) { return r.gpus == gpus; });
  REQUIRE(it != rows.end());
  return *it;
}

}  // namespace

TEST_CASE("scaling: 3.6x on 4 GPUs is 90 % efficiency, 2.1x is 52.5 %", "[scaling][reference]") {
  CHECK_THAT(two_points(3.6).points[1].efficiency, WithinRel(0.90, 1e-12));
  CHECK_THAT(two_points(2.1).points[1].efficiency, WithinRel(0.525, 1e-12));
  CHECK_THAT(two_points(3.6).points[1].speedup, WithinRel(3.6, 1e-12));
}

TEST_CASE("scaling: Amdahl from the seed's two points, and its 8- and 16-GPU predictions", "[scaling][reference]") {
  for (const double s4 : {3.6, 2.1}) {
    const double f = (4.0 / s4 - 1.0) / 3.0;  // 3.6x: 1/27 = 0.0370; 2.1x: 0.3016
    const gpuplan::ScalingResult r = two_points(s4);
    CHECK(r.amdahl.fitted);
    CHECK(r.amdahl.exact);
    CHECK_FALSE(r.usl.fitted);  // three parameters, two points
    CHECK(r.prediction_law == "amdahl");
    CHECK_THAT(r.amdahl.sigma, WithinRel(f, 1e-6));
    for (const double n : {8.0, 16.0}) {
      const double s = n / (1.0 + (n - 1.0) * f);
      const auto& row = at(r.predictions, static_cast<std::uint64_t>(n));
      CHECK_THAT(row.speedup, WithinRel(s, 1e-6));
      CHECK_THAT(row.efficiency, WithinRel(s / n, 1e-6));
    }
  }
  // 3.6x: S(8) = 8 / (1 + 7/27) = 6.35 and S(16) = 16 / (1 + 15/27) = 10.29.
  CHECK_THAT(at(two_points(3.6).predictions, 8).speedup, WithinAbs(6.353, 0.001));
  CHECK_THAT(at(two_points(3.6).predictions, 16).speedup, WithinAbs(10.286, 0.001));
}

TEST_CASE("scaling: where the seed's two jobs stop paying", "[scaling][reference]") {
  // 2.1x: the measured step 1 -> 4 already gains only (2.1 - 1) / 3 = 36.7 % per added GPU.
  const gpuplan::ScalingResult slow = two_points(2.1);
  REQUIRE(slow.stops_paying.gpus.has_value());
  CHECK(*slow.stops_paying.gpus == 4);
  CHECK(*slow.stops_paying.last_paying_gpus == 1);
  CHECK_FALSE(slow.stops_paying.predicted);
  // 3.6x: 4 -> 8 gains (6.353 - 3.6) / 4 = 68.8 % per GPU, 8 -> 16 gains (10.286 - 6.353) / 8 = 49.2 %.
  const gpuplan::ScalingResult fast = two_points(3.6);
  REQUIRE(fast.stops_paying.gpus.has_value());
  CHECK(*fast.stops_paying.gpus == 16);
  CHECK(*fast.stops_paying.last_paying_gpus == 8);
  CHECK(fast.stops_paying.predicted);
}
