// Configs whose layers gpuplan does not model (state-space, recurrent, hybrid) must fail with the
// field that says so, not import as a transformer with a wrong parameter count.
#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>

#include "test_support.hpp"

using Catch::Matchers::Contains;

namespace {
using gpuplan::test::fixture;
}  // namespace

TEST_CASE("hf import: a state-space model_type is refused by name", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-state-space.json")),
                    Contains("/model_type") && Contains("\"mamba\""));
}

TEST_CASE("hf import: a hybrid layer pattern is refused, though every transformer field is there", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-hybrid-layers.json")),
                    Contains("/hybrid_override_pattern") && Contains("nemotron_h"));
}

TEST_CASE("hf import: layers sharing another layer's KV are refused inside text_config", "[hf]") {
  CHECK_THROWS_WITH(gpuplan::model_from_hf_config_file(fixture("bad-hf-kv-shared-layers.json")),
                    Contains("/text_config/num_kv_shared_layers") && Contains("gemma4_text"));
}
