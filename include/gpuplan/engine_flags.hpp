#pragma once
// The launch command of a planned deployment for a serving engine (`gpuplan plan --emit`), and
// its inverse: the layout, formats and batch cap read back from such a command.
//
//   vLLM          vllm serve M --tensor-parallel-size --pipeline-parallel-size [--data-parallel-size]
//                 [--enable-expert-parallel] --max-num-seqs --max-model-len --gpu-memory-utilization
//                 --dtype | --quantization --kv-cache-dtype auto|fp8
//   SGLang        python -m sglang.launch_server --model-path M --tp-size --pp-size
//                 [--dp-size --enable-dp-attention] [--ep-size]
//                 --max-running-requests --context-length --mem-fraction-static
//                 --dtype | --quantization --kv-cache-dtype auto|fp8_e4m3
//   TensorRT-LLM  trtllm-serve M --backend pytorch --tp_size --pp_size [--ep_size] --max_batch_size
//                 --max_seq_len --kv_cache_free_gpu_memory_fraction; the KV dtype, attention DP
//                 and chunked prefill go in the --extra_llm_api_options YAML (kv_cache_config.dtype,
//                 enable_attention_dp, enable_chunked_prefill), weights come quantized in the
//                 checkpoint (ModelOpt)
// DP attention (Layout::dp_attention, D ranks): vLLM --tensor-parallel-size TP
// --data-parallel-size D --enable-expert-parallel (docs.vllm.ai, expert parallel deployment);
// SGLang --tp-size TP x D --dp-size D --enable-dp-attention --ep-size EP, and
// --max-running-requests over all ranks (docs.sglang.io, DP, DPA and sgl-router); TensorRT-LLM
// --tp_size D --ep_size EP with enable_attention_dp: true (attention at TP 1; TensorRT-LLM's
// DeepSeek-R1 serving example).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/dtype.hpp>
#include <gpuplan/engine_memory.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/weight_format.hpp>

