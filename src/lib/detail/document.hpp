#pragma once
// A format-neutral report: heading lines, tables, footer lines. The table, csv and markdown
// renderers all print one of these, so every format shows the same numbers.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpuplan/render.hpp>

namespace gpuplan::detail {

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct Document {
  std::vector<std::string> heading;
  std::vector<Table> tables;
  std::vector<std::string> footer;
};

/// Renders as an aligned text table, CSV (one leading "table" column naming each table) or
/// GitHub markdown. Not for Format::json.
std::string render_document(const Document& doc, Format format);

/// `text` as GitHub markdown shows it literally: backslash, '|', emphasis, code, strikethrough,
/// links, HTML tags and comments, entities escaped (names in a plan are the user's text, and
/// the report goes into PR comments); with `line_start`, a leading heading or list marker too.
std::string md_text(std::string_view text, bool line_start);

/// Which columns hold numbers (or "-"), to right-align them; never the first.
std::vector<bool> numeric_columns(const Table& t);

/// 32768 -> "32,768".
std::string group_digits(std::uint64_t value);
/// " (3584 cached)" after a request's prompt tokens when its prefix cache holds some, else empty.
std::string cached_input_text(std::uint64_t cached);
/// ", 3 EP groups" for a layout of independent expert-parallel groups, else empty.
std::string expert_groups_text(const Layout& layout);
/// Bytes in the chosen unit, two decimals ("72.65"); the unit name is "GB" or "GiB".
std::string bytes_value(double bytes, ByteUnits units);
/// Like bytes_value(), but a figure under 0.005 units keeps two significant digits (0.0049, not 0.00).
std::string per_sequence_bytes_value(double bytes, ByteUnits units);
std::string_view unit_name(ByteUnits units);
/// Throws std::logic_error (exit 3) naming `what`.
[[noreturn]] void not_finite(std::string_view what);
/// Throws std::logic_error (exit 3) for NaN/inf: such a value is a bug, never an answer. Inline
/// (the throw is not): a batch answer checks some hundred numbers.
inline double checked(double value, std::string_view what) {
  if (!std::isfinite(value)) {
    not_finite(what);
  }
  return value;
}

}  // namespace gpuplan::detail
