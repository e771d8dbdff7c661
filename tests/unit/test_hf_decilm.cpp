// Helper s60 decilm: Nemotron-NAS (DeciLMForCausalLM, model_type "nemotron-nas") block_configs
// read layer by layer: per-layer KV heads (num_attention_heads / n_heads_in_group), MLP widths from
// ffn_mult, no_op blocks and replace_with_linear blocks. The semantics are vLLM's
// vllm/model_executor/models/nemotron_nas.py @00bd1493 and TensorRT-LLM's
// tensorrt_llm/_torch/models/modeling_nemotron_nas.py @0193dbd4. Fixtures and their sources:
// tests/fixtures/hf-s60-sources.md.
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

std::string decilm_error_of(const nlohmann::json& config) {
  try {
    (void)gpuplan::model_from_hf_config(config.dump(), "config.json");
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

nlohmann::json decilm_fixture(const char* name) {
  std::ifstream in(fixture(name));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

std::uint64_t decilm_attention_layers(const gpuplan::ModelSpec& m) {
  std::uint64_t n = 0;
  for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
    n += m.holds_token_kv(i) ? 1u : 0u;
  }
  return n;
}

}  // namespace

TEST_CASE("decilm: Llama-3.3-Nemotron-Super-49B read block by block", "[hf][s60][decilm]") {
  // Refused before (/block_configs not read); read as a plain Llama 3.3 70B it would be 70.6 B.
  // By hand (/work/helpers/s60/decilm/src/count.py): 49 attention blocks of 64 query and 8 KV
  // heads, 80 MLPs of widths int(2 x ffn_mult x 8192 / 3) rounded up to 256, embedding and head
  // 2 x 128256 x 8192, one norm a block present: 49,867,145,216 (model card: 49.9 B).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s60-nemotron-super-49b.json"));
  CHECK(m.num_key_value_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(decilm_attention_layers(m) == 49);
  CHECK_FALSE(m.has_mixer(6));  // block 6: attention no_op
  CHECK(m.has_mlp(6));
  REQUIRE(m.layer_intermediate_size.size() == 80);
  CHECK(m.layer_intermediate_size[0] == 14336);   // ffn_mult 2.625
  CHECK(m.layer_intermediate_size[1] == 28672);   // 5.25
  CHECK(m.layer_intermediate_size[11] == 17920);  // 3.28125
  CHECK(m.intermediate_size == 28672);            // the widest
  CHECK(gpuplan::count_params(m).total() == Approx(49'867'145'216.0).epsilon(1e-9));
  // 49 layers x 8 KV heads x 128 x (K + V) x 2 bytes; as a Llama 70B it had been 80 layers' worth.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(49.0 * 8 * 128 * 2 * 2));
  CHECK_FALSE(gpuplan::layout_problem(gpuplan::Layout{.tp = 8}, m));
}

TEST_CASE("decilm: Llama-3.1-Nemotron-Ultra-253B's empty layers and wide MLPs", "[hf][s60][decilm]") {
  // 162 blocks: 64 with attention (128 heads, 8 KV), 81 MLPs from 0.4875 x (5,376 wide: 5,324.8
  // rounded up) to 39 x (425,984); many blocks have neither. By hand: 253,401,268,224 (model
  // card: 253 B); KV 64 x 8 x 128 x 4 bytes a token.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s60-nemotron-ultra-253b.json"));
  CHECK(decilm_attention_layers(m) == 64);
  CHECK(m.layer_intermediate_size[0] == 5376);
  CHECK(m.intermediate_size == 425984);
  CHECK_FALSE(m.has_mixer(9));
  CHECK_FALSE(m.has_mlp(9));
  CHECK(gpuplan::count_params(m).total() == Approx(253'401'268'224.0).epsilon(1e-9));
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(64.0 * 8 * 128 * 4));
}

TEST_CASE("decilm: replace_with_linear blocks are one hidden x hidden matrix with no KV", "[hf][s60][decilm]") {
  auto config = decilm_fixture("hf-s60-nemotron-super-49b.json");
  const auto base = gpuplan::model_from_hf_config(config.dump(), "config.json");
  const double h = 8192;
  // Block 0's attention (q, o 8192 x 8192, k, v 8192 x 1024) becomes one 8192 x 8192 linear; its
  // norm stays (TensorRT-LLM's LinearAttention keeps input_layernorm).
  config["block_configs"][0]["attention"] = {{"no_op", false}, {"replace_with_linear", true}, {"n_heads_in_group", nullptr}};
  const auto linear = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(gpuplan::count_params(base).total() - gpuplan::count_params(linear).total() ==
        Approx(2 * h * h + 2 * h * 1024 - h * h));
  CHECK(decilm_attention_layers(linear) == 48);
  CHECK(gpuplan::kv_bytes_per_token(linear, gpuplan::DType::bf16) == Approx(48.0 * 8 * 128 * 4));
  // Block 6's no_op attention becomes a linear: one matrix and its norm more.
  config["block_configs"][6]["attention"]["no_op"] = false;
  config["block_configs"][6]["attention"]["replace_with_linear"] = true;
  const auto six = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(gpuplan::count_params(six).total() - gpuplan::count_params(linear).total() == Approx(h * h + h));
  // An MLP replaced by a linear: its 3 x 8192 x 28672 become 8192 x 8192.
  config["block_configs"][1]["ffn"]["replace_with_linear"] = true;
  const auto mlp = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(gpuplan::count_params(six).total() - gpuplan::count_params(mlp).total() == Approx(3 * h * 28672 - h * h));
  // A no_op MLP takes its norm with it.
  config["block_configs"][1]["ffn"]["no_op"] = true;
  const auto gone = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(gpuplan::count_params(mlp).total() - gpuplan::count_params(gone).total() == Approx(h * h + h));
}

TEST_CASE("decilm: per-layer KV heads decide the TP layouts", "[hf][s60][decilm]") {
  auto config = decilm_fixture("hf-s60-nemotron-super-49b.json");
  // 48 heads: groups of 8 give 6 KV heads, one block's group of 16 gives 3. TP 2 divides 6 but
  // neither divides 3 nor is a multiple of it (vLLM's rule), so that one layer rules TP 2 out.
  config["num_attention_heads"] = 48;
  config["hidden_size"] = 6144;
  config["block_configs"][2]["attention"]["n_heads_in_group"] = 16;
  const auto m = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(m.num_key_value_heads == 3);
  CHECK(m.kv_heads_of_layer(0) == 6);
  CHECK(m.kv_heads_of_layer(2) == 3);
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx((48.0 * 6 + 3) * 128 * 4));
  const auto problem = gpuplan::layout_problem(gpuplan::Layout{.tp = 2}, m);
  REQUIRE(problem);
  CHECK_THAT(*problem, Contains("2 neither divides nor is a multiple of the 3 KV heads"));
  CHECK_FALSE(gpuplan::layout_problem(gpuplan::Layout{.tp = 3}, m));
  // One block of a single KV head (group 48) beside 6 elsewhere: the fewest (1) split any TP, but
  // TP 4 neither divides 6 nor is a multiple of it, on every other attention layer.
  config["block_configs"][2]["attention"]["n_heads_in_group"] = 48;
  const auto one = gpuplan::model_from_hf_config(config.dump(), "config.json");
  CHECK(one.num_key_value_heads == 1);
  const auto four = gpuplan::layout_problem(gpuplan::Layout{.tp = 4}, one);
  REQUIRE(four);
  CHECK_THAT(*four, Contains("4 neither divides nor is a multiple of the 6 KV heads of layer 0"));
  CHECK_FALSE(gpuplan::layout_problem(gpuplan::Layout{.tp = 6}, one));
}

TEST_CASE("decilm: broken block_configs are refused naming the field", "[hf][s60][decilm]") {
  const auto base = decilm_fixture("hf-s60-nemotron-super-49b.json");
  auto config = base;
  config["block_configs"].erase(79);
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs: 79 blocks for num_hidden_layers 80"));

  config = base;
  config["block_configs"][0]["attention"]["n_heads_in_group"] = nullptr;
  CHECK_THAT(decilm_error_of(config),
             Contains("/block_configs/0/attention/n_heads_in_group: null where a value is required"));
  config["block_configs"][0]["attention"].erase("n_heads_in_group");
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/0/attention/n_heads_in_group: missing"));

  config = base;
  config["block_configs"][1]["ffn"]["ffn_mult"] = 0;
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/1/ffn/ffn_mult"));
  config["block_configs"][1]["ffn"]["ffn_mult"] = -2.5;
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/1/ffn/ffn_mult"));
  config["block_configs"][1]["ffn"]["ffn_mult"] = nullptr;
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/1/ffn/ffn_mult: null where a value is required"));

  config = base;
  config["block_configs"][3]["attention"]["n_heads_in_group"] = 3;
  CHECK_THAT(decilm_error_of(config),
             Contains("/block_configs/3/attention/n_heads_in_group: 3 does not divide num_attention_heads 64"));
  config["block_configs"][3]["attention"]["n_heads_in_group"] = 128;
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/3/attention/n_heads_in_group"));

  config = base;
  config["block_configs"][4]["attention"]["window_length"] = 4096;
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/4/attention/window_length"));

  config = base;
  config["block_configs"][5].erase("ffn");
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs/5/ffn: missing"));

  config = base;
  config.erase("block_configs");
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs: missing"));

  // Another model_type's block_configs stay refused: nothing there says how to read them.
  config = base;
  config["model_type"] = "llama";
  config["intermediate_size"] = 28672;
  config["num_key_value_heads"] = 8;
  CHECK_THAT(decilm_error_of(config), Contains("/block_configs: this shape field of model_type \"llama\" is not read"));
}
