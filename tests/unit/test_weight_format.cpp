// Weight formats: bytes from tensor shapes per scale scheme; formats read from
// quantization_config; the choice between shipped formats and flags.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/memory.hpp>
#include <gpuplan/weight_choice.hpp>
#include <nlohmann/json.hpp>

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using gpuplan::DType;
using gpuplan::WeightPart;

namespace {

std::string fixture(const std::string& name) { return std::string(GPUPLAN_FIXTURES_DIR) + "/" + name; }

gpuplan::ModelSpec config(const std::string& name) { return gpuplan::model_from_hf_config_file(fixture(name)); }

}  // namespace

TEST_CASE("weight format: scale bytes follow the tensor shape", "[weights]") {
  const auto fmt = [](const char* name) { return gpuplan::parse_weight_format(name, "test"); };
  // DeepSeek-V3 kv_a_proj_with_mqa, 576 x 7168: ceil(576/128) x 56 = 280 fp32 block scales.
  CHECK_THAT(fmt("fp8-block128").matrix_bytes(576, 7168), WithinAbs(576.0 * 7168 + 5 * 56 * 4, 1e-6));
  // MXFP4: half a byte per element, one E8M0 byte per 32 inputs of a row.
  CHECK_THAT(fmt("mxfp4").matrix_bytes(5760, 2880), WithinAbs(5760.0 * 2880 / 2 + 5760.0 * 90, 1e-6));
  // NVFP4: an E4M3 byte per 16 inputs and one fp32 global scale.
  CHECK_THAT(fmt("nvfp4").matrix_bytes(4096, 4096), WithinAbs(4096.0 * 4096 / 2 + 4096.0 * 256 + 4, 1e-6));
  // GPTQ/AWQ int4 g128: a bf16 scale and a 4-bit zero point per group; a partial group counts.
  CHECK_THAT(fmt("int4-g128-zp").matrix_bytes(10, 200), WithinAbs(10.0 * 200 / 2 + 10.0 * 2 * 2.5, 1e-6));
  // bitsandbytes nf4 with double quantization: 8-bit absmax per 64, fp32 per 256 of those.
  CHECK_THAT(fmt("nf4-dq").matrix_bytes(64, 1024), WithinAbs(64.0 * 1024 / 2 + 64.0 * 16 + 4.0 * 4, 1e-6));
  // Per-channel fp8 (vLLM W8A8 layers keep fp32 channel scales); bf16 has none.
  CHECK_THAT(fmt("fp8").matrix_bytes(3, 5), WithinAbs(15.0 + 3 * 4, 1e-6));
  CHECK_THAT(fmt("bf16").matrix_bytes(3, 5), WithinAbs(30.0, 1e-6));
  CHECK(gpuplan::to_string(fmt("fp8-block128")) == "fp8-block128");
  CHECK(gpuplan::to_string(fmt("int8")) == "int8");
  CHECK_THROWS_AS(fmt("fp6"), gpuplan::InputError);
}

