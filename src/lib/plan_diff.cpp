#include <gpuplan/plan_diff.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuplan/error.hpp>
#include <gpuplan/input_limits.hpp>
#include <gpuplan/plan_check.hpp>
#include <gpuplan/units.hpp>

#include "detail/document.hpp"
#include "detail/json_output.hpp"
#include "detail/json_reader.hpp"
#include "detail/plan_json.hpp"
#include "detail/plan_report.hpp"

namespace gpuplan {
namespace {

using detail::Json;
using detail::JsonPointer;
using detail::ObjectReader;

// Every figure a run writes (USD, tok/s, GPUs, sequences, bytes) is >= 0 and far below 1e18; an
// edited or corrupted run's 1e308 would print as a 309-digit change and an inf relative one.
constexpr double kMaxFigure = 1e18;

double figure_at(const Json& j, const std::string& origin, const JsonPointer& at) {
  const double x = j.at(at).get<double>();
  if (!(x >= 0.0 && x <= kMaxFigure)) {
    throw InputError(fmt::format("{}: expected a number between 0 and {:g}, got {}", detail::where(origin, at),
                                 kMaxFigure, j.at(at).dump()));
  }
  return x;
}

double number_at(const Json& j, const std::string& origin, const JsonPointer& at) {
  if (!j.contains(at) || !j.at(at).is_number()) {
    throw InputError(fmt::format("{}: expected a number", detail::where(origin, at)));
  }
  return figure_at(j, origin, at);
}

// A run's JSON writes every field diff reads (plan_json.cpp): one missing or of another type is
// an edited or corrupted file, and a figure dropped from the comparison would read as unchanged.
[[noreturn]] void malformed(const std::string& origin, const JsonPointer& at, std::string_view expected,
                            const Json& root) {
  throw InputError(fmt::format("{}: expected {}, got {}", detail::where(origin, at), expected,
                               root.contains(at) ? limits::excerpt(root.at(at).dump()) : std::string("nothing")));
}

bool bool_at(const Json& root, const std::string& origin, const JsonPointer& at) {
  if (!root.contains(at) || !root.at(at).is_boolean()) {
    malformed(origin, at, "true or false", root);
  }
  return root.at(at).get<bool>();
}

// A count a run writes as a whole number of at least `min` (TP, GPUs, expectations).
std::uint64_t count_at(const Json& root, const std::string& origin, const JsonPointer& at, std::int64_t min) {
  if (!root.contains(at) || !root.at(at).is_number_integer() || root.at(at).get<std::int64_t>() < min ||
      root.at(at).get<std::int64_t>() > 1'000'000'000) {
    malformed(origin, at, fmt::format("a whole number of at least {}", min), root);
  }
  return static_cast<std::uint64_t>(root.at(at).get<std::int64_t>());
}

// The codes check writes (plan_check.hpp reason::): another is an edited file.
void known_reason(const Json& root, const std::string& origin, const JsonPointer& at) {
  static constexpr std::string_view kCodes[] = {
      reason::does_not_fit,        reason::fits_unexpectedly,   reason::over_budget,
      reason::over_monthly_budget, reason::below_min_throughput, reason::itl_above_target,
      reason::ttft_above_target,   reason::below_min_sequences, reason::below_target_load,
      reason::not_rentable};
  if (!root.contains(at) || !root.at(at).is_string() ||
      std::find(std::begin(kCodes), std::end(kCodes), root.at(at).get<std::string>()) == std::end(kCodes)) {
    malformed(origin, at, fmt::format("a reason code ({})", fmt::join(kCodes, ", ")), root);
  }
}

// The figures of one result agree with each other as check writes them: memory within the GPU,
// a deployment that fits holds a sequence and runs at a positive rate, and each check's `got` is
// the figure it reads. An edited run (throughput 0, KV cache of 1e15 bytes, a passing
// min_concurrent_sequences over 0 sequences) would otherwise pass diff --check as a real change.
void consistent_figures(const Json& root, const std::string& origin, const JsonPointer& at) {
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({std::abs(a), std::abs(b), 1e-300}); };
  const JsonPointer mem = at / "memory";
  const JsonPointer gpu = mem / "per_gpu";
  const bool fits = bool_at(root, origin, mem / "fits");
  const double capacity = number_at(root, origin, gpu / "capacity_bytes");
  if (!(capacity > 0.0)) {
    malformed(origin, gpu / "capacity_bytes", "a GPU's memory in bytes (> 0)", root);
  }
  // Floors no real deployment goes below: a megabyte of weights (the smallest language model
  // holds millions of parameters), a microsecond per step, a thousandth of a token per second. A
  // figure of 1e-300 is an edited file, not a measurement.
  constexpr double kMinWeightsBytes = 1e6;
  constexpr double kMinMilliseconds = 1e-3;
  constexpr double kMinTokensPerS = 1e-3;
  if (!(number_at(root, origin, gpu / "weights_bytes") >= kMinWeightsBytes)) {
    malformed(origin, gpu / "weights_bytes", "the weights' bytes per GPU (a megabyte at least)", root);
  }
  if (fits) {
    double used = 0;
    for (const char* part : {"weights_bytes", "activation_bytes", "reserve_bytes", "kv_cache_bytes"}) {
      const double bytes = number_at(root, origin, gpu / part);
      used += bytes;
      if (used > capacity * (1.0 + 1e-9)) {
        malformed(origin, gpu / part,
                  fmt::format("at most the {:.0f} bytes capacity_bytes leaves (the deployment fits)",
                              std::max(0.0, capacity - (used - bytes))),
                  root);
      }
    }
    // A deployment that fits holds one sequence's KV cache at least.
    if (!(number_at(root, origin, gpu / "kv_cache_bytes") > 0.0)) {
      malformed(origin, gpu / "kv_cache_bytes", "a positive KV cache (the deployment fits and holds a sequence)", root);
    }
    const JsonPointer seqs = mem / "max_concurrent_sequences";
    if (!root.at(seqs).is_number() || !(root.at(seqs).get<double>() >= 1.0)) {
      malformed(origin, seqs, "at least 1 sequence (the deployment fits)", root);
    }
  }
  const JsonPointer perf = at / "performance";
  const bool measured = root.at(perf).is_object();
  if (fits && measured) {
    for (const char* figure : {"output_tokens_per_s", "itl_ms", "ttft_ms"}) {
      const double floor = std::string_view(figure) == "output_tokens_per_s" ? kMinTokensPerS : kMinMilliseconds;
      if (!(number_at(root, origin, perf / figure) >= floor)) {
        malformed(origin, perf / figure, fmt::format("a figure of {:g} at least (the deployment fits)", floor), root);
      }
    }
  }
  // Each cost keyed as check labels its pricing ("aws reserved 1y"); a priced GPU-hour costs
  // something per token where the deployment runs.
  std::vector<std::pair<std::string, JsonPointer>> costs;
  if (root.at(at).contains("costs") && root.at(at / "costs").is_array()) {
    for (std::size_t i = 0; i < root.at(at / "costs").size(); ++i) {
      const JsonPointer c = at / "costs" / i;
      const Json& cj = root.at(c);
      const std::string term = cj.contains("term") && cj.at("term").is_string() ? cj.at("term").get<std::string>() : "";
      const std::string mode = cj.at("mode").get<std::string>();
      costs.emplace_back(fmt::format("{} {}", cj.at("provider").get<std::string>(),
                                     term.empty()            ? mode
                                     : term == "unstated"    ? fmt::format("{} (term unstated)", mode)
                                                             : fmt::format("{} {}", mode, term)),
                         c / "usd_per_million_tokens");
      if (fits && measured && cj.contains("usd_per_gpu_hour") && cj.at("usd_per_gpu_hour").is_number() &&
          cj.at("usd_per_gpu_hour").get<double>() > 0.0 && !(number_at(root, origin, c / "usd_per_million_tokens") > 0.0)) {
        malformed(origin, c / "usd_per_million_tokens", "a positive cost (a priced deployment that runs)", root);
      }
    }
  }
  for (std::size_t i = 0; i < root.at(at / "checks").size(); ++i) {
    const JsonPointer e = at / "checks" / i;
    const Json& ej = root.at(e);
    const std::string name = ej.at("expectation").get<std::string>();
    if (!ej.contains("got") || ej.at("got").is_null()) {
      continue;  // not measured (it does not fit): nothing to tie
    }
    if (name == "fits") {
      if (bool_at(root, origin, e / "got") != fits) {
        malformed(origin, e / "got", fmt::format("{}, as memory/fits says", fits), root);
      }
      continue;
    }
    std::optional<JsonPointer> read;
    if (name == "min_concurrent_sequences") {
      read = mem / "max_concurrent_sequences";
    } else if (measured && (name == "min_output_tokens_per_s" || name == "target_output_tokens_per_s")) {
      read = perf / "output_tokens_per_s";
    } else if (measured && name == "max_itl_ms") {
      read = perf / "itl_ms";
    } else if (measured && name == "max_ttft_ms") {
      read = perf / "ttft_ms";
    } else if (name == "max_usd_per_million_tokens" && ej.contains("pricing") && ej.at("pricing").is_string()) {
      const std::string pricing = ej.at("pricing").get<std::string>();
      const auto it = std::find_if(costs.begin(), costs.end(), [&](const auto& c) { return c.first == pricing; });
      if (it != costs.end()) {
        read = it->second;
      }
    }
    if (!read) {
      continue;
    }
    const double got = number_at(root, origin, e / "got");
    const double figure = root.at(*read).is_number() ? root.at(*read).get<double>() : 0.0;
    if (!near(got, figure)) {
      malformed(origin, e / "got", fmt::format("{:g}, the {} it checks", figure, read->to_string()), root);
    }
  }
}

DeploymentSnapshot read_result(const Json& root, const std::string& origin, const JsonPointer& at) {
  const Json& r = root.at(at);
  ObjectReader reader(r, origin, at);
  DeploymentSnapshot d;
  d.name = reader.string("deployment");
  d.pass = bool_at(root, origin, at / "pass");
  if (const Json* costs = reader.value("costs"); costs != nullptr && costs->is_array()) {
    for (std::size_t i = 0; i < costs->size(); ++i) {
      const JsonPointer c = at / "costs" / i;
      ObjectReader cr(root.at(c), origin, c);
      // A reserved price's term keys it as the checks do ("aws reserved 3y"): a plan checking 1y
      // and 3y has two costs. Runs written before the term was kept have none.
      const Json* term = cr.value("term");
      if (term != nullptr && !term->is_null() && !term->is_string()) {
        malformed(origin, c / "term", "a string or null", root);
      }
      const std::string term_text = term != nullptr && term->is_string() ? " " + term->get<std::string>() : "";
      d.usd_per_million_tokens.emplace_back(fmt::format("{} {}{}", cr.string("provider"), cr.string("mode"), term_text),
                                            number_at(root, origin, c / "usd_per_million_tokens"));
    }
  } else if (costs != nullptr || r.contains("costs")) {
    malformed(origin, at / "costs", "an array", root);
  }
  // The plan's settings, as strings: written since diff names plan edits; older runs have none.
  if (const Json* inputs = reader.value("inputs")) {
    if (!inputs->is_object()) {
      malformed(origin, at / "inputs", "an object of strings", root);
    }
    auto& list = d.inputs.emplace();
    for (const auto& [field, value] : inputs->items()) {
      if (!value.is_string()) {
        malformed(origin, at / "inputs" / field, "a string", root);
      }
      list.emplace_back(field, value.get<std::string>());
    }
  } else if (r.contains("inputs")) {
    malformed(origin, at / "inputs", "an object of strings", root);
  }
  // The layout as check writes it: whole degrees of at least 1, and GPUs = TP x PP x DP.
  const JsonPointer layout = at / "layout";
  const std::uint64_t tp = count_at(root, origin, layout / "tp", 1);
  const std::uint64_t pp = count_at(root, origin, layout / "pp", 1);
  count_at(root, origin, layout / "ep", 1);
  const std::uint64_t dp = count_at(root, origin, layout / "dp", 1);
  const std::uint64_t gpus = count_at(root, origin, layout / "gpus", 1);
  d.gpus = static_cast<double>(gpus);
  if (gpus != tp * pp * dp) {
    malformed(origin, layout / "gpus", fmt::format("TP x PP x DP = {}", tp * pp * dp), root);
  }
  if (!root.contains(at / "gpu") || !root.at(at / "gpu").is_string() || root.at(at / "gpu").get<std::string>().empty()) {
    malformed(origin, at / "gpu", "a GPU id", root);
  }
  // null where the deployment was not measured (it does not fit), else every figure.
  const JsonPointer perf = at / "performance";
  if (!root.contains(perf)) {
    malformed(origin, perf, "an object or null", root);
  }
  if (root.at(perf).is_object()) {
    d.output_tokens_per_s = number_at(root, origin, perf / "output_tokens_per_s");
    d.itl_ms = number_at(root, origin, perf / "itl_ms");
    d.ttft_ms = number_at(root, origin, perf / "ttft_ms");
  } else if (!root.at(perf).is_null()) {
    malformed(origin, perf, "an object or null", root);
  }
  const JsonPointer capped = at / "load" / "capped";
  const bool load_capped = root.contains(capped) && bool_at(root, origin, capped);
  d.memory_fits = bool_at(root, origin, at / "memory" / "fits");
  d.load_not_held = load_capped && !d.memory_fits;
  // null where no sequence fits.
  const JsonPointer seqs = at / "memory" / "max_concurrent_sequences";
  if (!root.contains(seqs) || !(root.at(seqs).is_null() || root.at(seqs).is_number())) {
    malformed(origin, seqs, "a number or null", root);
  }
  if (root.at(seqs).is_number()) {
    d.max_concurrent_sequences = figure_at(root, origin, seqs);
  }
  const Json* checks = reader.value("checks");
  if (checks == nullptr || !checks->is_array()) {
    malformed(origin, at / "checks", "an array", root);
  }
  for (std::size_t i = 0; i < checks->size(); ++i) {
    const JsonPointer e = at / "checks" / i;
    ObjectReader er(root.at(e), origin, e);
    const std::string pricing = er.optional_string("pricing").value_or("");
    const std::string expectation = er.string("expectation");
    // "fits" expects true or false; every other expectation a figure.
    const std::string expected = expectation == "fits" ? (bool_at(root, origin, e / "expected") ? "yes" : "no")
                                                       : fmt::format("{:g}", number_at(root, origin, e / "expected"));
    const std::string key = pricing.empty() ? expectation : fmt::format("{} ({})", expectation, pricing);
    d.checks.emplace_back(key, bool_at(root, origin, e / "pass"));
    const Json* implied = er.value("implied");
    if (implied != nullptr && !implied->is_boolean()) {
      malformed(origin, e / "implied", "true or false", root);
    }
    if (implied != nullptr && implied->get<bool>()) {
      d.implied.push_back(key);  // check wrote it, the plan did not: no plan setting
    } else {
      d.expected.emplace_back(key, expected);
    }
  }
  const JsonPointer gpu = at / "memory" / "per_gpu";
  for (const char* part : {"weights_bytes", "activation_bytes", "reserve_bytes", "kv_cache_bytes"}) {
    d.memory_bytes_per_gpu += number_at(root, origin, gpu / part);
  }
  number_at(root, origin, gpu / "capacity_bytes");
  number_at(root, origin, at / "memory" / "context_tokens");
  // The verdict, the failed checks' reasons and the reasons list say the same thing, as check
  // writes them; a run edited to contradict itself would pass the gate on its verdict alone.
  std::size_t failed = 0;
  for (std::size_t i = 0; i < d.checks.size(); ++i) {
    if (!d.checks[i].second) {
      known_reason(root, origin, at / "checks" / i / "reason");
      ++failed;
    }
  }
  if (d.pass != (failed == 0)) {
    malformed(origin, at / "pass", failed == 0 ? "true (every check passes)" : "false (a check fails)", root);
  }
  const Json* reasons = reader.value("reasons");
  if (reasons == nullptr || !reasons->is_array() || reasons->size() != failed) {
    malformed(origin, at / "reasons", fmt::format("an array of {} reason{} (one per failed check)", failed,
                                                  failed == 1 ? "" : "s"),
              root);
  }
  for (std::size_t i = 0; i < reasons->size(); ++i) {
    known_reason(root, origin, at / "reasons" / i / "code");
  }
  consistent_figures(root, origin, at);
  return d;
}

void moved(PlanDiff& diff, const std::string& deployment, std::string figure, double old_value, double new_value) {
  // Figures are compared as printed-precision numbers: a change in the 9th digit is noise.
  if (std::abs(new_value - old_value) <= 1e-9 * std::max(std::abs(old_value), std::abs(new_value))) {
    return;
  }
  diff.changes.push_back(FigureChange{.deployment = deployment, .figure = std::move(figure), .old_value = old_value,
                                      .new_value = new_value});
}

/// A cost's or check's key split into the part that survives a pricing change and the rest, the
/// pricing: ("aws", "on-demand"), ("max_usd_per_million_tokens", "aws on-demand");
/// none for "fits".
std::pair<std::string_view, std::string_view> split_key(std::string_view key) {
  if (const std::size_t paren = key.find(" ("); paren != std::string_view::npos && key.ends_with(')')) {
    return {key.substr(0, paren), key.substr(paren + 2, key.size() - paren - 3)};
  }
  const std::size_t space = key.find(' ');
  return {key.substr(0, space), space == std::string_view::npos ? std::string_view() : key.substr(space + 1)};
}

/// Pairs each new entry with the old one of the same key; one whose key changed (the plan moved
/// from on-demand to reserved) with an unmatched old entry of its group; with `any_lone`, else
/// with the only unmatched old entry (a cost whose provider changed), so the change is shown
/// rather than dropped. Checks are not paired across expectations: max_itl_ms is no max_ttft_ms.
template <class T>
std::vector<std::pair<std::size_t, std::size_t>> paired(const std::vector<std::pair<std::string, T>>& old_entries,
                                                        const std::vector<std::pair<std::string, T>>& new_entries,
                                                        bool any_lone) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::vector<bool> old_used(old_entries.size(), false);
  std::vector<std::size_t> unmatched;
  for (std::size_t n = 0; n < new_entries.size(); ++n) {
    const auto same = std::find_if(old_entries.begin(), old_entries.end(),
                                   [&](const auto& o) { return o.first == new_entries[n].first; });
    if (same == old_entries.end()) {
      unmatched.push_back(n);
      continue;
    }
    const auto o = static_cast<std::size_t>(same - old_entries.begin());
    old_used[o] = true;
    out.emplace_back(o, n);
  }
  std::vector<std::size_t> left;
  for (const std::size_t n : unmatched) {
    std::size_t o = 0;
    while (o < old_entries.size() &&
           (old_used[o] || split_key(old_entries[o].first).first != split_key(new_entries[n].first).first)) {
      ++o;
    }
    if (o < old_entries.size()) {
      old_used[o] = true;
      out.emplace_back(o, n);
    } else {
      left.push_back(n);
    }
  }
  if (any_lone && left.size() == 1 && std::count(old_used.begin(), old_used.end(), false) == 1) {
    out.emplace_back(static_cast<std::size_t>(std::find(old_used.begin(), old_used.end(), false) - old_used.begin()),
                     left.front());
  }
  return out;
}

