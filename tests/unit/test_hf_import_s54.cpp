// config.json import on helper s54's findings (/work/helpers/s54/configs/report.md, tasks F6,
// badinput F4): a text_config contradicting a complete top level refused, Laguna's per-layer query
// heads, StepFun's share_expert_dim, MiniMax-Text-01's lightning-attention layers, LFM2-MoE, the
// closest key named for a misspelled size, a malformed architectures noted. Fixtures: copies where
// tests/fixtures/hf/manifest.json says so (Laguna, Step-3.7-Flash, the Qwen3-14B variants);
// LFM2-8B-A1B and MiniMax-Text-01 are reconstructed.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

using gpuplan::test::fixture;

nlohmann::json json_of_s54(const std::string& name) {
  std::ifstream in(fixture(name.c_str()));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

gpuplan::ModelSpec read_s54(const nlohmann::json& config) {
  return gpuplan::model_from_hf_config(config.dump(), "config.json");
}

std::string error_of_s54(const nlohmann::json& config) {
  try {
    read_s54(config);
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

double total_s54(const gpuplan::ModelSpec& m) { return gpuplan::count_params(m).total(); }

}  // namespace

TEST_CASE("hf import s54: a text_config contradicting a complete top level is refused, naming both", "[hf]") {
  // Qwen3-14B's file with "text_config": {"hidden_size": 4096}: read as 12.05 B with 3.2x the KV
  // cache before (helper s54 configs F1).
  const std::string written = [] {
    try {
      gpuplan::model_from_hf_config_file(fixture("hf-qwen3-14b-contradictory-text-config.json"));
    } catch (const gpuplan::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  }();
  CHECK_THAT(written, Contains("/text_config/hidden_size: 4096 contradicts /hidden_size 5120"));
  // A nested block that agrees on what it writes but leaves the depth to Qwen3Config's default of
  // 32 layers contradicts the top level's 40 too.
  nlohmann::json agreeing = json_of_s54("hf-qwen3-14b-contradictory-text-config.json");
  agreeing["text_config"] = {{"hidden_size", 5120}};
  CHECK_THAT(error_of_s54(agreeing), Contains("/text_config: leaves out num_hidden_layers, so its class default") &&
                                         Contains("32, contradicts /num_hidden_layers 40"));
  // Written twice alike (Qwen2.5-VL's files do): the same model as without it.
  nlohmann::json twice = agreeing;
  twice["text_config"] = nlohmann::json::object();
  for (const char* key : {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                          "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings"}) {
    twice["text_config"][key] = twice[key];
  }
  nlohmann::json plain = twice;
  plain.erase("text_config");
  CHECK(total_s54(read_s54(twice)) == Approx(total_s54(read_s54(plain))));
  CHECK(total_s54(read_s54(plain)) == Approx(14.77e9).epsilon(0.01));  // Qwen3-14B card: 14.8 B
}

TEST_CASE("hf import s54: Laguna's per-layer query heads size q_proj and o_proj layer by layer", "[hf]") {
  // Laguna-S-2.1: 48 query heads on its 12 full-attention layers, 72 on its 36 sliding ones, 8 KV
  // heads of 128 everywhere. Refused before (helper s54 configs F2).
  const nlohmann::json file = json_of_s54("hf/laguna-s-2.1-fp8/config.json");
  const auto m = read_s54(file);
  nlohmann::json uniform = file;
  uniform.erase("num_attention_heads_per_layer");
  const auto u = read_s54(uniform);
  // 36 layers of 24 more heads of 128 in q_proj and o_proj (3072 wide).
  CHECK(total_s54(m) - total_s54(u) == Approx(36.0 * 2 * 3072 * 24 * 128));
  // The KV cache is the KV heads': 48 layers x 8 x 128 x K and V x 2 bytes.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(48 * 8 * 128 * 4.0));
  // Attention FLOPs per context token follow the mean head count, (12 x 48 + 36 x 72) / 48 = 66.
  CHECK(m.mean_attention_heads() == Approx(66.0));
  // TP must split every layer's heads: 8 divides 48 and 72, 16 does not divide 72.
  CHECK(m.tp_divisible_heads() == 24);
  CHECK_FALSE(gpuplan::layout_problem(gpuplan::Layout{.tp = 8}, m).has_value());
  CHECK(gpuplan::layout_problem(gpuplan::Layout{.tp = 16}, m).has_value());
  // A list of another length is refused, naming the key.
  nlohmann::json short_list = file;
  short_list["num_attention_heads_per_layer"].erase(std::size_t{0});
  CHECK_THAT(error_of_s54(short_list), Contains("/num_attention_heads_per_layer: expected a list of 48"));
  // A per-layer KV-head list stays refused: it changes the KV cache.
  nlohmann::json kv_list = file;
  kv_list["num_key_value_heads_per_layer"] = nlohmann::json::array();
  CHECK_THAT(error_of_s54(kv_list), Contains("/num_key_value_heads_per_layer"));
}

TEST_CASE("hf import s54: StepFun's share_expert_dim is the shared expert's width", "[hf]") {
  // Step-3.7-Flash: one share_expert MLP of share_expert_dim on each of its 42 MoE layers (vLLM
  // step3_text.py, SGLang step3p7). Refused before (helper s54 configs F3).
  const nlohmann::json file = json_of_s54("hf/step-3.7-flash/config.json");
  const auto m = read_s54(file);
  REQUIRE(m.moe);
  CHECK(m.moe->shared_experts == 1);
  CHECK(m.moe->shared_expert_intermediate == 1280);
  CHECK(gpuplan::count_params(m).shared_experts == Approx(42.0 * 3 * 4096 * 1280));
  // Its own width, not moe_intermediate_size's.
  nlohmann::json wider = file;
  wider["share_expert_dim"] = 2560;
  CHECK(gpuplan::count_params(read_s54(wider)).shared_experts == Approx(42.0 * 3 * 4096 * 2560));
}

TEST_CASE("hf import s54: MiniMax-Text-01's lightning-attention layers keep a fixed state", "[hf][hybrid]") {
  // attn_type_list: 70 lightning (0) and 10 softmax (1) layers (vLLM minimax_text_01.py). Refused
  // before (helper s54 configs F4).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf/minimax-text-01/config.json"));
  REQUIRE(m.linear_attention);
  CHECK(m.linear_attention->kind == gpuplan::LinearAttentionSpec::Kind::lightning);
  // KV on the 10 softmax layers only; 64 heads x 128 x 128 of state on each of the 70 others.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(10 * 2 * 8 * 128 * 2.0));
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(70 * 64 * 128 * 128 * 2.0));
  // A lightning layer: qkv_proj (3 x 8192 from 6144), output_gate, out_proj and an 8192-wide norm;
  // a softmax layer: q and o of 8192, k and v of 1024.
  const double lightning = 3.0 * 8192 * 6144 + 8192.0 * 6144 + 6144.0 * 8192 + 8192;
  const double softmax = 2.0 * 8192 * 6144 + 2.0 * 1024 * 6144;
  CHECK(gpuplan::count_params(m).attention == Approx(70 * lightning + 10 * softmax));
  // The card: 456B total, 45.9B activated per token (without the embedding and the LM head).
  const auto p = gpuplan::count_params(m);
  CHECK(p.total() == Approx(456e9).epsilon(0.01));
  CHECK(p.active() - p.embedding - p.lm_head == Approx(45.9e9).epsilon(0.01));
  // A list of another length is refused.
  nlohmann::json bad = json_of_s54("hf/minimax-text-01/config.json");
  bad["attn_type_list"].erase(std::size_t{0});
  CHECK_THAT(error_of_s54(bad), Contains("/attn_type_list: expected a list of 80 entries"));
}

TEST_CASE("hf import s54: LFM2-MoE is LFM2's hybrid with routed experts", "[hf][hybrid]") {
  // LFM2.5-8B-A1B (transformers modeling_lfm2_moe.py): 6 attention and 18 short-convolution
  // layers, a dense MLP of 7168 on the first 2, 32 experts of 1792 (4 a token) on the 22 others,
  // tied embeddings. The tensor list of its safetensors header (code index id 56276023557) gives:
  const double hidden = 2048;
  const double attention = 2 * hidden * hidden + 2 * 512 * hidden + 2 * 64;
  const double conv = 3 * hidden * hidden + hidden * hidden + 3 * hidden;
  const double experts = 22 * 32 * 3 * 1792 * hidden;
  const double total = 128000 * hidden + 6 * attention + 18 * conv + 2 * 3 * 7168 * hidden + experts +
                       22 * 32 * hidden + (2 * 24 + 1) * hidden;
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf/lfm2-8b-a1b/config.json"));
  const auto p = gpuplan::count_params(m);
  CHECK(p.total() == Approx(total).epsilon(1e-9));
  CHECK(p.active() == Approx(total - experts * 28.0 / 32.0).epsilon(1e-9));
  CHECK(p.total() == Approx(16.9e9 / 2).epsilon(0.01));  // ~16.9 GB of bf16 safetensors
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(6 * 2 * 8 * 64 * 2.0));
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(18 * 2 * 2048 * 2.0));
  CHECK_FALSE(m.layout_unchecked);
}

