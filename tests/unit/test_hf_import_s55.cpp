// Helper s55 configs2 findings: AutoAWQ's quant_config.json sidecar (and an AWQ sidecar named
// quantize_config.json) read and named on the launch line, Kimi-Linear's KDA + MLA hybrid, an
// empty compressed-tensors config_groups in a compressed file, and tie_word_embeddings written
// differently at the top level and in text_config. Fixtures: tests/fixtures/hf-s55-configs2-sources.md.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/engine_flags.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>
#include <gpuplan/model_spec.hpp>
#include <gpuplan/weight_format.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {

using gpuplan::test::fixture;

std::string error_of_s55(const std::filesystem::path& path) {
  try {
    (void)gpuplan::model_from_hf_config_file(path);
  } catch (const gpuplan::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

double weight_bytes_s55(const gpuplan::ModelSpec& m) {
  double bytes = 0;
  for (const double part : gpuplan::weight_bytes_by_part(m, *m.shipped_formats)) {
    bytes += part;
  }
  return bytes;
}

// A directory holding `config` as config.json and `sidecar` under `name`, removed at the end.
struct SidecarDir {
  std::filesystem::path path;
  SidecarDir(const std::filesystem::path& config, const std::string& name, const std::string& sidecar) {
    path = std::filesystem::temp_directory_path() /
           ("gpuplan-s55-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
    std::filesystem::copy_file(config, path / "config.json");
    std::ofstream(path / name, std::ios::binary) << sidecar;
  }
  ~SidecarDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  SidecarDir(const SidecarDir&) = delete;
  SidecarDir& operator=(const SidecarDir&) = delete;
};

}  // namespace

TEST_CASE("hf import s55: AutoAWQ's quant_config.json beside config.json is read as AWQ", "[hf]") {
  // TheBloke's WizardCoder-Python-7B AWQ before transformers' AWQ support: config.json says fp16
  // only; the sidecar {"zero_point": true, "q_group_size": 128, "w_bit": 4, "version": "GEMM"}.
  // Sized fp16 before: 13.48 GB for about 3.9 (helper s55 configs2 F1).
  const std::filesystem::path dir = fixture("hf-dir-wizardcoder-7b-awq-quant-config");
  const auto m = gpuplan::model_from_hf_config_file(dir);
  REQUIRE(m.shipped_formats);
  const auto& f = *m.shipped_formats;
  CHECK(f[gpuplan::WeightPart::attention].element == gpuplan::DType::int4);
  CHECK(f[gpuplan::WeightPart::dense_mlp].block == 128);
  CHECK(f[gpuplan::WeightPart::lm_head].element == gpuplan::DType::fp16);
  CHECK(m.shipped_source == "quant_config.json beside config.json (awq)");
  REQUIRE(m.checkpoint_quant);
  CHECK(m.checkpoint_quant->method == "awq");
  CHECK(m.checkpoint_quant->bits == 4);
  CHECK(m.checkpoint_quant->sidecar == "quant_config.json");
  // 6.48 B linear parameters at int4 with fp16 scales and packed zeros per 128, the 16-bit
  // embedding table and head: about 3.9 GB.
  CHECK(weight_bytes_s55(m) == Approx(3.9e9).epsilon(0.03));
}

TEST_CASE("hf import s55: an AWQ sidecar named quantize_config.json is AWQ, not a GPTQ file without bits", "[hf]") {
  // vLLM's AWQConfig reads quantize_config.json too (awq.py @000796ac get_config_filenames); the
  // file had been refused with "/bits: missing: cannot tell the GPTQ weights' width".
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-dir-awq-quantize-config"));
  REQUIRE(m.checkpoint_quant);
  CHECK(m.checkpoint_quant->method == "awq");
  CHECK(m.checkpoint_quant->sidecar == "quantize_config.json");
  CHECK(m.shipped_source == "quantize_config.json beside config.json (awq)");
  CHECK((*m.shipped_formats)[gpuplan::WeightPart::attention].element == gpuplan::DType::int4);
  const std::filesystem::path config = std::filesystem::path(fixture("hf-dir-awq-quantize-config")) / "config.json";
  SECTION("GPTQ's keys are still GPTQ") {
    const SidecarDir dir(config, "quantize_config.json", R"({"bits": 4, "group_size": 128, "desc_act": false})");
    const auto g = gpuplan::model_from_hf_config_file(dir.path);
    REQUIRE(g.checkpoint_quant);
    CHECK(g.checkpoint_quant->method == "gptq");
  }
  SECTION("a sidecar with neither format's keys names the keys it has") {
    const SidecarDir dir(config, "quant_config.json", R"({"wbits": 4, "groupsize": 128})");
    const std::string e = error_of_s55(dir.path);
    CHECK_THAT(e, Contains("quant_config.json: neither AWQ's keys") && Contains("(keys: groupsize, wbits)"));
  }
  SECTION("an AWQ sidecar without a width") {
    const SidecarDir dir(config, "quant_config.json", R"({"q_group_size": 128, "zero_point": true})");
    CHECK_THAT(error_of_s55(dir.path), Contains("quant_config.json: /w_bit: missing (nor bits)"));
  }
}

TEST_CASE("launch: a method stated only in a sidecar is passed as --quantization", "[engine]") {
  // vLLM takes the method from config.json alone (vllm/config/model.py @18ec6629
  // _verify_quantization): without the flag it builds a 16-bit model (helper s55 configs2 F1).
  using gpuplan::DType;
  using gpuplan::Engine;
  gpuplan::LaunchSettings s{.model = "dir", .weights_dtype = DType::int4, .checkpoint_dtype = DType::int4,
                            .max_num_seqs = 8, .max_model_len = 4096};
  CHECK(gpuplan::launch_command(Engine::vllm, s).command().find("--quantization") == std::string::npos);
  s.sidecar_quant_method = "awq";
  CHECK_THAT(gpuplan::launch_command(Engine::vllm, s).command(), Contains("--quantization awq"));
  CHECK_THAT(gpuplan::launch_command(Engine::sglang, s).command(), Contains("--quantization awq"));
  // A plan that serves other weights than the checkpoint's names no method of that checkpoint.
  s.weights_dtype = DType::fp8;
  CHECK(gpuplan::launch_command(Engine::vllm, s).command().find("--quantization awq") == std::string::npos);
}

TEST_CASE("hf import s55: Kimi-Linear's KDA layers keep a fixed state, its MLA layers a latent cache", "[hf][hybrid]") {
  // Kimi-Linear-48B-A3B: 27 layers, KDA on the 20 listed (1-based) in linear_attn_config.kda_layers,
  // MLA on the 7 others. Refused before (helper s55 configs2 F2).
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-kimi-linear-48b-a3b-instruct.json"));
  REQUIRE(m.linear_attention);
  CHECK(m.linear_attention->kind == gpuplan::LinearAttentionSpec::Kind::kda);
  REQUIRE(m.layer_is_linear.size() == 27);
  CHECK(m.layer_is_linear[0]);        // layer 1
  CHECK_FALSE(m.layer_is_linear[3]);  // layer 4: MLA
  CHECK_FALSE(m.layer_is_linear[26]);  // layer 27: MLA
  // KV: (kv_lora_rank 512 + rope 64) x 2 bytes on the 7 MLA layers.
  CHECK(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16) == Approx(7 * 576 * 2.0));
  // State: 32 heads x 128 x 128 in float32 plus q, k and v windows of 3 x 4096 in bf16, 20 layers
  // (vLLM kda.py: kda_state_shape, kda_state_dtype).
  CHECK(gpuplan::linear_state_bytes_per_sequence(m) == Approx(20 * (32.0 * 128 * 128 * 4 + 3.0 * 3 * 4096 * 2)));
  // One KDA layer: q, k, v (3 x 4096 x 2304), their convolutions (3 x 4096 x 4), f_a and g_a
  // (128 x 2304 each), f_b and g_b (4096 x 128 each), b_proj (32 x 2304), dt_bias, A_log, o_norm,
  // o_proj (2304 x 4096). One MLA layer: q_proj (32 x 192 x 2304), kv_a (576 x 2304), its norm,
  // kv_b (32 x 256 x 512), o_proj (2304 x 4096).
  const double kda = 3.0 * 4096 * 2304 + 3.0 * 4096 * 4 + 2.0 * 128 * 2304 + 2.0 * 4096 * 128 + 32.0 * 2304 +
                     4096 + 32 + 128 + 2304.0 * 4096;
  const double mla = 32.0 * 192 * 2304 + 576.0 * 2304 + 512 + 32.0 * 256 * 512 + 2304.0 * 4096;
  CHECK(gpuplan::count_params(m).attention == Approx(20 * kda + 7 * mla));
  // The safetensors total of the published checkpoint (model-inspector report id 62691149540).
  CHECK(gpuplan::count_params(m).total() == Approx(49'122'681'728.0).epsilon(0.001));
}

TEST_CASE("hf import s55: Kimi-Linear's layer lists are checked", "[hf][hybrid]") {
  const std::filesystem::path path = fixture("hf-kimi-linear-48b-a3b-instruct.json");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json good = nlohmann::json::parse(text.str());
  const auto error_of = [](const nlohmann::json& config) {
    try {
      (void)gpuplan::model_from_hf_config(config.dump(), "config.json");
    } catch (const gpuplan::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  nlohmann::json zero = good;
  zero["linear_attn_config"]["kda_layers"][0] = 0;  // a 0-based list
  CHECK_THAT(error_of(zero), Contains("/linear_attn_config/kda_layers/0: expected a layer number from 1 to "
                                      "num_hidden_layers 27 (the list is 1-based)"));
  nlohmann::json both = good;
  both["linear_attn_config"]["full_attn_layers"][0] = 1;
  CHECK_THAT(error_of(both), Contains("/linear_attn_config/full_attn_layers/0: layer 1 is listed in kda_layers too"));
  nlohmann::json heads = good;
  heads["linear_attn_config"].erase("num_heads");
  CHECK_THAT(error_of(heads), Contains("/linear_attn_config/num_heads"));
}

TEST_CASE("hf import s55: an empty config_groups in a compressed file is refused like a missing one", "[hf]") {
  // Qwen3-32B W8A8 with config_groups {}: read as bf16 (65.5 GB for about 34) under a note naming
  // compressed-tensors (helper s55 configs2 F3).
  CHECK_THAT(error_of_s55(fixture("bad-hf-ct-config-groups-empty.json")),
             Contains("/quantization_config/config_groups: expected an object of quantization groups, got an empty "
                      "one while format \"int-quantized\" and quantization_status \"compressed\" say the weights are "
                      "compressed"));
}

TEST_CASE("hf import s55: tie_word_embeddings contradicting text_config's follows transformers and is said",
          "[hf]") {
  // transformers 5.7's print of Qwen3-VL-30B-A3B: false at the top, true in text_config; the
  // checkpoint has its own lm_head and 31,070,754,032 parameters. Read tied: 30.76 B, silently.
  const auto m = gpuplan::model_from_hf_config_file(fixture("hf-qwen3-vl-30b-a3b-instruct-tf57-print.json"));
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(gpuplan::count_params(m).total() == Approx(31'070'754'032.0).epsilon(0.001));
  CHECK_THAT(m.assumed_defaults, Contains("/tie_word_embeddings false contradicts /text_config/tie_word_embeddings "
                                          "true: false used, as transformers 5"));
  // A file written by transformers 4 is read as 4.x read it: the text model's value.
  std::ifstream in(fixture("hf-qwen3-vl-30b-a3b-instruct-tf57-print.json"));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json v4 = nlohmann::json::parse(text.str());
  v4["transformers_version"] = "4.57.1";
  const auto old = gpuplan::model_from_hf_config(v4.dump(), "config.json");
  CHECK(old.tie_word_embeddings);
  CHECK_THAT(old.assumed_defaults, Contains("true used, as transformers 4"));
}