/// "aws on-demand" when the key stayed, "aws on-demand -> aws reserved" when it moved.
std::string moved_key(std::string_view old_key, std::string_view new_key) {
  return old_key == new_key ? std::string(new_key) : fmt::format("{} -> {}", old_key, new_key);
}

/// Each entry whose value differs between the runs, or that only one has, as a plan change.
void changed_entries(PlanDiff& diff, const std::string& deployment, std::string_view prefix,
                     const std::vector<std::pair<std::string, std::string>>& old_entries,
                     const std::vector<std::pair<std::string, std::string>>& new_entries) {
  const auto find = [](const auto& entries, const std::string& key) {
    return std::find_if(entries.begin(), entries.end(), [&key](const auto& e) { return e.first == key; });
  };
  for (const auto& [key, value] : new_entries) {
    const auto was = find(old_entries, key);
    if (was == old_entries.end() || was->second != value) {
      diff.plan_changes.push_back(PlanChange{.deployment = deployment,
                                             .input = std::string(prefix) + key,
                                             .old_value = was == old_entries.end() ? "absent" : was->second,
                                             .new_value = value});
    }
  }
  for (const auto& [key, value] : old_entries) {
    if (find(new_entries, key) == new_entries.end()) {
      diff.plan_changes.push_back(PlanChange{
          .deployment = deployment, .input = std::string(prefix) + key, .old_value = value, .new_value = "absent"});
    }
  }
}

