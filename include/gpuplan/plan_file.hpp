#pragma once
// A plan file: a checked-in description of one or more deployments and what each must achieve
// (`gpuplan check`, `gpuplan report`). A deployment's settings carry the names of the CLI flags
// (without "--"), so a plan reads like the command lines it replaces; expectations are typed
// numbers with their unit in the name. docs/plan.schema.json documents the format.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

/// Version of the plan file format this gpuplan reads.
inline constexpr int kPlanSchemaVersion = 1;

/// One setting as its flag would be typed: {"--tp", "2"}; a switch (sparse) has an empty value.
struct PlanSetting {
  std::string flag;     ///< "--tp"
  std::string value;    ///< "2"; model-config: the path resolved against the plan's directory
  std::string pointer;  ///< "/deployments/0/tp", for messages
  bool is_switch = false;
};

/// What a deployment must achieve; unset ones are not checked.
struct Expectations {
  std::optional<bool> fits;
  std::optional<double> max_usd_per_million_tokens;  ///< output tokens, every priced mode
  std::optional<double> min_output_tokens_per_s;     ///< whole deployment, at the planned load
  std::optional<double> max_itl_ms;
  std::optional<double> max_ttft_ms;
  std::optional<std::uint64_t> min_concurrent_sequences;  ///< at input + output tokens, by memory
  std::optional<double> max_monthly_usd;             ///< 730 hours of the deployment's price
  [[nodiscard]] bool empty() const {
    return !fits && !max_usd_per_million_tokens && !min_output_tokens_per_s && !max_itl_ms && !max_ttft_ms &&
           !min_concurrent_sequences && !max_monthly_usd;
  }
};

struct PlanDeployment {
  std::string name;
  std::string pointer;                ///< "/deployments/0"
  std::vector<PlanSetting> settings;  ///< by name (JSON objects are unordered)
  Expectations expect;
  std::string expect_pointer;         ///< "/deployments/0/expect"
  /// The setting for a flag ("--gpu"), if given.
  [[nodiscard]] const PlanSetting* setting(std::string_view flag) const;
};

struct PlanFile {
  std::string origin;       ///< the path as given, for messages
  std::string description;
  std::string content_hash; ///< "fnv1a64:..." of the file's bytes: did the plan change?
  std::vector<PlanDeployment> deployments;
};

/// The settings a deployment may carry: flag names without "--", as `gpuplan cost` takes them
/// (`concurrency` as perf, cost and compare take it; `target-output-tokens-per-s`, the load as
/// output tokens/s over the deployment, as plan and scale take it).
std::span<const std::string_view> plan_setting_names();

/// Whether `key` names a context length ("context", "context_tokens", "max-model-len", ...):
/// fit's setting, which plan files and perf, cost and compare batch lines take as "input" and
/// "output" (a request's tokens; the context is their sum).
[[nodiscard]] bool is_context_key(std::string_view key);

/// Parses plan text. `base_dir` resolves relative model-config paths, which must exist.
/// Every error is an InputError "origin: /json/pointer: what" (syntax errors: line and column;
/// unknown fields: the closest names).
PlanFile parse_plan_file(std::string_view text, const std::string& origin, const std::filesystem::path& base_dir);
/// Reads and parses a plan file (relative paths in it are relative to the file's directory).
PlanFile load_plan_file(const std::filesystem::path& path);

}  // namespace gpuplan
