// Plan files: the loader's errors name the file and JSON pointer; the settings keep the flags'
// names; the shipped examples and the JSON Schema agree with the loader.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <gpuplan/error.hpp>
#include <gpuplan/plan_diff.hpp>
#include <gpuplan/plan_file.hpp>
#include <gpuplan/provenance.hpp>

using gpuplan::parse_plan_file;

namespace {

const std::filesystem::path kExamples = GPUPLAN_EXAMPLES_DIR;

gpuplan::PlanFile parse(const std::string& text) { return parse_plan_file(text, "p.json", kExamples / "plans"); }

std::string one(const std::string& fields) {
  return R"({"schema_version": 1, "deployments": [{"name": "a", "model": "llama-3.1-8b", "gpu": "h100-sxm")" +
         fields + "}]}";
}

}  // namespace

TEST_CASE("plan file: settings keep the flag names", "[plan]") {
  const auto plan = parse(one(R"(, "tp": 2, "weights-dtype": "fp8", "input": "32k", "sparse": true, "utilization": 0.5)"));
  REQUIRE(plan.deployments.size() == 1);
  const auto& d = plan.deployments[0];
  REQUIRE(d.name == "a");
  REQUIRE(d.settings.size() == 7);
  REQUIRE(d.settings[0].flag == "--gpu");  // key order: JSON objects are unordered
  REQUIRE(d.setting("--tp")->value == "2");
  REQUIRE(d.setting("--tp")->pointer == "/deployments/0/tp");
  REQUIRE(d.setting("--input")->value == "32k");
  REQUIRE(d.setting("--sparse")->is_switch);
  REQUIRE(d.setting("--utilization")->value == "0.5");
  REQUIRE(d.expect.empty());
}

TEST_CASE("plan file: expectations are typed numbers with their unit in the name", "[plan]") {
  const auto plan = parse(one(R"(, "expect": {"fits": true, "max_itl_ms": 40, "min_concurrent_sequences": 8})"));
  const auto& e = plan.deployments[0].expect;
  REQUIRE(e.fits == true);
  REQUIRE(e.max_itl_ms == 40.0);
  REQUIRE(e.min_concurrent_sequences == 8u);
  REQUIRE_FALSE(e.max_ttft_ms.has_value());
  REQUIRE_THROWS_WITH(parse(one(R"(, "expect": {"max_itl_ms": "40ms"})")),
                      Catch::Contains("p.json: /deployments/0/expect/max_itl_ms: expected a positive number in "
                                      "milliseconds"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "expect": {"max_itl_ms": -1})")),
                      Catch::Contains("/deployments/0/expect/max_itl_ms"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "expect": {"fits": "yes"})")),
                      Catch::Contains("/deployments/0/expect/fits: expected true or false"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "expect": {"min_concurrent_sequences": 2.5})")),
                      Catch::Contains("/deployments/0/expect/min_concurrent_sequences"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "expect": {"max_itl": 40})")),
                      Catch::Contains("/deployments/0/expect/max_itl: unknown field; did you mean 'max_itl_ms'?"));
}

TEST_CASE("plan file: bad input names the file and JSON pointer", "[plan]") {
  REQUIRE_THROWS_WITH(parse("{\"schema_version\": 1,\n \"deployments\": [}"),
                      Catch::Contains("p.json: invalid JSON") && Catch::Contains("line 2"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "weight-dtype": "fp8")")),
                      Catch::Contains("p.json: /deployments/0/weight-dtype: unknown field; closest: weights-dtype"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "max_itl_ms": 5)")), Catch::Contains("put it under \"expect\""));
  REQUIRE_THROWS_WITH(parse(one(R"(, "tp": [2])")),
                      Catch::Contains("/deployments/0/tp: expected a string or a number, got array"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "sparse": 1)")), Catch::Contains("/deployments/0/sparse: expected true or false"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 2, "deployments": []})"),
                      Catch::Contains("p.json: /schema_version: plan schema version 2 is newer"));
  REQUIRE_THROWS_WITH(parse(R"({"deployments": []})"), Catch::Contains("/schema_version: missing required field"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployments": []})"),
                      Catch::Contains("/deployments: expected a non-empty array"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployments": [{"name": "a", "model": "x"}]})"),
                      Catch::Contains("/deployments/0/gpu: missing required field"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployments": [{"name": "a", "gpu": "x"}]})"),
                      Catch::Contains("/deployments/0/model: missing required field"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployments": [{"name": "a", "model": "m", "gpu": "g"},
                                                                     {"name": "a", "model": "m", "gpu": "g"}]})"),
                      Catch::Contains("/deployments/1/name: deployment name 'a' is used twice"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployment": []})"),
                      Catch::Contains("/deployment: unknown field; did you mean 'deployments'?"));
}

