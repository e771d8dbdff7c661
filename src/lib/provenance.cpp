#include <gpuplan/provenance.hpp>

#include <array>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include <gpuplan/version.hpp>

namespace gpuplan {
namespace detail {
extern const std::string_view kEmbeddedGpus;
extern const std::string_view kEmbeddedModels;
extern const std::string_view kEmbeddedPrices;
extern const std::string_view kEmbeddedBenchmarks;
}  // namespace detail

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;


bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') {
    return false;
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) {
      return false;
    }
  }
  return true;
}

// The newest `"date": "YYYY-MM-DD"` in the prices text. A scan rather than a parse: the catalog
// loader validates these dates, and provenance must not cost a parse of every price.
std::string newest_date(std::string_view text) {
  constexpr std::string_view kKey = "\"date\"";
  std::string_view newest;
  for (std::size_t at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + kKey.size())) {
    const std::size_t open = text.find('"', text.find(':', at + kKey.size()));
    if (open == std::string_view::npos || open + 11 >= text.size()) {
      break;
    }
    const std::string_view value = text.substr(open + 1, 10);
    if (is_date(value) && text[open + 11] == '"' && value > newest) {
      newest = value;  // ISO dates order as text
    }
  }
  return newest.empty() ? std::string("-") : std::string(newest);
}

}  // namespace

std::string fingerprint(std::span<const std::string_view> parts) {
  std::uint64_t hash = kFnvOffset;
  for (const std::string_view part : parts) {
    for (const char c : part) {
      hash ^= static_cast<unsigned char>(c);
      hash *= kFnvPrime;
    }
    hash *= kFnvPrime;  // the NUL separator: XOR with 0 changes nothing
  }
  return fmt::format("fnv1a64:{:016x}", hash);
}

const Provenance& builtin_provenance() {
  static const Provenance p = [] {
    const std::array<std::string_view, 4> parts{detail::kEmbeddedGpus, detail::kEmbeddedModels,
                                                detail::kEmbeddedPrices, detail::kEmbeddedBenchmarks};
    return Provenance{.gpuplan_version = std::string(kVersion),
                      .catalog_hash = fingerprint(parts),
                      .newest_price_date = newest_date(detail::kEmbeddedPrices)};
  }();
  return p;
}

}  // namespace gpuplan
