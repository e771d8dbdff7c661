#pragma once
// What every subcommand shares: exit codes, --format/--units/--catalog, catalog loading.

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuplan/catalog.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/weight_choice.hpp>
#include <gpuplan/weight_format.hpp>

namespace gpuplan::cli {

/// Process exit codes (README "Exit codes").
enum class Exit : int { ok = 0, check_failed = 1, bad_input = 2, internal = 3 };

struct CommonOptions {
  std::vector<std::string> catalogs;  ///< --catalog FILE, repeatable
  std::string format = "table";
  std::string units = "gb";
};

/// Adds --format, --units and --catalog to a subcommand.
void add_common_options(CLI::App& sub, CommonOptions& opts);

/// The built-in catalog plus $GPUPLAN_CATALOG (':'-separated) and --catalog files, in that
/// order; each overridden id is reported on stderr.
Catalog load_catalog(const CommonOptions& opts);

RenderOptions render_options(const CommonOptions& opts);

/// The GPU or model a flag names, as people type it (case, aliases, abbreviations); a note on
/// stderr says what a loose name resolved to, and errors name `flag`.
const GpuSpec& lookup_gpu(const Catalog& catalog, std::string_view name, std::string_view flag);
const ModelSpec& lookup_model(const Catalog& catalog, std::string_view name, std::string_view flag);
/// The weights format a --model name states when it is a quantized release's repository
/// ("nvidia/Llama-3.3-70B-Instruct-FP8": fp8), with a note saying so; nullopt for the id of
/// `model` (what the name resolved to) or a name that states none.
WeightChoice choice_named_by(const ModelSpec& model, std::string_view name);

/// Lower-cases ASCII (ids and dtypes are case-insensitive).
std::string lower_case(std::string_view text);
/// A dtype as people type it: any case; NVIDIA's "nvfp4" is fp4 (4-bit float, block-scaled).
std::string normalize_dtype(std::string_view text);

/// A CLI11 transform for token counts: "32768", "32k", "128K", "1M" (binary: k = 1024, as
/// context windows are quoted); anything else fails naming the flag.
CLI::Validator token_count();

/// A CLI11 transform for every integer flag: plain decimal digits only ("010" is 10, as in the
/// real-valued flags; "0x10", "+8", "1e3" fail naming the flag). CLI11 itself would read "010"
/// as octal 8 and "0x10" as 16.
CLI::Validator whole_number();
/// A CLI11 transform for every real-valued flag: decimal or exponent notation ("0.5", "1e-3");
/// hex floats, "inf" and "nan" fail naming the flag.
CLI::Validator decimal_number();
/// --network-gbit-per-s, the one definition perf, cost, compare, scale and train share.
CLI::Option* add_network_option(CLI::App& sub, double& gbit_per_s);

/// A CLI11 check that accepts only finite numbers in [0.01, 1].
CLI::Validator share_validator();
/// A CLI11 check for a finite number > 0 (CLI::PositiveNumber prints DBL_MAX in its message).
CLI::Validator positive_validator();
/// A CLI11 check that rejects an empty value.
CLI::Validator non_empty();
/// A CLI11 check for a flag that takes one of `choices` (CLI::IsMember's, with the same help
/// text): the message lists them and adds the closest to a near miss ("jsn not in
/// {table,json,csv,markdown}; closest: json").
CLI::Validator one_of(std::vector<std::string> choices);
/// The message of one_of(): `value` is none of `choices`.
std::string not_one_of(std::string_view value, const std::vector<std::string>& choices);
/// Why `value`, given to `opt`, is refused before CLI11 splits it at the option's delimiter: an
/// empty item ("8,", "1,,8"), which CLI11 drops silently; nullopt when it is none or `opt` has
/// no delimiter.
std::optional<std::string> empty_list_item(const CLI::Option& opt, std::string_view value);

/// Each adds one subcommand whose callback runs it and stores its exit code in `exit_code`.
void add_catalog_command(CLI::App& app, Exit& exit_code);
void add_fit_command(CLI::App& app, Exit& exit_code);
void add_perf_command(CLI::App& app, Exit& exit_code);
void add_validate_command(CLI::App& app, Exit& exit_code);
void add_cost_command(CLI::App& app, Exit& exit_code);
void add_compare_command(CLI::App& app, Exit& exit_code);
void add_scale_command(CLI::App& app, Exit& exit_code);
void add_train_command(CLI::App& app, Exit& exit_code);
void add_plan_command(CLI::App& app, Exit& exit_code);
void add_batch_command(CLI::App& app, Exit& exit_code);
void add_check_command(CLI::App& app, Exit& exit_code);
void add_report_command(CLI::App& app, Exit& exit_code);
void add_diff_command(CLI::App& app, Exit& exit_code);

}  // namespace gpuplan::cli
