// Real Hugging Face config.json files (tests/fixtures/hf, sources in its README.md and
// manifest.json): the importer's parameter count against the publisher's, and KV bytes per
// token against the textbook formula computed here from the manifest's inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/kv_cache.hpp>

using Catch::Matchers::WithinRel;

namespace {

nlohmann::json manifest() {
  std::ifstream in(std::string(GPUPLAN_FIXTURES_DIR) + "/hf/manifest.json");
  return nlohmann::json::parse(in);
}

std::string dir_of(const nlohmann::json& entry) {
  return std::string(GPUPLAN_FIXTURES_DIR) + "/hf/" + entry["name"].get<std::string>();
}

}  // namespace

TEST_CASE("hf configs: at least 20 real files across architectures", "[hf][reference]") {
  CHECK(manifest()["models"].size() >= 20);
}

TEST_CASE("hf configs: total parameters match the published counts", "[hf][reference]") {
  const nlohmann::json all = manifest();  // a named object: a range over a temporary's member dangles
  for (const auto& entry : all["models"]) {
    const std::string name = entry["name"];
    INFO(name);
    const gpuplan::ModelSpec m = gpuplan::model_from_hf_config_file(dir_of(entry));
    const gpuplan::ParamCount p = gpuplan::count_params(m);
    // Falcon checkpoints store the tied LM head as a tensor of its own, and count it.
    const double stored = p.total() + (entry.value("checkpoint_stores_tied_head", false) ? p.embedding : 0.0);
    CHECK_THAT(stored, WithinRel(entry["published_params"].get<double>(), entry["tolerance"].get<double>()));
    if (entry.contains("published_active_params")) {
      CHECK_THAT(p.active() - p.vision,
                 WithinRel(entry["published_active_params"].get<double>(), entry["active_tolerance"].get<double>()));
    }
  }
}

TEST_CASE("hf configs: KV bytes per token follow the formula exactly", "[hf][reference]") {
  const nlohmann::json all = manifest();  // a named object: a range over a temporary's member dangles
  for (const auto& entry : all["models"]) {
    const std::string name = entry["name"];
    INFO(name);
    const gpuplan::ModelSpec m = gpuplan::model_from_hf_config_file(dir_of(entry));
    const auto& kv = entry["kv"];
    const double layers = kv["attention_layers"].get<double>();
    // bf16: 2 bytes. K and V per head, or one shared latent (MLA).
    const double expected = kv.contains("mla_latent")
                                ? layers * kv["mla_latent"].get<double>() * 2.0
                                : 2.0 * layers * kv["kv_heads"].get<double>() * kv["head_dim"].get<double>() * 2.0;
    CHECK(std::llround(gpuplan::kv_bytes_per_token(m, gpuplan::DType::bf16)) == std::llround(expected));
    CHECK(std::llround(gpuplan::linear_state_bytes_per_sequence(m)) ==
          std::llround(entry.value("linear_state_bytes_per_sequence", 0.0)));
  }
}
