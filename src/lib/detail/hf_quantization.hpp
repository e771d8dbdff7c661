#pragma once
// The formats a checkpoint ships in, from config.json's torch_dtype and quantization_config
// (fp8, mxfp4, compressed-tensors, awq, gptq, bitsandbytes, fbgemm_fp8, modelopt), honouring the
// lists of modules left unquantized. Unknown methods are errors, never a silent bf16.

#include <string>

#include <gpuplan/model_spec.hpp>

#include "detail/json_reader.hpp"

namespace gpuplan::detail {

/// Sets model.shipped_formats and model.shipped_source from `config` (the top-level object).
void read_shipped_formats(ModelSpec& model, const Json& config, const std::string& origin, const JsonPointer& at);

/// A catalog entry's "shipped_weights": {"default": "bf16", "<part>": "<format>", ...,
/// "source": "..."}.
void read_catalog_formats(ModelSpec& model, const Json& entry, const std::string& origin, const JsonPointer& at);

}  // namespace gpuplan::detail
