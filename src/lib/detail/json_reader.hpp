#pragma once
// Reads one JSON object field by field, naming the file and JSON pointer in every error:
// "gpus.json: /gpus/3/memory_bandwidth_tb_per_s: expected a positive number, got -1".
// Private to the library; nlohmann types never reach public headers.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuplan::detail {

using Json = nlohmann::json;
using JsonPointer = nlohmann::json::json_pointer;

/// "origin: /pointer" as used at the start of every catalog error.
std::string where(std::string_view origin, const JsonPointer& at);

/// Parses text; syntax errors and inputs past gpuplan/input_limits.hpp throw InputError
/// "origin: invalid JSON: <line, column, what>". Values of `skipped_top_keys` in the top-level
/// object are parsed but not kept (nor counted).
Json parse_json_text(std::string_view text, std::string_view origin,
                     std::initializer_list<std::string_view> skipped_top_keys = {});

/// What a present key's null means. HF's config.json writes null for "unset" (absent); gpuplan's
/// own formats (plans, benchmarks, prices) have no null, and reading one as absent had turned
/// "max_itl_ms": null into a check that passes with no gate (helper s57 badinput F1).
enum class Nulls { absent, refused };

class ObjectReader {
 public:
  /// Throws InputError unless `object` is a JSON object.
  ObjectReader(const Json& object, std::string origin, JsonPointer at, Nulls nulls = Nulls::absent);

  /// Present and not null (with Nulls::refused a null throws InputError naming the key).
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] const JsonPointer& pointer() const { return at_; }
  [[nodiscard]] const std::string& origin() const { return origin_; }
  [[nodiscard]] const Json& object() const { return object_; }
  [[nodiscard]] std::string where_of(std::string_view key) const;

  std::string string(std::string_view key);                   ///< required, non-empty
  std::optional<std::string> optional_string(std::string_view key);
  /// A finite number in (0, max] (or [0, max] when allow_zero).
  double number(std::string_view key, double max, bool allow_zero = false);
  std::optional<double> optional_number(std::string_view key, double max, bool allow_zero = false);
  /// A finite number in [min, max], min > 0: below min is "implausibly small" (1e-300 TFLOP/s
  /// or a price of 1e-300 USD would reach outputs as 1e300-digit figures or blame a flag).
  double number_in(std::string_view key, double min, double max);
  std::optional<double> optional_number_in(std::string_view key, double min, double max);
  std::uint64_t integer(std::string_view key, std::uint64_t min, std::uint64_t max);
  std::optional<std::uint64_t> optional_integer(std::string_view key, std::uint64_t min,
                                                std::uint64_t max);
  bool boolean(std::string_view key, bool fallback);
  /// A non-empty array of non-empty strings.
  std::vector<std::string> strings(std::string_view key);
  /// The raw value (nullptr when absent or null; Nulls::refused throws for null); marks the key as read. A NaN or infinite
  /// number (config.json's Python literals) is refused here, naming the key.
  const Json* value(std::string_view key);
  /// Whether value() (or a typed read) has been asked for `key`: a field the reader consumed.
  [[nodiscard]] bool was_read(std::string_view key) const { return read_.find(key) != read_.end(); }

  /// Throws InputError for the first key not in `allowed` ("unknown field"), naming the
  /// closest allowed key.
  void reject_unknown(std::span<const std::string_view> allowed) const;

  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

  /// Messages about `key` name `written` instead: a field read under its usual name that the file
  /// spells otherwise (ChatGLM's num_layers, read as num_hidden_layers).
  void spell(const std::string& key, const std::string& written) { spelled_[key] = written; }
  /// The name the file gives `key`: its spelling (spell()), else `key`.
  [[nodiscard]] std::string written_name(std::string_view key) const {
    const auto it = spelled_.find(key);
    return it == spelled_.end() ? std::string(key) : it->second;
  }

 private:
  /// The value of a required field, or the "missing required field" failure (a null one: "null
  /// where a value is required").
  template <typename T>
  T required(std::string_view key, std::optional<T> v) const {
    if (!v) {
      fail(key, object_.contains(key) ? "null where a value is required" : "missing required field");
    }
    return std::move(*v);
  }

  const Json& object_;
  std::string origin_;
  JsonPointer at_;
  Nulls nulls_;
  std::map<std::string, std::string, std::less<>> spelled_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace gpuplan::detail