/// The deployment settings (when both runs wrote them) and expectation thresholds that moved:
/// "plan changed (hash)" alone did not say whether a figure moved with the plan or the model.
void plan_changes(PlanDiff& diff, const DeploymentSnapshot& o, const DeploymentSnapshot& n) {
  if (o.inputs && n.inputs) {
    changed_entries(diff, n.name, "", *o.inputs, *n.inputs);
  }
  changed_entries(diff, n.name, "expect ", o.expected, n.expected);
}

std::string fixed(double v) { return std::abs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v); }

}  // namespace

std::optional<double> FigureChange::relative() const {
  // From a figure printed as 0 (or a subnormal an edited file holds) a share means nothing and
  // overflows to inf.
  const double share = (new_value - old_value) / std::abs(old_value);
  if (!(std::abs(old_value) > 0.0) || !std::isfinite(share)) {
    return std::nullopt;
  }
  return share;
}

PlanSnapshot parse_plan_snapshot(std::string_view text, const std::string& origin) {
  const Json root = detail::parse_json_text(text, origin);
  ObjectReader top(root, origin, JsonPointer());
  // A plan file itself is the likeliest mistake: name what is wanted instead of a missing field.
  if (root.is_object() && !root.contains("command")) {
    top.fail("command", root.contains("deployments")
                            ? "this is a plan file; expected the JSON a run on it writes ('gpuplan check PLAN "
                              "--format json' or 'gpuplan report PLAN --format json')"
                            : "missing: expected the JSON of 'gpuplan check' or 'gpuplan report' (--format json)");
  }
  top.integer("schema_version", kJsonSchemaVersion, kJsonSchemaVersion);
  const std::string command = top.string("command");
  if (command != "check" && command != "report") {
    top.fail("command", fmt::format("expected the JSON of 'gpuplan check' or 'gpuplan report', got '{}'", command));
  }
  // What check and report write: a misspelt key in a hand-edited run ("pas") would be read as if
  // the key were absent.
  static constexpr std::string_view kTopKeys[] = {"schema_version", "command",  "gpuplan_version", "provenance",
                                                  "plan",           "pass",     "expectations",    "failed",
                                                  "results",        "baseline_diff"};
  top.reject_unknown(kTopKeys);
  PlanSnapshot s;
  s.origin = origin;
  static const Json kMissing;  // an absent object fails as "expected an object, got null"
  const Json* provenance = top.value("provenance");
  ObjectReader prov(provenance != nullptr ? *provenance : kMissing, origin, JsonPointer("/provenance"));
  s.gpuplan_version = prov.string("gpuplan_version");
  // The envelope's own copy: one that differs from the provenance's is an edited file.
  if (top.string("gpuplan_version") != s.gpuplan_version) {
    top.fail("gpuplan_version", fmt::format("differs from /provenance/gpuplan_version ('{}')",
                                            limits::excerpt(s.gpuplan_version)));
  }
  s.catalog_hash = prov.string("catalog_hash");
  s.newest_price_date = prov.string("newest_price_date");
  const Json* plan_object = top.value("plan");
  ObjectReader plan(plan_object != nullptr ? *plan_object : kMissing, origin, JsonPointer("/plan"));
  s.plan_file = plan.string("file");
  s.plan_hash = plan.string("hash");
  // As check writes it (fnv1a64: and 16 hex digits): anything else would print as a plan change.
  constexpr std::string_view kHashPrefix = "fnv1a64:";
  if (s.plan_hash.size() != kHashPrefix.size() + 16 || !s.plan_hash.starts_with(kHashPrefix) ||
      !std::all_of(s.plan_hash.begin() + kHashPrefix.size(), s.plan_hash.end(),
                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) {
    plan.fail("hash", fmt::format("expected fnv1a64: and 16 hex digits, got '{}'", limits::excerpt(s.plan_hash)));
  }
  const Json* results = top.value("results");
  if (results == nullptr || !results->is_array()) {
    top.fail("results", "expected an array");
  }
  if (results->empty()) {
    top.fail("results", "expected one result per deployment of the plan, got none");
  }
  std::size_t expectations = 0;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < results->size(); ++i) {
    s.deployments.push_back(read_result(root, origin, JsonPointer("/results") / i));
    const DeploymentSnapshot& d = s.deployments.back();
    for (std::size_t k = 0; k + 1 < s.deployments.size(); ++k) {
      if (s.deployments[k].name == d.name) {
        malformed(origin, JsonPointer("/results") / i / "deployment",
                  fmt::format("a deployment not already in /results/{}", k), root);
      }
    }
    expectations += d.checks.size();
    failed += static_cast<std::size_t>(
        std::count_if(d.checks.begin(), d.checks.end(), [](const auto& c) { return !c.second; }));
  }
  // The envelope's counts and verdict are the results': check writes them from the same list.
  if (count_at(root, origin, JsonPointer("/expectations"), 0) != expectations) {
    malformed(origin, JsonPointer("/expectations"), fmt::format("{} (the checks in /results)", expectations), root);
  }
  if (count_at(root, origin, JsonPointer("/failed"), 0) != failed) {
    malformed(origin, JsonPointer("/failed"), fmt::format("{} (the failed checks in /results)", failed), root);
  }
  if (bool_at(root, origin, JsonPointer("/pass")) != (failed == 0)) {
    malformed(origin, JsonPointer("/pass"), failed == 0 ? "true (no check fails)" : "false (a check fails)", root);
  }
  return s;
}

