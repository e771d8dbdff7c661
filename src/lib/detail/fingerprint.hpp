#pragma once
// FNV-1a fingerprints and the newest price date of catalog text, header-only so the build-time
// generator (tools/embed_provenance.cpp) and the library compute them with the same code.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gpuplan::detail {

/// "fnv1a64:" + 16 hex digits of FNV-1a 64 over the parts, each followed by a NUL byte.
inline std::string fnv1a64_text(std::span<const std::string_view> parts) {
  constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
  constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;
  std::uint64_t hash = kFnvOffset;
  for (const std::string_view part : parts) {
    for (const char c : part) {
      hash ^= static_cast<unsigned char>(c);
      hash *= kFnvPrime;
    }
    hash *= kFnvPrime;  // the NUL separator: XOR with 0 changes nothing
  }
  std::string text = "fnv1a64:0000000000000000";
  for (std::size_t i = text.size(); hash != 0; hash >>= 4) {
    text[--i] = "0123456789abcdef"[hash & 0xf];
  }
  return text;
}

inline bool is_iso_date(std::string_view s) {
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

/// The newest `"date": "YYYY-MM-DD"` in the prices text, "-" when none. A scan rather than a
/// parse: the catalog loader validates these dates.
inline std::string newest_date(std::string_view text) {
  constexpr std::string_view kKey = "\"date\"";
  std::string_view newest;
  for (std::size_t at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + kKey.size())) {
    const std::size_t open = text.find('"', text.find(':', at + kKey.size()));
    if (open == std::string_view::npos || open + 11 >= text.size()) {
      break;
    }
    const std::string_view value = text.substr(open + 1, 10);
    if (is_iso_date(value) && text[open + 11] == '"' && value > newest) {
      newest = value;  // ISO dates order as text
    }
  }
  return newest.empty() ? std::string("-") : std::string(newest);
}

}  // namespace gpuplan::detail