TEST_CASE("weight format: quantization_config methods and their unquantized lists", "[weights][hf]") {
  const auto w8a8 = config("hf-llama-3.1-8b-w8a8.json");
  REQUIRE(w8a8.shipped_formats);
  CHECK((*w8a8.shipped_formats)[WeightPart::attention].element == DType::int8);
  CHECK((*w8a8.shipped_formats)[WeightPart::attention].scheme == gpuplan::ScaleScheme::per_channel);
  CHECK((*w8a8.shipped_formats)[WeightPart::lm_head] == gpuplan::WeightFormat{});  // in "ignore"
  const auto awq = config("hf-llama-3.1-8b-awq.json");
  CHECK(gpuplan::to_string((*awq.shipped_formats)[WeightPart::dense_mlp]) == "int4-g128-zp");
  const auto gptq = config("hf-llama-3.1-8b-gptq.json");
  CHECK(gpuplan::to_string((*gptq.shipped_formats)[WeightPart::attention]) == "int4-g128-zp");
  const auto nf4 = config("hf-llama-3.1-8b-bnb-nf4.json");
  CHECK(gpuplan::to_string((*nf4.shipped_formats)[WeightPart::dense_mlp]) == "nf4-dq");
  const auto oss = config("hf/gpt-oss-120b");
  CHECK((*oss.shipped_formats)[WeightPart::routed_experts].element == DType::mxfp4);
  CHECK((*oss.shipped_formats)[WeightPart::attention] == gpuplan::WeightFormat{});
  CHECK(gpuplan::describe_formats(oss, *oss.shipped_formats) == "experts mxfp4, rest bf16");
  const auto ds = config("hf/deepseek-v3");
  CHECK(gpuplan::to_string((*ds.shipped_formats)[WeightPart::routed_experts]) == "fp8-block128");
  CHECK((*ds.shipped_formats)[WeightPart::embedding] == gpuplan::WeightFormat{});
  // No quantization_config: torch_dtype (Llama 2 -hf ships fp16).
  CHECK((*config("hf/llama-2-7b").shipped_formats)[WeightPart::attention].element == DType::fp16);
  CHECK_THROWS_WITH(config("bad-hf-unknown-quant.json"), Catch::Contains("/quantization_config/quant_method"));
}

TEST_CASE("weight format: gpt-oss checkpoint size from its formats", "[weights][reference]") {
  // OpenAI gpt-oss model card: the 120b checkpoint is 60.8 GiB.
  const auto m = gpuplan::Catalog::builtin().model("gpt-oss-120b");
  const auto bytes = gpuplan::weight_bytes_by_part(m, *m.shipped_formats);
  double total = 0;
  for (double b : bytes) {
    total += b;
  }
  CHECK_THAT(total / 1073741824.0, WithinRel(60.8, 0.01));
}

TEST_CASE("weight choice: flags over shipped formats", "[weights]") {
  const auto& oss = gpuplan::Catalog::builtin().model("gpt-oss-120b");
  const auto shipped = gpuplan::choose_weight_formats(oss, {});
  CHECK(shipped == *oss.shipped_formats);
  const auto fp8 = gpuplan::choose_weight_formats(oss, {.all = gpuplan::default_format(DType::fp8)});
  CHECK(fp8[WeightPart::routed_experts].element == DType::fp8);
  CHECK(fp8[WeightPart::embedding].element == DType::bf16);
  CHECK(fp8[WeightPart::router].element == DType::bf16);
  const auto mixed = gpuplan::choose_weight_formats(oss, {.attention = gpuplan::default_format(DType::fp8)});
  CHECK(mixed[WeightPart::routed_experts].element == DType::mxfp4);
  CHECK(mixed[WeightPart::attention].element == DType::fp8);
  const auto& dense = gpuplan::Catalog::builtin().model("llama-3.1-8b");
  CHECK_THROWS_WITH(gpuplan::choose_weight_formats(dense, {.experts = gpuplan::default_format(DType::fp8)}),
                    Catch::StartsWith("weights.experts:"));
  // fit without a dtype flag in the request's formats says so.
  gpuplan::FitRequest r;
  r.weight_formats = shipped;
  const auto res = gpuplan::fit(oss, gpuplan::Catalog::builtin().gpu("h100-sxm"), r);
  CHECK(res.formats_as_shipped);
  CHECK(res.fits);  // MXFP4 experts: about 65 GB on one 80 GB GPU
}