// A null expectation had been read as absent: check printed PASS with no gate, exit 0 (helper s57
// badinput F1). A plan has no null: every key left unset is left out.
TEST_CASE("plan file: null is refused, naming the key, not read as unset", "[plan]") {
  for (const char* key : {"fits", "min_concurrent_sequences", "max_itl_ms", "max_ttft_ms", "max_monthly_usd",
                          "min_output_tokens_per_s", "max_usd_per_million_tokens"}) {
    INFO(key);
    REQUIRE_THROWS_WITH(parse(one(std::string(R"(, "expect": {")") + key + R"(": null})")),
                        Catch::Contains(std::string("p.json: /deployments/0/expect/") + key + ": null is not a value"));
  }
  REQUIRE_THROWS_WITH(parse(one(R"(, "expect": null)")),
                      Catch::Contains("p.json: /deployments/0/expect: null is not a value here"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "description": null)")),
                      Catch::Contains("p.json: /deployments/0/description: null is not a value here"));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "description": null, "deployments": [{"name": "a", "model": "m", "gpu": "g"}]})"),
                      Catch::Contains("p.json: /description: null is not a value here"));
  REQUIRE_THROWS_WITH(parse(one(R"(, "tp": null)")),
                      Catch::Contains("/deployments/0/tp: expected a string or a number, got null"));
}

// "fits": false beside an expectation measured on a running deployment could never pass: it was
// evaluated, and check failed on "fits" (helper s49 W6). The bill is paid either way.
TEST_CASE("plan file: fits false beside a figure of a running deployment is refused", "[plan]") {
  for (const char* key : {"min_concurrent_sequences", "min_output_tokens_per_s", "max_itl_ms", "max_ttft_ms",
                          "max_usd_per_million_tokens"}) {
    INFO(key);
    REQUIRE_THROWS_WITH(parse(one(std::string(R"(, "expect": {"fits": false, ")") + key + R"(": 4})")),
                        Catch::Contains(std::string("p.json: /deployments/0/expect/") + key +
                                        ": contradicts \"fits\": false"));
  }
  const auto plan = parse(one(R"(, "expect": {"fits": false, "max_monthly_usd": 5000})"));
  REQUIRE(plan.deployments[0].expect.max_monthly_usd == 5000.0);
}

// The command line takes --max-num-batched-tokens as --prefill-chunk; a plan said "unknown field"
// (helper s49 U4). Under both names at once it is refused.
TEST_CASE("plan file: max-num-batched-tokens is prefill-chunk's other name", "[plan]") {
  const auto plan = parse(one(R"(, "engine": "vllm", "max-num-batched-tokens": 4096)"));
  REQUIRE(plan.deployments[0].setting("--max-num-batched-tokens")->value == "4096");
  REQUIRE_THROWS_WITH(parse(one(R"(, "prefill-chunk": 4096, "max-num-batched-tokens": 8192)")),
                      Catch::Contains("/deployments/0/max-num-batched-tokens: is another name of \"prefill-chunk\""));
}

// A name of spaces printed as a blank row (helper s48).
TEST_CASE("plan file: a name of spaces is refused", "[plan]") {
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployments": [{"name": "   ", "model": "llama-3.1-8b", )"
                            R"("gpu": "h100-sxm"}]})"),
                      Catch::Contains("/deployments/0/name: is only spaces"));
}

