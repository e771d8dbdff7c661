#pragma once
// The way forward where a model's card documents a longer context than its config.json states
// (Qwen3's YaRN): every refusal above max_position_embeddings names it (fit, and perf, plan,
// compare and scale through validate_perf_request).

#include <cstdint>
#include <string>

#include <gpuplan/model_spec.hpp>

namespace gpuplan {

/// "; <the way forward>" when `model`'s card documents a context extension reaching
/// `context_tokens`; else empty.
[[nodiscard]] std::string documented_context_extension(const ModelSpec& model, std::uint64_t context_tokens);

}  // namespace gpuplan
