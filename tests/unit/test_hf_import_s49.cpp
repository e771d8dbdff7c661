// config.json import on helper s49's findings: Python's NaN and Infinity literals, transformers
// 5.x's num_local_experts for Qwen MoE classes, old Falcon's RefinedWeb types, the saved
// _name_or_path as a launch path, and messages that named the wrong field. Fixture sources:
// tests/fixtures/hf-s49-sources.md.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

gpuplan::ModelSpec read_s49(const std::string& text) { return gpuplan::model_from_hf_config(text, "config.json"); }

gpuplan::ModelSpec file_s49(const char* name) {
  return gpuplan::model_from_hf_config_file(gpuplan::test::fixture(name));
}

// Qwen3-8B's sizes with the given fields as written (a Python literal or JSON); Qwen3-8B's value
// is added for each size they do not name (a duplicate key is refused).
std::string qwen3_8b_with(const std::string& field) {
  std::string out = "{" + field;
  const auto field_key = [&field](const std::string& key) { return field.find("\"" + key + "\"") != std::string::npos; };
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"model_type", "\"qwen3\""},
                                   {"hidden_size", "4096"}, {"intermediate_size", "12288"},
                                   {"num_hidden_layers", "36"}, {"num_attention_heads", "32"}, {"head_dim", "128"},
                                   {"vocab_size", "151936"}, {"max_position_embeddings", "40960"},
                                   {"tie_word_embeddings", "false"}}) {
    if (!field_key(key)) {
      out += ", \"" + key + "\": " + value;
    }
  }
  return out + "}";
}

}  // namespace

TEST_CASE("hf import s49: a NaN or Infinity in a field gpuplan reads is refused by its pointer", "[hf]") {
  // Read as null they took the field's "absent" meaning: KV x4 for num_key_value_heads, an extra
  // LM head for tie_word_embeddings, no sliding layers for sliding_window.
  CHECK_THROWS_WITH(read_s49(qwen3_8b_with(R"("num_key_value_heads": NaN)")),
                    Contains("config.json: /num_key_value_heads: Python's NaN literal is not a value"));
  CHECK_THROWS_WITH(read_s49(qwen3_8b_with(R"("num_key_value_heads": 8, "tie_word_embeddings": Infinity)")),
                    Contains("/tie_word_embeddings: Python's Infinity literal"));
  CHECK_THROWS_WITH(read_s49(qwen3_8b_with(R"("num_key_value_heads": 8, "head_dim": -Infinity)")),
                    Contains("/head_dim: Python's -Infinity literal"));
  // A required one names the field, not "missing required field".
  CHECK_THROWS_WITH(read_s49(qwen3_8b_with(R"("num_key_value_heads": 8, "intermediate_size": NaN)")),
                    Contains("/intermediate_size: Python's NaN literal"));
  // Nested in text_config, the pointer says so.
  CHECK_THROWS_WITH(read_s49(R"({"model_type": "llava", "text_config": {"model_type": "llama", "hidden_size": 64,
      "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": NaN,
      "vocab_size": 100, "max_position_embeddings": 64}})"),
                    Contains("/text_config/num_key_value_heads: Python's NaN literal"));
  // From files, as helper s49's bad/45 and bad/51 were.
  CHECK_THROWS_WITH(file_s49("bad-hf-nan-kv-heads.json"), Contains("bad-hf-nan-kv-heads.json: /num_key_value_heads: "
                                                                   "Python's NaN literal"));
  CHECK_THROWS_WITH(file_s49("bad-hf-infinity-sliding-window.json"),
                    Contains("/sliding_window: Python's Infinity literal"));
}

TEST_CASE("hf import s49: MLA and MoE fields given NaN are refused by their own name", "[hf]") {
  // DeepSeek-V2-Lite's layout: kv_lora_rank NaN had blamed v_head_dim, n_shared_experts NaN had
  // dropped the shared experts (15.26 B for 15.71 B) and q_lora_rank NaN made q_proj full-rank.
  const std::string lite_head = R"({"model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
      "moe_intermediate_size": 1408, "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
      "vocab_size": 102400, "max_position_embeddings": 163840, "n_routed_experts": 64, "num_experts_per_tok": 6,
      "first_k_dense_replace": 1, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, )";
  CHECK_THROWS_WITH(read_s49(lite_head + R"("n_shared_experts": 2, "q_lora_rank": null, "kv_lora_rank": NaN})"),
                    Contains("/kv_lora_rank: Python's NaN literal"));
  CHECK_THROWS_WITH(read_s49(lite_head + R"("n_shared_experts": NaN, "q_lora_rank": null, "kv_lora_rank": 512})"),
                    Contains("/n_shared_experts: Python's NaN literal"));
  CHECK_THROWS_WITH(read_s49(lite_head + R"("n_shared_experts": 2, "q_lora_rank": NaN, "kv_lora_rank": 512})"),
                    Contains("/q_lora_rank: Python's NaN literal"));
  // A literal null keeps transformers' meaning: no query LoRA.
  const auto lite = read_s49(lite_head + R"("n_shared_experts": 2, "q_lora_rank": null, "kv_lora_rank": 512})");
  REQUIRE(lite.mla);
  CHECK(lite.mla->q_lora_rank == 0);
}

