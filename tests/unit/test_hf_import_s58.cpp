// Helper s58 configs / configs2 findings: Nemotron-3 Super's latent MoE, group-quantized
// checkpoints whose TP shares are not whole groups, a bitsandbytes int8 checkpoint saved in
// float32, a diffusion wrapper named only by "diffusion", and the hints of smaller findings.
// Fixtures: tests/fixtures/hf-s58-sources.md.
#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/layout.hpp>
#include <gpuplan/layout_search.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/model_spec.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

using gpuplan::test::fixture;

TEST_CASE("s58: Nemotron-3 Super's latent MoE is counted as its safetensors headers", "[hf][s58]") {
  // nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16: 123,611,012,096 BF16 weights in its headers, of
  // which 2,942,324,736 the MTP layer (not counted); 12,770,216,960 active (helper s58 configs2 F1).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-nemotron-3-super-120b-a12b.json"));
  REQUIRE(m.moe);
  CHECK(m.moe->latent_width == 1024);
  const auto p = gpuplan::count_params(m);
  CHECK(p.total() == Approx(123'611'012'096.0 - 2'942'324'736.0).epsilon(1e-4));
  CHECK(p.active() == Approx(12'770'216'960.0).epsilon(1e-4));
}

TEST_CASE("s58: a latent width without routed experts is refused by name", "[hf][s58]") {
  CHECK_THAT(gpuplan::test::hf_config_error(R"({"model_type": "nemotron_h", "hidden_size": 1024, "num_hidden_layers": 2,
      "vocab_size": 1000, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
      "intermediate_size": 4096, "max_position_embeddings": 4096, "hybrid_override_pattern": "M*",
      "mamba_num_heads": 16, "mamba_head_dim": 64, "n_groups": 1, "ssm_state_size": 128, "conv_kernel": 4,
      "moe_latent_size": 256})"),
             Contains("/moe_latent_size: a latent width for experts, but the file gives no routed experts"));
}

TEST_CASE("s58: a GPTQ group of 128 rules out the TP whose MLP share is 1,728 columns", "[hf][s58][layout_search]") {
  // rohit1253/llama_2_13_B_chat_GPTQ (group_size 128): intermediate 13,824 / 8 = 1,728, which vLLM
  // refuses at load ("The input size is not aligned with the quantized weight shape", #13980).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-llama-2-13b-chat-gptq.json"));
  REQUIRE(m.shipped_formats);
  const auto& formats = *m.shipped_formats;
  CHECK(gpuplan::tp_allowed(m, formats, 4));
  CHECK_FALSE(gpuplan::tp_allowed(m, formats, 8));
  CHECK(gpuplan::tp_allowed(m, 8));  // the heads alone allow it
  const auto problem = gpuplan::quantized_shard_problem(gpuplan::Layout{.tp = 8}, m, formats);
  REQUIRE(problem);
  CHECK_THAT(*problem, Contains("layout.tp: 8 splits the MLP's intermediate width of 13824 into 1728 per GPU"));
  CHECK_THAT(*problem, Contains("TP 1, 2, 4 keep whole groups"));
  // The same model served in 16 bits has no groups to keep whole.
  gpuplan::FitRequest bf16;
  bf16.context_tokens = 4096;
  bf16.weights_dtype = gpuplan::DType::bf16;
  bf16.layout.tp = 8;
  const auto& h100 = gpuplan::Catalog::builtin().gpu("h100-sxm");
  CHECK_NOTHROW(gpuplan::fit(m, h100, bf16));
  // As shipped, an explicit TP 8 says why it cannot start; the search on 8 GPUs skips it.
  gpuplan::FitRequest shipped;
  shipped.context_tokens = 4096;
  shipped.weight_formats = formats;
  shipped.layout.tp = 8;
  try {
    (void)gpuplan::fit(m, h100, shipped);
    FAIL("no refusal");
  } catch (const gpuplan::InputError& e) {
    CHECK_THAT(e.what(), Contains("not a whole number of the 128-wide groups"));
  }
  shipped.layout.tp = 1;
  const auto s = gpuplan::search_layouts(m, h100, shipped, {.gpus = 8});
  CHECK(s.chosen.request.layout.tp == 4);
  for (const auto& o : s.options) {
    CHECK(o.layout.tp != 8);
  }
}

TEST_CASE("s58: FP8 blocks of 128 rule out shares of attention's heads x head_dim that split a block",
          "[hf][s58][layout_search]") {
  // 20 heads of 128 at TP 4: 640 columns a GPU, 5 blocks; at TP 5 they would be 512 (whole), at
  // TP 10, 256; the MLP of 10,240 at TP 8: 1,280, whole. Heads 20 x 96 = 1,920 at TP 4: 480, not.
  auto m = gpuplan::model_from_hf_config(R"({"model_type": "llama", "hidden_size": 2560, "num_hidden_layers": 4,
      "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 96, "intermediate_size": 10240,
      "vocab_size": 32000, "max_position_embeddings": 4096, "torch_dtype": "bfloat16",
      "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128], "fmt": "e4m3",
                              "activation_scheme": "dynamic"}})",
                                         "config.json");
  REQUIRE(m.shipped_formats);
  const auto problem = gpuplan::quantized_shard_problem(gpuplan::Layout{.tp = 4}, m, *m.shipped_formats);
  REQUIRE(problem);
  CHECK_THAT(*problem, Contains("attention output's input (heads x head_dim) of 1920 into 480 per GPU"));
  CHECK_THAT(*problem, Contains("128-wide blocks"));
  CHECK_FALSE(gpuplan::quantized_shard_problem(gpuplan::Layout{.tp = 1}, m, *m.shipped_formats));
}

