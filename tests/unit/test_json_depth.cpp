// Nesting depth is capped when JSON is parsed, so hostile files fail with exit 2 rather than
// overflowing the stack in later recursive copies (seen under ASan at 30,000 levels).
#include <string>

#include <catch2/catch.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>

namespace {
std::string nested(int levels) {
  return "{\"num_hidden_layers\": 2, \"hidden_size\": " + std::string(static_cast<std::size_t>(levels), '[') + "1" +
         std::string(static_cast<std::size_t>(levels), ']') + "}";
}
}  // namespace

TEST_CASE("json: nesting past the cap is rejected while parsing, with the file named", "[json]") {
  REQUIRE_THROWS_WITH(gpuplan::model_from_hf_config(nested(30'000), "deep.json"),
                      Catch::Contains("deep.json: invalid JSON: nested deeper than 64 levels"));
  REQUIRE_THROWS_WITH(gpuplan::model_from_hf_config(nested(64), "deep.json"),
                      Catch::Contains("nested deeper than"));
}

TEST_CASE("json: nesting under the cap reaches the field checks", "[json]") {
  REQUIRE_THROWS_WITH(gpuplan::model_from_hf_config(nested(62), "shallow.json"),
                      Catch::Contains("shallow.json: /hidden_size"));
}
