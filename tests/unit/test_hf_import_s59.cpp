// Helper s59 configs / configs2 findings: MoE files without their expert width, a misspelled
// optional field, EXAONE-MoE's is_moe_layer, Nemotron-H's attention_head_dim, a legacy
// bitsandbytes block without quant_method, and the messages of smaller findings.
// Fixtures: tests/fixtures/hf-s59-sources.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

using gpuplan::test::fixture;

std::string error_of_s59(const std::string& path) {
  try {
    (void)gpuplan::model_from_hf_config_file(path);
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string fixture_text(const char* name) {
  std::ifstream in(fixture(name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("s59: an MoE file without moe_intermediate_size is refused unless its class sizes experts by "
          "intermediate_size",
          "[hf][s59]") {
  // Trinity-Large (afmoe): 398.64 B with the field; without it the experts had been 12,288 wide,
  // 1577.36 B with exit 0 (helper s59 configs2 F1).
  const auto good = gpuplan::model_from_hf_config_file(fixture("hf-trinity-large-neuron-overrides.json"));
  CHECK(gpuplan::count_params(good).total() == Approx(398.64e9).epsilon(1e-3));
  CHECK_THAT(error_of_s59(fixture("bad-hf-trinity-large-no-moe-width.json")),
             Contains("/moe_intermediate_size: missing") && Contains("only Mixtral's kin"));
  // Ling-mini-2.0 (bailing_moe, a type gpuplan has no list entry for): 154.50 B had been printed.
  CHECK_THAT(error_of_s59(fixture("bad-hf-ling-mini-2.0-no-moe-width.json")),
             Contains("/moe_intermediate_size: missing") && Contains("bailing_moe"));
  // Mixtral's experts are intermediate_size wide: its file has no moe_intermediate_size.
  const auto mixtral = gpuplan::model_from_hf_config_file(fixture("hf/mixtral-8x7b"));
  REQUIRE(mixtral.moe);
  CHECK(mixtral.moe->expert_intermediate == 14336);
  // So are MiniCPM-MoE's (vLLM minicpm.py: MiniCPMMoE(intermediate_size=config.intermediate_size)):
  // openbmb/MiniCPM-MoE-8x2B's config.json sizes, refused by the first form of this rule.
  const auto minicpm = gpuplan::model_from_hf_config(
      R"({"architectures": ["MiniCPMForCausalLM"], "model_type": "minicpm", "hidden_size": 2304,
          "intermediate_size": 5760, "num_hidden_layers": 40, "num_attention_heads": 36,
          "num_key_value_heads": 36, "vocab_size": 122753, "max_position_embeddings": 4096,
          "num_experts": 8, "num_experts_per_tok": 2, "torch_dtype": "bfloat16"})",
      "config.json");
  REQUIRE(minicpm.moe);
  CHECK(minicpm.moe->expert_intermediate == 5760);
  // 8 experts x 40 layers x 3 x 2304 x 5760 = 12.74 B of the model card's 13.6 B.
  CHECK(gpuplan::count_params(minicpm).total() > 13.5e9);
  CHECK(gpuplan::count_params(minicpm).total() < 14.3e9);
}

TEST_CASE("s59: a near miss of an absent sizing field is refused, naming both", "[hf][s59]") {
  // helium-1-2b with num_key_value_heads written num_key_value_head: 16 KV heads (the query
  // heads) had been read, 229,376 KV bytes a token for 114,688 (helper s59 configs F2).
  const auto good = gpuplan::model_from_hf_config_file(fixture("hf-helium-1-2b.json"));
  CHECK(gpuplan::kv_bytes_per_token(good, gpuplan::DType::bf16) == Approx(28 * 8 * 128 * 4.0));
  CHECK_THAT(error_of_s59(fixture("bad-hf-helium-1-2b-kv-key-typo.json")),
             Contains("/num_key_value_head: no field gpuplan knows, while num_key_value_heads is missing"));
  // A misspelled context length sizes nothing: noted, not refused.
  auto config = nlohmann::json::parse(fixture_text("hf-helium-1-2b.json"));
  config["max_position_embedding"] = config["max_position_embeddings"];
  config.erase("max_position_embeddings");
  const auto noted = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK_THAT(noted.assumed_defaults, Contains("\"max_position_embedding\", no field gpuplan knows"));
}

TEST_CASE("s59: EXAONE-MoE's is_moe_layer places its dense layer", "[hf][s59]") {
  // TensorRT-LLM's K-EXAONE test copy: is_moe_layer [false, true, true, true] and
  // first_last_k_dense_replace 1; layer 0 had been counted as an MoE layer, 21.82 B for 17.3 B.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-k-exaone-trtllm-test-4l.json"));
  REQUIRE(m.moe);
  CHECK(m.moe_layer_count() == 3);
  CHECK_FALSE(m.is_moe_layer(0));
  const double total = gpuplan::count_params(m).total();
  CHECK(total == Approx(17.3e9).epsilon(0.01));
  // is_moe_layer alone says the same.
  auto config = nlohmann::json::parse(fixture_text("hf-k-exaone-trtllm-test-4l.json"));
  config.erase("first_last_k_dense_replace");
  const auto listed = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(gpuplan::count_params(listed).total() == Approx(total));
  // A list of another length, or one that contradicts the leading dense layers, is refused.
  config["is_moe_layer"] = {false, true, true};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/is_moe_layer: expected a list of 4 entries"));
  config["is_moe_layer"] = {true, true, true, true};
  config["first_k_dense_replace"] = 1;
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/is_moe_layer/0: true, but the leading dense layers (1)"));
}

TEST_CASE("s59: attention_head_dim is read as the head width", "[hf][s59]") {
  // Nemotron-H-4B: 3136 / 40 is no whole head; its file says attention_head_dim 128 (vLLM reads it).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-nemotron-h-4b-attention-head-dim.json"));
  CHECK(m.head_dim == 128);
  // Four attention layers ("*") of 8 KV heads.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(4 * 8 * 128 * 4.0));
}

TEST_CASE("s59: a bitsandbytes block without quant_method is read as transformers reads it", "[hf][s59]") {
  // gorilla-openfunctions-v2 int8, saved by transformers 4.28.1: had been refused.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-gorilla-openfunctions-v2-int8-tf428.json"));
  REQUIRE(m.shipped_formats);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::attention].element == gpuplan::DType::int8);
  CHECK(gpuplan::count_params(m).total() == Approx(6.89e9).epsilon(2e-3));
  // Without load_in_8bit / load_in_4bit the block still says nothing.
  auto config = nlohmann::json::parse(fixture_text("hf-gorilla-openfunctions-v2-int8-tf428.json"));
  config["quantization_config"].erase("load_in_8bit");
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/quantization_config/quant_method: missing"));
}

TEST_CASE("s59: smaller findings' messages", "[hf][s59]") {
  // configs2 F4: the file says "ministral"; the message had named only "ministral3".
  CHECK_THAT(error_of_s59(fixture("bad-hf-devstral-2-mock-no-max-positions.json")),
             Contains("/max_position_embeddings: missing") &&
                 Contains("model_type \"ministral\" is read as \"ministral3\""));
  // configs F3: an image classifier, not "hidden_sizes: a misspelling of hidden_size?".
  const std::string convnext = error_of_s59(fixture("bad-hf-convnextv2-classifier.json"));
  CHECK_THAT(convnext, Contains("model_type \"convnextv2\" is a vision or audio model"));
  CHECK_THAT(convnext, !Contains("misspelling"));
  // configs F4: an unknown remote-code model: every missing size at once, and the unknown layout.
  CHECK_THAT(error_of_s59(fixture("bad-hf-moegpt-custom.json")),
             Contains("lacks n_positions, n_inner and has block_size 2048") && Contains("auto_map"));
  // configs F5: a LongRoPE list of 47 factors for head_dim 96.
  CHECK_THAT(error_of_s59(fixture("bad-hf-phi-3.5-mini-longrope-47.json")),
             Contains("/rope_scaling/long_factor: 47 entries") && Contains("= 48"));
}
