// config.json import on helper s50's findings: exclusion lists naming single projections (F1),
// MiniCPM3 without v_head_dim (F2), nonsense read silently (badinput W7) and Idefics3's
// pixel-shuffle connector (F3). Fixture sources: tests/fixtures/hf-s50-sources.md.
#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/weight_format.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;
using gpuplan::WeightPart;

namespace {

gpuplan::ModelSpec read_s50(const std::string& text) { return gpuplan::model_from_hf_config(text, "config.json"); }

// Qwen3-4B's sizes (36 layers, tied embedding) with `extra` fields appended.
std::string qwen3_4b_s50(const std::string& extra) {
  return R"({"model_type": "qwen3", "hidden_size": 2560, "intermediate_size": 9728, "num_hidden_layers": 36,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
      "max_position_embeddings": 40960, "tie_word_embeddings": true, "torch_dtype": "bfloat16")" +
         extra + "}";
}

// Llama 3.1 8B's config.json, with `extra` fields appended (a duplicate key replaces nothing: the
// parser refuses it, so callers add only keys not below).
std::string llama31_8b_s50(const std::string& extra, const std::string& rope = R"({"factor": 8.0,
      "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"})") {
  return R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "rope_scaling": )" +
         rope + extra + "}";
}

std::string format_of_s50(const gpuplan::ModelSpec& m, WeightPart p) { return gpuplan::to_string((*m.shipped_formats)[p]); }

}  // namespace

TEST_CASE("hf import s50: an exclusion naming one projection of a part is refused not widened or dropped", "[hf]") {
  // bitsandbytes' "mlp.down_proj" had left the whole dense MLP bf16 (6.69 GB for 4.11, +63 %).
  CHECK_THROWS_WITH(read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "bitsandbytes",
      "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "llm_int8_skip_modules": ["lm_head", "mlp.down_proj"]})")),
                    Contains("config.json: /quantization_config/llm_int8_skip_modules: \"mlp.down_proj\" names single "
                             "projections of the dense_mlp"));
  // AWQ's bare "down_proj" and compressed-tensors' "re:.*down_proj" matched no part and were
  // dropped: the MLP counted int4 whole (2.67 GB for 3.99, -33 %).
  CHECK_THROWS_WITH(read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "awq", "bits": 4,
      "group_size": 128, "zero_point": true, "modules_to_not_convert": ["down_proj"]})")),
                    Contains("/quantization_config/modules_to_not_convert: \"down_proj\" names single projections"));
  CHECK_THROWS_WITH(read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
      "strategy": "group", "group_size": 128}}}, "ignore": ["lm_head", "re:.*down_proj"]})")),
                    Contains("/quantization_config/ignore: \"re:.*down_proj\" names single projections"));
  // Every layer's q_proj alone (fbgemm FP8): k, v and o ship FP8, so attention is not 16-bit whole.
  std::string q_only = R"(, "quantization_config": {"quant_method": "fbgemm_fp8", "modules_to_not_convert": ["lm_head")";
  std::string qkvo = q_only;
  for (int layer = 0; layer < 36; ++layer) {
    const std::string at = "\"model.layers." + std::to_string(layer) + ".self_attn.";
    q_only += ", " + at + "q_proj\"";
    qkvo += ", " + at + "q_proj\", " + at + "k_proj\", " + at + "v_proj\", " + at + "o_proj\"";
  }
  CHECK_THROWS_WITH(read_s50(qwen3_4b_s50(q_only + "]}")),
                    Contains("\"model.layers.0.self_attn.q_proj\" names single projections of the attention"));
  // All four of every layer are the whole attention.
  const auto whole = read_s50(qwen3_4b_s50(qkvo + "]}"));
  CHECK(format_of_s50(whole, WeightPart::attention) == "bf16");
  CHECK(format_of_s50(whole, WeightPart::dense_mlp) != "bf16");
  // So are gate, up and down named bare (AWQ matches names by substring).
  const auto mlp = read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "awq", "bits": 4,
      "group_size": 128, "modules_to_not_convert": ["gate_proj", "up_proj", "down_proj"]})"));
  CHECK(format_of_s50(mlp, WeightPart::dense_mlp) == "bf16");
  CHECK(format_of_s50(mlp, WeightPart::attention) != "bf16");
  // A few layers' single projections stay the bounded note they were.
  const auto few = read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "awq", "bits": 4,
      "group_size": 128, "modules_to_not_convert": ["model.layers.0.mlp.down_proj"]})"));
  CHECK(format_of_s50(few, WeightPart::dense_mlp) != "bf16");
  CHECK_THAT(few.shipped_source, Contains("dense_mlp in 1 of 36 layers"));
}