TEST_CASE("hf import s54: a missing size key names the misspelled one the file has", "[hf]") {
  const std::string typo = [] {
    try {
      gpuplan::model_from_hf_config_file(fixture("hf-qwen3-14b-typo-num-hiden-layers.json"));
    } catch (const gpuplan::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  }();
  CHECK_THAT(typo, Contains("/num_hidden_layers: missing") &&
                       Contains("the file has \"num_hiden_layers\": a misspelling of num_hidden_layers?"));
  nlohmann::json file = json_of_s54("hf-qwen3-14b-architectures-string.json");
  file["architectures"] = nlohmann::json::array({"Qwen3ForCausalLM"});
  file.erase("vocab_size");
  file["vocab_szie"] = 151936;
  CHECK_THAT(error_of_s54(file), Contains("\"vocab_szie\": a misspelling of vocab_size?"));
  // No look-alike: no hint.
  file.erase("vocab_szie");
  CHECK_THAT(error_of_s54(file), !Contains("misspelling"));
}

TEST_CASE("hf import s54: an architectures that is no list of class names is noted", "[hf]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-qwen3-14b-architectures-string.json"));
  CHECK_THAT(m.assumed_defaults, Contains("architectures is the string \"Qwen3ForCausalLM\", not a list"));
  nlohmann::json nested = json_of_s54("hf-qwen3-14b-architectures-string.json");
  nested["architectures"] = nlohmann::json::parse("[[1]]");
  CHECK_THAT(read_s54(nested).assumed_defaults, Contains("architectures is the list [[1]]"));
  nested["architectures"] = nlohmann::json::array({"Qwen3ForCausalLM"});
  CHECK_THAT(read_s54(nested).assumed_defaults, !Contains("architectures"));
}
