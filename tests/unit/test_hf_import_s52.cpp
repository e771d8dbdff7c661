// config.json import on helper s52's findings (/work/helpers/s52/configs/report.md): CogVLM refused
// by its class, checkpoint files far above the computed weights refused, an absent
// tie_word_embeddings read as PretrainedConfig's true, hf_olmo refused, Aya Vision's pixel-shuffle
// projector, float shape fields, a nested text_config's defaults said, Qwen3's YaRN named.
// The configs are the helper's reconstructions (real/<name>/config.json), auto_map dropped.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

gpuplan::ModelSpec read_s52(const std::string& text) { return gpuplan::model_from_hf_config(text, "config.json"); }

double total_b_s52(const gpuplan::ModelSpec& m) { return gpuplan::count_params(m).total() / 1e9; }

const std::string kJaisS52 = R"({"activation_function": "swiglu", "architectures": ["JAISLMHeadModel"], "attn_pdrop": 0.0, "bos_token_id": 0, "embd_pdrop": 0.0, "embeddings_scale": 14.6, "eos_token_id": 0, "initializer_range": 0.01962, "layer_norm_epsilon": 1e-05, "model_type": "jais", "n_embd": 5120, "n_head": 40, "n_inner": 13653, "n_layer": 40, "n_positions": 2048, "pad_token_id": 0, "position_embedding_type": "alibi", "reorder_and_upcast_attn": false, "resid_pdrop": 0.0, "scale_attn_by_inverse_layer_idx": false, "scale_attn_weights": true, "scale_qk_dot_by_d": true, "torch_dtype": "float32", "transformers_version": "4.28.0", "use_cache": true, "vocab_size": 84992, "width_scale": 0.0625})";
const std::string kBtlmS52 = R"({"_name_or_path": "cerebras/btlm-3b-8k-base", "activation_function": "swiglu", "architectures": ["BTLMLMHeadModel"], "attn_pdrop": 0.0, "bos_token_id": 50256, "embd_pdrop": 0.0, "eos_token_id": 50256, "initializer_range": 0.073, "layer_norm_epsilon": 1e-05, "model_type": "btlm", "mup_embeddings_scale": 14.6, "mup_output_alpha": 2.22, "mup_scale_qk_dot_by_d": true, "mup_width_scale": 0.1, "n_embd": 2560, "n_head": 32, "n_inner": 6826, "n_layer": 32, "n_positions": 8192, "position_embedding_type": "alibi", "reorder_and_upcast_attn": false, "resid_pdrop": 0.0, "scale_attn_by_inverse_layer_idx": false, "scale_attn_weights": true, "torch_dtype": "bfloat16", "transformers_version": "4.30.0", "use_cache": true, "vocab_size": 50257})";
const std::string kCogVlm2S52 = R"({"_name_or_path": "cogvlm2-llama3-chat-19B", "architectures": ["CogVLMForCausalLM"], "vision_config": {"dropout_prob": 0.0, "hidden_act": "gelu", "in_channels": 3, "num_hidden_layers": 63, "hidden_size": 1792, "patch_size": 14, "num_heads": 16, "intermediate_size": 15360, "layer_norm_eps": 1e-06, "num_positions": 9217, "image_size": 1344}, "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "max_position_embeddings": 8192, "rms_norm_eps": 1e-05, "template_version": "chat", "initializer_range": 0.02, "bos_token_id": 128000, "eos_token_id": 128001, "pad_token_id": 128002, "vocab_size": 128256, "num_hidden_layers": 32, "hidden_act": "silu", "use_cache": true, "num_multi_query_heads": 8, "torch_dtype": "bfloat16", "transformers_version": "4.41.0"})";
const std::string kAyaVisionS52 = R"({"architectures": ["AyaVisionForConditionalGeneration"], "model_type": "aya_vision", "adapter_layer_norm_eps": 1e-05, "downsample_factor": 2, "image_token_index": 255036, "torch_dtype": "float16", "vision_feature_layer": -1, "vision_feature_select_strategy": "full", "text_config": {"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "head_dim": 128, "hidden_size": 4096, "intermediate_size": 14336, "layer_norm_eps": 1e-05, "logit_scale": 0.125, "max_position_embeddings": 16384, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rope_theta": 50000, "sliding_window": 4096, "sliding_window_pattern": 4, "use_embedding_sharing": true, "vocab_size": 256000, "torch_dtype": "float16"}, "vision_config": {"model_type": "siglip_vision_model", "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1152, "image_size": 364, "intermediate_size": 4304, "layer_norm_eps": 1e-06, "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}})";
const std::string kHfOlmoS52 = R"({"activation_type": "swiglu", "alibi": false, "alibi_bias_max": 8.0, "architectures": ["OLMoForCausalLM"], "attention_dropout": 0.0, "attention_layer_norm": false, "attention_layer_norm_with_affine": false, "bias_for_layer_norm": false, "block_group_size": 1, "block_type": "sequential", "clip_qkv": null, "d_model": 2048, "embedding_dropout": 0.0, "embedding_size": 50304, "eos_token_id": 50279, "flash_attention": true, "include_bias": false, "init_cutoff_factor": null, "init_device": "meta", "init_fn": "mitchell", "init_std": 0.02, "layer_norm_type": "default", "layer_norm_with_affine": false, "max_sequence_length": 2048, "mlp_hidden_size": null, "mlp_ratio": 8, "model_type": "hf_olmo", "multi_query_attention": false, "n_heads": 16, "n_layers": 16, "pad_token_id": 1, "precision": "amp_bf16", "residual_dropout": 0.0, "rope": true, "rope_full_precision": true, "scale_logits": false, "transformers_version": "4.36.2", "use_cache": true, "vocab_size": 50280, "weight_tying": true})";

