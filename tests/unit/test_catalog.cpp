#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/kv_cache.hpp>

#include "test_support.hpp"

using Catch::Matchers::WithinRel;
using gpuplan::Catalog;
using gpuplan::InputError;

namespace {
using gpuplan::test::fixture;

const char* kGpu = R"({"id": "x-gpu", "name": "X", "vendor": "nvidia", "memory_gb": 80,
  "memory_bandwidth_tb_per_s": 3.35, "dense_tflop_per_s": {"bf16": 989}, "tdp_w": 700,
  "host_link": {"kind": "pcie5-x16", "gb_per_s_per_direction": 64}, "sources": ["test"]})";

std::string with_gpus(const std::string& gpus) {
  return R"({"schema_version": 1, "gpus": [)" + gpus + "]}";
}
}  // namespace

TEST_CASE("catalog: a GPU entry converts datasheet units to SI", "[catalog]") {
  Catalog c;
  const auto report = c.merge_text(with_gpus(kGpu), "t.json");
  CHECK(report.gpus == 1);
  const auto& g = c.gpu("x-gpu");
  CHECK_THAT(g.memory_bytes, WithinRel(80e9, 1e-12));
  CHECK_THAT(g.memory_bandwidth_bytes_per_s, WithinRel(3.35e12, 1e-12));
  CHECK_THAT(g.dense_flop_per_s.at("bf16"), WithinRel(989e12, 1e-12));
  CHECK_THAT(g.host_link.bytes_per_s_per_direction, WithinRel(64e9, 1e-12));
  CHECK_FALSE(g.usable_memory_bytes.has_value());
  CHECK_THAT(g.fit_memory_bytes(), WithinRel(80e9, 1e-12));
}

TEST_CASE("catalog: errors name the file and the JSON pointer", "[catalog]") {
  Catalog c;
  SECTION("negative number") {
    std::string gpu = kGpu;
    gpu.replace(gpu.find("3.35"), 4, "-1");
    CHECK_THROWS_WITH(c.merge_text(with_gpus(gpu), "gpus.json"),
                      "gpus.json: /gpus/0/memory_bandwidth_tb_per_s: expected a positive number, got -1");
  }
  SECTION("unknown key with a suggestion") {
    std::string gpu = kGpu;
    gpu.replace(gpu.find("\"tdp_w\""), 7, "\"tdp_watts\"");
    CHECK_THROWS_WITH(c.merge_text(with_gpus(gpu), "gpus.json"),
                      "gpus.json: /gpus/0/tdp_watts: unknown field; did you mean 'tdp_w'?");
  }
  SECTION("missing field") {
    std::string gpu = kGpu;
    gpu.replace(gpu.find("\"tdp_w\": 700,"), 13, "");
    CHECK_THROWS_WITH(c.merge_text(with_gpus(gpu), "gpus.json"),
                      "gpus.json: /gpus/0/tdp_w: missing required field");
  }
  SECTION("mistyped field") {
    std::string gpu = kGpu;
    gpu.replace(gpu.find("80"), 2, "\"80\"");
    CHECK_THROWS_WITH(c.merge_text(with_gpus(gpu), "gpus.json"),
                      "gpus.json: /gpus/0/memory_gb: expected a positive number, got \"80\"");
  }
  SECTION("absurd value") {
    std::string gpu = kGpu;
    gpu.replace(gpu.find("80"), 2, "8e12");
    CHECK_THROWS_WITH(c.merge_text(with_gpus(gpu), "gpus.json"),
                      "gpus.json: /gpus/0/memory_gb: 8000000000000.0 is implausibly large (limit 4096)");
  }
  SECTION("duplicate id") {
    CHECK_THROWS_WITH(c.merge_text(with_gpus(std::string(kGpu) + "," + kGpu), "gpus.json"),
                      "gpus.json: /gpus/1/id: duplicate GPU id 'x-gpu'");
  }
  SECTION("malformed JSON names line and column") {
    CHECK_THROWS_WITH(c.merge_text("{\"schema_version\": 1,,}", "gpus.json"),
                      Catch::Matchers::StartsWith("gpus.json: invalid JSON: parse error at line 1, column 22"));
  }
  SECTION("schema version") {
    CHECK_THROWS_WITH(c.merge_text(R"({"schema_version": 2})", "gpus.json"),
                      "gpus.json: /schema_version: expected an integer between 1 and 1, got 2");
  }
  SECTION("a bad entry leaves the catalog untouched") {
    CHECK_THROWS_AS(c.merge_text(with_gpus(std::string(kGpu) + ", {}"), "gpus.json"), InputError);
    CHECK(c.gpus().empty());
  }
}

