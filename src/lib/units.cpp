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
      if (!std::isfinite(value)) {  // 1e300B: too large, not "not greater than zero"
        throw InputError(fmt::format("{}: '{}' is too large (expected {})", field, text, what));
      }
      const bool ok = allow_zero ? value >= 0 : value > 0;
      if (!ok) {
        throw InputError(fmt::format("{}: expected {} {}, got '{}'", field, what,
                                     allow_zero ? "of zero or more" : "greater than zero", text));
      }
      // "-0GB" passes as zero but keeps its sign, which a figure would print as "-0.00": adding
      // +0.0 makes any zero positive and leaves every other value as it is.
      return value + 0.0;
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
  // "5Gb", "5Mb", "5b" are bits by SI convention (5 Gb = 0.625 GB): read as bytes they would be 8x
  // too much, so a lower-case b after an upper-case prefix, or alone, is refused. An all-lower-case
  // "5gb" or "1.5gib" stays bytes, as everyone types it.
  const std::string_view written = text.substr(0, text.find_last_not_of(' ') + 1);
  if (!written.empty() && written.back() == 'b') {
    const std::size_t unit_start = written.find_last_of("0123456789.") + 1;
    const std::string_view unit = written.substr(unit_start);
    const bool bits = unit == "b" || std::any_of(unit.begin(), unit.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (bits) {
      throw InputError(fmt::format("{}: '{}' reads as bits (a lower-case b); sizes are bytes: write B ({}B)", field,
                                   text, std::string(written.substr(0, written.size() - 1))));
    }
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
