// config.json files missing or renaming a field, from helper s48's drop-one-field probes and broken
// configs: each was read as another model (0, null or the dense width in place of the field) or
// refused naming the wrong key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

gpuplan::ModelSpec read_omitting(const std::string& text) { return gpuplan::model_from_hf_config(text, "config.json"); }

// moonshotai/Moonlight-16B-A3B-Instruct's sizes (15.96 B, MLA 31,104 bytes a token in bf16).
const std::string kMoonlight = R"("hidden_size": 2048, "intermediate_size": 11264, "moe_intermediate_size": 1408,
    "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16, "n_routed_experts": 64,
    "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1, "kv_lora_rank": 512,
    "q_lora_rank": null, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 163840,
    "max_position_embeddings": 8192, "tie_word_embeddings": false)";

// kMoonlight without `key` (and the value written after it).
std::string without(const std::string& key) {
  std::string text = kMoonlight;
  const std::size_t at = text.find("\"" + key + "\"");
  REQUIRE(at != std::string::npos);
  std::size_t end = text.find(',', at);
  end = end == std::string::npos ? text.size() : end + 1;
  text.erase(at, end - at);
  while (!text.empty() && (text.back() == ',' || text.back() == ' ' || text.back() == '\n')) {
    text.pop_back();
  }
  return text;
}

std::string config(const std::string& type, const std::string& fields) {
  return fmt::format(R"({{"model_type": "{}", {}}})", type, fields);
}

}  // namespace

TEST_CASE("hf import: Moonlight as written reads as 15.96 B with its MLA cache", "[hf]") {
  const auto m = read_omitting(config("deepseek_v3", kMoonlight));
  CHECK(gpuplan::count_params(m).total() == Approx(15.96e9).epsilon(0.001));
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(27.0 * 576 * 2));
}

// Before: moe_intermediate_size fell back to the 11,264-wide dense MLP (119.87 B), kv_lora_rank
// to plain attention (7.1x the KV), q_lora_rank to a full q_proj, first_k_dense_replace and
// n_shared_experts to 0; all silently.
TEST_CASE("hf import: a top-level DeepSeek-V3 file without an MLA or expert size is refused by it", "[hf]") {
  for (const char* key : {"moe_intermediate_size", "kv_lora_rank", "q_lora_rank", "first_k_dense_replace",
                          "n_shared_experts", "n_routed_experts", "qk_rope_head_dim"}) {
    INFO(key);
    for (const char* type : {"deepseek_v3", "kimi_k2"}) {
      CHECK_THROWS_WITH(read_omitting(config(type, without(key))),
                        Contains(fmt::format("config.json: /{}: missing", key)) &&
                            Contains(fmt::format("for model_type \"{}\"", type)));
    }
  }
  // The class default is named.
  CHECK_THROWS_WITH(read_omitting(config("deepseek_v3", without("moe_intermediate_size"))), Contains("2048"));
  CHECK_THROWS_WITH(read_omitting(config("deepseek_v3", without("kv_lora_rank"))), Contains("512"));
}

TEST_CASE("hf import: a nested DeepSeek-V3 config takes DeepseekV3Config's defaults", "[hf]") {
  // Under text_config transformers drops what equals the class default: moe_intermediate_size
  // 2048, kv_lora_rank 512, q_lora_rank 1536, 3 dense layers, 1 shared expert.
  std::string text = without("moe_intermediate_size");
  for (const char* key : {"kv_lora_rank", "q_lora_rank", "first_k_dense_replace", "n_shared_experts"}) {
    const std::string once = text;
    text = once.substr(0, once.find(fmt::format("\"{}\"", key))) +
           once.substr(once.find(',', once.find(fmt::format("\"{}\"", key))) + 1);
  }
  const auto m = read_omitting(R"({"model_type": "kimi_k25", "text_config": {"model_type": "deepseek_v3", )" + text + "}}");
  REQUIRE(m.moe);
  CHECK(m.moe->expert_intermediate == 2048);
  CHECK(m.moe->first_dense_layers == 3);
  CHECK(m.moe->shared_experts == 1);
  REQUIRE(m.mla);
  CHECK(m.mla->kv_lora_rank == 512);
  CHECK(m.mla->q_lora_rank == 1536);
}