TEST_CASE("hf import s49: null keeps its meaning and NaN outside read fields is left alone", "[hf]") {
  const auto gqa = read_s49(qwen3_8b_with(R"("num_key_value_heads": 8)"));
  // Literal null: the class's meaning (num_key_value_heads None is multi-head attention).
  const auto mha = read_s49(qwen3_8b_with(R"("num_key_value_heads": null)"));
  CHECK(mha.num_key_value_heads == 32);
  CHECK(gpuplan::kv_bytes_per_token(mha, gpuplan::DType::bf16) == Approx(4.0 * 147456));
  CHECK(gpuplan::kv_bytes_per_token(gqa, gpuplan::DType::bf16) == Approx(147456.0));
  // A field gpuplan does not read (Mamba-style time_step_limit, a training coefficient) and the
  // words inside a string pass as they are.
  const auto extra = read_s49(qwen3_8b_with(R"("num_key_value_heads": 8, "router_aux_loss_coef": NaN,
      "time_step_limit": [0.0, Infinity], "comment": "NaN and -Infinity in a string")"));
  CHECK(gpuplan::count_params(extra).total() == Approx(gpuplan::count_params(gqa).total()));
  CHECK(gpuplan::kv_bytes_per_token(extra, gpuplan::DType::bf16) == Approx(147456.0));
}

TEST_CASE("hf import s49: Qwen3-MoE saved by transformers 5.7 counts its experts as num_local_experts", "[hf]") {
  // Had been refused: "/num_experts: missing ... 128 for model_type "qwen3_moe"".
  const auto m = file_s49("hf-qwen3-30b-a3b-thinking-2507-fp8-tf57.json");
  REQUIRE(m.moe);
  CHECK(m.moe->routed_experts == 128);
  const auto p = gpuplan::count_params(m);
  // The tensor table of the FP8 checkpoint: 30,532,122,624 weights (scale elements aside).
  CHECK(p.total() == Approx(30532122624.0).epsilon(0.0025));
  CHECK(p.active() == Approx(3.35e9).epsilon(0.01));
  // The written count wins over the class default (128) that fills num_experts when absent.
  const auto small = read_s49(R"({"model_type": "qwen3_moe", "hidden_size": 512, "intermediate_size": 1024,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 128,
      "vocab_size": 1000, "max_position_embeddings": 4096, "tie_word_embeddings": false, "num_local_experts": 16,
      "num_experts_per_tok": 2, "moe_intermediate_size": 256, "decoder_sparse_step": 1, "mlp_only_layers": []})");
  REQUIRE(small.moe);
  CHECK(small.moe->routed_experts == 16);
  // Qwen2-MoE's class maps it the same way.
  const auto qwen2 = read_s49(R"({"model_type": "qwen2_moe", "hidden_size": 512, "intermediate_size": 1024,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 1000,
      "max_position_embeddings": 4096, "tie_word_embeddings": false, "num_local_experts": 8,
      "num_experts_per_tok": 2, "moe_intermediate_size": 256, "shared_expert_intermediate_size": 512,
      "decoder_sparse_step": 1})");
  REQUIRE(qwen2.moe);
  CHECK(qwen2.moe->routed_experts == 8);
}

TEST_CASE("hf import s49: Falcon's RefinedWebModel and RefinedWeb types are read as falcon", "[hf]") {
  // Had been refused for max_position_embeddings; with fields added by hand, 11.16 B and 71x the KV.
  const auto rw = file_s49("hf-falcon-7b-refinedwebmodel.json");
  const auto falcon = gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf/falcon-7b/config.json"));
  CHECK(rw.model_type == "falcon");
  CHECK(gpuplan::count_params(rw).total() == Approx(gpuplan::count_params(falcon).total()));
  CHECK(gpuplan::count_params(rw).total() == Approx(6.92e9).epsilon(0.002));
  CHECK(gpuplan::kv_bytes_per_token(rw, gpuplan::DType::bf16) == Approx(8192.0));  // multi-query: one KV head
  CHECK_THAT(rw.layout_from_architecture, Contains("RefinedWebModel"));
  // Falcon-40B's first config: RefinedWeb, n_head_kv 8, the new decoder architecture (hidden 8192).
  const auto rw40 = read_s49(R"({"model_type": "RefinedWeb", "architectures": ["RWForCausalLM"], "alibi": false,
      "bias": false, "hidden_size": 8192, "n_head": 128, "n_head_kv": 8, "n_layer": 60, "parallel_attn": true,
      "vocab_size": 65024, "torch_dtype": "bfloat16"})");
  const auto f40 = gpuplan::model_from_hf_config_file(gpuplan::test::fixture("hf/falcon-40b/config.json"));
  CHECK(gpuplan::count_params(rw40).total() == Approx(gpuplan::count_params(f40).total()));
  CHECK(gpuplan::kv_bytes_per_token(rw40, gpuplan::DType::bf16) ==
        Approx(gpuplan::kv_bytes_per_token(f40, gpuplan::DType::bf16)));
}