TEST_CASE("hf importer: family layouts the config does not spell out", "[hf]") {
  // Falcon-7B: multi_query wins over num_kv_heads 71 (one KV head); Falcon-40B keeps its 8.
  CHECK(config("hf/falcon-7b").num_key_value_heads == 1);
  CHECK(config("hf/falcon-40b").num_key_value_heads == 8);
  CHECK_FALSE(config("hf/falcon-7b").mlp_gated);
  // Gemma 2 leaves tie_word_embeddings out: the class default (true) applies.
  CHECK(config("hf/gemma-2-9b").tie_word_embeddings);
  CHECK_THAT(gpuplan::count_params(config("hf/gemma-2-9b")).lm_head, WithinAbs(0.0, 0.5));
  // Gemma 3 text_config omits the heads: Gemma3TextConfig defaults (8 heads, 4 KV, head_dim 256).
  const auto g4 = config("hf/gemma-3-4b-it");
  CHECK(g4.num_attention_heads == 8);
  CHECK(g4.head_dim == 256);
  REQUIRE(g4.vision);
  CHECK_FALSE(g4.vision->estimated);
  // Llama 4 Maverick: MoE on every other layer, chunked attention on 3 of 4 layers.
  const auto mav = config("hf/llama-4-maverick-17b-128e");
  CHECK(mav.moe_layer_count() == 24);
  std::size_t chunked = 0;
  for (auto w : mav.layer_window_tokens) {
    chunked += w == 8192 ? 1 : 0;
  }
  CHECK(chunked == 36);
  // A size written as a float is refused: transformers builds the layers from an integer and
  // fails on it (helper s52 F6; before, 4096.0 was read as 4096).
  CHECK_THROWS_WITH(config("hf-float-integers.json"), Catch::Contains("/hidden_size: 4096.0 is a float"));
}

TEST_CASE("kv cache: linear-attention layers hold a fixed state per sequence", "[kv][hf]") {
  const auto m = config("hf/qwen3-next-80b-a3b");
  const auto shape = gpuplan::kv_shape(m, DType::bf16, gpuplan::Layout{});
  CHECK(shape.linear_layers == 36);
  CHECK(shape.windows.size() == 12);
  const double per_token = 12 * 2 * 2 * 256 * 2.0;
  const double state = gpuplan::linear_state_bytes_per_sequence(m);
  // Twice the tokens: twice the per-token part, the same state.
  CHECK_THAT(gpuplan::sequence_kv_bytes(shape, 2048, 16), WithinRel(2048 * per_token + state, 1e-12));
  CHECK_THAT(gpuplan::sequence_kv_bytes(shape, 4096, 16), WithinRel(4096 * per_token + state, 1e-12));
}

TEST_CASE("moe_layer_count: the layers is_moe_layer marks, counted without walking them", "[model][moe]") {
  const auto walked = [](const gpuplan::ModelSpec& m) {
    std::uint64_t n = 0;
    for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
      n += m.is_moe_layer(i) ? 1U : 0U;
    }
    return n;
  };
  for (const gpuplan::ModelSpec& m : gpuplan::Catalog::builtin().models()) {
    CHECK(m.moe_layer_count() == walked(m));
  }
  gpuplan::ModelSpec m = gpuplan::Catalog::builtin().model("mixtral-8x7b");
  REQUIRE(m.moe);
  const std::uint64_t steps[] = {0, 1, 2, 3, 4};
  const std::uint64_t firsts[] = {0, 1, 3, 31, 32, 40};
  for (const std::uint64_t step : steps) {
    for (const std::uint64_t first : firsts) {
      m.moe->layer_step = step;
      m.moe->first_dense_layers = first;
      // mlp_only layers: repeated, before `first`, off the step, past the last layer.
      for (const auto& dense : {std::vector<std::uint64_t>{}, std::vector<std::uint64_t>{5, 5, 7, 0, 31, 99}}) {
        m.moe->dense_layers = dense;
        CHECK(m.moe_layer_count() == walked(m));
      }
    }
  }
}