TEST_CASE("catalog: user entries override built-in ids and say so", "[catalog]") {
  Catalog c = Catalog::builtin();
  const auto report = c.merge_file(std::string(GPUPLAN_EXAMPLES_DIR) + "/my-gpus.json");
  REQUIRE(report.overrides.size() == 1);
  CHECK_THAT(report.overrides[0], Catch::Matchers::StartsWith("GPU 'h100-sxm' (was from gpus.json); fields from this file:"));
  CHECK(report.dropped.empty());
  CHECK_THAT(c.gpu("h100-sxm").fit_memory_bytes(), WithinRel(81000.0 * 1048576.0, 1e-12));
  // The file gives no scale-up link, MIG table or sparse figures: merged field by field, the
  // built-in ones stay.
  REQUIRE(c.gpu("h100-sxm").scale_up);
  CHECK(c.gpu("h100-sxm").scale_up->kind == "nvlink4");
  CHECK(c.gpu("h100-sxm").mig_profiles.size() == Catalog::builtin().gpu("h100-sxm").mig_profiles.size());
  CHECK_FALSE(c.gpu("h100-sxm").mig_profiles.empty());
  CHECK(c.find_gpu("lab-gpu-96") != nullptr);
  CHECK(c.prices().back().provider == "our-lab");
}

TEST_CASE("catalog: unknown names list the closest ids", "[catalog]") {
  const Catalog& c = Catalog::builtin();
  CHECK_THROWS_WITH(c.gpu("h100-sxm6"),
                    Catch::Matchers::StartsWith("unknown GPU 'h100-sxm6'; closest: h100-sxm"));
  CHECK_THROWS_WITH(c.model("llama-3.1-71b"),
                    Catch::Matchers::StartsWith("unknown model 'llama-3.1-71b'; closest: llama-3.1-70b"));
  CHECK(&c.gpu("H200-SXM") == &c.gpu("h200-sxm"));  // ids are case-insensitive
}

TEST_CASE("catalog: prices must name a known GPU and mode", "[catalog]") {
  Catalog c = Catalog::builtin();
  CHECK_THROWS_WITH(c.merge_file(fixture("bad-price-gpu.json")),
                    Catch::Matchers::Contains("/prices/0/gpu: unknown GPU 'h100-sxm5'; closest: h100-sxm"));
  CHECK_THROWS_WITH(c.merge_file(fixture("bad-price-mode.json")),
                    Catch::Matchers::Contains("/prices/0/mode: unknown pricing mode 'ondemand'; closest: on-demand; known: on-demand"));
}

TEST_CASE("catalog: a missing file is bad input", "[catalog]") {
  Catalog c;
  CHECK_THROWS_WITH(c.merge_file("/nonexistent/cat.json"),
                    "/nonexistent/cat.json: catalog file does not exist");
}

TEST_CASE("catalog: what an engine loads a config.json's model by", "[catalog]") {
  // The folder of a config.json (a downloaded model directory, given itself or by its
  // config.json), never the saved _name_or_path (helper s51 F3: a training run's name); a lone
  // file named otherwise has none, or a placeholder when its saved name was not used.
  CHECK(gpuplan::model_from_hf_config_file(fixture("hf-llama-3.1-8b.json")).hf_repo ==
        "<checkpoint-directory-of-hf-llama-3.1-8b.json>");
  const auto dir = gpuplan::model_from_hf_config_file(fixture("hf/qwen2.5-7b"));
  CHECK(dir.id == "qwen2.5-7b");
  CHECK(dir.hf_repo == fixture("hf/qwen2.5-7b"));
  CHECK(gpuplan::model_from_hf_config_file(fixture("hf/qwen2.5-7b/config.json")).hf_repo == fixture("hf/qwen2.5-7b"));
  const auto lone = gpuplan::model_from_hf_config_file(fixture("hf-mixtral-8x7b.json"));
  CHECK(lone.id == "hf-mixtral-8x7b");
  CHECK(lone.hf_repo.empty());
}

