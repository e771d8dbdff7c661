#include <gpuplan/render.hpp>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

namespace gpuplan {

std::string_view to_string(Format format) {
  switch (format) {
    case Format::table: return "table";
    case Format::json: return "json";
    case Format::csv: return "csv";
    case Format::markdown: return "markdown";
  }
  return "?";
}

Format parse_format(std::string_view text, std::string_view field) {
  for (Format f : {Format::table, Format::json, Format::csv, Format::markdown}) {
    if (to_string(f) == text) {
      return f;
    }
  }
  throw InputError(
      fmt::format("{}: unknown format '{}'; known: table, json, csv, markdown", field, text));
}

ByteUnits parse_byte_units(std::string_view text, std::string_view field) {
  if (text == "gb") {
    return ByteUnits::gb;
  }
  if (text == "gib") {
    return ByteUnits::gib;
  }
  throw InputError(fmt::format("{}: unknown unit '{}'; known: gb (1e9 bytes), gib (2^30 bytes)",
                               field, text));
}

}  // namespace gpuplan