// nlohmann's lexer stops at a NUL byte: a plan padded after its JSON was read (helper s48).
TEST_CASE("plan file: a NUL byte after the JSON is refused", "[plan]") {
  REQUIRE_THROWS_WITH(parse(one("") + std::string(1, '\0') + "x"), Catch::Contains("p.json: invalid JSON: a NUL byte"));
}

TEST_CASE("plan file: the load is a concurrency or a target, not both", "[plan]") {
  const auto plan = parse(one(R"(, "target-output-tokens-per-s": 5000)"));
  REQUIRE(plan.deployments[0].setting("--target-output-tokens-per-s")->value == "5000");
  REQUIRE_THROWS_WITH(parse(one(R"(, "concurrency": 8, "target-output-tokens-per-s": 5000)")),
                      Catch::Contains("p.json: /deployments/0/target-output-tokens-per-s: give the load either as "
                                      "\"concurrency\""));
  REQUIRE_THROWS_WITH(parse(one(R"(, "target-output-tokens-per-s": [1])")),
                      Catch::Contains("/deployments/0/target-output-tokens-per-s: expected a string or a number"));
}

TEST_CASE("plan file: a relative model-config is resolved against the plan's directory", "[plan]") {
  const auto plan = parse(R"({"schema_version": 1, "deployments": [{"name": "a", "gpu": "l40s",
                              "model-config": "configs/llama-3.1-8b-config.json"}]})");
  const std::filesystem::path resolved = plan.deployments[0].setting("--model-config")->value;
  REQUIRE(std::filesystem::is_regular_file(resolved));
  REQUIRE_THROWS_WITH(parse(R"({"schema_version": 1, "deployments": [{"name": "a", "gpu": "l40s",
                                "model-config": "configs/missing.json"}]})"),
                      Catch::Contains("p.json: /deployments/0/model-config:") &&
                          Catch::Contains("missing.json is not a file or directory (paths are relative to the plan file's directory)"));
}

TEST_CASE("plan file: the plan's hash follows its bytes", "[plan]") {
  REQUIRE(parse(one("")).content_hash == parse(one("")).content_hash);
  REQUIRE(parse(one("")).content_hash != parse(one(R"(, "tp": 1)")).content_hash);
  REQUIRE(parse(one("")).content_hash.starts_with("fnv1a64:"));
}

TEST_CASE("plan file: the shipped examples load", "[plan]") {
  int plans = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples / "plans")) {
    if (entry.path().extension() == ".json") {
      INFO(entry.path());
      REQUIRE_FALSE(gpuplan::load_plan_file(entry.path()).deployments.empty());
      ++plans;
    }
  }
  REQUIRE(plans >= 3);
}

TEST_CASE("plan file: docs/plan.schema.json names exactly the fields the loader takes", "[plan]") {
  std::ifstream in(kExamples / ".." / "docs" / "plan.schema.json");
  REQUIRE(in);
  const auto schema = nlohmann::json::parse(in);
  std::set<std::string> documented;
  for (const auto& [key, unused] : schema["$defs"]["deployment"]["properties"].items()) {
    documented.insert(key);
  }
  std::set<std::string> loaded{"name", "description", "expect"};
  for (const std::string_view name : gpuplan::plan_setting_names()) {
    loaded.insert(std::string(name));
  }
  REQUIRE(documented == loaded);
  std::set<std::string> expectations;
  for (const auto& [key, unused] : schema["$defs"]["deployment"]["properties"]["expect"]["properties"].items()) {
    expectations.insert(key);
  }
  REQUIRE(expectations == std::set<std::string>{"fits", "max_usd_per_million_tokens", "min_output_tokens_per_s",
                                                "max_itl_ms", "max_ttft_ms", "min_concurrent_sequences",
                                                "max_monthly_usd"});
}