TEST_CASE("s58: a bitsandbytes int8 checkpoint saved in float32 is compared part by part", "[hf][s58]") {
  // IrfanUruchi/Llama-3.1-8B-Computer-Networks-LLM: int8 layers beside float32 embeddings and LM
  // head, index total_size 11,188,584,672; counted as a float32 file throughout it was refused as
  // 18.8 % below (helper s58 configs F2).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-llama-3.1-8b-bnb-int8-fp32"));
  REQUIRE(m.checkpoint_bytes);
  CHECK(m.stored_float32);
  const auto& h100 = gpuplan::Catalog::builtin().gpu("h100-sxm");
  gpuplan::FitRequest shipped;
  shipped.weight_formats = *m.shipped_formats;
  shipped.context_tokens = 4096;
  const auto r = gpuplan::fit(m, h100, shipped);
  CHECK(r.expected_checkpoint_bytes == Approx(11'188'584'672.0).epsilon(0.02));
  // The embeddings and LM head (2 x 128,256 x 4,096) are twice their served bytes, the int8 layers as served.
  CHECK(r.expected_checkpoint_bytes - r.model_weight_total_bytes() ==
        Approx(2.0 * 128'256.0 * 4096.0 * 2.0).epsilon(0.01));
}

TEST_CASE("s58: a class or model_type that says diffusion is refused as a diffusion model", "[hf][s58]") {
  // google/diffusiongemma-26B-A4B-it over a Gemma 4 text_config: the diffusion is the reason, not
  // the text tower's global head (helper s58 configs2 F2).
  const std::string e = gpuplan::test::hf_config_error(R"({"architectures": ["DiffusionGemmaForBlockDiffusion"],
      "model_type": "diffusion_gemma", "canvas_length": 256,
      "text_config": {"model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 2, "vocab_size": 1000,
        "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 4096,
        "max_position_embeddings": 4096}})");
  CHECK_THAT(e, Contains("is a diffusion language model"));
}

TEST_CASE("s58: a misspelled or foreign top-k name is named beside the missing field", "[hf][s58]") {
  const std::string base = R"("model_type": "qwen3_moe", "hidden_size": 1024, "num_hidden_layers": 2,
      "vocab_size": 1000, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
      "intermediate_size": 4096, "moe_intermediate_size": 512, "num_experts": 8,
      "max_position_embeddings": 4096)";
  CHECK_THAT(gpuplan::test::hf_config_error("{" + base + R"(, "num_expert_per_tok": 2})"),
             Contains("the file has \"num_expert_per_tok\": a misspelling of num_experts_per_tok?"));
  CHECK_THAT(gpuplan::test::hf_config_error("{" + base + R"(, "moe_router_topk": 2})"),
             Contains("the file has \"moe_router_topk\", another name for it"));
}

TEST_CASE("s58: a real transformers type near a checked one is no misspelling", "[hf][s58]") {
  // gemma4_text is transformers' Gemma 4 text tower, one letter from gemma3_text (helper s58 configs2 F2).
  const std::string fields = R"("hidden_size": 1024, "num_hidden_layers": 2, "vocab_size": 1000,
      "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 4096,
      "max_position_embeddings": 4096)";
  const auto real = gpuplan::model_from_hf_config(R"({"model_type": "gemma4_text", )" + fields + "}", "real.json");
  CHECK_THAT(real.assumed_defaults, !Contains("misspelling"));
  const auto typo = gpuplan::model_from_hf_config(R"({"model_type": "gemma5_text", )" + fields + "}", "typo.json");
  CHECK_THAT(typo.assumed_defaults, Contains("a misspelling of"));
}