PlanSnapshot load_plan_snapshot(const std::string& path) {
  return parse_plan_snapshot(limits::read_text_file(path, "gpuplan JSON output"), path);
}

PlanDiff diff_plans(const PlanSnapshot& a, const PlanSnapshot& b) {
  PlanDiff diff;
  diff.old_origin = a.origin;
  diff.new_origin = b.origin;
  if (a.catalog_hash != b.catalog_hash) {
    diff.causes.push_back(fmt::format("catalog changed ({} -> {})", a.catalog_hash, b.catalog_hash));
  }
  if (a.newest_price_date != b.newest_price_date) {
    diff.causes.push_back(fmt::format("newest price date changed ({} -> {})", a.newest_price_date, b.newest_price_date));
  }
  if (a.plan_hash != b.plan_hash) {
    diff.causes.push_back(fmt::format("plan changed ({} -> {})", a.plan_hash, b.plan_hash));
  }
  if (a.gpuplan_version != b.gpuplan_version) {
    diff.causes.push_back(fmt::format("gpuplan version changed ({} -> {})", a.gpuplan_version, b.gpuplan_version));
  }
  // One plan (same hash) has the same deployments in every run of it: a run missing some is a
  // truncated or edited artifact, and "removed" would let it pass the gate.
  if (a.plan_hash == b.plan_hash) {
    const auto missing_from = [](const PlanSnapshot& x, const PlanSnapshot& y) -> std::optional<std::string> {
      for (const DeploymentSnapshot& d : x.deployments) {
        if (std::none_of(y.deployments.begin(), y.deployments.end(),
                         [&d](const DeploymentSnapshot& e) { return e.name == d.name; })) {
          return d.name;
        }
      }
      return std::nullopt;
    };
    if (const auto lost = missing_from(a, b)) {
      throw InputError(fmt::format("{}: has no result for deployment '{}' of {}, although the plan is the same "
                                   "({}): a truncated or edited run",
                                   detail::where(b.origin, JsonPointer("/results")), limits::excerpt(*lost), a.origin,
                                   a.plan_hash));
    }
    if (const auto extra = missing_from(b, a)) {
      throw InputError(fmt::format("{}: has no result for deployment '{}' of {}, although the plan is the same "
                                   "({}): a truncated or edited run",
                                   detail::where(a.origin, JsonPointer("/results")), limits::excerpt(*extra), b.origin,
                                   a.plan_hash));
    }
  }
  for (const DeploymentSnapshot& n : b.deployments) {
    const auto it = std::find_if(a.deployments.begin(), a.deployments.end(),
                                 [&](const DeploymentSnapshot& o) { return o.name == n.name; });
    if (it == a.deployments.end()) {
      diff.added.push_back(n.name);
      continue;
    }
    const DeploymentSnapshot& o = *it;
    plan_changes(diff, o, n);
    if (o.pass != n.pass) {
      diff.flips.push_back(VerdictFlip{.deployment = n.name, .old_pass = o.pass, .new_pass = n.pass});
    }
    // Each expectation too: a new "does not fit" in a deployment that already failed on cost
    // leaves its verdict as it was.
    const auto pairs = paired(o.checks, n.checks, false);
    // A failing expectation only one run has (a pricing mode the new plan checks, an expectation
    // added): "absent -> FAIL" fails --check as a pass turned FAIL does.
    const auto lone_failures = [&](const auto& entries, bool in_new) {
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const bool is_paired = std::any_of(pairs.begin(), pairs.end(),
                                           [&](const auto& p) { return (in_new ? p.second : p.first) == i; });
        if (!is_paired && !entries[i].second) {
          // An implied check is written only when it fails: the run without it passed it.
          const DeploymentSnapshot& self = in_new ? n : o;
          const bool implied = std::find(self.implied.begin(), self.implied.end(), entries[i].first) != self.implied.end();
          diff.flips.push_back(VerdictFlip{.deployment = n.name,
                                           .expectation = entries[i].first,
                                           .old_pass = implied && in_new,
                                           .new_pass = implied && !in_new,
                                           .old_absent = in_new && !implied,
                                           .new_absent = !in_new && !implied,
                                           .implied = implied});
        }
      }
    };
    lone_failures(o.checks, false);
    lone_failures(n.checks, true);
    for (const auto& [was, now] : pairs) {
      if (o.checks[was].second != n.checks[now].second) {
        const std::string& old_label = o.checks[was].first;
        const std::string& new_label = n.checks[now].first;
        const auto [expectation, new_pricing] = split_key(new_label);
        diff.flips.push_back(VerdictFlip{
            .deployment = n.name,
            .expectation = old_label == new_label
                               ? new_label
                               : fmt::format("{} ({})", expectation, moved_key(split_key(old_label).second, new_pricing)),
            .old_pass = o.checks[was].second,
            .new_pass = n.checks[now].second});
      }
    }
    // Figures of a load that memory cannot hold are the capped batch's: a "saving" there is the
    // load not being served, and the label says so.
    // Which side was capped: one capped run against a held one is not "capped" on both.
    const std::string capped = o.load_not_held && n.load_not_held ? ", capped: load not held"
                               : o.load_not_held                  ? ", was capped: load not held"
                               : n.load_not_held                  ? ", now capped: load not held"
                                                                  : "";
    for (const auto& [was, now] : paired(o.usd_per_million_tokens, n.usd_per_million_tokens, true)) {
      moved(diff, n.name,
            fmt::format("USD/Mtok ({}{})",
                        moved_key(o.usd_per_million_tokens[was].first, n.usd_per_million_tokens[now].first), capped),
            o.usd_per_million_tokens[was].second, n.usd_per_million_tokens[now].second);
    }
    if (o.gpus && n.gpus) {
      moved(diff, n.name, "GPUs", *o.gpus, *n.gpus);
    }
    if (o.output_tokens_per_s && n.output_tokens_per_s) {
      moved(diff, n.name, capped.empty() ? "output tok/s" : fmt::format("output tok/s ({})", capped.substr(2)),
            *o.output_tokens_per_s, *n.output_tokens_per_s);
    }
    for (const auto& [label, was, now] : {std::tuple{"ITL ms", o.itl_ms, n.itl_ms}, std::tuple{"TTFT ms", o.ttft_ms, n.ttft_ms}}) {
      if (was && now) {
        moved(diff, n.name, capped.empty() ? std::string(label) : fmt::format("{} ({})", label, capped.substr(2)),
              *was, *now);
      }
    }
    if (o.max_concurrent_sequences && n.max_concurrent_sequences) {
      moved(diff, n.name, "max concurrent sequences", *o.max_concurrent_sequences, *n.max_concurrent_sequences);
    }
    // A run that does not fit holds the memory its load would need, beyond the GPU: say which side.
    const std::string_view needed = !o.memory_fits && !n.memory_fits ? " (needed: does not fit)"
                                    : !o.memory_fits                 ? " (was needed: did not fit)"
                                    : !n.memory_fits                 ? " (now needed: does not fit)"
                                                                     : "";
    moved(diff, n.name, fmt::format("memory GB per GPU{}", needed), o.memory_bytes_per_gpu / units::kGB,
          n.memory_bytes_per_gpu / units::kGB);
  }
  for (const DeploymentSnapshot& o : a.deployments) {
    if (std::none_of(b.deployments.begin(), b.deployments.end(),
                     [&](const DeploymentSnapshot& n) { return n.name == o.name; })) {
      diff.removed.push_back(o.name);
    }
  }
  return diff;
}

