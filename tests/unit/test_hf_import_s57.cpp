// Helper s57 configs / configs2 findings: compressed-tensors names matched against each part's
// module names (Qwen3.6-27B W4A16's ignore list, GLM-5.3's two-part int8 target), GLM-5.2/5.3's
// IndexShare ("shared" indexer layers), expert counts spelled twice, and the messages and notes
// of smaller findings. Fixtures: tests/fixtures/hf-s57-sources.md.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/weight_format.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

using gpuplan::test::fixture;

std::string error_of_s57(const std::string& path) {
  try {
    (void)gpuplan::model_from_hf_config_file(path);
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

nlohmann::json json_of_s57(const char* name) {
  std::ifstream in(fixture(name));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

double weight_bytes_s57(const gpuplan::ModelSpec& m) {
  double bytes = 0;
  for (const double part : gpuplan::weight_bytes_by_part(m, *m.shipped_formats)) {
    bytes += part;
  }
  return bytes;
}

gpuplan::DType attention_element(const gpuplan::ModelSpec& m) {
  return (*m.shipped_formats)[gpuplan::WeightPart::attention].element;
}

}  // namespace

TEST_CASE("s57: Qwen3.6-27B W4A16's ignore list of linear_attn containers and in_proj_a/b leaves attention int4",
          "[hf][s57]") {
  // fantasylord/Qwen36: targets ["Linear"] int4 g128 asym; ignore lists, per linear-attention
  // layer, the linear_attn container, its norm, in_proj_a and in_proj_b. The checkpoint's index
  // holds packed int4 tensors for every linear_attn and self_attn projection.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s57-qwen3.6-27b-ct-w4a16.json"));
  CHECK(attention_element(m) == gpuplan::DType::int4);
  // 18.66 GB with attention int4 (the helper's --attention-dtype run); 29.38 GB had been printed.
  CHECK(weight_bytes_s57(m) / 1e9 == Approx(18.66).epsilon(0.02));

  // Each trigger alone had been enough: the containers without in_proj_a/b, and in_proj_a/b
  // without the containers.
  const nlohmann::json full = json_of_s57("hf-s57-qwen3.6-27b-ct-w4a16.json");
  for (const std::string dropped : {"in_proj_", "linear_attn"}) {
    nlohmann::json c = full;
    auto& ignore = c["quantization_config"]["ignore"];
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& name : ignore) {
      const std::string s = name.get<std::string>();
      const bool drop = dropped == "linear_attn" ? s.ends_with(".linear_attn") : s.find(dropped) != std::string::npos;
      if (!drop) {
        kept.push_back(name);
      }
    }
    ignore = kept;
    const auto v = gpuplan::model_from_hf_config(c.dump(), "variant.json");
    CHECK(attention_element(v) == gpuplan::DType::int4);
  }
}

TEST_CASE("s57: a hybrid's attention named 16-bit in its linear layers alone is decided per layer kind", "[hf][s57]") {
  // All 16 softmax layers' self_attn projections left bf16 while the 48 Gated DeltaNet layers stay
  // int4: the softmax layers are 16 of 64 (under half), the old whole-model count said quantized;
  // per kind the softmax kind is 16-bit but the linear kind, with more layers, decides: quantized,
  // and the note gives the named layers.
  nlohmann::json c = json_of_s57("hf-s57-qwen3.6-27b-ct-w4a16.json");
  auto& ignore = c["quantization_config"]["ignore"];
  const auto m0 = gpuplan::model_from_hf_config(c.dump(), "base.json");
  std::size_t softmax = 0;
  for (std::uint64_t layer = 0; layer < m0.num_hidden_layers; ++layer) {
    if (m0.is_linear_layer(layer)) {
      continue;
    }
    ++softmax;
    for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
      ignore.push_back("model.language_model.layers." + std::to_string(layer) + ".self_attn." + p);
    }
  }
  REQUIRE(softmax == 16);
  const auto m = gpuplan::model_from_hf_config(c.dump(), "softmax-bf16.json");
  CHECK(attention_element(m) == gpuplan::DType::int4);
  CHECK_THAT(m.shipped_source, Contains("attention in 16 of 64 layers"));
}

