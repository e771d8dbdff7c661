#pragma once
// The formats a checkpoint ships in, from config.json's torch_dtype and quantization_config
// (fp8, mxfp4, compressed-tensors, awq, gptq, bitsandbytes, fbgemm_fp8, modelopt), honouring the
// lists of modules left unquantized. Unknown methods are errors, never a silent bf16.

#include <string>
#include <string_view>

#include <gpuplan/model_spec.hpp>

#include "detail/json_reader.hpp"

namespace gpuplan::detail {

/// Sets model.shipped_formats and model.shipped_source from `config` (the top-level object).
void read_shipped_formats(ModelSpec& model, const Json& config, const std::string& origin, const JsonPointer& at);

/// A quantization sidecar beside config.json (`file_name`: AutoAWQ's quant_config.json, or
/// quantize_config.json, which AutoGPTQ / GPTQModel write and some AWQ uploads too), read as the
/// AWQ or GPTQ quantization_config a config.json without one leaves out, told apart by their keys;
/// `model` holds the formats config.json's dtype gave.
void read_quant_sidecar(ModelSpec& model, const Json& sidecar, const std::string& origin, std::string_view file_name);

/// Whether gpuplan reads ModelOpt's quant_algo `algo` (TensorRT-LLM's QuantAlgo names), and the
/// names it reads, for messages.
bool modelopt_algorithm_known(std::string_view algo);
inline constexpr std::string_view kModeloptAlgorithms =
    "FP8, FP8_PER_CHANNEL_PER_TOKEN, FP8_BLOCK_SCALES, FP8_PB_WO, MXFP8, NVFP4, NVFP4_AWQ, W4A8_NVFP4_FP8, "
    "W4A16_NVFP4, W4A16_MXFP4, W4A8_MXFP4_FP8, W4A8_MXFP4_MXFP8, W4A16_AWQ, W4A8_AWQ, W8A16, W8A8_SQ_PER_CHANNEL, "
    "MIXED_PRECISION";

/// A catalog entry's "shipped_weights": {"default": "bf16", "<part>": "<format>", ...,
/// "source": "..."}.
void read_catalog_formats(ModelSpec& model, const Json& entry, const std::string& origin, const JsonPointer& at);

}  // namespace gpuplan::detail