std::string replaced_s52(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("hf import s52: CogVLM is refused by its architectures class", "[hf]") {
  // Read as a Llama it was 13.14 B (19.5 B), 4x its KV, and FITS on an A100-40GB.
  CHECK_THAT(gpuplan::test::hf_config_error(kCogVlm2S52), Contains("/architectures/0: CogVLMForCausalLM (model_type \"(none)\") is CogVLM"));
  CHECK_THAT(gpuplan::test::hf_config_error(replaced_s52(kCogVlm2S52, R"("hidden_size": 4096)", R"("model_type": "cogvlm", "hidden_size": 4096)")),
             Contains("/model_type: model_type \"cogvlm\" is CogVLM"));
}

TEST_CASE("hf import s52: checkpoint files far above the computed weights give no verdict", "[hf]") {
  auto m = read_s52(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
      "num_attention_heads": 32, "vocab_size": 32000, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})");
  const auto& a100 = gpuplan::Catalog::builtin().gpu("a100-sxm-40gb");
  m.checkpoint_bytes = 13'476'839'424.0 * 1.08;  // 7 % short: a note, as before
  CHECK(gpuplan::fit(m, a100, gpuplan::FitRequest{}).checkpoint_bytes);
  m.checkpoint_bytes = 13'476'839'424.0 * 1.5;  // a third missing: CogVLM2's -32.6 %
  try {
    (void)gpuplan::fit(m, a100, gpuplan::FitRequest{});
    FAIL("no refusal");
  } catch (const gpuplan::InputError& e) {
    CHECK_THAT(e.what(), Contains("are 33.3 % below the checkpoint files' total (20.22 GB, safetensors index)"));
  }
  // Above the index (an over-count) stays a note: the computed figure is the larger.
  m.checkpoint_bytes = 13'476'839'424.0 * 0.7;
  CHECK(gpuplan::fit(m, a100, gpuplan::FitRequest{}).checkpoint_bytes);
}

TEST_CASE("hf import s52: an absent tie_word_embeddings is PretrainedConfig's true", "[hf]") {
  // Hand counts with the head tied (helper s52 truth.py): 13.021 B and 2.646 B; untied 13.45 and 2.77.
  const auto jais = read_s52(kJaisS52);
  CHECK(jais.tie_word_embeddings);
  CHECK(total_b_s52(jais) == Approx(13.021).epsilon(0.002));
  CHECK_THAT(jais.assumed_defaults, Contains("leaves out tie_word_embeddings: PretrainedConfig's default, true"));
  const auto btlm = read_s52(kBtlmS52);
  CHECK(btlm.tie_word_embeddings);
  CHECK(total_b_s52(btlm) == Approx(2.646).epsilon(0.002));
  // Written false stays false, and no note.
  const auto untied = read_s52(replaced_s52(kBtlmS52, R"("vocab_size": 50257)", R"("vocab_size": 50257, "tie_word_embeddings": false)"));
  CHECK_FALSE(untied.tie_word_embeddings);
  CHECK(untied.assumed_defaults.find("tie_word_embeddings") == std::string::npos);
  // A checked type keeps its listed class default (LlamaConfig: false).
  const auto llama = read_s52(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 64})");
  CHECK_FALSE(llama.tie_word_embeddings);
}