TEST_CASE("provenance: a fingerprint tells parts apart and the built-in one is stable", "[plan]") {
  const std::array<std::string_view, 2> ab_c{"ab", "c"};
  const std::array<std::string_view, 2> a_bc{"a", "bc"};
  REQUIRE(gpuplan::fingerprint(ab_c) != gpuplan::fingerprint(a_bc));
  // FNV-1a 64 of the empty string is the offset basis (FNV specification, draft-eastlake-fnv).
  const std::array<std::string_view, 0> none{};
  REQUIRE(gpuplan::fingerprint(none) == "fnv1a64:cbf29ce484222325");
  const auto& p = gpuplan::builtin_provenance();
  REQUIRE(p.catalog_hash.size() == 8 + 16);
  REQUIRE(p.newest_price_date.size() == 10);
  REQUIRE(p.newest_price_date >= "2026-01-01");
}

// A deployment already failing on cost that also stops fitting keeps its verdict (FAIL), so the
// diff names the expectation that flipped: a new "does not fit" is what a CI gate must see.
TEST_CASE("diff: an expectation that flips is reported even when the verdict does not", "[plan][diff]") {
  gpuplan::DeploymentSnapshot old_d{.name = "mi300x-70b", .pass = false};
  old_d.checks = {{"fits", true}, {"max_usd_per_million_tokens (aws on-demand)", false}};
  gpuplan::DeploymentSnapshot new_d = old_d;
  new_d.checks[0].second = false;
  const gpuplan::PlanDiff diff =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}});
  REQUIRE(diff.flips.size() == 1);
  CHECK(diff.flips[0].deployment == "mi300x-70b");
  CHECK(diff.flips[0].expectation == "fits");
  CHECK(diff.flips[0].old_pass);
  CHECK_FALSE(diff.flips[0].new_pass);
  CHECK_FALSE(diff.empty());
}

// The common cost-cutting change moves a deployment from on-demand to reserved (or to another
// provider): its cost and its budget check change key, and must still be set side by side.
TEST_CASE("diff: a cost and a check whose pricing changed are paired not dropped", "[plan][diff]") {
  gpuplan::DeploymentSnapshot old_d{.name = "chat", .pass = false};
  old_d.usd_per_million_tokens = {{"aws on-demand", 4.885}};
  old_d.checks = {{"fits", true}, {"max_usd_per_million_tokens (aws on-demand)", false}};
  gpuplan::DeploymentSnapshot new_d{.name = "chat", .pass = true};
  new_d.usd_per_million_tokens = {{"aws reserved", 2.11}};
  new_d.checks = {{"fits", true}, {"max_usd_per_million_tokens (aws reserved 3y)", true}};
  const gpuplan::PlanDiff diff =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}});
  REQUIRE(diff.flips.size() == 2);
  CHECK(diff.flips[1].expectation == "max_usd_per_million_tokens (aws on-demand -> aws reserved 3y)");
  CHECK_FALSE(diff.flips[1].old_pass);
  CHECK(diff.flips[1].new_pass);
  const auto cost = std::find_if(diff.changes.begin(), diff.changes.end(),
                                 [](const gpuplan::FigureChange& c) { return c.figure.starts_with("USD/Mtok"); });
  REQUIRE(cost != diff.changes.end());
  CHECK(cost->figure == "USD/Mtok (aws on-demand -> aws reserved)");
  CHECK(cost->old_value == Approx(4.885));
  CHECK(cost->new_value == Approx(2.11));
  // Two providers each way: each pairs with its own provider, not by position.
  old_d.usd_per_million_tokens = {{"aws on-demand", 4.0}, {"gcp on-demand", 5.0}};
  new_d.usd_per_million_tokens = {{"gcp spot", 2.0}, {"aws reserved", 3.0}};
  const gpuplan::PlanDiff two =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}});
  std::vector<std::string> figures;
  for (const gpuplan::FigureChange& c : two.changes) {
    figures.push_back(c.figure);
  }
  CHECK(std::count(figures.begin(), figures.end(), "USD/Mtok (gcp on-demand -> gcp spot)") == 1);
  CHECK(std::count(figures.begin(), figures.end(), "USD/Mtok (aws on-demand -> aws reserved)") == 1);
}