TEST_CASE("hf import: MLA and DeepSeek-MoE types without a class table refuse an omitted size", "[hf]") {
  // DeepSeek-V3.2 and GLM-5 (glm_moe_dsa) have no table here: nested or not, the field is named.
  for (const char* type : {"deepseek_v32", "glm_moe_dsa"}) {
    INFO(type);
    for (const char* key : {"kv_lora_rank", "moe_intermediate_size", "first_k_dense_replace", "n_shared_experts"}) {
      INFO(key);
      CHECK_THROWS_WITH(read_omitting(config(type, without(key))), Contains(fmt::format("config.json: /{}: missing", key)));
      CHECK_THROWS_WITH(read_omitting(fmt::format(R"({{"model_type": "wrapper", "text_config": {}}})", config(type, without(key)))),
                        Contains(fmt::format("/text_config/{}: missing", key)));
    }
  }
  // Qwen3.5-MoE's experts are moe_intermediate_size wide, never intermediate_size.
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "qwen3_5_moe_text", "hidden_size": 2048, "intermediate_size": 6144,
      "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128,
      "num_experts": 64, "num_experts_per_tok": 8, "vocab_size": 32000, "max_position_embeddings": 4096})"),
                    Contains("/moe_intermediate_size: missing") && Contains("not the experts'"));
  // Mixtral's class has no such field: its experts are intermediate_size wide.
  const auto mixtral = read_omitting(R"({"model_type": "mixtral", "hidden_size": 1024, "intermediate_size": 3584,
      "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 4, "num_local_experts": 8,
      "num_experts_per_tok": 2, "vocab_size": 32000, "max_position_embeddings": 4096})");
  REQUIRE(mixtral.moe);
  CHECK(mixtral.moe->expert_intermediate == 3584);
}

TEST_CASE("hf import: a null kv_lora_rank is plain attention, a null q_lora_rank no query LoRA", "[hf]") {
  // DeepSeek-OCR's language model writes kv_lora_rank null and its head widths 0 (vLLM: not MLA).
  std::string plain = kMoonlight;
  plain.replace(plain.find(R"("kv_lora_rank": 512)"), 19, R"("kv_lora_rank": null)");
  const auto m = read_omitting(config("deepseek_v2", plain));
  CHECK_FALSE(m.mla);
  const auto lite = read_omitting(config("deepseek_v3", kMoonlight));
  REQUIRE(lite.mla);
  CHECK(lite.mla->q_lora_rank == 0);
}

// Phi-3.5-MoE without num_key_value_heads had been read as 32 KV heads (4x the cache); the class
// says 8.
TEST_CASE("hf import: a top-level Phi-MoE file without its KV heads is refused naming the default", "[hf]") {
  const std::string phimoe = R"("hidden_size": 4096, "intermediate_size": 6400, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_local_experts": 16, "num_experts_per_tok": 2, "vocab_size": 32064,
      "max_position_embeddings": 131072)";
  CHECK_THROWS_WITH(read_omitting(config("phimoe", phimoe)),
                    Contains("/num_key_value_heads: missing") && Contains("8 for model_type \"phimoe\""));
  const auto m = read_omitting(config("phimoe", phimoe + R"(, "num_key_value_heads": 8)"));
  CHECK(m.num_key_value_heads == 8);
}

// An expert count of 0, NaN or none had been blamed on num_experts_per_tok (or n_shared_experts)
// as "an expert count gpuplan does not read".
TEST_CASE("hf import: a missing or non-positive expert count is named, not the top-k", "[hf]") {
  const std::string moe = R"("hidden_size": 2048, "intermediate_size": 5632, "moe_intermediate_size": 1408,
      "shared_expert_intermediate_size": 5632, "num_hidden_layers": 4, "num_attention_heads": 16,
      "num_key_value_heads": 16, "num_experts_per_tok": 4, "vocab_size": 151936, "max_position_embeddings": 8192)";
  CHECK_THROWS_WITH(read_omitting(config("qwen2_moe", moe + R"(, "num_experts": 0)")),
                    Contains("config.json: /num_experts: 0 experts, while num_experts_per_tok is 4"));
  CHECK_THROWS_WITH(read_omitting(config("phimoe", moe + R"(, "num_local_experts": NaN)")),
                    Contains("config.json: /num_local_experts: Python's NaN literal"));
  CHECK_THROWS_WITH(read_omitting(config("phimoe", moe + R"(, "num_local_experts": null)")),
                    Contains("config.json: /num_local_experts: null, while"));
  CHECK_THROWS_WITH(read_omitting(config("granitemoe", moe)), Contains("config.json: /num_local_experts: missing"));
  CHECK_THROWS_WITH(read_omitting(config("hunyuan_v1_moe", moe)), Contains("config.json: /num_experts: missing"));
  // An unknown name for the count is still the one reported.
  CHECK_THROWS_WITH(read_omitting(config("somemoe", moe + R"(, "moe_num_primary_experts": 64)")),
                    Contains("/moe_num_primary_experts"));
}