TEST_CASE("catalog: Hugging Face config.json files", "[catalog]") {
  SECTION("dense Llama: parameters as the catalog entry") {
    const auto m = gpuplan::model_from_hf_config_file(fixture("hf-llama-3.1-8b.json"));
    CHECK(m.id == "hf-llama-3.1-8b");
    CHECK_THAT(gpuplan::count_params(m).total(),
               WithinRel(gpuplan::count_params(Catalog::builtin().model("llama-3.1-8b")).total(), 1e-12));
  }
  SECTION("MoE Mixtral") {
    const auto m = gpuplan::model_from_hf_config_file(fixture("hf-mixtral-8x7b.json"));
    REQUIRE(m.moe);
    CHECK(m.moe->routed_experts == 8);
    CHECK(m.layer_window_tokens.empty());  // sliding_window: null
    CHECK_THAT(gpuplan::count_params(m).active(), WithinRel(12.9e9, 0.002));
  }
  SECTION("MLA DeepSeek") {
    const auto m = gpuplan::model_from_hf_config_file(fixture("hf-deepseek-v3.json"));
    REQUIRE(m.mla);
    CHECK_THAT(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16), WithinRel(70272.0, 1e-12));
    CHECK_THAT(gpuplan::count_params(m).total(), WithinRel(671e9, 0.001));
  }
  SECTION("multimodal Gemma 3 uses text_config, 5 local : 1 global layers") {
    const auto m = gpuplan::model_from_hf_config_file(fixture("hf-gemma-3-27b.json"));
    CHECK(m.tie_word_embeddings);
    REQUIRE(m.layer_window_tokens.size() == 62);
    CHECK(m.layer_window_tokens[0] == 1024);
    CHECK(m.layer_window_tokens[5] == 0);
  }
  SECTION("gpt-oss layer_types alternate sliding and full") {
    const auto m = gpuplan::model_from_hf_config_file(fixture("hf-gpt-oss-120b.json"));
    REQUIRE(m.layer_window_tokens.size() == 36);
    CHECK(m.layer_window_tokens[0] == 128);
    CHECK(m.layer_window_tokens[1] == 0);
    CHECK_THAT(gpuplan::count_params(m).total(), WithinRel(116.83e9, 0.001));
  }
  SECTION("Qwen2 with use_sliding_window false has no window, and qkv biases") {
    const auto m = gpuplan::model_from_hf_config_file(fixture("hf-qwen2.5-7b.json"));
    CHECK(m.layer_window_tokens.empty());
    CHECK(m.qkv_bias);
  }
  SECTION("errors name the file and pointer") {
    CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-missing-layers.json")),
                      Catch::Matchers::Contains("bad-hf-missing-layers.json: /num_hidden_layers: missing"));
    CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("hf-bad-kv-heads.json")),
                      Catch::Matchers::EndsWith("hf-bad-kv-heads.json: /num_key_value_heads: 7 does not divide num_attention_heads 32"));
    // A known model_type without its layer count had read as Qwen3Config's default 32 (Qwen3-4B
    // has 36: 3.62 B instead of 4.02 B); save_pretrained always writes it at the top level. Inside
    // text_config a field equal to the class default is omitted, and still read from the class.
    CHECK_THROWS_WITH(gpuplan::model_from_hf_config(R"({"model_type": "qwen3", "hidden_size": 2560,
        "intermediate_size": 9728, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "vocab_size": 151936, "max_position_embeddings": 40960})", "q.json"),
                      Catch::Matchers::Contains("q.json: /num_hidden_layers: missing"));
    const auto nested = gpuplan::model_from_hf_config(R"({"model_type": "llava", "text_config": {"model_type": "llama",
        "vocab_size": 32064}, "vision_config": null})", "llava.json");
    CHECK(nested.num_hidden_layers == 32);
    // google/embeddinggemma-300m: a Gemma 3 text class with bidirectional attention, an encoder.
    CHECK_THROWS_WITH(gpuplan::model_from_hf_config(R"({"model_type": "gemma3_text", "architectures": ["Gemma3TextModel"],
        "hidden_size": 768, "num_hidden_layers": 24, "num_attention_heads": 3, "num_key_value_heads": 1,
        "head_dim": 256, "intermediate_size": 1152, "vocab_size": 262144, "use_bidirectional_attention": true})",
                                                    "eg.json"),
                      Catch::Matchers::Contains("eg.json: /use_bidirectional_attention") &&
                          Catch::Matchers::Contains("embedding encoder"));
  }
}

TEST_CASE("catalog: closest_names prefers small edits and substrings", "[catalog]") {
  const std::vector<std::string> known{"h100-sxm", "h100-pcie", "h200-sxm", "l4"};
  const auto close = gpuplan::closest_names("h100", known);
  REQUIRE(close.size() >= 2);
  CHECK(close[0] == "h100-sxm");
  CHECK(close[1] == "h100-pcie");
  CHECK(gpuplan::closest_names("zzzzzzzzzzzz", known).empty());
}

// meas-nvidia s57 F3: a DGX Spark holds one GB10, so two or four of them talk over ConnectX-7; with
// the 8-GPU default node they had been one NVLink-C2C box (TP 4 over 4 Sparks: 511 tok/s for 437).
TEST_CASE("catalog: a GPU sold only in 1-GPU systems makes that the default node", "[catalog]") {
  const Catalog& c = gpuplan::test::cat();
  CHECK(c.gpu("gb10").gpus_per_system == std::optional<std::uint64_t>(1));
  CHECK(c.gpu("gb10").default_gpus_per_node() == 1);
  CHECK_FALSE(c.gpu("h100-sxm").gpus_per_system.has_value());
  CHECK(c.gpu("h100-sxm").default_gpus_per_node() == gpuplan::kDefaultGpusPerNode);
}