namespace detail {

OrderedJson diff_json(const PlanDiff& diff) {
  OrderedJson j;
  j["old"] = diff.old_origin;
  j["new"] = diff.new_origin;
  j["causes"] = diff.causes;
  OrderedJson plan_changes = OrderedJson::array();
  for (const PlanChange& c : diff.plan_changes) {
    plan_changes.push_back({{"deployment", c.deployment}, {"input", c.input}, {"old", c.old_value}, {"new", c.new_value}});
  }
  j["plan_changes"] = plan_changes;
  OrderedJson flips = OrderedJson::array();
  for (const VerdictFlip& f : diff.flips) {
    flips.push_back({{"deployment", f.deployment},
                     {"expectation", f.expectation.empty() ? OrderedJson(nullptr) : OrderedJson(f.expectation)},
                     {"old_pass", f.old_absent ? OrderedJson(nullptr) : OrderedJson(f.old_pass)},
                     {"new_pass", f.new_absent ? OrderedJson(nullptr) : OrderedJson(f.new_pass)}});
    if (f.implied) {
      flips.back()["implied"] = true;  // the plan has no such expectation; check added it
    }
  }
  j["verdict_flips"] = flips;
  OrderedJson changes = OrderedJson::array();
  for (const FigureChange& c : diff.changes) {
    const auto rel = c.relative();
    changes.push_back({{"deployment", c.deployment},
                       {"figure", c.figure},
                       {"old", checked(c.old_value, c.figure)},
                       {"new", checked(c.new_value, c.figure)},
                       {"change", checked(c.change(), c.figure)},
                       {"relative_change", rel ? OrderedJson(*rel) : OrderedJson(nullptr)}});
  }
  j["changes"] = changes;
  j["added"] = diff.added;
  j["removed"] = diff.removed;
  return j;
}

}  // namespace detail

