#pragma once
// What changed between two runs of a plan (`gpuplan diff OLD.json NEW.json`, `report --baseline`):
// verdict flips first, then $/Mtok, tok/s, users and memory, and what caused it.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/render.hpp>

namespace gpuplan {

/// The figures of one deployment that a diff compares, read back from a check/report JSON.
struct DeploymentSnapshot {
  std::string name;
  bool pass = false;
  std::vector<std::pair<std::string, double>> usd_per_million_tokens;  ///< by "provider mode"
  std::optional<double> gpus;  ///< the deployment's GPUs (a target load sizes it)
  std::optional<double> output_tokens_per_s;
  /// Latency at the planned load: a regression that stays under its expectation shows here.
  std::optional<double> itl_ms;
  std::optional<double> ttft_ms;
  std::optional<double> max_concurrent_sequences;
  double memory_bytes_per_gpu = 0;  ///< weights + activations + reserve + KV cache at the planned load
  /// Its load does not fit memory: throughput and cost are those of the capped batch, not the load's.
  bool load_not_held = false;
  /// memory.fits of the run: false, and memory_bytes_per_gpu is what the load would need, over
  /// the GPU's capacity (127 GB "per GPU" on an 80 GB H100 read as a measured figure).
  bool memory_fits = true;
  /// Each expectation's verdict: "fits", "max_usd_per_million_tokens (lyceum on-demand)", ...
  std::vector<std::pair<std::string, bool>> checks;
  /// Each expectation's threshold as printed ("8000", "yes"), keyed as `checks`; the plan's own
  /// only: an implied check (fits, written only when it fails) is no plan setting.
  std::vector<std::pair<std::string, std::string>> expected;
  /// Keys of `checks` the plan did not write (the implied "fits"): absent from the other run means passed.
  std::vector<std::string> implied;
  /// The plan's settings of the deployment (field, value); unset in runs written before they were.
  std::optional<std::vector<std::pair<std::string, std::string>>> inputs;
};

struct PlanSnapshot {
  std::string origin;
  std::string gpuplan_version;
  std::string catalog_hash;
  std::string newest_price_date;
  std::string plan_file;
  std::string plan_hash;
  std::vector<DeploymentSnapshot> deployments;
};

/// Reads a `check --format json` or `report --format json` document. Another schema version,
/// another command's JSON or missing fields throw InputError naming `origin` and the pointer.
PlanSnapshot parse_plan_snapshot(std::string_view text, const std::string& origin);
/// Reads and parses such a file.
PlanSnapshot load_plan_snapshot(const std::string& path);

struct VerdictFlip {
  std::string deployment;
  std::string expectation;  ///< empty: the deployment's verdict; else the one expectation that flipped
  bool old_pass = false;
  bool new_pass = false;
  /// The expectation is only in the other run (a pricing mode or expectation added or removed):
  /// shown as "absent"; a failing check that appears is a regression like a pass turned FAIL.
  bool old_absent = false;
  bool new_absent = false;
  /// An implied check (fits, written only when it fails): its side without the check passed it.
  bool implied = false;
};

/// A deployment setting or expectation threshold the plan file changed (a reviewer tells a plan
/// edit from a model or catalog change by it).
struct PlanChange {
  std::string deployment;
  std::string input;      ///< "concurrency", "expect max_monthly_usd (aws on-demand)"
  std::string old_value;  ///< "absent" when only the new run has it
  std::string new_value;  ///< "absent" when only the old run has it
};

struct FigureChange {
  std::string deployment;
  std::string figure;   ///< "USD/Mtok (lyceum on-demand)", "output tok/s", "max sequences", "memory GB per GPU"
  double old_value = 0;
  double new_value = 0;
  [[nodiscard]] double change() const { return new_value - old_value; }
  /// Relative change; unset when the old value is 0.
  [[nodiscard]] std::optional<double> relative() const;
};

struct PlanDiff {
  std::string old_origin;
  std::string new_origin;
  std::vector<std::string> causes;     ///< "catalog changed (a -> b)", "plan changed", ...
  std::vector<PlanChange> plan_changes;  ///< settings and thresholds the plan changed
  std::vector<VerdictFlip> flips;
  std::vector<FigureChange> changes;   ///< only figures that moved
  std::vector<std::string> added;      ///< deployments only in the new run
  std::vector<std::string> removed;
  [[nodiscard]] bool empty() const { return flips.empty() && changes.empty() && added.empty() && removed.empty(); }
  /// Whether a deployment's verdict or an expectation went from pass to fail (diff --check).
  [[nodiscard]] bool regressed() const {
    return std::any_of(flips.begin(), flips.end(),
                       [](const VerdictFlip& f) { return (f.old_pass || f.old_absent) && !f.new_pass && !f.new_absent; });
  }
};

PlanDiff diff_plans(const PlanSnapshot& old_run, const PlanSnapshot& new_run);

/// table or markdown: causes, flips, then the figure changes; json: the same as data.
std::string render_plan_diff(const PlanDiff& diff, const RenderOptions& options);

}  // namespace gpuplan