TEST_CASE("s57: a compressed-tensors regex target naming two parts formats both (GLM-5.3 int8 group)", "[hf][s57]") {
  // group_0: re:model\.layers\.(3-77)\.(self_attn.(MLA projections)|mlp.shared_experts.*) int8 g64;
  // read by its words it had formatted the shared experts only, attention bf16 (+92 %).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s57-glm-5.3-int4-int8mix.json"));
  CHECK(attention_element(m) == gpuplan::DType::int8);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::shared_experts].element == gpuplan::DType::int8);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::routed_experts].element == gpuplan::DType::int4);
  // Layers 0-2 are ignored (re:model\.layers\.[0-2]\..*): their attention is in the note, the
  // dense MLP (only in those layers) stays bf16, the indexer pattern names no part.
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::dense_mlp].element == gpuplan::DType::bf16);
  CHECK_THAT(m.shipped_source, Contains("attention in 3 of 78 layers"));

  // A W4A16 group whose one target alternates over attention and MLP projections covers both
  // (Qwen2-57B-A14B): 113.60 GB had been printed, 31.22 GB with ["Linear"].
  const auto q = gpuplan::model_from_hf_config_file(fixture("hf-s57-qwen57-ct-w4-regex-alt.json"));
  CHECK(attention_element(q) == gpuplan::DType::int4);
  CHECK((*q.shipped_formats)[gpuplan::WeightPart::routed_experts].element == gpuplan::DType::int4);
  CHECK(weight_bytes_s57(q) / 1e9 < 40.0);
}

TEST_CASE("s57: a target pattern std::regex cannot read is refused by name", "[hf][s57]") {
  nlohmann::json c = json_of_s57("hf-s57-qwen57-ct-w4-regex-alt.json");
  for (auto& [name, group] : c["quantization_config"]["config_groups"].items()) {
    group["targets"] = nlohmann::json::array({"re:.*(?<!shared_expert)\\.(gate|up|down)_proj$"});
  }
  try {
    (void)gpuplan::model_from_hf_config(c.dump(), "lookbehind.json");
    FAIL("accepted");
  } catch (const gpuplan::InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("targets") && Contains("not a regular expression gpuplan can read"));
  }
}

TEST_CASE("s57: GLM-5.3's indexer_types \"shared\" is read: the indexer counted on its 21 \"full\" layers",
          "[hf][s57]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s57-glm-5.3-int4-int8mix.json"));
  REQUIRE(m.mla);
  CHECK(m.mla->index_layers == 21);
  // KV per token: 78 latents of 576 bf16 values and the indexer's keys (128 fp8 + an fp32 scale)
  // on 21 layers: 78 x 1,152 + 21 x 132 = 92,628 B (100,152 when counted on all 78).
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(92'628.0));

  // The same schedule from index_topk_freq 4 and index_skip_topk_offset 3 when the list is absent
  // (SGLang's dsa_layer_skips_topk), and every layer without them.
  nlohmann::json c = json_of_s57("hf-s57-glm-5.2-fp8-trimmed.json");
  const auto all = gpuplan::model_from_hf_config(c.dump(), "glm-5.2.json");
  CHECK(all.mla->index_layers == 0);
  c["index_topk_freq"] = 4;
  c["index_skip_topk_offset"] = 3;
  const auto shared = gpuplan::model_from_hf_config(c.dump(), "glm-5.2-freq.json");
  CHECK(shared.mla->index_layers == 21);
  CHECK(gpuplan::count_params(shared).total() < gpuplan::count_params(all).total());

  // A list of only "shared" layers has no indexer to share.
  nlohmann::json g = json_of_s57("hf-s57-glm-5.3-int4-int8mix.json");
  for (auto& t : g["indexer_types"]) {
    t = "shared";
  }
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config(g.dump(), "glm.json"), Contains("/indexer_types") &&
                                                                            Contains("at least one must be \"full\""));
}