TEST_CASE("hf import s50: an exclusion naming no counted part is said not dropped", "[hf]") {
  const auto m = read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "awq", "bits": 4,
      "group_size": 128, "modules_to_not_convert": ["lm_head", "speculator.head"]})"));
  CHECK_THAT(m.shipped_source, Contains("1 module name it leaves 16-bit matches no part gpuplan counts "
                                        "(speculator.head)"));
  // Norms, biases and MTP modules are not parts on purpose: no note.
  const auto quiet = read_s50(qwen3_4b_s50(R"(, "quantization_config": {"quant_method": "fp8",
      "modules_to_not_convert": ["model.layers.0.input_layernorm", "mtp.fc", "model.layers.1.mlp.gate.e_score_correction_bias"]})"));
  CHECK(quiet.shipped_source.find("no part") == std::string::npos);
}

TEST_CASE("hf import s50: MiniCPM3 without v_head_dim takes its configuration class default", "[hf]") {
  // It had been refused "/v_head_dim: missing required field".
  const auto m = gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-minicpm3-4b.json"));
  REQUIRE(m.mla);
  CHECK(m.mla->v_head_dim == 64);
  CHECK_THAT(m.assumed_defaults, Contains("v_head_dim"));
  // Hand count with v_head_dim 64 (helper s50): 4.074 B.
  CHECK(gpuplan::count_params(m).total() == Approx(4.074e9).epsilon(0.002));
  // Where the two classes' defaults differ, the file must say.
  CHECK_THROWS_WITH(read_s50(R"({"model_type": "minicpm3", "hidden_size": 2560, "intermediate_size": 6400,
      "num_hidden_layers": 62, "num_attention_heads": 40, "vocab_size": 73448, "max_position_embeddings": 32768,
      "qk_nope_head_dim": 96, "qk_rope_head_dim": 32, "q_lora_rank": 768, "kv_lora_rank": 256})"),
                    Contains("/v_head_dim: missing, and MiniCPM3's two configuration classes default it differently"));
}

TEST_CASE("hf import s50: nonsense sizes in config.json are refused by their field", "[hf]") {
  // "text_config": {} had dropped the top level's sizes (6.74 B for 8.03 B).
  CHECK_THROWS_WITH(read_s50(llama31_8b_s50(R"(, "text_config": {})")),
                    Contains("config.json: /text_config: an empty object: the language model's sizes are at the top level"));
  // head_dim 65,536 had read as 694 B parameters.
  CHECK_THROWS_WITH(read_s50(llama31_8b_s50(R"(, "head_dim": 65536)")),
                    Contains("/head_dim: 65536 x 32 heads is 2097152 wide, over 4 x hidden_size 4096"));
  CHECK_NOTHROW(read_s50(llama31_8b_s50(R"(, "head_dim": 128)")));
  // One position had given "context 1 tokens", FITS.
  CHECK_THROWS_WITH(read_s50(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
      "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 128256, "max_position_embeddings": 1})"),
                    Contains("/max_position_embeddings: 1 positions: fewer than 64"));
}