// Kimi K2 Thinking / K2.5 ship int4 experts (compressed-tensors, group 32) and leave attention,
// shared experts and the dense layers' MLP in bf16 with "re:.*mlp\.(gate|up|gate_up|down)_proj.*":
// that pattern names projections right under `mlp`, which routed experts (mlp.experts.N.*) are not.
TEST_CASE("weight format: an ignore pattern for mlp projections leaves the routed experts quantized", "[weights][hf]") {
  std::ifstream in(fixture("hf-deepseek-v3.json"));
  auto cfg = nlohmann::json::parse(in);
  cfg["quantization_config"] = nlohmann::json::parse(R"({
    "quant_method": "compressed-tensors", "format": "pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
      "strategy": "group", "group_size": 32, "symmetric": true}}},
    "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]})");
  const auto m = gpuplan::model_from_hf_config(cfg.dump(), "kimi-k2-int4");
  REQUIRE(m.shipped_formats);
  const auto& f = *m.shipped_formats;
  CHECK(gpuplan::to_string(f[WeightPart::routed_experts]) == "int4-g32");
  CHECK(f[WeightPart::dense_mlp] == gpuplan::WeightFormat{});
  CHECK(f[WeightPart::shared_experts] == gpuplan::WeightFormat{});
  CHECK(f[WeightPart::attention] == gpuplan::WeightFormat{});
  CHECK(f[WeightPart::lm_head] == gpuplan::WeightFormat{});
  // A whole-block pattern still reaches every MLP part, experts included.
  cfg["quantization_config"]["ignore"] = nlohmann::json::array({"re:.*mlp.*"});
  const auto whole = gpuplan::model_from_hf_config(cfg.dump(), "kimi-k2-int4-whole");
  CHECK((*whole.shipped_formats)[WeightPart::routed_experts] == gpuplan::WeightFormat{});
}

// Every catalog model whose Hugging Face checkpoint ships block-quantized FP8 says so: without it
// Kimi K2 was sized in bf16 (2,053 GB) and did not fit on 8 x H200, where its FP8 checkpoint does.
TEST_CASE("weight format: the FP8 checkpoints of the DeepSeek-V3 family ship as FP8", "[weights]") {
  const auto& c = gpuplan::Catalog::builtin();
  for (const char* id : {"deepseek-v3", "deepseek-r1", "deepseek-v3.1", "kimi-k2"}) {
    INFO(id);
    const auto& m = c.model(id);
    REQUIRE(m.shipped_formats);
    CHECK(gpuplan::to_string((*m.shipped_formats)[WeightPart::routed_experts]) == "fp8-block128");
    CHECK((*m.shipped_formats)[WeightPart::embedding].element == DType::bf16);
  }
  gpuplan::FitRequest req{.context_tokens = 8192};
  req.layout = gpuplan::Layout{.tp = 8};
  req.weight_formats = c.model("kimi-k2").shipped_formats;
  CHECK(gpuplan::fit(c.model("kimi-k2"), c.gpu("h200-sxm"), req).fits);
}

namespace {

gpuplan::ModelSpec llama_8b_with(const std::string& quantization_config) {
  return gpuplan::model_from_hf_config(
      R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
          "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
          "max_position_embeddings": 131072, "torch_dtype": "bfloat16", "quantization_config": )" +
          quantization_config + "}",
      "config.json");
}

}  // namespace

