#include "common.hpp"

#include "command_io.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include <gpuplan/input_limits.hpp>
#include <gpuplan/name_fold.hpp>
#include <gpuplan/checkpoint_name.hpp>
#include <gpuplan/error.hpp>
#include <gpuplan/price.hpp>
#include <gpuplan/provenance.hpp>

namespace gpuplan::cli {

void add_common_options(CLI::App& sub, CommonOptions& opts) {
  sub.add_option("--format", opts.format, "Output format")
      ->check(one_of({"table", "json", "csv", "markdown"}))
      ->default_val("table");
  sub.add_option("--units", opts.units, "Byte units: gb (1e9) or gib (2^30)")
      ->check(one_of({"gb", "gib"}))
      ->default_val("gb");
  sub.add_option("--catalog", opts.catalogs,
                 "Extra catalog file (repeatable); entries override built-in ids")
      ->check(non_empty())
      ->allow_extra_args(false);  // one file a --catalog: a following word is the next argument
}

Catalog load_catalog(const CommonOptions& opts) {
  Catalog catalog = Catalog::builtin();
  // A fixed "today" for price ages (golden outputs, what-ifs); default: the system clock.
  if (const char* today = std::getenv("GPUPLAN_TODAY"); today != nullptr && *today != '\0') {
    // Before the shipped prices it would blame them ("prices.json: ... in the future") and whichever
    // flag asked for a price.
    const DayNumber day = parse_iso_date(today, "GPUPLAN_TODAY");
    const std::string& newest = builtin_provenance().newest_price_date;
    if (!newest.empty() && day < parse_iso_date(newest, "newest_price_date")) {
      throw InputError(fmt::format("GPUPLAN_TODAY: {} is before the built-in catalog's newest price {}; unset it "
                                   "or give a later day",
                                   today, newest));
    }
    // A price 10 years old is no price: a day past that is a typo (9999-12-31 read every price as
    // 2.9 million days old).
    constexpr DayNumber kMaxYearsAhead = 10;
    if (!newest.empty() && day > parse_iso_date(newest, "newest_price_date") + kMaxYearsAhead * 366) {
      throw InputError(fmt::format("GPUPLAN_TODAY: {} is more than {} years after the built-in catalog's newest "
                                   "price {}; unset it or give a nearer day",
                                   limits::escaped(today), kMaxYearsAhead, newest));
    }
    catalog.set_today(day);
  }
  std::vector<std::string> files;
  const auto merge = [&catalog, &files](const std::string& file) {
    const MergeReport report = catalog.merge_file(file);
    files.push_back(file);
    for (const std::string& line : report.overrides) {
      print_note(fmt::format("gpuplan: note: {} overrides {}", file, line));
    }
    for (const std::string& line : report.dropped) {
      print_note(fmt::format("gpuplan: warning: {}: {}", file, line));
    }
  };
  if (const char* env = std::getenv("GPUPLAN_CATALOG"); env != nullptr && *env != '\0') {
    std::stringstream list(env);
    for (std::string path; std::getline(list, path, ':');) {
      if (path.empty()) {
        continue;
      }
      try {
        merge(path);
      } catch (const InputError& e) {
        throw InputError(fmt::format("GPUPLAN_CATALOG: {}", e.what()));
      }
    }
  }
  for (const std::string& file : opts.catalogs) {
    // A blank name would be reported by the file reader as "' ': catalog file does not exist", no flag named.
    if (file.find_first_not_of(" \t\n\r\v\f") == std::string::npos) {
      throw InputError(fmt::format("--catalog: '{}' is only white space; name a catalog file", file));
    }
    merge(file);
  }
  if (!files.empty()) {
    // Outputs name the catalog they were computed from: the built-in one and these files' bytes.
    Provenance p = builtin_provenance();
    std::vector<std::string> texts{p.catalog_hash};
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::vector<std::string_view> parts(texts.begin(), texts.end());
    p.catalog_hash = fingerprint(parts);
    for (const Price& price : catalog.prices()) {
      p.newest_price_date = std::max(p.newest_price_date, price.date);
    }
    p.catalog_files = files;
    set_output_provenance(std::move(p));
  }
  return catalog;
}

namespace {
template <typename Find>
auto lookup(const Catalog& catalog, std::string_view flag, Find&& find) -> decltype(find()) {
  try {
    auto& found = find();
    for (const std::string& note : catalog.take_notes()) {
      print_note(fmt::format("gpuplan: note: {}: {}", flag, note));
    }
    return found;
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", flag, e.what()));
  }
}
}  // namespace

const GpuSpec& lookup_gpu(const Catalog& catalog, std::string_view name, std::string_view flag) {
  return lookup(catalog, flag, [&]() -> const GpuSpec& { return catalog.gpu(name); });
}

const ModelSpec& lookup_model(const Catalog& catalog, std::string_view name, std::string_view flag) {
  return lookup(catalog, flag, [&]() -> const ModelSpec& { return catalog.model(name); });
}

WeightChoice choice_named_by(const ModelSpec& model, std::string_view name) {
  if (name == model.id) {
    return {};  // a catalog id: a batch sweep's usual request, answered without a parse
  }
  // A quantized release ships in the format its name states, not in the catalog model's. Read
  // as the catalog read it (a pasted U+2010 hyphen before "FP8" is "-FP8").
  const CheckpointName named = read_checkpoint_name(fold_name(name).text);
  std::string release;
  WeightChoice choice = named_release_choice(model, named, &release);
  if (named.format) {
    print_note(fmt::format("gpuplan: note: --model: weights in {} as the name's '{}' says (--weights-dtype overrides)",
                           to_string(named.format->element), named.format_text));
  }
  if (!release.empty()) {
    print_note("gpuplan: note: --model: " + release);
  }
  return choice;
}

std::string lower_case(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string normalize_dtype(std::string_view text) {
  std::string out = lower_case(text);
  // The method words gpuplan reads in checkpoint names (checkpoint_name.cpp: "-AWQ", "-GPTQ",
  // "quantized.w4a16" state 4-bit integer weights) name the same element here (helper s56 tasks F3).
  if (out == "awq" || out == "gptq" || out == "w4a16") {
    return "int4";
  }
  return out == "nvfp4" ? "fp4" : out;
}

CLI::Validator token_count() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* first = text.data();
        const char* last = text.data() + text.size();
        const auto [end, ec] = std::from_chars(first, last, value);
        std::uint64_t scale = 1;
        if (end + 1 == last && (*end == 'k' || *end == 'K')) {
          scale = 1024;
        } else if (end + 1 == last && (*end == 'm' || *end == 'M')) {
          scale = 1024 * 1024;
        } else if (end != last) {
          scale = 0;
        }
        constexpr std::uint64_t kMax = std::uint64_t{1} << 40;
        // A well-formed count past the cap is too large, not malformed: say so (helper s61 train:
        // --global-batch-tokens 1125899906842623 read as "expected a token count like 32768").
        if ((ec == std::errc::result_out_of_range || (ec == std::errc{} && first != end && scale != 0 &&
                                                      value > kMax / scale))) {
          // The flag's own range (checked next, on a value that parses) may be far smaller: not named here.
          return fmt::format("too large (past 2^40 = {} tokens, beyond any flag's range), got '{}'", kMax, text);
        }
        if (ec != std::errc{} || first == end || scale == 0) {
          return fmt::format("expected a token count like 32768, 32k or 1M (k = 1024), got '{}'", text);
        }
        text = std::to_string(value * scale);
        return {};
      },
      "TOKENS (32768, 32k, 1M; k = 1024)");
}