TEST_CASE("s57: two expert-count spellings that disagree are refused naming both", "[hf][s57]") {
  CHECK_THAT(error_of_s57(fixture("hf-s57-qwen57-two-expert-counts.json")),
             Contains("/n_routed_experts: 128, while num_experts is 64"));
  // Agreeing spellings (GLM-5.2-NVFP4 writes num_experts beside n_routed_experts) stay fine.
  nlohmann::json c = json_of_s57("hf-s57-qwen57-two-expert-counts.json");
  c["n_routed_experts"] = 64;
  CHECK(gpuplan::model_from_hf_config(c.dump(), "agree.json").moe->routed_experts == 64);
}

TEST_CASE("s57: messages name the key the file has and the entry at fault", "[hf][s57]") {
  // AFMoE writes num_dense_layers; it had been reported as /first_k_dense_replace.
  CHECK_THAT(error_of_s57(fixture("hf-s57-trinity-dense-layers-gt.json")),
             Contains("/num_dense_layers: 60 leaves no MoE layer of 56"));
  CHECK_THAT(error_of_s57(fixture("hf-s57-minimax-attn-type-2.json")),
             Contains("/attn_type_list/3: expected 0 (lightning attention) or 1 (softmax attention), got 2"));
  // Gemma 3's text_config without num_hidden_layers beside 62 layer_types: the count is at fault.
  CHECK_THAT(error_of_s57(fixture("hf-s57-gemma3-text-no-layers.json")),
             Contains("/text_config/num_hidden_layers: missing, while layer_types lists 62 layers"));
}

TEST_CASE("s57: original_max_position_embeddings is a context length, not an unread size", "[hf][s57]") {
  // Grok-2's top-level YaRN field had been the reason an unchecked model_type was refused.
  CHECK_THAT(error_of_s57(fixture("hf-s57-grok-2-shape.json")), !Contains("original_max_position_embeddings"));
}

TEST_CASE("s57: Qwen-VL's visual tower (width, layers, mlp_ratio) is sized", "[hf][s57]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-s57-qwen-vl-chat-int4.json"));
  REQUIRE(m.vision);
  CHECK(m.vision->hidden_size == 1664);
  CHECK(m.vision->layers == 48);
  CHECK(m.unsized_encoder_field.empty());
  // ViT-bigG: 48 x (4 x 1664^2 + 2 x 1664 x 8192) = 1.84 B in its blocks, 1.9 B in all.
  CHECK(gpuplan::count_params(m).vision / 1e9 == Approx(1.9).epsilon(0.06));
  // The checkpoint's index total_size is 9,731,786,240 B; 5.86 GB had been printed.
  CHECK(weight_bytes_s57(m) / 1e9 == Approx(9.73).epsilon(0.1));
}

TEST_CASE("s57: a safetensors index with total_size 0 is read as no total, with a note", "[hf][s57]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-dir-s57-qwen36-total-size-0"));
  CHECK_FALSE(m.checkpoint_bytes.has_value());
  CHECK_THAT(m.assumed_defaults, Contains("metadata.total_size is 0"));
}

TEST_CASE("s57: a model_type or architectures class near a known name gets the hint", "[hf][s57]") {
  nlohmann::json c = json_of_s57("hf-s57-qwen57-two-expert-counts.json");
  c.erase("n_routed_experts");
  c["architectures"] = nlohmann::json::array({"Qwen2MoeForCausalLMX"});
  const auto a = gpuplan::model_from_hf_config(c.dump(), "arch.json");
  CHECK_THAT(a.assumed_defaults, Contains("a misspelling of \"Qwen2MoeForCausalLM\"?"));
  c["architectures"] = nlohmann::json::array({"Qwen2MoeForCausalLM"});
  c["model_type"] = "qwen2_mo";
  const auto t = gpuplan::model_from_hf_config(c.dump(), "type.json");
  CHECK_THAT(t.assumed_defaults, Contains("a misspelling of \"qwen2_moe\"?"));
}
