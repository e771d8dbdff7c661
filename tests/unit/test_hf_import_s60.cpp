// Helper s60 configs findings: mlp_layer_types read as the MoE layout when config.json gives no
// first_k_dense_replace (transformers 5.x classes build each layer's MLP from the list).
// Fixtures: tests/fixtures/hf-s60-sources.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

using gpuplan::test::fixture;

nlohmann::json fixture_json_s60(const char* name) {
  std::ifstream in(fixture(name));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

}  // namespace

TEST_CASE("s60: mlp_layer_types alone lays out the dense and MoE layers", "[hf][s60]") {
  // poolside/Laguna-XS.2-FP8 (aiconfigurator's copy): mlp_layer_types ["dense", "sparse" x 39] and no
  // first_k_dense_replace. It had been refused ("/mlp_layer_types/0: \"dense\", but layer 0 is an MoE
  // layer"). By hand: 39 x 256 experts x 3 x 2048 x 512 = 31.41 B, attention 10 x 29.4 M + 30 x 37.7 M
  // (48 and 64 query heads) = 1.43 B, embedding and head 2 x 100352 x 2048 = 0.41 B, dense layer 0
  // 50.3 M, shared experts 0.12 B: 33.43 B (poolside: 33 B total, 3 B active).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s60-laguna-xs.2-fp8.json"));
  REQUIRE(m.moe);
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.is_moe_layer(1));
  CHECK(m.moe_layer_count() == 39);
  const auto params = gpuplan::count_params(m);
  CHECK(params.total() == Approx(33.43e9).epsilon(2e-3));
  CHECK(params.active() == Approx(3.0e9).epsilon(0.02));
  // 40 layers x 8 KV heads x 128 x (K + V) x 2 bytes before the sliding windows.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(40 * 8 * 128 * 4.0));

  // The same list with first_k_dense_replace 1 reads the same; with 0 the two disagree, refused.
  auto config = fixture_json_s60("hf-s60-laguna-xs.2-fp8.json");
  config["first_k_dense_replace"] = 1;
  CHECK(gpuplan::count_params(gpuplan::model_from_hf_config(config.dump(), "config.json")).total() ==
        Approx(params.total()));
  config["first_k_dense_replace"] = 0;
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("/mlp_layer_types/0: \"dense\", but layer 0 is an MoE layer"));

  // A dense layer in the middle of the list is read too.
  config.erase("first_k_dense_replace");
  config["mlp_layer_types"][20] = "dense";
  const auto middle = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(middle.moe_layer_count() == 38);
  CHECK_FALSE(middle.is_moe_layer(20));

  // Every layer dense beside the experts: no layer would hold them.
  for (auto& t : config["mlp_layer_types"]) {
    t = "dense";
  }
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/mlp_layer_types: every one of the 40 layers is \"dense\""));
  // A malformed list is still named by the list check.
  config["mlp_layer_types"] = nlohmann::json::array({"dense", "sparse"});
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/mlp_layer_types: expected an array of 40 entries"));
}

TEST_CASE("s60: a DeepSeek-style file with mlp_layer_types needs no first_k_dense_replace", "[hf][s60]") {
  // GLM-4.7-Flash's sizes with the list transformers 5 writes in place of first_k_dense_replace: the
  // same 29.94 B as the aiconfigurator copy that writes first_k_dense_replace 1.
  const auto listed = gpuplan::model_from_hf_config_file(fixture("hf-s60-glm-4.7-flash-mlp-layer-types.json"));
  auto config = fixture_json_s60("hf-s60-glm-4.7-flash-mlp-layer-types.json");
  config.erase("mlp_layer_types");
  config["first_k_dense_replace"] = 1;
  const auto written = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(listed.moe_layer_count() == 46);
  CHECK(gpuplan::count_params(listed).total() == Approx(gpuplan::count_params(written).total()));
  CHECK(gpuplan::count_params(listed).total() == Approx(29.94e9).epsilon(1e-3));
  // MLA: (kv_lora_rank 512 + rope 64) x 2 bytes x 47 layers.
  CHECK(gpuplan::kv_bytes_per_token(listed, gpuplan::DType::bf16) == Approx(576 * 2.0 * 47));
  // Neither field: still refused for a DeepSeek-style type (glm4_moe), naming first_k_dense_replace.
  config.erase("first_k_dense_replace");
  config["model_type"] = "glm4_moe";
  config["architectures"] = {"Glm4MoeForCausalLM"};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("first_k_dense_replace"));
}

