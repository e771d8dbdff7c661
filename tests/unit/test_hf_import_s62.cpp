// Helper s62 configs findings: Llama 3.2 Vision's tile position tables and its projector of the
// concatenated layer outputs (F1); MiniMax-M1 read as MiniMax-Text-01's checked layout (F2);
// MiniCPM-V read as vLLM builds it by version (F3).
// Fixtures: tests/fixtures/hf-s62-sources.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

using gpuplan::test::fixture;

namespace {

double total_of(const gpuplan::ParamCount& p) {
  return p.embedding + p.lm_head + p.attention + p.dense_mlp + p.routed_experts + p.shared_experts + p.router +
         p.norms + p.vision;
}

gpuplan::ModelSpec mllama_with_vision(const std::string& vision_fields) {
  return gpuplan::model_from_hf_config(
      R"({"model_type": "mllama", "text_config": {"model_type": "mllama_text_model",
      "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 40, "num_attention_heads": 32,
      "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
      "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38]},
      "vision_config": {"model_type": "mllama_vision_model", "hidden_size": 1280, "intermediate_size": 5120,
      "num_hidden_layers": 32, "num_global_layers": 8, "attention_heads": 16, "image_size": 560,
      "patch_size": 14)" + vision_fields + "}}",
      "config.json");
}

}  // namespace

TEST_CASE("s62: Llama 3.2 Vision counts its tile position tables and 7680-wide projector", "[hf][s62]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s62-llama-3.2-11b-vision-instruct.json"));
  REQUIRE(m.vision);
  const auto p = gpuplan::count_params(m);
  // By hand (hf-s62-sources.md): tower 863,567,379 + projector 31,461,376; the generic count adds
  // q/k/v/o biases the tower does not have (205 K) and leaves out the projector's bias (4 K).
  CHECK(p.vision == Approx(863'567'379.0 + 31'461'376.0).epsilon(0.0005));
  // HF model page: 10.67 B; by hand 10,670,220,835. Read as a generic ViT it was 10,570,298,368.
  CHECK(total_of(p) == Approx(10'670'220'835.0).epsilon(0.0002));
  // The self-attention layers alone keep per-token KV (unchanged by the fix).
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(32.0 * 2 * 8 * 128 * 2));
}

TEST_CASE("s62: Llama 3.2 Vision's tables follow max_num_tiles and the aspect ratios", "[hf][s62]") {
  const double with_listed = gpuplan::count_params(mllama_with_vision(
      R"(, "max_num_tiles": 4, "vision_output_dim": 7680, "supported_aspect_ratios": [[1,1],[1,2],[1,3],[1,4],[2,1],[2,2],[3,1],[4,1]])"))
                                 .vision;
  // Without the list, MllamaVisionConfig's default: every w x h <= max_num_tiles grid, 8 for 4 tiles.
  const double derived =
      gpuplan::count_params(mllama_with_vision(R"(, "max_num_tiles": 4, "vision_output_dim": 7680)")).vision;
  CHECK(derived == Approx(with_listed));
  // One tile allows one grid: the tile table shrinks from 9 x 4 to 2 x 1 tiles of 1601 rows, the
  // two aspect-ratio tables from 9 x 4 rows each to 2 x 1.
  const double one_tile =
      gpuplan::count_params(mllama_with_vision(R"(, "max_num_tiles": 1, "vision_output_dim": 7680)")).vision;
  CHECK(with_listed - one_tile == Approx(((9.0 * 4 - 2 * 1) * 1601 + 2 * (9.0 * 4 - 2 * 1)) * 1280));
  // The projector reads vision_output_dim inputs: 7680 against the tower's 1280 is 5 x 1280 x 4096 more.
  const double one_layer_out =
      gpuplan::count_params(mllama_with_vision(R"(, "max_num_tiles": 4, "vision_output_dim": 1280)")).vision;
  CHECK(with_listed - one_layer_out == Approx(5.0 * 1280 * 4096));
  CHECK_THROWS_WITH(mllama_with_vision(R"(, "vision_output_dim": 7000)"),
                    Contains("/vision_config/vision_output_dim") && Contains("multiple of the tower's width 1280"));
  CHECK_THROWS_WITH(mllama_with_vision(R"(, "supported_aspect_ratios": [])"),
                    Contains("/vision_config/supported_aspect_ratios"));
  CHECK_THROWS_WITH(mllama_with_vision(R"(, "max_num_tiles": 0)"), Contains("/vision_config/max_num_tiles"));
}

