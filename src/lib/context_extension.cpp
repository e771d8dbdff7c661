// Documented context extensions (include/gpuplan/context_extension.hpp).
#include <gpuplan/context_extension.hpp>

namespace gpuplan {

// The way forward where a model's card documents a longer context than its config.json states.
// Qwen3's dense and MoE models (config.json 40,960 positions, 32,768 native) document YaRN:
// "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
// for 131,072 tokens (Qwen/Qwen3-32B's README, "Processing Long Texts"; vLLM's context extension
// example passes the same through hf_overrides). gpuplan reads rope_scaling from --model-config
// (apply_rope_scaling), so a refusal at 40,960 names that (helper s52, tasks 7 and logs 5); perf,
// plan, compare and scale refuse with it too (helper s59 tasks F6: perf --input 100k did not).
std::string documented_context_extension(const ModelSpec& model, std::uint64_t context_tokens) {
  constexpr std::uint64_t kQwen3Positions = 40'960;
  constexpr std::uint64_t kQwen3YarnTokens = 131'072;
  const bool qwen3 = (model.model_type == "qwen3" || model.model_type == "qwen3_moe") &&
                     model.unscaled_max_position_embeddings == 0 && model.max_position_embeddings == kQwen3Positions;
  if (qwen3 && context_tokens <= kQwen3YarnTokens) {
    return "; Qwen3's model card documents YaRN to 131,072 tokens: give --model-config a copy of its config.json "
           "with \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": "
           "32768} (factor 4 gives 131,072)";
  }
  if (qwen3) {
    return {};  // past what its card documents: no scaling to suggest
  }
  // Qwen2.5's 7B and larger cards (Qwen/Qwen2.5-7B-Instruct README, "Processing Long Texts")
  // document the same YaRN factor 4 over their 32,768 positions; the 0.5B to 3B cards state
  // 32,768 as the full context, so the card is named as the judge.
  constexpr std::uint64_t kQwen2Positions = 32'768;
  // Qwen2.5-Omni's thinker is read as qwen2 too; its card documents no such extension.
  const bool qwen2 = model.model_type == "qwen2" && model.wrapper_model_type.empty() &&
                     model.unscaled_max_position_embeddings == 0 &&
                     model.max_position_embeddings == kQwen2Positions;
  if (qwen2 && context_tokens <= kQwen3YarnTokens) {
    return "; Qwen2.5's model cards for 7B and larger document YaRN to 131,072 tokens: give --model-config a copy "
           "of its config.json with \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, "
           "\"original_max_position_embeddings\": 32768} (factor 4 gives 131,072)";
  }
  return {};
}

}  // namespace gpuplan