TEST_CASE("s60: torchao checkpoints are sized by their config", "[hf][s60]") {
  // Qwen3-8B with torchao's Int4WeightOnlyConfig (group 128, tile-packed, HQQ parameters): int4
  // values with a bf16 scale and a bf16 zero point per 128. It had been refused as an unknown method.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s60-qwen3-8b-torchao-int4.json"));
  REQUIRE(m.shipped_formats);
  const auto& attention = (*m.shipped_formats)[gpuplan::WeightPart::attention];
  CHECK(attention.element == gpuplan::DType::int4);
  CHECK(attention.block == 128);
  CHECK(attention.scale_bits == 16);
  CHECK(attention.zero_bits == 16);
  CHECK(attention.matrix_bytes(4096, 4096) == Approx(4096.0 * 4096.0 * (0.5 + 4.0 / 128.0)));
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::dense_mlp] == attention);
  // The embedding and LM head stay 16-bit (include_input_output_embeddings false).
  CHECK_FALSE((*m.shipped_formats)[gpuplan::WeightPart::embedding].quantized());
  CHECK_FALSE((*m.shipped_formats)[gpuplan::WeightPart::lm_head].quantized());

  auto config = fixture_json_s60("hf-s60-qwen3-8b-torchao-int4.json");
  auto& q = config["quantization_config"];
  // The legacy string form (transformers before torchao's config objects) reads the same.
  q["quant_type"] = "int4_weight_only";
  q["quant_type_kwargs"] = {{"group_size", 128}};
  const auto legacy = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK((*legacy.shipped_formats)[gpuplan::WeightPart::attention] == attention);
  // Float8 with PerRow granularity: fp8 with an fp32 scale per output channel; per tensor by default.
  q["quant_type"] = {{"default", {{"_type", "Float8DynamicActivationFloat8WeightConfig"},
                                  {"_data", {{"granularity", {{{"_type", "PerRow"}}, {{"_type", "PerRow"}}}}}}}}};
  const auto fp8 = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK((*fp8.shipped_formats)[gpuplan::WeightPart::attention].element == gpuplan::DType::fp8);
  CHECK((*fp8.shipped_formats)[gpuplan::WeightPart::attention].scheme == gpuplan::ScaleScheme::per_channel);
  q["quant_type"]["default"]["_data"].erase("granularity");
  CHECK((*gpuplan::model_from_hf_config(config.dump(), "config.json").shipped_formats)[gpuplan::WeightPart::attention]
            .scheme == gpuplan::ScaleScheme::per_tensor);
  // Int8 weight-only: per-channel int8 into 16-bit GEMMs.
  q["quant_type"] = {{"default", {{"_type", "Int8WeightOnlyConfig"}, {"_data", {{"group_size", nullptr}}}}}};
  const auto int8 = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK((*int8.shipped_formats)[gpuplan::WeightPart::attention].element == gpuplan::DType::int8);
  CHECK((*int8.shipped_formats)[gpuplan::WeightPart::attention].activation_bits == 16);
  // 2:4-sparse int4 (version 2's packing format, version 1's layout) is refused, not counted dense.
  q["quant_type"] = {{"default", {{"_type", "Int4WeightOnlyConfig"},
                                  {"_data", {{"layout", {{"_type", "MarlinSparseLayout"}}}}}}}};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("/quantization_config/quant_type/default/_data/layout: 2:4-sparse int4 weights"));
  // What is not sized is named.
  q["quant_type"] = {{"default", {{"_type", "Int8DynamicActivationIntxWeightConfig"}, {"_data", nlohmann::json::object()}}}};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("/quantization_config/quant_type/default/_type: torchao config "
                      "\"Int8DynamicActivationIntxWeightConfig\" is not sized"));
  q["quant_type"] = {{"default", {{"_type", "Int4WeightOnlyConfig"}, {"_data", nlohmann::json::object()}}},
                     {"model.layers.0.self_attn.q_proj", {{"_type", "Int8WeightOnlyConfig"}}}};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("/quantization_config/quant_type/model.layers.0.self_attn.q_proj: a torchao config for some "
                      "modules only"));
  q.erase("quant_type");
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/quantization_config/quant_type: missing"));
  q["quant_type"] = "int4_weight_only";
  q["include_input_output_embeddings"] = true;
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/quantization_config/include_input_output_embeddings: true"));
}

TEST_CASE("s60: an HQQ checkpoint is refused with the reason", "[hf][s60]") {
  auto config = fixture_json_s60("hf-s60-qwen3-8b-torchao-int4.json");
  config["quantization_config"] = {
      {"quant_method", "hqq"},
      {"quant_config", {{"weight_quant_params", {{"nbits", 4}, {"group_size", 64}, {"axis", 1}}}}},
      {"skip_modules", {"lm_head"}}};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("/quantization_config/quant_method: \"hqq\": vLLM deprecated its HQQ kernels"));
  // Another method is still an unknown one, the list naming torchao among those read.
  config["quantization_config"] = {{"quant_method", "higgs"}, {"bits", 4}};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("unknown quantization method \"higgs\"") && Contains("modelopt, torchao)"));
}

TEST_CASE("s60: Bamba's Mamba2 layers are read beside its attention layers", "[hf][s60]") {
  // ibm-ai-platform/Bamba-9B: attention on layers 9, 18 and 27, Mamba2 (BambaMixer) on the other 29.
  // By hand: embedding and head 2 x 128256 x 4096 = 1.051 B, MLPs 32 x 3 x 4096 x 14336 = 5.637 B,
  // attention 3 x 41.9 M = 0.126 B, Mamba2 29 x (in_proj 4096 x 16768 + out_proj 8192 x 4096 + conv
  // 8448 x 5) = 2.966 B: 9.78 B, the checkpoint's 9.78 B. It had been refused (/mamba_d_state).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s60-bamba-9b.json"));
  CHECK(gpuplan::count_params(m).total() == Approx(9.78e9).epsilon(2e-3));
  // KV on the three attention layers: 3 x 8 heads x 128 x (K + V) x 2 bytes.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(3 * 8 * 128 * 4.0));
  REQUIRE(m.linear_attention);
  CHECK(m.linear_attention->value_heads == 128);
  CHECK(m.linear_attention->value_head_dim == 64);
  CHECK(m.linear_attention->key_head_dim == 128);

  auto config = fixture_json_s60("hf-s60-bamba-9b.json");
  config["attn_layer_indices"] = {9, 18, 32};
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()),
             Contains("/attn_layer_indices/2: expected a layer index below num_hidden_layers 32, got 32"));
  config["attn_layer_indices"] = nlohmann::json::array();
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/attn_layer_indices: empty"));
  config.erase("attn_layer_indices");
  CHECK_THAT(gpuplan::test::hf_config_error(config.dump()), Contains("/attn_layer_indices: expected the list of attention layers"));
}