TEST_CASE("weight format: exclusion lists name parts, layers and norms as checkpoints use them", "[weights]") {
  const auto part = [](const gpuplan::ModelSpec& m, WeightPart p) { return gpuplan::to_string((*m.shipped_formats)[p]); };
  // Qwen3 MoE FP8 releases list post_attention_layernorm (a norm, no projection): attention ships FP8.
  const auto norms = llama_8b_with(R"({"quant_method": "fp8", "weight_block_size": [128, 128],
      "modules_to_not_convert": ["lm_head", "model.layers.0.input_layernorm", "model.layers.0.post_attention_layernorm"]})");
  CHECK(part(norms, WeightPart::attention) == "fp8-block128");
  // One layer's down_proj left in bf16: the MLP stays int4 (counted so in all layers), said.
  const auto one = llama_8b_with(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"targets":
      ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": true}}},
      "ignore": ["lm_head", "model.layers.0.mlp.down_proj", "re:model\\.layers\\.31\\.mlp\\.up_proj"]})");
  CHECK(part(one, WeightPart::dense_mlp) == part(one, WeightPart::attention));
  CHECK(part(one, WeightPart::lm_head) == "bf16");
  // The note bounds what that leaves out (helper s47 F4): two layers' MLP (3 x 4096 x 14336) in
  // bf16 instead of int4 with a 16-bit scale per 128, 2 x (352,321,536 - 90,832,896) bytes.
  CHECK_THAT(one.shipped_source, Catch::Matchers::Contains("a few layers (dense_mlp in 2 of 32 layers) counted "
                                                           "quantized, as in the other layers: the weights may be up "
                                                           "to 0.52 GB short"));
  // Every layer's attention named one by one, all four projections (Llama 3.1 405B FP8's list):
  // attention is 16-bit. (q_proj alone is refused: test_hf_import_s50.cpp.)
  std::string every = R"({"quant_method": "fbgemm_fp8", "modules_to_not_convert": ["lm_head")";
  for (int layer = 0; layer < 32; ++layer) {
    for (const char* projection : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
      every += ", \"model.layers." + std::to_string(layer) + ".self_attn." + projection + "\"";
    }
  }
  const auto all = llama_8b_with(every + "]}");
  CHECK(part(all, WeightPart::attention) == "bf16");
  CHECK(part(all, WeightPart::dense_mlp) != "bf16");
  // Shared-expert gates and linear-attention beta/alpha projections listed in every layer (Qwen3-Next
  // FP8) are tiny: neither the shared experts nor attention become 16-bit.
  std::string gates = R"({"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": ["lm_head")";
  for (int layer = 0; layer < 32; ++layer) {
    const std::string at = "\"model.layers." + std::to_string(layer);
    gates += ", " + at + ".linear_attn.in_proj_ba\", " + at + ".mlp.shared_expert_gate\"";
  }
  const auto tiny = llama_8b_with(gates + "]}");
  CHECK(part(tiny, WeightPart::attention) == "fp8-block128");
  CHECK(part(tiny, WeightPart::shared_experts) == "fp8-block128");
  // GPTQ's "lm_head": true quantizes the head as well.
  const auto head = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "lm_head": true})");
  CHECK(part(head, WeightPart::lm_head) == "int4-g128-zp");
  CHECK(part(llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128})"), WeightPart::lm_head) == "bf16");
  // GPTQModel's dynamic overrides over whole blocks: "-:" leaves them 16-bit, "+:" sets their bits.
  const auto skip = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "dynamic": {"-:.*mlp.*": {}}})");
  CHECK(part(skip, WeightPart::dense_mlp) == "bf16");
  CHECK(part(skip, WeightPart::attention) == "int4-g128-zp");
  // GPTQ is weight-only: its 8 bits dequantize into 16-bit GEMMs (-a16).
  const auto eight = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "dynamic": {"+:.*self_attn.*": {"bits": 8, "group_size": 32}}})");
  CHECK(part(eight, WeightPart::attention) == "int8-g32-zp-a16");
  CHECK(part(eight, WeightPart::dense_mlp) == "int4-g128-zp");
  // Patterns are matched against module names as vLLM does: ".*" and "model\.layers\..*" cover
  // every layer's projections.
  const auto all8 = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "dynamic": {"+:.*": {"bits": 8}}})");
  CHECK(part(all8, WeightPart::attention) == "int8-g128-zp-a16");
  CHECK(part(all8, WeightPart::dense_mlp) == "int8-g128-zp-a16");
  CHECK(part(all8, WeightPart::lm_head) == "bf16");
  const auto none = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "dynamic": {"-:model\\.layers\\..*": {}}})");
  CHECK(part(none, WeightPart::attention) == "bf16");
  CHECK(part(none, WeightPart::dense_mlp) == "bf16");
  // One projection or one layer has no format of its own here: refused, not read as 4-bit.
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "dynamic": {"+:.*down_proj.*": {"bits": 8}}})"),
                    Catch::Contains("/quantization_config/dynamic") && Catch::Contains("single projections"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "dynamic": {"-:model.layers.3.mlp": {}}})"),
                    Catch::Contains("single layers"));
  // ModelOpt: AWQ int4 groups (W4A8_AWQ, W4A16_AWQ) and MIXED_PRECISION's per-module algorithms; a
  // part takes the one named for at least half its layers, what none names stays 16-bit.
  CHECK(part(llama_8b_with(R"({"quant_method": "modelopt", "quant_algo": "W4A8_AWQ", "group_size": 128})"),
             WeightPart::dense_mlp) == "int4");
  std::string layers;
  for (int i = 0; i < 32; ++i) {
    layers += fmt::format(R"({}"model.layers.{}.mlp": {{"quant_algo": "NVFP4", "group_size": 16}})", i ? ", " : "", i);
  }
  layers += R"(, "model.layers.0.self_attn": {"quant_algo": "FP8"})";
  const auto mixed = llama_8b_with(R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
      "quantized_layers": {)" + layers + "}}");
  CHECK(part(mixed, WeightPart::dense_mlp) == "fp4");
  CHECK(part(mixed, WeightPart::attention) == "bf16");  // one layer of 32 in FP8
  CHECK(part(mixed, WeightPart::lm_head) == "bf16");
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
      "quantized_layers": {"model.layers.0.mlp": {"quant_algo": "INT3"}}})"),
                    Catch::Contains("/quantization_config/quantized_layers/model.layers.0.mlp/quant_algo"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "modelopt", "quant_algo": "W2"})"), Catch::Contains("known: FP8"));
  // llm-compressor's dense exports carry an empty sparsity_config.
  CHECK(part(llama_8b_with(R"({"quant_method": "compressed-tensors", "sparsity_config": {}, "config_groups": {"g": {
      "targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}}})"),
             WeightPart::attention) == "fp8");
  // GPTQ dynamic: a skip over modules gpuplan does not count changes nothing; a bare entry for
  // the LM head does not quantize it (vLLM: only "lm_head": true).
  const auto qwen = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "dynamic": {"-:.*mtp.*": {}, "lm_head": {}, "model.embed_tokens": {}}})");
  CHECK(part(qwen, WeightPart::attention) == "int4-g128-zp");
  CHECK(part(qwen, WeightPart::lm_head) == "bf16");
  CHECK(part(qwen, WeightPart::embedding) == "bf16");
  // compressed-tensors: no quantized groups is 16-bit; 2:4-sparse weights are refused by field.
  CHECK(part(llama_8b_with(R"({"quant_method": "compressed-tensors", "config_groups": {}})"), WeightPart::attention) ==
        "bf16");
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "compressed-tensors", "config_groups": {},
      "sparsity_config": {"format": "sparse-24-bitmask", "sparsity_structure": "2:4"}})"),
                    Catch::Contains("/quantization_config/sparsity_config"));
  // modules_in_block_to_quantize: blocks it names none of stay 16-bit.
  const auto attn_only = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "modules_in_block_to_quantize": [["self_attn.k_proj", "self_attn.v_proj", "self_attn.q_proj"], ["self_attn.o_proj"]]})");
  CHECK(part(attn_only, WeightPart::attention) == "int4-g128-zp");
  CHECK(part(attn_only, WeightPart::dense_mlp) == "bf16");
}