// ChatGLM's fields had been reported under the names gpuplan reads them as.
TEST_CASE("hf import: a field read through its alias is reported under the file's key", "[hf]") {
  const auto chatglm = [](const std::string& changed) {
    std::string text = R"({"model_type": "chatglm", "hidden_size": 4096, "ffn_hidden_size": 13696,
        "num_layers": 28, "num_attention_heads": 32, "multi_query_attention": true, "multi_query_group_num": 2,
        "kv_channels": 128, "padded_vocab_size": 65024, "seq_length": 8192})";
    const std::string key = changed.substr(0, changed.find(':') + 1);
    const std::size_t at = text.find(key);
    text.replace(at, text.find_first_of(",}", at) - at, changed);
    return text;
  };
  REQUIRE_NOTHROW(read_omitting(chatglm(R"("num_layers": 28)")));
  CHECK_THROWS_WITH(read_omitting(chatglm(R"("multi_query_group_num": 64)")),
                    Contains("config.json: /multi_query_group_num: expected an integer between 1 and 32, got 64"));
  CHECK_THROWS_WITH(read_omitting(chatglm(R"("num_layers": "28")")), Contains("config.json: /num_layers: expected an integer"));
  CHECK_THROWS_WITH(read_omitting(chatglm(R"("padded_vocab_size": 0)")), Contains("config.json: /padded_vocab_size:"));
}

TEST_CASE("hf import: a multimodal wrapper without its text_config names text_config", "[hf]") {
  const std::string vision = R"("vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024,
      "intermediate_size": 4096, "num_hidden_layers": 24, "patch_size": 14, "image_size": 336})";
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "llava", )" + vision + "}"),
                    Contains("config.json: /text_config: missing: the text model's sizes are missing (model_type \"llava\""));
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "llava", "text_config": null, )" + vision + "}"),
                    Contains("config.json: /text_config: null"));
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "some_vlm", )" + vision + "}"), Contains("/text_config: missing"));
}

TEST_CASE("hf import: a number past a double's range names its field", "[hf]") {
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "llama", "hidden_size": 1e400})"),
                    Contains("config.json: /hidden_size: invalid JSON: number overflow parsing '1e400'"));
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "llava", "text_config": {"layer_types": ["a"], "rope": [1, 2, -1e999]}})"),
                    Contains("config.json: /text_config/rope/2: invalid JSON"));
  CHECK_THROWS_WITH(read_omitting(R"({"a": [{"b": 1}, [3], 1e999]})"), Contains("config.json: /a/2: invalid JSON"));
}

// Hunyuan's lists hold one entry a layer; 31 for 32 layers had been read as the first value.
TEST_CASE("hf import: a per-layer list of another length than the layers is refused", "[hf]") {
  const auto list = [](int n) {
    std::string out = "[8";
    for (int i = 1; i < n; ++i) {
      out += ", 8";
    }
    return out + "]";
  };
  const auto hunyuan = [&list](int n) {
    return read_omitting(R"({"model_type": "hunyuan_v1_moe", "hidden_size": 4096, "intermediate_size": 3072,
        "head_dim": 128, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
        "num_experts": 64, "moe_intermediate_size": 3072, "num_shared_expert": 1, "use_mixed_mlp_moe": true,
        "vocab_size": 128167, "max_position_embeddings": 32768, "moe_topk": )" + list(n) + "}");
  };
  CHECK(hunyuan(32).moe->experts_per_token == 8);
  CHECK_THROWS_WITH(hunyuan(31), Contains("config.json: /moe_topk: expected a list of 32 entries, one a layer, got 31"));
  CHECK_THROWS_WITH(hunyuan(1), Contains("/moe_topk: expected a list of 32 entries"));
}