// check writes an implied "fits" only when it fails: a plan that expects nothing of fits has no
// plan change, and the run without the check passed it (s52: "expect fits yes -> absent").
TEST_CASE("diff: an implied check is no plan change and its absence is an implied pass", "[plan][diff]") {
  gpuplan::DeploymentSnapshot old_d{.name = "qwen32b-l40s", .pass = false};
  old_d.checks = {{"fits", false}};
  old_d.implied = {"fits"};
  old_d.load_not_held = true;
  old_d.output_tokens_per_s = 164.0;
  gpuplan::DeploymentSnapshot new_d{.name = "qwen32b-l40s", .pass = true};
  new_d.output_tokens_per_s = 157.0;
  const gpuplan::PlanDiff diff =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}});
  CHECK(diff.plan_changes.empty());
  REQUIRE(diff.flips.size() == 2);
  CHECK(diff.flips[1].expectation == "fits");
  CHECK(diff.flips[1].implied);
  CHECK_FALSE(diff.flips[1].old_pass);
  CHECK_FALSE(diff.flips[1].new_absent);
  CHECK(diff.flips[1].new_pass);
  // Only the old run was capped: the figure says so, not "capped" of both.
  REQUIRE(diff.changes.size() == 1);
  CHECK(diff.changes[0].figure == "output tok/s (was capped: load not held)");
  const std::string text = gpuplan::render_plan_diff(diff, gpuplan::RenderOptions{});
  CHECK(text.find("pass (implied)") != std::string::npos);
  CHECK(text.find("absent") == std::string::npos);
}

// An edited run's subnormal figure would make the relative change overflow to +inf %.
TEST_CASE("diff: no relative change from a figure that is zero or subnormal", "[plan][diff]") {
  const gpuplan::FigureChange tiny{.deployment = "d", .figure = "USD/Mtok", .old_value = 1e-320, .new_value = 0.9673};
  CHECK_FALSE(tiny.relative().has_value());
  const gpuplan::FigureChange zero{.deployment = "d", .figure = "USD/Mtok", .old_value = 0.0, .new_value = 1.0};
  CHECK_FALSE(zero.relative().has_value());
  const gpuplan::FigureChange half{.deployment = "d", .figure = "USD/Mtok", .old_value = 2.0, .new_value = 1.0};
  REQUIRE(half.relative().has_value());
  CHECK(*half.relative() == Approx(-0.5));
}

// A plan that swaps one expectation for another has no flip between them: max_itl_ms passing and
// max_ttft_ms failing are two verdicts, not one that changed.
TEST_CASE("diff: checks of different expectations are never paired", "[plan][diff]") {
  gpuplan::DeploymentSnapshot old_d{.name = "chat", .pass = true};
  old_d.checks = {{"fits", true}, {"max_itl_ms", true}};
  gpuplan::DeploymentSnapshot new_d{.name = "chat", .pass = false};
  new_d.checks = {{"fits", true}, {"max_ttft_ms", false}};
  const gpuplan::PlanDiff diff =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}});
  // The deployment's verdict, and the new failing expectation that no old one pairs with.
  REQUIRE(diff.flips.size() == 2);
  CHECK(diff.flips[0].expectation.empty());
  CHECK(diff.flips[1].expectation == "max_ttft_ms");
  CHECK(diff.flips[1].old_absent);
  CHECK_FALSE(diff.flips[1].new_pass);
}

// A plan that drops its pricing mode checks every mode: a deployment that already failed on
// latency gains failing budget checks. Its verdict stays FAIL, and --check must still fail.
TEST_CASE("diff: a failing expectation only the new run has is a regression", "[plan][diff]") {
  gpuplan::DeploymentSnapshot old_d{.name = "chat", .pass = false};
  old_d.checks = {{"max_itl_ms", false}, {"max_monthly_usd (aws reserved 3y)", true}};
  gpuplan::DeploymentSnapshot new_d{.name = "chat", .pass = false};
  new_d.checks = {{"max_itl_ms", false},
                  {"max_monthly_usd (aws reserved 3y)", true},
                  {"max_monthly_usd (aws on-demand)", false}};
  const gpuplan::PlanDiff diff =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}});
  REQUIRE(diff.flips.size() == 1);
  CHECK(diff.flips[0].expectation == "max_monthly_usd (aws on-demand)");
  CHECK(diff.flips[0].old_absent);
  CHECK(diff.regressed());
  // The other way the failing check disappears: reported, not a regression.
  const gpuplan::PlanDiff back =
      gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {new_d}}, gpuplan::PlanSnapshot{.deployments = {old_d}});
  REQUIRE(back.flips.size() == 1);
  CHECK(back.flips[0].new_absent);
  CHECK_FALSE(back.regressed());
  // A new expectation that passes is no flip.
  new_d.checks.back().second = true;
  CHECK(gpuplan::diff_plans(gpuplan::PlanSnapshot{.deployments = {old_d}}, gpuplan::PlanSnapshot{.deployments = {new_d}})
            .flips.empty());
}