TEST_CASE("hf import s52: the original hf_olmo format is refused by its model_type", "[hf]") {
  const std::string e = gpuplan::test::hf_config_error(kHfOlmoS52);
  CHECK_THAT(e, Contains("/model_type: \"hf_olmo\" is the original OLMo format"));
  CHECK_THAT(e, Contains("model_type \"olmo\""));
  CHECK(e.find("max_position_embeddings") == std::string::npos);
}

TEST_CASE("hf import s52: Aya Vision's projector takes 2 x 2 shuffled patches into a SwiGLU", "[hf]") {
  const auto plain = read_s52(kAyaVisionS52);
  REQUIRE(plain.vision);
  CHECK(plain.vision->shuffle == 2);
  // Without alignment_intermediate_size transformers takes the text model's 4096: LayerNorm(4608),
  // 4608 -> 4096 and 2048 -> 4096, biased, where one 1152 x 4096 matrix had been counted.
  const auto one_matrix = 1152.0 * 4096.0;
  const auto shuffled = 4608.0 * 4096.0 + 2048.0 * 4096.0 + 2.0 * 4608.0 + 4096.0 + 4096.0;
  // With the 28672 aya-vision-8b's card implies: 190.9 M, 8.632 B in all (helper s52 hand count).
  const auto wide = read_s52(replaced_s52(kAyaVisionS52, R"("downsample_factor": 2)",
                                          R"("downsample_factor": 2, "alignment_intermediate_size": 28672)"));
  CHECK(total_b_s52(wide) == Approx(8.6318).epsilon(0.0005));
  CHECK(total_b_s52(wide) - total_b_s52(plain) ==
        Approx((4608.0 * 28672.0 + 14336.0 * 4096.0 + 2.0 * 4608.0 + 28672.0 + 4096.0 - shuffled) / 1e9));
  CHECK(total_b_s52(plain) > 8.4457 + (shuffled - one_matrix) / 1e9 - 0.001);
}

TEST_CASE("hf import s52: float shape fields are refused and text_config defaults are said", "[hf]") {
  const std::string sizes = R"("model_type": "llama", "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 64)";
  CHECK_THAT(gpuplan::test::hf_config_error("{" + sizes + R"(, "hidden_size": 4096.0})"),
             Contains("/hidden_size: 4096.0 is a float: transformers builds the layers from an integer size"));
  CHECK(read_s52("{" + sizes + R"(, "hidden_size": 64})").hidden_size == 64);
  const auto llava = read_s52(R"({"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
      "text_config": {"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
        "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936, "max_position_embeddings": 32768}})");
  CHECK(llava.num_hidden_layers == 32);
  CHECK_THAT(llava.assumed_defaults, Contains("text_config leaves out num_hidden_layers 32: the class defaults of model_type \"qwen2\""));
}

TEST_CASE("hf import s52: a Qwen3 context above 40960 names YaRN", "[hf]") {
  const auto& catalog = gpuplan::Catalog::builtin();
  gpuplan::FitRequest r;
  r.context_tokens = 65'536;
  try {
    (void)gpuplan::fit(catalog.model("qwen3-32b"), catalog.gpu("h100-sxm"), r);
    FAIL("no refusal");
  } catch (const gpuplan::InputError& e) {
    CHECK_THAT(e.what(), Contains("exceeds the 40960 tokens of 'qwen3-32b'"));
    CHECK_THAT(e.what(), Contains("\"factor\": 4.0, \"original_max_position_embeddings\": 32768} (factor 4 gives 131,072)"));
  }
  // Above what YaRN reaches, nothing is suggested.
  r.context_tokens = 262'144;
  try {
    (void)gpuplan::fit(catalog.model("qwen3-32b"), catalog.gpu("h100-sxm"), r);
    FAIL("no refusal");
  } catch (const gpuplan::InputError& e) {
    CHECK(std::string(e.what()).find("YaRN") == std::string::npos);
  }
}