TEST_CASE("s62: MiniMax-M1 is read as MiniMax-Text-01's checked layout", "[hf][s62]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s62-minimax-m1.json"));
  CHECK_FALSE(m.layout_unchecked);
  REQUIRE(m.moe);
  // Card: 456 B total, 45.9 B activated.
  CHECK(total_of(gpuplan::count_params(m)) == Approx(456.0e9).epsilon(0.002));
  // 10 softmax-attention layers (attn_type_list 1 every 8th) x 8 KV heads x 128 x 2 x 2 bytes.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(40960.0));
}

TEST_CASE("s62: MiniCPM-V is read as vLLM builds it by version", "[hf][s62]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s62-minicpm-v-2_6.json"));
  // 2.6: Qwen2ForCausalLM (q, k, v biases), the SigLIP tower and Resampler2_5.
  CHECK(m.qkv_bias);
  CHECK(m.served_model_type() == "minicpmv");
  REQUIRE(m.vision);
  CHECK(m.vision->layers == 27);
  REQUIRE(m.vision->resampler);
  CHECK(m.vision->resampler->latents == 64);
  CHECK(m.vision->resampler->heads == 28);
  const auto p = gpuplan::count_params(m);
  // By hand (hf-s62-sources.md): 8,099,175,344; HF model page 8.1 B. Tower and resampler 486,411,696.
  CHECK(total_of(p) == Approx(8'099'175'344.0).epsilon(0.0001));
  CHECK(p.vision == Approx(417'792'240.0 + 68'619'456.0).epsilon(0.0002));
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(28.0 * 2 * 4 * 128 * 2));

  nlohmann::json c = nlohmann::json::parse(std::ifstream(fixture("hf-s62-minicpm-v-2_6.json")));
  // drop_vision_last_layer (MiniCPMVConfig's default true) leaves one SigLIP layer out.
  c["drop_vision_last_layer"] = true;
  const auto dropped = gpuplan::model_from_hf_config(c.dump(), "config.json");
  CHECK(p.vision - gpuplan::count_params(dropped).vision == Approx(15'239'504.0).epsilon(0.001));
  c.erase("drop_vision_last_layer");
  CHECK(gpuplan::model_from_hf_config(c.dump(), "config.json").vision->layers == 26);
  // 4.5 is Qwen3's layout: q/k norms, no q/k/v biases (Qwen3's files write head_dim).
  c["version"] = 4.5;
  c["head_dim"] = 128;
  const auto v45 = gpuplan::model_from_hf_config(c.dump(), "config.json");
  CHECK(v45.qk_norm);
  CHECK_FALSE(v45.qkv_bias);
  c["version"] = "4.0";
  CHECK_FALSE(gpuplan::model_from_hf_config(c.dump(), "config.json").qkv_bias);  // Llama's layout
  c["version"] = 2.0;
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(c.dump(), "config.json"),
                    Contains("/version") && Contains("timm ViT"));
  c["version"] = 3.1;
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(c.dump(), "config.json"),
                    Contains("/version: MiniCPM-V 3.1 is none of the versions vLLM serves"));
  c["version"] = 2.6;
  c.erase("vision_config");
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(c.dump(), "config.json"), Contains("/vision_config: missing"));
}

TEST_CASE("s62: MiniCPM-V's vpm and resampler are the vision part in an exclusion list", "[hf][s62]") {
  nlohmann::json c = nlohmann::json::parse(std::ifstream(fixture("hf-s62-minicpm-v-2_6.json")));
  // An AWQ upload leaving the tower (vpm) and the connector (resampler) 16-bit by name.
  c["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true},
                              {"version", "gemm"}, {"modules_to_not_convert", {"vpm", "resampler"}}};
  const auto m = gpuplan::model_from_hf_config(c.dump(), "config.json");
  REQUIRE(m.shipped_formats);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::vision].element == gpuplan::DType::bf16);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::dense_mlp].element != gpuplan::DType::bf16);
  CHECK_THAT(m.shipped_source, !Contains("no part gpuplan counts"));
  // A name of no counted part is still said to be one.
  c["quantization_config"]["modules_to_not_convert"] = {"vpm", "talker"};
  CHECK_THAT(gpuplan::model_from_hf_config(c.dump(), "config.json").shipped_source,
             Contains("no part gpuplan counts (talker)"));
}