// A ModelOpt export (nvidia/*-FP4 checkpoints) may state its quantization only in
// hf_quant_config.json beside config.json; the fixture is a stock Llama 3.1 8B config with such a
// file as ModelOpt writes it (producer, quant_algo, exclude_modules).
TEST_CASE("weight format: ModelOpt's hf_quant_config.json beside config.json", "[weights]") {
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-dir-modelopt-nvfp4"));
  REQUIRE(m.shipped_formats);
  CHECK((*m.shipped_formats)[WeightPart::attention].element == DType::fp4);
  CHECK((*m.shipped_formats)[WeightPart::dense_mlp].element == DType::fp4);
  CHECK((*m.shipped_formats)[WeightPart::lm_head].element == DType::bf16);  // exclude_modules
  CHECK(m.shipped_source.find("hf_quant_config.json") != std::string::npos);
  // An algorithm gpuplan does not read is named in that file.
  const auto dir = std::filesystem::temp_directory_path() / "gpuplan-test-modelopt-w3";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixture("hf-dir-modelopt-nvfp4/config.json"), dir / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "hf_quant_config.json") << R"({"quantization": {"quant_algo": "W3A16"}})";
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(dir),
                    Catch::Matchers::Contains("hf_quant_config.json") && Catch::Matchers::Contains("/quantization/quant_algo"));
  std::filesystem::remove_all(dir);
}

