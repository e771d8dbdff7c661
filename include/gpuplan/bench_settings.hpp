#pragma once
// The engine settings of the tool that produced the calibration measurements. TensorRT-LLM's
// `trtllm-bench throughput` does not run at TensorRT-LLM's library defaults (max_batch_size
// 2048, max_num_tokens 8192): for FP8 and NVFP4 checkpoints it sizes both from the workload and
// the KV cache (tensorrt_llm/bench/build/tuning.py, finetune_setting):
//   batch  = min(requests the KV cache holds, 4096) / PP, rounded up (to 32, 128 or 256)
//   tokens = min(batch x (1 + input / output), 32768), rounded up (to 256, 512 or 1024), >= 2048
// `gpuplan validate` evaluates a benchmark without its own max_batch at these settings, so the
// model is compared with what the engine actually ran.

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

}  // namespace gpuplan
