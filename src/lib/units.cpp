#include <gpuplan/units.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <gpuplan/error.hpp>

#include "detail/ascii.hpp"

namespace gpuplan::units {
namespace {

struct Suffix {
  std::string_view name;  // lower case
  double factor;
};

using detail::lower;

// Splits "1.5GiB" into 1.5 and "gib"; throws when the number part is not a finite number.
std::pair<double, std::string> split_number(std::string_view text, std::string_view field,
                                            std::string_view what) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  double value = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr == begin || !std::isfinite(value)) {
    throw InputError(fmt::format("{}: expected {}, got '{}'", field, what, text));
  }
  std::string suffix = lower(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  suffix.erase(std::remove(suffix.begin(), suffix.end(), ' '), suffix.end());
  return {value, suffix};
}

double apply_suffix(std::string_view text, std::string_view field, std::string_view what,
                    const std::pair<double, std::string>& parts, const auto& suffixes,
                    bool allow_zero) {
  for (const Suffix& s : suffixes) {
    if (parts.second == s.name) {
      const double value = parts.first * s.factor;
      const bool ok = allow_zero ? value >= 0 : value > 0;
      if (!ok || !std::isfinite(value)) {
        throw InputError(fmt::format("{}: expected {} {}, got '{}'", field, what,
                                     allow_zero ? "of zero or more" : "greater than zero", text));
      }
      return value;
    }
  }
  throw InputError(fmt::format("{}: unknown unit in '{}' (expected {})", field, text, what));
}

}  // namespace

double parse_bytes(std::string_view text, std::string_view field) {
  static constexpr std::array<Suffix, 9> kSuffixes{{
      {"b", 1.0},   {"kb", kKB},     {"mb", kMB},   {"gb", kGB}, {"tb", kTB},
      {"kib", kKiB}, {"mib", kMiB},  {"gib", kGiB}, {"tib", kGiB * kKiB},
  }};
  constexpr std::string_view what = "a size such as 1.5GiB or 2GB";
  const auto parts = split_number(text, field, what);
  // A bare number is ambiguous (bytes? GB? GiB?): only zero may go without a unit.
  if (parts.second.empty() && parts.first >= 0 && parts.first <= 0) {
    return 0.0;
  }
  if (parts.second.empty()) {
    throw InputError(fmt::format("{}: '{}' needs a unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)", field, text));
  }
  return apply_suffix(text, field, what, parts, kSuffixes, true);
}

double parse_count(std::string_view text, std::string_view field) {
  static constexpr std::array<Suffix, 5> kSuffixes{{
      {"", 1.0}, {"k", kKB}, {"m", kMega}, {"b", kGiga}, {"t", kTera},
  }};
  constexpr std::string_view what = "a count such as 744B, 70e9 or 350M";
  return apply_suffix(text, field, what, split_number(text, field, what), kSuffixes, false);
}

}  // namespace gpuplan::units