TEST_CASE("hf import s50: RoPE scaling follows transformers' validation", "[hf]") {
  const auto rope = [](const std::string& scaling) { return read_s50(llama31_8b_s50("", scaling)); };
  const std::string llama3_tail = R"("low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192, "rope_type": "llama3"})";
  // Llama 3's factor was never read: -8, 0 and 1e300 were accepted.
  CHECK_THROWS_WITH(rope(R"({"factor": -8, )" + llama3_tail), Contains("/rope_scaling/factor"));
  CHECK_THROWS_WITH(rope(R"({"factor": 0, )" + llama3_tail), Contains("/rope_scaling/factor"));
  CHECK_THROWS_WITH(rope(R"({"factor": 1e300, )" + llama3_tail), Contains("/rope_scaling/factor"));
  CHECK_THROWS_WITH(rope(R"({"factor": null, )" + llama3_tail), Contains("/rope_scaling/factor: missing"));
  CHECK(rope(R"({"factor": 8.0, )" + llama3_tail).max_position_embeddings == 131072);
  // transformers raises KeyError for llama3 without its original length; no figure depends on it
  // and trimmed files leave it out: said.
  CHECK_THAT(rope(R"({"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_type": "llama3"})")
                 .assumed_defaults,
             Contains("llama3 lacks original_max_position_embeddings"));
  // An unknown type: neither transformers nor vLLM builds it.
  CHECK_THROWS_WITH(rope(R"({"factor": 8.0, "rope_type": "nosuch"})"),
                    Contains("/rope_scaling/rope_type: unknown RoPE type \"nosuch\""));
  // Below 1 transformers warns: a note, no longer context.
  const auto shrunk = rope(R"({"factor": 0.5, "rope_type": "linear"})");
  CHECK(shrunk.max_position_embeddings == 131072);
  CHECK_THAT(shrunk.assumed_defaults, Contains("factor 0.5 is below 1"));
  // YaRN without its original length scales max_position_embeddings, as transformers does, said.
  const auto yarn = rope(R"({"factor": 4.0, "rope_type": "yarn"})");
  CHECK(yarn.max_position_embeddings == 4 * 131072ull);
  CHECK_THAT(yarn.assumed_defaults, Contains("yarn has no original_max_position_embeddings"));
  const auto far = rope(R"({"factor": 4.0, "rope_type": "yarn", "original_max_position_embeddings": 1000000000})");
  CHECK_THAT(far.assumed_defaults, Contains("is above max_position_embeddings"));
}

TEST_CASE("hf import s50: experts on a Llama config are ignored as transformers ignores them", "[hf]") {
  // Read as a 47.49 B MoE; LlamaForCausalLM builds the dense 8.03 B.
  const auto m = read_s50(llama31_8b_s50(R"(, "num_local_experts": 8, "num_experts_per_tok": 2)"));
  CHECK_FALSE(m.moe);
  CHECK(gpuplan::count_params(m).total() == Approx(8.03e9).epsilon(0.001));
  CHECK_THAT(m.assumed_defaults, Contains("num_experts_per_tok 2, num_local_experts 8 are ignored"));
}

TEST_CASE("hf import s50: compressed-tensors KV schemes and empty targets are refused", "[hf]") {
  const auto ct = [](const std::string& targets, const std::string& kv) {
    return read_s50(llama31_8b_s50(R"(, "quantization_config": {"quant_method": "compressed-tensors", )" + kv +
                                   R"("config_groups": {"g": {"targets": )" + targets +
                                   R"(, "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}}})"));
  };
  CHECK_THROWS_WITH(ct("[]", ""), Contains("/quantization_config/config_groups/g/targets: empty"));
  CHECK_THROWS_WITH(ct(R"(["Linear"])", R"("kv_cache_scheme": {"num_bits": 3, "type": "float"}, )"),
                    Contains("/quantization_config/kv_cache_scheme/num_bits: a 3-bit KV cache is not modeled"));
  CHECK_THROWS_WITH(ct(R"(["Linear"])", R"("kv_cache_scheme": {"num_bits": 8, "type": "fp"}, )"),
                    Contains("/kv_cache_scheme/type: expected \"float\" or \"int\""));
  const auto fp8 = ct(R"(["Linear"])", R"("kv_cache_scheme": {"num_bits": 8, "type": "float"}, )");
  REQUIRE(fp8.checkpoint_kv_dtype);
  CHECK(*fp8.checkpoint_kv_dtype == gpuplan::DType::fp8);
}

TEST_CASE("hf import s50: Idefics3's connector takes scale_factor squared patches", "[hf]") {
  // SmolVLM-256M: 768 x 4^2 -> 576, 7,077,888 parameters; it had been sized 768 -> 576.
  const auto m = gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-smolvlm-256m-instruct.json"));
  REQUIRE(m.vision);
  CHECK(m.vision->shuffle == 4);
  const auto params = gpuplan::count_params(m);
  // Hand count 256,484,928; gpuplan's SigLIP tower leaves its patch bias and post-norm out (2,304).
  CHECK(params.total() == Approx(256'484'928.0).epsilon(2e-5));
  CHECK(params.vision == Approx(86'433'024.0 + 7'077'888.0).epsilon(5e-5));
}
