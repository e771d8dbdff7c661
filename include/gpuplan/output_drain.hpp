#pragma once
// The drain at the end of a finite run whose output lengths spread: as requests finish the batch
// empties, and its last steps run a few sequences each. A cap on each answer (the max_tokens a
// benchmark client sends) ends the drain there.

#include <cstdint>
#include <functional>

#include <gpuplan/benchmark.hpp>

namespace gpuplan {

/// The scale mu of exponential lengths cut at `cap` tokens (min(Exp(mu), cap): an answer that
/// would run on ends at the cap) whose mean is `mean`: mu (1 - e^(-cap/mu)) = mean. `mean` below
/// `cap`; the mean itself without a cap (cap 0).
[[nodiscard]] double capped_exponential_scale(double mean, std::uint64_t cap);

/// Seconds per output token of one request (the drain's seconds over the mean length) that a
/// batch of `batch` requests takes to finish with none queued behind it, at `rate(n)` output
/// tokens per second for a batch of n. `mean` is the lengths' mean, `cap` each answer's cap (0:
/// none; the exponential's tail is cut there, and every answer still running ends at it).
[[nodiscard]] double drain_seconds_per_token(OutputLengths lengths, double mean, std::uint64_t cap,
                                             std::uint64_t batch,
                                             const std::function<double(std::uint64_t)>& rate);

}  // namespace gpuplan
