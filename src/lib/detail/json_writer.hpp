#pragma once
// JSON written as it is produced, into a caller's buffer: the same bytes nlohmann's dump() gives
// for the same ordered_json document (two-space indentation, or one line), without building the
// document first. fit and perf answer `gpuplan batch` 100,000 times a second with it; a DOM of
// some 150 small allocations per answer cost more than the answer itself.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::detail {

class JsonWriter {
 public:
  /// `indent` 2: nlohmann's dump(2); -1: dump(-1), one line. Appends to `out`.
  JsonWriter(std::string& out, int indent);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The next member's name (inside an object).
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double number);  ///< shortest round-trip text; NaN and infinities: null
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>)
  JsonWriter& value(T number) {
    if constexpr (std::is_signed_v<T>) {
      return integer(static_cast<std::int64_t>(number));
    } else {
      return unsigned_integer(static_cast<std::uint64_t>(number));
    }
  }
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  /// An array of strings.
  JsonWriter& value(const std::vector<std::string>& items);

  /// key(name).value(v)
  template <typename T>
  JsonWriter& member(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

 private:
  JsonWriter& integer(std::int64_t number);
  JsonWriter& unsigned_integer(std::uint64_t number);
  /// Separator and indentation before a value in an array, or before a key.
  void next_item();
  void open(char bracket);
  void close(char bracket);
  void newline_indent(std::size_t depth);

  std::string& out_;
  int indent_;
  bool after_key_ = false;
  /// Items written so far in each open container, innermost last.
  std::vector<std::size_t> items_;
};

}  // namespace gpuplan::detail