namespace {

std::string edited_run(const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(kExamples / ".." / "tests" / "cli" / "plans" / "run-new.json");
  nlohmann::json run = nlohmann::json::parse(in);
  edit(run);
  return run.dump();
}

}  // namespace

// A figure diff reads that was missing or of another type was dropped from the comparison, so
// `diff --check` called an edited or damaged run unchanged (helper s48 #10, s49 W4).
TEST_CASE("diff: a run missing a figure or holding one of another type is refused by pointer", "[plan][diff]") {
  const auto refused = [](const std::string& pointer, const nlohmann::json& value, bool erase) {
    INFO(pointer);
    const std::string text = edited_run([&](nlohmann::json& run) {
      const nlohmann::json::json_pointer at(pointer);
      if (erase) {
        run.at(at.parent_pointer()).erase(at.back());
      } else {
        run[at] = value;
      }
    });
    REQUIRE_THROWS_WITH(gpuplan::parse_plan_snapshot(text, "run.json"), Catch::Contains("run.json: " + pointer));
  };
  REQUIRE_NOTHROW(gpuplan::parse_plan_snapshot(edited_run([](nlohmann::json&) {}), "run.json"));
  refused("/results/0/performance/itl_ms", nullptr, true);
  refused("/results/0/performance/itl_ms", nullptr, false);
  refused("/results/0/performance/itl_ms", true, false);
  refused("/results/0/performance/ttft_ms", nlohmann::json::array(), false);
  refused("/results/0/memory/max_concurrent_sequences", "NaN", false);
  refused("/results/0/memory/max_concurrent_sequences", nlohmann::json::object(), false);
  refused("/results/0/memory/max_concurrent_sequences", nullptr, true);
  refused("/results/0/checks/0/expected", "x", false);
  refused("/results/0/checks/0/expected", nullptr, false);
  refused("/results/0/layout/gpus", "x", false);
  refused("/results/0/pass", nullptr, true);
  refused("/gpuplan_version", nullptr, true);
  refused("/gpuplan_version", -1, false);
  refused("/gpuplan_version", "9.9.9", false);  // differs from the provenance's
  refused("/plan/hash", "NaN", false);
  refused("/plan/hash", 7, false);
  // Figures below any real deployment's (an edited file): helper s52's sweep after W3.
  refused("/results/0/memory/per_gpu/weights_bytes", 1e-300, false);
  refused("/results/0/memory/per_gpu/kv_cache_bytes", 0, false);
  refused("/results/0/performance/output_tokens_per_s", 1e-300, false);
  refused("/results/0/performance/ttft_ms", 1e-300, false);
  // null is what check writes where no sequence fits (not here: this deployment fits, so null is
  // refused as a contradiction, helper s52 W3), and where nothing was measured.
  CHECK_THROWS_WITH(gpuplan::parse_plan_snapshot(
                        edited_run([](nlohmann::json& run) { run["results"][0]["memory"]["max_concurrent_sequences"] = nullptr; }),
                        "run.json"),
                    Catch::Contains("/results/0/memory/max_concurrent_sequences"));
  REQUIRE_NOTHROW(gpuplan::parse_plan_snapshot(
      edited_run([](nlohmann::json& run) { run["results"][0]["performance"] = nullptr; }), "run.json"));
}
