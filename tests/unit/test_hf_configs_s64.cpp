// Helper s64 configs findings: Hunyuan-Large's cross-layer attention (use_cla, cla_share_factor)
// had been refused (F1). Fixtures: tests/fixtures/hf-s64-sources.md.
#include <catch2/catch.hpp>

#include <algorithm>
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

nlohmann::json s64_fixture_json(const char* name) {
  std::ifstream in(fixture(name));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

gpuplan::ModelSpec s64_model(const nlohmann::json& config) {
  return gpuplan::model_from_hf_config(config.dump(), "config.json");
}

}  // namespace

TEST_CASE("s64: Hunyuan-Large's CLA follower layers have no K and V projections but keep a cache slot",
          "[hf][s64]") {
  const auto cla_json = s64_fixture_json("hf-s64-hunyuan-a50b-pretrain.json");
  REQUIRE(cla_json.at("use_cla").get<bool>());
  auto plain_json = cla_json;
  plain_json["use_cla"] = false;
  const auto cla = s64_model(cla_json);
  const auto plain = s64_model(plain_json);
  // cla_share_factor 2: layers 1, 3, ..., 63 take layer i-1's K and V (HunYuanModel.forward keeps
  // prev_kv_states when layer_idx % cla_share_factor == 0).
  REQUIRE(cla.layer_borrows_kv.size() == 64);
  CHECK_FALSE(cla.layer_borrows_kv[0]);
  CHECK(cla.layer_borrows_kv[1]);
  CHECK_FALSE(cla.layer_borrows_kv[62]);
  CHECK(cla.layer_borrows_kv[63]);
  // head_dim 6400 / 80 = 80, 8 KV heads: each follower lacks k_proj and v_proj of 6400 x 640.
  const double kv_projections = 32.0 * 2 * 6400 * 640;
  CHECK(gpuplan::count_params(plain).attention - gpuplan::count_params(cla).attention == Approx(kv_projections));
  // Total 389 B by the model card (tencent/Tencent-Hunyuan-Large: 389 B total, 52 B active).
  CHECK(gpuplan::count_params(cla).total() == Approx(389e9).epsilon(0.005));
  // vLLM and SGLang cache the shared K and V in every layer's own slot: 64 x 8 x 80 x 2 x 2 bytes.
  CHECK(gpuplan::kv_bytes_per_token(cla, gpuplan::DType::bf16) == Approx(64.0 * 8 * 80 * 2 * 2));
  CHECK(gpuplan::kv_bytes_per_token(cla, gpuplan::DType::bf16) ==
        Approx(gpuplan::kv_bytes_per_token(plain, gpuplan::DType::bf16)));
}

TEST_CASE("s64: use_cla with cla_share_factor 1, 3, 0 or a string", "[hf][s64]") {
  auto j = s64_fixture_json("hf-s64-hunyuan-a50b-pretrain.json");
  j["cla_share_factor"] = 1;
  CHECK(s64_model(j).layer_borrows_kv.empty());
  j.erase("cla_share_factor");  // HunYuanConfig's default is 1
  CHECK(s64_model(j).layer_borrows_kv.empty());
  j["cla_share_factor"] = 3;
  const auto three = s64_model(j);
  REQUIRE(three.layer_borrows_kv.size() == 64);
  CHECK(std::count(three.layer_borrows_kv.begin(), three.layer_borrows_kv.end(), true) == 64 - 22);
  j["cla_share_factor"] = 0;
  CHECK_THROWS_WITH(s64_model(j), Contains("cla_share_factor"));
  j["cla_share_factor"] = "2";
  CHECK_THROWS_WITH(s64_model(j), Contains("cla_share_factor"));
}

TEST_CASE("s64: Qwen2-VL's vision_config without its sizes is read with Qwen2VLVisionConfig's defaults",
          "[hf][s64]") {
  // Qwen/Qwen2-VL-7B-Instruct-AWQ's vision_config: in_chans, model_type, spatial_patch_size only.
  const auto j = s64_fixture_json("hf-s64-qwen2-vl-7b-instruct-awq.json");
  const auto p = gpuplan::count_params(s64_model(j));
  // By hand (modeling_qwen2_vl.py): patch_embed Conv3d 3 x 2 x 14 x 14 x 1280 = 1,505,280; 32
  // blocks of 19,677,440 (two LayerNorms, qkv 1280 -> 3840, proj, fc1 1280 -> 5120, fc2, all
  // biased); merger LayerNorm + 5120 -> 5120 + 5120 -> 3584 = 44,576,256.
  CHECK(p.vision == Approx(675'759'616.0).epsilon(0.01));
  // Qwen2-VL-7B-Instruct: 8.29 B (text 7,615,616,512 + tower).
  CHECK(p.total() == Approx(8.29e9).epsilon(0.005));
  // The same as with the defaults written out (Qwen/Qwen2-VL-7B-Instruct's own vision_config).
  auto written = j;
  written["vision_config"] = {{"depth", 32},      {"embed_dim", 1280},          {"mlp_ratio", 4},
                              {"num_heads", 16},  {"in_chans", 3},              {"hidden_size", 3584},
                              {"patch_size", 14}, {"spatial_merge_size", 2},    {"spatial_patch_size", 14},
                              {"temporal_patch_size", 2}, {"model_type", "qwen2_vl"}};
  CHECK(gpuplan::count_params(s64_model(written)).vision == Approx(p.vision));
  // A tower written smaller is read as written.
  written["vision_config"]["depth"] = 16;
  CHECK(gpuplan::count_params(s64_model(written)).vision < p.vision * 0.6);
}

TEST_CASE("s64: a vision_config without any size is said to be left out", "[hf][s64]") {
  auto j = s64_fixture_json("hf-s64-qwen2-vl-7b-instruct-awq.json");
  // A wrapper and tower of types gpuplan has no class defaults for, the tower's sizes left out.
  j["model_type"] = "foo_vl";
  j["vision_config"] = {{"in_chans", 3}, {"model_type", "foo_vision"}};
  const auto m = s64_model(j);
  CHECK_FALSE(m.vision.has_value());
  CHECK_THAT(m.assumed_defaults, Contains("the vision encoder is not counted"));
}