// DeepSeek-V3's dense MLP lives in its first 3 of 61 layers: a list naming those three leaves it
// 16-bit, though three is far from half of all layers.
TEST_CASE("weight format: single-layer names count against the layers that hold the part", "[weights]") {
  const auto& base = gpuplan::Catalog::builtin().model("deepseek-v3");
  nlohmann::json cfg = {{"model_type", "deepseek_v3"}, {"hidden_size", 7168}, {"intermediate_size", 18432},
                        {"moe_intermediate_size", 2048}, {"num_hidden_layers", 61}, {"num_attention_heads", 128},
                        {"num_key_value_heads", 128}, {"n_routed_experts", 256}, {"n_shared_experts", 1},
                        {"num_experts_per_tok", 8}, {"first_k_dense_replace", 3}, {"q_lora_rank", 1536},
                        {"kv_lora_rank", 512}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64},
                        {"v_head_dim", 128}, {"vocab_size", 129280}, {"max_position_embeddings", 163840},
                        {"torch_dtype", "bfloat16"}};
  cfg["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}},
                                {"modules_to_not_convert", nlohmann::json::array({"lm_head"})}};
  for (int layer = 0; layer < 3; ++layer) {
    for (const char* projection : {"gate_proj", "up_proj", "down_proj"}) {
      cfg["quantization_config"]["modules_to_not_convert"].push_back("model.layers." + std::to_string(layer) + ".mlp." +
                                                                     projection);
    }
  }
  const auto m = gpuplan::model_from_hf_config(cfg.dump(), "deepseek-dense-mlp-16bit");
  REQUIRE(m.moe);
  CHECK(m.moe_layer_count() + 3 == base.num_hidden_layers);
  CHECK((*m.shipped_formats)[WeightPart::dense_mlp].element == DType::bf16);
  CHECK((*m.shipped_formats)[WeightPart::routed_experts].element == DType::fp8);
}

// compressed-tensors writes both 4-bit float formats as type "float", num_bits 4: NVFP4 in groups
// of 16 (FP8 scales), MXFP4 in groups of 32 (E8M0 scales); MXFP4 had been sized as NVFP4 (+3.5 %
// on Qwen3-8B).
TEST_CASE("weight format: compressed-tensors 4-bit floats by their group size", "[weights][hf]") {
  const auto with_group = [](int group) {
    return llama_8b_with(fmt::format(R"({{"quant_method": "compressed-tensors", "config_groups": {{"group_0": {{
        "targets": ["Linear"], "weights": {{"num_bits": 4, "type": "float", "strategy": "{}", "group_size": {},
        "symmetric": true}}}}}}, "ignore": ["lm_head"]}})",
                                     group == 32 ? "group" : "tensor_group", group));
  };
  const auto part = [](const gpuplan::ModelSpec& m) { return (*m.shipped_formats)[WeightPart::dense_mlp]; };
  CHECK(part(with_group(16)) == gpuplan::default_format(DType::fp4));
  CHECK(part(with_group(32)) == gpuplan::default_format(DType::mxfp4));
  // 4.25 bits per weight against 4.5 + a little: the difference the fix is about.
  CHECK(part(with_group(32)).matrix_bytes(4096, 4096) < part(with_group(16)).matrix_bytes(4096, 4096));
  // Any other group is neither format.
  CHECK_THROWS_WITH(with_group(64), Catch::Contains("group_size") && Catch::Contains("neither NVFP4"));
}

