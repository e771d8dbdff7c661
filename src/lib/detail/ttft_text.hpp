#pragma once
// What a TTFT column means, said once for the tables that search batches under a TTFT cap
// (plan and scale), so the two commands describe one figure in one way.

#include <gpuplan/perf.hpp>

#include <string_view>

namespace gpuplan::detail {

[[nodiscard]] inline std::string_view ttft_arrivals_text(Arrivals a) {
  return a == Arrivals::poisson
             ? "TTFT: the mean at that batch for prompts arriving at random (Poisson) at the rate it sustains, each "
               "waiting for the prefills ahead of it and riding in the decode steps; a burst of the batch's prompts "
               "at once (a benchmark, --arrivals burst) waits longer"
             : "TTFT: the mean at that batch, its prompts arriving together and prefilled in the engine's chunks "
               "(what a benchmark at that concurrency measures); traffic that arrives spread out waits less "
               "(--arrivals poisson)";
}

}  // namespace gpuplan::detail
