#pragma once
// The envelope of json_output.hpp's envelope(), for documents written with a JsonWriter (fit and
// perf): the same members in the same order (the golden tests compare the bytes).

#include <string_view>

#include <gpuplan/provenance.hpp>
#include <gpuplan/render.hpp>
#include <gpuplan/version.hpp>

#include "json_writer.hpp"

namespace gpuplan::detail {

/// `schema_version`, `command`, `gpuplan_version` and `provenance`, as the first members of the
/// object `w` has open.
inline void write_envelope(JsonWriter& w, std::string_view command) {
  const Provenance& p = output_provenance();
  w.member("schema_version", kJsonSchemaVersion);
  w.member("command", command);
  w.member("gpuplan_version", kVersion);
  w.key("provenance").begin_object();
  w.member("gpuplan_version", p.gpuplan_version);
  w.member("catalog_hash", p.catalog_hash);
  w.member("newest_price_date", p.newest_price_date);
  if (!p.catalog_files.empty()) {
    w.key("catalog_files").begin_array();
    for (const std::string& f : p.catalog_files) {
      w.value(f);
    }
    w.end_array();
  }
  w.end_object();
}

}  // namespace gpuplan::detail
