// Helper s63 configs findings: LLaVA's two-layer projector (LlavaMultiModalProjector and its kin,
// Mistral 3's with its patch merger) had been read as one matrix (F1); LongCat-Flash's two
// attention and MLP blocks per layer with a shortcut MoE and zero experts had been refused (F2).
// Fixtures: tests/fixtures/hf-s63-sources.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

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

nlohmann::json read_fixture(const char* name) {
  std::ifstream in(fixture(name));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

gpuplan::ParamCount count(const nlohmann::json& config) {
  return gpuplan::count_params(gpuplan::model_from_hf_config(config.dump(), "config.json"));
}

}  // namespace

TEST_CASE("s63: llava-1.5-7b-hf counts linear_2 of its projector", "[hf][s63]") {
  const auto p = count(read_fixture("hf-s63-llava-1.5-7b-hf.json"));
  // The checkpoint's 7,063,427,072 (by hand in hf-s63-sources.md: text 6,738,939,904, CLIP
  // ViT-L/14-336 303,507,456, projector 1024x4096 + 4096x4096 with biases 20,979,712). Read as one
  // matrix it was 16,781,312 short; the generic CLIP count is within 10 K of the tower.
  CHECK(p.vision == Approx(303'507'456.0 + 20'979'712.0).margin(10'000));
  CHECK(total_of(p) == Approx(7'063'427'072.0).margin(10'000));
}

TEST_CASE("s63: LLaVA's projector follows vision_feature_layer, its bias flag and NeXT's newline", "[hf][s63]") {
  const auto base_json = read_fixture("hf-s63-llava-1.5-7b-hf.json");
  const double base = count(base_json).vision;
  auto two_layers = base_json;
  two_layers["vision_feature_layer"] = nlohmann::json::array({-2, -5});
  // linear_1 reads both layers' outputs concatenated: 1024 more inputs of 4096 outputs.
  CHECK(count(two_layers).vision - base == Approx(1024.0 * 4096.0));
  auto no_bias = base_json;
  no_bias["multimodal_projector_bias"] = false;
  CHECK(base - count(no_bias).vision == Approx(2.0 * 4096.0));
  auto next = base_json;
  next["model_type"] = "llava_next";
  next["architectures"] = nlohmann::json::array({"LlavaNextForConditionalGeneration"});
  CHECK(count(next).vision - base == Approx(4096.0));  // image_newline
  // VipLlava (modeling_vipllava.py VipLlavaMultiModalProjector): a LayerNorm over the five
  // vision_feature_layers' concatenation (VipLlavaConfig's default [-2, -5, -8, -11, 6]), then
  // linear_1 from it, always biased.
  auto vip = base_json;
  vip["model_type"] = "vipllava";
  vip["architectures"] = nlohmann::json::array({"VipLlavaForConditionalGeneration"});
  vip.erase("vision_feature_layer");
  CHECK(count(vip).vision - base == Approx(4.0 * 1024 * 4096 + 2.0 * 5 * 1024));
  auto bad = base_json;
  bad["vision_feature_layer"] = "last";
  CHECK_THROWS_WITH(count(bad), Contains("vision_feature_layer"));
}

TEST_CASE("s63: Mistral 3 counts its patch merger, RMSNorm and linear_2", "[hf][s63]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf/mistral-small-3.1-24b/config.json"));
  const auto p = gpuplan::count_params(m);
  // Pixtral tower 403,306,496 (patch conv 602,112, ln_pre, 24 layers of 16,779,264); projector:
  // RMSNorm 1,024, merging_layer 4096x1024, linear_1 1024x5120, linear_2 5120x5120, no biases
  // (multimodal_projector_bias false): 438,959,104 (hf-s63-sources.md).
  CHECK(p.vision == Approx(438'959'104.0).margin(20'000));
  // Text 23,572,403,200 + vision: the checkpoint's 24,011,361,280 (HF safetensors total).
  CHECK(total_of(p) == Approx(24'011'361'280.0).margin(20'000));
}

TEST_CASE("s63: LongCat-Flash reads two MLA and MLP blocks a layer and its shortcut MoE", "[hf][s63]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s63-longcat-flash-chat.json"));
  CHECK(m.num_hidden_layers == 56);  // LongcatFlashModel: 2 x num_layers
  REQUIRE(m.moe);
  CHECK(m.moe_layer_count() == 28);
  CHECK(m.moe->routed_experts == 512);
  CHECK(m.moe->zero_experts == 256);
  CHECK(m.moe->experts_per_token == 12);
  CHECK(m.moe->shared_experts == 0);
  // 56 MLA caches of kv_lora_rank + qk_rope_head_dim (vLLM longcat_flash.py: one per sub-layer).
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(56.0 * (512 + 64) * 2));
  const auto p = gpuplan::count_params(m);
  // By hand (hf-s63-sources.md): 560,664,980,480; model card: 560B total, 18.6B-31.3B active.
  CHECK(total_of(p) == Approx(560'664'980'480.0).epsilon(0.001));
  CHECK(p.router == Approx(28.0 * 768 * (6144 + 1)));
  // 12 real experts a token is the upper end (zero experts run nothing).
  CHECK(p.active_without_embedding() == Approx(31.3e9).epsilon(0.02));
  // A file transformers saved after building the model also writes num_hidden_layers 56.
  auto saved = read_fixture("hf-s63-longcat-flash-chat.json");
  saved["num_hidden_layers"] = 56;
  CHECK(gpuplan::model_from_hf_config(saved.dump(), "config.json").num_hidden_layers == 56);
  auto constant = read_fixture("hf-s63-longcat-flash-chat.json");
  constant["zero_expert_type"] = "constant";
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(constant.dump(), "config.json"), Contains("zero_expert_type"));
}
