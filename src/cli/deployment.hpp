#pragma once
// Flags every planning command shares (model, GPU, layout, dtypes, engine memory), so fit, perf
// and later commands use the same names for the same things.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <CLI/CLI.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>

#include "command_io.hpp"
#include "common.hpp"

namespace gpuplan::cli {

struct DeploymentOptions {
  std::string model;
  std::string model_config;
  std::string params;
  std::string gpu;
  std::string mig;
  std::uint64_t gpus = 0;
  std::uint64_t nodes = 0;
  std::uint64_t gpus_per_node = 0;  ///< 0: the GPU's own (GpuSpec::default_gpus_per_node)
  std::uint64_t tp = 0;
  std::uint64_t pp = 0;
  std::uint64_t ep = 1;
  std::string weights_dtype;     ///< empty: the formats the checkpoint ships in
  std::string experts_dtype;
  std::string attention_dtype;
  std::string embeddings_dtype;
  std::string kv_dtype;  ///< empty: the model's 16-bit format
  double memory_utilization = 0.9;
  std::string reserve = "1.5GiB";
  std::string memory_in_use;  ///< --memory-in-use: held by other processes at engine start (empty: none)
  std::uint64_t prefill_chunk = 8192;
  std::optional<std::uint64_t> block_size;  ///< unset: 16, TensorRT-LLM's 32 under --engine trtllm
  std::string engine;                       ///< --engine: vllm, sglang, trtllm (empty: neutral)
  double mem_fraction_static = 0;           ///< SGLang
  double kv_cache_free_gpu_mem_fraction = 0;  ///< TensorRT-LLM
  std::uint64_t max_num_seqs = 0;
  std::string engine_version;               ///< vLLM release, e.g. 0.10.1
  std::string vllm_sampler;                 ///< --vllm-sampler: flashinfer, native (empty: by GPU vendor)
  std::string trtllm_backend;               ///< --trtllm-backend: pytorch, tensorrt (empty: by release)
  bool enable_chunked_prefill = false;      ///< --enable-chunked-prefill (TensorRT-LLM)
  bool enforce_eager = false;               ///< --enforce-eager (vLLM)
  bool disable_cuda_graph = false;          ///< --disable-cuda-graph (SGLang)
  bool model_given = false;
  bool model_config_given = false;
  bool params_given = false;
  bool allow_params = false;  ///< the command takes --params
  /// Engine flags the user typed (defaults differ per engine, so "given" matters).
  bool utilization_given = false;
  bool reserve_given = false;
  bool prefill_chunk_given = false;
  bool mem_fraction_given = false;
  bool free_fraction_given = false;
  bool max_num_seqs_given = false;
  std::uint64_t max_kv_tokens = 0;
  bool max_kv_tokens_given = false;
};

/// Why a bare --params refuses the flags that size a KV cache, activations or a load.
inline constexpr std::string_view kParamsWeightsOnly =
    "--params sizes weights only (a bare parameter count has no architecture, so no KV cache or activations); "
    "give --model or --model-config to size a load";

/// Sets the release of `settings.engine` (vllm, sglang or trtllm) from --engine-version's text,
/// as fit, perf and plan read it; throws InputError naming --engine-version.
void apply_engine_version(EngineSettings& settings, std::string_view text);

/// Adds the shared flags; `bare_params` adds --params (weights-only what-ifs); `gpu_flag` adds
/// the single required --gpu (compare adds its own, repeatable).
void add_deployment_options(CLI::App& sub, DeploymentOptions& o, bool bare_params, bool gpu_flag = true);
/// Records which model flag was given; call first in the subcommand's callback.
void note_given(const CLI::App& sub, DeploymentOptions& o);

/// The model, GPU and request the flags describe. `layout_given` is false when neither --tp nor
/// --pp was set: the command then searches layouts over `gpus` GPUs.
struct Deployment {
  /// A config file's model or a bare parameter count; the catalog's is not copied (batch
  /// resolves one for each of its requests).
  std::unique_ptr<const ModelSpec> owned_model;
  const ModelSpec& model;           ///< the catalog's, or *owned_model
  bool model_from_catalog = false;  ///< --model: one content per id (FitCache takes it)
  const GpuSpec* gpu = nullptr;
  FitRequest request;
  std::uint64_t gpus = 1;
  bool layout_given = false;
};
Deployment resolve_deployment(const Catalog& catalog, const DeploymentOptions& o);
/// --gpus-per-node, else the GPU's systems' own count (8; one GB10 per DGX Spark).
std::uint64_t gpus_per_node(const DeploymentOptions& o, const GpuSpec& gpu);
/// The batch's FitCache when the model is the catalog's, else nullptr (a single command, or a
/// config file's model, whose id may name other contents).
FitCache* fit_cache_for(const Deployment& d);

/// A library error's message with the flag people typed in place of the request field
/// ("layout.tp:" becomes "--tp:").
std::string with_flag(const InputError& e);
/// Rethrows a library error with_flag().
[[noreturn]] void rethrow_with_flag(const InputError& e);

/// A library error a batch command returns rather than throws, answered as with_flag_names()
/// answers a thrown one: handed to the batch with flags named (thrown so outside a batch).
Exit batch_input_error(const InputError& e);

/// Runs a command so that its library errors name flags. Inside `gpuplan batch` a command's
/// error is handed to the batch as the request's answer (set_batch_error()) rather than thrown
/// again: a second throw cost more than most answers.
template <typename Run>
auto with_flag_names(Run&& run) {
  try {
    return run();
  } catch (const InputError& e) {
    if constexpr (std::is_same_v<decltype(run()), Exit>) {
      return batch_input_error(e);
    }
    rethrow_with_flag(e);
  }
}

}  // namespace gpuplan::cli