// Intel AutoRound (quant_method "auto-round") and AMD Quark ("quark") checkpoints had been refused
// as unknown methods: AutoRound packs int4 groups as GPTQ does (zero points stored) or writes an
// MX/NV float data_type; Quark gives a global weight spec, per-pattern overrides and an exclude list.
TEST_CASE("weight format: AutoRound and Quark quantization configs", "[weights][hf]") {
  const auto part = [](const gpuplan::ModelSpec& m, WeightPart p) { return (*m.shipped_formats)[p]; };
  const auto gptq = llama_8b_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true})");
  // extra_config leaves the MLP's three projections at 16 bits in every layer: the dense MLP is
  // 16-bit. (down_proj alone is one projection of the part: refused, below.)
  const auto round = llama_8b_with(R"({"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": true,
      "data_type": "int", "packing_format": "auto_round:auto_gptq",
      "extra_config": {"model.layers.0.self_attn.q_proj": {"bits": 4}, "mlp.gate_proj": {"bits": 16},
      "mlp.up_proj": {"bits": 16}, "mlp.down_proj": {"bits": 16, "data_type": "float"}}})");
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "auto-round", "bits": 4, "extra_config": {"mlp.down_proj":
      {"bits": 16}}})"),
                    Catch::Contains("/quantization_config/extra_config: \"mlp.down_proj\" names single projections"));
  CHECK(part(round, WeightPart::attention) == part(gptq, WeightPart::attention));
  CHECK(to_string(part(round, WeightPart::dense_mlp)) == "bf16");
  // A float data_type without bits is 16-bit too; per-channel groups (-1) as GPTQ's.
  CHECK(to_string(part(llama_8b_with(R"({"quant_method": "auto-round", "bits": 4, "group_size": -1,
      "extra_config": {"self_attn": {"data_type": "float"}}})"), WeightPart::attention)) == "bf16");
  CHECK(part(llama_8b_with(R"({"quant_method": "auto-round", "bits": 4, "data_type": "mx_fp4"})"), WeightPart::attention) ==
        gpuplan::default_format(DType::mxfp4));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "auto-round", "bits": 2, "data_type": "int"})"),
                    Catch::Contains("/quantization_config/bits"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "auto-round", "bits": 4, "extra_config": {"mlp.down_proj": {"bits": "16"}}})"),
                    Catch::Contains("/quantization_config/extra_config/mlp.down_proj/bits"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "auto-round", "bits": 4, "extra_config": {"mlp.down_proj": {"bits": 8}}})"),
                    Catch::Contains("not read apart"));

  const auto fp8 = llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp8_e4m3",
      "qscheme": "per_tensor", "is_dynamic": false}, "input_tensors": {"dtype": "fp8_e4m3"}},
      "exclude": ["lm_head", "*self_attn*"]})");
  CHECK(to_string(part(fp8, WeightPart::dense_mlp)) == "fp8-tensor");
  CHECK(to_string(part(fp8, WeightPart::attention)) == "bf16");
  // MXFP4 MLPs with attention in FP8 by a pattern.
  const auto mx = llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp4",
      "qscheme": "per_group", "group_size": 32}}, "layer_quant_config": {"*self_attn*": {"weight": {"dtype": "fp8_e4m3",
      "qscheme": "per_tensor"}}}, "exclude": ["lm_head"]})");
  CHECK(part(mx, WeightPart::dense_mlp) == gpuplan::default_format(DType::mxfp4));
  CHECK(to_string(part(mx, WeightPart::attention)) == "fp8-tensor");
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "int2"}}})"),
                    Catch::Contains("/quantization_config/global_quant_config/weight/dtype"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": [1]}})"),
                    Catch::Contains("/quantization_config/global_quant_config/weight:"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp4",
      "qscheme": "per_tensor"}}})"), Catch::Contains("/weight/qscheme"));
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": null},
      "layer_quant_config": {"*.foo.*": {"weight": {"dtype": "fp8_e4m3"}}}})"),
                    Catch::Contains("names no part"));
  // A pattern for one layer would change every layer's format: refused.
  CHECK_THROWS_WITH(llama_8b_with(R"({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp8_e4m3"}},
      "layer_quant_config": {"model.layers.0.mlp.*": {"weight": {"dtype": "uint4", "qscheme": "per_group",
      "group_size": 32}}}})"), Catch::Contains("names single layers"));
}
