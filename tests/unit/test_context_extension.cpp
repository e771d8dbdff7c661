// A refusal above a model's positions names the way forward its card documents (Qwen3, Qwen2.5
// YaRN); other models, and a config whose positions are already scaled, get no hint.
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/context_extension.hpp>

using namespace gpuplan;

TEST_CASE("context extension: the hint follows the model's positions and scaling", "[context]") {
  const Catalog& catalog = Catalog::builtin();
  const ModelSpec& qwen3 = catalog.model("qwen3-32b");
  CHECK(documented_context_extension(qwen3, 65'536).find("factor 4 gives 131,072") != std::string::npos);
  // Past the documented 131,072 no card vouches: nothing to suggest.
  CHECK(documented_context_extension(qwen3, 200'000).empty());

  ModelSpec qwen2 = catalog.model("qwen2.5-7b");
  REQUIRE(qwen2.model_type == "qwen2");
  REQUIRE(qwen2.max_position_embeddings == 32'768);
  CHECK(documented_context_extension(qwen2, 131'072).find("Qwen2.5's model cards") != std::string::npos);
  CHECK(documented_context_extension(qwen2, 131'073).empty());

  // Others: nothing (a catalog entry does not say whether its config already scales RoPE, as
  // Llama 3.1's does: a hint to scale it would mislead; review s61).
  CHECK(documented_context_extension(catalog.model("llama-2-7b"), 8'192).empty());
  CHECK(documented_context_extension(catalog.model("llama-3.1-8b"), 200'000).empty());
  // Qwen2.5-Omni's thinker reads as qwen2, but its card documents no YaRN.
  ModelSpec omni = qwen2;
  omni.wrapper_model_type = "qwen2_5_omni";
  CHECK(documented_context_extension(omni, 65'536).empty());

  // A config whose rope_scaling already raised the limit: no second scaling suggested.
  qwen2.unscaled_max_position_embeddings = 32'768;
  qwen2.max_position_embeddings = 131'072;
  CHECK(documented_context_extension(qwen2, 200'000).empty());
}
