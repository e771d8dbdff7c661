#include <gpuplan/bench_settings.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace gpuplan {
namespace {

std::uint64_t round_up(double v, double step) { return static_cast<std::uint64_t>(step * std::ceil(v / step)); }

}  // namespace

BenchEngineSettings trtllm_bench_settings(std::uint64_t kv_requests, std::uint64_t input_tokens,
                                          std::uint64_t output_tokens, std::uint64_t pp) {
  // The decoder buffers cap the batch at 4096 sequences over the pipeline.
  constexpr double kBatchLimit = 4096;
  constexpr double kTokenLimit = 32768;  // the activation buffer
  const double batch = std::min(static_cast<double>(kv_requests), kBatchLimit) / static_cast<double>(std::max<std::uint64_t>(pp, 1));
  const double tokens =
      std::min(batch * (1.0 + static_cast<double>(input_tokens) / static_cast<double>(std::max<std::uint64_t>(output_tokens, 1))),
               kTokenLimit);
  BenchEngineSettings s;
  // "Slightly optimistic": rounded up, at least 64 sequences and 2048 tokens.
  s.max_batch = batch < 256 ? std::max<std::uint64_t>(64, round_up(batch, 32))
                : batch < 1024 ? round_up(batch, 128)
                               : round_up(batch, 256);
  s.max_num_tokens = tokens < 4096 ? std::max<std::uint64_t>(2048, round_up(tokens, 256))
                     : tokens < 8192 ? round_up(tokens, 512)
                                     : round_up(tokens, 1024);
  return s;
}

std::uint64_t trtllm_bench_requests(std::uint64_t input_tokens, std::uint64_t output_tokens) {
  struct Dataset {
    std::uint64_t input_tokens;
    std::uint64_t output_tokens;
    std::uint64_t requests;
  };
  // "For shorter input and output lengths, a larger number of messages were used to guarantee
  // that the system hit a steady state" (perf-overview.md, Preparing a Dataset).
  static constexpr std::array kDatasets{
      Dataset{128, 128, 30000},  Dataset{128, 2048, 3000},  Dataset{128, 4096, 1500},  Dataset{1000, 2000, 1500},
      Dataset{2048, 128, 3000},  Dataset{2048, 2048, 1500}, Dataset{5000, 500, 1500},  Dataset{1000, 1000, 3000},
      Dataset{500, 2000, 3000},  Dataset{20000, 2000, 1000},
  };
  const auto it = std::find_if(kDatasets.begin(), kDatasets.end(), [&](const Dataset& d) {
    return d.input_tokens == input_tokens && d.output_tokens == output_tokens;
  });
  return it == kDatasets.end() ? 0 : it->requests;
}

}  // namespace gpuplan