// Qwen3-Next-80B-A3B-Instruct-FP8 leaves its linear-attention A_log, conv1d and dt_bias out of FP8
// in 36 of 48 layers; read as attention modules they had kept the whole attention part bf16,
// while its q/k/v/o and in_proj_qkvz ship FP8 (+1.53 GB).
TEST_CASE("hf import: non-matmul parameters left 16-bit keep their block's projections quantized", "[hf]") {
  std::string kept;
  for (int layer = 0; layer < 4; ++layer) {
    const std::string at = fmt::format("model.layers.{}.", layer);
    for (const char* name : {"input_layernorm", "post_attention_layernorm", "mlp.gate", "mlp.shared_expert_gate"}) {
      kept += fmt::format(R"("{}{}", )", at, name);
    }
    if (layer == 3) {
      kept += fmt::format(R"("{0}self_attn.q_norm", "{0}self_attn.k_norm", "{0}self_attn.o_proj.bias", )", at);
    } else {
      for (const char* name : {"A_log", "conv1d", "dt_bias", "in_proj_ba", "norm"}) {
        kept += fmt::format(R"("{}linear_attn.{}", )", at, name);
      }
    }
  }
  const auto m = read_omitting(R"({"model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120,
      "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
      "vocab_size": 151936, "max_position_embeddings": 262144, "num_experts": 512, "num_experts_per_tok": 10,
      "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "linear_conv_kernel_dim": 4,
      "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_num_key_heads": 16,
      "linear_num_value_heads": 32, "dtype": "bfloat16", "quantization_config": {"quant_method": "fp8",
      "activation_scheme": "dynamic", "weight_block_size": [128, 128], "modules_to_not_convert": [)" +
                      kept + R"("lm_head"]}})");
  REQUIRE(m.shipped_formats);
  const auto& f = *m.shipped_formats;
  CHECK(f[gpuplan::WeightPart::attention].element == gpuplan::DType::fp8);
  CHECK(f[gpuplan::WeightPart::routed_experts].element == gpuplan::DType::fp8);
  CHECK(f[gpuplan::WeightPart::shared_experts].element == gpuplan::DType::fp8);
  CHECK(f[gpuplan::WeightPart::router].element == gpuplan::DType::bf16);
  CHECK(f[gpuplan::WeightPart::lm_head].element == gpuplan::DType::bf16);
  // One projection named in every layer is not the whole part (k, v and o ship FP8): refused, as
  // counting attention 16-bit had been 12 % heavy on Qwen3-4B (helper s50 F1).
  CHECK_THROWS_WITH(read_omitting(R"({"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
      "num_hidden_layers": 2, "num_attention_heads": 16, "vocab_size": 32000, "max_position_embeddings": 4096,
      "quantization_config": {"quant_method": "fp8", "modules_to_not_convert": ["model.layers.0.self_attn.q_proj",
      "model.layers.1.self_attn.q_proj"]}})"),
                    Catch::Matchers::Contains("names single projections of the attention"));
}

// compressed-tensors' older exports keep the block under compression_config, which vLLM reads
// when quantization_config is absent; it had been ignored (bf16, 2.7x the bytes).
TEST_CASE("hf import: compressed-tensors under compression_config is read", "[hf]") {
  const auto m = gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf-qwen2.5-7b-w4a16-compression-config.json"));
  REQUIRE(m.shipped_formats);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::dense_mlp].element == gpuplan::DType::int4);
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::lm_head].element == gpuplan::DType::bf16);
  CHECK(m.shipped_source == "config.json compression_config (compressed-tensors)");
  // 5,545,257,984 bytes by hand: int4 in groups of 128 with bf16 scales, embedding and head bf16.
  double bytes = 0;
  for (const double part : gpuplan::weight_bytes_by_part(m, *m.shipped_formats)) {
    bytes += part;
  }
  CHECK(bytes == Approx(5545257984.0).epsilon(1e-4));
}

// AutoGPTQ's quantize_config.json beside a config.json without quantization_config had been
// ignored: the int4 checkpoint counted fp16 (15.23 GB for about 5.6).
TEST_CASE("hf import: an AutoGPTQ quantize_config.json beside config.json is read", "[hf]") {
  const std::filesystem::path dir = gpuplan::test::fixture("hf-dir-gptq-sidecar");
  const auto m = gpuplan::model_from_hf_config_file(dir);
  REQUIRE(m.shipped_formats);
  const auto& f = *m.shipped_formats;
  CHECK(f[gpuplan::WeightPart::attention].element == gpuplan::DType::int4);
  CHECK(f[gpuplan::WeightPart::attention].block == 128);
  CHECK(f[gpuplan::WeightPart::lm_head].element == gpuplan::DType::fp16);
  CHECK(m.shipped_source == "quantize_config.json beside config.json (gptq)");
  // The same through the config.json path; a file of another name is read alone.
  CHECK(gpuplan::model_from_hf_config_file(dir / "config.json").shipped_source == m.shipped_source);
}