namespace gpuplan {

/// What a launch command sets.
struct LaunchSettings {
  std::string model;                 ///< HF repository or path
  Layout layout;                     ///< one replica: TP, PP, EP (1, TP, or TP x DP with DP attention), DP ranks
  DType weights_dtype = DType::bf16;
  /// The quantized format `model` ships (nullopt: a 16-bit checkpoint): the engine reads it from
  /// the checkpoint; weights in another format need another checkpoint (FP8 is quantized on load
  /// from a 16-bit one).
  std::optional<DType> checkpoint_dtype;
  bool fp16_only = false;            ///< the GPU has no bf16: --dtype float16 whatever the weights
  /// The config's max_position_embeddings when RoPE scaling raised the model's limit (else 0):
  /// SGLang derives its context length without the factor.
  std::uint64_t unscaled_context_tokens = 0;
  DType kv_dtype = DType::bf16;
  std::uint64_t max_num_seqs = 1;    ///< batch cap per replica (per DP rank)
  std::uint64_t max_model_len = 0;   ///< tokens per sequence (prompt + output)
  double memory_share = 0.9;         ///< the engine's memory share flag
  std::uint64_t gpus_per_node = 8;   ///< a replica wider than a node gets a note on launching it over nodes
  bool trust_remote_code = false;    ///< the checkpoint's own code must be allowed to run
  /// The method ("awq", "gptq") of a checkpoint `model` whose quantization is stated only in a
  /// sidecar beside config.json: vLLM and SGLang need it as --quantization. Empty otherwise.
  std::string sidecar_quant_method;
  /// FP8 quantized on load from a 16-bit checkpoint: the 16-bit weights one GPU of the layout
  /// holds before the engine quantizes them (engine_loads_sixteen_bit_whole), and the GPU's
  /// memory. When they exceed it the command names an FP8 checkpoint instead. 0: not checked.
  double sixteen_bit_load_bytes = 0;
  double gpu_memory_bytes = 0;
  /// TensorRT-LLM: enable_chunked_prefill in the YAML. Without it trtllm-serve refuses a prompt
  /// longer than max_num_tokens (EngineSettings::trtllm_chunked_prefill).
  bool chunked_prefill = false;
  /// No CUDA graphs: vLLM's --enforce-eager, SGLang's --disable-cuda-graph (TensorRT-LLM: none).
  bool eager = false;
  /// vLLM on Intel Gaudi (the vllm-gaudi plugin): FP8 weights and KV cache run through Intel Neural
  /// Compressor, `--quantization inc --kv-cache-dtype fp8_inc` with QUANT_CONFIG from a calibration.
  bool gaudi = false;
};

/// Whether `engine` loads every 16-bit weight onto the GPU before it quantizes them to FP8
/// (`--quantization fp8` on a 16-bit checkpoint), so the 16-bit shard must fit the GPU.
/// SGLang: yes in every release (sgl-project/sglang#2895: "requires loading all bf16 weights
/// into VRAM first, which will cause OOM"). vLLM: yes before 0.15 (vllm#4387, vllm#7200; the
/// streaming loader of vllm#29196 held the 16-bit weights until vllm#31914, merged 2026-01, and
/// vllm#32773 names 0.13 and 0.14 as affected); from 0.15 it quantizes layer by layer as it loads
/// (tests/quantization/test_online_quant_peak_mem: peak under 1.4x the FP8 weights). An unset
/// vLLM version is the newest. TensorRT-LLM never quantizes on load.
[[nodiscard]] bool engine_loads_sixteen_bit_whole(Engine engine, std::optional<int> vllm_minor);
inline constexpr int kVllmStreamingFp8Minor = 15;

struct EngineLaunch {
  Engine engine = Engine::vllm;
  std::vector<std::string> argv;          ///< program and arguments, one per element
  std::vector<std::string> config_yaml;   ///< TensorRT-LLM: lines of --extra_llm_api_options
  std::vector<std::string> notes;         ///< what the command needs besides itself
  /// The argv joined by spaces (no argument needs quoting: ids, numbers, flag names).
  [[nodiscard]] std::string command() const;
};

/// Whether `engine` runs on `gpu` at all: TensorRT-LLM is CUDA-only (NVIDIA) and supports Ampere
/// and later; vLLM and SGLang also run on AMD (ROCm) and Intel Gaudi (their HPU builds).
[[nodiscard]] bool engine_runs_on(Engine engine, const GpuSpec& gpu);

/// Why `engine` does not run on `gpu` at all (engine_runs_on() false), or nullopt.
[[nodiscard]] std::optional<std::string> engine_hardware_refusal(Engine engine, const GpuSpec& gpu,
                                                                std::optional<int> trtllm_version = std::nullopt);

/// Why `engine` refuses weights of `weights` (the dominant format) on `gpu`, or nullopt: FP8 and
/// FP4 weights need tensor cores of their own or weight-only kernels. Before Ampere (no bf16)
/// no engine has weight-only FP4 kernels, nor FP8 ones on Volta (vLLM's FP8 Marlin needs compute
/// capability 8.0, 7.5 in recent releases); TensorRT-LLM runs FP8 on FP8 tensor cores only. The
/// engine-neutral estimate (`neutral`) refuses nothing: a note says it.
[[nodiscard]] std::optional<std::string> engine_weights_refusal(Engine engine, const GpuSpec& gpu, DType weights);
/// The same for one part's format: TensorRT-LLM also refuses bitsandbytes (nf4) anywhere, NVFP4
/// before Blackwell, and MXFP4 before Blackwell except in MoE experts (`experts`) on Hopper.
[[nodiscard]] std::optional<std::string> engine_weights_refusal(Engine engine, const GpuSpec& gpu,
                                                                const WeightFormat& format, bool experts);

/// Why `engine` refuses the checkpoint's own quantization (ModelSpec::checkpoint_quant) on `gpu`,
/// beyond its formats' bytes: AWQ at other than 4 bits (vLLM, SGLang, TensorRT-LLM), AWQ before
/// Turing (vLLM, SGLang), ModelOpt W4A8_AWQ without FP8 tensor cores (TensorRT-LLM). The
/// message starts with the config field ("x/config.json: /quantization_config/bits: ...").
[[nodiscard]] std::optional<std::string> engine_checkpoint_refusal(Engine engine, const GpuSpec& gpu,
                                                                   const ModelSpec& model);

/// Why the vLLM or SGLang release `--engine-version` names cannot load the model at all, or
/// nullopt: its architecture (ModelSpec::model_type) came in a later release, so that release
/// stops at "Model architectures [...] are not supported" before any memory is sized. Known first
/// releases only (engine_flags.cpp cites each); an unknown type, no version, or TensorRT-LLM:
/// nullopt. `vllm_minor` is as EngineSettings::vllm_minor_version, `vllm_patch` the patch (unset:
/// the minor's last patch is assumed, so "0.10" is not refused for 0.10.1's types);
/// `sglang_version` as EngineSettings::sglang_version.
[[nodiscard]] std::optional<std::string> engine_release_refusal(Engine engine, std::optional<int> vllm_minor,
                                                                std::optional<int> vllm_patch,
                                                                std::optional<int> sglang_version,
                                                                const ModelSpec& model);

/// A part served in the checkpoint's own bitsandbytes 8-bit (LLM.int8, `served` equal to its
/// `shipped` format): it multiplies through bitsandbytes' own kernels, not the int8 scaled-mm that
/// engine_weights_refusal() refuses on Blackwell under vLLM, so that rule does not apply to it.
[[nodiscard]] bool bitsandbytes_int8_checkpoint(const ModelSpec& model, const WeightFormat& served,
                                                const WeightFormat& shipped);

/// SGLang's get_context_length drops a YaRN factor when original_max_position_embeddings is
/// given and refuses a longer context unless told to allow it: the note for `context` (worded
/// `for_what`, e.g. "a context of 131072") past the config's `unscaled_tokens`; empty when none.
[[nodiscard]] std::string sglang_unscaled_context_note(std::uint64_t unscaled_tokens, std::uint64_t context,
                                                       std::string_view for_what);

/// The command for `engine` (not `neutral`: InputError naming `engine.name`).
EngineLaunch launch_command(Engine engine, const LaunchSettings& settings);

/// Reads a command `launch_command` wrote (or one written by hand with the same flags) back, with
/// the lines of its TensorRT-LLM YAML; unknown flags are ignored, malformed values throw
/// InputError naming the flag.
LaunchSettings parse_launch_command(Engine engine, const std::vector<std::string>& argv,
                                    const std::vector<std::string>& config_yaml = {});

}  // namespace gpuplan
