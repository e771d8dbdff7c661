// A refusal above a model's positions names the way forward its card documents (Qwen3, Qwen2.5
// YaRN) or, for an unscaled model, the rope_scaling route in general; a model whose config already
// scaled its positions gets no hint to scale again.
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

  const ModelSpec& llama2 = catalog.model("llama-2-7b");
  CHECK(documented_context_extension(llama2, 8'192).find("if the model card documents it") != std::string::npos);
  CHECK(documented_context_extension(llama2, 4'096).empty());  // within its positions: nothing to say

  // A config whose rope_scaling already raised the limit: no second scaling suggested.
  qwen2.unscaled_max_position_embeddings = 32'768;
  qwen2.max_position_embeddings = 131'072;
  CHECK(documented_context_extension(qwen2, 200'000).empty());
}
