#pragma once
// What a checkpoint's published name says besides its model: quantized releases append their
// weights format ("nvidia/Llama-3.3-70B-Instruct-FP8", "Qwen/Qwen3-30B-A3B-GPTQ-Int4",
// "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16"), which names the same architecture.

#include <optional>
#include <string>
#include <string_view>

#include <gpuplan/weight_format.hpp>

namespace gpuplan {

struct CheckpointName {
  std::string model;                   ///< lower case, without the owner and the format suffix
  std::optional<WeightFormat> format;  ///< the weights format the suffix states
  std::string format_text;             ///< that suffix as written ("FP8", "GPTQ-Int4"); empty: none
  std::string owner;                   ///< lower case, before the "/" ("meta-llama"); empty: none
};

/// Reads `name` ("owner/name" or "name", any case): owner dropped, trailing format tokens
/// (fp8, fp4/nvfp4, mxfp4, awq, gptq, int4, int8, w4a16, w8a8, bnb-4bit, dynamic, ...) removed.
CheckpointName read_checkpoint_name(std::string_view name);

/// The weights format a results table's precision column states, by the same words ("FP8",
/// "NVFP4", "W4A16", "AWQ INT4", "GPTQ-Int8", "MXFP4"); nullopt when no word states one.
std::optional<WeightFormat> format_of_precision(std::string_view text);

}  // namespace gpuplan
