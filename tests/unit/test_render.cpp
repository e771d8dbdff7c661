#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/render.hpp>

using Catch::Matchers::Contains;
using gpuplan::Format;
using gpuplan::RenderOptions;

namespace {
gpuplan::FitResult sample() {
  const auto& c = gpuplan::Catalog::builtin();
  return gpuplan::fit(c.model("llama-3.1-70b"), c.gpu("h200-sxm"),
                      gpuplan::FitRequest{.weights_dtype = gpuplan::DType::fp8, .context_tokens = 32768,
                                          .concurrency = 64});
}
}  // namespace

TEST_CASE("render: fit JSON carries the documented contract", "[render]") {
  const std::string json = gpuplan::render_fit(sample(), RenderOptions{.format = Format::json});
  for (const char* key : {"\"schema_version\": 1", "\"fits\": false", "\"per_gpu\"", "\"capacity_bytes\"",
                          "\"weights_bytes\"", "\"kv_cache_bytes\"", "\"activation_bytes\"", "\"reserve_bytes\"",
                          "\"free_bytes\"", "\"kv_bytes_per_token\": 327680", "\"kv_budget_bytes\"",
                          "\"max_concurrent_sequences\"", "\"max_context_tokens\"", "\"layout\"",
                          "\"inputs\"", "\"context_tokens\": 32768"}) {
    CHECK_THAT(json, Contains(key));
  }
  CHECK_THAT(json, !Contains(": nan") && !Contains(": inf") && !Contains(": -inf"));  // "provenance" holds "nan"
}

TEST_CASE("render: table, csv and markdown state their units", "[render]") {
  const auto r = sample();
  const std::string table = gpuplan::render_fit(r, RenderOptions{});
  CHECK_THAT(table, Contains("sizes in GB (1e9 bytes)"));
  CHECK_THAT(table, Contains("verdict: DOES NOT FIT"));
  const std::string gib = gpuplan::render_fit(r, RenderOptions{.units = gpuplan::ByteUnits::gib});
  CHECK_THAT(gib, Contains("sizes in GiB (2^30 bytes)"));
  const std::string csv = gpuplan::render_fit(r, RenderOptions{.format = Format::csv});
  CHECK_THAT(csv, Contains("table,memory,GB\nPer GPU,capacity,150.75\n"));
  const std::string md = gpuplan::render_fit(r, RenderOptions{.format = Format::markdown});
  CHECK_THAT(md, Contains("| memory | GB |\n| --- | ---: |"));
}

TEST_CASE("render: formats and units parse by name", "[render]") {
  CHECK(gpuplan::parse_format("markdown", "--format") == Format::markdown);
  CHECK_THROWS_WITH(gpuplan::parse_format("xml", "--format"),
                    "--format: unknown format 'xml'; known: table, json, csv, markdown");
  CHECK_THROWS_AS(gpuplan::parse_byte_units("mb", "--units"), gpuplan::InputError);
}

TEST_CASE("render: catalog listings in every format", "[render]") {
  const auto& c = gpuplan::Catalog::builtin();
  CHECK_THAT(gpuplan::render_gpu_list(c, RenderOptions{}), Contains("h200-sxm"));
  CHECK_THAT(gpuplan::render_model_list(c, RenderOptions{.format = Format::json}), Contains("\"params_total\""));
  CHECK_THAT(gpuplan::render_price_list(c, RenderOptions{.format = Format::csv}), Contains("lyceum,h100-sxm,on-demand,-,2.790"));
  CHECK_THAT(gpuplan::render_gpu(c.gpu("h200-sxm"), RenderOptions{}), Contains("1g.18gb"));
  CHECK_THAT(gpuplan::render_model(c.model("deepseek-v3"), RenderOptions{}), Contains("kv_lora_rank"));
}
