// The built-in catalog is parsed when first needed (start-to-exit time, issue 14): a GPU or model
// looked up alone must be exactly what the whole-file parse gives, and laziness must never change
// an answer or an error.
#include <catch2/catch.hpp>

#include <string>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/render.hpp>

using gpuplan::Catalog;
using gpuplan::InputError;

namespace {

gpuplan::RenderOptions json() {
  gpuplan::RenderOptions o;
  o.format = gpuplan::Format::json;
  return o;
}

}  // namespace

TEST_CASE("lazy catalog: every GPU and model parsed alone equals the whole-file parse", "[catalog][lazy]") {
  const Catalog whole = Catalog::embedded();
  const Catalog lazy = Catalog::embedded();
  REQUIRE(whole.gpus().size() > 10);
  for (const auto& g : whole.gpus()) {
    const gpuplan::GpuSpec* alone = lazy.find_gpu(g.id);
    REQUIRE(alone != nullptr);
    CHECK(gpuplan::render_gpu(*alone, json()) == gpuplan::render_gpu(g, json()));
    CHECK(alone->origin == g.origin);
  }
  REQUIRE(whole.models().size() > 10);
  for (const auto& m : whole.models()) {
    const gpuplan::ModelSpec* alone = lazy.find_model(m.id);
    REQUIRE(alone != nullptr);
    CHECK(gpuplan::render_model(*alone, json()) == gpuplan::render_model(m, json()));
  }
  CHECK(lazy.find_gpu("no-such-gpu") == nullptr);
  CHECK(lazy.find_model("no-such-model") == nullptr);
}

TEST_CASE("lazy catalog: names resolve as with everything parsed", "[catalog][lazy]") {
  const Catalog whole = Catalog::embedded();
  (void)whole.gpus();
  (void)whole.models();
  std::vector<std::string> names{"H100-SXM", "h100", "h200", "b200", "mi300x", "gaudi3", "l4", "h1", "nvidia",
                                 "llama3-70b", "Llama-3.1-70B", "mixtral-8x7", "qwen3", "zz-unknown"};
  for (const auto& g : whole.gpus()) {
    names.insert(names.end(), g.aliases.begin(), g.aliases.end());
  }
  for (const std::string& name : names) {
    const Catalog lazy = Catalog::embedded();
    const auto outcome = [&name](const Catalog& c) {
      std::string out;
      try {
        out += "gpu:" + c.gpu(name).id;
      } catch (const InputError& e) {
        out += std::string("gpu error:") + e.what();
      }
      try {
        out += " model:" + c.model(name).id;
      } catch (const InputError& e) {
        out += std::string(" model error:") + e.what();
      }
      for (const std::string& note : c.take_notes()) {
        out += " note:" + note;
      }
      return out;
    };
    CHECK(outcome(lazy) == outcome(whole));
  }
}

TEST_CASE("lazy catalog: prices and benchmarks parse on first use, before any merge", "[catalog][lazy]") {
  SECTION("a user price overriding a built-in one is reported against prices.json") {
    Catalog c = Catalog::embedded();
    const auto report = c.merge_text(R"json({"schema_version": 1, "prices": [{"provider": "lyceum", "gpu": "h100-sxm",
      "mode": "on-demand", "usd_per_gpu_hour": 2.5, "date": "2026-05-15", "region": "EU (Spain, Paris, Nordics)",
      "sources": ["test"]}]})json",
                                     "user.json");
    REQUIRE(report.overrides.size() == 1);
    CHECK(report.overrides.front().find("was from prices.json") != std::string::npos);
    CHECK(c.prices().size() == Catalog::embedded().prices().size());
  }
  SECTION("a user GPU overriding a built-in one merges into the whole built-in entry") {
    Catalog c = Catalog::embedded();
    const double before = c.gpu("h100-sxm").memory_bandwidth_bytes_per_s;
    const auto report = c.merge_text(
        R"({"schema_version": 1, "gpus": [{"id": "h100-sxm", "memory_bandwidth_tb_per_s": 3.0}]})", "user.json");
    REQUIRE(report.overrides.size() == 1);
    CHECK(report.overrides.front().find("was from gpus.json") != std::string::npos);
    CHECK(c.gpu("h100-sxm").memory_bandwidth_bytes_per_s < before);
    CHECK(c.gpus().size() == Catalog::embedded().gpus().size());
  }
  SECTION("a built-in price dated after the chosen today fails when prices are first used, every time") {
    Catalog c = Catalog::embedded();
    c.set_today(gpuplan::parse_iso_date("2020-01-01", "today"));
    CHECK(c.gpu("h100-sxm").id == "h100-sxm");  // GPUs and models need no prices
    CHECK_THROWS_WITH(c.prices(), Catch::Contains("prices.json: /prices/") && Catch::Contains("is in the future (today is 2020-01-01)"));
    CHECK_THROWS_AS(c.prices(), InputError);  // a failed parse never leaves an empty list
  }
  SECTION("benchmarks name GPUs and models checked without parsing them all") {
    const Catalog c = Catalog::embedded();
    CHECK_FALSE(c.benchmarks().empty());
    CHECK(c.gpus().size() == Catalog::builtin().gpus().size());
  }
}
