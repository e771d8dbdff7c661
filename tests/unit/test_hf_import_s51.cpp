// config.json import on helper s51's findings: the saved _name_or_path is never the launch name,
// InternVL's [h, w] vision sizes, 2- and 3-bit GPTQ refused as unsized, wrappers without their
// text model, a UTF-8 byte-order mark, compressed-tensors' marlin-24 format.
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

gpuplan::ModelSpec read_s51(const std::string& text) { return gpuplan::model_from_hf_config(text, "config.json"); }

// OpenGVLab/InternVL3-1B-hf's shape (transformers' InternVLConfig) with the vision sizes as given.
std::string internvl_hf_s51(const std::string& image_size, const std::string& patch_size) {
  return R"({"architectures": ["InternVLForConditionalGeneration"], "model_type": "internvl", "downsample_ratio": 0.5,
    "text_config": {"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
      "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151674, "max_position_embeddings": 32768,
      "tie_word_embeddings": false},
    "vision_config": {"model_type": "internvl_vision", "hidden_size": 1024, "intermediate_size": 4096,
      "num_hidden_layers": 24, "num_attention_heads": 16, "attention_bias": true, "image_size": )" +
         image_size + R"(, "patch_size": )" + patch_size + "}}";
}

const std::string kLlamaSizesS51 = R"("model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 64)";

}  // namespace

TEST_CASE("hf import s51: a saved hub id is not the model's name or launch path", "[hf]") {
  // allenai/OLMoE-1B-7B-0125-Instruct's config.json says it was saved from a training run.
  const auto m = read_s51("{" + kLlamaSizesS51 + R"(, "_name_or_path": "allenai/open_instruct_dev"})");
  CHECK(m.hf_repo.empty());  // model_from_hf_config_file gives it the directory
  CHECK(m.id == "config.json");
  CHECK_THAT(m.assumed_defaults, Contains("\"allenai/open_instruct_dev\" (from config) is not used"));
  const auto loose = gpuplan::model_from_hf_config("{" + kLlamaSizesS51 + R"(, "_name_or_path": "a/b"})", "smol.json");
  CHECK(loose.id == "smol");
  CHECK(loose.hf_repo.empty());
}

TEST_CASE("hf import s51: InternVL's [h w] image and patch sizes are read", "[hf]") {
  const auto listed = read_s51(internvl_hf_s51("[448, 448]", "[14, 14]"));
  const auto integers = read_s51(internvl_hf_s51("448", "14"));
  REQUIRE(listed.vision);
  CHECK(listed.vision->patch_size == 14);
  CHECK(listed.vision->image_size == 448);
  CHECK(gpuplan::count_params(listed).total() == Approx(gpuplan::count_params(integers).total()));
  // A non-square image with square patches: (448 / 14) x (896 / 14) learned positions.
  const auto wide = read_s51(internvl_hf_s51("[448, 896]", "[14, 14]"));
  REQUIRE(wide.vision);
  CHECK(wide.vision->position_rows == 32 * 64);
  CHECK(gpuplan::count_params(wide).total() ==
        Approx(gpuplan::count_params(integers).total() + 32.0 * 32.0 * 1024.0));
  CHECK_THAT(gpuplan::test::hf_config_error(internvl_hf_s51("[448, 448]", "[14, 16]")),
             Contains("/vision_config/patch_size: non-square patches [14, 16]"));
  CHECK_THAT(gpuplan::test::hf_config_error(internvl_hf_s51("[448, 448, 3]", "14")), Contains("/vision_config/image_size: expected"));
  CHECK_THAT(gpuplan::test::hf_config_error(internvl_hf_s51("[448, 0]", "14")), Contains("/vision_config/image_size: expected"));
}

TEST_CASE("hf import s51: 2- and 3-bit GPTQ are refused as unsized not unsupported", "[hf]") {
  for (const char* bits : {"2", "3"}) {
    CAPTURE(bits);
    const std::string q = R"(, "quantization_config": {"quant_method": "gptq", "bits": )" + std::string(bits) +
                          R"(, "group_size": 128, "desc_act": false, "sym": true}})";
    CHECK_THAT(gpuplan::test::hf_config_error("{" + kLlamaSizesS51 + q),
               Contains("/quantization_config/bits: " + std::string(bits) + "-bit weights: vLLM runs") &&
                   Contains("does not size"));
  }
  CHECK_THAT(gpuplan::test::hf_config_error("{" + kLlamaSizesS51 + R"(, "quantization_config": {"quant_method": "auto-round", "bits": 3}})"),
             Contains("does not size 2- or 3-bit"));
}

TEST_CASE("hf import s51: a wrapper without its text model says so", "[hf]") {
  // PaliGemma writes hidden_size (the projector's width) at the top level, no layer count.
  const std::string pali = R"({"model_type": "paligemma", "hidden_size": 2048, "projection_dim": 2048,
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
      "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14}})";
  CHECK_THAT(gpuplan::test::hf_config_error(pali), Contains("/text_config: missing: the text model's sizes are missing"));
  const std::string ultravox = R"({"model_type": "ultravox", "hidden_size": 4096, "vocab_size": 128256,
    "audio_model_id": "openai/whisper-large-v3-turbo", "text_model_id": "meta-llama/Llama-3.1-8B-Instruct"})";
  CHECK_THAT(gpuplan::test::hf_config_error(ultravox),
             Contains("/text_model_id: the language model is \"meta-llama/Llama-3.1-8B-Instruct\"") &&
                 Contains("give that model's config.json"));
}

TEST_CASE("hf import s51: a UTF-8 byte-order mark is refused naming the file", "[hf]") {
  const std::string body = "{" + kLlamaSizesS51 + "}";
  CHECK_NOTHROW(read_s51(body));
  CHECK_THAT(gpuplan::test::hf_config_error("\xEF\xBB\xBF" + body), Contains("config.json: starts with a UTF-8 byte-order mark"));
}

TEST_CASE("hf import s51: compressed-tensors marlin-24 is refused naming its format", "[hf]") {
  const std::string ct = R"(, "quantization_config": {"quant_method": "compressed-tensors", "format": "%s",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
      "strategy": "group", "group_size": 128, "symmetric": true}}}, "ignore": ["lm_head"]}})";
  const auto with_format = [&ct](const std::string& format) {
    std::string q = ct;
    q.replace(q.find("%s"), 2, format);
    return "{" + kLlamaSizesS51 + q;
  };
  CHECK_NOTHROW(read_s51(with_format("pack-quantized")));
  CHECK_THAT(gpuplan::test::hf_config_error(with_format("marlin-24")),
             Contains("/quantization_config/format: \"marlin-24\" (2:4-sparse int4 weights) is not modeled"));
}

// "." or "./config.json" names the directory it stands for (a model called "." was printed).
TEST_CASE("hf import s51: a config given as . is named for its directory", "[hf]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "gpuplan-s51-dot" / "my-model";
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "config.json");
    out << R"({"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 2,
               "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 1000,
               "max_position_embeddings": 2048, "_name_or_path": "someone/training-run"})";
  }
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  const auto named = [](const std::string& given) {
    return gpuplan::model_from_hf_config_file(given).id;
  };
  CHECK(named(".") == "my-model");
  CHECK(named("./config.json") == "my-model");
  CHECK(named("config.json") == "my-model");
  fs::current_path(before);
  CHECK(named((dir / "config.json").string()) == "my-model");
}
