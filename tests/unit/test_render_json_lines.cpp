// JSON Lines rendering for `gpuplan batch`: one line, the same values as the indented document.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/render.hpp>

using gpuplan::Format;
using gpuplan::RenderOptions;

TEST_CASE("render_json_line: a rendered document on one line, compact, same values", "[render][batch]") {
  const auto& c = gpuplan::Catalog::builtin();
  const auto result = gpuplan::fit(c.model("llama-3.1-70b"), c.gpu("h200-sxm"),
                                   gpuplan::FitRequest{.weights_dtype = gpuplan::DType::fp8, .context_tokens = 32768,
                                                       .concurrency = 64});
  const std::string pretty = gpuplan::render_fit(result, RenderOptions{.format = Format::json});
  const std::string line = gpuplan::render_json_line(pretty);
  REQUIRE(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  // Compact text is exactly what nlohmann prints without indentation.
  CHECK(line == nlohmann::ordered_json::parse(pretty).dump() + "\n");
}

TEST_CASE("render_json_line: whitespace inside strings and escaped quotes are kept", "[render][batch]") {
  const std::string pretty = "{\n  \"a b\": \"x \\\" y\\\\\",\n  \"c\": [\n    1,\n    \" \\n \"\n  ]\n}\n";
  CHECK(gpuplan::render_json_line(pretty) == "{\"a b\":\"x \\\" y\\\\\",\"c\":[1,\" \\n \"]}\n");
}

TEST_CASE("render_batch_error: line, field (null for the whole line) and message, escaped", "[render][batch]") {
  const auto with_field = nlohmann::json::parse(gpuplan::render_batch_error(7, "context", "bad \"32q\""));
  CHECK(with_field["error"]["line"] == 7);
  CHECK(with_field["error"]["field"] == "context");
  CHECK(with_field["error"]["message"] == "bad \"32q\"");
  const std::string whole = gpuplan::render_batch_error(3, "", "not valid JSON");
  CHECK(whole == "{\"error\":{\"line\":3,\"field\":null,\"message\":\"not valid JSON\"}}\n");
}
