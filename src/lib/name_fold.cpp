// fold_name(): Unicode look-alikes of ASCII in pasted names.
#include <gpuplan/name_fold.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpuplan {
namespace {

// The code point at `at` and its length in bytes; {0, 0} for a byte that starts no valid sequence.
std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t at) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  char32_t cp = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2;
    cp = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    cp = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    cp = lead & 0x07u;
  } else {
    return {0, 0};
  }
  if (at + n > s.size()) {
    return {0, 0};
  }
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0u) != 0x80u) {
      return {0, 0};
    }
    cp = (cp << 6) | (b(k) & 0x3fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return {0, 0};
  }
  return {cp, n};
}

// Unicode's Cf (format) characters a name can pick up from a web page or a word processor.
bool invisible(char32_t cp) {
  return cp == 0xad || cp == 0x61c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206f) ||
         cp == 0xfeff;
}

bool combining(char32_t cp) { return cp >= 0x300 && cp <= 0x36f; }

bool dash(char32_t cp) {
  return (cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212 || cp == 0xfe58 || cp == 0xfe63;
}

bool space(char32_t cp) {
  return cp == 0xa0 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

// Cyrillic and Greek capitals and small letters drawn like Latin ones (a Russian keyboard's
// "Н100" is an H100): the Latin letter they look like, 0 for none.
char lookalike(char32_t cp) {
  static constexpr std::pair<char32_t, char> kTable[] = {
      {0x391, 'A'}, {0x392, 'B'}, {0x395, 'E'}, {0x396, 'Z'}, {0x397, 'H'}, {0x399, 'I'}, {0x39a, 'K'},
      {0x39c, 'M'}, {0x39d, 'N'}, {0x39f, 'O'}, {0x3a1, 'P'}, {0x3a4, 'T'}, {0x3a5, 'Y'}, {0x3a7, 'X'},
      {0x3bf, 'o'}, {0x405, 'S'}, {0x406, 'I'}, {0x408, 'J'}, {0x410, 'A'}, {0x412, 'B'}, {0x415, 'E'},
      {0x41a, 'K'}, {0x41c, 'M'}, {0x41d, 'H'}, {0x41e, 'O'}, {0x420, 'P'}, {0x421, 'C'}, {0x422, 'T'},
      {0x425, 'X'}, {0x430, 'a'}, {0x435, 'e'}, {0x43e, 'o'}, {0x440, 'p'}, {0x441, 'c'}, {0x443, 'y'},
      {0x445, 'x'}, {0x455, 's'}, {0x456, 'i'}, {0x458, 'j'}};
  for (const auto& [from, to] : kTable) {
    if (from == cp) {
      return to;
    }
  }
  return 0;
}

// Unicode's compatibility forms of ASCII letters and digits (NFKC folds them so): the
// Mathematical Alphanumeric Symbols, bold, italic, script, fraktur, double-struck, sans-serif and
// monospace (U+1D400..U+1D6A3: 13 alphabets of 52 letters; U+1D7CE..U+1D7FF: 5 sets of digits),
// and the circled letters and digits (U+24B6..U+24EA, U+2460..U+2468). "\U0001D421100" and
// "\u24D7100" are h100 (helper s55 bad-input F10). Fractions and superscripts are not folded: a
// "\u00bd" or "\u00b9" changes a number, so the name stays unknown.
char compatibility_form(char32_t cp) {
  if (cp >= 0x1d400 && cp <= 0x1d6a3) {
    const auto k = static_cast<int>((cp - 0x1d400) % 52);
    return static_cast<char>(k < 26 ? 'A' + k : 'a' + (k - 26));
  }
  if (cp >= 0x1d7ce && cp <= 0x1d7ff) {
    return static_cast<char>('0' + static_cast<int>((cp - 0x1d7ce) % 10));
  }
  if (cp >= 0x24b6 && cp <= 0x24cf) {
    return static_cast<char>('A' + static_cast<int>(cp - 0x24b6));
  }
  if (cp >= 0x24d0 && cp <= 0x24e9) {
    return static_cast<char>('a' + static_cast<int>(cp - 0x24d0));
  }
  if (cp >= 0x2460 && cp <= 0x2468) {
    return static_cast<char>('1' + static_cast<int>(cp - 0x2460));
  }
  return cp == 0x24ea ? '0' : 0;
}

// The marks vendors print after their names ("NVIDIA\u00ae H100", "AMD Instinct\u2122 MI300X"):
// no part of the name.
bool trademark(char32_t cp) { return cp == 0xa9 || cp == 0xae || cp == 0x2120 || cp == 0x2122; }

}  // namespace

FoldedName fold_name(std::string_view name) {
  FoldedName out;
  out.text.reserve(name.size());
  std::vector<std::string> changes;
  const auto add = [&changes](std::string change) {
    if (std::find(changes.begin(), changes.end(), change) == changes.end()) {
      changes.push_back(std::move(change));
    }
  };
  for (std::size_t at = 0; at < name.size();) {
    const auto [cp, n] = decode(name, at);
    if (n == 0) {
      out.text += name[at];
      ++at;
      continue;
    }
    if (cp >= 0xff01 && cp <= 0xff5e) {
      out.text += static_cast<char>(cp - 0xff01 + 0x21);
      add("full-width characters as ASCII");
    } else if (const char latin = lookalike(cp) != 0 ? lookalike(cp) : compatibility_form(cp); latin != 0) {
      out.text += latin;
      add(fmt::format("U+{:04X} as '{}'", static_cast<std::uint32_t>(cp), latin));
    } else if (trademark(cp)) {
      add(fmt::format("U+{:04X} dropped", static_cast<std::uint32_t>(cp)));
    } else if (dash(cp)) {
      out.text += '-';
      add(fmt::format("U+{:04X} as '-'", static_cast<std::uint32_t>(cp)));
    } else if (space(cp)) {
      out.text += ' ';
      add(fmt::format("U+{:04X} as a space", static_cast<std::uint32_t>(cp)));
    } else if (invisible(cp)) {
      add(fmt::format("invisible U+{:04X} dropped", static_cast<std::uint32_t>(cp)));
    } else if (combining(cp)) {
      add(fmt::format("combining U+{:04X} dropped", static_cast<std::uint32_t>(cp)));
    } else {
      out.text.append(name.substr(at, n));
    }
    at += n;
  }
  out.changes = fmt::format("{}", fmt::join(changes, ", "));
  return out;
}

}  // namespace gpuplan
