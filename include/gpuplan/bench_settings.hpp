#pragma once
// The engine settings of the tool that produced the calibration measurements. TensorRT-LLM's
// `trtllm-bench throughput` does not run at TensorRT-LLM's library defaults (max_batch_size
// 2048, max_num_tokens 8192): for FP8 and NVFP4 checkpoints it sizes both from the workload and
// the KV cache (tensorrt_llm/bench/build/tuning.py, finetune_setting):
//   batch  = min(requests the KV cache holds, 4096) / PP, rounded up (to 32, 128 or 256)
//   tokens = min(batch x (1 + input / output), 32768), rounded up (to 256, 512 or 1024), >= 2048
// `gpuplan validate` evaluates a benchmark without its own max_batch at these settings, so the
// model is compared with what the engine actually ran.
//
// A trtllm-bench run is also finite: it queues a dataset of `num_requests` requests and reports
// their output tokens over the whole run. When the requests are fewer than the batch the engine
// could hold, the batch never reaches it; otherwise they run in waves and the last is partial.
// The perf overview states the dataset sizes it used for each input/output length.

#include <cstdint>

namespace gpuplan {

struct BenchEngineSettings {
  std::uint64_t max_batch = 0;        ///< per replica
  std::uint64_t max_num_tokens = 0;   ///< tokens per step (the prefill chunk)
};

/// trtllm-bench's settings for a replica whose KV cache holds `kv_requests` sequences of
/// input + output tokens, with `pp` pipeline stages.
BenchEngineSettings trtllm_bench_settings(std::uint64_t kv_requests, std::uint64_t input_tokens,
                                          std::uint64_t output_tokens, std::uint64_t pp);

/// The number of requests TensorRT-LLM's perf overview ran for these lengths (its table of
/// `$num_requests`, docs/source/performance/perf-overview.md: 30,000 at 128/128, 3,000 at
/// 128/2048, ...), or 0 when the table has no such row.
std::uint64_t trtllm_bench_requests(std::uint64_t input_tokens, std::uint64_t output_tokens);

}  // namespace gpuplan
