// The drain at the end of a finite run whose answers spread, cut at a stated cap (meas-nvidia s58
// F1: a ShareGPT burst capped at 1,024 tokens, mean 551, was drained as if its last answer ran
// ln(100) = 4.6 means, some 2,500 tokens: -40 % and -44 % at 80 and 100 clients).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <gpuplan/error.hpp>
#include <gpuplan/measurement_file.hpp>
#include <gpuplan/output_drain.hpp>

#include "test_support.hpp"

using gpuplan::OutputLengths;
using gpuplan::test::cat;

TEST_CASE("output drain: the scale of exponential answers cut at a cap, from their mean", "[drain]") {
  // mean 500 under a cap of 1,000: mu (1 - e^(-1000/mu)) = 500 at mu = 627.50 (by hand:
  // 627.50 x (1 - e^-1.59363) = 627.50 x 0.796813 = 500.0).
  const double mu = gpuplan::capped_exponential_scale(500.0, 1000);
  CHECK(mu == Approx(627.50).margin(0.01));
  CHECK(mu * -std::expm1(-1000.0 / mu) == Approx(500.0).epsilon(1e-9));
  // No cap: the mean itself. A mean near its cap: nearly every answer reaches it.
  CHECK(gpuplan::capped_exponential_scale(500.0, 0) == Approx(500.0));
  CHECK(gpuplan::capped_exponential_scale(999.0, 1000) > 100'000.0);
}

TEST_CASE("output drain: a cap ends the drain there", "[drain]") {
  // Every step takes 20 ms whatever its batch (decode at a small batch): rate(n) = n / 0.02.
  const auto step_bound = [](std::uint64_t n) { return static_cast<double>(n) / 0.02; };
  // 100 exponential answers of mean 500, uncapped: the levels from 100 down to 1 take
  // 500 ln(100) steps, the last answer alone 500 more: 500 x 5.605 x 0.02 s = 56.05 s, per token
  // of the mean 0.1121 s.
  CHECK(gpuplan::drain_seconds_per_token(OutputLengths::exponential, 500.0, 0, 100, step_bound) ==
        Approx(0.02 * (std::log(100.0) + 1.0)).epsilon(0.01));
  // Cut at 1,000 tokens (mu 627.50): 100 e^(-1000/627.5) = 20.3 answers still run at step 1,000 and
  // end there: 1,000 steps, 20 s, 0.04 s per token of the mean.
  CHECK(gpuplan::drain_seconds_per_token(OutputLengths::exponential, 500.0, 1000, 100, step_bound) ==
        Approx(1000 * 0.02 / 500.0).epsilon(0.01));
  // One answer: its mean at batch 1, capped or not.
  CHECK(gpuplan::drain_seconds_per_token(OutputLengths::exponential, 500.0, 1000, 1, step_bound) ==
        Approx(0.02).epsilon(1e-9));
  // At a constant rate (a compute-bound batch) the same tokens take the same time, capped or not:
  // b / rate = 100 / 1,000 (to the 32-point quadrature's 0.2 %).
  const auto constant = [](std::uint64_t) { return 1000.0; };
  CHECK(gpuplan::drain_seconds_per_token(OutputLengths::exponential, 500.0, 1000, 100, constant) ==
        Approx(0.1).epsilon(0.005));
  CHECK(gpuplan::drain_seconds_per_token(OutputLengths::exponential, 500.0, 0, 100, constant) ==
        Approx(0.1).epsilon(0.005));
  CHECK(gpuplan::drain_seconds_per_token(OutputLengths::uniform, 500.0, 0, 100, constant) ==
        Approx(0.1).epsilon(0.01));
}

TEST_CASE("measurement file: max_tokens caps the answers, and a mean it cannot give is refused", "[drain][measurement]") {
  const auto read = [](const std::string& extra) {
    const std::string text = R"({"measured": [{"kind": "throughput", "engine": "vLLM 0.11, vllm bench serve", )"
                             R"("isl": 200, "osl": 551, "model": "llama-3.1-8b", "gpu": "L40S", "parallelism": "TP1", )"
                             R"("precision": "BF16", "output_tokens_per_s": 2000, "num_requests": 100)" + extra + "}]}";
    return gpuplan::read_measurement_file(cat(), text, "m.json");
  };
  CHECK(read(R"(, "output_lengths": "exponential", "max_tokens": 1024)").benchmarks.at(0).max_output_tokens == 1024);
  CHECK(read(R"(, "max_new_tokens": 551)").benchmarks.at(0).max_output_tokens == 551);
  CHECK(read("").benchmarks.at(0).max_output_tokens == 0);
  // Read, so not named as a field left out.
  for (const std::string& note : read(R"(, "output_lengths": "exponential", "max_tokens": 1024)").notes) {
    CHECK(note.find("max_tokens") == std::string::npos);
  }
  CHECK_THROWS_WITH(read(R"(, "output_lengths": "exponential", "max_tokens": 551)"),
                    Catch::Matchers::Contains("m.json: /measured/0/max_tokens: expected above osl (551)"));
  CHECK_THROWS_WITH(read(R"(, "max_tokens": 500)"),
                    Catch::Matchers::Contains("m.json: /measured/0/max_tokens: expected at least osl (551)"));
  CHECK_THROWS_WITH(read(R"(, "output_lengths": "uniform", "max_tokens": 1024)"),
                    Catch::Matchers::Contains("m.json: /measured/0/max_tokens: expected at least twice osl (1102)"));
  CHECK_THROWS_WITH(read(R"(, "output_lengths": "exponential", "max_tokens": 0)"),
                    Catch::Matchers::Contains("m.json: /measured/0/max_tokens:"));
  CHECK_THROWS_AS(read(R"(, "max_tokens": 1024, "max_new_tokens": 1024)"), gpuplan::InputError);
}