TEST_CASE("hf import s49: a saved _name_or_path an engine cannot load is not the launch path", "[hf]") {
  // TheBloke's AWQ upload names the quantizer's build folder.
  const auto awq = file_s49("hf-dir-zephyr-7b-alpha-awq");
  CHECK(awq.hf_repo == gpuplan::test::fixture("hf-dir-zephyr-7b-alpha-awq"));
  CHECK(awq.id == "hf-dir-zephyr-7b-alpha-awq");
  CHECK_THAT(awq.assumed_defaults, Contains("/workspace/process/huggingfaceh4_zephyr-7b-alpha/source") &&
                                      Contains("local path"));
  // A GPTQ checkpoint saved with its base model's hub id.
  const auto gptq = file_s49("hf-dir-mistral-7b-instruct-v0.2-gptq/config.json");
  CHECK(gptq.hf_repo == gpuplan::test::fixture("hf-dir-mistral-7b-instruct-v0.2-gptq"));
  CHECK_THAT(gptq.assumed_defaults, Contains("mistralai/Mistral-7B-Instruct-v0.2") && Contains("base model"));
  // A hub id is never the launch name either (helper s51 F3: a training run's name); the note
  // keeps it, marked as from config.
  const std::string sizes = R"("model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 64)";
  const std::string fp8 = R"("quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic",
      "weight_block_size": [128, 128]})";
  const auto named_fp8 = read_s49("{" + sizes + R"(, "_name_or_path": "Qwen/Qwen3-8B-FP8", )" + fp8 + "}");
  CHECK(named_fp8.hf_repo.empty());
  CHECK_THAT(named_fp8.assumed_defaults, Contains("\"Qwen/Qwen3-8B-FP8\" (from config)"));
  const auto base_fp8 = read_s49("{" + sizes + R"(, "_name_or_path": "Qwen/Qwen3-8B", )" + fp8 + "}");
  CHECK(base_fp8.hf_repo.empty());  // model_from_hf_config_file gives it the directory
  CHECK(base_fp8.id == "config.json");
  CHECK(read_s49("{" + sizes + R"(, "_name_or_path": "meta-llama/Llama-3.1-8B"})").hf_repo.empty());
  // Relative paths are paths.
  for (const char* saved : {"./merged", "../out/final", "out/run-3/checkpoint", "C:\\\\models\\\\x"}) {
    CAPTURE(saved);
    CHECK_FALSE(read_s49("{" + sizes + R"(, "_name_or_path": ")" + saved + "\"}").assumed_defaults.empty());
  }
}

TEST_CASE("hf import s49: messages name the field at fault", "[hf]") {
  // gpt-oss with no experts: num_local_experts, not experts_per_token (helper s48 F5, s49 F5).
  const std::string oss = R"({"model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880,
      "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
      "vocab_size": 201088, "max_position_embeddings": 131072, "experts_per_token": 4, "num_experts_per_tok": 4,
      "tie_word_embeddings": false, )";
  CHECK_THROWS_WITH(read_s49(oss + R"("num_local_experts": 0})"),
                    Contains("/num_local_experts: 0 experts, while experts_per_token is 4"));
  CHECK_THROWS_WITH(read_s49(oss + R"("num_local_experts": -Infinity})"),
                    Contains("/num_local_experts: Python's -Infinity literal"));
  // Gemma 4's "vision" is a value of its class: the file is read (its global heads and K-as-V
  // layers are modeled since session 59; test_hf_gemma4.cpp checks the count).
  CHECK_NOTHROW(file_s49("hf-gemma-4-31b-it.json"));
  const std::string gemma3 = R"({"model_type": "gemma3_text", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
      "vocab_size": 100, "max_position_embeddings": 64, "sliding_window": 16, )";
  CHECK_NOTHROW(read_s49(gemma3 + R"("use_bidirectional_attention": "vision"})"));
  CHECK_THROWS_WITH(read_s49(gemma3 + R"("use_bidirectional_attention": "all"})"), Contains("embedding encoder"));
  CHECK_THROWS_WITH(read_s49(gemma3 + R"("use_bidirectional_attention": "sideways"})"),
                    Contains("/use_bidirectional_attention: value not understood"));
}
