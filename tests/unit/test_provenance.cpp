// The built-in catalog's provenance is computed at build time (tools/embed_provenance.cpp); it
// must be exactly what hashing the embedded bytes at run time gives.
#include <array>
#include <string_view>

#include <catch2/catch.hpp>

#include <gpuplan/provenance.hpp>

#include "../../src/lib/detail/fingerprint.hpp"

namespace gpuplan::detail {
extern const std::string_view kEmbeddedGpus;
extern const std::string_view kEmbeddedModels;
extern const std::string_view kEmbeddedPrices;
extern const std::string_view kEmbeddedBenchmarks;
}  // namespace gpuplan::detail

TEST_CASE("provenance: the build-time catalog hash is the hash of the embedded bytes", "[provenance]") {
  namespace d = gpuplan::detail;
  REQUIRE(d::kEmbeddedPrices.size() > 1000);
  const std::array<std::string_view, 4> parts{d::kEmbeddedGpus, d::kEmbeddedModels, d::kEmbeddedPrices,
                                              d::kEmbeddedBenchmarks};
  const gpuplan::Provenance& p = gpuplan::builtin_provenance();
  CHECK(p.catalog_hash == gpuplan::fingerprint(parts));
  CHECK(p.newest_price_date == d::newest_date(d::kEmbeddedPrices));
  // One byte more anywhere changes it.
  const std::string more = std::string(d::kEmbeddedModels) + " ";
  const std::array<std::string_view, 4> changed{d::kEmbeddedGpus, more, d::kEmbeddedPrices, d::kEmbeddedBenchmarks};
  CHECK(p.catalog_hash != gpuplan::fingerprint(changed));
}

TEST_CASE("provenance: the newest price date is the largest well-formed one", "[provenance]") {
  using gpuplan::detail::newest_date;
  CHECK(newest_date(R"({"date": "2025-01-02"}, {"date":"2026-03-04"}, {"date": "2024-12-31"})") == "2026-03-04");
  CHECK(newest_date(R"({"date": "2027-1-1"}, {"date": "2025-01-02"})") == "2025-01-02");
  CHECK(newest_date("{}") == "-");
  CHECK(newest_date(R"({"date": "2025-01-0)") == "-");
}
