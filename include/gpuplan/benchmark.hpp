#pragma once
// A measured result from data/benchmarks.json: the workload, the layout and the throughput.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gpuplan/dtype.hpp>
#include <gpuplan/layout.hpp>

namespace gpuplan {

/// How a run's output lengths spread about the row's mean (a measurement file's
/// "output_lengths"): every request the same (trtllm-bench, fixed-length runs), drawn uniformly
/// from 0 to twice the mean (a random dataset with a range), or heavy-tailed like natural chat
/// answers (ShareGPT), taken as exponential.
enum class OutputLengths { fixed, uniform, exponential };

/// One measured throughput with the workload and layout that produced it.
struct Benchmark {
  std::string id;
  std::string model;          ///< model id
  std::string gpu;            ///< GPU id
  Layout layout;              ///< as submitted; gpus = tp x pp x dp
  DType weights_dtype = DType::fp8;
  DType kv_dtype = DType::fp8;
  std::uint64_t input_tokens = 0;
  bool input_tokens_is_upper_bound = false;  ///< dataset maximum; the mean is not known
  std::uint64_t output_tokens = 0;
  std::uint64_t max_batch = 0;               ///< engine batch cap per replica (0: memory decides)
  /// Engine settings a measurement states (a measurement file's row); unset: the engine's own.
  /// The memory share: TensorRT-LLM's kv_cache_free_gpu_mem_fraction, else the share of GPU
  /// memory for weights and KV cache (vLLM gpu_memory_utilization, SGLang mem_fraction_static).
  std::optional<double> memory_share;
  std::optional<std::uint64_t> step_tokens;  ///< tokens per step: max_num_tokens, max_num_batched_tokens
  /// A TensorRT-LLM max-load row's own max_batch_size, per replica (x PP: one per micro-batch), on
  /// top of the batch trtllm-bench's rule gives (0: none stated).
  std::uint64_t trtllm_max_batch = 0;
  /// Requests the run served in all (a finite max-load run: at most this batch, else waves whose
  /// last is partial); 0: not known, the steady state at the full batch.
  std::uint64_t requests = 0;
  /// A measurement file's clients per replica (a stated concurrency: each sends its next request
  /// when the last ends); 0: max load or none stated. Above the batch, the rest wait for a slot.
  std::uint64_t concurrency = 0;
  /// With a spread, a finite run ends on a drain: the batch empties as requests finish, the last
  /// of them at a small batch (calibration.cpp).
  OutputLengths output_lengths = OutputLengths::fixed;
  /// Each answer's cap (a measurement file's "max_tokens", as the client sent it): a spread of
  /// lengths is cut there, and the drain ends by it; 0: none stated.
  std::uint64_t max_output_tokens = 0;
  static constexpr std::uint64_t kMaxRequests = 1'000'000'000;  ///< what a file may state
  /// Measured with TensorRT-LLM (trtllm-bench): its own KV-cache arithmetic sizes the batch. The
  /// catalog's rows without a batch cap are; a measurement file's rows are when their engine is.
  bool tensorrt_llm = true;
  /// The engine and version a measurement file names ("" for the catalog's rows): GPU ratios pair
  /// rows of the same software only.
  std::string engine;
  /// The engine text names vLLM first: its kernels time the step (MXFP4 experts in 16 bits) while
  /// the batch stays the engine-neutral arithmetic's.
  bool vllm = false;
  std::string scenario;                      ///< "offline", "server", "max-load"
  double output_tokens_per_s = 0;            ///< whole system
  /// A measurement file's mean time per output token (measured_tpot_ms: the mean inter-token gap,
  /// the first token excluded), when the run published it: validate sets the mean ITL under load
  /// against it.
  std::optional<double> measured_tpot_s;
  /// The run's mean time to first token (measured_ttft_ms), when published: validate sets the
  /// TTFT under load against it.
  std::optional<double> measured_ttft_s;
  /// The row's precision or model name says W8A16 (GPTQ-Int8, "-W8A16"): weight-only INT8, timed
  /// as 16-bit GEMMs; weights_dtype stays int8 for the bytes.
  bool weight_only_int8 = false;
  /// The row ran the release as published, in its own per-part formats: a model published only
  /// quantized, in the format of its bulk (gpt-oss's "MXFP4" keeps attention, router and LM head
  /// in BF16 as shipped; DeepSeek-V3's "FP8" is its block-scaled release with 16-bit embeddings).
  bool shipped_formats = false;
  bool calibrate = false;                    ///< used to fit the efficiency factors
  /// The engine ran without CUDA graphs (vLLM --enforce-eager, SGLang --disable-cuda-graph, in
  /// its text or as a field): every kernel is launched from the host, which floors each step
  /// (PerfModel::eager_host_s, not calibrated), so validate makes no band claim for the row.
  bool eager = false;
  /// Tokens of each prompt the engine's prefix cache already held (a measurement file's
  /// cached_input_tokens: a sweep that resent the same prompts to one server): prefill computes
  /// the rest (PerfRequest::cached_input_tokens). 0: every prompt new.
  std::uint64_t cached_input_tokens = 0;
  /// The vLLM minor release the engine text names ("vLLM 0.6.3" -> 6), if any: V0 releases
  /// (before 0.8) get no eager floor (PerfRequest::vllm_minor_version).
  std::optional<int> vllm_minor_version;
  /// A measurement file's row gpuplan does not model (attention DP on a dense model, a layout no
  /// engine splits): why, naming the field. validate lists it with the rows that do not fit,
  /// and checks the rest of the file.
  std::optional<std::string> refused;
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;
};

}  // namespace gpuplan
