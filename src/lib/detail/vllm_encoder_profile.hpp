#pragma once
// vLLM V0's profiling run of a tiled vision encoder that feeds cross-attention layers (Llama 3.2
// Vision, mllama). Library-internal: engine_memory.cpp folds it into vLLM's activation peak,
// memory.cpp names it in a note.
#include <cstdint>

#include <gpuplan/layout.hpp>
#include <gpuplan/model_spec.hpp>

namespace gpuplan::detail {

/// Every one of `seqs` dummy requests carries the largest image: a lower bound of the vision
/// encoder's peak per GPU in bytes; 0 for models without a tiled encoder and cross-attention layers.
double vllm_v0_tiled_encoder_profile_bytes(const ModelSpec& model, const Layout& layout, std::uint64_t seqs);

}  // namespace gpuplan::detail
