#pragma once
// What produced a number: the gpuplan version, the built-in catalog's content hash and the
// newest price date in it. Every JSON output carries it, so two runs can say why they differ.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

struct Provenance {
  std::string gpuplan_version;
  /// "fnv1a64:" + 16 hex digits over the embedded gpus, models, prices and benchmarks JSON
  /// bytes (FNV-1a: a fingerprint for "did the catalog change", not a security hash).
  std::string catalog_hash;
  std::string newest_price_date;  ///< YYYY-MM-DD, the newest "date" among the built-in prices
  /// Catalog files merged over the built-in catalog (--catalog, GPUPLAN_CATALOG), in order; with
  /// any, catalog_hash covers their bytes too and newest_price_date their prices.
  std::vector<std::string> catalog_files;
};

/// "fnv1a64:" + 16 hex digits of FNV-1a 64 over the parts, each followed by a NUL byte (so
/// "ab"+"c" and "a"+"bc" differ): a fingerprint for "did this change", not a security hash.
std::string fingerprint(std::span<const std::string_view> parts);

/// The built-in catalog's provenance, computed at build time from the embedded bytes.
const Provenance& builtin_provenance();

/// What every JSON output reports: the built-in provenance until the command line merges catalog
/// files, which sets it (a price override must not read as "same catalog" in a diff).
const Provenance& output_provenance();
void set_output_provenance(Provenance p);

}  // namespace gpuplan
