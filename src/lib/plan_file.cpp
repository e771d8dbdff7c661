#include <gpuplan/plan_file.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/catalog.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/provenance.hpp>

#include "detail/json_reader.hpp"

namespace gpuplan {
namespace {

using namespace std::string_view_literals;
using detail::Json;
using detail::JsonPointer;
using detail::ObjectReader;

// The flags of `gpuplan cost` (deployment, workload, pricing) a plan may set, without "--".
constexpr std::array kSettings{
    "model"sv, "model-config"sv, "gpu"sv, "mig"sv, "gpus"sv, "nodes"sv, "gpus-per-node"sv, "tp"sv, "pp"sv, "ep"sv,
    "weights-dtype"sv, "experts-dtype"sv, "attention-dtype"sv, "embeddings-dtype"sv, "kv-dtype"sv, "engine"sv, "engine-version"sv,
    "gpu-memory-utilization"sv, "mem-fraction-static"sv, "kv-cache-free-gpu-mem-fraction"sv, "max-num-seqs"sv, "max-num-batched-tokens"sv, "max-kv-tokens"sv, "vllm-sampler"sv, "trtllm-backend"sv, "enable-chunked-prefill"sv, "enforce-eager"sv, "disable-cuda-graph"sv, "reserve"sv, "memory-in-use"sv,
    "prefill-chunk"sv, "block-size"sv, "input"sv, "cached-input"sv, "output"sv, "concurrency"sv, "target-output-tokens-per-s"sv, "sparse"sv, "bandwidth-efficiency"sv,
    "compute-efficiency"sv, "link-efficiency"sv, "step-overhead-ms"sv, "layer-overhead-us"sv, "max-batch"sv, "network-gbit-per-s"sv, "provider"sv,
    "mode"sv, "region"sv, "term"sv, "usd-per-gpu-hour"sv, "utilization"sv, "storage-usd-per-month"sv, "egress-usd-per-month"sv,
    "failed-run-overhead"sv, "pue"sv};
constexpr std::array kSwitches{"sparse"sv, "enable-chunked-prefill"sv, "enforce-eager"sv, "disable-cuda-graph"sv};

constexpr std::array kExpectations{"fits"sv,
                                   "max_usd_per_million_tokens"sv,
                                   "min_output_tokens_per_s"sv,
                                   "max_itl_ms"sv,
                                   "max_ttft_ms"sv,
                                   "min_concurrent_sequences"sv,
                                   "max_monthly_usd"sv};

constexpr std::size_t kMaxDeployments = 1000;

bool contains(std::span<const std::string_view> names, std::string_view name) {
  for (const std::string_view n : names) {
    if (n == name) {
      return true;
    }
  }
  return false;
}

// A number whose unit is in its name: a string such as "50ms" gets the unit in the message.
std::optional<double> expected_number(ObjectReader& r, std::string_view key, std::string_view unit, double min,
                                      double max) {
  const Json* v = r.value(key);
  if (v != nullptr && !v->is_number()) {
    r.fail(key, fmt::format("expected a positive number in {} (the unit is in the name), got {}", unit,
                            v->is_string() ? fmt::format("\"{}\"", v->get<std::string>()) : std::string(v->type_name())));
  }
  return r.optional_number_in(key, min, max);
}

Expectations read_expectations(const Json& j, const std::string& origin, const JsonPointer& at) {
  ObjectReader r(j, origin, at, detail::Nulls::refused);
  r.reject_unknown(kExpectations);
  Expectations e;
  if (r.has("fits")) {
    e.fits = r.boolean("fits", true);
  }
  // The lower limits are the flags' (limits::kMin...): a typo's 1e-308 is refused, not a FAIL.
  e.max_usd_per_million_tokens = expected_number(r, "max_usd_per_million_tokens", "USD per million output tokens",
                                                 limits::kMinUsdPerMtokLimit, limits::kMaxUsdPerMtokLimit);
  e.min_output_tokens_per_s =
      expected_number(r, "min_output_tokens_per_s", "output tokens per second", limits::kMinTokensPerSLimit, 1e12);
  e.max_itl_ms =
      expected_number(r, "max_itl_ms", "milliseconds", limits::kMinLatencyLimitMs, limits::kMaxLatencyLimitMs);
  e.max_ttft_ms =
      expected_number(r, "max_ttft_ms", "milliseconds", limits::kMinLatencyLimitMs, limits::kMaxLatencyLimitMs);
  if (const Json* v = r.value("min_concurrent_sequences"); v != nullptr && !v->is_number()) {
    r.fail("min_concurrent_sequences", fmt::format("expected an integer number of sequences, got {}", v->type_name()));
  }
  e.min_concurrent_sequences = r.optional_integer("min_concurrent_sequences", 1, 100'000'000);
  e.max_monthly_usd = expected_number(r, "max_monthly_usd", "USD per month", limits::kMinMonthlyUsdLimit, 1e12);
  // "fits": false says the deployment is not meant to start; an expectation measured on a running
  // one could never pass beside it. The monthly bill is paid either way.
  if (e.fits == false) {
    for (const std::string_view key : {"min_concurrent_sequences"sv, "min_output_tokens_per_s"sv, "max_itl_ms"sv,
                                       "max_ttft_ms"sv, "max_usd_per_million_tokens"sv}) {
      if (r.has(key)) {
        r.fail(key, "contradicts \"fits\": false (it is measured on a deployment that fits); drop one of them");
      }
    }
  }
  return e;
}

PlanDeployment read_deployment(const Json& j, const std::string& origin, const JsonPointer& at,
                               const std::filesystem::path& base_dir) {
  ObjectReader r(j, origin, at, detail::Nulls::refused);
  PlanDeployment d;
  d.pointer = at.to_string();
  // Unknown keys before required ones: a misspelt required key ("nam", "modle") is named with its
  // closest, not reported as a missing field the file seems to have.
  for (const auto& [key, value] : j.items()) {
    if (key == "name" || key == "description" || key == "expect" || contains(kSettings, key)) {
      continue;
    }
    std::vector<std::string> names(kSettings.begin(), kSettings.end());
    names.insert(names.end(), {"name", "description", "expect"});
    // "--tp" or "max_itl_ms" written at the wrong level still find their place.
    const std::string bare = key.starts_with("--") ? key.substr(2) : key;
    if (contains(kExpectations, key)) {
      r.fail(key, fmt::format("unknown field; '{}' is an expectation: put it under \"expect\"", key));
    }
    // The CLI's --price GPU=USD has no plan-file form: a deployment's rate is usd-per-gpu-hour.
    if (bare == "price" || bare == "usd" || bare == "cost") {
      r.fail(key, "unknown field; a deployment's own rate is \"usd-per-gpu-hour\" (or \"provider\" with "
                  "\"mode\" for a catalog price)");
    }
    // A context length is what fit takes; a deployment is timed per request (tasks s56 F5:
    // "context": 8192 got "unknown field" and no hint).
    if (is_context_key(bare)) {
      r.fail(key, "unknown field; a deployment takes a request's \"input\" and \"output\" tokens (the context is "
                  "their sum)");
    }
    const auto close = closest_names(bare, names, 3);
    r.fail(key, fmt::format("unknown field{}", close.empty() ? std::string()
                                                             : fmt::format("; closest: {}", fmt::join(close, ", "))));
  }
  d.name = r.string("name");
  if (d.name.size() > 200) {
    r.fail("name", "longer than 200 characters");
  }
  for (const auto& [key, value] : j.items()) {
    if (key == "name" || key == "description" || key == "expect") {
      continue;
    }
    PlanSetting s;
    s.flag = "--" + key;
    s.pointer = (at / key).to_string();
    if (contains(kSwitches, key)) {
      if (!value.is_boolean()) {
        r.fail(key, fmt::format("expected true or false, got {}", value.type_name()));
      }
      if (!value.get<bool>()) {
        continue;
      }
      s.is_switch = true;
    } else if (value.is_string()) {
      s.value = r.string(key);  // non-empty, no control characters
    } else if (value.is_number_integer() || value.is_number_unsigned()) {
      s.value = value.dump();
    } else if (value.is_number_float()) {
      s.value = fmt::format("{}", value.get<double>());  // shortest text that reads back the same
    } else {
      r.fail(key, fmt::format("expected a string or a number, got {}", value.type_name()));
    }
    if (key == "model-config") {
      // Relative to the plan file, so a plan works from any directory.
      const std::filesystem::path path(s.value);
      const std::filesystem::path resolved = path.is_absolute() ? path : base_dir / path;
      std::error_code ec;
      // A file, or a downloaded model's directory (config.json inside), as --model-config takes.
      if (!std::filesystem::is_regular_file(resolved, ec) && !std::filesystem::is_directory(resolved, ec)) {
        r.fail(key, fmt::format("{} is not a file or directory{}", resolved.string(),
                                path.is_absolute() ? "" : " (paths are relative to the plan file's directory)"));
      }
      s.value = resolved.lexically_normal().string();
    }
    d.settings.push_back(std::move(s));
  }
  if (!r.has("gpu")) {
    r.fail("gpu", "missing required field (a GPU id, as --gpu takes it)");
  }
  if (!r.has("model") && !r.has("model-config")) {
    r.fail("model", "missing required field: give \"model\" (a catalog id) or \"model-config\" (a config.json)");
  }
  if (r.has("concurrency") && r.has("target-output-tokens-per-s")) {
    r.fail("target-output-tokens-per-s",
           "give the load either as \"concurrency\" (sequences) or as \"target-output-tokens-per-s\", not both");
  }
  if (r.has("prefill-chunk") && r.has("max-num-batched-tokens")) {
    // One flag under two names on the command line: a plan gives it once.
    r.fail("max-num-batched-tokens", "is another name of \"prefill-chunk\", also given: give one");
  }
  r.optional_string("description");
  d.expect_pointer = (at / "expect").to_string();
  if (const Json* e = r.value("expect")) {
    d.expect = read_expectations(*e, origin, at / "expect");
    // The target load is checked like an expectation measured on a running deployment (README):
    // beside "fits": false it could never pass, as min_concurrent_sequences could not.
    if (d.expect.fits == false && r.has("target-output-tokens-per-s")) {
      r.fail("target-output-tokens-per-s",
             "contradicts \"expect\": {\"fits\": false} (the target is checked on a deployment that fits); drop "
             "one of them");
    }
  }
  return d;
}

}  // namespace

// "context", "context-tokens", "context_length", "max-model-len" as a file or batch line writes it.
bool is_context_key(std::string_view key) {
  std::string k(key);
  std::replace(k.begin(), k.end(), '_', '-');
  return k == "context" || k == "context-tokens" || k == "context-length" || k == "context-len" || k == "max-model-len" ||
         k == "seq-len" || k == "sequence-length";
}

const PlanSetting* PlanDeployment::setting(std::string_view flag) const {
  for (const PlanSetting& s : settings) {
    if (s.flag == flag) {
      return &s;
    }
  }
  return nullptr;
}

std::span<const std::string_view> plan_setting_names() { return kSettings; }

PlanFile parse_plan_file(std::string_view text, const std::string& origin, const std::filesystem::path& base_dir) {
  const Json root = detail::parse_json_text(text, origin);
  ObjectReader top(root, origin, JsonPointer(), detail::Nulls::refused);
  static constexpr std::array kTop{"schema_version"sv, "description"sv, "deployments"sv};
  top.reject_unknown(kTop);
  if (const Json* v = top.value("schema_version"); v != nullptr && v->is_number_unsigned() &&
                                                    v->get<std::uint64_t>() > static_cast<std::uint64_t>(kPlanSchemaVersion)) {
    top.fail("schema_version", fmt::format("plan schema version {} is newer than this gpuplan reads ({}); upgrade gpuplan",
                                           v->get<std::uint64_t>(), kPlanSchemaVersion));
  }
  top.integer("schema_version", kPlanSchemaVersion, kPlanSchemaVersion);
  PlanFile plan;
  plan.origin = origin;
  plan.description = top.optional_string("description").value_or("");
  const std::array<std::string_view, 1> bytes{text};
  plan.content_hash = fingerprint(bytes);
  const Json* list = top.value("deployments");
  if (list == nullptr) {
    top.fail("deployments", "missing required field (an array of deployments)");
  }
  if (!list->is_array() || list->empty()) {
    top.fail("deployments", "expected a non-empty array of deployments");
  }
  if (list->size() > kMaxDeployments) {
    top.fail("deployments", fmt::format("more than {} deployments", kMaxDeployments));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const JsonPointer at = JsonPointer("/deployments") / i;
    PlanDeployment d = read_deployment((*list)[i], origin, at, base_dir);
    if (!names.insert(d.name).second) {
      throw InputError(fmt::format("{}: deployment name '{}' is used twice", detail::where(origin, at / "name"), d.name));
    }
    plan.deployments.push_back(std::move(d));
  }
  return plan;
}

PlanFile load_plan_file(const std::filesystem::path& path) {
  const std::string text = limits::read_text_file(path, "plan file");
  return parse_plan_file(text, path.string(), path.parent_path());
}

}  // namespace gpuplan
