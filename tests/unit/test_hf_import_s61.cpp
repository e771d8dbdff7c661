// Helper s61 configs findings: omni models (Qwen2.5-Omni, Qwen3-Omni) read as the thinker vLLM
// serves, the talker and token2wav/code2wav left out (vLLM's thinker classes skip their weights).
// Fixtures: tests/fixtures/hf-s61-sources.md.
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

using gpuplan::test::fixture;

TEST_CASE("s61: Qwen3-Omni is read as its thinker", "[hf][s61]") {
  // Qwen/Qwen3-Omni-30B-A3B-Instruct (transformers 5.7 dump, code index id 62494955826). By hand
  // from the module tree printed beside it: text 48 x (attention 18.87 M + 128 experts x 3 x 2048 x
  // 768 = 603.98 M + router 0.26 M) + embedding and head 2 x 152064 x 2048 = 30.53 B; vision 27
  // blocks x 15.23 M + 4 patch mergers x 30.67 M + patch and position tables 4.4 M = 0.54 B; audio
  // 32 layers x 19.66 M + convolutions and projections 18 M = 0.65 B: 31.72 B. The talker (3 B)
  // and code2wav are not loaded by vLLM.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s61-qwen3-omni-30b-a3b-instruct.json"));
  REQUIRE(m.moe);
  CHECK(m.num_hidden_layers == 48);
  CHECK(m.hidden_size == 2048);
  CHECK(m.qk_norm);
  CHECK_FALSE(m.qkv_bias);
  REQUIRE(m.vision);
  REQUIRE(m.audio);
  CHECK(m.audio->hidden_size == 1280);
  CHECK(m.audio->layers == 32);
  CHECK(m.audio->output_size == 2048);
  CHECK(m.checkpoint_unloaded_parts == "talker and code2wav");
  const auto params = gpuplan::count_params(m);
  CHECK(params.total() == Approx(31.72e9).epsilon(0.01));
  CHECK(params.vision == Approx(0.54e9 + 0.65e9).epsilon(0.05));
  CHECK(params.shared_experts == Approx(0.0));  // shared_expert_intermediate_size 0: none
  // 48 layers x 4 KV heads x 128 x (K + V) x 2 bytes.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(48 * 4 * 128 * 4.0));
  CHECK_THAT(m.assumed_defaults, Contains("/thinker_config: an omni model") && Contains("talker and code2wav"));
}

TEST_CASE("s61: Qwen2.5-Omni is read as its thinker, Qwen2's layers with biases", "[hf][s61]") {
  // Qwen2.5-Omni-7B: Qwen2.5-7B's text model (7.62 B), Qwen2.5-VL's vision tower with its merger
  // (0.68 B) and a Whisper-style audio encoder (0.64 B): 8.93 B of the checkpoint's 10.7 B.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s61-qwen2.5-omni-7b.json"));
  CHECK(m.num_hidden_layers == 28);
  CHECK(m.qkv_bias);
  REQUIRE(m.vision);
  CHECK(m.vision->gated_mlp);
  REQUIRE(m.audio);
  CHECK(m.checkpoint_unloaded_parts == "talker and token2wav");
  const auto params = gpuplan::count_params(m);
  CHECK(params.total() == Approx(8.93e9).epsilon(0.01));
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(28 * 4 * 128 * 4.0));
}

TEST_CASE("s61: an omni model's directory: the index total, talker included, is not compared", "[hf][s61]") {
  // The files hold the talker and code2wav beside the thinker (35.3 B in all): compared, the
  // computed 63 GB would be refused as a part missing. Not compared, and said.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-dir-s61-qwen3-omni"));
  REQUIRE(m.checkpoint_bytes);
  CHECK(*m.checkpoint_bytes == Approx(70.52e9));
  gpuplan::FitRequest req{.context_tokens = 8192, .concurrency = 1};
  const auto res = gpuplan::fit(m, gpuplan::Catalog::builtin().gpu("h100-sxm"), req);
  std::string notes;
  for (const auto& n : res.notes) {
    notes += n + "\n";
  }
  CHECK_THAT(notes, Contains("also holds the talker and code2wav, which the engines do not load"));
  CHECK_THAT(notes, !Contains("off the checkpoint files' total"));
  CHECK_FALSE(res.checkpoint_bytes);  // no computed-vs-files row: the files hold more than is served
}

TEST_CASE("s61: omni thinker_config errors name the nested field", "[hf][s61]") {
  CHECK_THAT(gpuplan::test::hf_config_error(R"({"model_type": "qwen2_5_omni", "thinker_config": 3})"),
             Contains("/thinker_config: expected an object"));
  CHECK_THAT(gpuplan::test::hf_config_error(R"({"model_type": "qwen2_5_omni", "thinker_config": {"model_type":
      "qwen2_5_omni_thinker", "text_config": {"model_type": "qwen2_5_omni_text", "hidden_size": 3584,
      "num_hidden_layers": -1}}})"),
             Contains("/thinker_config/text_config/num_hidden_layers"));
}

TEST_CASE("s61: an exclusion naming the audio tower names a counted part", "[hf][s61]") {
  // Qwen2.5-Omni-7B-AWQ's form: the wrapper's quantization_config leaves the towers, the talker and
  // token2wav 16-bit. audio_tower had been said to "match no part gpuplan counts", though the audio
  // encoder is counted (with the vision tower); the talker and token2wav are not.
  std::ifstream in(fixture("hf-s61-qwen2.5-omni-7b.json"));
  std::stringstream text;
  text << in.rdbuf();
  auto config = nlohmann::json::parse(text.str());
  config["quantization_config"] = nlohmann::json::parse(R"({"bits": 4, "group_size": 128, "quant_method": "awq",
      "version": "gemm", "zero_point": true, "modules_to_not_convert": ["visual", "audio_tower", "talker", "token2wav"]})");
  const auto m = gpuplan::model_from_hf_config(config.dump(), "config.json");
  REQUIRE(m.shipped_formats);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::vision].element == gpuplan::DType::bf16);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::attention].element == gpuplan::DType::int4);
  CHECK_THAT(m.shipped_source, Contains("(talker, token2wav)"));
  CHECK_THAT(m.shipped_source, !Contains("audio_tower"));
}

TEST_CASE("s61: an omni thinker's text_config without model_type takes the thinker's text layout", "[hf][s61]") {
  // No model_type in text_config: the thinker's type tells it (Qwen2's q/k/v biases), as for the
  // other wrappers; an empty one is still refused, not read as class defaults.
  const auto m = gpuplan::model_from_hf_config(R"({"model_type": "qwen2_5_omni", "thinker_config": {"model_type":
      "qwen2_5_omni_thinker", "text_config": {"hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
      "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 32768,
      "tie_word_embeddings": false}}})", "config.json");
  CHECK(m.qkv_bias);
  CHECK(gpuplan::count_params(m).total() == Approx(7.62e9).epsilon(0.005));
  CHECK_THAT(gpuplan::test::hf_config_error(R"({"model_type": "qwen2_5_omni", "thinker_config": {"text_config": {}}})"),
             Contains("/thinker_config/text_config: an empty object"));
}
