#include <gpuplan/provenance.hpp>

#include <string_view>
#include <utility>

#include <gpuplan/version.hpp>

#include "detail/fingerprint.hpp"

namespace gpuplan {
namespace detail {
// Computed at build time from the embedded catalog bytes (tools/embed_provenance.cpp): no run
// needs a pass over them, so `gpuplan --version` and provenance cost nothing.
extern const std::string_view kEmbeddedCatalogHash;
extern const std::string_view kEmbeddedNewestPriceDate;
}  // namespace detail

std::string fingerprint(std::span<const std::string_view> parts) { return detail::fnv1a64_text(parts); }

const Provenance& builtin_provenance() {
  static const Provenance p{.gpuplan_version = std::string(kVersion),
                            .catalog_hash = std::string(detail::kEmbeddedCatalogHash),
                            .newest_price_date = std::string(detail::kEmbeddedNewestPriceDate)};
  return p;
}

namespace {
Provenance& output_slot() {
  static Provenance p = builtin_provenance();
  return p;
}
}  // namespace

const Provenance& output_provenance() { return output_slot(); }

void set_output_provenance(Provenance p) { output_slot() = std::move(p); }

}  // namespace gpuplan
