// The wait for a batch slot that a benchmark's mean TTFT counts (meas-amd s56 cause 2: validate's
// TTFT left it out, -84 % median over 22 rows that queued beyond the batch).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <gpuplan/calibration.hpp>
#include <gpuplan/measurement_file.hpp>
#include <gpuplan/queue_wait.hpp>

#include "test_support.hpp"

TEST_CASE("queue wait: closed loop by Little's law, bursts by waves or a draining queue", "[queue]") {
  // 300 clients, 100 slots, 10 requests/s: 200 queued, 20 s each.
  CHECK(gpuplan::closed_loop_wait_s(300, 100, 10.0) == Approx(20.0));
  CHECK(gpuplan::closed_loop_wait_s(100, 100, 10.0) == Approx(0.0).margin(1e-12));
  CHECK(gpuplan::closed_loop_wait_s(50, 100, 10.0) == Approx(0.0).margin(1e-12));
  // 100 requests at once in waves of 10, 5 s a wave: wave k waits 5k s, the mean 22.5 s.
  CHECK(gpuplan::burst_wait_s(100, 10, true, 5.0, 2.0) == Approx(22.5));
  // 25 in waves of 10: 10 wait 5 s, 5 wait 10 s: 100 / 25 = 4 s.
  CHECK(gpuplan::burst_wait_s(25, 10, true, 5.0, 2.0) == Approx(4.0));
  // A draining queue: 3 queued behind 2 slots at 1 request/s wait 1, 2 and 3 s: 6 / 5.
  CHECK(gpuplan::burst_wait_s(5, 2, false, 0.0, 1.0) == Approx(1.2));
  CHECK(gpuplan::burst_wait_s(8, 10, true, 5.0, 2.0) == Approx(0.0).margin(1e-12));
}

TEST_CASE("queue wait: random arrivals wait for the prefills ahead (M/D/1)", "[queue]") {
  // 5 prompts/s of 0.1 s each: rho 0.5, wait 0.5 x 0.1 / (2 x 0.5) = 0.05 s.
  CHECK(gpuplan::poisson_prefill_wait_s(5.0, 0.1) == Approx(0.05));
  // rho 0.9: 0.9 x 0.1 / 0.2 = 0.45 s, nine times rho 0.5's: the wait explodes near saturation.
  CHECK(gpuplan::poisson_prefill_wait_s(9.0, 0.1) == Approx(0.45));
  CHECK(gpuplan::poisson_prefill_wait_s(0.0, 0.1) == Approx(0.0).margin(1e-12));
  CHECK(std::isinf(gpuplan::poisson_prefill_wait_s(10.0, 0.1)));
}

TEST_CASE("queue wait: validate's TTFT under load adds the wait for a slot", "[queue][measurement]") {
  const auto check = [](const std::string& load) {
    const std::string text =
        R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.11.0", "model": "Llama-3.1-8B", "gpu": "H100",
            "parallelism": "TP1", "precision": "BF16", "isl": 1024, "osl": 256, "max_num_seqs": 64,
            "output_tokens_per_s": 3000, "measured_ttft_ms": 10000, )" +
        load + "}]}";
    const gpuplan::MeasurementFile f = gpuplan::read_measurement_file(gpuplan::test::cat(), text, "q.json");
    const gpuplan::Calibration c = gpuplan::validate_benchmarks(gpuplan::test::cat(), gpuplan::Efficiency{}, f.benchmarks);
    REQUIRE(c.checks.size() == 1);
    return c.checks.front();
  };
  // 64 clients on 64 slots: no wait. 256 clients: 192 wait (256 - 64) / (tok/s / 256 tokens), then
  // each is admitted alone to the running batch: its prefill beside one decode step.
  const gpuplan::BenchmarkCheck at_batch = check(R"("concurrency": 64)");
  const gpuplan::BenchmarkCheck above = check(R"("concurrency": 256)");
  REQUIRE(at_batch.run_batch == 64);
  REQUIRE(above.run_batch == 64);
  const double requests_per_s = above.estimate_tokens_per_s / 256.0;
  CHECK(above.estimate_ttft_s ==
        Approx(192.0 / requests_per_s + above.estimate_ttft_alone_s + above.estimate_step_s).epsilon(0.02));
  CHECK(above.estimate_ttft_s > at_batch.estimate_ttft_s + 100.0 / requests_per_s);
  // 640 requests sent at once (max load): ten waves of 64, the mean waits 4.5 waves.
  const gpuplan::BenchmarkCheck burst = check(R"("concurrency": "max load", "num_requests": 640)");
  const double wave_s = 64.0 * 256.0 / (burst.estimate_tokens_per_s);
  CHECK(burst.estimate_ttft_s - at_batch.estimate_ttft_s == Approx(4.5 * wave_s).epsilon(0.05));
}