RenderOptions render_options(const CommonOptions& opts) {
  return {.format = parse_format(opts.format, "--format"),
          .units = parse_byte_units(opts.units, "--units")};
}

std::optional<std::string> empty_list_item(const CLI::Option& opt, std::string_view value) {
  const char delimiter = opt.get_delimiter();
  if (delimiter == '\0' || value.find(delimiter) == std::string_view::npos) {
    return std::nullopt;
  }
  const bool empty_item = value.front() == delimiter || value.back() == delimiter ||
                          value.find(std::string{delimiter, delimiter}) != std::string_view::npos;
  if (!empty_item) {
    return std::nullopt;
  }
  return fmt::format("an empty item in '{}'; give a value between each '{}'", value, delimiter);
}

std::string not_one_of(std::string_view value, const std::vector<std::string>& choices) {
  const auto close = closest_names(value, choices, 1);
  return fmt::format("{} not in {{{}}}{}", value, fmt::join(choices, ","),
                     close.empty() ? std::string() : fmt::format("; closest: {}", close.front()));
}

CLI::Validator one_of(std::vector<std::string> choices) {
  // The description is IsMember's ("{table,json}"), so --help reads as before.
  std::string description = fmt::format("{{{}}}", fmt::join(choices, ","));
  return CLI::Validator(
      [choices = std::move(choices)](std::string& text) -> std::string {
        return std::find(choices.begin(), choices.end(), text) != choices.end() ? std::string()
                                                                                 : not_one_of(text, choices);
      },
      std::move(description));
}

CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; },
                        "NON-EMPTY");
}

namespace {
/// A finite number in plain decimal or exponent notation, the whole text (from_chars: no hex,
/// no "inf" or "nan", no leading '+' or spaces, independent of the C locale).
std::optional<double> decimal(std::string_view text) {
  double v = 0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, v, std::chars_format::general);
  if (text.empty() || ec != std::errc{} || end != last || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}
}  // namespace

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
          return fmt::format("expected a decimal whole number such as 8, got '{}'", text);
        }
        const std::size_t first = std::min(text.find_first_not_of('0'), text.size() - 1);
        text.erase(0, first);  // "010" is ten, not CLI11's octal eight
        return {};
      },
      "");
}

CLI::Validator decimal_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<double> v = decimal(text);
        if (!v) {
          return fmt::format("expected a decimal number such as 0.5, got '{}'", text);
        }
        // "-0" passes a range from 0 (-0.0 >= 0) and its sign carried into products: "--failed-run-overhead
        // -0" printed failed_runs_usd_per_hour -0.0 (helper s55 bad-input F4). Zero is zero.
        if (std::fpclassify(*v) == FP_ZERO) {
          text = "0";
        }
        return {};
      },
      "");
}

CLI::Option* add_network_option(CLI::App& sub, double& gbit_per_s) {
  return sub.add_option("--network-gbit-per-s", gbit_per_s,
                        "Network bandwidth per GPU between nodes, Gb/s (8 x 400 Gb/s per 8-GPU node: 400)")
      ->capture_default_str()
      ->transform(decimal_number())
      ->check(CLI::Range(1.0, 100000.0));
}

CLI::Validator positive_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<double> v = decimal(text);
        return v && *v > 0 ? std::string() : fmt::format("expected a positive number, got '{}'", text);
      },
      "POSITIVE");
}

CLI::Validator share_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<double> v = decimal(text);
        return v && *v >= 0.01 && *v <= 1.0 ? std::string()
                                             : fmt::format("expected a number in [0.01, 1], got '{}'", text);
      },
      "SHARE in [0.01, 1]");
}

}  // namespace gpuplan::cli