std::string render_plan_diff(const PlanDiff& diff, const RenderOptions& options) {
  if (options.format == Format::json) {
    detail::OrderedJson j = detail::envelope("diff");
    j.update(detail::diff_json(diff));
    return detail::dump_json(j);
  }
  return detail::render_document(detail::diff_document(diff, options.format == Format::markdown), options.format);
}

}  // namespace gpuplan

namespace gpuplan::detail {

Document diff_document(const PlanDiff& diff, bool md) {
  Document doc;
  doc.heading.push_back(md ? fmt::format("## changes from {} to {}", detail::md_text(diff.old_origin, false),
                                         detail::md_text(diff.new_origin, false))
                           : fmt::format("changes from {} to {}", diff.old_origin, diff.new_origin));
  doc.heading.push_back(diff.causes.empty() ? "cause: same catalog, prices, plan and gpuplan version"
                                            : fmt::format("cause: {}", fmt::join(diff.causes, "; ")));
  if (diff.empty()) {
    doc.heading.push_back("no verdict or figure changed");
  }
  if (!diff.plan_changes.empty()) {
    Table t{.title = "plan changes", .header = {"deployment", "input", "was", "now"}};
    for (const PlanChange& c : diff.plan_changes) {
      t.rows.push_back({c.deployment, c.input, c.old_value, c.new_value});
    }
    doc.tables.push_back(t);
  }
  if (!diff.flips.empty()) {
    Table t{.title = "verdict flips", .header = {"deployment", "expectation", "was", "now"}};
    for (const VerdictFlip& f : diff.flips) {
      const auto word = [&f](bool absent, bool pass) {
        return absent ? "absent" : pass ? (f.implied ? "pass (implied)" : "pass") : (f.implied ? "FAIL (implied)" : "FAIL");
      };
      t.rows.push_back({f.deployment, f.expectation.empty() ? "(verdict)" : f.expectation,
                        word(f.old_absent, f.old_pass), word(f.new_absent, f.new_pass)});
    }
    doc.tables.push_back(t);
  }
  if (!diff.changes.empty()) {
    Table t{.title = "figures", .header = {"deployment", "figure", "was", "now", "change", "relative"}};
    for (const FigureChange& c : diff.changes) {
      const auto rel = c.relative();
      t.rows.push_back({c.deployment, c.figure, fixed(c.old_value), fixed(c.new_value),
                        (c.change() >= 0 ? "+" : "") + fixed(c.change()),
                        rel ? fmt::format("{:+.1f} %", *rel * 100) : "-"});
    }
    doc.tables.push_back(t);
  }
  for (const std::string& a : diff.added) {
    doc.footer.push_back(fmt::format("added: {}", a));
  }
  for (const std::string& r : diff.removed) {
    doc.footer.push_back(fmt::format("removed: {}", r));
  }
  return doc;
}

}  // namespace gpuplan::detail
