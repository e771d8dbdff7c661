#pragma once
// JSON -> catalog entries, field by field. Datasheet units in the file, SI in the structs:
// this is the only place they meet.

#include <string>

#include <gpuplan/benchmark.hpp>
#include <gpuplan/gpu.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/price.hpp>

#include "detail/json_reader.hpp"

namespace gpuplan::detail {

GpuSpec gpu_from_json(const Json& entry, const std::string& origin, const JsonPointer& at);
ModelSpec model_from_json(const Json& entry, const std::string& origin, const JsonPointer& at);
Price price_from_json(const Json& entry, const std::string& origin, const JsonPointer& at);
Benchmark benchmark_from_json(const Json& entry, const std::string& origin, const JsonPointer& at);
/// Architecture from HF config.json fields. `strict`: unknown keys are errors (catalog files);
/// otherwise keys gpuplan does not need are ignored (a real config.json). `checkpoint_total_known`:
/// the checkpoint's size is at hand (model.safetensors.index.json), so a reading that leaves out
/// what unread fields size is caught by it, and such fields are noted rather than refused.
ModelSpec model_from_config(const Json& config, const std::string& origin, const JsonPointer& at,
                            bool strict, bool checkpoint_total_known = false);

}  // namespace gpuplan::detail
